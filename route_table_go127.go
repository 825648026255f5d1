//go:build go1.27

package pgcache

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"time"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// The route table: for each destination type people scan into most, and for
// each kind of value, the route that fills such a destination from such a
// value with what database/sql's conversion (sql.ConvertAssign), or the
// destination type's own Scan, makes of the same driver value. The kinds of
// value are the fields of destRoutes; a cached value and an uncached one of
// the same kind (an int8 column's entry and its binary wire value, a text
// kind's entry and its text on the wire) share one route.
//
// A column chooses its routes once per destination type: it remembers the
// type of the destination it last saw and that type's row of the table
// (routeMemo), and chooses again only when the type changes. A type the
// table has no row for has all routes nil, as has a kind the row has no route
// for: the value takes pgx stdlib's road.
//
// A route reports done=false where it has no answer — a nil pointer, a value
// out of the destination's range, a text that does not parse — and the
// caller then hands the same value to stdlib's road, which gives
// database/sql's own result or error text. So a route never decides an
// error itself.
//
// Every route takes the destination as the pointer its type was chosen for
// (the interface's data word), and boxed, the value as a driver.Value when
// the caller has it boxed already (a cache entry's), or nil; *any and
// *sql.RawBytes destinations need it. A text route given no boxed value is
// given a view of the wire bytes, which a destination that keeps the text
// copies, as stdlib's string(raw) does.
type destRoutes struct {
	text  func(scanCtx sqldriver.ScanContext, s string, boxed sqldriver.Value, p unsafe.Pointer) (done bool, err error)
	int   func(scanCtx sqldriver.ScanContext, v int64, boxed sqldriver.Value, p unsafe.Pointer) (done bool, err error)
	float func(scanCtx sqldriver.ScanContext, v float64, boxed sqldriver.Value, p unsafe.Pointer) (done bool, err error)
	bool  func(v bool, boxed sqldriver.Value, p unsafe.Pointer) (done bool)
	time  func(scanCtx sqldriver.ScanContext, v time.Time, boxed sqldriver.Value, p unsafe.Pointer) (done bool, err error)
	// num and hs: a numeric or hstore entry's own routes, its parsed forms;
	// its text takes the text routes where it has none.
	num func(e *numEntry, p unsafe.Pointer) (done bool)
	hs  func(e *hsEntry, p unsafe.Pointer) (done bool, err error)
}

// routeTable is the table, built once: a destination type's row by the type
// word of a destination of that type.
var routeTable = map[unsafe.Pointer]*destRoutes{
	typeWordOf[*string]():         {text: textString, int: intString, float: floatString, time: timeString, num: numString, hs: hsString},
	typeWordOf[*sql.NullString](): {text: textNullString, int: intNullString, num: numNullString, hs: hsNullString},
	typeWordOf[*any]():            {text: textAny, int: intAny, float: floatAny, bool: boolAny, time: timeAny, num: numAny, hs: hsAny},
	typeWordOf[*[]byte]():         {text: textBytes, int: intBytes},
	typeWordOf[*sql.RawBytes]():   {text: textRawBytes, int: intRawBytes, float: floatRawBytes, time: timeRawBytes},

	typeWordOf[*int64]():         {text: textSigned[int64], int: intInt64, num: numSigned[int64]},
	typeWordOf[*int]():           {text: textSigned[int], int: intSigned[int], num: numSigned[int]},
	typeWordOf[*int32]():         {text: textSigned[int32], int: intSigned[int32], num: numSigned[int32]},
	typeWordOf[*int16]():         {text: textSigned[int16], int: intSigned[int16], num: numSigned[int16]},
	typeWordOf[*int8]():          {text: textSigned[int8], int: intSigned[int8], num: numSigned[int8]},
	typeWordOf[*sql.NullInt64](): {text: textNullSigned[int64], int: intNullSigned[int64], num: numNullSigned[int64]},
	typeWordOf[*sql.NullInt32](): {text: textNullSigned[int32], int: intNullSigned[int32], num: numNullSigned[int32]},
	typeWordOf[*sql.NullInt16](): {text: textNullSigned[int16], int: intNullSigned[int16], num: numNullSigned[int16]},

	typeWordOf[*uint64]():       {int: intUnsigned[uint64]},
	typeWordOf[*uint]():         {int: intUnsigned[uint]},
	typeWordOf[*uint32]():       {int: intUnsigned[uint32]},
	typeWordOf[*uint16]():       {int: intUnsigned[uint16]},
	typeWordOf[*uint8]():        {int: intUnsigned[uint8]},
	typeWordOf[*sql.NullByte](): {int: intNullByte},

	typeWordOf[*float64]():         {text: textFloat64, int: intFloat64, float: floatFloat64, num: numFloat64},
	typeWordOf[*float32]():         {int: intFloat32},
	typeWordOf[*sql.NullFloat64](): {text: textNullFloat64, int: intNullFloat64, float: floatNullFloat64, num: numNullFloat64},

	typeWordOf[*bool]():         {text: textBool, int: intBool, bool: boolBool},
	typeWordOf[*sql.NullBool](): {int: intNullBool, bool: boolNullBool},

	typeWordOf[*time.Time]():    {time: timeTime},
	typeWordOf[*sql.NullTime](): {time: timeNullTime},

	typeWordOf[*Decimal]():             {num: numDecimal},
	typeWordOf[*NullDecimal]():         {num: numNullDecimal},
	typeWordOf[*apd.Decimal]():         {num: numApd},
	typeWordOf[*apd.NullDecimal]():     {num: numNullApd},
	typeWordOf[*pgtype.Numeric]():      {num: numPgtype},
	typeWordOf[*decimal.Decimal]():     {num: numShopspring},
	typeWordOf[*decimal.NullDecimal](): {num: numNullShopspring},

	typeWordOf[*Hstore]():        {hs: hsHstore},
	typeWordOf[*NullHstore]():    {hs: hsNullHstore},
	typeWordOf[*pgtype.Hstore](): {hs: hsPgtype},
}

