package decode

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Numeric is an immutable PostgreSQL numeric value: the exact text PostgreSQL
// sent and the same value as an [apd.Decimal].
//
// A *Numeric is never mutated after [ParseNumeric] or [ParseNumericInput]
// returns it, so one value may be shared by any number of goroutines, and a
// cache may hand the same *Numeric to every reader forever. The fields are
// unexported because an apd.Decimal cannot be handed out safely: a struct copy
// of an [apd.BigInt] that has outgrown its inline array (more than 128 bits)
// shares the big.Int words with the original, so a caller mutating such a copy
// would change the cached value under every other goroutine. [Numeric.Apd]
// returns a deep copy instead.
//
// Text is always the canonical text numeric_out prints for the value: no
// leading zeros, no sign on zero, and the scale as stored ("1.50" and "1.5"
// are different texts of equal values; see [Numeric.Cmp]).
//
// The methods must be called on a non-nil *Numeric.
type Numeric struct {
	text string
	d    apd.Decimal
}

// Numeric limits. PostgreSQL stores up to 131072 digits before the decimal
// point and up to 16383 after it; apd allows adjusted exponents (exponent +
// digits - 1) within ±[apd.MaxExponent].
const (
	pgMaxScale     = 16383  // NUMERIC_DSCALE_MAX
	pgMaxIntDigits = 131072 // (NUMERIC_WEIGHT_MAX + 1) * DEC_DIGITS
	// apdMaxIntDigits is the most digits before the point apd can hold: the
	// adjusted exponent of such a value is apdMaxIntDigits-1 = apd.MaxExponent.
	apdMaxIntDigits = apd.MaxExponent + 1
	// apdMaxFracDigits is the most digits after the point apd accepts: a text
	// exponent below apd.MinExponent is an error even when the value is zero.
	apdMaxFracDigits = -apd.MinExponent
	// pgMaxExponent bounds the exponent numeric_in accepts before it even
	// looks at the digits: |exponent| >= INT_MAX/2 is an overflow.
	pgMaxExponent = 1<<30 - 1
)

// Zero is the numeric 0, as numeric_out prints it: "0". Like every *Numeric
// it is shared; do not reassign it. [ParseNumeric]("0") returns this value.
var Zero = &Numeric{text: "0"}

// The special values are shared too; ParseNumeric returns them without
// allocating.
var (
	numericNaN    = &Numeric{text: "NaN", d: apd.Decimal{Form: apd.NaN}}
	numericInf    = &Numeric{text: "Infinity", d: apd.Decimal{Form: apd.Infinite}}
	numericNegInf = &Numeric{text: "-Infinity", d: apd.Decimal{Form: apd.Infinite, Negative: true}}
)

