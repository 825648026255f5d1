package bench_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pgcache/pgcache/bench"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// paceDatabase skips t where the server's CPU time cannot be read, and
// returns a context with the test's deadline and a database of its own.
func paceDatabase(t *testing.T) (context.Context, string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the server's CPU time is read from Linux's /proc")
	}
	dsn := pgtest.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx, dsn
}

// TestServerPace measures the server's pace on a small copy of the shop
// data set (mixed text and binary result formats) and of a numeric one.
func TestServerPace(t *testing.T) {
	ctx, dsn := paceDatabase(t)
	for _, name := range []string{"shop", "repetitive"} {
		d, ok := bench.LookupDataSet(name)
		if !ok {
			t.Fatalf("no data set %q", name)
		}
		d = d.WithRows(500)
		if err := bench.Load(ctx, dsn, []bench.DataSet{d}, nil); err != nil {
			t.Fatal(err)
		}
		p, err := bench.ServerPace(ctx, dsn, d.Workload(), 20*time.Millisecond)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Values == 0 || p.Values%d.Values() != 0 {
			t.Errorf("%s: %d values read, want a multiple of %d", name, p.Values, d.Values())
		}
		if p.ServerCPU <= 0 || p.Wall <= 0 {
			t.Errorf("%s: server CPU %.1f ns, wall %.1f ns a value: want both > 0", name, p.ServerCPU, p.Wall)
		}
		if s := p.String(); !strings.Contains(s, "ns of CPU a value") {
			t.Errorf("%s: String() = %q", name, s)
		}
	}
}

// TestServerPaceReadOnly: a user query's workload (pgcache-bench -query)
// is read in a READ ONLY transaction, each read its own.
func TestServerPaceReadOnly(t *testing.T) {
	ctx, dsn := paceDatabase(t)
	w := bench.Workload{Name: "query", Query: "select g, g::numeric / 7 from generate_series(1, 1000) g", ReadOnly: true}
	p, err := bench.ServerPace(ctx, dsn, w, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if p.Values == 0 || p.Values%2000 != 0 {
		t.Errorf("%d values read, want a multiple of 2000", p.Values)
	}
	// A write in such a read would fail: the transaction is read only.
	w.Query = "create table pace_write_test (x int)"
	if _, err := bench.ServerPace(ctx, dsn, w, time.Millisecond); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("a write: err = %v, want the server's read-only transaction error", err)
	}
}

// TestServerPaceNoRows: a query that returns no rows ends after minTime,
// with no values and no figure of a value, rather than reading forever.
func TestServerPaceNoRows(t *testing.T) {
	ctx, dsn := paceDatabase(t)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	p, err := bench.ServerPace(ctx, dsn, bench.Workload{Name: "none", Query: "select 1 where false"}, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if p.Values != 0 || p.ServerCPU != 0 || p.Wall != 0 {
		t.Errorf("got %+v, want no values and zero figures", p)
	}
}

// TestServerPaceBadQuery: a query the server refuses is an error naming it,
// not a figure.
func TestServerPaceBadQuery(t *testing.T) {
	ctx, dsn := paceDatabase(t)
	_, err := bench.ServerPace(ctx, dsn, bench.Workload{Name: "bad", Query: "select no_such_column from pg_class"}, time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "no_such_column") {
		t.Fatalf("err = %v, want the server's error naming no_such_column", err)
	}
}
