package pgcache_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// The differential suite: every query runs through pgx stdlib and through
// pgcache, and every value scanned into every destination (or the error
// scanning it) must be the same. pgcache reads each query several times in a
// row, starting from an empty cache, so each value is compared on its miss,
// on its admission and on its hits.

// passes is how often pgcache reads each query: miss, admission, hit.
const passes = 3

// target is a Scan destination: new returns a fresh pointer, show describes
// what was scanned into it, exactly enough that two descriptions are equal
// only when the values are.
type target struct {
	name string
	new  func() any
	show func(any) string
}

func targetOf[T any](name string, show func(*T) string) target {
	return target{
		name: name,
		new:  func() any { return new(T) },
		show: func(p any) string { return show(p.(*T)) },
	}
}

// goSyntax shows a value as %#v does, its dynamic type included.
func goSyntax[T any](p *T) string { return fmt.Sprintf("%T %#v", *p, *p) }

// showBytes is goSyntax for byte slices, which %#v prints slowly, one byte at
// a time.
func showBytes[T ~[]byte](p *T) string {
	if *p == nil {
		return fmt.Sprintf("%T(nil)", *p)
	}
	return fmt.Sprintf("%T(%q)", *p, string(*p))
}

func showStringPtr(p **string) string {
	if *p == nil {
		return "nil"
	}
	return "&" + strconv.Quote(**p)
}

func showApd(d *apd.Decimal) string {
	return fmt.Sprintf("form=%d neg=%t exp=%d coeff=%s", d.Form, d.Negative, d.Exponent, d.Coeff.String())
}

func showShopspring(d decimal.Decimal) string {
	return d.Coefficient().String() + "e" + strconv.Itoa(int(d.Exponent()))
}

func showPgNumeric(n *pgtype.Numeric) string {
	return fmt.Sprintf("int=%v exp=%d nan=%t inf=%d valid=%t", n.Int, n.Exp, n.NaN, n.InfinityModifier, n.Valid)
}

func showPgHstore(h pgtype.Hstore) string {
	if h == nil {
		return "nil"
	}
	var b strings.Builder
	b.WriteString("{")
	for _, k := range slices.Sorted(maps.Keys(h)) {
		b.WriteString(strconv.Quote(k) + ":")
		if v := h[k]; v == nil {
			b.WriteString("NULL ")
		} else {
			b.WriteString(strconv.Quote(*v) + " ")
		}
	}
	b.WriteString("}")
	return b.String()
}

func showDecimal(d pgcache.Decimal) string {
	return d.String() + " " + showApd(d.Apd(nil))
}

func showHstore(h pgcache.Hstore) string {
	return strconv.Quote(h.String()) + " " + showPgHstore(h.Pgtype())
}

// Targets that apply to any column.
var (
	tString   = targetOf("string", goSyntax[string])
	tBytes    = targetOf("[]byte", showBytes[[]byte])
	tRawBytes = targetOf("sql.RawBytes", showBytes[sql.RawBytes])
	tAny      = targetOf("any", func(p *any) string {
		if b, ok := (*p).([]byte); ok {
			return showBytes(&b)
		}
		return goSyntax(p)
	})
	tNullString  = targetOf("sql.NullString", goSyntax[sql.NullString])
	tStringPtr   = targetOf("*string", showStringPtr)
	tFloat64     = targetOf("float64", goSyntax[float64])
	tInt64       = targetOf("int64", goSyntax[int64])
	tBool        = targetOf("bool", goSyntax[bool])
	tPgHstore    = targetOf("pgtype.Hstore", func(p *pgtype.Hstore) string { return showPgHstore(*p) })
	tDecimal     = targetOf("pgcache.Decimal", func(p *pgcache.Decimal) string { return showDecimal(*p) })
	tNullDecimal = targetOf("pgcache.NullDecimal", func(p *pgcache.NullDecimal) string {
		return fmt.Sprintf("valid=%t %s", p.Valid, showDecimal(p.Decimal))
	})
	tHstore     = targetOf("pgcache.Hstore", func(p *pgcache.Hstore) string { return showHstore(*p) })
	tNullHstore = targetOf("pgcache.NullHstore", func(p *pgcache.NullHstore) string {
		return fmt.Sprintf("valid=%t %s", p.Valid, showHstore(p.Hstore))
	})
)

