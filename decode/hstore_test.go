package decode_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/decode"
)

// kv is one expected pair; a nil value is NULL.
type kv struct {
	key   string
	value *string
}

func str(s string) *string { return &s }

// manyPairs is the hstore_out text of n pairs "k0".."k<n-1>" (in hstore
// order: by length, then bytewise), every tenth value NULL.
func manyPairs(n int) (string, []kv) {
	var want []kv
	for i := range n {
		p := kv{key: "k" + strconv.Itoa(i)}
		if i%10 != 3 {
			p.value = str("v" + strconv.Itoa(i))
		}
		want = append(want, p)
	}
	slices.SortFunc(want, func(a, b kv) int {
		if len(a.key) != len(b.key) {
			return len(a.key) - len(b.key)
		}
		return strings.Compare(a.key, b.key)
	})
	var b strings.Builder
	for i, p := range want {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + p.key + `"=>`)
		if p.value == nil {
			b.WriteString("NULL")
		} else {
			b.WriteString(`"` + *p.value + `"`)
		}
	}
	return b.String(), want
}

var thousandText, thousandPairs = manyPairs(1000)

// validHstores are accepted texts and their pairs in hstore order. Unless
// canonical is false, text is exactly what hstore_out prints for the pairs;
// several were printed by PostgreSQL 15.
var validHstores = []struct {
	name      string
	text      string
	want      []kv
	canonical bool // text is hstore_out's output for want
	dupKeys   bool // text repeats a key (pgx keeps the last, PostgreSQL and we the first)
}{
	{name: "empty", text: "", want: nil, canonical: true},
	{name: "one pair", text: `"a"=>"1"`, want: []kv{{"a", str("1")}}, canonical: true},
	{name: "NULL value", text: `"a"=>NULL`, want: []kv{{"a", nil}}, canonical: true},
	{name: "empty key and value", text: `""=>""`, want: []kv{{"", str("")}}, canonical: true},
	{name: "value NULL as a string", text: `"NULL"=>"NULL"`, want: []kv{{"NULL", str("NULL")}}, canonical: true},
	{
		// select hstore(array['k','a"b','c\d','=>', ', ', '', 'NULL', 'ключ', '日本'],
		//               array['v', 'x"y', 'p\q', '=>', ', ', '', null, 'значение', null]);
		name:      "PostgreSQL output with separators quotes and backslashes inside",
		text:      `""=>"", "k"=>"v", ", "=>", ", "=>"=>"=>", "a\"b"=>"x\"y", "c\\d"=>"p\\q", "NULL"=>NULL, "日本"=>NULL, "ключ"=>"значение"`,
		want:      []kv{{"", str("")}, {"k", str("v")}, {", ", str(", ")}, {"=>", str("=>")}, {`a"b`, str(`x"y`)}, {`c\d`, str(`p\q`)}, {"NULL", nil}, {"日本", nil}, {"ключ", str("значение")}},
		canonical: true,
	},
	{
		// select hstore('a', E'line1\nline2\ttab');
		name: "control characters are not escaped", text: "\"a\"=>\"line1\nline2\ttab\"",
		want: []kv{{"a", str("line1\nline2\ttab")}}, canonical: true,
	},
	{name: "only escapes", text: `"\\"=>"\"", "\"\\"=>"\\\\\"\""`, want: []kv{{`\`, str(`"`)}, {`"\`, str(`\\""`)}}, canonical: true},
	{name: "escaped quote before =>", text: `"\"=>"=>"\", \""`, want: []kv{{`"=>`, str(`", "`)}}, canonical: true},
	{name: "escaped backslash before closing quote", text: `"a\\"=>"b\\", "cc\\"=>NULL`, want: []kv{{`a\`, str(`b\`)}, {`cc\`, nil}}, canonical: true},
	{name: "escape in the middle of a long value", text: `"k"=>"` + strings.Repeat("x", 100) + `\"` + strings.Repeat("y", 100) + `"`, want: []kv{{"k", str(strings.Repeat("x", 100) + `"` + strings.Repeat("y", 100))}}, canonical: true},
	// Order is by the unescaped keys: `\\` is one byte, `a\"` two.
	{name: "escaped key orders by its unescaped length", text: `"\\"=>"x", "a"=>"y"`, want: []kv{{`\`, str("x")}, {"a", str("y")}}, canonical: true},
	{name: "escaped key orders by its unescaped bytes", text: `"a\""=>"1", "bb"=>"2"`, want: []kv{{`a"`, str("1")}, {"bb", str("2")}}, canonical: true},
	{name: "invalid UTF-8 is kept", text: "\"\xff\"=>\"\xc3\"", want: []kv{{"\xff", str("\xc3")}}, canonical: true},
	{name: "1000 pairs", text: thousandText, want: thousandPairs, canonical: true},

	// Not hstore_out output: the order is repaired, duplicates dropped.
	{name: "out of order", text: `"b"=>"2", "a"=>"1"`, want: []kv{{"a", str("1")}, {"b", str("2")}}},
	{name: "shorter key first", text: `"ab"=>"1", "b"=>"2", "é"=>"3", "bb"=>NULL`, want: []kv{{"b", str("2")}, {"ab", str("1")}, {"bb", nil}, {"é", str("3")}}},
	{
		// select '"a"=>"1", "a"=>"2"'::hstore; gives "a"=>"1"
		name: "duplicate keeps the first", text: `"a"=>"1", "a"=>"2"`, want: []kv{{"a", str("1")}}, dupKeys: true,
	},
	{
		// select '"b"=>"2", "a"=>"1", "a"=>"3"'::hstore; gives "a"=>"1", "b"=>"2"
		name: "unordered duplicate keeps the first", text: `"b"=>"2", "a"=>"1", "a"=>"3"`, want: []kv{{"a", str("1")}, {"b", str("2")}}, dupKeys: true,
	},
	{name: "escaped keys out of order", text: `"bb"=>"2", "a\""=>"1"`, want: []kv{{`a"`, str("1")}, {"bb", str("2")}}},
	{name: "escaped duplicate", text: `"a\""=>"1", "a\""=>"2\\"`, want: []kv{{`a"`, str("1")}}, dupKeys: true},
	{
		name:    "duplicates with NULL",
		text:    `"x"=>NULL, "y"=>"1", "x"=>"2", "y"=>NULL, "x"=>"3"`,
		want:    []kv{{"x", nil}, {"y", str("1")}},
		dupKeys: true,
	},
}

// invalidHstores are rejected texts with the byte offset at fault and, for
// some, the whole error message.
var invalidHstores = []struct {
	name, text string
	pos        int
	msg        string
}{
	{"unquoted key", `a=>"b"`, 0, `decode hstore "a=>\"b\"": invalid syntax at byte 0: expected '"' to open a key, found 'a'`},
	{"unquoted value", `"a"=>b`, 5, `decode hstore "\"a\"=>b": invalid syntax at byte 5: expected '"' or NULL for the value, found 'b'`},
	{"missing space after comma", `"a"=>"b","c"=>"d"`, 9, `decode hstore "\"a\"=>\"b\",\"c\"=>\"d\"": invalid syntax at byte 9: expected ' ' after ',', found '"'`},
	{"trailing comma", `"a"=>"b",`, 9, `decode hstore "\"a\"=>\"b\",": invalid syntax at byte 9: expected ' ' after ',', found end of text`},
	{"trailing separator", `"a"=>"b", `, 10, `decode hstore "\"a\"=>\"b\", ": invalid syntax at byte 10: expected '"' to open a key, found end of text`},
	{"missing =>", `"a""b"`, 3, `decode hstore "\"a\"\"b\"": invalid syntax at byte 3: expected "=>" after the key, found '"'`},
	{"= without >", `"a"="b"`, 4, ""},
	{"spaces around =>", `"a" => "b"`, 3, ""},
	{"key only", `"a"`, 3, `decode hstore "\"a\"": invalid syntax at byte 3: expected "=>" after the key, found end of text`},
	{"no value", `"a"=>`, 5, ""},
	{"unterminated key", `"abc`, 4, `decode hstore "\"abc": invalid syntax at byte 4: missing '"' to close the key opened at byte 0`},
	{"unterminated value", `"a"=>"b`, 7, ""},
	{"value closed early", `"a"=>"b, "c"=>"d"`, 10, ""},
	{"unterminated by an escaped quote", `"a"=>"b\"`, 9, `decode hstore "\"a\"=>\"b\\\"": invalid syntax at byte 9: missing '"' to close the value opened at byte 5`},
	{"backslash at the end", `"a"=>"b\`, 8, ""},
	{"bad escape", `"a\n"=>"b"`, 2, `decode hstore "\"a\\n\"=>\"b\"": invalid syntax at byte 2: invalid escape "\\n" in a quoted key: only \" and \\ are allowed`},
	// Found by FuzzHstore: the bad escape comes before the missing quote.
	{"bad escape in an unterminated key", `"\00`, 1, ""},
	{"bad escape after a good one", `"a"=>"\\\\\x"`, 10, ""},
	{"lowercase null", `"a"=>null`, 5, `decode hstore "\"a\"=>null": invalid syntax at byte 5: expected '"' or NULL for the value, found 'n'`},
	{"truncated NULL", `"a"=>NUL`, 8, ""},
	{"NULL with more", `"a"=>NULLx`, 9, ""},
	{"quoted then more", `"a"=>"b"x`, 8, `decode hstore "\"a\"=>\"b\"x": invalid syntax at byte 8: expected ", " or the end of the text after a pair, found 'x'`},
	{"text after the last pair", `"a"=>"b" "c"=>"d"`, 8, ""},
	{"two spaces", `"a"=>"b",  "c"=>"d"`, 10, ""},
	{"semicolon", `"a"=>"b"; "c"=>"d"`, 8, ""},
	{"leading space", ` "a"=>"b"`, 0, ""},
	{"trailing space", `"a"=>"b" `, 8, ""},
	{"trailing newline", "\"a\"=>\"b\"\n", 8, `decode hstore "\"a\"=>\"b\"\n": invalid syntax at byte 8: expected ", " or the end of the text after a pair, found '\n'`},
	{"single quotes", `'a'=>'b'`, 0, ""},
	{"NUL in a key", "\"a\x00\"=>\"b\"", 2, `decode hstore "\"a\x00\"=>\"b\"": invalid syntax at byte 2: NUL byte: PostgreSQL text cannot contain NUL`},
	{"NUL in a value before a syntax error", "\"a\"=>\"\x00\"x", 6, ""},
	{"NUL after a syntax error", "\"a\"=>x\x00", 5, ""},
	{"NUL outside quotes", "\"a\"=>\"b\"\x00", 8, ""},
	{"invalid UTF-8 outside quotes", "\xff", 0, `decode hstore "\xff": invalid syntax at byte 0: expected '"' to open a key, found byte 0xff`},
}

func pairsOf(h decode.Hstore) []kv {
	var got []kv
	for k, v := range h.All() {
		p := kv{key: k}
		if v.Valid {
			p.value = str(v.String)
		}
		got = append(got, p)
	}
	return got
}

func kvString(ps []kv) string {
	var b strings.Builder
	for _, p := range ps {
		if p.value == nil {
			fmt.Fprintf(&b, "%q=>NULL ", p.key)
		} else {
			fmt.Fprintf(&b, "%q=>%q ", p.key, *p.value)
		}
	}
	return b.String()
}

// kvMap returns ps as a map with fresh value pointers.
func kvMap(ps []kv) map[string]*string {
	m := make(map[string]*string, len(ps))
	for _, p := range ps {
		m[p.key] = nil
		if p.value != nil {
			m[p.key] = str(*p.value)
		}
	}
	return m
}

func equalMaps(a, b map[string]*string) bool {
	return maps.EqualFunc(a, b, func(x, y *string) bool {
		return x == nil && y == nil || x != nil && y != nil && *x == *y
	})
}

func TestParseHstore(t *testing.T) {
	for _, tt := range validHstores {
		t.Run(tt.name, func(t *testing.T) {
			h, err := decode.ParseHstore(tt.text)
			if err != nil {
				t.Fatalf("ParseHstore: %v", err)
			}
			if got := pairsOf(h); kvString(got) != kvString(tt.want) {
				t.Errorf("pairs\n got %s\nwant %s", kvString(got), kvString(tt.want))
			}
			if h.Len() != len(tt.want) {
				t.Errorf("Len() = %d, want %d", h.Len(), len(tt.want))
			}
			if h.Text() != tt.text {
				t.Errorf("Text() = %q, want the input", h.Text())
			}
			text := string(h.AppendText(nil))
			if tt.canonical && text != tt.text {
				t.Errorf("AppendText\n got %q\nwant %q", text, tt.text)
			}
			if !tt.canonical && text == tt.text {
				t.Errorf("AppendText gave the non-canonical input back: %q", text)
			}
			h2, err := decode.ParseHstore(text)
			if err != nil {
				t.Fatalf("reparse AppendText output %q: %v", text, err)
			}
			if kvString(pairsOf(h2)) != kvString(tt.want) {
				t.Errorf("reparsed pairs\n got %s\nwant %s", kvString(pairsOf(h2)), kvString(tt.want))
			}
		})
	}
}

func TestParseHstoreErrors(t *testing.T) {
	for _, tt := range invalidHstores {
		t.Run(tt.name, func(t *testing.T) {
			h, err := decode.ParseHstore(tt.text)
			if err == nil {
				t.Fatalf("ParseHstore(%q) = %s, want an error", tt.text, h.AppendText(nil))
			}
			if !errors.Is(err, decode.ErrSyntax) {
				t.Errorf("error %v does not wrap ErrSyntax", err)
			}
			var de *decode.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *decode.Error", err)
			}
			if de.Type != "hstore" || de.Text != tt.text || de.Pos != tt.pos {
				t.Errorf("Error{Type: %q, Pos: %d} for %q, want Type hstore, Pos %d: %v", de.Type, de.Pos, tt.text, tt.pos, err)
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("error message\n got %s\nwant %s", err, tt.msg)
			}
			if len(err.Error()) > 300 {
				t.Errorf("error message is %d bytes long", len(err.Error()))
			}
			if h.Len() != 0 || h.Text() != "" {
				t.Errorf("failed parse returned a non-zero Hstore")
			}
		})
	}
}

// TestParseHstoreLongError checks that a long text is quoted as a window
// around the fault rather than whole.
func TestParseHstoreLongError(t *testing.T) {
	at := 2000 + strings.Index(thousandText[2000:], ", ") + 2
	text := thousandText[:at] + "x" + thousandText[at:]
	_, err := decode.ParseHstore(text)
	want := "decode hstore ..." + strconv.Quote(text[at-32:at+32]) + "...: invalid syntax at byte " + strconv.Itoa(at) + `: expected '"' to open a key, found 'x'`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

// TestParseHstoreAllocs checks the allocation budget: one allocation for
// the pairs, one more for all the keys and values that contained escapes,
// and at most one to trim the pairs when keys or values contain '>' (which
// the pair count counts). It would catch an undercount, which makes append
// reallocate.
func TestParseHstoreAllocs(t *testing.T) {
	for _, tt := range validHstores {
		if tt.text == "" {
			continue
		}
		want, trim := 1, 0
		for _, p := range tt.want {
			if strings.ContainsAny(p.key, `"\`) || p.value != nil && strings.ContainsAny(*p.value, `"\`) {
				want = 2
			}
			if strings.Contains(p.key, ">") || p.value != nil && strings.Contains(*p.value, ">") {
				trim = 1
			}
		}
		got := testing.AllocsPerRun(10, func() {
			if _, err := decode.ParseHstore(tt.text); err != nil {
				t.Fatal(err)
			}
		})
		if got != float64(want) && got != float64(want+trim) {
			t.Errorf("%s: %v allocations, want %d", tt.name, got, want)
		}
	}
	const threePairs = `"a"=>"1", "b"=>NULL, "cc"=>"3"`
	if got := testing.AllocsPerRun(100, func() {
		if _, err := decode.ParseHstore(threePairs); err != nil {
			t.Fatal(err)
		}
	}); got != 1 {
		t.Errorf("%s: %v allocations, want exactly 1", threePairs, got)
	}
	// Ten pairs, one value full of '>': the estimate is far above ten (55
	// '>', clamped by the length to 20), so the slice is trimmed to size,
	// costing one more allocation.
	text, _ := manyPairs(10)
	text = strings.Replace(text, `"v0"`, `"`+strings.Repeat(">", 45)+`"`, 1)
	if got := testing.AllocsPerRun(10, func() {
		if _, err := decode.ParseHstore(text); err != nil {
			t.Fatal(err)
		}
	}); got != 2 {
		t.Errorf("'>'-heavy text: %v allocations, want 2", got)
	}
	if got := testing.AllocsPerRun(10, func() { _, _ = decode.ParseHstore("") }); got != 0 {
		t.Errorf("empty text: %v allocations, want 0", got)
	}
}

// TestParseHstoreAgreesWithPgtype checks that pgx's parser reads every
// accepted text the same way. pgx's parser is more lenient, so only accepted
// texts are compared. For a repeated key pgx keeps the last value (map
// assignment) and PostgreSQL and ParseHstore the first, so those texts are
// compared against their own rules.
func TestParseHstoreAgreesWithPgtype(t *testing.T) {
	for _, tt := range validHstores {
		t.Run(tt.name, func(t *testing.T) {
			h, err := decode.ParseHstore(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			var pg pgtype.Hstore
			if err := pg.Scan(tt.text); err != nil {
				t.Fatalf("pgtype.Hstore.Scan: %v", err)
			}
			if tt.dupKeys {
				if !equalMaps(h.Map(), kvMap(tt.want)) {
					t.Errorf("Map() = %v, want %v", h.Map(), kvMap(tt.want))
				}
				if len(pg) != h.Len() {
					t.Errorf("pgtype has %d keys, Hstore %d", len(pg), h.Len())
				}
				return
			}
			if !equalMaps(h.Map(), map[string]*string(pg)) {
				t.Errorf("Map() = %v, pgtype = %v", h.Map(), pg)
			}
		})
	}
}

func TestHstoreLookup(t *testing.T) {
	texts := []string{thousandText}
	for _, n := range []int{1, 2, 3, 7, 8, 9, 10, 33, 100} {
		text, _ := manyPairs(n)
		texts = append(texts, text)
	}
	for _, tt := range validHstores {
		texts = append(texts, tt.text)
	}
	for _, text := range texts {
		h, err := decode.ParseHstore(text)
		if err != nil {
			t.Fatal(err)
		}
		m := h.Map()
		for k, v := range m {
			got, isNull, ok := h.Lookup(k)
			if !ok || isNull != (v == nil) || v != nil && got != *v {
				t.Errorf("Lookup(%q) = %q, %v, %v; want %v", k, got, isNull, ok, v)
			}
			if !h.Has(k) {
				t.Errorf("Has(%q) = false", k)
			}
		}
		for _, k := range []string{"", "k", "k1000", "k-1", "zz", "\x00", "NULL", "日本語", "a\\", "kk", "k9999999"} {
			if _, present := m[k]; present {
				continue
			}
			if got, isNull, ok := h.Lookup(k); ok || isNull || got != "" {
				t.Errorf("Lookup(%q) of an absent key = %q, %v, %v", k, got, isNull, ok)
			}
			if h.Has(k) {
				t.Errorf("Has(%q) = true for an absent key", k)
			}
		}
	}
}

func TestHstoreLookupNull(t *testing.T) {
	h, err := decode.ParseHstore(`""=>"", "n"=>NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		key        string
		value      string
		isNull, ok bool
	}{
		{"", "", false, true},    // empty string value
		{"n", "", true, true},    // NULL value
		{"m", "", false, false},  // absent
		{"nn", "", false, false}, // absent
	} {
		v, isNull, ok := h.Lookup(tt.key)
		if v != tt.value || isNull != tt.isNull || ok != tt.ok {
			t.Errorf("Lookup(%q) = %q, %v, %v; want %q, %v, %v", tt.key, v, isNull, ok, tt.value, tt.isNull, tt.ok)
		}
	}
	if n := testing.AllocsPerRun(100, func() { h.Lookup("n") }); n != 0 {
		t.Errorf("Lookup allocates %v times", n)
	}
}

func TestHstoreZero(t *testing.T) {
	var h decode.Hstore
	parsed, err := decode.ParseHstore("")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []decode.Hstore{h, parsed, decode.HstoreFromMap(nil), decode.HstoreFromMap(map[string]*string{})} {
		if h.Len() != 0 || h.Text() != "" || h.Has("") || len(pairsOf(h)) != 0 {
			t.Errorf("%#v is not empty", h)
		}
		if m := h.Map(); m == nil || len(m) != 0 {
			t.Errorf("Map() = %#v, want an empty non-nil map", m)
		}
		if got := string(h.AppendText(nil)); got != "" {
			t.Errorf("AppendText = %q", got)
		}
		if got := string(h.AppendJSON(nil)); got != "{}" {
			t.Errorf("AppendJSON = %q", got)
		}
	}
}

// TestHstoreMapIsACopy checks that a Map result can be mutated, keys and
// values alike, without changing the shared Hstore.
func TestHstoreMapIsACopy(t *testing.T) {
	const text = `"a"=>"1", "b"=>NULL, "c"=>"3"`
	h, err := decode.ParseHstore(text)
	if err != nil {
		t.Fatal(err)
	}
	m := h.Map()
	*m["a"] = "changed"
	m["b"] = str("now set")
	delete(m, "c")
	m["d"] = nil
	m2 := h.Map()
	*m2["c"] = "changed too"

	if got := kvString(pairsOf(h)); got != `"a"=>"1" "b"=>NULL "c"=>"3" ` {
		t.Errorf("pairs after mutating Map copies: %s", got)
	}
	if v, _, _ := h.Lookup("a"); v != "1" {
		t.Errorf(`Lookup("a") = %q after mutation`, v)
	}
	if h.Has("d") {
		t.Error(`Has("d") after adding it to a copy`)
	}
	if got := string(h.AppendText(nil)); got != text {
		t.Errorf("AppendText = %q", got)
	}
	if m3 := h.Map(); *m3["a"] != "1" || m3["b"] != nil {
		t.Errorf("fresh Map() = %v", m3)
	}
}

// TestHstoreConcurrent reads one shared value from many goroutines; run it
// with -race.
func TestHstoreConcurrent(t *testing.T) {
	h, err := decode.ParseHstore(thousandText)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for i := range 200 {
				k := "k" + strconv.Itoa(i*5)
				if !h.Has(k) {
					errs <- fmt.Errorf("Has(%q) = false", k)
					return
				}
				m := h.Map()
				m[k] = nil
			}
			if string(h.AppendText(nil)) != thousandText {
				errs <- errors.New("AppendText changed")
				return
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// sameJSON compares AppendJSON's output with encoding/json's rendering.
// encoding/json's spelling of invalid UTF-8 changed in Go 1.27 (an escaped
// \ufffd before, the character U+FFFD itself since); both are valid JSON for
// the same string, so the character is compared in its escaped form.
func sameJSON(got, want string) bool {
	norm := strings.NewReplacer("\uFFFD", `\ufffd`)
	return norm.Replace(got) == norm.Replace(want)
}

// jsonObject is the encoding/json rendering (HTML escaping off) of pairs,
// with their order kept.
func jsonObject(t testing.TB, ps []kv) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	out := []byte{'{'}
	for i, p := range ps {
		if i > 0 {
			out = append(out, ',')
		}
		for j, v := range []any{p.key, p.value} {
			buf.Reset()
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			out = append(out, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
			if j == 0 {
				out = append(out, ':')
			}
		}
	}
	return string(append(out, '}'))
}

func TestHstoreAppendJSON(t *testing.T) {
	var all strings.Builder
	for c := range 256 {
		all.WriteByte(byte(c))
	}
	weird := []kv{
		{"", nil},
		{"ascii", str(all.String())},
		{"<html> & \u2028\u2029", str("é 日本 \U0001F600")},
		{"invalid \xff\xfe \xe2\x82 \xed\xa0\x80", str("\x7f\x1f\u00a0")},
		{`"quoted" \back\`, str("")},
	}
	m := kvMap(weird)
	h := decode.HstoreFromMap(m)
	got := string(h.AppendJSON([]byte("prefix ")))
	want := "prefix " + jsonObject(t, pairsOf(h))
	if !sameJSON(got, want) {
		t.Errorf("AppendJSON\n got %s\nwant %s", got, want)
	}
	if !json.Valid([]byte(got[len("prefix "):])) {
		t.Errorf("AppendJSON is not valid JSON: %s", got)
	}
	for _, tt := range validHstores {
		h, err := decode.ParseHstore(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(h.AppendJSON(nil)), jsonObject(t, tt.want); !sameJSON(got, want) {
			t.Errorf("%s: AppendJSON\n got %s\nwant %s", tt.name, got, want)
		}
	}
}

func TestHstoreFromMap(t *testing.T) {
	for _, tt := range validHstores {
		t.Run(tt.name, func(t *testing.T) {
			m := kvMap(tt.want)
			h := decode.HstoreFromMap(m)
			if got := kvString(pairsOf(h)); got != kvString(tt.want) {
				t.Errorf("pairs\n got %s\nwant %s", got, kvString(tt.want))
			}
			if got := string(h.AppendText(nil)); h.Text() != got {
				t.Errorf("Text() = %q, AppendText = %q", h.Text(), got)
			}
			if tt.canonical && h.Text() != tt.text {
				t.Errorf("Text() = %q, want %q", h.Text(), tt.text)
			}
			for k, v := range m { // the Hstore does not share the map's values
				if v != nil {
					*v += "!"
				}
				m[k] = str("?")
			}
			if got := kvString(pairsOf(h)); got != kvString(tt.want) {
				t.Errorf("pairs after changing the map\n got %s\nwant %s", got, kvString(tt.want))
			}
		})
	}
}

// TestHstoreReadAllocs checks that reading a shared value does not allocate.
func TestHstoreReadAllocs(t *testing.T) {
	h, err := decode.ParseHstore(thousandText)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 2*len(thousandText))
	n := 0
	for name, f := range map[string]func(){
		"Lookup": func() { _, _, _ = h.Lookup("k500") },
		"Has":    func() { _ = h.Has("absent") },
		"All": func() {
			for k, v := range h.All() {
				n += len(k) + len(v.String)
			}
		},
		"AppendText": func() { buf = h.AppendText(buf[:0]) },
		"AppendJSON": func() { buf = h.AppendJSON(buf[:0]) },
		"copy":       func() { h2 := h; n += h2.Len() },
	} {
		if got := testing.AllocsPerRun(20, f); got != 0 {
			t.Errorf("%s: %v allocations, want 0", name, got)
		}
	}
}

func TestHstoreAllStops(t *testing.T) {
	h, err := decode.ParseHstore(`"a"=>"1", "b"=>"2", "c"=>"3"`)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range h.All() {
		keys = append(keys, k)
		if k == "b" {
			break
		}
	}
	if !slices.Equal(keys, []string{"a", "b"}) {
		t.Errorf("keys = %q", keys)
	}
}
