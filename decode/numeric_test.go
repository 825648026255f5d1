package decode_test

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/pgcache/pgcache/decode"
)

// Long texts used by several tables.
var (
	numDigits1000 = "1" + strings.Repeat("234567890", 111) // 1000 digits
	numFrac16383  = "0." + strings.Repeat("0123456789", 1638) + "012"
	numApdMaxInt  = "9" + strings.Repeat("0", 100000) // 100001 digits, adjusted exponent 100000
	numApdMaxFrac = "0." + strings.Repeat("0", 99999) + "1"
	numPGMaxInt   = "9" + strings.Repeat("9", 131071) // 131072 digits: PostgreSQL's limit, beyond apd's
)

// numericValid lists texts numeric_out can print (and a few at apd's limits it
// cannot); ParseNumeric must accept each unchanged.
var numericValid = []string{
	"0", "1", "-1", "9", "10", "-10", "1299.00", "-1299.00", "0.5", "-0.5",
	"0.0", "0.00000000000000000000", "0.000001", "-0.000001", "1.50", "1.500",
	"3.14159265358979323846",
	// 19/20 significant digits around the uint64 fast path.
	"1000000000000000000",  // 19 digits
	"9999999999999999999",  // 19 digits, above math.MaxInt64
	"9223372036854775807",  // math.MaxInt64
	"9223372036854775808",  // math.MaxInt64+1
	"-9223372036854775808", // math.MinInt64
	"-9223372036854775809",
	"10000000000000000000", // 20 digits
	"18446744073709551615", // 2^64-1
	"18446744073709551616", // 2^64
	"-18446744073709551617",
	"123456789.0123456789",  // 19 significant digits
	"123456789.01234567890", // 20
	"0.1234567890123456789", // 19 after "0."
	"0.12345678901234567890",
	"0.0000000000000000000000000000001234567890123456789",
	// 38/39 digits around the 128-bit path.
	"99999999999999999999999999999999999999",   // 38 digits
	"-9999999999999999999.9999999999999999999", // 38 digits
	"170141183460469231731687303715884105727",  // 2^127-1, 39 digits
	"340282366920938463463374607431768211455",  // 2^128-1
	"340282366920938463463374607431768211456",  // 2^128
	"-340282366920938463463374607431768211457",
	"12345678901234567890123456789012345678.9",
	// Long coefficients with trailing zeros, which are multiplied back.
	"1" + strings.Repeat("0", 50),
	"1" + strings.Repeat("0", 40) + "." + strings.Repeat("0", 10),
	"-1.5" + strings.Repeat("0", 60),
	"0.15" + strings.Repeat("0", 60),
	"123456789012345678901234567890123456789" + strings.Repeat("0", 45) + ".000",
	"123456789012345678901234567890123456789." + strings.Repeat("9", 45) + "000",
	"10000000000000000000000000000000000000.00", // 38+2 digits: 10^39 after stripping two zeros
	"34028236692093846346337460743176821145500", // (2^128-1)×100
	"0.00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
	numDigits1000, "-" + numDigits1000, "0." + numDigits1000, numDigits1000 + "." + numDigits1000,
	numFrac16383, "-" + numFrac16383,
	numApdMaxInt, numApdMaxFrac,
	"0." + strings.Repeat("0", 100000),
	"NaN", "Infinity", "-Infinity",
}

