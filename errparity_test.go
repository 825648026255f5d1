package pgcache_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// Error parity: where pgx stdlib refuses a value, pgcache refuses it with
// the same error (type, text and wrapped sentinels, as errShow shows them),
// and where stdlib accepts one, pgcache gives the same value. The tests here
// scan every kind into every destination below — the right ones, the wrong
// ones, integers too small for the value, NULLs into destinations that
// cannot hold one — on connections whose type map knows hstore and on
// connections whose type map does not, and compare line for line, errors
// included.

type (
	parityString string
	parityInt    int64
)

// parityTargets are the destinations every kind is scanned into.
var parityTargets = []target{
	tString, tBytes, tAny, tNullString, tStringPtr, tFloat64, tInt64, tBool,
	targetOf("float32", goSyntax[float32]),
	targetOf("int32", goSyntax[int32]),
	targetOf("int16", goSyntax[int16]),
	targetOf("int8", goSyntax[int8]),
	targetOf("int", goSyntax[int]),
	targetOf("uint64", goSyntax[uint64]),
	targetOf("uint32", goSyntax[uint32]),
	targetOf("uint8", goSyntax[uint8]),
	targetOf("uint", goSyntax[uint]),
	targetOf("parityString", goSyntax[parityString]),
	targetOf("parityInt", goSyntax[parityInt]),
	targetOf("*int64", func(p **int64) string {
		if *p == nil {
			return "nil"
		}
		return fmt.Sprintf("&%d", **p)
	}),
	targetOf("sql.NullBool", goSyntax[sql.NullBool]),
	targetOf("sql.NullInt16", goSyntax[sql.NullInt16]),
	targetOf("sql.NullInt32", goSyntax[sql.NullInt32]),
	targetOf("sql.NullInt64", goSyntax[sql.NullInt64]),
	targetOf("sql.NullFloat64", goSyntax[sql.NullFloat64]),
	targetOf("sql.NullByte", goSyntax[sql.NullByte]),
	targetOf("sql.Null[string]", goSyntax[sql.Null[string]]),
	targetOf("sql.Null[int64]", goSyntax[sql.Null[int64]]),
	targetOf("sql.NullTime", func(p *sql.NullTime) string { return fmt.Sprintf("%t %s", p.Valid, p.Time) }),
	targetOf("time.Time", func(p *time.Time) string { return p.String() }),
	targetOf("json.RawMessage", showBytes[json.RawMessage]),
	targetOf("[16]byte", goSyntax[[16]byte]),
	targetOf("[]int64", goSyntax[[]int64]),
	targetOf("[]string", goSyntax[[]string]),
	targetOf("map[string]string", goSyntax[map[string]string]),
	targetOf("map[string]*string", func(p *map[string]*string) string {
		return fmt.Sprintf("nil=%t %s", *p == nil, showPgHstore(pgtype.Hstore(*p)))
	}),
	targetOf("pgtype.Text", goSyntax[pgtype.Text]),
	targetOf("pgtype.Int8", goSyntax[pgtype.Int8]),
	targetOf("pgtype.Float8", goSyntax[pgtype.Float8]),
	targetOf("pgtype.Date", goSyntax[pgtype.Date]),
	targetOf("pgtype.Timestamptz", func(p *pgtype.Timestamptz) string {
		return fmt.Sprintf("%t %s %d", p.Valid, p.Time.UTC(), p.InfinityModifier)
	}),
	targetOf("pgtype.UUID", goSyntax[pgtype.UUID]),
	targetOf("pgtype.Numeric", showPgNumeric),
	tPgHstore,
	targetOf("apd.Decimal", showApd),
	targetOf("decimal.Decimal", func(p *decimal.Decimal) string { return showShopspring(*p) }),
	tDecimal, tNullDecimal, tHstore, tNullHstore,
	// Destinations no driver can scan into.
	badTarget("nil", func() any { return nil }),
	badTarget("int (not a pointer)", func() any { return 42 }),
	badTarget("(*pgcache.Decimal)(nil)", func() any { return (*pgcache.Decimal)(nil) }),
	badTarget("(*pgcache.NullDecimal)(nil)", func() any { return (*pgcache.NullDecimal)(nil) }),
	badTarget("(*pgcache.Hstore)(nil)", func() any { return (*pgcache.Hstore)(nil) }),
	badTarget("(*pgcache.NullHstore)(nil)", func() any { return (*pgcache.NullHstore)(nil) }),
}

