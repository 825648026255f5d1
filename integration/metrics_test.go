package integration

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/pgcache/pgcache"
)

// registerCacheMetrics is the OpenTelemetry example of
// docs/integrations.md: observable counters and a gauge read from
// pgcache.Stats() at each collection, for every table (cacheTables). It
// needs nothing from pgcache but Stats.
func registerCacheMetrics(meter metric.Meter) (metric.Registration, error) {
	lookups, err := meter.Int64ObservableCounter("pgcache.lookups",
		metric.WithDescription("values read through pgcache's cache, by table and outcome"))
	if err != nil {
		return nil, err
	}
	entries, err := meter.Int64ObservableGauge("pgcache.entries",
		metric.WithDescription("slots of pgcache's tables holding a value"))
	if err != nil {
		return nil, err
	}
	return meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		for table, st := range cacheTables(pgcache.Stats()) { // every table, see prometheus_test.go
			t := attribute.String("table", table)
			for outcome, n := range map[string]uint64{"hit": st.Hits, "miss": st.Misses, "admission": st.Admissions, "bypass": st.Bypasses} {
				o.ObserveInt64(lookups, int64(n), metric.WithAttributes(t, attribute.String("outcome", outcome)))
			}
			o.ObserveInt64(entries, int64(st.Entries), metric.WithAttributes(t))
		}
		return nil
	}, lookups, entries)
}

// TestOpenTelemetryMetrics collects the example's metrics with the SDK after
// reading repeating values and finds the hits the cache served.
func TestOpenTelemetryMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	reg, err := registerCacheMetrics(mp.Meter("github.com/pgcache/pgcache"))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Unregister()

	// tables returns the tables of the pgcache.lookups data points.
	tables := func() map[string]bool {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(testContext(t), &rm); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "pgcache.lookups" {
					for _, dp := range sum.DataPoints {
						table, _ := dp.Attributes.Value("table")
						seen[table.AsString()] = true
					}
				}
			}
		}
		return seen
	}
	seen := tables()
	for table := range cacheTables(pgcache.Stats()) {
		if !seen[table] {
			t.Errorf("no pgcache.lookups data point for table %q", table)
		}
	}

	collectHits := func() int64 {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(testContext(t), &rm); err != nil {
			t.Fatal(err)
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				sum, ok := m.Data.(metricdata.Sum[int64])
				if m.Name != "pgcache.lookups" || !ok {
					continue
				}
				for _, dp := range sum.DataPoints {
					table, _ := dp.Attributes.Value("table")
					outcome, _ := dp.Attributes.Value("outcome")
					if table.AsString() == "numeric" && outcome.AsString() == "hit" {
						return dp.Value
					}
				}
			}
		}
		t.Fatal("no pgcache.lookups{table=numeric,outcome=hit} data point")
		return 0
	}

	before := collectHits()
	db := openDB(t, pgcache.DriverName, hstoreDatabase(t))
	for range 3 {
		rows, err := db.QueryContext(testContext(t), "select ((i % 4) * 0.25)::numeric(4, 2) from generate_series(1, 100) i")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
		}
		rows.Close()
	}
	if after := collectHits(); after <= before {
		t.Fatalf("numeric hits %d before, %d after reading repeating values", before, after)
	}
}