// numericInvalid lists texts ParseNumeric rejects, with the byte at fault.
var numericInvalid = []struct {
	text    string
	pos     int
	wantErr string // the whole message, when set
}{
	{"", 0, `decode numeric "": invalid syntax at byte 0: empty text`},
	{"-", 1, `decode numeric "-": invalid syntax at byte 1: unexpected end of text, expected a digit`},
	{".", 0, `decode numeric ".": invalid syntax at byte 0: unexpected '.'`},
	{"1.", 2, `decode numeric "1.": invalid syntax at byte 2: unexpected end of text, expected a digit after '.'`},
	{".5", 0, ""},
	{"-.5", 1, ""},
	{"+1", 0, `decode numeric "+1": invalid syntax at byte 0: unexpected '+'`},
	{"1e5", 1, ""},
	{"1e+", 1, `decode numeric "1e+": invalid syntax at byte 1: unexpected 'e'`},
	{"1E5", 1, ""},
	{"1.5e3", 3, ""},
	{" 1", 0, ""},
	{"1 ", 1, ""},
	{"1\n", 1, ""},
	{"nan", 0, `decode numeric "nan": invalid syntax at byte 0: unexpected 'n'`},
	{"NAN", 1, `decode numeric "NAN": invalid syntax at byte 1: unexpected 'A', expected "NaN"`},
	{"NaN ", 3, ""},
	{"-NaN", 1, ""},
	{"Inf", 3, `decode numeric "Inf": invalid syntax at byte 3: unexpected end of text, expected "Infinity"`},
	{"inf", 0, ""},
	{"+Infinity", 0, ""},
	{"-Inf", 4, ""},
	{"-infinity", 1, ""},
	{"Infinityy", 8, ""},
	{"1..2", 2, ""},
	{"1.2.3", 3, ""},
	{"--1", 1, ""},
	{"-+1", 1, ""},
	{"1,5", 1, ""},
	{"1_000", 1, ""},
	{"0x10", 1, ""},
	{"\u0661", 0, `decode numeric "١": invalid syntax at byte 0: unexpected byte 0xd9`}, // ARABIC-INDIC DIGIT ONE
	{"1\uff11", 1, ""}, // FULLWIDTH DIGIT ONE
	{"\x00", 0, ""},
	{"1\x00", 1, `decode numeric "1\x00": invalid syntax at byte 1: unexpected byte 0x00`},
	{"1.0\x00", 3, ""},
	{"-0", 0, `decode numeric "-0": invalid syntax at byte 0: negative zero, which numeric_out never prints`},
	{"-0.00", 0, ""},
	{"-0." + strings.Repeat("0", 50), 0, ""},
	{"007", 1, `decode numeric "007": invalid syntax at byte 1: unexpected '0' after leading '0'`},
	{"00", 1, ""},
	{"-01", 2, ""},
	{numDigits1000 + "x", 1000, ""},
}

// numericRange lists well-formed texts apd cannot hold.
var numericRange = []string{
	numApdMaxInt + "0",
	"-" + numApdMaxInt + "0",
	numPGMaxInt,
	numApdMaxFrac + "1",
	"0." + strings.Repeat("0", 100001),
	"1." + strings.Repeat("0", 100001),
}

func TestParseNumeric(t *testing.T) {
	for _, text := range numericValid {
		t.Run(numName(text), func(t *testing.T) {
			n, err := decode.ParseNumeric(text)
			if err != nil {
				t.Fatalf("ParseNumeric: %v", err)
			}
			checkNumericAgainstApd(t, text, n)
		})
	}
}

func TestParseNumericSyntaxError(t *testing.T) {
	for _, tt := range numericInvalid {
		t.Run(numName(tt.text), func(t *testing.T) {
			n, err := decode.ParseNumeric(tt.text)
			if err == nil {
				t.Fatalf("ParseNumeric = %q, want an error", n.Text())
			}
			var de *decode.Error
			if !errors.As(err, &de) || !errors.Is(err, decode.ErrSyntax) {
				t.Fatalf("err = %#v, want a *decode.Error wrapping ErrSyntax", err)
			}
			if de.Type != "numeric" || de.Text != tt.text || de.Pos != tt.pos {
				t.Errorf("Type, Text, Pos = %q, %q, %d; want numeric, the input, %d", de.Type, numName(de.Text), de.Pos, tt.pos)
			}
			if tt.wantErr != "" && err.Error() != tt.wantErr {
				t.Errorf("err = %s\nwant  %s", err, tt.wantErr)
			}
		})
	}
}

func TestParseNumericRangeError(t *testing.T) {
	for _, text := range numericRange {
		t.Run(numName(text), func(t *testing.T) {
			n, err := decode.ParseNumeric(text)
			if !errors.Is(err, decode.ErrRange) {
				t.Fatalf("ParseNumeric = %v, %v; want an error wrapping ErrRange", n, err)
			}
			if len(err.Error()) > 300 {
				t.Errorf("error message is %d bytes long; it should quote a window of the text", len(err.Error()))
			}
			if _, _, err := apd.NewFromString(text); err == nil {
				t.Errorf("apd accepts %s; ParseNumeric should too", numName(text))
			}
		})
	}
	// The message for the longest value PostgreSQL sends.
	_, err := decode.ParseNumeric(numPGMaxInt)
	want := `decode numeric "` + strings.Repeat("9", 64) + `"...: value out of range: more than 100001 digits before the point do not fit apd`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
}