// ParseNumeric decodes a text exactly as PostgreSQL's numeric_out produces it:
// an optional '-', the integer digits ("0" or digits without a leading zero),
// and optionally '.' followed by at least one digit; or one of "NaN",
// "Infinity" and "-Infinity". Anything else — a leading '+', an exponent,
// whitespace, ".5", "5.", a leading zero such as "007", or a negative zero such
// as "-0" or "-0.00", which numeric_out never prints because PostgreSQL has no
// negative zero — is an [*Error] wrapping [ErrSyntax] whose Pos is the
// offending byte. Use [ParseNumericInput] for text that did not come from the
// server.
//
// The result keeps text itself (not a copy), so [Numeric.Text] returns it byte
// for byte, scale included. The caller must own text; in particular it must
// not be a view of a reused buffer made with unsafe.String.
//
// Its value equals [apd.NewFromString](text) exactly: form, sign, exponent
// (minus the number of digits after the point) and coefficient. Up to 38
// significant digits (2^128 > 10^38) are accumulated in 128 bits and stored in
// the [apd.BigInt]'s inline array, so the only allocation is the *Numeric
// itself (none for "0", "NaN" and "±Infinity", which are shared). Longer
// coefficients are parsed by apd.BigInt, trailing zeros apart. PostgreSQL's
// whole range parses without panicking, but apd cannot hold more than 100001
// digits before the point or 100000 after it; such a value is an [*Error]
// wrapping [ErrRange].
func ParseNumeric(text string) (*Numeric, error) {
	if text == "" {
		return nil, syntaxError("numeric", text, 0, "empty text")
	}
	neg := false
	i := 0
	switch text[0] {
	case 'N':
		return parseWord(text, "NaN", numericNaN)
	case 'I':
		return parseWord(text, "Infinity", numericInf)
	case '-':
		if len(text) > 1 && text[1] == 'I' {
			return parseWord(text, "-Infinity", numericNegInf)
		}
		neg = true
		i = 1
	}

	// Integer part: "0" or a digit string without a leading zero.
	intStart := i
	switch {
	case i == len(text):
		return nil, syntaxError("numeric", text, i, "unexpected end of text, expected a digit")
	case text[i] == '0':
		i++
		if i < len(text) && isDigit(text[i]) {
			return nil, syntaxError("numeric", text, i, "unexpected "+quoteByte(text[i])+" after leading '0'")
		}
	case isDigit(text[i]):
		i = skipDigits(text, i+1)
	default:
		return nil, syntaxError("numeric", text, i, "unexpected "+quoteByte(text[i]))
	}
	intPart := text[intStart:i]

	// Fraction: '.' and at least one digit.
	frac := ""
	if i < len(text) {
		if text[i] != '.' {
			return nil, syntaxError("numeric", text, i, "unexpected "+quoteByte(text[i]))
		}
		i++
		fracStart := i
		i = skipDigits(text, i)
		if i == fracStart {
			if i == len(text) {
				return nil, syntaxError("numeric", text, i, "unexpected end of text, expected a digit after '.'")
			}
			return nil, syntaxError("numeric", text, i, "unexpected "+quoteByte(text[i])+", expected a digit after '.'")
		}
		if i < len(text) {
			return nil, syntaxError("numeric", text, i, "unexpected "+quoteByte(text[i]))
		}
		frac = text[fracStart:]
	}

	// The significant digits: all of them, or after "0." the fraction
	// without its leading zeros.
	sigInt, sigFrac := intPart, frac
	if intPart == "0" {
		sigInt = ""
		sigFrac = strings.TrimLeft(frac, "0")
	}
	if len(frac) > apdMaxFracDigits {
		return nil, &Error{Type: "numeric", Text: text, Pos: -1, Err: ErrRange,
			Detail: "more than " + strconv.Itoa(apdMaxFracDigits) + " digits after the point do not fit apd"}
	}
	if len(sigInt) > apdMaxIntDigits {
		return nil, &Error{Type: "numeric", Text: text, Pos: -1, Err: ErrRange,
			Detail: "more than " + strconv.Itoa(apdMaxIntDigits) + " digits before the point do not fit apd"}
	}
	if neg && sigInt == "" && sigFrac == "" {
		return nil, syntaxError("numeric", text, 0, "negative zero, which numeric_out never prints")
	}
	if text == "0" {
		return Zero, nil
	}
	return newNumeric(text, neg, len(frac), sigInt, sigFrac, 0), nil
}

// setCoefficient sets c to the decimal digits a+b, which have no leading
// zero and are followed by zeros more zeros.
//
// Up to 38 digits accumulate in 128 bits and stay in c's inline array
// without allocating. Longer coefficients are parsed by apd (big.Int), whose
// decimal parsing is quadratic in the number of digits, so their trailing
// zeros are split off and multiplied back as a power of ten: "1e100000" from
// a user then costs well under a millisecond instead of tens.
func setCoefficient(c *apd.BigInt, a, b string, zeros int) {
	if len(a)+len(b) <= 38 && zeros == 0 {
		hi, lo := digits128(a, b)
		if hi == 0 {
			// SetFinite takes an int64, which 19 digits may exceed;
			// SetUint64 keeps the value inline all the same.
			c.SetUint64(lo)
			return
		}
		// big.Int decodes 16 bytes into the inline array's two words.
		var buf [16]byte
		binary.BigEndian.PutUint64(buf[:8], hi)
		binary.BigEndian.PutUint64(buf[8:], lo)
		c.SetBytes(buf[:])
		return
	}
	if tb := strings.TrimRight(b, "0"); tb != "" {
		zeros += len(b) - len(tb)
		b = tb
	} else {
		ta := strings.TrimRight(a, "0")
		zeros += len(b) + len(a) - len(ta)
		a, b = ta, ""
	}
	if len(a)+len(b) <= 38 {
		setCoefficient(c, a, b, 0)
	} else if _, ok := c.SetString(a+b, 10); !ok {
		panic("decode: setCoefficient: not a digit string") // the callers validated a and b
	}
	if zeros > 0 && c.Sign() != 0 {
		var p apd.BigInt
		p.Exp(apd.NewBigInt(10), apd.NewBigInt(int64(zeros)), nil)
		c.Mul(c, &p)
	}
}

