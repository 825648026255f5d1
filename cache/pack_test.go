package cache_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pgcache/pgcache/cache"
)

// packLoop is the obvious definition of Pack, byte by byte.
func packLoop(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > cache.MaxShortKey || b[len(b)-1] == 0 {
		return 0, false
	}
	var key uint64
	for i, c := range b {
		key |= uint64(c) << (8 * i)
	}
	return key, true
}

var testPacks = []struct {
	in     string
	key    uint64
	wantOK bool
}{
	{"", 0, false},
	{"1", 0x31, true},
	{"12", 0x3231, true},
	{"1.5", 0x352e31, true},
	{"-1.5", 0x352e312d, true},
	{"12.50", 0x30352e3231, true},
	{"123.45", 0x35342e333231, true},
	{"-123.45", 0x35342e3332312d, true},
	{"12345.67", 0x37362e3534333231, true},
	{"\xff\xff\xff\xff\xff\xff\xff\xff", 0xffffffffffffffff, true},
	{"123456789", 0, false},
	{"NaN", 0x4e614e, true},
	{"1\x00", 0, false}, // a last NUL: the same key as "1" otherwise
	{"\x00", 0, false},
	{"\x001", 0x3100, true}, // an earlier NUL is kept apart by the last byte
	{"1\x002", 0x320031, true},
	{"1234567\x00", 0, false},
	{"123\x00567\x00", 0, false},
	{"\x00\x00\x00\x00\x00\x00\x001", 0x3100000000000000, true},
	{"\x801", 0x3180, true}, // 0x80 bytes must not trip the NUL test
	{"\x01\x01\x01\x01\x01\x01\x01\x01", ones, true},
}

const ones = 0x0101010101010101

func TestPack(t *testing.T) {
	for _, tt := range testPacks {
		t.Run(fmt.Sprintf("%q", tt.in), func(t *testing.T) {
			key, ok := cache.Pack([]byte(tt.in))
			if key != tt.key || ok != tt.wantOK {
				t.Errorf("Pack(%q) = %#x, %v; want %#x, %v", tt.in, key, ok, tt.key, tt.wantOK)
			}
			skey, sok := cache.PackString(tt.in)
			if skey != key || sok != ok {
				t.Errorf("PackString(%q) = %#x, %v; Pack gave %#x, %v", tt.in, skey, sok, key, ok)
			}
		})
	}
}

// TestPackLengths covers every length 0..9, a NUL byte at each position of
// each length, and bytes that are 0x80 or 0xff next to the NUL. Only a NUL
// in the last position is refused.
func TestPackLengths(t *testing.T) {
	for n := 0; n <= cache.MaxShortKey+1; n++ {
		for _, fill := range []byte{'7', 0x01, 0x80, 0xff} {
			text := bytes.Repeat([]byte{fill}, n)
			for i := range text {
				text[i] += byte(i) // make every byte differ, none 0
			}
			check(t, text)
			for nul := 0; nul < n; nul++ {
				withNUL := bytes.Clone(text)
				withNUL[nul] = 0
				if _, ok := cache.Pack(withNUL); ok != (withNUL[n-1] != 0 && n <= cache.MaxShortKey) {
					t.Errorf("Pack(%q) with a NUL at %d of %d: ok %v", withNUL, nul, n, ok)
				}
				check(t, withNUL)
			}
		}
	}
}

func check(t *testing.T, text []byte) {
	t.Helper()
	want, wantOK := packLoop(text)
	key, ok := cache.Pack(text)
	if key != want || ok != wantOK {
		t.Errorf("Pack(%q) = %#x, %v; want %#x, %v", text, key, ok, want, wantOK)
	}
	if ok && key == 0 {
		t.Errorf("Pack(%q) = 0, true", text)
	}
	skey, sok := cache.PackString(string(text))
	if skey != key || sok != ok {
		t.Errorf("PackString(%q) = %#x, %v; Pack gave %#x, %v", text, skey, sok, key, ok)
	}
	if n := len(text); n >= 4 && n <= cache.MaxShortKey {
		// PackMid's key counts only where it packs.
		if mkey, mok := cache.PackMid(text); mok != ok || ok && mkey != key {
			t.Errorf("PackMid(%q) = %#x, %v; Pack gave %#x, %v", text, mkey, mok, key, ok)
		}
	}
}