// checkAgainstApd checks that n, parsed from text, agrees with apd and strconv.
func checkNumericAgainstApd(t *testing.T, text string, n *decode.Numeric) {
	t.Helper()
	if n.Text() != text {
		t.Errorf("Text() = %s, want the input", numName(n.Text()))
	}
	want, _, err := apd.NewFromString(text)
	if err != nil {
		t.Fatalf("apd.NewFromString: %v", err)
	}
	got := n.Apd(nil)
	if got.Form != want.Form || got.Negative != want.Negative || got.Exponent != want.Exponent || got.Coeff.Cmp(&want.Coeff) != 0 {
		t.Errorf("value = {%v %v %d %s}, apd.NewFromString = {%v %v %d %s}",
			got.Form, got.Negative, got.Exponent, numName(got.Coeff.String()),
			want.Form, want.Negative, want.Exponent, numName(want.Coeff.String()))
	}

	f, err := n.Float64()
	wantF, wantErr := strconv.ParseFloat(text, 64)
	if math.Float64bits(f) != math.Float64bits(wantF) && !(math.IsNaN(f) && math.IsNaN(wantF)) {
		t.Errorf("Float64() = %v, strconv.ParseFloat = %v", f, wantF)
	}
	if (err == nil) != (wantErr == nil) {
		t.Errorf("Float64() error = %v, strconv.ParseFloat error = %v", err, wantErr)
	}

	for _, buf := range [][]byte{nil, make([]byte, 0, 64)} {
		form, neg, coeff, exp := n.Decompose(buf)
		wform, wneg, wcoeff, wexp := want.Decompose(nil)
		if form != wform || neg != wneg || !slices.Equal(coeff, wcoeff) || exp != wexp {
			t.Errorf("Decompose(cap %d) = %d %v %x %d, apd = %d %v %x %d", cap(buf), form, neg, coeff, exp, wform, wneg, wcoeff, wexp)
		}
	}

	if want.Form == apd.Finite {
		v, err := n.Int64()
		wantV, wantErr := want.Int64()
		if v != wantV || (err == nil) != (wantErr == nil) {
			t.Errorf("Int64() = %d, %v; apd = %d, %v", v, err, wantV, wantErr)
		}
		if n.Sign() != want.Sign() {
			t.Errorf("Sign() = %d, apd = %d", n.Sign(), want.Sign())
		}
	}
	if n.Cmp(n) != 0 {
		t.Errorf("Cmp(itself) = %d", n.Cmp(n))
	}
}

func TestParseNumericAllocs(t *testing.T) {
	for _, tt := range []struct {
		text   string
		allocs float64
	}{
		{"1299.00", 1},
		{"-9999999999999999999", 1},
		{"99999999999999999999999999999999999999", 1}, // 38 digits, 128 bits
		{"0.00000000000000000000001", 1},
		{"0", 0},
		{"NaN", 0},
		{"-Infinity", 0},
	} {
		t.Run(tt.text, func(t *testing.T) {
			got := testing.AllocsPerRun(100, func() {
				if _, err := decode.ParseNumeric(tt.text); err != nil {
					t.Fatal(err)
				}
			})
			if got != tt.allocs {
				t.Errorf("%v allocations, want %v", got, tt.allocs)
			}
		})
	}
}

func TestNumericCmp(t *testing.T) {
	// Ascending; each inner slice holds equal values.
	ordered := [][]string{
		{"-Infinity"},
		{"-" + numDigits1000},
		{"-340282366920938463463374607431768211456"},
		{"-9223372036854775808", "-9223372036854775808.000"},
		{"-1.5", "-1.50", "-1.500000000000000000000000000000000000000000"},
		{"-0.000000000000000000000000000000000000000001"},
		{"0", "0.0", "0.00000000000000000000", "0." + strings.Repeat("0", 100000)},
		{"0." + strings.Repeat("0", 16382) + "1"},
		{"0.000000000000000000000000000000000000000001"},
		{"0.5", "0.50"},
		{"1", "1.0", "1.000000000000000000000000000000000000000000000"},
		{"1.0000000000000000000000000000000000000000001"},
		{"9999999999999999999"},
		{"10000000000000000000", "10000000000000000000.0"},
		{numDigits1000},
		{numApdMaxInt},
		{"Infinity"},
		{"NaN"},
	}
	type rankedValue struct {
		rank int
		n    *decode.Numeric
	}
	var values []rankedValue
	for i, group := range ordered {
		for _, text := range group {
			values = append(values, rankedValue{i, mustParseNumeric(t, text)})
		}
	}
	for _, a := range values {
		for _, b := range values {
			if got, want := a.n.Cmp(b.n), numCmpIndex(a.rank, b.rank); got != want {
				t.Errorf("Cmp(%s, %s) = %d, want %d", numName(a.n.Text()), numName(b.n.Text()), got, want)
			}
		}
	}
}