// digits128 returns the value of the decimal digit string a+b, at most 38
// digits, as a 128-bit integer.
func digits128(a, b string) (hi, lo uint64) {
	if len(a)+len(b) <= 19 {
		for i := 0; i < len(a); i++ {
			lo = lo*10 + uint64(a[i]-'0')
		}
		for i := 0; i < len(b); i++ {
			lo = lo*10 + uint64(b[i]-'0')
		}
		return 0, lo
	}
	var x, y uint64 // the first 19 digits, then the rest
	nx, ny := 0, 0
	for _, s := range [2]string{a, b} {
		for i := 0; i < len(s); i++ {
			if nx < 19 {
				x = x*10 + uint64(s[i]-'0')
				nx++
			} else {
				y = y*10 + uint64(s[i]-'0')
				ny++
			}
		}
	}
	if ny == 0 {
		return 0, x
	}
	hi, lo = bits.Mul64(x, pow10[ny])
	var carry uint64
	lo, carry = bits.Add64(lo, y, 0)
	return hi + carry, lo
}

var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// parseWord accepts text if it is exactly word and reports the first byte
// that differs otherwise.
func parseWord(text, word string, n *Numeric) (*Numeric, error) {
	if text == word {
		return n, nil
	}
	i := 0
	for i < len(text) && i < len(word) && text[i] == word[i] {
		i++
	}
	if i == len(text) {
		return nil, syntaxError("numeric", text, i, "unexpected end of text, expected "+strconv.Quote(word))
	}
	return nil, syntaxError("numeric", text, i, "unexpected "+quoteByte(text[i])+", expected "+strconv.Quote(word))
}