// noRoutes is the row of every type the table does not list.
var noRoutes destRoutes

// routeMemo is a column's memory of its destination: the type word of the
// destination it last saw (nil before the first) and that type's row.
type routeMemo struct {
	typ    unsafe.Pointer
	routes *destRoutes
}

// routesFor returns the routes into dest's type (dest is not nil),
// choosing them when the type is not the one the column saw last.
func (m *routeMemo) routesFor(dest any) *destRoutes {
	t := typeWord(dest)
	if t == m.typ {
		return m.routes
	}
	return m.choose(t)
}

// choose looks the type whose type word is t up in the table and
// remembers its row.
func (m *routeMemo) choose(t unsafe.Pointer) *destRoutes {
	rt := routeTable[t]
	if rt == nil {
		rt = &noRoutes
	}
	m.typ, m.routes = t, rt
	return rt
}

// typeWordOf is the type word of a T.
func typeWordOf[T any]() unsafe.Pointer {
	var z T
	return typeWord(z)
}

// boxOr returns boxed, or v boxed when boxed is nil.
func boxOr[T any](boxed sqldriver.Value, v T) sqldriver.Value {
	if boxed != nil {
		return boxed
	}
	return v
}

// rawBytes converts v into the *sql.RawBytes p with database/sql's
// conversion: only it reaches the buffer it keeps for RawBytes per
// *sql.Rows (whose state decides, say, whether an empty text is nil).
func rawBytes(scanCtx sqldriver.ScanContext, v sqldriver.Value, p unsafe.Pointer) (done bool, err error) {
	if p == nil {
		return false, nil
	}
	return true, sql.ConvertAssign(scanCtx, (*sql.RawBytes)(p), v)
}

// assignValue fills the destination p, whose routes are rt, from a cache
// entry's driver value of any of the types pgx stdlib's conversions produce.
func assignValue(scanCtx sqldriver.ScanContext, rt *destRoutes, value sqldriver.Value, p unsafe.Pointer) (done bool, err error) {
	switch v := value.(type) {
	case string:
		if f := rt.text; f != nil {
			return f(scanCtx, v, value, p)
		}
	case int64:
		if f := rt.int; f != nil {
			return f(scanCtx, v, value, p)
		}
	case float64:
		if f := rt.float; f != nil {
			return f(scanCtx, v, value, p)
		}
	case time.Time:
		if f := rt.time; f != nil {
			return f(scanCtx, v, value, p)
		}
	case bool:
		if f := rt.bool; f != nil {
			return f(v, value, p), nil
		}
	}
	return false, nil
}
