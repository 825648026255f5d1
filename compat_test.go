package pgcache

import (
	"testing"

	"github.com/pgcache/pgcache/cache"
)

// TestForeignNumericTexts: PostgreSQL-compatible engines do not all print
// numerics as numeric_out does. CockroachDB prints some with an exponent
// (1E+2, 1.5E-7); others may add a '+' or a leading '.'. Such texts must
// reach database/sql exactly as pgx stdlib passes them on (the raw text as a
// string), however often they repeat, must never be admitted to the cache,
// and must still scan into a Decimal.
func TestForeignNumericTexts(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"1E+2", "100"},
		{"1.5E-7", "0.00000015"},
		{"-2.5E+3", "-2500"},
		{"1e5", "100000"},
		{"+7", "7"},
		{".5", "0.5"},
		{"1.000E+25", "10000000000000000000000000"}, // over 8 bytes: bypasses by length
	} {
		t.Run(tt.text, func(t *testing.T) {
			table := compatEmptyTable(&numericTable)
			var c cache.Counts
			for i := range 5 {
				v, reused := numericValueIn(table, []byte(tt.text), &c)
				if s, ok := v.(string); !ok || s != tt.text {
					t.Fatalf("read %d: driver value %#v, want the string %q as pgx stdlib gives", i, v, tt.text)
				}
				if reused {
					t.Fatalf("read %d: reported as reused", i)
				}
			}
			if c.Hits != 0 || c.Admissions != 0 {
				t.Errorf("counts %+v, want no hit and no admission", c)
			}
			if got := table.Stats().Entries; got != 0 {
				t.Errorf("%d entries in the table, want 0", got)
			}

			var d Decimal
			if err := d.Scan(tt.text); err != nil {
				t.Fatalf("Decimal.Scan(%q): %v", tt.text, err)
			}
			want, err := ParseDecimal(tt.want)
			if err != nil {
				t.Fatal(err)
			}
			if d.Cmp(want) != 0 {
				t.Errorf("Decimal.Scan(%q) = %s, want a value equal to %s", tt.text, d, tt.want)
			}
		})
	}
}

// compatEmptyTable returns a new, empty table of the same type as t, so the test
// does not disturb the process-wide table whatever its entry type.
func compatEmptyTable[V any](_ *cache.Short[V]) *cache.Short[V] { return cache.NewShort[V]() }
