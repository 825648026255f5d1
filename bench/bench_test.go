package bench_test

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/bench"
	"github.com/pgcache/pgcache/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var rowsFlag = flag.Int("rows", 0, "scale every data set to this many rows (0: full size)")

// benchEnv is shared by every benchmark in the process: one connection per
// driver, and each data set loaded the first time a benchmark needs it.
var benchEnv struct {
	once   sync.Once
	env    *bench.Env
	dsn    string
	err    error
	loaded sync.Map // data set name -> error (nil when loaded)
}

func openBenchEnv(b *testing.B) *bench.Env {
	b.Helper()
	dsn := pgtest.DSN(b)
	benchEnv.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		benchEnv.dsn = dsn
		if benchEnv.err = bench.CreateHstore(ctx, dsn); benchEnv.err == nil {
			benchEnv.env, benchEnv.err = bench.Open(ctx, dsn)
		}
	})
	if benchEnv.err != nil {
		b.Fatal(benchEnv.err)
	}
	return benchEnv.env
}

func loadDataSet(b *testing.B, d bench.DataSet) {
	b.Helper()
	v, ok := benchEnv.loaded.Load(d.Name)
	if !ok {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		err := bench.Load(ctx, benchEnv.dsn, []bench.DataSet{d}, func(msg string) { b.Log(msg) })
		v, _ = benchEnv.loaded.LoadOrStore(d.Name, err)
	}
	if err, _ := v.(error); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkScan reads each data set's table with a full-table SELECT and a
// rows.Next/rows.Scan loop, once per iteration, through every driver into
// every destination that makes sense. Compare drivers with
//
//	benchstat -col /driver new.txt
//
// Besides ns/op (one full scan) it reports, per value read: ns/value (wall),
// cpu-ns/value (the client process's user+system CPU, the garbage collector
// included), allocs/value and B/value.
//
// The sub-benchmarks are named driver=…/dest=…/data=… but run data- and
// dest-major, so the drivers compared in one row of benchstat's table run
// back to back rather than minutes apart.
func BenchmarkScan(b *testing.B) {
	for _, d := range bench.DataSets() {
		d = d.WithRows(*rowsFlag)
		w := d.Workload()
		for _, c := range d.Cells() {
			b.Run(fmt.Sprintf("driver=%s/dest=%s/data=%s", c.Driver, c.Dest, d.Name), func(b *testing.B) {
				env := openBenchEnv(b)
				loadDataSet(b, d)
				ctx := context.Background()
				// Start cold, then read once untimed: pgcache's cache fills
				// on the second sighting of each value, pgx caches the
				// statement, the server has the table in its buffers.
				pgcache.ResetCache()
				if _, err := env.Scan(ctx, c, w); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				runBench(b, func() (int, error) { return env.Scan(ctx, c, w) })
			})
		}
	}
}

// runBench runs fn, which reads some values and returns how many, in a
// b.Loop and reports the per-value metrics.
func runBench(b *testing.B, fn func() (int, error)) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0, user0 := bench.CPUTime(), bench.UserCPUTime()
	values := 0
	for b.Loop() {
		n, err := fn()
		if err != nil {
			b.Fatal(err)
		}
		values += n
	}
	cpu, user := bench.CPUTime()-cpu0, bench.UserCPUTime()-user0
	runtime.ReadMemStats(&m1)
	v := float64(max(values, 1))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/v, "ns/value")
	b.ReportMetric(float64(cpu.Nanoseconds())/v, "cpu-ns/value")
	b.ReportMetric(float64(user.Nanoseconds())/v, "user-ns/value")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/v, "allocs/value")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/v, "B/value")
}

// TestCells reads a small copy of every data set through every cell and
// checks that the texts the drivers return are the generated ones, so a
// benchmark never measures a driver that reads something else.
func TestCells(t *testing.T) {
	dsn := pgtest.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var sets []bench.DataSet
	for _, d := range bench.DataSets() {
		sets = append(sets, d.WithRows(300))
	}
	if err := bench.Load(ctx, dsn, sets, nil); err != nil {
		t.Fatal(err)
	}
	if err := bench.Check(ctx, dsn, sets); err != nil {
		t.Fatal(err)
	}
	env, err := bench.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()

	for _, d := range sets {
		w := d.Workload()
		for _, c := range d.Cells() {
			for range 2 { // the second read of a pgcache cell hits the cache
				n, err := env.Scan(ctx, c, w)
				if err != nil {
					t.Errorf("%s %s: %v", d.Name, c, err)
					break
				}
				if n != d.Values() {
					t.Errorf("%s %s: read %d values, want %d", d.Name, c, n, d.Values())
				}
			}
		}
		checkTexts(t, ctx, dsn, d)
	}
}

