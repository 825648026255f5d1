//go:build go1.27

package integration

import (
	"testing"

	"github.com/XSAM/otelsql"
)

// TestOtelsqlArrays: with Go 1.27's driver.RowsColumnScanner, pgx stdlib
// scans arrays straight into Go slices. otelsql's rows offer that interface
// when the rows they wrap do, so through otelsql "pgcache" must do what
// "pgx" does: int8[] into []int64, text[] into []string, NULL into a nil
// slice.
func TestOtelsqlArrays(t *testing.T) {
	compareDrivers(t, func(t *testing.T, driverName, dsn string) record {
		var r record
		tp, _ := tracing(t)
		db, err := otelsql.Open(driverName, dsn, otelsql.WithTracerProvider(tp))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		rows, err := db.QueryContext(testContext(t), `select array[i, i * 2, -i]::int8[],
			array['a' || i, null]::text[], case when i % 2 = 0 then null else array[i]::int8[] end,
			((i % 3) * 1.5)::numeric(6, 2)
			from generate_series(1, 6) i`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var (
				ints, maybe []int64
				texts       []*string
				price       string
			)
			if err := rows.Scan(&ints, &texts, &maybe, &price); err != nil {
				t.Fatalf("Scan: %v", err)
			}
			var ts []string
			for _, s := range texts {
				if s == nil {
					ts = append(ts, "NULL")
				} else {
					ts = append(ts, *s)
				}
			}
			r.Add("%v %v %v(nil=%v) %s", ints, ts, maybe, maybe == nil, price)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return r
	})
}
