//go:build go1.27

package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"
	"math/big"

	"github.com/cockroachdb/apd/v3"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"

	"github.com/pgcache/pgcache/decode"
)

// Direct routes: a cached value scanned straight from its cache entry into
// the destinations people use most. Each route gives exactly what pgx stdlib
// gives the same destination (database/sql's conversion of the same string,
// or the destination type's own Scan of it) — the differential tests check
// every one against stdlib — but costs no reflection, no parsing and, where
// the destination can share the entry's immutable data, no allocation.
//
// scanInto and the scalar routes report done=false for every destination they have
// no route for, and for a nil pointer of a type they know, so that the
// caller falls back to stdlib's behaviour and its errors.

// scanInto fills dest from a numeric entry: the text's routes, its parsed
// number's, then the decimal types'.
func (e *numEntry) scanInto(scanCtx sqldriver.ScanContext, dest any) (done bool, err error) {
	if done, err := assignText(scanCtx, e.text, e.value, dest); done {
		return true, err
	}
	if assignParsed(e.i64, e.i64OK, e.f64, e.f64OK, dest) {
		return true, nil
	}
	switch d := dest.(type) {
	case *Decimal:
		if d != nil {
			d.n = e.num
			return true, nil
		}
	case *NullDecimal:
		if d != nil {
			*d = NullDecimal{Decimal: Decimal{e.num}, Valid: true}
			return true, nil
		}
	case *apd.Decimal:
		if d != nil {
			// A deep copy (apd.Decimal.Set): no allocation while the
			// coefficient fits apd's inline words, which every text short
			// enough to be cached does; never a struct copy, which would
			// share a large coefficient's words with the entry.
			e.num.Apd(d)
			return true, nil
		}
	case *apd.NullDecimal:
		if d != nil {
			e.num.Apd(&d.Decimal)
			d.Valid = true
			return true, nil
		}
	case *pgtype.Numeric:
		if d != nil {
			*d = e.pgtypeNumeric()
			return true, nil
		}
	case *decimal.Decimal:
		if d != nil {
			if v, ok := e.shopspring(); ok {
				*d = v
				return true, nil
			}
		}
	case *decimal.NullDecimal:
		if d != nil {
			if v, ok := e.shopspring(); ok {
				*d = decimal.NullDecimal{Decimal: v, Valid: true}
				return true, nil
			}
		}
	}
	return false, nil
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
		var d decimal.Decimal
		x = &numExt{}
		if d.Scan(e.text) == nil {
			x.shop = d
		}
		e.ext.Store(x)
	}
	d, ok := x.shop.(decimal.Decimal)
	return d, ok
}

// scanInto fills dest from an hstore entry. maps says whether map
// destinations get the entry's pairs; when the connection's type map knows
// hstore they are left to it, so that they scan exactly as pgx scans them.
func (e *hsEntry) scanInto(scanCtx sqldriver.ScanContext, dest any, maps bool) (done bool, err error) {
	if done, err := assignText(scanCtx, e.text, e.value, dest); done {
		return true, err
	}
	switch d := dest.(type) {
	case *Hstore:
		if d != nil {
			d.h = e.hs
			return true, nil
		}
	case *NullHstore:
		if d != nil {
			*d = NullHstore{Hstore: Hstore{e.hs}, Valid: true}
			return true, nil
		}
	case *pgtype.Hstore:
		if d != nil {
			*d = pgtype.Hstore(e.hs.Map()) // a fresh map: the caller owns it
			return true, nil
		}
	case *map[string]*string, *map[string]string:
		if maps {
			return scanHstoreMap(e.hs, dest)
		}
	}
	return false, nil
}

// scanHstoreMap fills a *map[string]*string or *map[string]string with a new
// map of h's pairs. A NULL value cannot go into a map[string]string: that is
// an error naming the key, as pgx's hstore codec refuses it too. done is
// false for a nil pointer, so the caller reports it as stdlib does.
func scanHstoreMap(h decode.Hstore, dest any) (done bool, err error) {
	switch d := dest.(type) {
	case *map[string]*string:
		if d == nil {
			return false, nil
		}
		*d = h.Map()
	case *map[string]string:
		if d == nil {
			return false, nil
		}
		m := make(map[string]string, h.Len())
		for k, v := range h.All() {
			if !v.Valid {
				return true, fmt.Errorf("pgcache: cannot scan hstore into map[string]string: key %q has a NULL value (use map[string]*string or pgcache.Hstore)", k)
			}
			m[k] = v.String
		}
		*d = m
	default:
		return false, nil
	}
	return true, nil
}
