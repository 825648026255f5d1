package bench_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/pgcache/pgcache/bench"
)

// TestShop checks that the shop data set is what bench/README.md says it
// is: distinct ids, skus from a catalogue of 3000 each with one price of a
// few hundred, a handful of VAT rates, small quantities, statuses of its
// enum, times that advance and attribute maps that repeat.
func TestShop(t *testing.T) {
	d, ok := bench.LookupDataSet("shop")
	if !ok {
		t.Fatal("no shop data set")
	}
	if got := len(d.Enums); got != 1 || d.Columns[5].Type != d.Enums[0].Name {
		t.Fatalf("status column %q, enums %v", d.Columns[5].Type, d.Enums)
	}
	var (
		lastID   int64
		lastAt   time.Time
		price    = map[string]string{} // sku -> price
		prices   = map[string]bool{}
		vats     = map[string]bool{}
		attrs    = map[string]int{}
		qtyOne   int
		maxQty   int
		rows     int
		statuses = map[string]int{}
	)
	for row := range d.Generate() {
		rows++
		id, err := strconv.ParseInt(row[0], 10, 64)
		if err != nil || id <= lastID {
			t.Fatalf("row %d: id %q after %d", rows, row[0], lastID)
		}
		lastID = id
		if p, ok := price[row[1]]; ok && p != row[2] {
			t.Fatalf("sku %s at %s and %s", row[1], p, row[2])
		}
		price[row[1]] = row[2]
		prices[row[2]] = true
		vats[row[3]] = true
		q, err := strconv.Atoi(row[4])
		if err != nil || q < 1 {
			t.Fatalf("row %d: qty %q", rows, row[4])
		}
		maxQty = max(maxQty, q)
		if q == 1 {
			qtyOne++
		}
		if !slices.Contains(d.Enums[0].Labels, row[5]) {
			t.Fatalf("row %d: status %q", rows, row[5])
		}
		statuses[row[5]]++
		at, err := time.Parse("2006-01-02 15:04:05-07", row[6])
		if err != nil || !at.After(lastAt) {
			t.Fatalf("row %d: created_at %q after %v (%v)", rows, row[6], lastAt, err)
		}
		lastAt = at
		attrs[row[7]]++
	}
	t.Logf("%d rows: %d skus, %d prices, %d VAT rates, %d statuses, %d attribute maps, %.0f%% of quantities 1 (max %d), last created_at %v",
		rows, len(price), len(prices), len(vats), len(statuses), len(attrs), 100*float64(qtyOne)/float64(rows), maxQty, lastAt)
	switch {
	case rows != d.Rows:
		t.Errorf("%d rows, want %d", rows, d.Rows)
	case len(price) < 2000 || len(price) > 3000:
		t.Errorf("%d skus, want most of a catalogue of 3000", len(price))
	case len(prices) > 300:
		t.Errorf("%d prices, want at most 300", len(prices))
	case len(vats) < 3 || len(vats) > 8:
		t.Errorf("%d VAT rates, want a handful", len(vats))
	case maxQty > 50:
		t.Errorf("quantities up to %d, want small ones", maxQty)
	case len(statuses) != len(d.Enums[0].Labels):
		t.Errorf("%d statuses, want each of %v", len(statuses), d.Enums[0].Labels)
	case len(attrs) < 50 || len(attrs) > 1000:
		t.Errorf("%d attribute maps, want a few hundred", len(attrs))
	}
}
