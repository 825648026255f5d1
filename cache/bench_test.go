package cache_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pgcache/pgcache/cache"
)

// Benchmarks, for benchstat:
//
//	go test -run '^$' -bench . -count 10 ./cache > new.txt
//	benchstat -col /run new.txt
//
// A table benchmark op processes a batch of values (the way a reader walks a
// result set), so the loop's own cost is spread thin; ns/value is the figure
// to read. Each runs on one goroutine (run=serial) and with b.RunParallel
// (run=parallel).

const batch = 1000

// runBoth runs batch as run=serial and as run=parallel and reports ns/value.
// batch processes the values start, start+1, ... of one op and returns a
// count to keep its work alive; every goroutine starts at an offset of its own.
func runBoth(b *testing.B, perOp int, batch func(start int) int) {
	report := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perOp), "ns/value")
	}
	b.Run("run=serial", func(b *testing.B) {
		b.ReportAllocs()
		n, i := 0, 0
		for b.Loop() {
			n += batch(i)
			i += perOp
		}
		sink.Add(int64(n))
		report(b)
	})
	b.Run("run=parallel", func(b *testing.B) {
		b.ReportAllocs()
		var g atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			n, i := 0, int(g.Add(1))*7919
			for pb.Next() {
				n += batch(i)
				i += perOp
			}
			sink.Add(int64(n))
		})
		report(b)
	})
}

var sink atomic.Int64

// decimals returns n distinct packed decimal texts and the texts.
func decimals(b *testing.B, n int) ([]uint64, []string) {
	keys := make([]uint64, n)
	texts := make([]string, n)
	for i := range n {
		texts[i] = fmt.Sprintf("%d.%02d", i/100, i%100)
		var ok bool
		if keys[i], ok = cache.PackString(texts[i]); !ok {
			b.Fatalf("PackString(%q) failed", texts[i])
		}
	}
	return keys, texts
}

func BenchmarkShort(b *testing.B) {
	// Get of a resident key.
	b.Run("op=hit", func(b *testing.B) {
		t := cache.NewShort[*int]()
		all, _ := decimals(b, 4096)
		for i, key := range all {
			t.Put(key, &i)
		}
		var keys []uint64 // those not evicted by a later key in their slot
		for _, key := range all {
			if _, ok := t.Get(key); ok {
				keys = append(keys, key)
			}
		}
		keys = keys[:1024]
		runBoth(b, batch, func(i int) int {
			hits := 0
			for range batch {
				if _, ok := t.Get(keys[i&1023]); ok {
					hits++
				}
				i++
			}
			return hits
		})
	})

	// Get that misses, then a first sighting: one load of the entry, one load
	// and one store of the seen word. 64K keys cycle through 4096 slots, so
	// the previous sighting in a slot is nearly always another key and
	// nothing is admitted.
	b.Run("op=miss", func(b *testing.B) {
		t := cache.NewShort[*int]()
		keys, _ := decimals(b, 1<<16)
		runBoth(b, batch, func(i int) int {
			admits := 0
			for range batch {
				key := keys[i&(1<<16-1)]
				if _, ok := t.Get(key); !ok && t.Sight(key) {
					admits++
				}
				i++
			}
			return admits
		})
	})

	// An admission: a miss, two sightings and a Put, which allocates the
	// entry. One value per op.
	b.Run("op=admit", func(b *testing.B) {
		b.ReportAllocs()
		t := cache.NewShort[*int]()
		keys, _ := decimals(b, 1<<16)
		v := new(int)
		i := 0
		for b.Loop() {
			key := keys[i&(1<<16-1)]
			if _, ok := t.Get(key); !ok {
				t.Sight(key)
				if t.Sight(key) {
					t.Put(key, v)
				}
			}
			i++
		}
	})

	// A result set of distinct values through the whole path a decoder
	// takes: PackString, Get, Sight, private counts and one Record.
	b.Run("op=distinct", func(b *testing.B) {
		t := cache.NewShort[*int]()
		_, texts := decimals(b, 1<<16)
		runBoth(b, batch, func(i int) int {
			var c cache.Counts
			for range batch {
				key, _ := cache.PackString(texts[i&(1<<16-1)])
				if _, ok := t.Get(key); ok {
					c.Hits++
				} else if t.Sight(key) {
					c.Admissions++
					t.Put(key, nil)
				} else {
					c.Misses++
				}
				i++
			}
			t.Record(c)
			return int(c.Admissions)
		})
	})
}

func BenchmarkPack(b *testing.B) {
	for _, text := range []string{"1", "1.5", "12.50", "12345.67", "123456789"} {
		b.Run(fmt.Sprintf("len=%d", len(text)), func(b *testing.B) {
			b.ReportAllocs()
			bs := []byte(text)
			var sum uint64
			for b.Loop() {
				k, _ := cache.Pack(bs)
				sum += k
			}
			sink.Add(int64(sum))
		})
	}
}

// longTexts returns n distinct 100-byte texts shaped like hstore output.
func longTexts(n int) [][]byte {
	texts := make([][]byte, n)
	for i := range texts {
		s := fmt.Sprintf(`"id"=>"%06d", "name"=>"`, i)
		s += strings.Repeat("x", 100-len(s)-1) + `"`
		texts[i] = []byte(s)
	}
	return texts
}

func BenchmarkLong(b *testing.B) {
	// Hash and Get of a resident 100-byte text: the hash and the byte
	// comparison dominate.
	b.Run("op=hit/len=100", func(b *testing.B) {
		t := cache.NewLong[*int](256)
		all := longTexts(4096)
		for _, text := range all {
			t.Put(t.Hash(text), string(text), new(int))
		}
		var texts [][]byte
		for _, text := range all {
			if _, ok := t.Get(t.Hash(text), text); ok {
				texts = append(texts, text)
			}
		}
		texts = texts[:1024]
		runBoth(b, batch, func(i int) int {
			hits := 0
			for range batch {
				text := texts[i&1023]
				if _, ok := t.Get(t.Hash(text), text); ok {
					hits++
				}
				i++
			}
			return hits
		})
	})

	// Hash, Get and a first sighting of a 100-byte text.
	b.Run("op=miss/len=100", func(b *testing.B) {
		t := cache.NewLong[*int](256)
		texts := longTexts(1 << 16)
		runBoth(b, batch, func(i int) int {
			admits := 0
			for range batch {
				text := texts[i&(1<<16-1)]
				h := t.Hash(text)
				if _, ok := t.Get(h, text); !ok && t.Sight(h) {
					admits++
				}
				i++
			}
			return admits
		})
	})
}
