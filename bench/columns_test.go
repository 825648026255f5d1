package bench_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pgcache/pgcache/bench"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestColumnReportsVerdicts runs the per-column report of pgcache-bench
// -query on a query with a column of each verdict.
func TestColumnReportsVerdicts(t *testing.T) {
	ctx := context.Background()
	env, err := bench.Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	w, err := env.QueryWorkload(ctx, "select (i % 7)::numeric(6,2) as price, 'TRUCK'::text as mode, i::int8 as id, i::text || 'x', i::bool::int as dup, i as dup from generate_series(1, 20000) i")
	if err != nil {
		t.Fatal(err)
	}
	reports := env.ColumnReports(ctx, w)
	var b strings.Builder
	if err := bench.WriteColumnReports(&b, reports, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Log("\n" + out)
	for _, want := range []string{"price", "cached by default", "mode", "pgcache_types helps", "id", "too few hits", "give it a unique alias"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
