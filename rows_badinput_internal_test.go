package pgcache

import (
	"bytes"
	"context"
	sqldriver "database/sql/driver"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/decode"
	"github.com/pgcache/pgcache/internal/backoff"
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
	tbl := freshShort(numericTable)
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

// TestDecimalScanBadInput: Decimal.Scan of what a driver could hand it fails
// with an error that quotes the text or names the type, never a panic, and
// leaves the destination as it was.
func TestDecimalScanBadInput(t *testing.T) {
	for _, src := range []any{
		"abc", "", " ", "1e", "--1", "1.2.3", "\x00", "1\x00", "\xff", "0x10", "١٢",
		[]byte("abc"), []byte{}, []byte(nil),
		true, time.Unix(0, 0), []int{1}, struct{}{}, int32(5), uint64(5),
	} {
		t.Run(fmt.Sprintf("%T %v", src, src), func(t *testing.T) {
			d := Decimal{}
			before := d
			err := d.Scan(src)
			if err == nil {
				t.Fatalf("Scan(%#v) = %s, want an error", src, d)
			}
			checkNamesInput(t, err, src)
			if d != before {
				t.Errorf("Scan(%#v) failed but changed the destination to %s", src, d)
			}
		})
	}
	if err := new(Decimal).Scan(nil); err == nil {
		t.Error("Scan(nil) into a Decimal succeeded; NULL needs NullDecimal")
	}
	// Floats: NaN and the infinities are numeric values; every other float
	// must come back exactly.
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e308, 5e-324, 0.1} {
		var d Decimal
		if err := d.Scan(f); err != nil {
			t.Errorf("Scan(%v): %v", f, err)
			continue
		}
		got, err := d.Float64()
		if err != nil || !(got == f || math.IsNaN(f) && math.IsNaN(got)) {
			t.Errorf("Scan(%v).Float64() = %v, %v", f, got, err)
		}
	}
}

// TestHstoreScanBadInput is TestDecimalScanBadInput for Hstore.
func TestHstoreScanBadInput(t *testing.T) {
	srcs := []any{true, 5, int64(5), 1.5, time.Unix(0, 0), map[string]string{"a": "b"}}
	for _, s := range badHstoreTexts {
		if s == " " {
			continue // whitespace is the empty hstore, as hstore_in reads it
		}
		srcs = append(srcs, s)
	}
	srcs = append(srcs, []byte(`"a"=>`))
	for _, src := range srcs {
		name := fmt.Sprintf("%T %v", src, src)
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			var h Hstore
			err := h.Scan(src)
			if err == nil {
				t.Fatalf("Scan(%#v) = %s, want an error", src, h)
			}
			checkNamesInput(t, err, src)
			if h.Len() != 0 {
				t.Errorf("Scan(%#v) failed but filled the destination: %s", src, h)
			}
		})
	}
	if err := new(Hstore).Scan(nil); err == nil {
		t.Error("Scan(nil) into an Hstore succeeded; NULL needs NullHstore")
	}
}

// TestScanNilReceivers: a Scan into a nil *Decimal, *NullDecimal, *Hstore or
// *NullHstore, which database/sql before Go 1.27 passes on to the method, is
// an error naming the type, never a panic, for every kind of source.
func TestScanNilReceivers(t *testing.T) {
	for _, src := range []any{"1.5", []byte("1.5"), `"a"=>"1"`, int64(1), 1.5, nil, true} {
		for _, c := range []struct {
			name string
			scan func(any) error
		}{
			{"*pgcache.Decimal", (*Decimal)(nil).Scan},
			{"*pgcache.NullDecimal", (*NullDecimal)(nil).Scan},
			{"*pgcache.Hstore", (*Hstore)(nil).Scan},
			{"*pgcache.NullHstore", (*NullHstore)(nil).Scan},
		} {
			err := c.scan(src)
			if err == nil || !strings.Contains(err.Error(), "nil "+c.name) {
				t.Errorf("Scan(%#v) into a nil %s: %v, want an error naming the nil %[2]s", src, c.name, err)
			}
		}
	}
}

// checkNamesInput fails t unless err names the scanned value: the text
// quoted (or its start, for a long one), or the Go type of anything else.
func checkNamesInput(t *testing.T, err error, src any) {
	t.Helper()
	msg := err.Error()
	if msg == "" {
		t.Fatal("empty error message")
	}
	var text string
	switch v := src.(type) {
	case string:
		text = v
	case []byte:
		text = string(v)
	default:
		if !strings.Contains(msg, fmt.Sprintf("%T", src)) {
			t.Errorf("error %q does not name the type %T", msg, src)
		}
		return
	}
	q := strconv.Quote(text)
	if strings.Contains(msg, q) || strings.Contains(msg, text) {
		return
	}
	// A long text may be quoted in part, around the error: some 16 bytes of
	// it, as %q writes them, must be there.
	inner := q[1 : len(q)-1]
	for i := 0; i+16 <= len(inner); i++ {
		if len(text) > 64 && strings.Contains(msg, inner[i:i+16]) {
			return
		}
	}
	t.Errorf("error %q does not quote the text %q", msg, text)
}

