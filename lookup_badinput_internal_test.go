package pgcache

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/decode"
)

// Text a numeric or hstore column should never carry — the server only ever
// sends numeric_out's and hstore_out's output — fed to the Rows layer
// directly, where no server can be made to send it. Whatever the text, the
// driver value must be exactly the string pgx stdlib would hand over (the
// text itself, copied), nothing undecodable may be admitted, and nothing may
// panic. These tests use tables of their own, not the process-wide ones.

// freshShort and freshLong make an empty table of the same type as the
// process-wide one.
func freshShort[V any](*cache.Short[V]) *cache.Short[V] { return cache.NewShort[V]() }
func freshLong[V any](t *cache.Long[V]) *cache.Long[V]  { return cache.NewLong[V](t.MaxText()) }

var badNumericTexts = []string{
	"", " ", "abc", "1e", "1e5", "1E+5", "--1", "+-1", "1.2.3", ".", "-", "+", "-.", "1,5", "0x10",
	"nan", "NAN", "inf", "-inf", "Inf", "infinity", "+Infinity", " 1", "1 ", "1\t", "\x00", "1\x00", "\x001",
	"\xff\xfe", "1\xff", "١٢", "1_000", "1..", "..1", "1-", "1+1", "e5", "1e-", "NaN ", "-NaN", "∞",
	"12345678901234567890", strings.Repeat("9", 2000) + "x",
	"-0", // numeric_out prints 0; the strict parser refuses the sign
}

// Texts the server does send, which must still be admitted and hit.
var goodNumericTexts = []string{"0", "0.00", "1.5", "-12.50", "12345.67", "NaN", "Infinity", "99999999"}

func TestNumericValueBadText(t *testing.T) {
	tbl := freshShort(&numericTable)
	for _, text := range badNumericTexts {
		var c cache.Counts
		for pass := 0; pass < 4; pass++ {
			raw := []byte(text)
			v, reused := numericValueIn(tbl, raw, &c)
			s, ok := v.(string)
			if !ok || s != text {
				t.Fatalf("text %q, pass %d: driver value %#v, want the text itself", text, pass, v)
			}
			if reused {
				t.Errorf("text %q, pass %d: reported reused; it does not decode and must never be admitted", text, pass)
			}
			for i := range raw {
				raw[i] = 'X' // the driver value must not share the wire buffer
			}
			if s != text {
				t.Fatalf("text %q: the driver value changed with the wire buffer: %q", text, s)
			}
		}
		if key, ok := cache.Pack([]byte(text)); ok {
			if _, found := tbl.Get(key); found {
				t.Errorf("text %q was admitted", text)
			}
		}
		if c.Hits != 0 || c.Admissions != 0 || c.Misses+c.Bypasses != 4 {
			t.Errorf("text %q: counts %+v; want only misses and bypasses", text, c)
		}
	}
	for _, text := range goodNumericTexts {
		var c cache.Counts
		for pass := 0; pass < 3; pass++ {
			v, _ := numericValueIn(tbl, []byte(text), &c)
			if v != text {
				t.Errorf("text %q, pass %d: driver value %#v", text, pass, v)
			}
		}
		if c != (cache.Counts{Misses: 1, Admissions: 1, Hits: 1}) {
			t.Errorf("text %q: counts %+v, want a miss, an admission and a hit", text, c)
		}
	}
}

var badHstoreTexts = []string{
	" ", "a", `"a"`, `"a"=>`, `"a"=>"b`, `"a"=>"b",`, `"a"=>"b" "c"=>"d"`, `=>`, `=>"b"`, `"a"=>NUL`,
	`"a"=>NULLL`, `"a"=>"b"x`, `,`, `"a"=>"b",,"c"=>"d"`, `"\"`, `"a\"=>"b"`, `"a"=>"b\"`, `"a"="b"`,
	`"a">"b"`, `"a"=>>"b"`, "\x00", `"a"=>"b` + "\x00" + `"`, "\xff", `""=>`,
	`"a"=>"b", `, ` , `, `"a"=>"b"` + strings.Repeat(",", 100), strings.Repeat(`"`, 1000),
	strings.Repeat(`"k"=>"v", `, 100), strings.Repeat("x", 1024), strings.Repeat("x", 1025),
}

// Bytes that are not UTF-8 are good: under client_encoding=LATIN1 or
// SQL_ASCII the server sends é as one byte, 0xE9.
var goodHstoreTexts = []string{`"a"=>"b"`, `"a"=>NULL`, `"a"=>"1", "b"=>NULL`, `"k\"q"=>"v\\w"`, `""=>""`,
	`"a"=>"` + "\xff" + `"`, `"caf` + "\xe9" + `"=>"cr` + "\xe8" + `me"`}

func TestHstoreValueBadText(t *testing.T) {
	tbl := freshLong(hstoreTable)
	check := func(text string) (decoded bool) {
		t.Helper()
		_, err := decode.ParseHstore(text)
		var c cache.Counts
		for pass := 0; pass < 4; pass++ {
			raw := []byte(text)
			v, reused := hstoreValueIn(tbl, raw, &c)
			s, ok := v.(string)
			if !ok || s != text {
				t.Fatalf("text %q, pass %d: driver value %#v, want the text itself", text, pass, v)
			}
			if err != nil && reused {
				t.Errorf("text %q, pass %d: reported reused, but it does not decode (%v)", text, pass, err)
			}
			for i := range raw {
				raw[i] = 'X'
			}
			if s != text {
				t.Fatalf("text %q: the driver value changed with the wire buffer: %q", text, s)
			}
		}
		if err != nil {
			if _, found := tbl.GetString(tbl.HashString(text), text); found {
				t.Errorf("text %q was admitted though it does not decode: %v", text, err)
			}
			if c.Hits != 0 || c.Admissions != 0 {
				t.Errorf("text %q: counts %+v; want only misses and bypasses", text, c)
			}
		}
		return err == nil
	}
	for _, text := range badHstoreTexts {
		if check(text) {
			t.Errorf("bad text %q decodes", text)
		}
	}
	for _, text := range goodHstoreTexts {
		if !check(text) {
			t.Errorf("good text %q does not decode", text)
		}
	}
	// Random texts over hstore's syntax and some junk bytes.
	rng := rand.New(rand.NewPCG(4, 2))
	const alphabet = "\"\\=>, NULab\x00\xff\xc3\xa9"
	for range 3000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(string(b))
	}
}