// numericTargets are the destinations a numeric column is scanned into.
var numericTargets = []target{
	tString, tBytes, tRawBytes, tAny, tBool, tNullString, tStringPtr, tFloat64, tInt64,
	targetOf("float32", goSyntax[float32]),
	targetOf("int32", goSyntax[int32]),
	targetOf("int", goSyntax[int]),
	targetOf("sql.NullInt32", goSyntax[sql.NullInt32]),
	targetOf("time.Time", goSyntax[time.Time]),
	targetOf("sql.NullFloat64", goSyntax[sql.NullFloat64]),
	targetOf("sql.NullInt64", goSyntax[sql.NullInt64]),
	targetOf("sql.NullBool", goSyntax[sql.NullBool]),
	targetOf("sql.NullTime", goSyntax[sql.NullTime]),
	targetOf("apd.Decimal", showApd),
	targetOf("apd.NullDecimal", func(p *apd.NullDecimal) string {
		return fmt.Sprintf("valid=%t %s", p.Valid, showApd(&p.Decimal))
	}),
	targetOf("decimal.Decimal", func(p *decimal.Decimal) string { return showShopspring(*p) }),
	targetOf("decimal.NullDecimal", func(p *decimal.NullDecimal) string {
		return fmt.Sprintf("valid=%t %s", p.Valid, showShopspring(p.Decimal))
	}),
	targetOf("pgtype.Numeric", showPgNumeric),
	tPgHstore, tDecimal, tNullDecimal, tHstore,
}

// hstoreTargets are the destinations an hstore column is scanned into.
var hstoreTargets = []target{
	tString, tBytes, tRawBytes, tAny, tNullString, tStringPtr, tFloat64, tInt64, tBool,
	tPgHstore, tHstore, tNullHstore, tDecimal,
}

// querier is what *sql.DB, *sql.Conn and *sql.Tx have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readAll runs query and returns one line per row: each column scanned into a
// fresh value of its target and shown, or the Scan error. An error from
// Query, Next or Close is a line of its own.
func readAll(t testing.TB, q querier, query string, args []any, targets []target) []string {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		return []string{"query error: " + errShow(err)}
	}
	var lines []string
	for rows.Next() {
		dest := newDests(targets)
		if err := rows.Scan(dest...); err != nil {
			lines = append(lines, "scan error: "+errShow(err))
			continue
		}
		lines = append(lines, showRow(targets, dest))
	}
	return endLines(lines, rows)
}

// endLines appends rows' Err and Close errors to lines, each a line of its
// own. Call it once Next has returned false.
func endLines(lines []string, rows *sql.Rows) []string {
	if err := rows.Err(); err != nil {
		lines = append(lines, "rows error: "+errShow(err))
	}
	if err := rows.Close(); err != nil {
		lines = append(lines, "close error: "+errShow(err))
	}
	return lines
}

// newDests returns a fresh destination of each target, for one Scan.
func newDests(targets []target) []any {
	dest := make([]any, len(targets))
	for i, tg := range targets {
		dest[i] = tg.new()
	}
	return dest
}

// showRow shows the values Scan put in dest, the destinations of targets, one
// target after another, separated by " | ".
func showRow(targets []target, dest []any) string {
	var b strings.Builder
	for i, tg := range targets {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(tg.show(dest[i]))
	}
	return b.String()
}

func repeatTarget(tg target, n int) []target {
	ts := make([]target, n)
	for i := range ts {
		ts[i] = tg
	}
	return ts
}

// checkReference fails t if stdlib's reference read itself failed: two
// drivers failing the same way would otherwise compare equal.
func checkReference(t testing.TB, what string, lines []string) {
	t.Helper()
	for _, l := range lines {
		if strings.HasPrefix(l, "query error") || strings.HasPrefix(l, "rows error") || strings.HasPrefix(l, "close error") {
			t.Fatalf("%s: stdlib's reference read failed: %s", what, l)
		}
	}
	if len(lines) == 0 {
		t.Fatalf("%s: stdlib's reference read returned no rows", what)
	}
}

// differential reads query through std and, passes times from an empty
// cache for each target, through pc, and compares every row.
func differential(t *testing.T, std, pc *sql.DB, query string, targets []target) {
	t.Helper()
	for _, tg := range targets {
		want := readAll(t, std, query, nil, []target{tg})
		checkReference(t, tg.name, want)
		pgcache.ResetCache()
		for pass := 1; pass <= passes; pass++ {
			got := readAll(t, pc, query, nil, []target{tg})
			compareLines(t, fmt.Sprintf("%s, pass %d", tg.name, pass), want, got)
		}
	}
}

