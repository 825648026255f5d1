package bench_test

import (
	sqldriver "database/sql/driver"
	"slices"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/bench"
	"github.com/pgcache/pgcache/cache"
)

// BenchmarkDecode compares, with no database, the decode layer alone: what
// happens to one value's wire text between the driver reading it and the
// program holding it. ns/op is per value. Compare with
//
//	benchstat -col /path new.txt
//
// The pgcache-hit paths are a replica, built in this package from the
// exported cache API, of what pgcache does on a hit: its own lookup code is
// unexported. They use a cache table of the same kind and size, filled with
// the texts the benchmark then reads, and entries holding what pgcache's
// entries hold (the text boxed once as a driver.Value, and the parsed value).
//
//   - pgcache-hit-value: Rows.Next on a hit: pack (or hash) the text, look it
//     up, hand out the pre-boxed string.
//   - pgcache-hit-Decimal / pgcache-hit-Hstore: then scanning that string into
//     *pgcache.Decimal or *pgcache.Hstore: a second lookup, by the string,
//     returning the shared parsed value.
//   - stdlib-string: what pgx stdlib does: copy the text into a new string
//     and box it as a driver.Value.
//   - the others decode a fresh string(text) as a program using that type
//     does after database/sql hands it the driver's string.
//
// The texts are those of the repetitive data sets, in their order, with the
// few whose slots collide left out, so every pgcache-hit lookup hits.
func BenchmarkDecode(b *testing.B) {
	nums := firstTexts(b, "repetitive", 4096)
	hs := firstTexts(b, "hstore-rep", 4096)

	type numEntry struct {
		value sqldriver.Value
		dec   pgcache.Decimal
	}
	numTable := cache.NewShort[numEntry]()
	for _, raw := range nums {
		key, _ := cache.Pack(raw)
		d, err := pgcache.ParseDecimal(string(raw))
		if err != nil {
			b.Fatal(err)
		}
		numTable.Put(key, numEntry{value: string(raw), dec: d})
	}
	nums = slices.DeleteFunc(nums, func(raw []byte) bool {
		key, _ := cache.Pack(raw)
		e, ok := numTable.Get(key)
		return !ok || e.value != string(raw)
	})

	type hsEntry struct {
		value sqldriver.Value
		hs    pgcache.Hstore
	}
	hsTable := cache.NewLong[hsEntry](pgcache.MaxHstoreText)
	for _, raw := range hs {
		h, err := pgcache.ParseHstore(string(raw))
		if err != nil {
			b.Fatal(err)
		}
		hsTable.Put(hsTable.Hash(raw), string(raw), hsEntry{value: string(raw), hs: h})
	}
	hs = slices.DeleteFunc(hs, func(raw []byte) bool {
		_, ok := hsTable.Get(hsTable.Hash(raw), raw)
		return !ok
	})

	numPaths := []struct {
		name string
		fn   func(raw []byte)
	}{
		{"pgcache-hit-value", func(raw []byte) {
			key, _ := cache.Pack(raw)
			e, _ := numTable.Get(key)
			sinkValue = e.value
		}},
		{"pgcache-hit-Decimal", func(raw []byte) {
			key, _ := cache.Pack(raw)
			e, _ := numTable.Get(key)
			key, _ = cache.PackString(e.value.(string))
			e, _ = numTable.Get(key)
			sinkDecimal = e.dec
		}},
		{"stdlib-string", func(raw []byte) { sinkValue = string(raw) }},
		{"apd.NewFromString", func(raw []byte) {
			var err error
			if sinkApd, _, err = apd.NewFromString(string(raw)); err != nil {
				b.Fatal(err)
			}
		}},
		{"shopspring.NewFromString", func(raw []byte) {
			var err error
			if sinkShopspring, err = decimal.NewFromString(string(raw)); err != nil {
				b.Fatal(err)
			}
		}},
		{"pgtype.Numeric.Scan", func(raw []byte) {
			if err := sinkNumeric.Scan(string(raw)); err != nil {
				b.Fatal(err)
			}
		}},
		{"pgcache.ParseDecimal", func(raw []byte) {
			var err error
			if sinkDecimal, err = pgcache.ParseDecimal(string(raw)); err != nil {
				b.Fatal(err)
			}
		}},
	}
	for _, p := range numPaths {
		b.Run("kind=numeric/path="+p.name, func(b *testing.B) { loopTexts(b, nums, p.fn) })
	}

	// The all-distinct worst case: every lookup misses, is recorded with
	// Sight and never admitted (Sight never sees a key twice in a row), and
	// the text is copied and boxed as stdlib does. The difference from
	// stdlib-string is what the cache costs a column that never repeats.
	distinct := firstTexts(b, "distinct", 1<<16)
	var missTable *cache.Short[numEntry] // new for each run: see below
	missPaths := []struct {
		name string
		fn   func(raw []byte)
	}{
		{"pgcache-miss-value", func(raw []byte) {
			key, _ := cache.Pack(raw)
			if e, ok := missTable.Get(key); ok {
				sinkValue = e.value
				return
			}
			if missTable.Sight(key) {
				b.Fatalf("%s admitted", raw)
			}
			sinkValue = string(raw)
		}},
		{"stdlib-string", func(raw []byte) { sinkValue = string(raw) }},
	}
	for _, p := range missPaths {
		b.Run("kind=numeric-distinct/path="+p.name, func(b *testing.B) {
			// The texts cycle, so within a run no slot sees a key twice in a
			// row; a table kept from the run before could, where that run
			// stopped.
			missTable = cache.NewShort[numEntry]()
			loopTexts(b, distinct, p.fn)
		})
	}

	hsPaths := []struct {
		name string
		fn   func(raw []byte)
	}{
		{"pgcache-hit-value", func(raw []byte) {
			e, _ := hsTable.Get(hsTable.Hash(raw), raw)
			sinkValue = e.value
		}},
		{"pgcache-hit-Hstore", func(raw []byte) {
			e, _ := hsTable.Get(hsTable.Hash(raw), raw)
			s := e.value.(string)
			e, _ = hsTable.GetString(hsTable.HashString(s), s)
			sinkHstore = e.hs
		}},
		{"stdlib-string", func(raw []byte) { sinkValue = string(raw) }},
		{"pgtype.Hstore.Scan", func(raw []byte) {
			if err := sinkPgtypeHstore.Scan(string(raw)); err != nil {
				b.Fatal(err)
			}
		}},
		{"pgcache.ParseHstore", func(raw []byte) {
			var err error
			if sinkHstore, err = pgcache.ParseHstore(string(raw)); err != nil {
				b.Fatal(err)
			}
		}},
	}
	for _, p := range hsPaths {
		b.Run("kind=hstore/path="+p.name, func(b *testing.B) { loopTexts(b, hs, p.fn) })
	}
}

// Sinks keep results alive, one per type so that storing a result boxes
// nothing a program holding that type would not box. sinkValue is what
// database/sql receives from a driver: a driver.Value.
var (
	sinkValue        sqldriver.Value
	sinkDecimal      pgcache.Decimal
	sinkHstore       pgcache.Hstore
	sinkApd          *apd.Decimal
	sinkShopspring   decimal.Decimal
	sinkNumeric      pgtype.Numeric
	sinkPgtypeHstore pgtype.Hstore
)

// loopTexts decodes texts round robin, one per iteration.
func loopTexts(b *testing.B, texts [][]byte, fn func([]byte)) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		fn(texts[i])
		if i++; i == len(texts) {
			i = 0
		}
	}
}

// firstTexts returns the first n values of data set name, column by column
// as a scan reads them, each as its own []byte as a driver's read buffer would
// hold it.
func firstTexts(b *testing.B, name string, n int) [][]byte {
	d, ok := bench.LookupDataSet(name)
	if !ok {
		b.Fatalf("no data set %q", name)
	}
	var texts [][]byte
	for row := range d.Generate() {
		for _, v := range row {
			texts = append(texts, []byte(v))
		}
		if len(texts) >= n {
			break
		}
	}
	return texts
}
