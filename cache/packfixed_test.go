package cache_test

import (
	"bytes"
	"testing"

	"github.com/pgcache/pgcache/cache"
)

// unpackFixed inverts PackFixed for a value of n bytes, n known: the key
// without the mask and the length marker is the value, big-endian.
func unpackFixed(key uint64, n int) []byte {
	const mask = 0x9e3779b97f4a7c15
	v := key ^ mask
	out := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		out[i] = byte(v)
		v >>= 8
	}
	return out
}

func TestPackFixed(t *testing.T) {
	for _, tt := range []struct {
		in []byte
		ok bool
	}{
		{nil, false},
		{make([]byte, 9), false},
		{[]byte{0}, true},
		{[]byte{0, 0}, true},
		{[]byte{0, 0, 0, 0}, true},
		{make([]byte, 8), true},
		{[]byte{1, 2, 3}, true},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, true},
	} {
		key, ok := cache.PackFixed(tt.in)
		if ok != tt.ok {
			t.Errorf("PackFixed(%x): ok %t, want %t", tt.in, ok, tt.ok)
			continue
		}
		if ok && !bytes.Equal(unpackFixed(key, len(tt.in)), tt.in) {
			t.Errorf("PackFixed(%x) = %#x does not give the value back", tt.in, key)
		}
	}
	// The all-zero values of every length get different, non-zero keys:
	// 0, the epoch of a date and of a timestamp must be cacheable.
	seen := map[uint64]int{}
	for n := 1; n <= 8; n++ {
		key, _ := cache.PackFixed(make([]byte, n))
		if key == 0 {
			t.Errorf("the %d-byte zero packs to key 0, which a table never admits", n)
		}
		if m, dup := seen[key]; dup {
			t.Errorf("the %d- and %d-byte zeros share key %#x", m, n, key)
		}
		seen[key] = n
	}
}

// FuzzPackFixed checks that PackFixed is injective for values of the same
// length and across lengths below 8, as the type tables rely on: two
// different wire values must never share a key, or one would be read as the
// other.
func FuzzPackFixed(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1}, []byte{0, 1})
	f.Add(make([]byte, 8), make([]byte, 8))
	f.Add([]byte{1}, []byte{0, 1})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ka, oka := cache.PackFixed(a)
		kb, okb := cache.PackFixed(b)
		if oka != (len(a) >= 1 && len(a) <= 8) || okb != (len(b) >= 1 && len(b) <= 8) {
			t.Fatalf("PackFixed(%x) ok %t, PackFixed(%x) ok %t", a, oka, b, okb)
		}
		if !oka || !okb {
			return
		}
		if !bytes.Equal(unpackFixed(ka, len(a)), a) {
			t.Fatalf("PackFixed(%x) = %#x does not give the value back", a, ka)
		}
		comparable := len(a) == len(b) || (len(a) < 8 && len(b) < 8)
		if comparable && !bytes.Equal(a, b) && ka == kb {
			t.Fatalf("PackFixed(%x) == PackFixed(%x) == %#x", a, b, ka)
		}
	})
}

func TestPackFixedAllocs(t *testing.T) {
	v := []byte{0, 0, 0, 0, 0, 1, 226, 64}
	var sink uint64
	if n := testing.AllocsPerRun(100, func() {
		k, _ := cache.PackFixed(v)
		sink += k
	}); n != 0 {
		t.Errorf("PackFixed allocated %v times", n)
	}
	_ = sink
}