// TestPackMidOtherLengths: PackMid panics on a text of another length than
// 4 to 8 bytes, as its doc says, rather than return a key.
func TestPackMidOtherLengths(t *testing.T) {
	for _, text := range []string{"", "1", "12", "123", "123456789", "1234567890123456"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("PackMid(%q) did not panic", text)
				}
			}()
			cache.PackMid([]byte(text))
		}()
	}
}

// TestPackDistinct packs many short texts, including prefixes of each other
// and texts with trailing 0x01 bytes, and requires distinct keys.
func TestPackDistinct(t *testing.T) {
	seen := make(map[uint64]string)
	add := func(s string) {
		key, ok := cache.PackString(s)
		if !ok {
			return
		}
		if prev, dup := seen[key]; dup && prev != s {
			t.Fatalf("%q and %q both pack to %#x", prev, s, key)
		}
		seen[key] = s
	}
	var buf []byte
	for i := range int64(20000) {
		buf = strconv.AppendInt(buf[:0], i, 10)
		add(string(buf))
		add("-" + string(buf))
		add(string(buf[:len(buf)/2]) + "." + string(buf[len(buf)/2:]))
	}
	for n := 1; n <= cache.MaxShortKey; n++ {
		for c := 1; c < 256; c++ {
			add(strings.Repeat(string(rune(c)), n)) // runes >= 0x80 take 2 bytes: mixed lengths
			add(strings.Repeat("\x01", n-1) + string(byte(c)))
			add(string(byte(c)) + strings.Repeat("\x01", n-1))
		}
	}
	// Every text of up to 4 bytes over an alphabet with NUL, 0x01, 0x80 and
	// 0xff: NULs anywhere but last are accepted and must not collide.
	alphabet := []byte{0, 1, '5', 0x80, 0xff}
	var grow func(prefix []byte)
	grow = func(prefix []byte) {
		add(string(prefix))
		if len(prefix) < 4 {
			for _, c := range alphabet {
				grow(append(prefix, c))
			}
		}
	}
	grow(nil)
	if len(seen) < 60000 {
		t.Fatalf("only %d texts packed", len(seen))
	}
}

// FuzzPackDistinct requires two texts that Pack accepts with the same key
// to be the same text.
func FuzzPackDistinct(f *testing.F) {
	f.Add([]byte("1"), []byte("1\x00"))
	f.Add([]byte("\x001"), []byte("1"))
	f.Add([]byte("12.5"), []byte("12.50"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ka, oka := cache.Pack(a)
		kb, okb := cache.Pack(b)
		if oka && okb && ka == kb && !bytes.Equal(a, b) {
			t.Errorf("Pack(%q) and Pack(%q) both give %#x", a, b, ka)
		}
	})
}

func FuzzPack(f *testing.F) {
	for _, tt := range testPacks {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		check(t, text)
	})
}

func TestPackAllocs(t *testing.T) {
	text := []byte("12.50")
	var sink uint64
	if n := testing.AllocsPerRun(100, func() {
		k1, _ := cache.Pack(text)
		k2, _ := cache.PackString("-123.45")
		sink += k1 + k2
	}); n != 0 {
		t.Errorf("Pack and PackString allocated %v times", n)
	}
	_ = sink
}

// TestPackMidInlined checks that the compiler inlines PackMid, which is
// what it is for: Rows.advance calls it in its per-value loop, where a call
// spills the loop's registers (bench/cachegrind.sh counts the difference).
func TestPackMidInlined(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package with -gcflags=-m=2")
	}
	// go test puts its own GOROOT/bin first on the test's PATH.
	out, err := exec.Command("go", "build", "-gcflags=-m=2", "-o", os.DevNull, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m=2: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m): can inline PackMid\b`).Match(out) {
		t.Errorf("the compiler does not inline PackMid:\n%s", grepLines(out, "PackMid"))
	}
}

// grepLines returns out's lines that contain s.
func grepLines(out []byte, s string) string {
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, s) {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
