package bench

import (
	"context"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/cache"
)

// Sample is what one measurement observed: the process's wall time, CPU
// time (user + system, every thread, so the garbage collector's share is
// included), heap allocations and pgcache's cache traffic while reading
// Values values.
type Sample struct {
	Values        int
	Wall, CPU     time.Duration
	Allocs, Bytes uint64
	Cache         pgcache.CacheStats // counts are differences; Slots and Entries are as at the end
}

// PerValue is a [Sample] divided by the values read.
type PerValue struct {
	Wall, CPU     float64 // ns per value
	Allocs, Bytes float64 // heap allocations and bytes per value
	// HitRatio is hits / (hits + misses) in the table(s) of the workload's
	// kind, NaN when nothing was looked up (pgcache off, or every value
	// bypassed the cache).
	HitRatio float64
}

// PerValue divides s by its values; kind selects the cache table the hit
// ratio comes from (Other: both).
func (s Sample) PerValue(kind Kind) PerValue {
	n := float64(max(s.Values, 1))
	var hits, lookups uint64
	add := func(t cache.Stats) { hits, lookups = hits+t.Hits, lookups+t.Hits+t.Misses }
	if kind != Hstore {
		add(s.Cache.Numeric)
	}
	if kind != Numeric {
		add(s.Cache.Hstore)
	}
	if kind == Lines || kind == Other {
		c := s.Cache
		for _, t := range []cache.Stats{c.Text, c.LongText, c.Int8, c.Int4, c.Float8, c.Date, c.Timestamp, c.Timestamptz} {
			add(t)
		}
	}
	ratio := math.NaN()
	if lookups > 0 {
		ratio = float64(hits) / float64(lookups)
	}
	return PerValue{
		Wall:     float64(s.Wall.Nanoseconds()) / n,
		CPU:      float64(s.CPU.Nanoseconds()) / n,
		Allocs:   float64(s.Allocs) / n,
		Bytes:    float64(s.Bytes) / n,
		HitRatio: ratio,
	}
}

// Measure calls fn, which returns the number of values it read, until at least
// minTime has passed (at least once), and returns what the calls cost. It
// collects garbage first, so one measurement does not pay for another's.
func Measure(minTime time.Duration, fn func() (int, error)) (Sample, error) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0 := pgcache.Stats()
	cpu0 := CPUTime()
	t0 := time.Now()
	var s Sample
	for {
		n, err := fn()
		if err != nil {
			return Sample{}, err
		}
		s.Values += n
		if s.Wall = time.Since(t0); s.Wall >= minTime {
			break
		}
	}
	s.CPU = CPUTime() - cpu0
	c1 := pgcache.Stats()
	runtime.ReadMemStats(&m1)
	s.Allocs = m1.Mallocs - m0.Mallocs
	s.Bytes = m1.TotalAlloc - m0.TotalAlloc
	s.Cache = pgcache.CacheStats{
		Numeric: statsDelta(c0.Numeric, c1.Numeric), Hstore: statsDelta(c0.Hstore, c1.Hstore),
		Text: statsDelta(c0.Text, c1.Text), LongText: statsDelta(c0.LongText, c1.LongText),
		Int8: statsDelta(c0.Int8, c1.Int8), Int4: statsDelta(c0.Int4, c1.Int4),
		Float8: statsDelta(c0.Float8, c1.Float8), Date: statsDelta(c0.Date, c1.Date),
		Timestamp: statsDelta(c0.Timestamp, c1.Timestamp), Timestamptz: statsDelta(c0.Timestamptz, c1.Timestamptz),
	}
	return s, nil
}

func statsDelta(a, b cache.Stats) cache.Stats {
	return cache.Stats{
		Hits:       b.Hits - a.Hits,
		Misses:     b.Misses - a.Misses,
		Admissions: b.Admissions - a.Admissions,
		Bypasses:   b.Bypasses - a.Bypasses,
		Slots:      b.Slots,
		Entries:    b.Entries,
	}
}

// Result is a cell's measurements over all rounds.
type Result struct {
	Cell    Cell
	Samples []Sample
	Err     error // the cell failed and has no samples
}

// Median returns the median of each per-value figure over the samples,
// taken separately (the median CPU may come from another round than the
// median wall time).
func (r Result) Median(kind Kind) PerValue {
	pick := func(f func(PerValue) float64) float64 {
		var xs []float64
		for _, s := range r.Samples {
			if x := f(s.PerValue(kind)); !math.IsNaN(x) {
				xs = append(xs, x)
			}
		}
		return median(xs)
	}
	return PerValue{
		Wall:     pick(func(p PerValue) float64 { return p.Wall }),
		CPU:      pick(func(p PerValue) float64 { return p.CPU }),
		Allocs:   pick(func(p PerValue) float64 { return p.Allocs }),
		Bytes:    pick(func(p PerValue) float64 { return p.Bytes }),
		HitRatio: pick(func(p PerValue) float64 { return p.HitRatio }),
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	} else {
		return xs[n/2]
	}
}

// Run measures cells on one workload, interleaved: each round measures every
// cell once, starting one cell further along than the round before, so
// that drift in the machine's speed (other processes, thermal limits, the
// server's caches) spreads over all cells instead of favouring the ones
// measured first.
type Run struct {
	Env      *Env
	Workload Workload
	Cells    []Cell
	Rounds   int
	// MinTime is the least time one measurement takes; a workload shorter
	// than this is repeated.
	MinTime time.Duration
	// Progress, if not nil, is called before each measurement; round 0 is the
	// warm-up.
	Progress func(round int, c Cell)
}

// Do runs the rounds. Before them every cell reads the workload once,
// unmeasured, to warm up the statement caches, the server's buffers and
// pgcache's cache. A cell that fails then is reported with its error and left
// out; if every cell fails, Do returns the first error. Before each
// measurement pgcache's cache is emptied, so each starts cold and a Decimal
// scanned through another driver never finds entries pgcache made.
func (r Run) Do(ctx context.Context) ([]Result, error) {
	results := make([]Result, len(r.Cells))
	var live []int
	for i, c := range r.Cells {
		results[i].Cell = c
		if r.Progress != nil {
			r.Progress(0, c)
		}
		if _, err := r.Env.Scan(ctx, c, r.Workload); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			results[i].Err = err
			continue
		}
		live = append(live, i)
	}
	if len(live) == 0 && len(results) > 0 {
		return nil, results[0].Err // nothing to measure: say why once
	}
	for round := 1; round <= r.Rounds; round++ {
		for j := range live {
			i := live[(j+round-1)%len(live)]
			c := r.Cells[i]
			if r.Progress != nil {
				r.Progress(round, c)
			}
			pgcache.ResetCache()
			s, err := Measure(r.MinTime, func() (int, error) { return r.Env.Scan(ctx, c, r.Workload) })
			if err != nil {
				return nil, err
			}
			results[i].Samples = append(results[i].Samples, s)
		}
	}
	return results, nil
}