// nilPointerTargets are nil pointers of types database/sql converts into
// itself. Before Go 1.27 it writes through them and panics, whatever the
// driver (and leaves the Rows locked); from Go 1.27 both drivers refuse them
// first.
var nilPointerTargets = []target{
	badTarget("(*string)(nil)", func() any { return (*string)(nil) }),
	badTarget("(*int64)(nil)", func() any { return (*int64)(nil) }),
	badTarget("(*sql.RawBytes)(nil)", func() any { return (*sql.RawBytes)(nil) }),
	badTarget("(*map[string]string)(nil)", func() any { return (*map[string]string)(nil) }),
	badTarget("(*[]int64)(nil)", func() any { return (*[]int64)(nil) }),
}

// badTarget is a destination that is not a pointer to a value: what a scan
// into it leaves is shown as %#v shows it.
func badTarget(name string, dest func() any) target {
	return target{name: name, new: dest, show: func(p any) string { return fmt.Sprintf("%#v", p) }}
}

// parityKinds are the kinds' values: typeCases' (every pgcache_types kind),
// numeric's and hstore's, each with values some destinations cannot hold.
func parityKinds() []typeCase {
	cases := slices.Clone(typeCases)
	cases = append(cases,
		typeCase{name: "enum", exprs: twice("'ok'::pgcache_mood", "NULL::pgcache_mood")},
		typeCase{name: "numeric", exprs: twice("12.50::numeric", "'-1'::numeric", "300::numeric", "'NaN'::numeric",
			"'Infinity'::numeric", "99999999999999999999::numeric", "NULL::numeric")},
		typeCase{name: "hstore", exprs: twice("'a=>1'::hstore", "'a=>1, b=>NULL'::hstore", "''::hstore", "NULL::hstore")},
		typeCase{name: "interval", exprs: twice("'1 day'::interval", "NULL::interval")},
		typeCase{name: "bytea", exprs: twice(`'\xdeadbeef'::bytea`, "NULL::bytea")},
		typeCase{name: "text numbers", exprs: twice("'300'::text", "'-1'::text", "'1.5'::text", "'abc'::text", "'t'::text")},
	)
	return cases
}

// scanEachTarget reads query and scans each row into every target in turn,
// a Scan per target (database/sql allows several Scans of a row), and
// returns a line per row and target: what the target was given, or the
// Scan's error. Errors of Query, Next and Close are lines of their own.
// A Scan into *sql.RawBytes that succeeds must be a row's last (database/sql
// refuses another Scan of the row after it): tRawBytes comes last.
func scanEachTarget(t testing.TB, db *sql.DB, query string, targets []target) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), query)
	if err != nil {
		return []string{"query error: " + errShow(err)}
	}
	var lines []string
	for rows.Next() {
		for _, tg := range targets {
			dest := tg.new()
			if err := rows.Scan(dest); err != nil {
				lines = append(lines, tg.name+": scan error: "+errShow(err))
				continue
			}
			lines = append(lines, tg.name+": "+tg.show(dest))
		}
	}
	if err := rows.Err(); err != nil {
		lines = append(lines, "rows error: "+errShow(err))
	}
	if err := rows.Close(); err != nil {
		lines = append(lines, "close error: "+errShow(err))
	}
	return lines
}

// byte16Null is what pgx says of a NULL scanned into a *[16]byte: one of
// three texts, chosen afresh for each pgx type map (pgx tries its scan plans
// in an order that depends on Go's map iteration), so pgx stdlib's own
// answer varies from one connection to the next.
var byte16Null = regexp.MustCompile(`(anyArrayArrayReflect: cannot scan NULL into pgtype\.byte16Wrapper|cannot scan NULL into \*\[16\](byte|uint8))$`)

// normalizeParity gives pgx's three refusals of a NULL into a *[16]byte
// one text.
func normalizeParity(lines []string) []string {
	for i, l := range lines {
		lines[i] = byte16Null.ReplaceAllString(l, "cannot scan NULL into [16]byte")
	}
	return lines
}

// registerHstore is an AfterConnect hook registering pgx's hstore codec.
func registerHstore(ctx context.Context, c *pgx.Conn) error {
	var oid uint32
	if err := c.QueryRow(ctx, "select 'hstore'::regtype::oid").Scan(&oid); err != nil {
		return err
	}
	c.TypeMap().RegisterType(&pgtype.Type{Name: "hstore", OID: oid, Codec: pgtype.HstoreCodec{}})
	return nil
}

