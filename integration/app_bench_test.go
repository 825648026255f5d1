package integration

import (
	"context"
	"runtime"
	"testing"

	"github.com/pgcache/pgcache/bench"
)

// BenchmarkApp measures the catalog and orders service of app_test.go as an
// application runs it, through database/sql, sqlx and GORM, on pgcache, pgx
// stdlib and lib/pq, with the same code and row types on each:
//
//	BenchmarkApp/api=sql|sqlx|gorm/types=plain|pgcache/op=OP/driver=pgcache|pgx|pq
//
// where OP is one of
//
//   - page: a 50-row page of the catalog (8 columns: id, sku, name, price,
//     vat, a NULL-able discount, an hstore of attributes, a NULL-able hstore
//     note), the offset cycling over 3000 products;
//   - get: one product by id;
//   - report: every order line (10 columns, -app.rows of them, 20000 unless
//     set; bench/app.sh reads 300000), streamed row by row;
//   - tx: a transaction placing an order: three products read, a cart and
//     three lines inserted, the total updated, committed.
//
// types=plain holds numerics and hstores as strings (sql.NullString where
// NULL-able), as an application written for pgx stdlib does, so pgcache
// against pgx is a swap of the driver name alone; types=pgcache holds them
// as pgcache.Decimal/NullDecimal/Hstore/NullHstore, on every driver.
//
// Besides ns/op and allocs/op each reports cpu-ns/op, the user and system
// CPU of the process (the client: driver, database/sql, the API's own
// reflection, the collector; not the server); report also gives ns/row,
// cpu-ns/row and allocs/row. Run it with one P (-cpu 1) for client CPU and
// compare drivers with benchstat -col /driver (see bench/README.md).
func BenchmarkApp(b *testing.B) {
	dsn := loadApp(b, *reportRows)
	for _, api := range []string{apiSQL, apiSQLX, apiGORM} {
		for _, types := range appTypes {
			for _, op := range []string{"page", "get", "report", "tx"} {
				for _, drv := range []string{drvPgcache, drvPgx, drvPq} {
					name := "api=" + api + "/types=" + types + "/op=" + op + "/driver=" + appDriverLabel(drv)
					b.Run(name, func(b *testing.B) {
						if types == "plain" {
							benchApp[plainProduct, plainLine](b, api, drv, dsn, op)
						} else {
							benchApp[typedProduct, typedLine](b, api, drv, dsn, op)
						}
					})
				}
			}
		}
	}
}

func benchApp[P any, L any, PP product[P], LP lineOf[L]](b *testing.B, api, driverName, dsn, op string) {
	ctx := context.Background()
	s := openService[P, L, PP, LP](b, api, driverName, dsn)
	lines := *reportRows
	var do func(i int) error
	switch op {
	case "page":
		do = func(i int) error {
			_, err := s.page(ctx, (i*pageSize)%(catalogSize-pageSize+1))
			return err
		}
	case "get":
		do = func(i int) error {
			_, err := s.get(ctx, int64(i*7%catalogSize+1))
			return err
		}
	case "report":
		do = func(int) error {
			n := 0
			err := s.report(ctx, lines, func(*L) { n++ })
			if err == nil && n != lines {
				b.Fatalf("the report read %d rows, want %d", n, lines)
			}
			return err
		}
	case "tx":
		do = func(i int) error {
			base := int64(i*3%(catalogSize-2) + 1)
			_, _, err := s.placeOrder(ctx, int64(i), [3]int64{base, base + 1, base + 2})
			return err
		}
	}
	// Once unmeasured: connects, prepares, and fills pgcache's cache as a
	// running service has it.
	if err := do(0); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs := ms.Mallocs
	cpu := bench.CPUTime()
	i := 0
	for b.Loop() {
		i++
		if err := do(i); err != nil {
			b.Fatal(err)
		}
	}
	cpuNs := float64(bench.CPUTime() - cpu)
	runtime.ReadMemStats(&ms)
	n := float64(b.N)
	b.ReportMetric(cpuNs/n, "cpu-ns/op")
	if op == "report" {
		perRow := n * float64(lines)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perRow, "ns/row")
		b.ReportMetric(cpuNs/perRow, "cpu-ns/row")
		b.ReportMetric(float64(ms.Mallocs-mallocs)/perRow, "allocs/row")
	}
}
