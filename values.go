package pgcache

import (
	sqldriver "database/sql/driver"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/decode"
	"github.com/pgcache/pgcache/internal/backoff"
)

// numEntry is what the numeric table keeps for one text. Everything a
// destination may want is derived from the text once, when the entry is
// admitted, so that a hit costs no parsing whatever it is scanned into:
//
//   - the text boxed once as a driver.Value (handing it to database/sql
//     allocates nothing) and as a string;
//   - the shared decimal that *Decimal scans receive;
//   - the float64 and int64 that strconv gives database/sql for *float64 and
//     *int64 destinations, with whether it succeeded (a failure falls back to
//     database/sql's own conversion and its error);
//   - the coefficient and exponent pgtype.Numeric's text scan produces.
//
// An entry is immutable once published, with one exception: ext holds values
// for optional destination types (shopspring's decimal) that are built the
// first time one is scanned from this entry and published with one atomic
// store. A reader sees nil or the finished value; two readers racing to build
// it build equal values and either may win.
type numEntry struct {
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

	//lint:ignore U1000 used by the Go 1.27 direct routes (scan_go127.go)
	ext atomic.Pointer[numExt]
}

// numExt holds lazily built values of an entry; see numEntry.
//
//lint:ignore U1000 used by the Go 1.27 direct routes (scan_go127.go)
type numExt struct {
	shop any // a shopspring decimal.Decimal, or nil when its Scan rejects the text
}

// newNumEntry derives every cached form of text, which ParseNumeric accepted
// as n.
func newNumEntry(text string, n *decode.Numeric) *numEntry {
	e := &numEntry{value: text, text: text, num: n}
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
// 4096 slots it bounds the hstore table's worst case (see README "Memory").
const MaxHstoreText = 1024

// The process-wide tables. Numerics and hstores have separate tables so that
// neither can evict the other.
var (
	numericTable = cache.NewShort[*numEntry]()
	hstoreTable  = cache.NewLong[*hsEntry](MaxHstoreText)
)

// sightShort is the read path every packed-key table shares. A hit returns
// the entry. A miss records a sighting; on the second sighting in a row in
// its slot, build makes the entry from the text and it is published —
// unless build fails (the text does not decode, which the server never
// sends), a bypass. build runs only on admission. The caller, given no entry
// (o == missed), uses the text itself, exactly as stdlib does.
func sightShort[V any](t *cache.Short[V], key uint64, raw []byte, c *cache.Counts, build func(raw []byte) (V, bool)) (v V, o backoff.Outcome) {
	if v, ok := t.Get(key); ok {
		c.Hits++
		return v, backoff.Hit
	}
	return admitShort(t, key, raw, c, build)
}

// admitShort is sightShort after its lookup missed: the sighting, and the
// admission on a second one. Rows.advance calls it when its own lookup
// missed.
func admitShort[V any](t *cache.Short[V], key uint64, raw []byte, c *cache.Counts, build func(raw []byte) (V, bool)) (v V, o backoff.Outcome) {
	var none V
	if !t.Sight(key) {
		c.Misses++
		return none, backoff.Missed
	}
	v, ok := build(raw)
	if !ok {
		c.Bypasses++
		return none, backoff.Missed
	}
	t.Put(key, v)
	c.Admissions++
	return v, backoff.Admitted
}

// sightLong is sightShort for the hashed tables: raw (at most t.MaxText()
// bytes, not empty) is keyed by its hash and a hit needs the same bytes.
// build returns the entry and the text the table keeps, which may share the
// entry's own copy.
func sightLong[V any](t *cache.Long[V], raw []byte, c *cache.Counts, build func(raw []byte) (V, string, bool)) (v V, o backoff.Outcome) {
	var none V
	h := t.Hash(raw)
	if v, ok := t.Get(h, raw); ok {
		c.Hits++
		return v, backoff.Hit
	}
	if !t.Sight(h) {
		c.Misses++
		return none, backoff.Missed
	}
	v, text, ok := build(raw)
	if !ok {
		c.Bypasses++
		return none, backoff.Missed
	}
	t.Put(h, text, v)
	c.Admissions++
	return v, backoff.Admitted
}

// lookupNumericRaw records one sighting of a numeric text (see sightShort);
// texts too long to pack bypass the table.
func lookupNumericRaw(t *cache.Short[*numEntry], raw []byte, c *cache.Counts) (e *numEntry, o backoff.Outcome) {
	key, ok := cache.Pack(raw)
	if !ok {
		c.Bypasses++
		return nil, backoff.Missed
	}
	return sightShort(t, key, raw, c, buildNumEntry)
}

// buildNumEntry decodes a numeric text into its entry; ok is false when it
// does not decode.
func buildNumEntry(raw []byte) (e *numEntry, ok bool) {
	s := string(raw)
	n, err := decode.ParseNumeric(s)
	if err != nil {
		return nil, false
	}
	return newNumEntry(s, n), true
}

// numericValueIn returns the driver value for one numeric text read through
// table t: the same string pgx stdlib returns, pre-boxed when the text is
// cached. Rows use lookupNumericRaw; tests use this with tables of their own.
func numericValueIn(t *cache.Short[*numEntry], raw []byte, c *cache.Counts) (v sqldriver.Value, reused bool) {
	if e, o := lookupNumericRaw(t, raw, c); e != nil {
		return e.value, o != backoff.Missed
	}
	return string(raw), false
}

// lookupNumeric finds the shared decimal for text without recording a
// sighting: Rows.Next already recorded this value, and [Decimal.Scan] must not
// count it a second time (or every value would be admitted on first read).
func lookupNumeric(text string) (*decode.Numeric, bool) {
	key, ok := cache.PackString(text)
	if !ok {
		return nil, false
	}
	e, ok := numericTable.Get(key)
	if !ok {
		return nil, false
	}
	return e.num, true
}

// lookupHstoreRaw is lookupNumericRaw for hstore texts, keyed by a hash of the
// whole text. The empty hstore is short enough to decode on every read.
func lookupHstoreRaw(t *cache.Long[*hsEntry], raw []byte, c *cache.Counts) (e *hsEntry, o backoff.Outcome) {
	if len(raw) == 0 || len(raw) > t.MaxText() {
		c.Bypasses++
		return nil, backoff.Missed
	}
	return sightLong(t, raw, c, buildHsEntry)
}

// buildHsEntry parses an hstore text into its entry and the text the table
// keeps; ok is false when it does not parse.
func buildHsEntry(raw []byte) (e *hsEntry, text string, ok bool) {
	s := string(raw)
	hs, err := decode.ParseHstore(s)
	if err != nil {
		return nil, "", false
	}
	return &hsEntry{value: s, text: s, hs: hs}, s, true
}

// hstoreValueIn is numericValueIn for hstore texts.
func hstoreValueIn(t *cache.Long[*hsEntry], raw []byte, c *cache.Counts) (v sqldriver.Value, reused bool) {
	if e, o := lookupHstoreRaw(t, raw, c); e != nil {
		return e.value, o != backoff.Missed
	}
	return string(raw), false
}

// lookupHstore is lookupNumeric for hstore: no sighting is recorded.
func lookupHstore(text string) (decode.Hstore, bool) {
	if len(text) == 0 || len(text) > hstoreTable.MaxText() {
		return decode.Hstore{}, false
	}
	e, ok := hstoreTable.GetString(hstoreTable.HashString(text), text)
	if !ok {
		return decode.Hstore{}, false
	}
	return e.hs, true
}