// Bad input through Rows: the same texts, and binary int8 and date values
// of the wrong length, as the wire bytes of a result set replayed to
// newRows (replay_internal_test.go), read with Next as database/sql reads
// on Go 1.26 (and with NextRow and ScanColumn on Go 1.27, in
// rows_badinput_go127_internal_test.go). Each row must give what pgx
// stdlib's Rows gives for the same bytes: the same driver values, or the
// same error naming the same column, and never a panic. Each bad value
// comes three times in a row, so that it is sighted, then met again where a
// good value would be admitted, then looked up where a good one would hit;
// a bad value that was admitted would show as a value where stdlib gives an
// error. A long tail of all-distinct values with bad ones strewn in it puts
// every cached column in a back-off, so bad values also reach the rows
// passed in bulk.

// badRowColumns is the replayed result set's columns: a plain int4, then
// one of each cached kind (binary int8 and date with pgcache_types).
const badRowColumns = `select 1::int4 as id, 1.5::numeric as num, 'a=>b'::hstore as hs, 1::int8 as i8, '2000-01-01'::date as d`

// badRowsConn opens a connection that caches the four kinds, on a database
// with the hstore extension, and returns the replayed result set's
// columns.
func badRowsConn(t *testing.T) (*Conn, []pgconn.FieldDescription) {
	t.Helper()
	admin, closeAdmin := rawConn(t, "")
	_, err := admin.conn.Exec(context.Background(), "create extension if not exists hstore")
	closeAdmin()
	if err != nil {
		t.Fatalf("create extension hstore: %v", err)
	}
	c, closeDB := rawConn(t, "pgcache_types=int8,date")
	t.Cleanup(closeDB)
	return c, record(t, c, badRowColumns).fields
}

// badRows returns the rows of the replayed result set and, per cached
// column (num, hs, i8, d), how many of its values are not NULL.
func badRows() (rows [][][]byte, nonNull [4]int) {
	i8 := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	date := func(days int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(days)) }
	var badI8, badDate [][]byte
	for _, n := range []int{0, 1, 2, 3, 4, 7, 9, 16} {
		badI8 = append(badI8, bytes.Repeat([]byte{0x7f}, n))
	}
	for _, n := range []int{0, 1, 2, 3, 5, 8} {
		badDate = append(badDate, bytes.Repeat([]byte{0x01}, n))
	}
	id := 0
	add := func(row ...[]byte) {
		id++
		rows = append(rows, append([][]byte{binary.BigEndian.AppendUint32(nil, uint32(id))}, row...))
		for k, v := range row {
			if v != nil {
				nonNull[k]++
			}
		}
	}
	// A good value of each kind, so that every row has all four columns.
	good := func(i int) [4][]byte {
		return [4][]byte{[]byte(goodNumericTexts[i%len(goodNumericTexts)]), []byte(goodHstoreTexts[i%len(goodHstoreTexts)]),
			i8(int64(i % 5)), date(int32(i % 3))}
	}
	// bad is the k-th bad value of column col, cycling through its list.
	bad := func(col, k int) []byte {
		switch col {
		case 0:
			return []byte(badNumericTexts[k%len(badNumericTexts)])
		case 1:
			return []byte(badHstoreTexts[k%len(badHstoreTexts)])
		case 2:
			return badI8[k%len(badI8)]
		}
		return badDate[k%len(badDate)]
	}
	lens := [4]int{len(badNumericTexts), len(badHstoreTexts), len(badI8), len(badDate)}
	// Each bad value three times, the other columns good, then a row of
	// good values and a row of NULLs.
	for col := range 4 {
		for k := range lens[col] {
			for range 3 {
				row := good(k)
				row[col] = bad(col, k)
				add(row[:]...)
			}
			g := good(k + 1)
			add(g[:]...)
			add(nil, nil, nil, nil)
		}
	}
	// The all-distinct tail, long enough for a first skip and the second,
	// doubled one. Every so often a row holds a bad value in each column, or
	// a bad int8 followed by a NULL date (the NULL after a conversion error
	// in a row passed in bulk).
	tail := backoff.ProbeWindow + 3*backoff.SkipFirst
	for i := range tail {
		row := [4][]byte{fmt.Appendf(nil, "%d.25", i), fmt.Appendf(nil, `"k"=>"%d"`, i), i8(int64(i) * 7), date(int32(i))}
		switch {
		case i%997 == 500:
			for col := range 4 {
				row[col] = bad(col, i)
			}
		case i%991 == 300:
			row[2], row[3] = bad(2, i), nil
		}
		add(row[:]...)
	}
	return rows, nonNull
}

