package integration

import (
	"reflect"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// cacheTables names every table of a pgcache.CacheStats, as the metrics
// examples label them: numeric and hstore, and the tables of the
// pgcache_types option (zeros until a connection with the option reads a
// column of their kind). TestCacheTablesCoverStats keeps it complete.
func cacheTables(s pgcache.CacheStats) map[string]cache.Stats {
	return map[string]cache.Stats{
		"numeric":     s.Numeric,
		"hstore":      s.Hstore,
		"text":        s.Text,
		"long_text":   s.LongText,
		"int8":        s.Int8,
		"int4":        s.Int4,
		"float8":      s.Float8,
		"date":        s.Date,
		"timestamp":   s.Timestamp,
		"timestamptz": s.Timestamptz,
	}
}

// TestCacheTablesCoverStats: cacheTables has one entry per cache.Stats field
// of pgcache.CacheStats, so a table added to Stats cannot be missing from the
// exported metrics.
func TestCacheTablesCoverStats(t *testing.T) {
	n := 0
	st := reflect.TypeFor[pgcache.CacheStats]()
	for i := range st.NumField() {
		if st.Field(i).Type == reflect.TypeFor[cache.Stats]() {
			n++
		}
	}
	if got := len(cacheTables(pgcache.Stats())); got != n {
		t.Fatalf("cacheTables names %d tables, pgcache.CacheStats has %d fields", got, n)
	}
}

// pgcacheCollector is the Prometheus example of docs/integrations.md: a
// collector that reads pgcache.Stats() at each scrape. pgcache itself does
// not depend on client_golang.
type pgcacheCollector struct{ lookups, entries, slots *prometheus.Desc }

func newPgcacheCollector() *pgcacheCollector {
	return &pgcacheCollector{
		lookups: prometheus.NewDesc("pgcache_lookups_total",
			"Values read through pgcache's cache, by table and outcome.", []string{"table", "outcome"}, nil),
		entries: prometheus.NewDesc("pgcache_entries",
			"Slots of pgcache's tables holding a value.", []string{"table"}, nil),
		slots: prometheus.NewDesc("pgcache_slots",
			"Slots of pgcache's tables (0 until a table is first used).", []string{"table"}, nil),
	}
}

func (c *pgcacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.lookups
	ch <- c.entries
	ch <- c.slots
}

func (c *pgcacheCollector) Collect(ch chan<- prometheus.Metric) {
	for table, st := range cacheTables(pgcache.Stats()) {
		for outcome, n := range map[string]uint64{
			"hit": st.Hits, "miss": st.Misses, "admission": st.Admissions, "bypass": st.Bypasses,
		} {
			ch <- prometheus.MustNewConstMetric(c.lookups, prometheus.CounterValue, float64(n), table, outcome)
		}
		ch <- prometheus.MustNewConstMetric(c.entries, prometheus.GaugeValue, float64(st.Entries), table)
		ch <- prometheus.MustNewConstMetric(c.slots, prometheus.GaugeValue, float64(st.Slots), table)
	}
}

// TestPrometheusCollector registers the collector on a pedantic registry
// (which checks it against its descriptions), reads repeating numeric and
// int8 values with pgcache_types=int8, and finds every table in a scrape
// and the hits of both tables grown.
func TestPrometheusCollector(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(newPgcacheCollector())

	scrape := func() map[[2]string]float64 {
		t.Helper()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := map[[2]string]float64{}
		for _, f := range families {
			if f.GetName() != "pgcache_lookups_total" {
				continue
			}
			for _, m := range f.GetMetric() {
				var table, outcome string
				for _, l := range m.GetLabel() {
					switch l.GetName() {
					case "table":
						table = l.GetValue()
					case "outcome":
						outcome = l.GetValue()
					}
				}
				got[[2]string{table, outcome}] = m.GetCounter().GetValue()
			}
		}
		return got
	}

	before := scrape()
	for table := range cacheTables(pgcache.Stats()) {
		if _, ok := before[[2]string{table, "hit"}]; !ok {
			t.Errorf("no pgcache_lookups_total{table=%q,outcome=\"hit\"} in the scrape", table)
		}
	}
	db := openDB(t, pgcache.DriverName, pgtest.MustWithOptions(t, hstoreDatabase(t), "pgcache_types", "int8"))
	for range 3 {
		rows, err := db.QueryContext(testContext(t),
			"select ((i % 4) * 0.25)::numeric(4, 2), (i % 4 + 1000)::int8 from generate_series(1, 100) i")
		if err != nil {
			t.Fatal(err)
		}
		// Into *any: on Go 1.27 an int8 column looks its table up only for
		// destinations that take the boxed value.
		var n, k any
		for rows.Next() {
			if err := rows.Scan(&n, &k); err != nil {
				t.Fatal(err)
			}
		}
		rows.Close()
	}
	after := scrape()
	for _, table := range []string{"numeric", "int8"} {
		k := [2]string{table, "hit"}
		if after[k] <= before[k] {
			t.Errorf("pgcache_lookups_total{table=%q,outcome=\"hit\"}: %v before, %v after reading repeating values", table, before[k], after[k])
		}
	}
}
