package bench_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pgcache/pgcache/bench"
	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/driver"
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
	w, err := env.QueryWorkload(ctx, "select (i % 7)::numeric(6,2) as price, 'TRUCK'::text as mode, i::int8 as id, (i % 5)::int8 as ref, i::text || 'x', i::bool::int as dup, i as dup from generate_series(1, 20000) i")
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
	// mode (text, a default kind on every toolchain) and price are cached
	// by default. int8 is a default kind on Go 1.26 only: there id, which
	// does not repeat, is disabled and ref is cached by default; elsewhere
	// ref, which repeats, gets int8 listed, and id is disabled with it.
	wants := []string{"price", "cached by default", "mode", "id", "give it a unique alias"}
	line := "pgcache_types=default,int8 pgcache_disable=id"
	if driver.DefaultTypes.Has(driver.TypeInt8) {
		line = "pgcache_disable=id"
	} else {
		wants = append(wants, "pgcache_types helps")
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if got := bench.Recommend(reports).Line(); got != line {
		t.Errorf("paste line %q, want %q", got, line)
	}
}

// TestRecommend: the paste line lists the kinds with a column that repeats
// and disables the columns of listed (or default) kinds that do not, by
// table column when there is one.
func TestRecommend(t *testing.T) {
	hits := cache.Stats{Hits: 95, Misses: 5}
	none := cache.Stats{Misses: 50, Bypasses: 50}
	rec := bench.Recommend([]bench.ColumnReport{
		{Column: bench.QueryColumn{Name: "price", Type: "numeric", Source: "items.price"}, Default: hits, AllTypes: hits},
		{Column: bench.QueryColumn{Name: "total", Type: "numeric"}, Default: none, AllTypes: none},
		{Column: bench.QueryColumn{Name: "id", Type: "int8", Source: "items.id"}, AllTypes: none},
		{Column: bench.QueryColumn{Name: "ref", Type: "int8"}, AllTypes: hits},
		{Column: bench.QueryColumn{Name: "shipped", Type: "date", Source: "items.shipped"}, AllTypes: hits},
		{Column: bench.QueryColumn{Name: "sku", Type: "text", Source: `"Items".sku`}, AllTypes: none}, // text not listed: left alone
		{Column: bench.QueryColumn{Name: "state", Type: "order_state"}, AllTypes: hits},
		{Column: bench.QueryColumn{Name: "flag", Type: "bool"}},
	})
	if got, want := rec.Line(), "pgcache_types=default,int8,date,enum pgcache_disable=total,items.id"; got != want {
		t.Errorf("Line() = %q, want %q", got, want)
	}
	if got, want := rec.URLQuery(), "pgcache_disable=total%2Citems.id&pgcache_types=default%2Cint8%2Cdate%2Cenum"; got != want {
		t.Errorf("URLQuery() = %q, want %q", got, want)
	}
	if len(rec.Gains) != 5 {
		t.Errorf("%d gains, want one per named column (5):\n%s", len(rec.Gains), strings.Join(rec.Gains, "\n"))
	}
	if got := (bench.Recommendation{}).Line(); got != "" {
		t.Errorf("empty recommendation: Line() = %q", got)
	}
}