// ParseNumericInput is the lenient counterpart of [ParseNumeric] for text
// that did not come from the server (JSON, flags, a user's string). It
// accepts what PostgreSQL 15's numeric_in accepts:
//
//   - surrounding whitespace (space, \t, \n, \v, \f, \r);
//   - case-insensitive "NaN" (without a sign), and "Infinity" or "inf" with an
//     optional '+' or '-';
//   - an optional '+' or '-', digits with at most one '.' anywhere (".5",
//     "5.", "007"), and an optional exponent: 'e' or 'E', optional whitespace
//     (numeric_in reads it with strtol), an optional sign and digits.
//
// It does not accept the underscores and 0x/0o/0b prefixes PostgreSQL 16
// added. The result's text is what numeric_out prints for the value that
// numeric_in stores: plain notation with scale max(0, fraction digits -
// exponent), leading zeros removed and no sign on zero. So "1.50e1" becomes
// "15.0", "1e3" "1000", "-0.00" "0.00", " +.5 " "0.5" and "inf" "Infinity".
//
// A value numeric_in would reject as "value overflows numeric format" (more
// than 16383 digits after the point, more than 131072 before it, or an
// exponent of magnitude 2^30-1 or more), or one apd cannot hold (more than
// 100001 digits before the point), is an [*Error] wrapping [ErrRange]. The
// returned *Numeric is shared and immutable like any other; it never retains
// s unless s is already canonical.
func ParseNumericInput(s string) (*Numeric, error) {
	if canonicalNumeric(s) {
		return ParseNumeric(s)
	}
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i == len(s) {
		return nil, syntaxError("numeric", s, i, "unexpected end of text, expected a number")
	}
	if n, end := specialNumeric(s[i:]); n != nil {
		if err := trailingSpace(s, i+end); err != nil {
			return nil, err
		}
		return n, nil
	}

	neg := false
	if s[i] == '+' || s[i] == '-' {
		neg = s[i] == '-'
		i++
	}
	intStart := i
	i = skipDigits(s, i)
	intPart := s[intStart:i]
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fracStart := i
		i = skipDigits(s, i)
		frac = s[fracStart:i]
	}
	if intPart == "" && frac == "" {
		if i == len(s) {
			return nil, syntaxError("numeric", s, i, "unexpected end of text, expected a digit")
		}
		return nil, syntaxError("numeric", s, i, "unexpected "+quoteByte(s[i])+", expected a digit")
	}

	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		var err error
		if exp, i, err = parseExponent(s, i+1); err != nil {
			return nil, err
		}
	}
	if err := trailingSpace(s, i); err != nil {
		return nil, err
	}

	// value = digits × 10^shift, with numeric_in's scale max(0, -shift).
	shift := exp - len(frac)
	scale := max(0, -shift)
	if scale > pgMaxScale {
		return nil, &Error{Type: "numeric", Text: s, Pos: -1, Err: ErrRange,
			Detail: "value overflows numeric format: scale " + strconv.Itoa(scale) + " is above " + strconv.Itoa(pgMaxScale)}
	}
	sigInt := strings.TrimLeft(intPart, "0")
	sigFrac := frac
	if sigInt == "" {
		sigFrac = strings.TrimLeft(frac, "0")
	}
	nsig := len(sigInt) + len(sigFrac)
	if nsig == 0 {
		if scale == 0 {
			return Zero, nil
		}
		return newNumeric("0."+strings.Repeat("0", scale), false, scale, "", "", 0), nil
	}
	intDigits := nsig + shift // digits before the point, if positive
	if intDigits > pgMaxIntDigits {
		return nil, &Error{Type: "numeric", Text: s, Pos: -1, Err: ErrRange,
			Detail: "value overflows numeric format: more than " + strconv.Itoa(pgMaxIntDigits) + " digits before the point"}
	}
	if intDigits > apdMaxIntDigits {
		return nil, &Error{Type: "numeric", Text: s, Pos: -1, Err: ErrRange,
			Detail: "more than " + strconv.Itoa(apdMaxIntDigits) + " digits before the point do not fit apd"}
	}

	// Write sign, integer part, point and scale fraction digits. The
	// value's coefficient is those digits: sig followed by max(0, shift)
	// zeros.
	var b []byte
	if intDigits > 0 {
		b = make([]byte, 0, 2+intDigits+scale)
	} else {
		b = make([]byte, 0, 3+scale)
	}
	if neg {
		b = append(b, '-')
	}
	if intDigits <= 0 {
		b = append(b, "0."...)
		b = appendZeros(b, -intDigits)
		b = append(b, sigInt...)
		b = append(b, sigFrac...)
		return newNumeric(string(b), neg, scale, sigInt, sigFrac, 0), nil
	}
	// Emit the nsig significant digits followed by max(0, shift) zeros,
	// putting the point after intDigits of them.
	written := 0
	for _, part := range [2]string{sigInt, sigFrac} {
		for j := 0; j < len(part); j++ {
			if written == intDigits {
				b = append(b, '.')
			}
			b = append(b, part[j])
			written++
		}
	}
	b = appendZeros(b, shift)
	return newNumeric(string(b), neg, scale, sigInt, sigFrac, max(0, shift)), nil
}

// newNumeric returns the value with the given text, sign and scale whose
// coefficient is the digits a+b followed by zeros zeros.
func newNumeric(text string, neg bool, scale int, a, b string, zeros int) *Numeric {
	n := &Numeric{text: text}
	n.d.Form = apd.Finite
	n.d.Negative = neg
	n.d.Exponent = -int32(scale)
	setCoefficient(&n.d.Coeff, a, b, zeros)
	return n
}

// canonicalNumeric reports whether s is already the text numeric_out prints
// and within PostgreSQL's range, so that ParseNumericInput can keep it.
func canonicalNumeric(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	i = skipDigits(s, i)
	switch {
	case i == start:
		return s == "NaN" || s == "Infinity" || s == "-Infinity"
	case s[start] == '0' && i-start > 1:
		return false // leading zero
	}
	nonzero := s[start] != '0'
	intDigits := i - start
	if i < len(s) {
		if s[i] != '.' {
			return false
		}
		fracStart := i + 1
		i = skipDigits(s, fracStart)
		if i != len(s) || i == fracStart || i-fracStart > pgMaxScale {
			return false
		}
		nonzero = nonzero || strings.TrimLeft(s[fracStart:], "0") != ""
	}
	// -0 is not canonical. Leave a value too long for apd to the slow path,
	// so that its error is the same as for a non-canonical spelling.
	return (s[0] != '-' || nonzero) && intDigits <= apdMaxIntDigits
}

