package pgcache

import (
	"bytes"
	sqldriver "database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"

	"github.com/pgcache/pgcache/decode"
)

// Decimal is an immutable PostgreSQL numeric: its exact text (scale included:
// 1.50 and 1.500 are different Decimals that compare equal) and its value as
// an apd decimal. The zero Decimal is 0.
//
// A Decimal scanned from a cached column is shared: every row, connection and
// goroutine that reads the same text gets the same underlying value, with no
// allocation. That is safe because nothing can change it — Decimal has no
// exported fields and no mutating methods, and [Decimal.Apd] hands out a deep
// copy for arithmetic. Copy Decimals freely; compare them with [Decimal.Cmp],
// not ==.
type Decimal struct {
	n *decode.Numeric // nil means 0
}

// NullDecimal is a [Decimal] that may be SQL NULL.
type NullDecimal struct {
	Decimal Decimal
	Valid   bool // Valid is true if Decimal is not NULL
}

func (d Decimal) num() *decode.Numeric {
	if d.n == nil {
		return decode.Zero
	}
	return d.n
}

// ParseDecimal parses s the way PostgreSQL's numeric input does: surrounding
// spaces, a leading '+', exponents and case-insensitive NaN and Infinity are
// accepted, and the result holds the text PostgreSQL would print for it
// ("1.50e1" becomes "15.0").
func ParseDecimal(s string) (Decimal, error) {
	n, err := decode.ParseNumericInput(s)
	if err != nil {
		return Decimal{}, err
	}
	return Decimal{n}, nil
}

// DecimalFromApd returns the Decimal equal to x (NaN and infinities included).
// It fails for apd's signalling NaN, which PostgreSQL has no counterpart for.
func DecimalFromApd(x *apd.Decimal) (Decimal, error) {
	switch x.Form {
	case apd.NaN:
		return ParseDecimal("NaN")
	case apd.Infinite:
		if x.Negative {
			return ParseDecimal("-Infinity")
		}
		return ParseDecimal("Infinity")
	case apd.Finite:
		return ParseDecimal(x.Text('f'))
	}
	return Decimal{}, fmt.Errorf("pgcache: cannot represent apd value %s as a numeric", x.String())
}

// String returns the text, exactly as PostgreSQL printed it.
func (d Decimal) String() string { return d.num().Text() }

// Float64 returns the nearest float64, as strconv.ParseFloat would from the
// text (which is what database/sql gives a *float64): NaN for NaN, ±Inf for the
// infinities and, with an error, for finite values beyond float64's range.
func (d Decimal) Float64() (float64, error) { return d.num().Float64() }

// Int64 returns the value as an int64 when it is a whole number in range
// (12.00 is 12), and an error otherwise.
func (d Decimal) Int64() (int64, error) { return d.num().Int64() }

// Cmp compares d and e in PostgreSQL's order: -Infinity < finite values <
// Infinity < NaN, with NaN equal to itself. It returns -1, 0 or +1.
func (d Decimal) Cmp(e Decimal) int { return d.num().Cmp(e.num()) }

// Sign returns -1, 0 or +1; 0 for zero and for NaN.
func (d Decimal) Sign() int { return d.num().Sign() }

// IsNaN reports whether d is NaN.
func (d Decimal) IsNaN() bool { return d.num().IsNaN() }

// IsInf reports whether d is an infinity: +Infinity if sign > 0, -Infinity if
// sign < 0, either if sign == 0 (as math.IsInf).
func (d Decimal) IsInf(sign int) bool { return d.num().IsInf(sign) }

// Apd copies d into dst for arithmetic and returns dst (a new apd.Decimal when
// dst is nil). The copy is deep: changing it never changes d.
func (d Decimal) Apd(dst *apd.Decimal) *apd.Decimal { return d.num().Apd(dst) }

// Decompose implements the decimal interface database/sql uses to move
// decimals between types without going through strings.
func (d Decimal) Decompose(buf []byte) (form byte, negative bool, coefficient []byte, exponent int32) {
	return d.num().Decompose(buf)
}

