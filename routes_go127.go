//go:build go1.27

package pgcache

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"encoding/binary"
	"math"
	"strconv"
	"time"
	"unsafe"
)

// The scalar routes: what database/sql's conversion (sql.ConvertAssign)
// makes of one driver value of each Go type in the destinations people use
// most, written once and shared by every entry kind. Each assign function
// reports done=false where it has no route — another destination, a nil
// pointer, a value out of the destination's range — and the caller then
// hands the same value to sql.ConvertAssign, which gives database/sql's own
// result or error text. So a route never decides an error itself, and every
// kind offers the same destinations with the same rules.
//
// boxed is the value as a driver.Value when the caller has it boxed already
// (a cache entry's), or nil; *any and *sql.RawBytes destinations need it.

// assignText fills the destinations of a string driver value s: *string,
// *sql.NullString and *any share it, *[]byte gets a copy, and *sql.RawBytes a
// copy in the buffer database/sql keeps for it per *sql.Rows, which only
// ConvertAssign can reach.
func assignText(scanCtx sqldriver.ScanContext, s string, boxed sqldriver.Value, dest any) (done bool, err error) {
	switch d := dest.(type) {
	case *string:
		if d != nil {
			*d = s
			return true, nil
		}
	case *sql.NullString:
		if d != nil {
			*d = sql.NullString{String: s, Valid: true}
			return true, nil
		}
	case *any:
		if d != nil {
			*d = box(boxed, s)
			return true, nil
		}
	case *[]byte:
		if d != nil {
			*d = []byte(s) // the caller owns it: a fresh copy, as database/sql makes
			return true, nil
		}
	case *sql.RawBytes:
		return true, sql.ConvertAssign(scanCtx, dest, box(boxed, s))
	}
	return false, nil
}

// box returns boxed, or v boxed when boxed is nil.
func box[T any](boxed sqldriver.Value, v T) sqldriver.Value {
	if boxed != nil {
		return boxed
	}
	return v
}

// assignParsed fills the numeric destinations of a string driver value
// whose text parses as i (strconv.ParseInt(text, 10, 64), iOK) and f
// (strconv.ParseFloat(text, 64), fOK): database/sql parses the text with the
// destination's size, which for a value that fits is the same number.
func assignParsed(i int64, iOK bool, f float64, fOK bool, dest any) (done bool) {
	switch d := dest.(type) {
	case *float64:
		if d != nil && fOK {
			*d = f
			return true
		}
	case *sql.NullFloat64:
		if d != nil && fOK {
			*d = sql.NullFloat64{Float64: f, Valid: true}
			return true
		}
	default:
		return iOK && assignSigned(i, dest)
	}
	return false
}

// assignSigned fills the signed integer destinations with v where it fits
// them; database/sql parses the text of any integer driver value with the
// destination's size, so the rule is the same whether v came as an int64 or
// as the text of one.
func assignSigned(v int64, dest any) (done bool) {
	switch d := dest.(type) {
	case *int64:
		if d != nil {
			*d = v
			return true
		}
	case *int:
		if d != nil && int64(int(v)) == v {
			*d = int(v)
			return true
		}
	case *int32:
		if d != nil && v >= math.MinInt32 && v <= math.MaxInt32 {
			*d = int32(v)
			return true
		}
	case *int16:
		if d != nil && v >= math.MinInt16 && v <= math.MaxInt16 {
			*d = int16(v)
			return true
		}
	case *int8:
		if d != nil && v >= math.MinInt8 && v <= math.MaxInt8 {
			*d = int8(v)
			return true
		}
	case *sql.NullInt64:
		if d != nil {
			*d = sql.NullInt64{Int64: v, Valid: true}
			return true
		}
	case *sql.NullInt32:
		if d != nil && v >= math.MinInt32 && v <= math.MaxInt32 {
			*d = sql.NullInt32{Int32: int32(v), Valid: true}
			return true
		}
	case *sql.NullInt16:
		if d != nil && v >= math.MinInt16 && v <= math.MaxInt16 {
			*d = sql.NullInt16{Int16: int16(v), Valid: true}
			return true
		}
	}
	return false
}

