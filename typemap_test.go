package pgcache_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// Per-connection type maps. The cache's tables are process-wide and keyed by
// wire bytes only, so a value in them must not depend on the connection
// that admitted it. These tests read the same rows, interleaved, through
// pools whose connections scan with pgx's default codecs and through pools
// whose connections registered codecs of their own — other ScanLocations,
// a custom int8 codec, a custom text codec, an enum loaded with LoadType,
// a codec registered after the pool's first query — each against pgx stdlib
// with the same codecs.

// shiftedInt8Codec is an int8 codec whose scans into int64 add 1000: a
// stand-in for any custom codec whose values differ from pgx's own.
type shiftedInt8Codec struct{ pgtype.Int8Codec }

func (c shiftedInt8Codec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	plan := c.Int8Codec.PlanScan(m, oid, format, target)
	if _, ok := target.(*int64); ok && plan != nil {
		return shiftPlan{plan}
	}
	return plan
}

type shiftPlan struct{ next pgtype.ScanPlan }

func (p shiftPlan) Scan(src []byte, dst any) error {
	if err := p.next.Scan(src, dst); err != nil {
		return err
	}
	*dst.(*int64) += 1000
	return nil
}

// upperTextCodec is a text codec whose scans into a *string upper-case the
// text. (pgx scans a text-format value into a *string as the text itself
// before it looks for a codec, so stdlib's driver value does not change: the
// test shows that pgcache agrees.)
type upperTextCodec struct{ pgtype.TextCodec }

func (c upperTextCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	plan := c.TextCodec.PlanScan(m, oid, format, target)
	if _, ok := target.(*string); ok && plan != nil {
		return upperPlan{plan}
	}
	return plan
}

type upperPlan struct{ next pgtype.ScanPlan }

func (p upperPlan) Scan(src []byte, dst any) error {
	if err := p.next.Scan(src, dst); err != nil {
		return err
	}
	*dst.(*string) = strings.ToUpper(*dst.(*string))
	return nil
}

// typeMapEnum is the enum the custom connections load with LoadType.
const typeMapEnum = "pgcache_tm_mood"

// customCodecs registers this file's codecs on a connection: the
// AfterConnect hook of the custom pools.
func customCodecs(ctx context.Context, c *pgx.Conn) error {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		return err
	}
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		return err
	}
	m := c.TypeMap()
	m.RegisterType(&pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID, Codec: &pgtype.TimestamptzCodec{ScanLocation: tokyo}})
	m.RegisterType(&pgtype.Type{Name: "timestamp", OID: pgtype.TimestampOID, Codec: &pgtype.TimestampCodec{ScanLocation: newYork}})
	m.RegisterType(&pgtype.Type{Name: "int8", OID: pgtype.Int8OID, Codec: shiftedInt8Codec{}})
	m.RegisterType(&pgtype.Type{Name: "text", OID: pgtype.TextOID, Codec: upperTextCodec{}})
	enum, err := c.LoadType(ctx, typeMapEnum)
	if err != nil {
		return err
	}
	m.RegisterType(enum)
	return nil
}

// lateCodecs is what the late pools register through Conn() after their
// first query.
func lateCodecs(c *pgx.Conn) {
	utc := time.UTC
	c.TypeMap().RegisterType(&pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID, Codec: &pgtype.TimestamptzCodec{ScanLocation: utc}})
	c.TypeMap().RegisterType(&pgtype.Type{Name: "int8", OID: pgtype.Int8OID, Codec: shiftedInt8Codec{}})
}

