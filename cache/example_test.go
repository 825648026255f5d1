package cache_test

import (
	"fmt"
	"strconv"

	"github.com/pgcache/pgcache/cache"
)

// Example shows the read path a decoder follows for one column: look the text
// up, and on a miss decode it, putting the result only on the second sighting
// in a row. The counts are kept privately and published once at the end.
func Example() {
	numbers := cache.NewShort[*float64]()
	var counts cache.Counts

	decode := func(text string) *float64 {
		key, ok := cache.PackString(text)
		if !ok { // too long, or ending in a NUL byte: decode without the cache
			counts.Bypasses++
			f, _ := strconv.ParseFloat(text, 64)
			return &f
		}
		if v, hit := numbers.Get(key); hit {
			counts.Hits++
			return v // shared: the caller must not modify *v
		}
		f, _ := strconv.ParseFloat(text, 64)
		if numbers.Sight(key) { // second sighting in a row: admit
			counts.Admissions++
			numbers.Put(key, &f)
		} else {
			counts.Misses++
		}
		return &f
	}

	for i, text := range []string{"1.5", "1.5", "1.5", "1.5", "2.25", "123456789.5"} {
		if i > 0 {
			fmt.Print(" ")
		}
		fmt.Print(*decode(text))
	}
	fmt.Println()

	numbers.Record(counts)
	s := numbers.Stats()
	fmt.Printf("hits %d, misses %d, admissions %d, bypasses %d, entries %d of %d, hit ratio %.2f\n",
		s.Hits, s.Misses, s.Admissions, s.Bypasses, s.Entries, s.Slots, s.HitRatio())
	// Output:
	// 1.5 1.5 1.5 1.5 2.25 1.234567895e+08
	// hits 2, misses 2, admissions 1, bypasses 1, entries 1 of 4096, hit ratio 0.40
}
