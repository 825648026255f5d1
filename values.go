package pgcache

import (
	sqldriver "database/sql/driver"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/decode"
)

// numEntry is what the numeric table keeps for one text: the text boxed once
// as a driver.Value (so handing it to database/sql allocates nothing) and the
// shared decimal that *Decimal scans receive.
type numEntry struct {
	value sqldriver.Value // a string, the text exactly as the server sent it
	num   *decode.Numeric
}

// hsEntry is the hstore counterpart: the boxed text and the parsed value.
type hsEntry struct {
	value sqldriver.Value // a string
	hs    decode.Hstore
}

// MaxHstoreText is the longest hstore text the cache takes. Longer texts are
// decoded on every read, so one huge value cannot pin memory in a slot. With
// 4096 slots it bounds the hstore table's worst case (see README "Memory").
const MaxHstoreText = 1024

// The process-wide tables. Numerics and hstores have separate tables so that
// neither can evict the other.
var (
	numericTable = cache.NewShort[numEntry]()
	hstoreTable  = cache.NewLong[hsEntry](MaxHstoreText)
)

// numericValue returns the driver value for one numeric text: the same string
// pgx stdlib returns. A text of up to 8 bytes is looked up by its packed key;
// on its second sighting in a row in its slot it is decoded and admitted.
// Longer texts, and texts that do not decode (which the server never sends),
// bypass the cache.
func numericValue(raw []byte, c *cache.Counts) (v sqldriver.Value, reused bool) {
	return numericValueIn(numericTable, raw, c)
}

// numericValueIn is numericValue with the table as a parameter, for tests
// that must not disturb the process-wide one.
func numericValueIn(t *cache.Short[numEntry], raw []byte, c *cache.Counts) (v sqldriver.Value, reused bool) {
	key, ok := cache.Pack(raw)
	if !ok {
		c.Bypasses++
		return string(raw), false
	}
	if e, ok := t.Get(key); ok {
		c.Hits++
		return e.value, true
	}
	if !t.Sight(key) {
		c.Misses++
		return string(raw), false
	}
	s := string(raw)
	n, err := decode.ParseNumeric(s)
	if err != nil {
		c.Bypasses++
		return s, false
	}
	e := numEntry{value: s, num: n}
	t.Put(key, e)
	c.Admissions++
	return e.value, true
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
	return e.num, ok
}

// hstoreValue is numericValue for hstore texts, keyed by a hash of the whole
// text. The empty hstore is short enough to decode on every read.
func hstoreValue(raw []byte, c *cache.Counts) (v sqldriver.Value, reused bool) {
	return hstoreValueIn(hstoreTable, raw, c)
}

// hstoreValueIn is hstoreValue with the table as a parameter, for tests that
// must not disturb the process-wide one.
func hstoreValueIn(t *cache.Long[hsEntry], raw []byte, c *cache.Counts) (v sqldriver.Value, reused bool) {
	if len(raw) == 0 || len(raw) > t.MaxText() {
		c.Bypasses++
		return string(raw), false
	}
	h := t.Hash(raw)
	if e, ok := t.Get(h, raw); ok {
		c.Hits++
		return e.value, true
	}
	if !t.Sight(h) {
		c.Misses++
		return string(raw), false
	}
	s := string(raw)
	hs, err := decode.ParseHstore(s)
	if err != nil {
		c.Bypasses++
		return s, false
	}
	e := hsEntry{value: s, hs: hs}
	t.Put(h, s, e)
	c.Admissions++
	return e.value, true
}

// lookupHstore is lookupNumeric for hstore: no sighting is recorded.
func lookupHstore(text string) (decode.Hstore, bool) {
	if len(text) == 0 || len(text) > hstoreTable.MaxText() {
		return decode.Hstore{}, false
	}
	e, ok := hstoreTable.GetString(hstoreTable.HashString(text), text)
	return e.hs, ok
}