// typeMapQuery has every kind whose conversion a connection's codecs could
// change, cycling through three values each so that one read goes miss,
// admission, hit.
func typeMapQuery() string {
	return fmt.Sprintf(`select
		'2024-05-06 07:08:09+00'::timestamptz + (i %% 3) * interval '1 hour',
		'2024-05-06 07:08:09'::timestamp + (i %% 3) * interval '1 day',
		(i %% 3 + 100)::int8,
		(array['N', 'TRUCK', 'mail'])[i %% 3 + 1]::text,
		(array['sad', 'ok', 'happy'])[i %% 3 + 1]::%s,
		(i %% 3 + 0.5)::numeric(10, 2),
		'2024-05-06'::date + i %% 3,
		case when i %% 5 = 0 then NULL else (i %% 3)::int4 end
	from generate_series(1, 12) i order by i`, typeMapEnum)
}

// typeMapTargets are the destination sets of typeMapQuery's columns, one
// read each.
var typeMapTargets = [][]target{
	{tTime, tTime, tInt64, tString, tString, tString, tTime, tInt64},
	{tAnyTime, tAnyTime, tAny, tAny, tAny, tFloat64, tAnyTime, tAny},
	{tNullTime, tNullTime, tNullInt64, tNullString, tNullString, tDecimal, tNullTime, tNullInt64},
	{tString, tString, tString, tBytes, tRawBytes, tAny, tString, tInt32},
}

// poolPair is a pgx stdlib pool and a pgcache pool over connections with the
// same codecs.
type poolPair struct {
	name    string
	std, pc *sql.DB
}

// openPair opens the two pools of dsn (pgcache's with pgcacheParams too),
// with hook as AfterConnect when not nil.
func openPair(t *testing.T, name, dsn string, hook func(context.Context, *pgx.Conn) error, pgcacheParams ...string) poolPair {
	t.Helper()
	stdCfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pcCfg, err := pgx.ParseConfig(withParams(t, dsn, pgcacheParams...))
	if err != nil {
		t.Fatal(err)
	}
	var opts []stdlib.OptionOpenDB
	if hook != nil {
		opts = append(opts, stdlib.OptionAfterConnect(hook))
	}
	p := poolPair{name: name, std: stdlib.OpenDB(*stdCfg, opts...), pc: pgcache.OpenDB(*pcCfg, opts...)}
	t.Cleanup(func() { p.std.Close(); p.pc.Close() })
	return p
}

