package pgcache

import (
	sqldriver "database/sql/driver"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// textValue is stdlib's conversion of a text-format column pgx has no
// natural Go type for: the text itself.
func textValue(src []byte) (sqldriver.Value, error) { return string(src), nil }

// wireKind names a plain column's decoding on Go 1.27's direct routes
// (rows_go127.go): what its wire bytes are, when decoding them by hand gives
// exactly the driver value its stdlib conversion (plainValueFunc) gives.
type wireKind uint8

const (
	wireNone        wireKind = iota // no route: pgx stdlib's road
	wireText                        // a text-format value stdlib returns as string(raw)
	wireInt8                        // binary int8, int4, int2, with pgx's default codec
	wireInt4                        //
	wireInt2                        //
	wireFloat8                      // binary float8 and float4, pgx's default codec
	wireFloat4                      //
	wireBool                        // binary bool, pgx's default codec
	wireDate                        // binary date, pgx's default codec (UTC)
	wireTimestamp                   // binary timestamp, pgx's default codec (UTC)
	wireTimestamptz                 // binary timestamptz, pgx's default codec (time.Local)
)

// convFunc is a column's conversion as stdlib makes it: wire bytes (not
// NULL) to driver value.
type convFunc func(src []byte) (sqldriver.Value, error)

// plainValueFunc returns the conversion pgx stdlib applies to a column of this
// type: a handful of types become their natural Go value, everything else the
// text the server sent. Each function keeps its scan target between rows, as
// stdlib's does, so values match stdlib's in every respect.
func plainValueFunc(m *pgtype.Map, fd *pgconn.FieldDescription) func([]byte) (sqldriver.Value, error) {
	// The commonest types skip scanAs's conversion function (a second
	// indirect call per value, which made pgcache=off measurably dearer than
	// stdlib on plain columns): scanDirect, and int4 by hand for its widening.
	switch fd.DataTypeOID {
	case pgtype.BoolOID:
		return scanDirect[bool](m, fd)
	case pgtype.ByteaOID, pgtype.JSONOID, pgtype.JSONBOID, pgtype.XMLOID:
		return scanAs(m, fd, func(v *[]byte) (sqldriver.Value, error) { return *v, nil })
	case pgtype.CIDOID, pgtype.OIDOID, pgtype.XIDOID:
		return scanAs(m, fd, (*pgtype.Uint32).Value)
	case pgtype.DateOID:
		return scanAs(m, fd, (*pgtype.Date).Value)
	case pgtype.TimestampOID:
		return scanAs(m, fd, (*pgtype.Timestamp).Value)
	case pgtype.TimestamptzOID:
		return scanAs(m, fd, (*pgtype.Timestamptz).Value)
	case pgtype.Float4OID:
		return scanAs(m, fd, func(v *float32) (sqldriver.Value, error) { return float64(*v), nil })
	case pgtype.Float8OID:
		return scanDirect[float64](m, fd)
	case pgtype.Int2OID:
		return scanAs(m, fd, func(v *int16) (sqldriver.Value, error) { return int64(*v), nil })
	case pgtype.Int4OID:
		var v int32
		plan := m.PlanScan(fd.DataTypeOID, fd.Format, &v)
		return func(src []byte) (sqldriver.Value, error) {
			if err := plan.Scan(src, &v); err != nil {
				return nil, err
			}
			return int64(v), nil
		}
	case pgtype.Int8OID:
		return scanDirect[int64](m, fd)
	default:
		return scanDirect[string](m, fd)
	}
}

// scanDirect is scanAs for a type that is its own driver value: the boxing
// is in the closure, with no conversion function to call.
func scanDirect[T bool | float64 | int64 | string](m *pgtype.Map, fd *pgconn.FieldDescription) func([]byte) (sqldriver.Value, error) {
	var v T
	plan := m.PlanScan(fd.DataTypeOID, fd.Format, &v)
	return func(src []byte) (sqldriver.Value, error) {
		if err := plan.Scan(src, &v); err != nil {
			return nil, err
		}
		return v, nil
	}
}

// scanAs plans a scan of the column into a T once and converts each scanned
// value with conv.
func scanAs[T any](m *pgtype.Map, fd *pgconn.FieldDescription, conv func(*T) (sqldriver.Value, error)) func([]byte) (sqldriver.Value, error) {
	var target T
	plan := m.PlanScan(fd.DataTypeOID, fd.Format, &target)
	return func(src []byte) (sqldriver.Value, error) {
		if err := plan.Scan(src, &target); err != nil {
			return nil, err
		}
		return conv(&target)
	}
}

// PostgreSQL packs a variable-length type's declared length into its type
// modifier after a 4-byte header; -1 means no modifier was declared.
const (
	typmodHeader = 4
	noTypmod     = -1
)

// ColumnTypeDatabaseTypeName returns the upper-case type name pgx knows for
// the column's OID, or the OID in decimal when pgx does not know it (hstore,
// for instance, unless registered) — the same as stdlib.
func (r *Rows) ColumnTypeDatabaseTypeName(index int) string {
	oid := r.rows.FieldDescriptions()[index].DataTypeOID
	if t, ok := r.conn.conn.TypeMap().TypeForOID(oid); ok {
		return strings.ToUpper(t.Name)
	}
	return strconv.FormatUint(uint64(oid), 10)
}

// ColumnTypeLength reports the declared length of text, bytea, varchar, bpchar
// and varbit columns (math.MaxInt64 when unbounded), as stdlib does.
func (r *Rows) ColumnTypeLength(index int) (int64, bool) {
	fd := r.rows.FieldDescriptions()[index]
	switch fd.DataTypeOID {
	case pgtype.TextOID, pgtype.ByteaOID:
		return math.MaxInt64, true
	case pgtype.VarcharOID, pgtype.BPCharOID, pgtype.VarbitOID:
		if fd.TypeModifier == noTypmod {
			return math.MaxInt64, true
		}
		if fd.DataTypeOID == pgtype.VarbitOID { // varbit's modifier is the bit count itself
			return int64(fd.TypeModifier), true
		}
		return int64(fd.TypeModifier - typmodHeader), true
	}
	return 0, false
}

// ColumnTypePrecisionScale reports a numeric column's declared precision and
// scale, and the fractional-seconds precision of time types as the scale, as
// stdlib does.
func (r *Rows) ColumnTypePrecisionScale(index int) (precision, scale int64, ok bool) {
	fd := r.rows.FieldDescriptions()[index]
	mod := fd.TypeModifier
	switch fd.DataTypeOID {
	case pgtype.NumericOID:
		if mod == noTypmod {
			return 0, 0, false
		}
		mod -= typmodHeader
		return int64(mod>>16) & 0xffff, int64(mod) & 0xffff, true
	case pgtype.TimestampOID, pgtype.TimestamptzOID, pgtype.TimeOID, pgtype.TimetzOID:
		if mod == noTypmod {
			return 0, 6, true
		}
		return 0, int64(mod), true
	case pgtype.IntervalOID:
		// The low 16 bits are the seconds precision, all ones when only a
		// field range (e.g. "day to second") was declared.
		if mod == noTypmod || mod&0xffff == 0xffff {
			return 0, 6, true
		}
		return 0, int64(mod & 0xffff), true
	}
	return 0, 0, false
}

// scanTypes is stdlib's answer to ColumnTypeScanType; other OIDs scan as string.
var scanTypes = map[uint32]reflect.Type{
	pgtype.Float8OID:      reflect.TypeFor[float64](),
	pgtype.Float4OID:      reflect.TypeFor[float32](),
	pgtype.Int8OID:        reflect.TypeFor[int64](),
	pgtype.Int4OID:        reflect.TypeFor[int32](),
	pgtype.Int2OID:        reflect.TypeFor[int16](),
	pgtype.BoolOID:        reflect.TypeFor[bool](),
	pgtype.NumericOID:     reflect.TypeFor[float64](),
	pgtype.DateOID:        reflect.TypeFor[time.Time](),
	pgtype.TimestampOID:   reflect.TypeFor[time.Time](),
	pgtype.TimestamptzOID: reflect.TypeFor[time.Time](),
	pgtype.ByteaOID:       reflect.TypeFor[[]byte](),
}

// ColumnTypeScanType returns the Go type stdlib reports for the column:
// float64 for numeric (not [Decimal], so generic code behaves as before).
func (r *Rows) ColumnTypeScanType(index int) reflect.Type {
	if t, ok := scanTypes[r.rows.FieldDescriptions()[index].DataTypeOID]; ok {
		return t
	}
	return reflect.TypeFor[string]()
}