// stdlibValues is pgx stdlib's conversion of each column (its
// Rows.initValueFuncs) for the OIDs of badRowColumns, written out here apart
// from plainValueFunc: int4 and int8 to int64, date through pgtype.Date,
// everything else scanned into a string.
func stdlibValues(m *pgtype.Map, fields []pgconn.FieldDescription) []convFunc {
	funcs := make([]convFunc, len(fields))
	for i, fd := range fields {
		switch fd.DataTypeOID {
		case pgtype.Int4OID:
			var d int32
			plan := m.PlanScan(fd.DataTypeOID, fd.Format, &d)
			funcs[i] = func(src []byte) (sqldriver.Value, error) { err := plan.Scan(src, &d); return int64(d), err }
		case pgtype.Int8OID:
			var d int64
			plan := m.PlanScan(fd.DataTypeOID, fd.Format, &d)
			funcs[i] = func(src []byte) (sqldriver.Value, error) { err := plan.Scan(src, &d); return d, err }
		case pgtype.DateOID:
			var d pgtype.Date
			plan := m.PlanScan(fd.DataTypeOID, fd.Format, &d)
			funcs[i] = func(src []byte) (sqldriver.Value, error) {
				if err := plan.Scan(src, &d); err != nil {
					return nil, err
				}
				return d.Value()
			}
		default:
			var d string
			plan := m.PlanScan(fd.DataTypeOID, fd.Format, &d)
			funcs[i] = func(src []byte) (sqldriver.Value, error) { err := plan.Scan(src, &d); return d, err }
		}
	}
	return funcs
}

// stdlibNext is pgx stdlib's Rows.Next over one row: the values, or the
// first conversion error, wrapped with the column's index.
func stdlibNext(funcs []convFunc, raws [][]byte, dest []sqldriver.Value) error {
	for i, raw := range raws {
		if raw == nil {
			dest[i] = nil
			continue
		}
		v, err := funcs[i](raw)
		if err != nil {
			return fmt.Errorf("convert field %d failed: %w", i, err)
		}
		dest[i] = v
	}
	return nil
}

// badRowsTraffic returns the traffic of the four cached kinds' tables.
func badRowsTraffic() [4]cache.Stats {
	s := Stats()
	return [4]cache.Stats{s.Numeric, s.Hstore, s.Int8, s.Date}
}

// checkBadRowsTraffic fails t unless every non-NULL value read was counted
// once in its column's table, and no bad numeric or hstore text is in its
// table.
func checkBadRowsTraffic(t *testing.T, before [4]cache.Stats, nonNull [4]int) {
	t.Helper()
	after := badRowsTraffic()
	for k, name := range []string{"numeric", "hstore", "int8", "date"} {
		b, a := before[k], after[k]
		total := (a.Hits - b.Hits) + (a.Misses - b.Misses) + (a.Admissions - b.Admissions) + (a.Bypasses - b.Bypasses)
		if total != uint64(nonNull[k]) {
			t.Errorf("%s table: %d values counted, %d read", name, total, nonNull[k])
		}
	}
	for _, text := range badNumericTexts {
		if key, ok := cache.Pack([]byte(text)); ok {
			if _, found := numericTable.Get(key); found {
				t.Errorf("bad numeric text %q was admitted", text)
			}
		}
	}
	for _, text := range badHstoreTexts {
		if _, err := decode.ParseHstore(text); err == nil {
			continue
		}
		if _, found := hstoreTable.GetString(hstoreTable.HashString(text), text); found {
			t.Errorf("bad hstore text %q was admitted", text)
		}
	}
}

// catch runs f and turns a panic into an error that says so.
func catch(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return f()
}

// TestRowsNextBadInput reads the bad rows with Next and compares every row
// with pgx stdlib's Next over the same bytes: the same values, or the same
// error. It reads on past an error, as a driver's caller may, and every
// later row must still be right.
func TestRowsNextBadInput(t *testing.T) {
	c, fields := badRowsConn(t)
	rows, nonNull := badRows()
	rec := &replayRows{fields: fields, rows: rows}
	std := stdlibValues(pgtype.NewMap(), fields)
	ResetCache()
	before := badRowsTraffic()
	r := replay(c, rec)
	got, want := make([]sqldriver.Value, len(fields)), make([]sqldriver.Value, len(fields))
	var errs int
	for n, raws := range rows {
		for i := range got {
			got[i], want[i] = "unset", "unset"
		}
		err := catch(func() error { return r.Next(got) })
		wantErr := stdlibNext(std, raws, want)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("row %d %q: Next gives %#v, %v; pgx stdlib %#v, %v", n+1, raws, got, err, want, wantErr)
		}
		if err != nil {
			errs++
		}
	}
	if err := r.Next(got); err != io.EOF {
		t.Fatalf("Next after the last row: %v, want io.EOF", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if errs == 0 {
		t.Fatal("no row failed to convert")
	}
	checkBadRowsTraffic(t, before, nonNull)
}
