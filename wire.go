package pgcache

import (
	sqldriver "database/sql/driver"
	"encoding/binary"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/internal/box"
)

// Decoding fixed-size binary values by hand, exactly as pgx's default
// codecs do: Go 1.27's wire routes (route_wire_go127.go) hand the decoded
// value to the destination's route, and a plain column's conversion
// (columnValueFunc, wireValueFunc) boxes it as the driver value, on every
// Go version. Anything unusual — a length the type does not have, an
// infinite date or timestamp (whose driver value is the string
// "infinity"), a time outside pgx's range — is left to pgx's codecs, which
// give their own value or error.

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
	unixToY2KDays   = 10957               // days from 1970-01-01 to 2000-01-01
	unixToY2KMicros = 946_684_800_000_000 // microseconds from 1970-01-01 to 2000-01-01
)

// binaryWires are the kinds of the binary types decoded by hand, by OID.
var binaryWires = map[uint32]wireKind{
	pgtype.Int8OID: wireInt8, pgtype.Int4OID: wireInt4, pgtype.Int2OID: wireInt2,
	pgtype.Float8OID: wireFloat8, pgtype.Float4OID: wireFloat4, pgtype.BoolOID: wireBool,
	pgtype.DateOID: wireDate, pgtype.TimestampOID: wireTimestamp, pgtype.TimestamptzOID: wireTimestamptz,
}

// wireCodecs are pgx's default codecs of binaryWires' types.
var wireCodecs = func() map[uint32]pgtype.Codec {
	m := pgtype.NewMap()
	codecs := make(map[uint32]pgtype.Codec, len(binaryWires))
	for oid := range binaryWires {
		t, _ := m.TypeForOID(oid)
		codecs[oid] = t.Codec
	}
	return codecs
}()

// binaryWire returns the kind of a column whose values arrive in binary
// and decode by hand: one of binaryWires' types, which the connection
// decodes with pgx's default codec (see sameCodec); wireNone for any other.
func binaryWire(m *pgtype.Map, fd *pgconn.FieldDescription) wireKind {
	w, ok := binaryWires[fd.DataTypeOID]
	if !ok || fd.Format != pgx.BinaryFormatCode || !sameCodec(m, fd.DataTypeOID, wireCodecs[fd.DataTypeOID]) {
		return wireNone
	}
	return w
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

// wireValueFunc returns a conversion of a plain column of the binary kind
// w (binaryWire) that decodes its values by hand and leaves the rest to
// conv, its stdlib conversion: NULL, a length the type does not have, and
// the times wireTime refuses; float4 and bool, whose boxing is free or
// rare, keep conv. Uncached, a date costs 172 instructions a value and a
// timestamptz 185, fewer than a hit in their tables (223, 220; the kinds
// table of bench/README.md, "The default kinds per toolchain").
func wireValueFunc(w wireKind, conv convFunc) convFunc {
	switch w {
	case wireInt8:
		var s box.Slab[int64]
		return func(src []byte) (sqldriver.Value, error) {
			if len(src) == 8 {
				return intValue(&s, int64(binary.BigEndian.Uint64(src))), nil
			}
			return conv(src)
		}
	case wireInt4:
		var s box.Slab[int64]
		return func(src []byte) (sqldriver.Value, error) {
			if len(src) == 4 {
				return intValue(&s, int64(int32(binary.BigEndian.Uint32(src)))), nil
			}
			return conv(src)
		}
	case wireInt2:
		var s box.Slab[int64]
		return func(src []byte) (sqldriver.Value, error) {
			if len(src) == 2 {
				return intValue(&s, int64(int16(binary.BigEndian.Uint16(src)))), nil
			}
			return conv(src)
		}
	case wireFloat8:
		var s box.Slab[float64]
		return func(src []byte) (sqldriver.Value, error) {
			if len(src) == 8 {
				return s.Box(math.Float64frombits(binary.BigEndian.Uint64(src))), nil
			}
			return conv(src)
		}
	case wireDate, wireTimestamp, wireTimestamptz:
		var s box.Slab[time.Time]
		return func(src []byte) (sqldriver.Value, error) {
			if t, ok := wireTime(w, src); ok {
				return s.Box(t), nil
			}
			return conv(src)
		}
	}
	return conv
}
