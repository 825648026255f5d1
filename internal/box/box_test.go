package box_test

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/pgcache/pgcache/internal/box"
)

func TestString(t *testing.T) {
	for _, s := range []string{"", "a", "1.5", "12345678", "123456789", strings.Repeat("é", 300), "nul\x00inside"} {
		v := box.String([]byte(s))
		got, ok := v.(string)
		if !ok || got != s {
			t.Fatalf("String(%q) = %#v, want the string itself", s, v)
		}
		if v != any(s) {
			t.Fatalf("String(%q) != any(%q) under ==", s, s)
		}
		if reflect.TypeOf(v) != reflect.TypeFor[string]() {
			t.Fatalf("String(%q) has dynamic type %v", s, reflect.TypeOf(v))
		}
	}
}

func TestStringDoesNotKeepItsArgument(t *testing.T) {
	b := []byte("12.50")
	v := box.String(b)
	copy(b, "99.99")
	if v != "12.50" {
		t.Fatalf("String's value changed with its argument: %v", v)
	}
}

func TestStringAllocs(t *testing.T) {
	b := []byte("1234.5678")
	var sink any
	if n := testing.AllocsPerRun(1000, func() { sink = box.String(b) }); n != 1 {
		t.Errorf("String: %v allocations, want 1", n)
	}
	if n := testing.AllocsPerRun(1000, func() { sink = box.String(nil) }); n != 0 {
		t.Errorf("String of the empty text: %v allocations, want 0", n)
	}
	_ = sink
}

func TestSlab(t *testing.T) {
	var ints box.Slab[int64]
	var times box.Slab[time.Time]
	base := time.Date(2026, 12, 7, 12, 0, 0, 0, time.FixedZone("x", 3600))
	var iv, tv []any
	for i := range 5 * box.SlabLen {
		iv = append(iv, ints.Box(int64(i)<<20))
		tv = append(tv, times.Box(base.Add(time.Duration(i)*time.Second)))
	}
	// Every value is still its own after the slabs moved on.
	for i := range iv {
		if got, ok := iv[i].(int64); !ok || got != int64(i)<<20 {
			t.Fatalf("int value %d = %#v", i, iv[i])
		}
		want := base.Add(time.Duration(i) * time.Second)
		if got, ok := tv[i].(time.Time); !ok || !got.Equal(want) || got.Location() != want.Location() {
			t.Fatalf("time value %d = %#v, want %v", i, tv[i], want)
		}
		if iv[i] != any(int64(i)<<20) {
			t.Fatalf("int value %d differs from any(v) under ==", i)
		}
	}
}

func TestSlabAllocs(t *testing.T) {
	var s box.Slab[int64]
	var sink any
	n := testing.AllocsPerRun(100*box.SlabLen, func() { sink = s.Box(1 << 40) })
	if n > 1.0/box.SlabLen+0.01 {
		t.Errorf("Slab.Box: %v allocations per value, want 1/%d", n, box.SlabLen)
	}
	_ = sink
}

func TestAlone(t *testing.T) {
	var s box.Slab[float64]
	v := s.Box(2.5)
	a := box.Alone(v)
	if a != any(2.5) {
		t.Fatalf("Alone(%v) = %v", v, a)
	}
	// Alone's box is its own: the slab's element is not it.
	if dataWord(a) == dataWord(v) {
		t.Fatal("Alone returned the slab's box")
	}
	for _, v := range []any{"text", []byte("b"), true, nil} {
		if a := box.Alone(v); !reflect.DeepEqual(a, v) {
			t.Errorf("Alone(%#v) = %#v, want it unchanged", v, a)
		}
	}
}

// TestCollected checks, under the collector, that boxes keep their values
// alive and intact: many boxes are made and held while garbage is made and
// collected, then read back. A box whose memory the collector freed would
// be overwritten by the garbage made after it.
func TestCollected(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	var strs, ints, times []any
	var is box.Slab[int64]
	var ts box.Slab[time.Time]
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	var garbage [][]byte
	for i := range n {
		strs = append(strs, box.String(fmt.Appendf(nil, "value-%d", i)))
		ints = append(ints, is.Box(int64(i)*1000003))
		times = append(times, ts.Box(base.Add(time.Duration(i)*time.Minute)))
		garbage = append(garbage, []byte(strings.Repeat("x", 16+i%64)))
		if i%1000 == 999 {
			garbage = nil
			runtime.GC()
		}
	}
	runtime.GC()
	for range 100 {
		garbage = append(garbage, []byte(strings.Repeat("\xaa", 24)))
	}
	runtime.KeepAlive(garbage)
	for i := range n {
		if want := fmt.Sprintf("value-%d", i); strs[i] != want {
			t.Fatalf("string %d = %q, want %q", i, strs[i], want)
		}
		if ints[i] != any(int64(i)*1000003) {
			t.Fatalf("int %d = %v", i, ints[i])
		}
		if want := base.Add(time.Duration(i) * time.Minute); !times[i].(time.Time).Equal(want) {
			t.Fatalf("time %d = %v, want %v", i, times[i], want)
		}
	}
	// A string copied out of its box lives on without the box.
	s := strs[n-1].(string)
	strs = nil
	runtime.GC()
	runtime.GC()
	if want := fmt.Sprintf("value-%d", n-1); s != want {
		t.Fatalf("string copied out of its box = %q, want %q", s, want)
	}
}

// dataWord is the data word of v: where its value is.
func dataWord(v any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] }

func FuzzString(f *testing.F) {
	f.Add([]byte("12.5"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		want := string(b)
		v := box.String(b)
		if got, ok := v.(string); !ok || got != want {
			t.Fatalf("String(%q) = %#v", b, v)
		}
	})
}

func ExampleString() {
	raw := []byte("19.99") // a row's wire bytes, reused for the next row
	v := box.String(raw)   // one allocation, as any(string(raw)) in two
	fmt.Printf("%T %v\n", v, v)
	// Output: string 19.99
}