// valuesQuery selects each expression as one row of column v, in order.
func valuesQuery(exprs []string) string {
	var b strings.Builder
	b.WriteString("select v from (values ")
	for i, e := range exprs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d, %s)", i, e)
	}
	b.WriteString(") as t(i, v) order by i")
	return b.String()
}

// numericExprs make PostgreSQL produce the numeric texts under test.
var numericExprs = func() []string {
	es := []string{
		"'NaN'::numeric", "'Infinity'::numeric", "'-Infinity'::numeric", "'nan'::numeric", "'-inf'::numeric",
		"NULL::numeric",
	}
	for k := 0; k <= 20; k++ {
		es = append(es, fmt.Sprintf("0::numeric(30,%d)", k))
	}
	es = append(es,
		"'-0.00'::numeric", "'-0'::numeric", "'0'::numeric", "'+0.000'::numeric",
		// Repeats, so that one read already goes miss, admission, hit.
		"12.50::numeric", "12.50::numeric", "12.50::numeric", "12.50::numeric",
		"'-1'::numeric", "'-1.5'::numeric", "'-12.50'::numeric", "1.5", "0.5", "1", "'1.0'::numeric", "'1.00000'::numeric",
		"127", "128", "255", "256", "32767", "32768", "-32769", "2147483647", "2147483648", "-2147483649",
		"9223372036854775807::numeric", "9223372036854775808::numeric",
		"-9223372036854775808::numeric", "-9223372036854775809::numeric",
		"18446744073709551615::numeric", "18446744073709551616::numeric", "-18446744073709551616::numeric",
		"340282366920938463463374607431768211455::numeric", "340282366920938463463374607431768211456::numeric",
		"340282366920938463463374607431768211457::numeric", "-340282366920938463463374607431768211456.5::numeric",
		"99999999999999999999999999999999999999::numeric", "-0.00000000000000000000000000000000000001::numeric",
		"repeat('9', 1000)::numeric", "('-' || repeat('7', 1000) || '.5')::numeric",
		"('0.' || repeat('1', 16383))::numeric", "('0.' || repeat('0', 16382) || '1')::numeric",
		"('1' || repeat('0', 1000) || '.' || repeat('0', 1000))::numeric",
		"123.45::numeric(12,2)", "0.1::numeric(12,2)", "-0.01::numeric(12,2)", "9999999999.99::numeric(12,2)",
		"1000000::numeric(12,2)", "0.005::numeric(12,2)", "-0.005::numeric(12,2)", "19.99::numeric(12,2)",
		"'1e300'::numeric", "'1e308'::numeric", "'1.8e308'::numeric", "'1e400'::numeric", "'-1e400'::numeric",
		"'1e-300'::numeric", "'1e-400'::numeric", "'3.4e38'::numeric", "'3.5e38'::numeric", "'1e39'::numeric",
		"'12345678'::numeric", "'-1234567'::numeric", "'123456789'::numeric", "'0.000001'::numeric",
		"'0.1'::numeric", "'0.30000000000000004'::numeric", "1.5e0::numeric", "(1::numeric / 3)", "(2::numeric ^ 0.5)",
		"'1'::numeric(1000, 999)",
	)
	return es
}()

// hstoreExprs make PostgreSQL produce the hstore texts under test.
var hstoreExprs = []string{
	"''::hstore", "NULL::hstore",
	"'a=>1'::hstore", "'a=>1'::hstore", "'a=>1'::hstore", "'a=>1'::hstore",
	"'a=>NULL'::hstore", "'a=>1, b=>NULL, c=>\"\"'::hstore", `'""=>""'::hstore`,
	`hstore('', '')`, `hstore('k', '')`, `hstore('', 'v')`, `hstore('a', NULL)`,
	`hstore('NULL', 'NULL')`, `hstore('null', NULL)`,
	`hstore('k"q', 'v"q')`, `hstore('"', '""')`,
	`hstore(E'back\\slash', E'c:\\tmp\\')`, `hstore(E'\\', E'\\"\\')`,
	`hstore('k', 'a=>b, c=>d')`, `hstore('k=>', ', ')`, `hstore('=>', '=>')`, `hstore(', "x"=>"y', '"=>"')`,
	`hstore('ключ', '値 🎉')`, `hstore('ü', 'é')`, `hstore(' space ', ' v ')`, `hstore(E'tab\t', E'nl\n')`,
	`hstore(array['b', 'a', 'ccc', 'dd'], array['2', '1', NULL, '4'])`,
	`'a=>1, a=>2, b=>3, b=>4'::hstore`, `'z=>1, y=>2, x=>3, w=>4, v=>5, u=>6, t=>7, z=>8, y=>9'::hstore`,
	`(select hstore(array_agg('k' || i), array_agg('v' || i)) from generate_series(1, 1000) i)`,
	`(select hstore(array_agg('k' || i), array_agg(case when i % 3 = 0 then NULL else repeat('x', i % 7) end)) from generate_series(1, 50) i)`,
	`hstore('big', repeat('x', 2000))`,
	`hstore('edge', repeat('y', 1014))`, // text of exactly MaxHstoreText bytes
	`hstore('edge', repeat('y', 1014))`,
	`hstore('edge', repeat('y', 1014))`,
	`hstore('edge', repeat('y', 1015))`, // one byte more
	`hstore('edge', repeat('y', 1015))`,
}

