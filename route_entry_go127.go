//go:build go1.27

package pgcache

import (
	"database/sql"
	sqldriver "database/sql/driver"
	"math/big"
	"sync/atomic"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// The numeric and hstore entries' own routes (the num and hs kinds of the
// route table): a cached value scanned straight from its entry into the
// destinations people use most, with what pgx stdlib gives the same
// destination (database/sql's conversion of the same string, or the
// destination type's own Scan of it) — the differential tests check every
// one against stdlib — but no reflection, no parsing and, where the
// destination can share the entry's immutable data, no allocation. The
// entry's text takes the text routes into the destinations these have no
// route for.

// scanRoute fills the destination p, whose routes are rt, from a numeric
// entry: its own route, else its text's.
func (e *numEntry) scanRoute(scanCtx sqldriver.ScanContext, rt *destRoutes, p unsafe.Pointer) (done bool, err error) {
	if f := rt.num; f != nil {
		return f(e, p), nil
	}
	if f := rt.text; f != nil {
		return f(scanCtx, e.text, e.value, p)
	}
	return false, nil
}

// The text's routes, as the text routes take an entry's text (textString,
// textNullString, textAny), but in the entry's own signature: the entry
// owns its text, and its value is that text boxed once. ScanColumn calling
// the text route itself instead, with its seven words of arguments, costs
// 22 instructions a value more on repeating numerics into *string (446 →
// 468) and 15 on the shop row (456 → 471), GOTOOLCHAIN=go1.27.3
// bench/cachegrind.sh with DEST=string repetitive 1000000 and shop 1600000,
// counted on that variant, which was not kept.

func numString(e *numEntry, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	*(*string)(p) = e.text
	return true
}

func numNullString(e *numEntry, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	*(*sql.NullString)(p) = sql.NullString{String: e.text, Valid: true}
	return true
}

func numAny(e *numEntry, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	*(*any)(p) = e.value
	return true
}

// The parsed number's routes: database/sql parses the text with the
// destination's size, which for a value that fits is the same number.

func numSigned[T signed](e *numEntry, p unsafe.Pointer) bool {
	return e.i64OK && setSigned[T](e.i64, p)
}

func numNullSigned[T int64 | int32 | int16](e *numEntry, p unsafe.Pointer) bool {
	return e.i64OK && setNullSigned[T](e.i64, p)
}

func numFloat64(e *numEntry, p unsafe.Pointer) bool {
	if p == nil || !e.f64OK {
		return false
	}
	*(*float64)(p) = e.f64
	return true
}

func numNullFloat64(e *numEntry, p unsafe.Pointer) bool {
	if p == nil || !e.f64OK {
		return false
	}
	*(*sql.NullFloat64)(p) = sql.NullFloat64{Float64: e.f64, Valid: true}
	return true
}

// The decimal types' routes.

func numDecimal(e *numEntry, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	(*Decimal)(p).n = e.num
	return true
}

func numNullDecimal(e *numEntry, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	*(*NullDecimal)(p) = NullDecimal{Decimal: Decimal{e.num}, Valid: true}
	return true
}

// numApd makes a deep copy (decode.Numeric.Apd): a struct copy while the
// coefficient fits apd's inline words, which every text of up to 38 digits
// does, and apd.Decimal.Set for a larger one, whose words a struct copy
// would share with the entry. The struct copy allocates nothing.
func numApd(e *numEntry, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	e.num.Apd((*apd.Decimal)(p))
	return true
}

func numNullApd(e *numEntry, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	d := (*apd.NullDecimal)(p)
	e.num.Apd(&d.Decimal)
	d.Valid = true
	return true
}

func numPgtype(e *numEntry, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	*(*pgtype.Numeric)(p) = e.pgtypeNumeric()
	return true
}

func numShopspring(e *numEntry, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	v, ok := e.shopspring()
	if ok {
		*(*decimal.Decimal)(p) = v
	}
	return ok
}

func numNullShopspring(e *numEntry, p unsafe.Pointer) bool {
	if p == nil {
		return false
	}
	v, ok := e.shopspring()
	if ok {
		*(*decimal.NullDecimal)(p) = decimal.NullDecimal{Decimal: v, Valid: true}
	}
	return ok
}

// pgtypeNumeric builds what pgtype.Numeric's Scan makes of the text. Int is
// the caller's to modify, so it is new every time: one allocation holding
// both the big.Int and its word.
func (e *numEntry) pgtypeNumeric() pgtype.Numeric {
	switch e.pgSpecial {
	case 1:
		return pgtype.Numeric{NaN: true, Valid: true}
	case 2:
		return pgtype.Numeric{InfinityModifier: pgtype.Infinity, Valid: true}
	case 3:
		return pgtype.Numeric{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
	}
	return pgtype.Numeric{Int: newSmallBigInt(e.pgInt), Exp: e.pgExp, Valid: true}
}

// smallBigInt is a big.Int with room for its one word in the same allocation.
type smallBigInt struct {
	i big.Int
	w [1]big.Word
}

// newSmallBigInt returns a new big.Int equal to v, |v| < 2^32 (a coefficient
// of at most 8 digits fits one word on every platform).
func newSmallBigInt(v int64) *big.Int {
	b := new(smallBigInt)
	u := v
	if v < 0 {
		u = -v
	}
	if u == 0 {
		return &b.i
	}
	b.w[0] = big.Word(u)
	b.i.SetBits(b.w[:])
	if v < 0 {
		b.i.Neg(&b.i)
	}
	return &b.i
}

// numEntry is what the numeric table keeps for one text (see numForms),
// and the values built the first time one is asked for: ext, nil until
// then.
type numEntry struct {
	numForms
	ext atomic.Pointer[numExt]
}

// numExt holds the lazily built values of an entry.
type numExt struct {
	shop   decimal.Decimal
	shopOK bool // shopspring's Scan accepted the text
}

// shopspring returns the entry's shopspring decimal, building it with
// shopspring's own Scan the first time one is asked for, so applications that
// never scan into decimal.Decimal never pay for it. shopspring documents its
// Decimal as immutable (every operation returns a new one), which is what
// makes handing every reader the same *big.Int safe. ok is false when
// shopspring's Scan rejects the text (NaN and the infinities): the caller
// then lets that Scan report its own error.
func (e *numEntry) shopspring() (decimal.Decimal, bool) {
	x := e.ext.Load()
	if x == nil {
		x = &numExt{}
		x.shopOK = x.shop.Scan(e.text) == nil
		if !x.shopOK {
			x.shop = decimal.Decimal{}
		}
		e.ext.Store(x)
	}
	return x.shop, x.shopOK
}

// scanRoute fills the destination p, whose routes are rt, from an hstore
// entry: its own route, else its text's. Go maps have none: pgx's type map
// scans them, into a map when the connection knows hstore and with its
// refusal when it does not, as pgx stdlib does.
func (e *hsEntry) scanRoute(scanCtx sqldriver.ScanContext, rt *destRoutes, p unsafe.Pointer) (done bool, err error) {
	if f := rt.hs; f != nil {
		return f(e, p)
	}
	if f := rt.text; f != nil {
		return f(scanCtx, e.text, e.value, p)
	}
	return false, nil
}

// The text's routes, as for a numeric entry (numString, …).

func hsString(e *hsEntry, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*string)(p) = e.text
	return true, nil
}

func hsNullString(e *hsEntry, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*sql.NullString)(p) = sql.NullString{String: e.text, Valid: true}
	return true, nil
}

func hsAny(e *hsEntry, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*any)(p) = e.value
	return true, nil
}

func hsHstore(e *hsEntry, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	(*Hstore)(p).h = e.hs
	return true, nil
}

func hsNullHstore(e *hsEntry, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*NullHstore)(p) = NullHstore{Hstore: Hstore{e.hs}, Valid: true}
	return true, nil
}

func hsPgtype(e *hsEntry, p unsafe.Pointer) (bool, error) {
	if p == nil {
		return false, nil
	}
	*(*pgtype.Hstore)(p) = pgtype.Hstore(e.hs.Map()) // a fresh map: the caller owns it
	return true, nil
}
