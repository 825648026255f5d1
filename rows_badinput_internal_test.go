package pgcache

import (
	"bytes"
	sqldriver "database/sql/driver"
	"encoding/binary"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/decode"
	"github.com/pgcache/pgcache/internal/backoff"
)

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
	createHstore(t)
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