func TestNumericDifferential(t *testing.T) {
	dsn := pgtest.DSN(t)
	query := valuesQuery(numericExprs)
	for _, mode := range []struct{ name, dsn string }{
		{"extended", dsn},
		{"simple_protocol", withParams(t, dsn, "default_query_exec_mode", "simple_protocol")},
	} {
		t.Run(mode.name, func(t *testing.T) {
			std, pc := openDBs(t, mode.dsn)
			num, _ := traffic(func() { differential(t, std, pc, query, numericTargets) })
			if num.Hits == 0 || num.Admissions == 0 || num.Misses == 0 || num.Bypasses == 0 {
				t.Errorf("numeric cache traffic %v: want some of each kind, or the cache states were not all compared", num)
			}
			crossCheckDecimal(t, std, pc, query)
		})
	}
}

// crossCheckDecimal checks that a pgcache.Decimal read through pgcache holds
// the text pgx stdlib gives a *string and the value it gives an *apd.Decimal.
func crossCheckDecimal(t *testing.T, std, pc *sql.DB, query string) {
	t.Helper()
	want := readAll(t, std, query, nil, []target{
		targetOf("text+apd", func(p *sql.NullString) string { return p.String }),
	})
	apds := readAll(t, std, query, nil, []target{
		targetOf("apd", func(p *apd.NullDecimal) string {
			if !p.Valid {
				return "NULL"
			}
			return showApd(&p.Decimal)
		}),
	})
	checkReference(t, "stdlib text", want)
	checkReference(t, "stdlib apd", apds)
	for i := range want {
		if apds[i] == "NULL" {
			want[i] = "NULL"
		} else {
			want[i] += " " + apds[i]
		}
	}
	pgcache.ResetCache()
	for pass := 1; pass <= passes; pass++ {
		got := readAll(t, pc, query, nil, []target{
			targetOf("pgcache.NullDecimal", func(p *pgcache.NullDecimal) string {
				if !p.Valid {
					return "NULL"
				}
				return showDecimal(p.Decimal)
			}),
		})
		compareLines(t, fmt.Sprintf("pgcache.Decimal vs stdlib text and apd.Decimal, pass %d", pass), want, got)
	}
}

func TestHstoreDifferential(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	query := valuesQuery(hstoreExprs)
	for _, mode := range []struct{ name, dsn string }{
		{"extended", dsn},
		{"simple_protocol", withParams(t, dsn, "default_query_exec_mode", "simple_protocol")},
	} {
		t.Run(mode.name, func(t *testing.T) {
			std, pc := openDBs(t, mode.dsn)
			_, hs := traffic(func() { differential(t, std, pc, query, hstoreTargets) })
			if hs.Hits == 0 || hs.Admissions == 0 || hs.Misses == 0 || hs.Bypasses == 0 {
				t.Errorf("hstore cache traffic %v: want some of each kind, or the cache states were not all compared", hs)
			}
			crossCheckHstore(t, std, pc, query)
		})
	}
}

