package pgcache_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// Two servers whose catalogs differ under the same names, read through one
// process. Created alike on two fresh clusters, their table and enum get
// the same OIDs, so that an OID-keyed state carried from one to the other
// would show: a table column of another type at the same table OID and
// attribute number, an enum type of other labels at the same OID.

// twoCatalogs holds the schema and rows of each server, in the same order
// of statements, and enums of as many labels (each label takes an OID),
// so that the OIDs coincide.
var twoCatalogs = [2]struct {
	name, schema, rows string
}{
	{"A", `create extension hstore;
create type mood as enum ('sad', 'ok', 'happy');
create table cat (id int4, a numeric, b text, c hstore, m mood)`,
		// a never repeats: the back-off gives up on it.
		`insert into cat select i, i * 1.001, 'b' || i % 4, hstore('k', (i % 3)::text),
  (array['sad', 'ok', 'happy'])[1 + i % 3]::mood from generate_series(1, 6000) i`},
	{"B", `create extension hstore;
create type mood as enum ('red', 'green', 'blue');
create table cat (id int4, a numeric, b numeric, c text, m mood)`,
		// a repeats: it pays to cache.
		`insert into cat select i, i % 10, (i % 7) / 4.0, 'k=>' || i % 3,
  (array['red', 'green', 'blue'])[1 + i % 3]::mood from generate_series(1, 6000) i`},
}

