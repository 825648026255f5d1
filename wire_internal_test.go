package pgcache

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// The infinite date's day offset and timestamp's microsecond offset.
const (
	dateInfinity     = math.MaxInt32
	dateNegInfinity  = math.MinInt32
	stampInfinity    = math.MaxInt64
	stampNegInfinity = math.MinInt64
)

// wireKinds: each wire kind's value kind, OID and format, and samples at the
// edges of the destinations' ranges.
var wireKinds = []struct {
	w      wireKind
	kind   string
	oid    uint32
	format int16
	raws   [][]byte
}{
	{wireText, "text", pgtype.TextOID, pgx.TextFormatCode, texts("0", "1", "-1", "127", "128", "-129", "255", "300", "32768", "-32769",
		"2147483648", "9223372036854775807", "9223372036854775808", "12.5", "1e3", "-0.5", "NaN", "Infinity", "1e400",
		"t", "true", "F", "abc", "", " 1", "2024-05-06")},
	{wireInt8, "int", pgtype.Int8OID, pgx.BinaryFormatCode, be64(0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 65535, 65536,
		math.MaxInt32, math.MaxInt32+1, math.MinInt32-1, math.MaxUint32, math.MaxUint32+1, 1<<53+1, math.MaxInt64, math.MinInt64)},
	{wireInt4, "int", pgtype.Int4OID, pgx.BinaryFormatCode, be32(0, 1, -1, 127, 128, -129, 255, 256, 32768, -32769, 65536, math.MaxInt32, math.MinInt32)},
	{wireInt2, "int", pgtype.Int2OID, pgx.BinaryFormatCode, be16(0, 1, -1, 127, 128, -129, 255, 256, math.MaxInt16, math.MinInt16)},
	{wireFloat8, "float", pgtype.Float8OID, pgx.BinaryFormatCode, be64f(0, 1, 0.5, math.Copysign(0, -1), 1e20, 3.5e38, 0.1, 5e-324,
		16777217, math.NaN(), math.Inf(1), math.Inf(-1))},
	{wireFloat4, "float", pgtype.Float4OID, pgx.BinaryFormatCode, be32f(0, 1, 0.1, float32(math.Copysign(0, -1)), 16777217, 3.4e38, 1e-45,
		float32(math.NaN()), float32(math.Inf(-1)))},
	{wireBool, "bool", pgtype.BoolOID, pgx.BinaryFormatCode, [][]byte{{0}, {1}}},
	{wireDate, "time", pgtype.DateOID, pgx.BinaryFormatCode, be32(0, -1, 8891, -36525, dateInfinity, dateNegInfinity, -2451545, 2147483494,
		minWireDays-1, minWireDays, endWireDays-1, endWireDays)},
	{wireTimestamp, "time", pgtype.TimestampOID, pgx.BinaryFormatCode, be64(0, -1, 768_294_489_123_456, -15_778_800_000_000,
		stampInfinity, stampNegInfinity, math.MaxInt64-1, -211_813_488_000_000_000,
		minWireMicros-1, minWireMicros, endWireMicros-1, endWireMicros)},
	{wireTimestamptz, "time", pgtype.TimestamptzOID, pgx.BinaryFormatCode, be64(0, 768_294_489_500_000, -3_155_760_000_000_000,
		stampInfinity, stampNegInfinity, minWireMicros-1, minWireMicros, endWireMicros-1, endWireMicros)},
}

func texts(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i := range s {
		out[i] = []byte(s[i])
	}
	return out
}

func be64(v ...int64) [][]byte {
	out := make([][]byte, len(v))
	for i := range v {
		out[i] = binary.BigEndian.AppendUint64(nil, uint64(v[i]))
	}
	return out
}

func be32(v ...int64) [][]byte {
	out := make([][]byte, len(v))
	for i := range v {
		out[i] = binary.BigEndian.AppendUint32(nil, uint32(int32(v[i])))
	}
	return out
}

func be16(v ...int64) [][]byte {
	out := make([][]byte, len(v))
	for i := range v {
		out[i] = binary.BigEndian.AppendUint16(nil, uint16(int16(v[i])))
	}
	return out
}