// crossCheckHstore checks that a pgcache.Hstore read through pgcache holds
// the text pgx stdlib gives a *string and the pairs it gives a
// *pgtype.Hstore, and that Lookup, Has, Len and All agree with them.
func crossCheckHstore(t *testing.T, std, pc *sql.DB, query string) {
	t.Helper()
	want := readAll(t, std, query, nil, []target{
		targetOf("text+pgtype", func(p *sql.NullString) string {
			if !p.Valid {
				return "NULL"
			}
			var h pgtype.Hstore
			if err := h.Scan(p.String); err != nil {
				return "pgtype error: " + err.Error()
			}
			return strconv.Quote(p.String) + " " + showPgHstore(h)
		}),
	})
	checkReference(t, "stdlib", want)
	pgcache.ResetCache()
	for pass := 1; pass <= passes; pass++ {
		got := readAll(t, pc, query, nil, []target{
			targetOf("pgcache.NullHstore", func(p *pgcache.NullHstore) string {
				if !p.Valid {
					return "NULL"
				}
				if err := checkHstoreAccessors(p.Hstore); err != nil {
					return err.Error()
				}
				return showHstore(p.Hstore)
			}),
		})
		compareLines(t, fmt.Sprintf("pgcache.Hstore vs stdlib text and pgtype.Hstore, pass %d", pass), want, got)
	}
}

// checkHstoreAccessors checks Lookup, Has, Len, All and Map against each
// other.
func checkHstoreAccessors(h pgcache.Hstore) error {
	m := h.Map()
	if h.Len() != len(m) {
		return fmt.Errorf("Len() = %d, Map has %d keys", h.Len(), len(m))
	}
	n := 0
	for k, v := range h.All() {
		n++
		mv, ok := m[k]
		if !ok || (mv == nil) == v.Valid || (mv != nil && *mv != v.String) {
			return fmt.Errorf("All yields %q=%v, Map has %v", k, v, mv)
		}
		lv, ok := h.Lookup(k)
		if !ok || lv != v || !h.Has(k) {
			return fmt.Errorf("Lookup(%q) = %v, %t; All yields %v", k, lv, ok, v)
		}
	}
	if n != len(m) {
		return fmt.Errorf("All yields %d pairs, Map has %d", n, len(m))
	}
	if _, ok := h.Lookup("no such key \x01"); ok || h.Has("no such key \x01") {
		return fmt.Errorf("Lookup of an absent key succeeded")
	}
	return nil
}

// mixedColumn is one column of the mixed-type row: an expression and whether
// it is NULL (a plain string destination cannot take those).
type mixedColumn struct {
	expr     string
	nullable bool
}

var mixedColumns = []mixedColumn{
	{"g", false},
	{"g::int2 as i2", false},
	{"(g * 1000)::int4 as i4", false},
	{"g::int8 * 10000000000 as i8", false},
	{"(-32768)::int2 as i2min", false},
	{"1.5::float4 as f4", false},
	{"'NaN'::float4 as f4nan", false},
	{"0.1::float4 as f4tenth", false},
	{"'-0'::float4 as f4negzero", false},
	{"'3.4e38'::float4 as f4big", false},
	{"'1e-45'::float4 as f4tiny", false},
	{"2.5::float8 as f8", false},
	{"'-Infinity'::float8 as f8inf", false},
	{"0.1::float8 as f8tenth", false},
	{"'-0'::float8 as f8negzero", false},
	{"'4.9e-324'::float8 as f8tiny", false},
	{"(g % 2 = 0) as b", false},
	{"'text ' || g as t", false},
	{"'vc'::varchar(10) as vc", false},
	{"'vc'::varchar as vcu", false},
	{"'ab'::char(3) as bp", false},
	{"'\\x00ff'::bytea as ba", false},
	{"''::bytea as ba0", false},
	{"'2020-01-02'::date as d", false},
	{"'infinity'::date as dinf", false},
	{"'-infinity'::date as dninf", false},
	{"'0044-03-15 BC'::date as dbc", false},
	{"'2020-01-02 03:04:05.123456'::timestamp as ts", false},
	{"'infinity'::timestamp as tsinf", false},
	{"'2020-01-02 03:04:05.123456+02'::timestamptz as tstz", false},
	{"'-infinity'::timestamptz as tstzninf", false},
	{"'2020-01-02 03:04:05.5+00'::timestamptz(2) as tstz2", false},
	{"'03:04:05.25'::time as tm", false},
	{"'03:04:05'::time(3) as tm3", false},
	{"'03:04:05+02'::timetz as tmtz", false},
	{"'1 day 02:03:04.5'::interval as iv", false},
	{"'1 day'::interval day to second(3) as iv3", false},
	{"'2 hours'::interval hour to minute as ivhm", false},
	{`'{"a": [1, 2.50]}'::json as js`, false},
	{`'{"b": 1, "a": 2.50}'::jsonb as jb`, false},
	{"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid as u", false},
	{"1234::oid as o", false},
	{"'5'::xid as x", false},
	{"'6'::cid as c", false},
	{"'<a>x</a>'::xml as xm", false},
	{"array[1, 2, g] as ai", false},
	{"array[1.5, 2.50, NULL]::numeric[] as an", false},
	{`array['a b', NULL, '"q"'] as at`, false},
	{"12.50::numeric(12,2) as n", false},
	{"(g + 0.5)::numeric as nu", false},
	{"'NaN'::numeric as nnan", false},
	{"123456789.123::numeric(20,3) as nlong", false},
	{"'a=>1, b=>NULL'::hstore as h", false},
	{"hstore('g', g::text) as hg", false},
	{"''::hstore as h0", false},
	{"array['a=>1'::hstore] as ha", false},
	{"'1.50'::money as m", false},
	{"B'101'::bit(3) as bit", false},
	{"B'10'::varbit(5) as vb", false},
	{"B'10'::varbit as vbu", false},
	{"'192.168.0.1/24'::inet as inet", false},
	{"'(1,2)'::point as pt", false},
	{"'a'::name as nm", false},
	{`'x'::"char" as ch`, false},
	{"int4range(1, 5) as r", false},
	{"NULL::int4 as i4n", true},
	{"NULL::numeric as nn", true},
	{"NULL::hstore as hn", true},
	{"NULL::timestamptz as tsn", true},
	{"NULL::bytea as ban", true},
	{"NULL::bool as bn", true},
	{"NULL::text as tn", true},
}

