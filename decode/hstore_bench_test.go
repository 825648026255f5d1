package decode

// These benchmarks are in package decode, not decode_test, so that
// BenchmarkHstoreLookup can time both search strategies.

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// benchHstore returns the hstore_out text of n pairs and their keys. With
// escaped set every value contains two escaped quotes and a backslash.
func benchHstore(n int, escaped bool) (string, []string) {
	m := make(map[string]*string, n)
	keys := make([]string, 0, n)
	for i := range n {
		k := "key" + strconv.Itoa(i)
		v := "value number " + strconv.Itoa(i)
		if escaped {
			v = `value "` + strconv.Itoa(i) + `" \ ok`
		}
		m[k] = &v
		keys = append(keys, k)
	}
	return HstoreFromMap(m).Text(), keys
}

var benchPairs = []int{3, 10, 100}

// BenchmarkParseHstore compares ParseHstore with pgx's text parser on the
// same text. Compare with: benchstat -col /parser.
func BenchmarkParseHstore(b *testing.B) {
	for _, n := range benchPairs {
		for _, escaped := range []bool{false, true} {
			text, _ := benchHstore(n, escaped)
			name := fmt.Sprintf("pairs=%d/escaped=%v", n, escaped)
			b.Run(name+"/parser=pgcache", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					if _, err := ParseHstore(text); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(name+"/parser=pgtype", func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					var h pgtype.Hstore
					if err := h.Scan(text); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkHstoreLookup measures one lookup of a present key, cycling over
// all keys, for each search strategy; search=auto is what Lookup does. The
// results set linearLookupMax.
func BenchmarkHstoreLookup(b *testing.B) {
	for _, n := range []int{3, 6, 8, 10, 16, 100} {
		text, keys := benchHstore(n, false)
		h, err := ParseHstore(text)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range []struct {
			name string
			find func(string) (int, bool)
		}{
			{"linear", h.findLinear},
			{"binary", h.findBinary},
			{"auto", h.find},
		} {
			b.Run(fmt.Sprintf("pairs=%d/search=%s", n, s.name), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if _, ok := s.find(keys[i]); !ok {
						b.Fatal("not found")
					}
					if i++; i == len(keys) {
						i = 0
					}
				}
			})
		}
	}
}

// BenchmarkHstoreLookupMap is the baseline of a Go map lookup.
func BenchmarkHstoreLookupMap(b *testing.B) {
	for _, n := range []int{3, 10, 100} {
		text, keys := benchHstore(n, false)
		h, err := ParseHstore(text)
		if err != nil {
			b.Fatal(err)
		}
		m := h.Map()
		b.Run(fmt.Sprintf("pairs=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := m[keys[i]]; !ok {
					b.Fatal("not found")
				}
				if i++; i == len(keys) {
					i = 0
				}
			}
		})
	}
}

func BenchmarkHstoreFormat(b *testing.B) {
	for _, n := range benchPairs {
		text, _ := benchHstore(n, false)
		h, err := ParseHstore(text)
		if err != nil {
			b.Fatal(err)
		}
		m := h.Map()
		buf := make([]byte, 0, 4*len(text))
		b.Run(fmt.Sprintf("pairs=%d/op=AppendText", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buf = h.AppendText(buf[:0])
			}
		})
		b.Run(fmt.Sprintf("pairs=%d/op=AppendJSON", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				buf = h.AppendJSON(buf[:0])
			}
		})
		b.Run(fmt.Sprintf("pairs=%d/op=Map", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = h.Map()
			}
		})
		b.Run(fmt.Sprintf("pairs=%d/op=HstoreFromMap", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = HstoreFromMap(m)
			}
		})
	}
}
