package pgcache

import (
	sqldriver "database/sql/driver"
	"strconv"
	"strings"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/decode"
)

// numForms are the forms of one text that the numeric table's entry
// (numEntry) keeps. Everything a destination may want is derived from the
// text once, when the entry is admitted, so that a hit costs no parsing
// whatever it is scanned into:
//
//   - the text boxed once as a driver.Value (handing it to database/sql
//     allocates nothing) and as a string;
//   - the shared decimal that *Decimal scans receive;
//   - the float64 and int64 that strconv gives database/sql for *float64 and
//     *int64 destinations, with whether it succeeded (a failure falls back to
//     database/sql's own conversion and its error);
//   - the coefficient and exponent pgtype.Numeric's text scan produces.
//
// An entry is immutable once published, with one exception: on Go 1.27,
// whose direct routes alone use it, numEntry adds ext, the values for
// optional destination types (shopspring's decimal) that are built the
// first time one is scanned from this entry and published with one atomic
// store. A reader sees nil or the finished value; two readers racing to
// build it build equal values and either may win. So numEntry itself is
// defined per toolchain (rows_go126.go, route_entry_go127.go).
type numForms struct {
	value sqldriver.Value // a string, the text exactly as the server sent it
	text  string
	num   *decode.Numeric

	f64   float64
	i64   int64
	f64OK bool // strconv.ParseFloat(text, 64) succeeded
	i64OK bool // strconv.ParseInt(text, 10, 64) succeeded

	// pgtype.Numeric's text scan: NaN and the infinities, or Int = pgInt and
	// Exp = pgExp (a text of at most 8 bytes has a coefficient far inside int64).
	pgSpecial int8 // 0 finite, 1 NaN, 2 Infinity, 3 -Infinity
	pgExp     int32
	pgInt     int64
}

// newNumEntry derives every cached form of text, which ParseNumeric accepted
// as n.
func newNumEntry(text string, n *decode.Numeric) *numEntry {
	e := &numEntry{}
	e.value, e.text, e.num = text, text, n
	if f, err := strconv.ParseFloat(text, 64); err == nil {
		e.f64, e.f64OK = f, true
	}
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		e.i64, e.i64OK = i, true
	}
	switch {
	case n.IsNaN():
		e.pgSpecial = 1
	case n.IsInf(1):
		e.pgSpecial = 2
	case n.IsInf(-1):
		e.pgSpecial = 3
	default:
		e.pgInt, e.pgExp = pgtypeCoefficient(text)
	}
	return e
}

// pgtypeCoefficient returns the Int and Exp that pgtype.Numeric's text scan
// gives a canonical numeric text of at most 8 bytes: the digits without the
// point and minus the digits after it; a text without a point loses its
// trailing zeros into the exponent instead ("1200" is 12e2, "0" stays 0).
func pgtypeCoefficient(text string) (coeff int64, exp int32) {
	digits := text
	if intPart, frac, ok := strings.Cut(text, "."); ok {
		digits = intPart + frac
		exp = -int32(len(frac))
	} else {
		for len(digits) > 1 && digits[len(digits)-1] == '0' && digits[len(digits)-2] != '-' {
			digits = digits[:len(digits)-1]
			exp++
		}
	}
	coeff, _ = strconv.ParseInt(digits, 10, 64) // ≤ 8 digits: cannot fail for a canonical text
	return coeff, exp
}

// hsEntry is the hstore counterpart: the boxed text and the parsed value.
type hsEntry struct {
	value sqldriver.Value // a string
	text  string
	hs    decode.Hstore
}

// MaxHstoreText is the longest hstore text the cache takes. Longer texts are
// decoded on every read, so one huge value cannot pin memory in a slot. With
// 4096 slots it bounds the hstore table's worst case: at most 11 MiB (see
// "Bounded memory" in docs/guarantees.md).
const MaxHstoreText = 1024

// The process-wide tables. Numerics and hstores have separate tables so that
// neither can evict the other. The numeric table is a variable, not a
// pointer, so that the row loops' lookups need no nil check (advance).
var (
	numericTable cache.Short[*numEntry]
	hstoreTable  = cache.NewLong[*hsEntry](MaxHstoreText)
)

func init() { numericTable.Init() }