// assignInt fills the destinations of an int64 driver value: every integer
// kind where v fits, the floats (database/sql parses v's decimal text, which
// rounds as the conversion does), *bool for 0 and 1, and the text kinds
// (strconv.FormatInt, one allocation, as database/sql makes it).
func assignInt(scanCtx sqldriver.ScanContext, v int64, boxed sqldriver.Value, dest any) (done bool, err error) {
	if assignSigned(v, dest) {
		return true, nil
	}
	switch d := dest.(type) {
	case *any:
		if d != nil {
			*d = box(boxed, v)
			return true, nil
		}
	case *float64:
		if d != nil {
			*d = float64(v)
			return true, nil
		}
	case *float32:
		if d != nil {
			*d = float32(v)
			return true, nil
		}
	case *sql.NullFloat64:
		if d != nil {
			*d = sql.NullFloat64{Float64: float64(v), Valid: true}
			return true, nil
		}
	case *uint64:
		if d != nil && v >= 0 {
			*d = uint64(v)
			return true, nil
		}
	case *uint:
		if d != nil && v >= 0 && uint64(uint(v)) == uint64(v) {
			*d = uint(v)
			return true, nil
		}
	case *uint32:
		if d != nil && v >= 0 && v <= math.MaxUint32 {
			*d = uint32(v)
			return true, nil
		}
	case *uint16:
		if d != nil && v >= 0 && v <= math.MaxUint16 {
			*d = uint16(v)
			return true, nil
		}
	case *uint8:
		if d != nil && v >= 0 && v <= math.MaxUint8 {
			*d = uint8(v)
			return true, nil
		}
	case *sql.NullByte:
		if d != nil && v >= 0 && v <= math.MaxUint8 {
			*d = sql.NullByte{Byte: uint8(v), Valid: true}
			return true, nil
		}
	case *bool:
		if d != nil && (v == 0 || v == 1) {
			*d = v == 1
			return true, nil
		}
	case *sql.NullBool:
		if d != nil && (v == 0 || v == 1) {
			*d = sql.NullBool{Bool: v == 1, Valid: true}
			return true, nil
		}
	case *string:
		if d != nil {
			*d = strconv.FormatInt(v, 10)
			return true, nil
		}
	case *sql.NullString:
		if d != nil {
			*d = sql.NullString{String: strconv.FormatInt(v, 10), Valid: true}
			return true, nil
		}
	case *[]byte:
		if d != nil {
			*d = strconv.AppendInt(nil, v, 10)
			return true, nil
		}
	case *sql.RawBytes:
		return true, sql.ConvertAssign(scanCtx, dest, box(boxed, v))
	}
	return false, nil
}

// assignFloat fills the destinations of a float64 driver value. (float32
// is left to database/sql: it rounds v's shortest decimal text, which can
// differ from rounding v.)
func assignFloat(scanCtx sqldriver.ScanContext, v float64, boxed sqldriver.Value, dest any) (done bool, err error) {
	switch d := dest.(type) {
	case *float64:
		if d != nil {
			*d = v
			return true, nil
		}
	case *sql.NullFloat64:
		if d != nil {
			*d = sql.NullFloat64{Float64: v, Valid: true}
			return true, nil
		}
	case *any:
		if d != nil {
			*d = box(boxed, v)
			return true, nil
		}
	case *string:
		if d != nil {
			*d = strconv.FormatFloat(v, 'g', -1, 64)
			return true, nil
		}
	case *sql.RawBytes:
		return true, sql.ConvertAssign(scanCtx, dest, box(boxed, v))
	}
	return false, nil
}

// assignBool fills the destinations of a bool driver value.
func assignBool(v bool, boxed sqldriver.Value, dest any) (done bool) {
	switch d := dest.(type) {
	case *bool:
		if d != nil {
			*d = v
			return true
		}
	case *sql.NullBool:
		if d != nil {
			*d = sql.NullBool{Bool: v, Valid: true}
			return true
		}
	case *any:
		if d != nil {
			*d = box(boxed, v)
			return true
		}
	}
	return false
}

// assignTime fills the destinations of a time.Time driver value: itself,
// and its RFC 3339 text for *string, as database/sql formats it.
func assignTime(scanCtx sqldriver.ScanContext, v time.Time, boxed sqldriver.Value, dest any) (done bool, err error) {
	switch d := dest.(type) {
	case *time.Time:
		if d != nil {
			*d = v
			return true, nil
		}
	case *sql.NullTime:
		if d != nil {
			*d = sql.NullTime{Time: v, Valid: true}
			return true, nil
		}
	case *any:
		if d != nil {
			*d = box(boxed, v)
			return true, nil
		}
	case *string:
		if d != nil {
			*d = v.Format(time.RFC3339Nano)
			return true, nil
		}
	case *sql.RawBytes:
		return true, sql.ConvertAssign(scanCtx, dest, box(boxed, v))
	}
	return false, nil
}

// assignValue fills dest from a driver value of any of the types pgx
// stdlib's conversions produce, by its type.
func assignValue(scanCtx sqldriver.ScanContext, value sqldriver.Value, dest any) (done bool, err error) {
	switch v := value.(type) {
	case string:
		return assignText(scanCtx, v, value, dest)
	case int64:
		return assignInt(scanCtx, v, value, dest)
	case float64:
		return assignFloat(scanCtx, v, value, dest)
	case time.Time:
		return assignTime(scanCtx, v, value, dest)
	case bool:
		return assignBool(v, value, dest), nil
	}
	return false, nil
}

// The wire routes: a value the cache does not hold, decoded from its wire
// bytes straight into dest, for the columns whose stdlib conversion the
// decoding reproduces exactly (planWire). Anything unusual — a length the
// type does not have, an infinite date or timestamp (whose driver value is
// the string "infinity"), a time outside pgx's range, a text that does not
// parse as the destination's number — reports done=false, so that stdlib's
// conversion and database/sql's give their own value or error.

