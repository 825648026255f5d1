//go:build go1.27

package pgcache

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
	"io"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/decode"
)

// badDest is a Scan destination of a column in the bad rows, and whether
// pgx stdlib's ScanColumn hands it to database/sql's conversion (sql) or
// to its type map.
type badDest struct {
	name string
	new  func() any
	sql  bool
}

func destOf[T any](sql bool) badDest {
	return badDest{name: fmt.Sprintf("%T", new(T)), new: func() any { return new(T) }, sql: sql}
}

// badDests are the destinations of each column of badRowColumns.
var badDests = [][]badDest{
	{destOf[int64](true)},
	{destOf[string](true), destOf[any](true), destOf[float64](true), destOf[int64](true), destOf[Decimal](true),
		destOf[NullDecimal](true), destOf[apd.Decimal](true), destOf[pgtype.Numeric](true), destOf[[]string](false)},
	{destOf[string](true), destOf[any](true), destOf[[]byte](true), destOf[Hstore](true), destOf[NullHstore](true),
		destOf[pgtype.Hstore](true), destOf[map[string]*string](false)},
	{destOf[int64](true), destOf[any](true), destOf[string](true), destOf[int32](true), destOf[sql.NullInt64](true),
		destOf[float64](true), destOf[pgtype.Int8](true), destOf[[]int64](false)},
	{destOf[time.Time](true), destOf[any](true), destOf[string](true), destOf[sql.NullTime](true),
		destOf[pgtype.Date](true), destOf[[]time.Time](false)},
}

// stdlibScanColumn is pgx stdlib's ScanColumn for a destination that is not
// nil: database/sql's conversion of stdlib's driver value, or pgx's type map
// over the wire bytes.
func stdlibScanColumn(m *pgtype.Map, fd *pgconn.FieldDescription, conv convFunc, raw []byte, d badDest, dest any) error {
	if !d.sql {
		return m.Scan(fd.DataTypeOID, fd.Format, raw, dest)
	}
	var v sqldriver.Value
	if raw != nil {
		var err error
		if v, err = conv(raw); err != nil {
			return err
		}
	}
	return sql.ConvertAssign(sqldriver.ScanContext{}, dest, v)
}

// sameScan reports whether two destinations hold the same value: equal, or
// both a float64 NaN.
func sameScan(got, want any) bool {
	if g, ok := got.(*float64); ok && math.IsNaN(*g) {
		return math.IsNaN(*want.(*float64))
	}
	return reflect.DeepEqual(got, want)
}

// TestRowsScanColumnBadInput reads the bad rows with NextRow and scans every
// column into each of its destinations with ScanColumn, comparing each scan
// with pgx stdlib's over the same bytes: the same value, or the same error.
// NextRow itself converts nothing, so it fails on no row, as stdlib's does.
// Every destination is tried on the rows with a bad value, the first rows
// and every 101st; *any alone on the others.
func TestRowsScanColumnBadInput(t *testing.T) {
	c, fields := badRowsConn(t)
	rows, nonNull := badRows()
	rec := &replayRows{fields: fields, rows: rows}
	m := pgtype.NewMap()
	std := stdlibValues(m, fields)
	ResetCache()
	before := badRowsTraffic()
	r := replay(c, rec)
	var sc sqldriver.ScanContext
	var scans, errs int
	for n, raws := range rows {
		if err := catch(r.NextRow); err != nil {
			t.Fatalf("row %d %q: NextRow: %v", n+1, raws, err)
		}
		full := n < 1000 || n%101 == 0 || stdlibNext(std, raws, make([]sqldriver.Value, len(raws))) != nil
		if !full {
			_, err1 := decode.ParseNumeric(string(raws[1]))
			_, err2 := decode.ParseHstore(string(raws[2]))
			full = raws[1] != nil && err1 != nil || raws[2] != nil && err2 != nil
		}
		for i, dests := range badDests {
			for _, d := range dests {
				if !full && d.name != "*interface {}" && i > 0 {
					continue
				}
				got, want := d.new(), d.new()
				err := catch(func() error { return r.ScanColumn(sc, i, got) })
				scans++
				if err != nil {
					errs++
				}
				wantErr := stdlibScanColumn(m, &fields[i], std[i], raws[i], d, want)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) || !sameScan(got, want) {
					t.Fatalf("row %d, column %d %q into %s: %v, %v; pgx stdlib %v, %v",
						n+1, i, raws[i], d.name, reflect.ValueOf(got).Elem(), err, reflect.ValueOf(want).Elem(), wantErr)
				}
			}
		}
	}
	if err := r.NextRow(); err != io.EOF {
		t.Fatalf("NextRow after the last row: %v, want io.EOF", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d scans, %d of them failed", scans, errs)
	if errs == 0 {
		t.Fatal("no scan failed")
	}
	checkBadRowsTraffic(t, before, nonNull)
}
