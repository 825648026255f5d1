package cache_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pgcache/pgcache/cache"
)

// stressVal is derived entirely from its key, so a reader can tell whether a
// value it got belongs to the key it asked for.
type stressVal struct {
	key   uint64
	text  string
	check uint64
}

func newStressVal(key uint64, text string) *stressVal {
	return &stressVal{key: key, text: strings.Clone(text), check: mix(key, text)}
}

func mix(key uint64, text string) uint64 {
	h := key ^ 0xcbf29ce484222325
	for i := 0; i < len(text); i++ {
		h = (h ^ uint64(text[i])) * 0x100000001b3
	}
	return h
}

func (v *stressVal) verify(key uint64, text string) error {
	if v.key != key || v.text != text || v.check != mix(key, text) {
		return fmt.Errorf("looked up %q (%#x), got the value of %q (%#x, check %#x)", text, key, v.text, v.key, v.check)
	}
	return nil
}

// TestConcurrent hammers a Short and a Long from many goroutines with
// overlapping key sets, in the style of fastcache's TestCacheGetSetConcurrent:
// every hit is checked against the key, errors travel over a channel, and the
// test gives up after a timeout. One more goroutine resets the tables and takes
// snapshots while the others run. Run it with -race.
func TestConcurrent(t *testing.T) {
	const (
		keys   = 8192 // about two values per slot, so slots are contended
		window = 1024 // keys per goroutine, overlapping its neighbours'
		rounds = 3
	)
	workers := max(16, 2*runtime.GOMAXPROCS(0))
	short := cache.NewShort[*stressVal]()
	long := cache.NewLong[*stressVal](64)

	shortTexts := make([]string, keys)
	longTexts := make([]string, keys)
	for i := range keys {
		shortTexts[i] = fmt.Sprintf("%d.%02d", i/100, i%100)
		longTexts[i] = fmt.Sprintf(`"id"=>"%d", "kind"=>"stress"`, i)
	}

	type result struct {
		short, long cache.Counts
		err         error
	}
	results := make(chan result, workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var res result
			for r := range rounds {
				for j := range window {
					// Walk the window forwards or backwards, and visit
					// each key twice in a row every other round so that
					// admissions happen.
					i := (w*keys/workers + j) % keys
					if (w+r)%2 == 1 {
						i = (w*keys/workers + window - 1 - j) % keys
					}
					for range 1 + r%2 {
						if res.err = stressShort(short, shortTexts[i], &res.short); res.err != nil {
							results <- res
							return
						}
						if res.err = stressLong(long, longTexts[i], &res.long); res.err != nil {
							results <- res
							return
						}
					}
				}
			}
			short.Record(res.short)
			long.Record(res.long)
			results <- res
		})
	}
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			short.Reset()
			long.Reset()
			_ = short.Stats()
			_ = long.Stats()
		}
	})

	var total [2]cache.Counts
	timeout := time.After(10 * time.Second)
	for range workers {
		select {
		case res := <-results:
			if res.err != nil {
				t.Error(res.err)
			}
			for i, c := range [2]cache.Counts{res.short, res.long} {
				total[i].Hits += c.Hits
				total[i].Misses += c.Misses
				total[i].Admissions += c.Admissions
			}
		case <-timeout:
			t.Fatal("timeout")
		}
	}
	close(stop)
	wg.Wait()

	for i, s := range []cache.Stats{short.Stats(), long.Stats()} {
		t.Logf("%+v, hit ratio %.2f", s, s.HitRatio())
		if s.Hits == 0 || s.Admissions == 0 {
			t.Errorf("the stress test never hit or never admitted: %+v", s)
		}
		got := cache.Counts{Hits: s.Hits, Misses: s.Misses, Admissions: s.Admissions}
		if got != total[i] {
			t.Errorf("Stats has %+v, the workers recorded %+v", got, total[i])
		}
	}
}

func stressShort(t *cache.Short[*stressVal], text string, c *cache.Counts) error {
	key, ok := cache.PackString(text)
	if !ok {
		return fmt.Errorf("PackString(%q) failed", text)
	}
	if v, ok := t.Get(key); ok {
		c.Hits++
		return v.verify(key, text)
	}
	if !t.Sight(key) {
		c.Misses++
		return nil
	}
	c.Admissions++
	t.Put(key, newStressVal(key, text))
	return nil
}

func stressLong(t *cache.Long[*stressVal], text string, c *cache.Counts) error {
	h := t.HashString(text)
	if v, ok := t.GetString(h, text); ok {
		c.Hits++
		return v.verify(h, text)
	}
	if !t.Sight(h) {
		c.Misses++
		return nil
	}
	c.Admissions++
	v := newStressVal(h, text)
	t.Put(h, v.text, v)
	return nil
}