// TestErrorParity scans every kind into every destination of parityTargets,
// through pools whose type map knows hstore and pools whose type map does
// not, with and without pgcache_types, in the extended protocol (binary
// fixed-size values) and the simple one (all text), and compares pgcache's
// values and errors with pgx stdlib's, each read twice from an empty cache,
// each row scanned into every destination in turn.
func TestErrorParity(t *testing.T) {
	needHstore(t)
	dsn := pgtest.DSN(t)
	mustExec(t, openDB(t, stdDriver, dsn), "do $$ begin create type pgcache_mood as enum ('sad', 'ok', 'happy'); exception when duplicate_object then null; end $$")
	kinds := parityKinds()
	targets := parityTargets
	if !strings.HasPrefix(runtime.Version(), "go1.26") {
		targets = append(slices.Clip(targets), nilPointerTargets...)
	}
	targets = append(slices.Clip(targets), tRawBytes) // last: see scanEachTarget
	// Four of the eight combinations of exec mode, pgcache_types and hstore
	// registration, so that each pair of them is covered (-short: two of
	// them); PGCACHE_LONG=1 runs all eight.
	configs := []struct {
		mode, types string
		typed       bool
	}{
		{"cache_statement", "all", false},
		{"cache_statement", "all", true},
		{"simple_protocol", "all", true},
		{"simple_protocol", "", false},
	}
	if testing.Short() {
		configs = configs[1:3]
	}
	if os.Getenv("PGCACHE_LONG") != "" {
		configs = append(configs, []struct {
			mode, types string
			typed       bool
		}{{"cache_statement", "", false}, {"cache_statement", "", true}, {"simple_protocol", "all", false}, {"simple_protocol", "", true}}...)
	}
	for _, cf := range configs {
		var hook func(context.Context, *pgx.Conn) error
		if cf.typed {
			hook = registerHstore
		}
		name := fmt.Sprintf("%s/types=%s/hstore-registered=%t", cf.mode, cf.types, cf.typed)
		t.Run(name, func(t *testing.T) {
			var params []string
			if cf.types != "" {
				params = []string{"pgcache_types", cf.types}
			}
			p := openPair(t, name, withParams(t, dsn, "default_query_exec_mode", cf.mode), hook, params...)
			for _, c := range kinds {
				t.Run(c.name, func(t *testing.T) {
					query := valuesQuery(c.exprs)
					want := normalizeParity(scanEachTarget(t, p.std, query, targets))
					checkReference(t, c.name, want)
					pgcache.ResetCache()
					// Twice: the values' misses, admissions and hits
					// (twice lists each value three times), then a result
					// set of the connection's kept plan.
					for pass := 1; pass <= 2; pass++ {
						got := normalizeParity(scanEachTarget(t, p.pc, query, targets))
						compareLines(t, fmt.Sprintf("pass %d", pass), want, got)
					}
				})
			}
		})
	}
}

// TestErrorParityRegression pins the refusals pgcache once answered
// differently: an hstore into a Go map on a connection whose type map does
// not know hstore (pgx: cannot scan unknown type), whether the value is
// cached, missed or NULL.
func TestErrorParityRegression(t *testing.T) {
	needHstore(t)
	p := openPair(t, "hstore unknown to pgx", pgtest.DSN(t), nil)
	query := valuesQuery(twice("'a=>1'::hstore", "'a=>1, b=>NULL'::hstore", "NULL::hstore"))
	for _, tg := range []target{
		targetOf("map[string]string", goSyntax[map[string]string]),
		targetOf("map[string]*string", func(p *map[string]*string) string {
			return fmt.Sprintf("nil=%t %s", *p == nil, showPgHstore(pgtype.Hstore(*p)))
		}),
	} {
		want := readAll(t, p.std, query, nil, []target{tg})
		pgcache.ResetCache()
		for pass := 1; pass <= passes; pass++ {
			got := readAll(t, p.pc, query, nil, []target{tg})
			compareLines(t, fmt.Sprintf("%s, pass %d", tg.name, pass), want, got)
		}
		if !strings.HasPrefix(want[0], "scan error") {
			t.Errorf("%s: pgx stdlib gives %q; this test expects its refusal", tg.name, want[0])
		}
	}
}