// checkTexts checks that every driver reads d's values as the texts d
// generates, in order.
func checkTexts(t *testing.T, ctx context.Context, dsn string, d bench.DataSet) {
	var want [][]string
	for row := range d.Generate() {
		want = append(want, append([]string(nil), row...))
	}
	// Dates and times reach *string as RFC 3339 times through database/sql;
	// read their text instead (char(n) must not be cast: ::text drops its
	// padding), timestamptz in UTC as the generators print it.
	names := make([]string, len(d.Columns))
	for i, c := range d.Columns {
		names[i] = c.Name
		switch c.Type {
		case "date":
			names[i] += "::text"
		case "timestamptz":
			names[i] = fmt.Sprintf(`to_char(%s at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS"+00"')`, c.Name)
		}
	}
	query := "select " + strings.Join(names, ", ") + " from " + d.Table + " order by ctid"
	for _, name := range []string{"pgcache", "pgx", "postgres"} {
		db := pgtest.OpenDB(t, name, dsn)
		for pass := range 2 {
			rows, err := db.QueryContext(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]string, len(d.Columns))
			ptrs := make([]any, len(got))
			for i := range got {
				ptrs[i] = &got[i]
			}
			i := 0
			for ; rows.Next(); i++ {
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want[i]) {
					t.Errorf("%s via %s (pass %d), row %d: got %q, want %q", d.Name, name, pass, i, got, want[i])
					break
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
	}
}

// BenchmarkScanConcurrent reads a table from two connections at once, into
// *string, through a *sql.DB with two open connections. It shows how the
// process-wide cache behaves under concurrency: hits write no shared memory,
// and an all-distinct column stops consulting the table after its first
// probe window, so neither costs more than pgcache=off. One iteration is two
// full scans running side by side.
func BenchmarkScanConcurrent(b *testing.B) {
	const readers = 2
	for _, name := range []string{"repetitive", "distinct"} {
		d, _ := bench.LookupDataSet(name)
		d = d.WithRows(*rowsFlag)
		for _, drv := range []struct{ name, driver, key, value string }{
			{"pgcache", "pgcache", "", ""},
			{"pgx", "pgx", "", ""},
			{"pgcache-off", "pgcache", "pgcache", "off"},
		} {
			b.Run(fmt.Sprintf("driver=%s/dest=string/data=%s/readers=%d", drv.name, d.Name, readers), func(b *testing.B) {
				openBenchEnv(b)
				loadDataSet(b, d)
				dsn := benchEnv.dsn
				if drv.key != "" {
					dsn = bench.WithParam(dsn, drv.key, drv.value)
				}
				db, err := sql.Open(drv.driver, dsn)
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				db.SetMaxOpenConns(readers)
				db.SetMaxIdleConns(readers)
				// The readers go through the table in opposite directions,
				// so an all-distinct table stays all-distinct between them.
				queries := [readers]string{d.Query() + " order by ctid", d.Query() + " order by ctid desc"}
				scanAll := func() (int, error) {
					var (
						wg    sync.WaitGroup
						total [readers]int
						errs  [readers]error
					)
					for r := range readers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							total[r], errs[r] = scanStrings(db, queries[r], len(d.Columns))
						}()
					}
					wg.Wait()
					return total[0] + total[1], errors.Join(errs[:]...)
				}
				pgcache.ResetCache()
				if _, err := scanAll(); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				runBench(b, scanAll)
			})
		}
	}
}

// scanStrings reads every row of query, with args, into *string
// destinations and returns the number of values read.
func scanStrings(db *sql.DB, query string, cols int, args ...any) (int, error) {
	rows, err := db.Query(query, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	vals := make([]string, cols)
	ptrs := make([]any, cols)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		n += cols
	}
	return n, rows.Err()
}