// mixedQuery selects the mixed columns (without the nullable ones unless
// withNulls) over four rows, so that numeric and hstore values repeat.
func mixedQuery(withNulls bool) string {
	var exprs []string
	for _, c := range mixedColumns {
		if withNulls || !c.nullable {
			exprs = append(exprs, c.expr)
		}
	}
	return "select " + strings.Join(exprs, ", ") + " from generate_series(1, 4) g"
}

func TestMixedRowDifferential(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	all, notNull := mixedQuery(true), mixedQuery(false)
	for _, mode := range []string{"cache_statement", "cache_describe", "describe_exec", "exec", "simple_protocol"} {
		t.Run(mode, func(t *testing.T) {
			std, pc := openDBs(t, withParams(t, dsn, "default_query_exec_mode", mode))
			for _, tc := range []struct {
				query string
				tg    target
			}{
				{all, tAny},
				{all, tNullString},
				{all, tStringPtr},
				{all, tBytes},
				{all, tRawBytes},
				{notNull, tString},
			} {
				cols := columnCount(t, std, tc.query)
				want := readAll(t, std, tc.query, nil, repeatTarget(tc.tg, cols))
				checkReference(t, tc.tg.name, want)
				pgcache.ResetCache()
				for pass := 1; pass <= passes; pass++ {
					got := readAll(t, pc, tc.query, nil, repeatTarget(tc.tg, cols))
					compareLines(t, fmt.Sprintf("all columns into %s, pass %d", tc.tg.name, pass), want, got)
				}
			}
		})
	}
}

func columnCount(t testing.TB, db *sql.DB, query string) int {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	return len(cols)
}

func TestColumnTypes(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	std, pc := openDBs(t, dsn)
	mustExec(t, std, `drop table if exists pgc_coltypes;
		create table pgc_coltypes (id int primary key, n numeric(12,2) not null, nu numeric, h hstore,
			vc varchar(20) not null, t text, ts timestamp(3), iv interval minute to second(2))`)
	queries := []string{
		mixedQuery(true),
		"select * from pgc_coltypes",
		"select n, h, vc from pgc_coltypes",
	}
	for _, q := range queries {
		want := describeColumns(t, std, q)
		got := describeColumns(t, pc, q)
		compareLines(t, "column types of "+q[:min(len(q), 40)], want, got)
	}
}

// describeColumns returns everything database/sql reports about the columns.
func describeColumns(t testing.TB, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, ct := range cts {
		length, lok := ct.Length()
		prec, scale, dok := ct.DecimalSize()
		nullable, nok := ct.Nullable()
		lines = append(lines, fmt.Sprintf("%s: type=%s length=%d,%t decimal=%d,%d,%t scan=%v nullable=%t,%t",
			ct.Name(), ct.DatabaseTypeName(), length, lok, prec, scale, dok, ct.ScanType(), nullable, nok))
	}
	return lines
}
