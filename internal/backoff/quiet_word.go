//go:build amd64 || arm64

package backoff

import (
	"math"
	"unsafe"
)

// Quiet reports whether the column is looked up (it is not in a skip) and
// its next lookup cannot close its window (see backoff.go).
//
// It is quietFields in one load and one compare, where a 64-bit load of
// two int32 fields is a plain load (at any alignment) and little-endian:
// pgcache's advance tests it on every value. The word has left in its low
// half and skip in its high one; skip == 0 and left > 1 is then the word
// in [2, MaxInt32]: a skip makes it at least 1<<32, a left below 2 (or a
// negative one) leaves it below 2 or at least 1<<31. (Its body is here,
// not a call to a helper: an inlined call with no instruction on its line
// costs a caller's loop a NOP, the compiler's inline mark.)
func (t *Tracker) Quiet() bool {
	w := *(*uint64)(unsafe.Pointer(&t.left))
	return w-2 <= math.MaxInt32-2
}

// The word's layout: left, then skip, at the start of Tracker.
var _ [unsafe.Offsetof(Tracker{}.skip) - unsafe.Offsetof(Tracker{}.left) - 4]struct{}
var _ [4 + unsafe.Offsetof(Tracker{}.left) - unsafe.Offsetof(Tracker{}.skip)]struct{}