func numCmpIndex(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestNumericSignAndClass(t *testing.T) {
	for _, tt := range []struct {
		text             string
		sign             int
		nan, inf, pi, ni bool
	}{
		{"NaN", 0, true, false, false, false},
		{"Infinity", 1, false, true, true, false},
		{"-Infinity", -1, false, true, false, true},
		{"0", 0, false, false, false, false},
		{"0.000", 0, false, false, false, false},
		{"-0.001", -1, false, false, false, false},
		{"0.001", 1, false, false, false, false},
		{"-" + numDigits1000, -1, false, false, false, false},
	} {
		t.Run(numName(tt.text), func(t *testing.T) {
			n := mustParseNumeric(t, tt.text)
			if n.Sign() != tt.sign || n.IsNaN() != tt.nan || n.IsInf(0) != tt.inf || n.IsInf(1) != tt.pi || n.IsInf(-1) != tt.ni {
				t.Errorf("Sign, IsNaN, IsInf(0), IsInf(1), IsInf(-1) = %d %v %v %v %v; want %d %v %v %v %v",
					n.Sign(), n.IsNaN(), n.IsInf(0), n.IsInf(1), n.IsInf(-1), tt.sign, tt.nan, tt.inf, tt.pi, tt.ni)
			}
		})
	}
}

func TestNumericInt64(t *testing.T) {
	for _, tt := range []struct {
		text    string
		want    int64
		wantErr string
	}{
		{"0", 0, ""},
		{"0.000", 0, ""},
		{"12", 12, ""},
		{"12.00", 12, ""},
		{"-12.000000000000000000000000000000", -12, ""},
		{"9223372036854775807", math.MaxInt64, ""},
		{"-9223372036854775808.0", math.MinInt64, ""},
		{"9223372036854775808", 0, `decode numeric "9223372036854775808": value out of range: outside the int64 range`},
		{"-9223372036854775809", 0, `decode numeric "-9223372036854775809": value out of range: outside the int64 range`},
		{"1.5", 0, `decode numeric "1.5": value out of range: has a fractional part, so not an int64`},
		{"-0.0000000000000000000000001", 0, `decode numeric "-0.0000000000000000000000001": value out of range: has a fractional part, so not an int64`},
		{numDigits1000, 0, "outside the int64 range"},
		{"NaN", 0, `decode numeric "NaN": value out of range: not a finite value, so not an int64`},
		{"-Infinity", 0, "not a finite value"},
	} {
		t.Run(numName(tt.text), func(t *testing.T) {
			got, err := mustParseNumeric(t, tt.text).Int64()
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Errorf("Int64() = %d, %v; want %d", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, decode.ErrRange) {
				t.Errorf("Int64() = %d, %v; want an ErrRange error containing %q", got, err, tt.wantErr)
			}
		})
	}
}

func TestNumericFloat64(t *testing.T) {
	for _, tt := range []struct {
		text     string
		want     float64
		rangeErr bool
	}{
		{"1299.00", 1299, false},
		{"0.1", 0.1, false},
		{"-0.000001", -0.000001, false},
		{"NaN", math.NaN(), false},
		{"Infinity", math.Inf(1), false},
		{"-Infinity", math.Inf(-1), false},
		{"1" + strings.Repeat("0", 400), math.Inf(1), true},
		{"-1" + strings.Repeat("0", 400), math.Inf(-1), true},
		{"0." + strings.Repeat("0", 400) + "1", 0, false},
		{"-0." + strings.Repeat("0", 400) + "1", math.Copysign(0, -1), false},
	} {
		t.Run(numName(tt.text), func(t *testing.T) {
			got, err := mustParseNumeric(t, tt.text).Float64()
			if math.Float64bits(got) != math.Float64bits(tt.want) && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
				t.Errorf("Float64() = %v, want %v", got, tt.want)
			}
			if tt.rangeErr != errors.Is(err, decode.ErrRange) || (!tt.rangeErr && err != nil) {
				t.Errorf("Float64() error = %v, want ErrRange: %v", err, tt.rangeErr)
			}
		})
	}
	_, err := mustParseNumeric(t, "1"+strings.Repeat("0", 400)).Float64()
	if want := `decode numeric "1000000000000000000000000000000000000000000000000000000000000000"...: value out of range: beyond the float64 range`; err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
}

