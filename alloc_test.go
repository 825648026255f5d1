package pgcache_test

import (
	"testing"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestAllocsPerRow measures allocations of rows.Next + rows.Scan for a cached
// value that repeats on every row. A hit hands database/sql the entry's
// pre-boxed string, and Decimal.Scan and Hstore.Scan find the shared parsed
// value, so pgcache adds no allocation to a row.
//
// The limit is what reading a row costs without pgcache's cache: the same
// loop over a bool column (whose driver values need no allocation) through
// the same connection. That baseline is pgx's and database/sql's own cost per
// row, 0 today; asserting against it keeps this test about pgcache should a
// pgx or Go release start allocating per row. It runs sequentially: allocation
// counts are process-wide.
func TestAllocsPerRow(t *testing.T) {
	needHstore(t)
	pc := openDB(t, pcDriver, pgtest.DSN(t))
	pc.SetMaxOpenConns(1)
	const rows = 5000
	numericQuery := "select 12.50::numeric from generate_series(1, 5000)"
	hstoreQuery := `select 'a=>1, "b c"=>NULL'::hstore from generate_series(1, 5000)`

	measure := func(t *testing.T, query string, dest any) float64 {
		t.Helper()
		r, err := pc.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		dests := []any{dest}
		// Warm up: the first rows are the miss and the admission.
		for i := 0; i < 10; i++ {
			if !r.Next() {
				t.Fatal("too few rows")
			}
			if err := r.Scan(dests...); err != nil {
				t.Fatal(err)
			}
		}
		return testing.AllocsPerRun(rows/2, func() {
			if !r.Next() {
				t.Fatal("too few rows")
			}
			if err := r.Scan(dests...); err != nil {
				t.Fatal(err)
			}
		})
	}

	baseline := measure(t, "select true from generate_series(1, 5000)", new(bool))
	t.Logf("baseline: %v allocations per row", baseline)
	for _, tc := range []struct {
		name, query string
		dest        any
	}{
		{"numeric into *string", numericQuery, new(string)},
		{"numeric into *pgcache.Decimal", numericQuery, new(pgcache.Decimal)},
		{"numeric into *pgcache.NullDecimal", numericQuery, new(pgcache.NullDecimal)},
		{"numeric into *any", numericQuery, new(any)},
		{"hstore into *pgcache.Hstore", hstoreQuery, new(pgcache.Hstore)},
		{"hstore into *pgcache.NullHstore", hstoreQuery, new(pgcache.NullHstore)},
		{"hstore into *string", hstoreQuery, new(string)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pgcache.ResetCache()
			if got := measure(t, tc.query, tc.dest); got > baseline {
				t.Errorf("%v allocations per row, want %v (the baseline)", got, baseline)
			}
		})
	}
	// The values are the right ones.
	var d pgcache.Decimal
	var h pgcache.Hstore
	if err := pc.QueryRow("select 12.50::numeric, 'a=>1, \"b c\"=>NULL'::hstore").Scan(&d, &h); err != nil {
		t.Fatal(err)
	}
	if d.String() != "12.50" || h.String() != `"a"=>"1", "b c"=>NULL` {
		t.Errorf("got %s and %s", d, h)
	}
}
