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

// registerCacheMetrics is the README's OpenTelemetry example: observable
// counters and a gauge read from pgcache.Stats() at each collection. It
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
		s := pgcache.Stats()
		for table, st := range map[string]struct {
			hits, misses, admissions, bypasses uint64
			entries                            int
		}{
			"numeric": {s.Numeric.Hits, s.Numeric.Misses, s.Numeric.Admissions, s.Numeric.Bypasses, s.Numeric.Entries},
			"hstore":  {s.Hstore.Hits, s.Hstore.Misses, s.Hstore.Admissions, s.Hstore.Bypasses, s.Hstore.Entries},
		} {
			t := attribute.String("table", table)
			for outcome, n := range map[string]uint64{"hit": st.hits, "miss": st.misses, "admission": st.admissions, "bypass": st.bypasses} {
				o.ObserveInt64(lookups, int64(n), metric.WithAttributes(t, attribute.String("outcome", outcome)))
			}
			o.ObserveInt64(entries, int64(st.entries), metric.WithAttributes(t))
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
