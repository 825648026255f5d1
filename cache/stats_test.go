package cache_test

import (
	"fmt"
	"testing"

	"github.com/pgcache/pgcache/cache"
)

// TestStatsSince: the counts between two snapshots are what was published in
// between, whatever was published before the first.
func TestStatsSince(t *testing.T) {
	table := cache.NewShort[int]()
	table.Record(cache.Counts{Hits: 7, Misses: 5, Admissions: 3, Bypasses: 2})
	before := table.Stats()
	if got := before.Since(before); got != (cache.Counts{}) {
		t.Errorf("a snapshot since itself: %v, want all zero", got)
	}
	published := cache.Counts{Hits: 4, Misses: 1, Bypasses: 9}
	table.Record(published)
	table.Record(cache.Counts{Admissions: 1})
	published.Admissions++
	if got := table.Stats().Since(before); got != published {
		t.Errorf("Since = %v, want %v", got, published)
	}
}

func TestCountsString(t *testing.T) {
	c := cache.Counts{Hits: 3, Misses: 1, Admissions: 1, Bypasses: 18446744073709551615}
	const want = "{hits 3, misses 1, admissions 1, bypasses 18446744073709551615}"
	if got := c.String(); got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got := fmt.Sprint(cache.Counts{}); got != "{hits 0, misses 0, admissions 0, bypasses 0}" {
		t.Errorf("fmt.Sprint of zero Counts = %q", got)
	}
}
