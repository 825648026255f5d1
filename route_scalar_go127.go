//go:build go1.27

package pgcache

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"math"
	"strconv"
	"time"
	"unsafe"
)

// The route table's routes of the int, float, bool and time kinds
// (route_table_go127.go), and the signed integer destinations every numeric kind
// shares.

// The signed integer destinations take v where it fits them; database/sql
// parses the text of any integer driver value with the destination's size,
// so the rule is the same whether v came as an int64 or as the text of one.

type signed interface {
	int | int64 | int32 | int16 | int8
}

// setSigned stores v in the *T p where it fits.
func setSigned[T signed](v int64, p unsafe.Pointer) bool {
	if p == nil || int64(T(v)) != v {
		return false
	}
	*(*T)(p) = T(v)
	return true
}

// setNullSigned stores v in the sql.NullInt64, NullInt32 or NullInt16 (by
// T) p where it fits.
func setNullSigned[T int64 | int32 | int16](v int64, p unsafe.Pointer) bool {
	if p == nil || int64(T(v)) != v {
		return false
	}
	switch any(T(0)).(type) {
	case int64:
		*(*sql.NullInt64)(p) = sql.NullInt64{Int64: v, Valid: true}
	case int32:
		*(*sql.NullInt32)(p) = sql.NullInt32{Int32: int32(v), Valid: true}
	default:
		*(*sql.NullInt16)(p) = sql.NullInt16{Int16: int16(v), Valid: true}
	}
	return true
}

// The int routes: an int64 driver value. Every integer kind takes v where
// it fits, the floats too (database/sql parses v's decimal text, which
// rounds as the conversion does), *bool takes 0 and 1, and the text kinds
// its decimal text (strconv.FormatInt, one allocation, as database/sql
// makes it).

func intInt64(_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*int64)(p) = v
	return true, nil
}

func intSigned[T signed](_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	return setSigned[T](v, p), nil
}

func intNullSigned[T int64 | int32 | int16](_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	return setNullSigned[T](v, p), nil
}

func intUnsigned[T uint | uint64 | uint32 | uint16 | uint8](_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil || v < 0 || uint64(T(v)) != uint64(v) {
		return false, nil
	}
	*(*T)(p) = T(v)
	return true, nil
}

func intNullByte(_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil || v < 0 || v > math.MaxUint8 {
		return false, nil
	}
	*(*sql.NullByte)(p) = sql.NullByte{Byte: uint8(v), Valid: true}
	return true, nil
}

func intAny(_ sqldriver.ScanContext, v int64, boxed sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*any)(p) = boxOr(boxed, v)
	return true, nil
}

func intFloat64(_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*float64)(p) = float64(v)
	return true, nil
}

func intFloat32(_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*float32)(p) = float32(v)
	return true, nil
}

func intNullFloat64(_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*sql.NullFloat64)(p) = sql.NullFloat64{Float64: float64(v), Valid: true}
	return true, nil
}

func intBool(_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil || (v != 0 && v != 1) {
		return false, nil
	}
	*(*bool)(p) = v == 1
	return true, nil
}

func intNullBool(_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil || (v != 0 && v != 1) {
		return false, nil
	}
	*(*sql.NullBool)(p) = sql.NullBool{Bool: v == 1, Valid: true}
	return true, nil
}

func intString(_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*string)(p) = strconv.FormatInt(v, 10)
	return true, nil
}

func intNullString(_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*sql.NullString)(p) = sql.NullString{String: strconv.FormatInt(v, 10), Valid: true}
	return true, nil
}

func intBytes(_ sqldriver.ScanContext, v int64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*[]byte)(p) = strconv.AppendInt(nil, v, 10)
	return true, nil
}

func intRawBytes(scanCtx sqldriver.ScanContext, v int64, boxed sqldriver.Value, p unsafe.Pointer) (bool, error) {
	return rawBytes(scanCtx, boxOr(boxed, v), p)
}

// The float routes: a float64 driver value. (float32 is left to
// database/sql: it rounds v's shortest decimal text, which can differ from
// rounding v.)

func floatFloat64(_ sqldriver.ScanContext, v float64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*float64)(p) = v
	return true, nil
}

func floatNullFloat64(_ sqldriver.ScanContext, v float64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*sql.NullFloat64)(p) = sql.NullFloat64{Float64: v, Valid: true}
	return true, nil
}

func floatAny(_ sqldriver.ScanContext, v float64, boxed sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*any)(p) = boxOr(boxed, v)
	return true, nil
}

func floatString(_ sqldriver.ScanContext, v float64, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*string)(p) = strconv.FormatFloat(v, 'g', -1, 64)
	return true, nil
}

func floatRawBytes(scanCtx sqldriver.ScanContext, v float64, boxed sqldriver.Value, p unsafe.Pointer) (bool, error) {
	return rawBytes(scanCtx, boxOr(boxed, v), p)
}

// The bool routes: a bool driver value.

func boolBool(v bool, _ sqldriver.Value, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	*(*bool)(p) = v
	return true
}

func boolNullBool(v bool, _ sqldriver.Value, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	*(*sql.NullBool)(p) = sql.NullBool{Bool: v, Valid: true}
	return true
}

func boolAny(v bool, boxed sqldriver.Value, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	*(*any)(p) = boxOr(boxed, v)
	return true
}

// The time routes: a time.Time driver value, itself and its RFC 3339 text
// for *string, as database/sql formats it.

func timeTime(_ sqldriver.ScanContext, v time.Time, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*time.Time)(p) = v
	return true, nil
}

func timeNullTime(_ sqldriver.ScanContext, v time.Time, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*sql.NullTime)(p) = sql.NullTime{Time: v, Valid: true}
	return true, nil
}

func timeAny(_ sqldriver.ScanContext, v time.Time, boxed sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*any)(p) = boxOr(boxed, v)
	return true, nil
}

func timeString(_ sqldriver.ScanContext, v time.Time, _ sqldriver.Value, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*string)(p) = v.Format(time.RFC3339Nano)
	return true, nil
}

func timeRawBytes(scanCtx sqldriver.ScanContext, v time.Time, boxed sqldriver.Value, p unsafe.Pointer) (bool, error) {
	return rawBytes(scanCtx, boxOr(boxed, v), p)
}
