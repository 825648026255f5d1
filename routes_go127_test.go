//go:build go1.27

package pgcache_test

import (
	"database/sql"
	"testing"
	"time"

	"github.com/pgcache/pgcache/internal/pgtest"
)

// scalarTargets are the destinations of the shared scalar routes
// (routes_go127.go), each of which every entry kind offers.
var scalarTargets = []target{
	tString, tBytes, tRawBytes, tAny, tNullString, tInt64, tInt, tInt32,
	targetOf("int16", goSyntax[int16]), targetOf("int8", goSyntax[int8]),
	targetOf("uint64", goSyntax[uint64]), targetOf("uint", goSyntax[uint]), targetOf("uint32", goSyntax[uint32]),
	targetOf("uint16", goSyntax[uint16]), targetOf("uint8", goSyntax[uint8]),
	tFloat64, targetOf("float32", goSyntax[float32]), tBool,
	targetOf("time.Time", func(p *time.Time) string { return p.String() }),
	tNullInt64, targetOf("sql.NullInt32", goSyntax[sql.NullInt32]), targetOf("sql.NullInt16", goSyntax[sql.NullInt16]),
	targetOf("sql.NullByte", goSyntax[sql.NullByte]), tNullF64, targetOf("sql.NullBool", goSyntax[sql.NullBool]),
	targetOf("sql.NullTime", func(p *sql.NullTime) string { return p.Time.String() }),
}

// TestScalarRoutes: every cached kind scanned into every scalar destination
// gives what pgx stdlib gives — values, range and syntax errors — on a
// miss, an admission and a hit, with values at the edges of each
// destination's range.
func TestScalarRoutes(t *testing.T) {
	dsn := pgtest.DSN(t)
	ints := []string{"0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "32768", "-32769",
		"65535", "65536", "2147483647", "2147483648", "-2147483649", "4294967295", "4294967296", "9007199254740993", "NULL"}
	cast := func(typ string, vals ...string) []string {
		var out []string
		for _, v := range vals {
			out = append(out, "("+v+")::"+typ)
		}
		return twice(out...)
	}
	cases := []struct {
		name  string
		exprs []string
	}{
		{"numeric", cast("numeric", append(ints, "12.50", "'NaN'", "'Infinity'", "0.1", "1e3", "'-0.5'")...)},
		{"int8", cast("int8", append(ints, "9223372036854775807", "-9223372036854775808")...)},
		{"int4", cast("int4", ints[:15]...)},
		{"int2", cast("int2", "0", "1", "-1", "127", "128", "255", "256", "32767", "-32768", "NULL")},
		{"float8", cast("float8", "0", "1", "0.5", "'-0'", "1e20", "3.4e38", "3.5e38", "'NaN'", "'Infinity'", "16777217", "0.1", "NULL")},
		{"text", cast("text", "'1'", "'0'", "'t'", "'true'", "'300'", "'-129'", "'12.5'", "'abc'", "''", "'2024-05-06'", "NULL")},
		{"date", cast("date", "'2024-05-06'", "'infinity'", "'0044-03-15 BC'", "NULL")},
		{"timestamptz", cast("timestamptz", "'2024-05-06 07:08:09.5+02'", "'-infinity'", "NULL")},
	}
	for _, mode := range []string{"cache_statement", "simple_protocol"} {
		t.Run(mode, func(t *testing.T) {
			d := withParams(t, dsn, "default_query_exec_mode", mode)
			std := openDB(t, stdDriver, d)
			pc := openDB(t, pcDriver, withParams(t, d, "pgcache_types", "all"))
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					differential(t, std, pc, valuesQuery(c.exprs), scalarTargets)
				})
			}
		})
	}
}