func TestNumericAppendJSON(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"1299.00", `1299.00`},
		{"-0.5", `-0.5`},
		{"0", `0`},
		{"NaN", `"NaN"`},
		{"Infinity", `"Infinity"`},
		{"-Infinity", `"-Infinity"`},
	} {
		t.Run(tt.text, func(t *testing.T) {
			if got := string(mustParseNumeric(t, tt.text).AppendJSON([]byte("x:"))); got != "x:"+tt.want {
				t.Errorf("AppendJSON = %s, want x:%s", got, tt.want)
			}
		})
	}
}

func TestNumericZero(t *testing.T) {
	if decode.Zero.Text() != "0" || decode.Zero.Sign() != 0 {
		t.Fatalf("Zero = %q, sign %d", decode.Zero.Text(), decode.Zero.Sign())
	}
	checkNumericAgainstApd(t, "0", decode.Zero)
	if n := mustParseNumeric(t, "0"); n != decode.Zero {
		t.Errorf("ParseNumeric(\"0\") is not the shared Zero")
	}
}

// TestNumericApdCopyIsDeep mutates the copies Apd and Decompose hand out, for
// inline (up to 128 bits) and big.Int coefficients: the shared value must not
// change. A struct copy of apd.Decimal would fail this for the long values,
// because apd.BigInt then shares its big.Int words.
func TestNumericApdCopyIsDeep(t *testing.T) {
	for _, text := range []string{
		"1299.00",
		"-9999999999999999999",
		"12345678901234567890123456789012345678",    // 38 digits, inline
		"123456789012345678901234567890123456789.5", // big.Int
		numDigits1000,
		"NaN",
	} {
		t.Run(numName(text), func(t *testing.T) {
			n := mustParseNumeric(t, text)
			want, _, _ := apd.NewFromString(text)

			c := n.Apd(nil)
			c.Coeff.Add(&c.Coeff, apd.NewBigInt(1))
			c.Coeff.Mul(&c.Coeff, &c.Coeff)
			c.Negative = !c.Negative
			c.Exponent += 3
			var dst apd.Decimal
			if got := n.Apd(&dst); got != &dst {
				t.Fatalf("Apd(&dst) returned %p, want &dst", got)
			}
			dst.Coeff.SetInt64(42)

			_, _, coeff, _ := n.Decompose(nil)
			clear(coeff)
			buf := make([]byte, 0, 1024)
			_, _, coeff, _ = n.Decompose(buf)
			clear(coeff)

			again := n.Apd(nil)
			if again.Form != want.Form || again.Negative != want.Negative || again.Exponent != want.Exponent || again.Coeff.Cmp(&want.Coeff) != 0 {
				t.Errorf("after mutating copies the value is %s, want %s", numName(again.String()), numName(want.String()))
			}
			if n.Text() != text {
				t.Errorf("Text() changed")
			}
		})
	}
}

