package decode

import (
	"unsafe"

	"github.com/cockroachdb/apd/v3"
)

// apd.Decimal.Set copies a coefficient held in apd.BigInt's inline words
// with one struct assignment, but only after two calls and a test of its
// own; Numeric.Apd makes that assignment itself, 23 instructions fewer a
// value on the Go 1.27 route into *apd.Decimal (518 → 495,
// DEST=apd.Decimal GOTOOLCHAIN=go1.27.3 bench/cachegrind.sh repetitive
// 1000000 pgcache). Whether a
// coefficient is inline is the BigInt's first word, a *big.Int that is nil
// exactly when the value sits in the inline words and is not negative (a
// Numeric's coefficient never is). apd does not export that, so
// apdLayoutKnown checks once that the layout is the one coeffInline reads:
// the size of a pointer and two words, the first word nil for a small value
// and set for one too large for the inline words or negative. Under any
// other layout Apd calls Set for every value.
var apdLayoutKnown = checkApdLayout()

// coeffInline reports whether the non-negative coefficient c keeps its value
// in its inline words, so that a struct copy of it shares no memory with c.
func coeffInline(c *apd.BigInt) bool {
	return apdLayoutKnown && firstWord(c) == nil
}

func firstWord(c *apd.BigInt) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(c)) }

func checkApdLayout() bool {
	if unsafe.Sizeof(apd.BigInt{}) != 3*unsafe.Sizeof(uintptr(0)) {
		return false
	}
	var small, large, neg apd.BigInt
	small.SetUint64(1<<63 + 12345)
	if _, ok := large.SetString("1000000000000000000000000000000000000000000", 10); !ok {
		return false
	}
	neg.SetInt64(-1)
	return firstWord(&small) == nil && firstWord(&large) != nil && firstWord(&neg) != nil
}
