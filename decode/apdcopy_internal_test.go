package decode

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// TestApdLayoutKnown fails when apd's BigInt no longer has the layout
// coeffInline reads, so that an upgrade of apd which turns Apd's struct copy
// off is noticed: Apd stays correct (it calls Set), but slower.
func TestApdLayoutKnown(t *testing.T) {
	if !apdLayoutKnown {
		t.Fatal("apd.BigInt's layout is not the one coeffInline reads; Numeric.Apd calls Set for every value")
	}
}

// TestApdCopyMatchesSet compares Apd's copy with apd's own Set, field by
// field, for coefficients that are inline and ones that are not, parsed
// from the server's text and from a user's (ParseNumericInput, whose
// exponents multiply by a power of ten), and checks that the copy of a
// big.Int coefficient shares none of it.
func TestApdCopyMatchesSet(t *testing.T) {
	for _, c := range []struct {
		text   string
		input  bool // parsed with ParseNumericInput
		inline bool
	}{
		{"0", false, true},
		{"1299.00", false, true},
		{"-0.000001", false, true},
		{"18446744073709551616", false, true},                     // 2^64: both inline words
		{"99999999999999999999999999999999999999", false, true},   // 38 digits
		{"999999999999999999999999999999999999999", false, false}, // 39 digits
		{"340282366920938463463374607431768211456", false, false}, // 2^128
		{"NaN", false, true},
		{"-Infinity", false, true},
		{"1e5", true, true},
		{"-2.5e40", true, false},
	} {
		parse := ParseNumeric
		if c.input {
			parse = ParseNumericInput
		}
		n, err := parse(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if got := coeffInline(&n.d.Coeff); got != c.inline {
			t.Errorf("%q: coeffInline = %v, want %v", c.text, got, c.inline)
		}
		var want apd.Decimal
		want.Set(&n.d)
		dst := apd.Decimal{Exponent: 7, Negative: true}
		dst.Coeff.SetString("123456789012345678901234567890123456789012345", 10) // a big.Int the copy replaces
		n.Apd(&dst)
		if dst.Form != want.Form || dst.Negative != want.Negative || dst.Exponent != want.Exponent || dst.Coeff.Cmp(&want.Coeff) != 0 {
			t.Errorf("%q: Apd gave %s, Set %s", c.text, dst.String(), want.String())
		}
		if !c.inline && firstWord(&dst.Coeff) == firstWord(&n.d.Coeff) {
			t.Errorf("%q: Apd's copy shares the big.Int of the value", c.text)
		}
		if c.inline {
			if a := testing.AllocsPerRun(100, func() { n.Apd(&dst) }); a != 0 {
				t.Errorf("%q: Apd(&dst) allocates %v times, want 0", c.text, a)
			}
		}
	}
}