// TestNumericSharedConcurrently reads one *Numeric from many goroutines; run
// it with -race.
func TestNumericSharedConcurrently(t *testing.T) {
	values := []*decode.Numeric{
		mustParseNumeric(t, "1299.00"),
		mustParseNumeric(t, "-12345678901234567890123456789012345678"),
		mustParseNumeric(t, numDigits1000+".5"),
		mustParseNumeric(t, "NaN"),
	}
	errc := make(chan error, 8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				n, m := values[(g+i)%len(values)], values[i%len(values)]
				d := n.Apd(nil)
				d.Coeff.Add(&d.Coeff, &d.Coeff)
				_, _, coeff, _ := n.Decompose(make([]byte, 0, 8))
				clear(coeff)
				_ = n.Cmp(m)
				_, _ = n.Float64()
				_, _ = n.Int64()
				_ = n.AppendJSON(nil)
				if want, _, _ := apd.NewFromString(n.Text()); n.Apd(nil).CmpTotal(want) != 0 {
					errc <- errors.New("value of " + numName(n.Text()) + " changed")
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("timed out")
	}
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

// numericInputTests holds ParseNumericInput cases. Each want was checked
// against PostgreSQL 15 with SELECT $1::numeric::text; an empty want is an
// error, ErrRange when rangeErr is set and ErrSyntax otherwise.
var numericInputTests = []struct {
	in       string
	want     string
	rangeErr bool
	pos      int // for syntax errors
}{
	// Canonical texts come back unchanged.
	{in: "1299.00", want: "1299.00"},
	{in: "-1299.00", want: "-1299.00"},
	{in: "0", want: "0"},
	{in: "NaN", want: "NaN"},
	{in: "-Infinity", want: "-Infinity"},
	{in: numDigits1000, want: numDigits1000},
	{in: numFrac16383, want: numFrac16383},
	// Special values.
	{in: "nan", want: "NaN"},
	{in: "NaN ", want: "NaN"},
	{in: " nAn", want: "NaN"},
	{in: "inf", want: "Infinity"},
	{in: "+inf", want: "Infinity"},
	{in: "-inf", want: "-Infinity"},
	{in: "-INFINITY", want: "-Infinity"},
	{in: " +Infinity", want: "Infinity"},
	{in: "  iNf  ", want: "Infinity"},
	// Signs, points, whitespace, leading zeros.
	{in: "-0", want: "0"},
	{in: "-0.00", want: "0.00"},
	{in: "+0.00", want: "0.00"},
	{in: "+.5", want: "0.5"},
	{in: ".5", want: "0.5"},
	{in: "-.5", want: "-0.5"},
	{in: "5.", want: "5"},
	{in: "5.0", want: "5.0"},
	{in: "+1", want: "1"},
	{in: "007.50", want: "7.50"},
	{in: "00", want: "0"},
	{in: "-000.000", want: "0.000"},
	{in: "0.000000000000000000000000000000000000000000000000000000000000000001", want: "0.000000000000000000000000000000000000000000000000000000000000000001"},
	{in: "\t1\n", want: "1"},
	{in: "\v1\f", want: "1"},
	{in: " \r-1.5 ", want: "-1.5"},
	// Exponents.
	{in: "1e3", want: "1000"},
	{in: "1E3", want: "1000"},
	{in: "1e+5", want: "100000"},
	{in: "1e0005", want: "100000"},
	{in: "1e000000000000000000002", want: "100"},
	{in: "1e-0", want: "1"},
	{in: "1e-2", want: "0.01"},
	{in: "1E-2", want: "0.01"},
	{in: "1.5e3", want: "1500"},
	{in: "1.50e1", want: "15.0"},
	{in: "12.3400e-1", want: "1.23400"},
	{in: "0.00001e5", want: "1"},
	{in: "0.000e5", want: "0"},
	{in: "-000.000e2", want: "0.0"},
	{in: "1.e2", want: "100"},
	{in: "  -1.5E-2  ", want: "-0.015"},
	{in: "123.456e1", want: "1234.56"},
	{in: "123.456e-3", want: "0.123456"},
	{in: "123.456e-5", want: "0.00123456"},
	{in: "-98765432109876543210.5e10", want: "-987654321098765432105000000000"},
	{in: "1e 5", want: "100000"}, // numeric_in reads the exponent with strtol, which skips whitespace
	{in: "1e\t5", want: "100000"},
	{in: "\r1e\n-2", want: "0.01"},
	{in: "1e5 ", want: "100000"},
	{in: "0e1000000", want: "0"},
	{in: "0e1073741822", want: "0"},
	{in: "0e-16383", want: "0." + strings.Repeat("0", 16383)},
	{in: "1.5e-16382", want: "0." + strings.Repeat("0", 16381) + "15"},
	{in: "1e100000", want: "1" + strings.Repeat("0", 100000)},
	// Range errors: "value overflows numeric format" in PostgreSQL, or beyond apd.
	{in: "0e-16384", rangeErr: true},
	{in: "1e-16384", rangeErr: true},
	{in: "0." + strings.Repeat("0", 16384), rangeErr: true},
	{in: "1.5e-16383", rangeErr: true},
	{in: "0e1073741823", rangeErr: true},
	{in: "0e-1073741821", rangeErr: true},
	{in: "1e2147483647", rangeErr: true},
	{in: "1e99999999999999999", rangeErr: true},
	{in: "1e-9999999999999999", rangeErr: true},
	{in: "1e131072", rangeErr: true},
	{in: "1e131071", rangeErr: true}, // PostgreSQL: 131072 digits; apd: too many
	{in: "1e100001", rangeErr: true},
	{in: numPGMaxInt, rangeErr: true},
	// Syntax errors.
	{in: "", pos: 0},
	{in: "   ", pos: 3},
	{in: "+nan", pos: 1},
	{in: "-nan", pos: 1},
	{in: "infinit", pos: 3},
	{in: "infinityx", pos: 8},
	{in: "nanx", pos: 3},
	{in: ".", pos: 1},
	{in: "-", pos: 1},
	{in: "+-1", pos: 1},
	{in: "1e", pos: 2},
	{in: "1e ", pos: 3},
	{in: "1e+ 5", pos: 3},
	{in: "1 e5", pos: 2},
	{in: "1e1.5", pos: 3},
	{in: ".e2", pos: 1},
	{in: "1e131071x", pos: 8},
	{in: "1_000", pos: 1},
	{in: "0x10", pos: 1},
	{in: "1..2", pos: 2},
	{in: "\b1", pos: 0},
	{in: "\u00a01", pos: 0}, // NO-BREAK SPACE is not C isspace
	{in: "1\x00", pos: 1},
	{in: "\u0661", pos: 0},
}

func TestParseNumericInput(t *testing.T) {
	for _, tt := range numericInputTests {
		t.Run(numName(tt.in), func(t *testing.T) {
			n, err := decode.ParseNumericInput(tt.in)
			switch {
			case tt.want != "":
				if err != nil {
					t.Fatalf("ParseNumericInput: %v", err)
				}
				if n.Text() != tt.want {
					t.Fatalf("Text() = %s, want %s", numName(n.Text()), numName(tt.want))
				}
				checkNumericAgainstApd(t, tt.want, n)
				if again, err := decode.ParseNumericInput(tt.want); err != nil || again.Text() != tt.want {
					t.Errorf("ParseNumericInput(%s) = %v, %v; want a fixed point", numName(tt.want), again, err)
				}
			case tt.rangeErr:
				if !errors.Is(err, decode.ErrRange) {
					t.Fatalf("ParseNumericInput = %v, %v; want ErrRange", n, err)
				}
			default:
				var de *decode.Error
				if !errors.As(err, &de) || !errors.Is(err, decode.ErrSyntax) {
					t.Fatalf("ParseNumericInput = %v, %v; want ErrSyntax", n, err)
				}
				if de.Pos != tt.pos {
					t.Errorf("Pos = %d, want %d (%v)", de.Pos, tt.pos, err)
				}
			}
		})
	}
}

func TestParseNumericInputErrorText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"1e+ 5", `decode numeric "1e+ 5": invalid syntax at byte 3: unexpected ' ', expected exponent digits`},
		{"+nan", `decode numeric "+nan": invalid syntax at byte 1: unexpected 'n', expected a digit`},
		{" 1 x", `decode numeric " 1 x": invalid syntax at byte 3: unexpected 'x'`},
		{"1e-16384", `decode numeric "1e-16384": value out of range: value overflows numeric format: scale 16384 is above 16383`},
	} {
		t.Run(tt.in, func(t *testing.T) {
			_, err := decode.ParseNumericInput(tt.in)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant  %s", err, tt.want)
			}
		})
	}
}

func mustParseNumeric(t testing.TB, text string) *decode.Numeric {
	t.Helper()
	n, err := decode.ParseNumeric(text)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// name shortens long texts for subtest names and messages.
func numName(s string) string {
	if len(s) <= 48 {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:20]) + "..." + strconv.Itoa(len(s)) + "B..." + strconv.Quote(s[len(s)-20:])
}
