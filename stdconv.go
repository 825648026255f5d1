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

	"github.com/pgcache/pgcache/internal/box"
)

// stringPlan is the type word of pgx's scan plan of a text into a string,
// which is string(src) (pgtype's scanPlanString).
var stringPlan = typeWord(pgtype.NewMap().PlanScan(pgtype.TextOID, pgtype.TextFormatCode, new(string)))

// textValue is stdlib's conversion of a text-format column pgx has no
// natural Go type for: the text itself, boxed in one allocation
// (box.String) where Go's conversion makes two.
func textValue(src []byte) (sqldriver.Value, error) { return box.String(src), nil }

// intValue is v as a driver value, boxed SlabLen to an allocation; a value
// under 256 needs no allocation at all, as in Go's own conversion.
func intValue(s *box.Slab[int64], v int64) sqldriver.Value {
	if uint64(v) < 256 {
		return v
	}
	return s.Box(v)
}

// timeValue is pgtype's Date, Timestamp and Timestamptz Value, with the
// time boxed SlabLen to an allocation.
func timeValue(s *box.Slab[time.Time], valid bool, inf pgtype.InfinityModifier, t time.Time) sqldriver.Value {
	if !valid {
		return nil
	}
	if inf != pgtype.Finite {
		return inf.String()
	}
	return s.Box(t)
}

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

// columnValueFunc returns a plain column's conversion: plainValueFunc's,
// with the values of a binary kind decoded by hand (binaryWire,
// wireValueFunc).
func columnValueFunc(m *pgtype.Map, fd *pgconn.FieldDescription) convFunc {
	conv := plainValueFunc(m, fd)
	if w := binaryWire(m, fd); w != wireNone {
		return wireValueFunc(w, conv)
	}
	return conv
}

// plainValueFunc returns the conversion pgx stdlib applies to a column of
// this type: a handful of types become their natural Go value, everything
// else the text the server sent. It is pgx's stdlib.(*Rows).initValueFuncs
// case for case, closure for closure (each keeps its scan target between
// rows, as stdlib's does), so that values match stdlib's in every respect
// and cost what they cost there; keep the two in step when pgx changes.
func plainValueFunc(m *pgtype.Map, fd *pgconn.FieldDescription) convFunc {
	oid, format := fd.DataTypeOID, fd.Format
	switch oid {
	case pgtype.BoolOID:
		var d bool
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			err := plan.Scan(src, &d)
			return d, err
		}
	case pgtype.ByteaOID:
		var d []byte
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			err := plan.Scan(src, &d)
			return d, err
		}
	case pgtype.CIDOID, pgtype.OIDOID, pgtype.XIDOID:
		var d pgtype.Uint32
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			if err := plan.Scan(src, &d); err != nil {
				return nil, err
			}
			return d.Value()
		}
	case pgtype.DateOID:
		var d pgtype.Date
		var s box.Slab[time.Time]
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			if err := plan.Scan(src, &d); err != nil {
				return nil, err
			}
			return timeValue(&s, d.Valid, d.InfinityModifier, d.Time), nil
		}
	case pgtype.Float4OID:
		var d float32
		var s box.Slab[float64]
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			err := plan.Scan(src, &d)
			return s.Box(float64(d)), err
		}
	case pgtype.Float8OID:
		var d float64
		var s box.Slab[float64]
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			err := plan.Scan(src, &d)
			return s.Box(d), err
		}
	case pgtype.Int2OID:
		var d int16
		var s box.Slab[int64]
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			err := plan.Scan(src, &d)
			return intValue(&s, int64(d)), err
		}
	case pgtype.Int4OID:
		var d int32
		var s box.Slab[int64]
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			err := plan.Scan(src, &d)
			return intValue(&s, int64(d)), err
		}
	case pgtype.Int8OID:
		var d int64
		var s box.Slab[int64]
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			err := plan.Scan(src, &d)
			return intValue(&s, d), err
		}
	case pgtype.JSONOID, pgtype.JSONBOID, pgtype.XMLOID:
		var d []byte
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			if err := plan.Scan(src, &d); err != nil {
				return nil, err
			}
			return d, nil
		}
	case pgtype.TimestampOID:
		var d pgtype.Timestamp
		var s box.Slab[time.Time]
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			if err := plan.Scan(src, &d); err != nil {
				return nil, err
			}
			return timeValue(&s, d.Valid, d.InfinityModifier, d.Time), nil
		}
	case pgtype.TimestamptzOID:
		var d pgtype.Timestamptz
		var s box.Slab[time.Time]
		plan := m.PlanScan(oid, format, &d)
		return func(src []byte) (sqldriver.Value, error) {
			if err := plan.Scan(src, &d); err != nil {
				return nil, err
			}
			return timeValue(&s, d.Valid, d.InfinityModifier, d.Time), nil
		}
	default:
		var d string
		plan := m.PlanScan(oid, format, &d)
		if typeWord(plan) == stringPlan {
			// pgx's plan of a text into a string: string(src).
			return textValue
		}
		return func(src []byte) (sqldriver.Value, error) {
			err := plan.Scan(src, &d)
			return d, err
		}
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