// specialNumeric matches, case-insensitively and in numeric_in's order, the
// special values at the start of s and returns the value and its length.
func specialNumeric(s string) (*Numeric, int) {
	for _, w := range [...]struct {
		word string
		n    *Numeric
	}{
		{"nan", numericNaN},
		{"infinity", numericInf},
		{"+infinity", numericInf},
		{"-infinity", numericNegInf},
		{"inf", numericInf},
		{"+inf", numericInf},
		{"-inf", numericNegInf},
	} {
		if len(s) >= len(w.word) && strings.EqualFold(s[:len(w.word)], w.word) {
			return w.n, len(w.word)
		}
	}
	return nil, 0
}

// parseExponent reads the exponent after 'e' at s[i:] as strtol would:
// optional whitespace, an optional sign, then at least one digit.
func parseExponent(s string, i int) (exp, end int, err error) {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	i = skipDigits(s, i)
	if i == start {
		if i == len(s) {
			return 0, i, syntaxError("numeric", s, i, "unexpected end of text, expected exponent digits")
		}
		return 0, i, syntaxError("numeric", s, i, "unexpected "+quoteByte(s[i])+", expected exponent digits")
	}
	digits := strings.TrimLeft(s[start:i], "0")
	if len(digits) > 10 {
		return 0, i, &Error{Type: "numeric", Text: s, Pos: -1, Err: ErrRange, Detail: "value overflows numeric format: exponent out of range"}
	}
	e, _ := strconv.Atoi("0" + digits) // at most 10 digits, fits an int
	if e >= pgMaxExponent {
		return 0, i, &Error{Type: "numeric", Text: s, Pos: -1, Err: ErrRange, Detail: "value overflows numeric format: exponent out of range"}
	}
	if neg {
		e = -e
	}
	return e, i, nil
}

// trailingSpace checks that s[i:] is only whitespace.
func trailingSpace(s string, i int) error {
	for ; i < len(s); i++ {
		if !isSpace(s[i]) {
			return syntaxError("numeric", s, i, "unexpected "+quoteByte(s[i]))
		}
	}
	return nil
}

// appendZeros appends n '0' bytes to b.
func appendZeros(b []byte, n int) []byte {
	const zeros = "0000000000000000000000000000000000000000000000000000000000000000"
	for ; n > len(zeros); n -= len(zeros) {
		b = append(b, zeros...)
	}
	return append(b, zeros[:max(n, 0)]...)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isSpace is C's isspace in the C locale, which numeric_in uses.
func isSpace(c byte) bool {
	return c == ' ' || ('\t' <= c && c <= '\r')
}

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// quoteByte renders c for an error detail: 'x' for printable ASCII, byte 0xNN
// otherwise (a NUL or part of a multi-byte character).
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	const hex = "0123456789abcdef"
	return "byte 0x" + string([]byte{hex[c>>4], hex[c&0xf]})
}

// Text returns the text the value was parsed from, or for [ParseNumericInput]
// its canonical form. It is what numeric_out prints, scale included.
func (n *Numeric) Text() string { return n.text }

// String returns [Numeric.Text], so fmt prints a *Numeric as PostgreSQL does.
func (n *Numeric) String() string { return n.text }

// IsNaN reports whether n is NaN.
func (n *Numeric) IsNaN() bool { return n.d.Form == apd.NaN }

// IsInf reports whether n is an infinity, like [math.IsInf]: Infinity if
// sign > 0, -Infinity if sign < 0, either if sign == 0.
func (n *Numeric) IsInf(sign int) bool {
	return n.d.Form == apd.Infinite && (sign == 0 || (sign > 0) != n.d.Negative)
}

// Sign returns -1, 0 or +1 for negative, zero and positive values, ±1 for
// ±Infinity and 0 for NaN.
func (n *Numeric) Sign() int {
	if n.d.Form == apd.NaN {
		return 0
	}
	return n.d.Sign()
}

