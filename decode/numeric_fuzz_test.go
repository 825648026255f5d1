package decode_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/pgcache/pgcache/decode"
)

// numericOutGrammar is what numeric_out prints (negative zero aside, which
// the fuzz target excludes separately).
var numericOutGrammar = regexp.MustCompile(`^(NaN|Infinity|-Infinity|-?(0|[1-9][0-9]*)(\.[0-9]+)?)$`)

// addNumericSeeds seeds f from every table in numeric_test.go. Texts longer
// than 256 bytes stay in the table tests: the fuzzer minimizes each new
// interesting input by trying on the order of n² shorter candidates, which
// for a 1000-digit seed stalls it for most of a 30 s run.
func addNumericSeeds(f *testing.F) {
	var seeds []string
	seeds = append(seeds, numericValid...)
	for _, tt := range numericInvalid {
		seeds = append(seeds, tt.text)
	}
	seeds = append(seeds, numericRange...)
	for _, tt := range numericInputTests {
		seeds = append(seeds, tt.in)
	}
	for _, s := range seeds {
		if len(s) <= 256 {
			f.Add(s)
		}
	}
}

// FuzzNumeric checks that ParseNumeric never panics, that whatever it accepts
// apd parses to the identical value with Text round-tripping, and that it
// accepts every text of numeric_out's grammar that apd accepts.
func FuzzNumeric(f *testing.F) {
	addNumericSeeds(f)
	f.Fuzz(func(t *testing.T, text string) {
		n, err := decode.ParseNumeric(text)
		want, _, apdErr := apd.NewFromString(text)
		if err != nil {
			var de *decode.Error
			if !errors.As(err, &de) || de.Type != "numeric" || de.Text != text {
				t.Fatalf("ParseNumeric(%q) error %#v is not a numeric *decode.Error for the input", text, err)
			}
			if errors.Is(err, decode.ErrSyntax) && (de.Pos < 0 || de.Pos > len(text)) {
				t.Fatalf("ParseNumeric(%q): Pos %d outside the text", text, de.Pos)
			}
			negZero := apdErr == nil && want.Negative && want.IsZero()
			if numericOutGrammar.MatchString(text) && apdErr == nil && !negZero {
				t.Fatalf("ParseNumeric(%q) = %v, but apd accepts this numeric_out text", text, err)
			}
			return
		}
		if apdErr != nil {
			t.Fatalf("ParseNumeric(%q) accepted what apd rejects: %v", text, apdErr)
		}
		if n.Text() != text {
			t.Fatalf("Text() = %q, want %q", n.Text(), text)
		}
		got := n.Apd(nil)
		if got.Form != want.Form || got.Negative != want.Negative || got.Exponent != want.Exponent || got.Coeff.Cmp(&want.Coeff) != 0 {
			t.Fatalf("ParseNumeric(%q) = %s (exponent %d), apd = %s (exponent %d)", text, got, got.Exponent, want, want.Exponent)
		}
		if again, err := decode.ParseNumeric(n.Text()); err != nil || again.Cmp(n) != 0 {
			t.Fatalf("re-parsing %q: %v, %v", text, again, err)
		}
		// A server text within PostgreSQL's scale limit is also canonical
		// input.
		if _, frac, _ := strings.Cut(text, "."); len(frac) <= 16383 {
			if in, err := decode.ParseNumericInput(text); err != nil || in.Text() != text {
				t.Fatalf("ParseNumericInput(%q) = %v, %v; want it unchanged", text, in, err)
			}
		}
	})
}

// FuzzNumericInput checks that ParseNumericInput never panics, that its text
// is accepted by ParseNumeric and is a fixed point, and that the value
// agrees with apd wherever apd reads the same input.
func FuzzNumericInput(f *testing.F) {
	addNumericSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		n, err := decode.ParseNumericInput(s)
		if err != nil {
			var de *decode.Error
			if !errors.As(err, &de) || de.Type != "numeric" || de.Text != s {
				t.Fatalf("ParseNumericInput(%q) error %#v is not a numeric *decode.Error for the input", s, err)
			}
			if !errors.Is(err, decode.ErrSyntax) && !errors.Is(err, decode.ErrRange) {
				t.Fatalf("ParseNumericInput(%q) error %v is neither ErrSyntax nor ErrRange", s, err)
			}
			return
		}
		text := n.Text()
		strict, err := decode.ParseNumeric(text)
		if err != nil {
			t.Fatalf("ParseNumericInput(%q) = %q, which ParseNumeric rejects: %v", s, text, err)
		}
		if strict.Cmp(n) != 0 {
			t.Fatalf("ParseNumeric(%q) differs from ParseNumericInput(%q)", text, s)
		}
		again, err := decode.ParseNumericInput(text)
		if err != nil || again.Text() != text {
			t.Fatalf("ParseNumericInput(%q) = %v, %v; want the fixed point %q", text, again, err, text)
		}
		// apd reads a subset of numeric_in's syntax (no inner whitespace
		// in the exponent, no "5." with an exponent ...); where it reads
		// the input, the values must be equal.
		want, _, apdErr := apd.NewFromString(strings.Trim(s, " \t\n\v\f\r"))
		if apdErr == nil && want.Form != apd.NaNSignaling {
			got := n.Apd(nil)
			same := got.Form == want.Form
			switch {
			case !same:
			case got.Form == apd.Finite:
				same = got.Cmp(want) == 0
			case got.Form == apd.Infinite:
				same = got.Negative == want.Negative
			}
			if !same {
				t.Fatalf("ParseNumericInput(%q) = %q, apd = %s", s, text, want)
			}
		}
	})
}
