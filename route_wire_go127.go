//go:build go1.27

package pgcache

import (
	sqldriver "database/sql/driver"
	"encoding/binary"
	"math"
	"time"
	"unsafe"
)

// The wire routes: a value the cache does not hold, decoded from its wire
// bytes into the value of its kind and handed to the route of that kind in
// the table, for the columns whose stdlib conversion the decoding reproduces
// exactly (planWire). Anything unusual — a length the type does not have, an
// infinite date or timestamp (whose driver value is the string "infinity"),
// a time outside pgx's range — reports done=false, so that stdlib's
// conversion and database/sql's give their own value or error.

// pgx's range of dates and timestamps; outside it its codecs fail.
var (
	minWireTime  = time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC)
	endWireDate  = time.Date(5874898, 1, 1, 0, 0, 0, 0, time.UTC)
	endWireStamp = time.Date(294277, 1, 1, 0, 0, 0, 0, time.UTC)
)

// The same range in the wire's units, days and microseconds from
// 2000-01-01, which wireTime tests before it builds a Time: two compares of
// integers instead of two of Times. (Its bounds are midnights, so the days
// divide exactly; the microseconds fit int64, as PostgreSQL's own do.)
var (
	minWireDays   = minWireTime.Unix()/86400 - unixToY2KDays
	endWireDays   = endWireDate.Unix()/86400 - unixToY2KDays
	minWireMicros = minWireTime.Unix()*1_000_000 - unixToY2KMicros
	endWireMicros = endWireStamp.Unix()*1_000_000 - unixToY2KMicros
)

const (
	unixToY2KDays    = 10957               // days from 1970-01-01 to 2000-01-01
	unixToY2KMicros  = 946_684_800_000_000 // microseconds from 1970-01-01 to 2000-01-01
	dateInfinity     = math.MaxInt32       // the infinite date's day offset
	dateNegInfinity  = math.MinInt32       //
	stampInfinity    = math.MaxInt64       // the infinite timestamp's microsecond offset
	stampNegInfinity = math.MinInt64       //
)

// scanWire fills the destination p, whose routes are rt, from raw (not
// NULL), a value of a column whose wire route is w.
func scanWire(scanCtx sqldriver.ScanContext, w wireKind, raw []byte, rt *destRoutes, p unsafe.Pointer) (done bool, err error) {
	switch w {
	case wireText:
		if f := rt.text; f != nil {
			return f(scanCtx, unsafeString(raw), nil, p)
		}
	case wireInt8:
		if f := rt.int; f != nil && len(raw) == 8 {
			return f(scanCtx, int64(binary.BigEndian.Uint64(raw)), nil, p)
		}
	case wireInt4:
		if f := rt.int; f != nil && len(raw) == 4 {
			return f(scanCtx, int64(int32(binary.BigEndian.Uint32(raw))), nil, p)
		}
	case wireInt2:
		if f := rt.int; f != nil && len(raw) == 2 {
			return f(scanCtx, int64(int16(binary.BigEndian.Uint16(raw))), nil, p)
		}
	case wireFloat8:
		if f := rt.float; f != nil && len(raw) == 8 {
			return f(scanCtx, math.Float64frombits(binary.BigEndian.Uint64(raw)), nil, p)
		}
	case wireFloat4:
		if f := rt.float; f != nil && len(raw) == 4 {
			return f(scanCtx, float64(math.Float32frombits(binary.BigEndian.Uint32(raw))), nil, p)
		}
	case wireBool:
		if f := rt.bool; f != nil && len(raw) == 1 {
			return f(raw[0] == 1, nil, p), nil
		}
	case wireDate, wireTimestamp, wireTimestamptz:
		if f := rt.time; f != nil {
			if t, ok := wireTime(w, raw); ok {
				return f(scanCtx, t, nil, p)
			}
		}
	}
	return false, nil
}

// wireTime decodes a binary date, timestamp or timestamptz (w) as pgx's
// default codecs do; ok is false for the infinities, a time outside pgx's
// range, and a length the type does not have.
func wireTime(w wireKind, raw []byte) (t time.Time, ok bool) {
	if w == wireDate {
		if len(raw) != 4 {
			return time.Time{}, false
		}
		days := int64(int32(binary.BigEndian.Uint32(raw)))
		if days < minWireDays || days >= endWireDays { // the infinities too
			return time.Time{}, false
		}
		// time.Date(2000, 1, 1+days, 0, 0, 0, 0, time.UTC), pgx's
		// spelling, is the same Time.
		return time.Unix((days+unixToY2KDays)*86400, 0).UTC(), true
	}
	if len(raw) != 8 {
		return time.Time{}, false
	}
	us := int64(binary.BigEndian.Uint64(raw))
	if us < minWireMicros || us >= endWireMicros { // the infinities too
		return time.Time{}, false
	}
	t = time.Unix(unixToY2KMicros/1_000_000+us/1_000_000, (unixToY2KMicros%1_000_000*1_000)+(us%1_000_000*1_000))
	if w == wireTimestamp {
		t = t.UTC()
	}
	return t, true
}

// unsafeString views b as a string for a route that copies what it keeps.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