func be64f(v ...float64) [][]byte {
	out := make([][]byte, len(v))
	for i := range v {
		out[i] = binary.BigEndian.AppendUint64(nil, math.Float64bits(v[i]))
	}
	return out
}

func be32f(v ...float32) [][]byte {
	out := make([][]byte, len(v))
	for i := range v {
		out[i] = binary.BigEndian.AppendUint32(nil, math.Float32bits(v[i]))
	}
	return out
}

// TestWireValueFunc: the driver values of the fixed-size kinds decoded by
// hand (wireValueFunc) are plainValueFunc's, pgx stdlib's conversion
// through pgx's scan plans, value for value and error for error, for
// every sample of wireKinds, random values and NULL, and so are those of
// the conversion a plan takes (columnValueFunc); a column whose codec is
// not pgx's default, or whose values are text, keeps plainValueFunc's
// conversion.
func TestWireValueFunc(t *testing.T) {
	m := pgtype.NewMap()
	for _, wk := range wireKinds {
		fd := &pgconn.FieldDescription{DataTypeOID: wk.oid, Format: wk.format}
		want := plainValueFunc(m, fd)
		got := wireValueFunc(wk.w, want)
		column := columnValueFunc(m, fd) // the conversion a plan takes
		raws := append(wk.raws, nil, []byte{1, 2, 3})
		if wk.format == pgx.BinaryFormatCode {
			// Random values of the kind's length: every bit pattern is
			// some value (a NaN, a time far outside pgx's range).
			rng := rand.New(rand.NewPCG(uint64(wk.w), 1))
			for range 5000 {
				raws = append(raws, binary.BigEndian.AppendUint64(nil, rng.Uint64())[:len(wk.raws[0])])
			}
		}
		for _, raw := range raws {
			gv, gerr := got(raw)
			wv, werr := want(raw)
			if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
				t.Errorf("wire kind %d %x: error %v, stdlib's %v", wk.w, raw, gerr, werr)
			}
			if !sameDriverValue(gv, wv) {
				t.Errorf("wire kind %d %x: %#v, stdlib's %#v", wk.w, raw, gv, wv)
			}
			// (With an error, the value is the closure's last one.)
			if cv, cerr := column(raw); (cerr == nil) != (werr == nil) || werr == nil && !sameDriverValue(cv, wv) {
				t.Errorf("wire kind %d %x: the plan's conversion gives %#v (%v), stdlib's %#v (%v)", wk.w, raw, cv, cerr, wv, werr)
			}
		}
	}
	loc := time.FixedZone("X", 3600)
	other := pgtype.NewMap()
	other.RegisterType(&pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID, Codec: &pgtype.TimestamptzCodec{ScanLocation: loc}})
	fd := &pgconn.FieldDescription{DataTypeOID: pgtype.TimestamptzOID, Format: pgx.BinaryFormatCode}
	raw := binary.BigEndian.AppendUint64(nil, 768_294_489_500_000)
	if w := binaryWire(other, fd); w != wireNone {
		t.Errorf("a ScanLocation codec: binaryWire gives %d, want wireNone", w)
	}
	v, _ := columnValueFunc(other, fd)(raw)
	if tm, ok := v.(time.Time); !ok || tm.Location() != loc {
		t.Errorf("a ScanLocation codec: %#v, want a time in %v", v, loc)
	}
	text := &pgconn.FieldDescription{DataTypeOID: pgtype.Int8OID, Format: pgx.TextFormatCode}
	if v, err := columnValueFunc(m, text)([]byte("12345678")); v != int64(12345678) || err != nil {
		t.Errorf("a text int8: %#v, %v", v, err)
	}
}

// sameDriverValue reports whether two driver values are the same: equal,
// and for times the same instant, location and monotonic-free wall clock.
func sameDriverValue(a, b any) bool {
	ta, aok := a.(time.Time)
	tb, bok := b.(time.Time)
	if aok || bok {
		return aok && bok && ta.Equal(tb) && ta.Location() == tb.Location() && ta.String() == tb.String()
	}
	if fa, ok := a.(float64); ok {
		fb, ok := b.(float64)
		return ok && math.Float64bits(fa) == math.Float64bits(fb)
	}
	return reflect.DeepEqual(a, b)
}
