package bench_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// shortPatterns are the value patterns of BenchmarkShortQueries, as SQL
// for column k of row g of the query with offset $1: every text at most 8
// bytes, so that the cache takes it.
var shortPatterns = []struct{ name, expr string }{
	// Each value exactly twice in a row, never again, in this query or
	// another: every second value is admitted and none ever hits.
	{"pairs", "((($1 + g / 2) * 8 + %d) %% 100000000)::numeric"},
	// Every value once.
	{"distinct", "((($1 + g) * 8 + %d) %% 100000000)::numeric"},
	// Prices drawn from 200 values, in every query.
	{"repeating", "(((abs(hashint8(g + $1 + %d * 7919)) %% 200) + 1000) / 100.0)::numeric(6, 2)"},
}

// shortQuery selects rows rows of 8 numeric columns of the pattern expr.
func shortQuery(expr string, rows int) string {
	cols := make([]string, 8)
	for k := range cols {
		cols[k] = fmt.Sprintf(expr, k)
	}
	return fmt.Sprintf("select %s from generate_series(1, %d) g", strings.Join(cols, ", "), rows)
}

// BenchmarkShortQueries runs many queries of the same shape, each reading a
// result set of 1 to 2000 rows of 8 numeric columns into *string, the way
// applications read orders or price lists: what pgcache costs per result set
// and what its back-off makes of columns that pay and that do not. Each
// iteration is one query; the offset parameter moves on every query, so
// that pairs and distinct values never come back. Measure the client's CPU
// with one P, so that the scheduler's spinning between round trips does not
// swamp the driver's own cost:
//
//	go test -run '^$' -bench ShortQueries -cpu 1 -count 7 ./bench | benchstat -col /driver -
func BenchmarkShortQueries(b *testing.B) {
	dsn := pgtest.DSN(b)
	dbs := map[string]*sql.DB{}
	for _, d := range []struct{ name, driver, dsn string }{
		{"pgx", "pgx", dsn},
		{"pgcache", pgcache.DriverName, dsn},
		{"pgcache-off", pgcache.DriverName, pgtest.MustWithOptions(b, dsn, "pgcache", "off")},
	} {
		db, err := sql.Open(d.driver, d.dsn)
		if err != nil {
			b.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		b.Cleanup(func() { db.Close() })
		dbs[d.name] = db
	}
	offset := int64(0)
	for _, p := range shortPatterns {
		for _, rows := range []int{1, 20, 200, 2000} {
			query := shortQuery(p.expr, rows)
			for _, drv := range []string{"pgx", "pgcache", "pgcache-off"} {
				b.Run(fmt.Sprintf("pattern=%s/rows=%d/driver=%s", p.name, rows, drv), func(b *testing.B) {
					db := dbs[drv]
					read := func() (int, error) {
						offset += int64(rows)
						return scanStrings(db, query, 8, offset)
					}
					// Warm up: the statement prepared, the judgements of
					// earlier queries of the same shape in place.
					for range 20 {
						if _, err := read(); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportAllocs()
					runBench(b, read)
				})
			}
		}
	}
}