// MarshalText returns the text.
func (d Decimal) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses text as [ParseDecimal] does.
func (d *Decimal) UnmarshalText(text []byte) error {
	v, err := ParseDecimal(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalJSON writes a finite value as a JSON number with its exact text, and
// NaN and the infinities, which JSON numbers cannot hold, as the strings
// "NaN", "Infinity" and "-Infinity".
func (d Decimal) MarshalJSON() ([]byte, error) { return d.num().AppendJSON(nil), nil }

// UnmarshalJSON accepts a JSON number or a string holding a number, NaN or an
// infinity. JSON null leaves d unchanged, as encoding/json does for other types.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		s, err := strconv.Unquote(string(b))
		if err != nil {
			return fmt.Errorf("pgcache: decimal JSON %s: %w", b, err)
		}
		b = []byte(s)
	}
	return d.UnmarshalText(b)
}

// Value implements driver.Valuer: the text, which PostgreSQL parses back to the
// same numeric.
func (d Decimal) Value() (sqldriver.Value, error) { return d.String(), nil }

// errNullDecimal is returned when NULL is scanned into a Decimal.
var errNullDecimal = errors.New("pgcache: cannot scan NULL into *pgcache.Decimal; use *pgcache.NullDecimal")

// Errors of a Scan into a nil pointer, which database/sql before Go 1.27
// hands to the Scan method.
var (
	errNilDecimal     = errors.New("pgcache: cannot scan into a nil *pgcache.Decimal")
	errNilNullDecimal = errors.New("pgcache: cannot scan into a nil *pgcache.NullDecimal")
)

// Scan implements sql.Scanner. For a text that pgcache's Rows found in the
// cache it stores the shared decimal without allocating; otherwise it decodes
// the value. It accepts the strings and byte slices any PostgreSQL driver
// returns for numeric columns, and int64 and float64 values.
func (d *Decimal) Scan(src any) error {
	if d == nil {
		return errNilDecimal
	}
	var n *decode.Numeric
	var err error
	switch v := src.(type) {
	case string:
		if shared, ok := lookupNumeric(v); ok {
			d.n = shared
			return nil
		}
		n, err = parseScanned(v)
	case []byte:
		n, err = parseScanned(string(v))
	case int64:
		n, err = decode.ParseNumeric(strconv.FormatInt(v, 10))
	case float64:
		n, err = numericFromFloat(v)
	case nil:
		return errNullDecimal
	default:
		return fmt.Errorf("pgcache: cannot scan %T into *pgcache.Decimal", src)
	}
	if err != nil {
		return err
	}
	d.n = n
	return nil
}

// parseScanned decodes a scanned string: strictly first (it is normally the
// server's own output), then leniently for text that came from elsewhere.
func parseScanned(s string) (*decode.Numeric, error) {
	n, err := decode.ParseNumeric(s)
	if err == nil {
		return n, nil
	}
	if n, err2 := decode.ParseNumericInput(s); err2 == nil {
		return n, nil
	}
	return nil, err
}

func numericFromFloat(f float64) (*decode.Numeric, error) {
	switch {
	case math.IsNaN(f):
		return decode.ParseNumeric("NaN")
	case math.IsInf(f, 1):
		return decode.ParseNumeric("Infinity")
	case math.IsInf(f, -1):
		return decode.ParseNumeric("-Infinity")
	}
	return decode.ParseNumericInput(strconv.FormatFloat(f, 'f', -1, 64))
}

// Scan implements sql.Scanner; NULL sets Valid to false.
func (n *NullDecimal) Scan(src any) error {
	if n == nil {
		return errNilNullDecimal
	}
	if src == nil {
		*n = NullDecimal{}
		return nil
	}
	if err := n.Decimal.Scan(src); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// Value implements driver.Valuer: nil when not Valid.
func (n NullDecimal) Value() (sqldriver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.Decimal.Value()
}

// MarshalJSON writes null when not Valid.
func (n NullDecimal) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.Decimal.MarshalJSON()
}

// UnmarshalJSON reads null as not Valid.
func (n *NullDecimal) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*n = NullDecimal{}
		return nil
	}
	if err := n.Decimal.UnmarshalJSON(b); err != nil {
		return err
	}
	n.Valid = true
	return nil
}