// registerLate runs f on the one connection of each of p's pools.
func registerLate(t *testing.T, p poolPair, f func(*pgx.Conn)) {
	t.Helper()
	for _, db := range []*sql.DB{p.std, p.pc} {
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		err = conn.Raw(func(dc any) error {
			f(dc.(interface{ Conn() *pgx.Conn }).Conn())
			return nil
		})
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestTypeMapsPerConnection reads typeMapQuery through a default pool, a
// pool with custom codecs from AfterConnect and a pool that registers codecs
// after its first query, interleaved in every order, in all exec modes, with
// pgcache_types=none, all and the default, each against pgx stdlib with the
// same codecs.
func TestTypeMapsPerConnection(t *testing.T) {
	dsn := pgtest.DSN(t)
	mustExec(t, openDB(t, stdDriver, dsn), fmt.Sprintf(
		"do $$ begin create type %s as enum ('sad', 'ok', 'happy'); exception when duplicate_object then null; end $$", typeMapEnum))
	query := typeMapQuery()
	eachModeAndTypes(t, dsn, func(t *testing.T, d string, params []string) {
		plain := openPair(t, "default codecs", d, nil, params...)
		custom := openPair(t, "custom codecs", d, customCodecs, params...)
		late := openPair(t, "codecs registered later", d, nil, params...)
		late.std.SetMaxOpenConns(1)
		late.pc.SetMaxOpenConns(1)
		pairs := []poolPair{plain, custom, late}

		pgcache.ResetCache()
		for set, targets := range typeMapTargets {
			if set == 1 {
				// The late pools have read (and admitted) with pgx's
				// codecs; from now on they scan with their own.
				registerLate(t, late, lateCodecs)
			}
			want := make([][]string, len(pairs))
			for i, p := range pairs {
				want[i] = readAll(t, p.std, query, nil, targets)
				checkReference(t, p.name, want[i])
			}
			for round := 0; round < passes; round++ {
				for k := range pairs {
					i := (k + round + set) % len(pairs)
					got := readAll(t, pairs[i].pc, query, nil, targets)
					compareLines(t, fmt.Sprintf("%s, destinations %d, round %d", pairs[i].name, set, round), want[i], got)
				}
			}
		}
		if want, got := readAll(t, plain.std, query, nil, typeMapTargets[0]), readAll(t, custom.std, query, nil, typeMapTargets[0]); want[0] == got[0] {
			t.Fatalf("the custom codecs change nothing in stdlib's values (%s): the test proves nothing", want[0])
		}
	})
}

// eachModeAndTypes runs f as a subtest for each of pgx's exec modes, with
// pgcache_types=none, without the option (driver.DefaultTypes) and with
// pgcache_types=all: d is dsn in that mode, params the pgcache options to
// add for pgcache's pools.
func eachModeAndTypes(t *testing.T, dsn string, f func(t *testing.T, d string, params []string)) {
	for _, mode := range execModes {
		for _, types := range []string{"none", "default", "all"} {
			t.Run(fmt.Sprintf("%s/types=%s", mode, types), func(t *testing.T) {
				var params []string
				if types != "default" {
					params = []string{"pgcache_types", types}
				}
				f(t, withParams(t, dsn, "default_query_exec_mode", mode), params)
			})
		}
	}
}

// TestTypeMapsKeepTablesClean: a connection whose codecs are not pgx's
// defaults never reads or writes the tables of those kinds, so that what it
// scans cannot reach another connection even through a table it shares.
func TestTypeMapsKeepTablesClean(t *testing.T) {
	dsn := pgtest.DSN(t)
	custom := openPair(t, "custom codecs", dsn, func(ctx context.Context, c *pgx.Conn) error {
		tokyo, err := time.LoadLocation("Asia/Tokyo")
		if err != nil {
			return err
		}
		c.TypeMap().RegisterType(&pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID, Codec: &pgtype.TimestamptzCodec{ScanLocation: tokyo}})
		c.TypeMap().RegisterType(&pgtype.Type{Name: "int8", OID: pgtype.Int8OID, Codec: shiftedInt8Codec{}})
		// pgx's default codec, registered anew: still the default.
		c.TypeMap().RegisterType(&pgtype.Type{Name: "timestamp", OID: pgtype.TimestampOID, Codec: &pgtype.TimestampCodec{}})
		return nil
	}, "pgcache_types", "all")
	query := `select '2024-05-06 07:08:09+00'::timestamptz, 7::int8, '2024-05-06 07:08:09'::timestamp, 3::int4
		from generate_series(1, 100)`
	pgcache.ResetCache()
	before := pgcache.Stats()
	// Into *any, the destinations the fixed-size tables serve on every
	// toolchain.
	targets := []target{tAnyTime, tAny, tAnyTime, tAny}
	got := readAll(t, custom.pc, query, nil, targets)
	compareLines(t, "custom codecs", readAll(t, custom.std, query, nil, targets), got)
	after := pgcache.Stats()
	for name, d := range map[string]counts{
		"Timestamptz": countsDelta(before.Timestamptz, after.Timestamptz),
		"Int8":        countsDelta(before.Int8, after.Int8),
	} {
		if d != (counts{}) {
			t.Errorf("%s table traffic %v from a connection with its own codec; want none", name, d)
		}
	}
	// The kinds whose codecs are pgx's defaults stay cached.
	for name, d := range map[string]counts{
		"Timestamp": countsDelta(before.Timestamp, after.Timestamp),
		"Int4":      countsDelta(before.Int4, after.Int4),
	} {
		if d.Hits == 0 {
			t.Errorf("%s table traffic %v: a default codec should keep the column cached", name, d)
		}
	}
}