// Cmp compares n and m in PostgreSQL's total order for numeric, which sorts
// -Infinity < finite values < Infinity < NaN and treats NaN as equal to NaN.
// It returns -1, 0 or +1. Equal values of different scales are equal: "1.50"
// and "1.5" compare 0 although their texts differ.
func (n *Numeric) Cmp(m *Numeric) int {
	rn, rm := n.rank(), m.rank()
	switch {
	case rn < rm:
		return -1
	case rn > rm:
		return 1
	case rn != 1:
		return 0 // both NaN or the same infinity
	}
	return n.d.Cmp(&m.d)
}

// rank orders the classes of values: -Infinity, finite, Infinity, NaN.
func (n *Numeric) rank() int {
	switch {
	case n.d.Form == apd.NaN:
		return 3
	case n.d.Form == apd.Finite:
		return 1
	case n.d.Negative:
		return 0
	}
	return 2
}

// Float64 returns the nearest float64, exactly as strconv.ParseFloat(n.Text(),
// 64) does (database/sql scans a numeric column into a *float64 that way):
// NaN is NaN and ±Infinity is ±Inf. A finite value beyond the float64 range
// returns ±Inf and an [*Error] wrapping [ErrRange]; one too small rounds to
// ±0 without an error.
func (n *Numeric) Float64() (float64, error) {
	f, err := strconv.ParseFloat(n.text, 64)
	if err != nil {
		// Every accepted text is valid ParseFloat syntax, so this is ErrRange.
		return f, &Error{Type: "numeric", Text: n.text, Pos: -1, Err: ErrRange, Detail: "beyond the float64 range"}
	}
	return f, nil
}

// Int64 returns n as an int64 if it is integral and in range: "12.00" is 12.
// A fraction, a value outside the int64 range, NaN or an infinity is an
// [*Error] wrapping [ErrRange] that names the value.
func (n *Numeric) Int64() (int64, error) {
	if n.d.Form != apd.Finite {
		return 0, &Error{Type: "numeric", Text: n.text, Pos: -1, Err: ErrRange, Detail: "not a finite value, so not an int64"}
	}
	// The text is canonical: -?(0|[1-9][0-9]*)(\.[0-9]+)?.
	intPart, frac, _ := strings.Cut(n.text, ".")
	if strings.TrimRight(frac, "0") != "" {
		return 0, &Error{Type: "numeric", Text: n.text, Pos: -1, Err: ErrRange, Detail: "has a fractional part, so not an int64"}
	}
	v, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return 0, &Error{Type: "numeric", Text: n.text, Pos: -1, Err: ErrRange, Detail: "outside the int64 range"}
	}
	return v, nil
}

// Apd sets dst to a deep copy of n's value and returns dst, allocating it
// when dst is nil. dst is the caller's to mutate. A coefficient in apd's
// inline words (up to 128 bits, every text of up to 38 digits) is copied
// with the struct, as [apd.Decimal.Set] itself does; a larger one goes
// through Set, which copies its big.Int words rather than sharing them with
// n.
func (n *Numeric) Apd(dst *apd.Decimal) *apd.Decimal {
	if dst == nil {
		dst = new(apd.Decimal)
	}
	if coeffInline(&n.d.Coeff) {
		*dst = n.d
		return dst
	}
	return dst.Set(&n.d)
}

// Decompose implements database/sql's decimal decomposer interface (the
// counterpart of [apd.Decimal.Compose]), so database/sql can scan a *Numeric
// into any decimal type with a Compose method. form is 0 for finite values, 1
// for infinities and 2 for NaN; the finite value is negative × coefficient (a
// big-endian unsigned integer) × 10^exponent. coefficient is buf when it has
// the capacity, or a new slice; it never aliases n.
func (n *Numeric) Decompose(buf []byte) (form byte, negative bool, coefficient []byte, exponent int32) {
	return n.d.Decompose(buf)
}

// AppendJSON appends n as JSON to b: finite values as the text itself, which
// is a valid JSON number, and NaN, Infinity and -Infinity, which JSON numbers
// cannot express, as the strings "NaN", "Infinity" and "-Infinity". That is
// what pgtype.Numeric's MarshalJSON and PostgreSQL's to_json write.
func (n *Numeric) AppendJSON(b []byte) []byte {
	if n.d.Form != apd.Finite {
		b = append(b, '"')
		b = append(b, n.text...)
		return append(b, '"')
	}
	return append(b, n.text...)
}