// pgx's range of dates and timestamps; outside it its codecs fail.
var (
	minWireTime  = time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC)
	endWireDate  = time.Date(5874898, 1, 1, 0, 0, 0, 0, time.UTC)
	endWireStamp = time.Date(294277, 1, 1, 0, 0, 0, 0, time.UTC)
)

const (
	unixToY2KDays    = 10957               // days from 1970-01-01 to 2000-01-01
	unixToY2KMicros  = 946_684_800_000_000 // microseconds from 1970-01-01 to 2000-01-01
	dateInfinity     = math.MaxInt32       // the infinite date's day offset
	dateNegInfinity  = math.MinInt32       //
	stampInfinity    = math.MaxInt64       // the infinite timestamp's microsecond offset
	stampNegInfinity = math.MinInt64       //
)

// scanWire fills dest from raw (not NULL), a value of a column whose wire
// route is w.
func scanWire(scanCtx sqldriver.ScanContext, w wireKind, raw []byte, dest any) (done bool, err error) {
	switch w {
	case wireText:
		return scanWireText(scanCtx, raw, dest)
	case wireInt8:
		if len(raw) == 8 {
			return assignInt(scanCtx, int64(binary.BigEndian.Uint64(raw)), nil, dest)
		}
	case wireInt4:
		if len(raw) == 4 {
			return assignInt(scanCtx, int64(int32(binary.BigEndian.Uint32(raw))), nil, dest)
		}
	case wireInt2:
		if len(raw) == 2 {
			return assignInt(scanCtx, int64(int16(binary.BigEndian.Uint16(raw))), nil, dest)
		}
	case wireFloat8:
		if len(raw) == 8 {
			return assignFloat(scanCtx, math.Float64frombits(binary.BigEndian.Uint64(raw)), nil, dest)
		}
	case wireFloat4:
		if len(raw) == 4 {
			return assignFloat(scanCtx, float64(math.Float32frombits(binary.BigEndian.Uint32(raw))), nil, dest)
		}
	case wireBool:
		if len(raw) == 1 {
			return assignBool(raw[0] == 1, nil, dest), nil
		}
	case wireDate:
		if len(raw) == 4 {
			days := int64(int32(binary.BigEndian.Uint32(raw)))
			if days == dateInfinity || days == dateNegInfinity {
				return false, nil
			}
			// time.Date(2000, 1, 1+days, 0, 0, 0, 0, time.UTC), pgx's
			// spelling, is the same Time.
			t := time.Unix((days+unixToY2KDays)*86400, 0).UTC()
			if t.Before(minWireTime) || !t.Before(endWireDate) {
				return false, nil
			}
			return assignTime(scanCtx, t, nil, dest)
		}
	case wireTimestamp, wireTimestamptz:
		if len(raw) == 8 {
			us := int64(binary.BigEndian.Uint64(raw))
			if us == stampInfinity || us == stampNegInfinity {
				return false, nil
			}
			t := time.Unix(unixToY2KMicros/1_000_000+us/1_000_000, (unixToY2KMicros%1_000_000*1_000)+(us%1_000_000*1_000))
			if w == wireTimestamp {
				t = t.UTC()
			}
			if t.Before(minWireTime) || !t.Before(endWireStamp) {
				return false, nil
			}
			return assignTime(scanCtx, t, nil, dest)
		}
	}
	return false, nil
}

// scanWireText fills dest from a text-format value whose driver value is
// string(raw): the text destinations, with one allocation for a string,
// and the numbers and booleans database/sql parses
// the string into, parsed here without a copy.
func scanWireText(scanCtx sqldriver.ScanContext, raw []byte, dest any) (done bool, err error) {
	switch d := dest.(type) {
	case *string:
		if d != nil {
			*d = string(raw)
			return true, nil
		}
	case *sql.NullString:
		if d != nil {
			*d = sql.NullString{String: string(raw), Valid: true}
			return true, nil
		}
	case *[]byte:
		if d != nil {
			*d = append([]byte{}, raw...)
			return true, nil
		}
	case *sql.RawBytes:
		// Only database/sql reaches the buffer it keeps per *sql.Rows for
		// RawBytes (whose state decides, say, whether an empty text is nil);
		// it copies the text there at once, so a view of the wire bytes
		// will do, boxed: one allocation.
		return true, sql.ConvertAssign(scanCtx, dest, unsafeString(raw))
	case *any:
		if d != nil {
			*d = string(raw)
			return true, nil
		}
	case *float64, *sql.NullFloat64:
		f, err := strconv.ParseFloat(unsafeString(raw), 64)
		return err == nil && assignParsed(0, false, f, true, dest), nil
	case *bool:
		if b, err := strconv.ParseBool(unsafeString(raw)); err == nil && d != nil {
			*d = b
			return true, nil
		}
	case *int64, *int, *int32, *int16, *int8, *sql.NullInt64, *sql.NullInt32, *sql.NullInt16:
		i, err := strconv.ParseInt(unsafeString(raw), 10, 64)
		return err == nil && assignSigned(i, dest), nil
	}
	return false, nil
}

// unsafeString views b as a string for a parse that does not keep it.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
