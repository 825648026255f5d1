//go:build go1.27

package pgcache

import (
	sqldriver "database/sql/driver"
	"encoding/binary"
	"math"
	"unsafe"
)

// The wire routes: a value the cache does not hold, decoded from its wire
// bytes into the value of its kind and handed to the route of that kind in
// the table, for the columns whose stdlib conversion the decoding reproduces
// exactly (planWire). Anything unusual — a length the type does not have, an
// infinite date or timestamp (whose driver value is the string "infinity"),
// a time outside pgx's range — reports done=false, so that stdlib's
// conversion and database/sql's give their own value or error.

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

// unsafeString views b as a string for a route that copies what it keeps.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
