package bench_test

import (
	"context"
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

// shortTable is the table of the table-backed patterns: 8 numeric columns
// per pattern, the values of row id g those of the literal pattern of the
// same name at offset 0.
const (
	shortTable     = "pgcache_bench_short"
	shortTableRows = 100000
	shortTableVer  = 1
)

// shortTablePatterns are the table-backed patterns of BenchmarkShortQueries:
// the prefix of their columns in shortTable and the expression that fills
// column k of row g. The values are the literal patterns' (shortPatterns),
// read from a table by one parameterized query text, so that pgcache knows
// each column by its table and attribute, as it knows an application's.
var shortTablePatterns = []struct{ name, prefix, expr string }{
	{"table-pairs", "p", "(((g / 2) * 8 + %d) %% 100000000)::numeric"},
	{"table-distinct", "d", "((g * 8 + %d) %% 100000000)::numeric"},
	{"table-repeating", "r", "(((abs(hashint8(g + %d * 7919)) %% 200) + 1000) / 100.0)::numeric(6, 2)"},
}

// shortTableQuery selects rows rows of the 8 columns of prefix that follow
// the row id $1.
func shortTableQuery(prefix string, rows int) string {
	cols := make([]string, 8)
	for k := range cols {
		cols[k] = fmt.Sprintf("%s%d", prefix, k)
	}
	return fmt.Sprintf("select %s from %s where id > $1 order by id limit %d", strings.Join(cols, ", "), shortTable, rows)
}

// loadShortTable creates and fills shortTable unless it already holds this
// version's rows (its comment says so). The work is the server's: the client
// sends a few statements, so a cachegrind count that includes the load is off
// by a few thousand instructions at most, and bench/cachegrind.sh loads it
// before it counts.
func loadShortTable(ctx context.Context, db *sql.DB) error {
	marker := fmt.Sprintf("pgcache-bench short v%d rows=%d", shortTableVer, shortTableRows)
	var got sql.NullString
	err := db.QueryRowContext(ctx, "select obj_description(to_regclass($1), 'pg_class')", shortTable).Scan(&got)
	if err != nil {
		return fmt.Errorf("checking %s: %w", shortTable, err)
	}
	if got.String == marker {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	cols := []string{"g as id"}
	for _, p := range shortTablePatterns {
		for k := range 8 {
			cols = append(cols, fmt.Sprintf(p.expr, k)+fmt.Sprintf(" as %s%d", p.prefix, k))
		}
	}
	for _, stmt := range []string{
		// Concurrent loaders (two benchmark processes) take turns.
		"select pg_advisory_xact_lock(hashtext('" + shortTable + "'))",
		"drop table if exists " + shortTable,
		fmt.Sprintf("create table %s as select %s from generate_series(1, %d) g", shortTable, strings.Join(cols, ", "), shortTableRows),
		"alter table " + shortTable + " add primary key (id)",
		"comment on table " + shortTable + " is '" + marker + "'",
		"analyze " + shortTable,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("loading %s: %s: %w", shortTable, stmt, err)
		}
	}
	return tx.Commit()
}

// BenchmarkShortQueries runs many queries of the same shape, each reading a
// result set of 1 to 2000 rows of 8 numeric columns into *string, the way
// applications read orders or price lists: what pgcache costs per result set
// and what its back-off makes of columns that pay and that do not. Each
// iteration is one query; the offset parameter moves on every query, so
// that pairs and distinct values never come back. The patterns pairs,
// distinct and repeating compute their values in the query (columns known
// to pgcache by query text and position); table-pairs, table-distinct and
// table-repeating read the same values from a table (pgcache_bench_short,
// created if missing) by one query text with a $1 row offset, as
// applications read theirs (columns known by table and attribute). Measure the client's CPU
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
		db := pgtest.OpenDB(b, d.driver, d.dsn)
		db.SetMaxOpenConns(1)
		dbs[d.name] = db
	}
	if err := loadShortTable(b.Context(), dbs["pgx"]); err != nil {
		b.Fatal(err)
	}
	type pattern struct {
		name  string
		query func(rows int) string
		wrap  int64 // the offset starts again from 0 past wrap - rows; 0: never
	}
	var patterns []pattern
	for _, p := range shortPatterns {
		patterns = append(patterns, pattern{p.name, func(rows int) string { return shortQuery(p.expr, rows) }, 0})
	}
	for _, p := range shortTablePatterns {
		patterns = append(patterns, pattern{p.name, func(rows int) string { return shortTableQuery(p.prefix, rows) }, shortTableRows})
	}
	offset := int64(0)
	for _, p := range patterns {
		for _, rows := range []int{1, 20, 200, 2000} {
			query := p.query(rows)
			for _, drv := range []string{"pgx", "pgcache", "pgcache-off"} {
				b.Run(fmt.Sprintf("pattern=%s/rows=%d/driver=%s", p.name, rows, drv), func(b *testing.B) {
					db := dbs[drv]
					read := func() (int, error) {
						offset += int64(rows)
						if p.wrap > 0 && offset > p.wrap-int64(rows) {
							offset = 0
						}
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

// TestShortTablePatterns checks that the table-backed patterns read the
// values of their literal twins (at offset 0 the table's row id g is the
// literal query's g), through pgx stdlib and pgcache alike, so the two
// kinds of cell measure the same data.
func TestShortTablePatterns(t *testing.T) {
	dsn := pgtest.DSN(t)
	read := func(driverName, query string, args ...any) [][]string {
		t.Helper()
		db, err := sql.Open(driverName, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := loadShortTable(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got [][]string
		for rows.Next() {
			r := make([]string, 8)
			if err := rows.Scan(&r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &r[6], &r[7]); err != nil {
				t.Fatal(err)
			}
			got = append(got, r)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	const rows = 20
	for i, p := range shortTablePatterns {
		literal := shortPatterns[i]
		if "table-"+literal.name != p.name {
			t.Fatalf("shortTablePatterns[%d] is %s, shortPatterns[%d] %s: keep them in the same order", i, p.name, i, literal.name)
		}
		want := read("pgx", shortQuery(literal.expr, rows), 0)
		for _, drv := range []string{"pgx", pgcache.DriverName} {
			got := read(drv, shortTableQuery(p.prefix, rows), 0)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s through %s: got %v, want the literal pattern's %v", p.name, drv, got, want)
			}
		}
	}
}