// TestTwoCatalogs reads two such servers interleaved, query by query and
// row by row, with the default options and pgcache_types=all, and compares
// every value with pgx stdlib's; checks that the back-off's judgement of
// one server's column does not reach the other's column of the same OIDs;
// and fails a multi-host *sql.DB over from one to the other. Not parallel:
// it asserts the cache's traffic.
func TestTwoCatalogs(t *testing.T) {
	servers := [2]*pgtest.Cluster{pgtest.StartCluster(t), pgtest.StartCluster(t)}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var oids [2]string
	for i, c := range twoCatalogs {
		db := openDB(t, stdDriver, servers[i].DSN())
		mustExec(t, db, c.schema)
		mustExec(t, db, c.rows)
		if err := db.QueryRowContext(ctx, "select 'cat'::regclass::oid || ' ' || 'mood'::regtype::oid").Scan(&oids[i]); err != nil {
			t.Fatal(err)
		}
	}
	if oids[0] != oids[1] {
		t.Fatalf("table and enum OIDs %s on A and %s on B: the test needs them to coincide", oids[0], oids[1])
	}
	t.Logf("table and enum OIDs on both servers: %s", oids[0])

	type dbs struct{ std, def, all *sql.DB }
	var on [2]dbs
	for i, c := range servers {
		on[i] = dbs{openDB(t, stdDriver, c.DSN()), openDB(t, pcDriver, c.DSN()),
			openDB(t, pcDriver, withParams(t, c.DSN(), "pgcache_types", "all"))}
	}
	const q = "select a, b, c, m from cat where id <= 600 order by id"
	targets := map[string][]target{
		"any":    repeatTarget(tAny, 4),
		"string": repeatTarget(tString, 4),
		"own":    {tNullString, tNullString, tNullString, tNullString},
		"typed":  {tDecimal, tAny, tAny, tString},
	}

	t.Run("interleaved queries", func(t *testing.T) {
		pgcache.ResetCache()
		for round := range 3 {
			for i := range servers {
				for tname, tg := range targets {
					want := readAll(t, on[i].std, q, nil, tg)
					checkReference(t, tname, want)
					for opts, db := range map[string]*sql.DB{"default": on[i].def, "all": on[i].all} {
						compareLines(t, fmt.Sprintf("round %d, %s, %s, pgcache_types=%s", round, twoCatalogs[i].name, tname, opts),
							want, readAll(t, db, q, nil, tg))
					}
				}
			}
		}
	})

	t.Run("interleaved rows", func(t *testing.T) {
		pgcache.ResetCache()
		for tname, tg := range targets {
			for _, opts := range []string{"default", "all"} {
				var want, got [2][]string
				var rows [2]*sql.Rows
				for i := range servers {
					want[i] = readAll(t, on[i].std, q, nil, tg)
					db := on[i].def
					if opts == "all" {
						db = on[i].all
					}
					var err error
					if rows[i], err = db.QueryContext(ctx, q); err != nil {
						t.Fatal(err)
					}
					defer rows[i].Close()
				}
				// One row from A, one from B, and so on: both result sets
				// are open at once.
				for more := true; more; {
					more = false
					for i, r := range rows {
						if !r.Next() {
							continue
						}
						more = true
						dest := newDests(tg)
						if err := r.Scan(dest...); err != nil {
							got[i] = append(got[i], "scan error: "+errShow(err))
							continue
						}
						got[i] = append(got[i], showRow(tg, dest))
					}
				}
				for i, r := range rows {
					if err := r.Err(); err != nil {
						t.Errorf("%s: %v", twoCatalogs[i].name, err)
					}
					compareLines(t, fmt.Sprintf("%s, %s, pgcache_types=%s", twoCatalogs[i].name, tname, opts), want[i], got[i])
				}
			}
		}
	})

	// A's column a (never repeating) backs off. B's column a, at the same
	// table OID and attribute number, repeats: it must start afresh and
	// be cached, not start in A's skip. A's next read starts in its skip.
	t.Run("judgements per server", func(t *testing.T) {
		pgcache.ResetCache()
		const qa = "select a from cat order by id"
		read := func(i int) counts {
			before := pgcache.Stats().Numeric
			lines := readAll(t, on[i].def, qa, nil, []target{tString})
			if len(lines) != 6000 {
				t.Fatalf("%s: %d rows, want 6000: %.200q", twoCatalogs[i].name, len(lines), lines)
			}
			return countsDelta(before, pgcache.Stats().Numeric)
		}
		a := read(0)
		skipping := pgcache.Stats().Backoff.Skipping
		b := read(1)
		a2 := read(0)
		t.Logf("numeric traffic: A %v (then %d columns skipping), B %v, A again %v", a, skipping, b, a2)
		if skipping == 0 {
			t.Fatalf("A's never-repeating column did not back off")
		}
		if b.Bypasses != 0 || b.Hits == 0 {
			t.Errorf("B's repeating column: %v, want hits and no bypass (it must not inherit A's back-off)", b)
		}
		if a2.Bypasses == 0 {
			t.Errorf("A's column again: %v, want it to start in its skip", a2)
		}
	})

	// One *sql.DB whose multi-host DSN names A, then B: when A stops, its
	// connections come back on B, where the same names have other types.
	t.Run("failover to another catalog", func(t *testing.T) {
		dsn := multiHost([]string{servers[0].Dir(), servers[1].Dir()})
		pc := openDB(t, pcDriver, withParams(t, dsn, "pgcache_types", "all"))
		std := openDB(t, stdDriver, dsn)
		for _, db := range []*sql.DB{pc, std} {
			db.SetMaxOpenConns(2)
		}
		for _, stop := range []bool{false, true} {
			if stop {
				if err := servers[0].Shutdown(ctx, "fast"); err != nil {
					t.Fatal(err)
				}
				// Close the pools' idle connections to A (TestFailoverUnderLoad
				// covers what using them does): new ones go to B.
				for _, db := range []*sql.DB{pc, std} {
					db.SetMaxIdleConns(0)
					db.SetMaxIdleConns(2)
				}
			}
			for tname, tg := range targets {
				want := readAll(t, std, q, nil, tg)
				checkReference(t, tname, want)
				for pass := range 3 {
					got := readAll(t, pc, q, nil, tg)
					compareLines(t, fmt.Sprintf("A stopped %t, %s, pass %d", stop, tname, pass), want, got)
				}
			}
		}
	})
}
