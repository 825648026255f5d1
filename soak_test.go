package pgcache_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// soakQuery returns, for each i, values chosen to keep the cache churning
// (TestStress covers plain repetition):
//
//   - pair: 20000 distinct texts, each in two consecutive rows, so that every
//     one is admitted on its second sighting, and with five times as many
//     texts as slots, admitted entries are evicted again and again by texts
//     that share their slot, then re-admitted when they come round;
//   - hot: 300 texts cycling, most of them hits, those that share a slot
//     evicting each other on every round;
//   - hpair, hhot: the same for hstore, with 12000 and 50 texts.
const soakQuery = `select i,
	((((i / 2) * 7919) % 20000)::numeric / 100)::numeric(12,2),
	((i * 31) % 300)::numeric(12,2) + 0.5,
	hstore('k', (((i / 2)::int8 * 104729) % 12000)::text),
	hstore(array['a', 'b'], array[(i % 50)::text, NULL])
from generate_series($1::int, $2::int) i`

// soakWant returns the texts PostgreSQL prints for row i of soakQuery.
func soakWant(i int) [4]string {
	p := ((i / 2) * 7919) % 20000
	h := (i * 31) % 300
	return [4]string{
		fmt.Sprintf("%d.%02d", p/100, p%100),
		fmt.Sprintf("%d.50", h),
		fmt.Sprintf(`"k"=>"%d"`, ((i/2)*104729)%12000),
		fmt.Sprintf(`"a"=>"%d", "b"=>NULL`, i%50),
	}
}

// TestSoak: many goroutines over a few connections read soakQuery, scanning
// into strings, Decimals, Hstores, their Null forms and any, while another
// goroutine empties the cache every few milliseconds. Every value is checked
// against the text computed from the row number, and every copy a value
// hands out (Decimal.Apd, Decompose, MarshalJSON, MarshalText, Hstore.Map,
// Pgtype, MarshalJSON) is mutated and the value checked again, so anything
// shared that a copy-out leaked would show up as a wrong value in another
// goroutine, or as a race under -race. ~25 s (3 s with -short).
func TestSoak(t *testing.T) {
	needHstore(t)
	d := 25 * time.Second
	if testing.Short() {
		d = 3 * time.Second
	}
	db := openDB(t, pcDriver, pgtest.DSN(t))
	db.SetMaxOpenConns(6)
	ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
	defer cancel()
	before := pgcache.Stats()
	rows, resets := load{
		workers:  24,
		duration: d,
		seed:     7,
		read: func(w, iter int, rng *rand.Rand) (int, error) {
			lo := 1 + rng.IntN(100000)
			hi := lo + rng.IntN(2000)
			n, err := soakRead(ctx, db, lo, hi, (w+iter)%4, rng)
			if err != nil {
				err = fmt.Errorf("rows %d-%d: %w", lo, hi, err)
			}
			return n, err
		},
		pause:   func() time.Duration { return time.Duration(2+rand.IntN(20)) * time.Millisecond },
		disturb: func() error { pgcache.ResetCache(); return nil },
	}.run(t)

	// Two values per row in each table, each counted once; and
	// re-admissions: far more admissions than the table has slots.
	after := pgcache.Stats()
	num, hs := loadTraffic(t, before, after, 2*rows)
	for _, c := range []struct {
		name string
		c    counts
	}{{"numeric", num}, {"hstore", hs}} {
		if c.c.Admissions < 2*uint64(after.Numeric.Slots) {
			t.Errorf("%s traffic %v: want admissions well beyond the %d slots", c.name, c.c, after.Numeric.Slots)
		}
	}
	t.Logf("%s: %d values per table, %d resets; numeric %v, hstore %v", d, 2*rows, resets, num, hs)
}

// soakRead reads rows lo..hi of soakQuery, scanning in one of four ways, and
// checks every value and, for some rows, every copy-out.
func soakRead(ctx context.Context, db *sql.DB, lo, hi, mode int, rng *rand.Rand) (int, error) {
	rows, err := db.QueryContext(ctx, soakQuery, lo, hi)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var i int
		var got [4]string
		var decs [2]pgcache.Decimal
		var hss [2]pgcache.Hstore
		switch mode {
		case 0:
			if err := rows.Scan(&i, &got[0], &got[1], &got[2], &got[3]); err != nil {
				return n, err
			}
		case 1:
			if err := rows.Scan(&i, &decs[0], &decs[1], &hss[0], &hss[1]); err != nil {
				return n, err
			}
		case 2:
			var nd [2]pgcache.NullDecimal
			var nh [2]pgcache.NullHstore
			if err := rows.Scan(&i, &nd[0], &nd[1], &nh[0], &nh[1]); err != nil {
				return n, err
			}
			if !nd[0].Valid || !nd[1].Valid || !nh[0].Valid || !nh[1].Valid {
				return n, fmt.Errorf("row %d: a value is not Valid", i)
			}
			decs = [2]pgcache.Decimal{nd[0].Decimal, nd[1].Decimal}
			hss = [2]pgcache.Hstore{nh[0].Hstore, nh[1].Hstore}
		case 3:
			var vs [4]any
			if err := rows.Scan(&i, &vs[0], &vs[1], &vs[2], &vs[3]); err != nil {
				return n, err
			}
			for j, v := range vs {
				s, ok := v.(string)
				if !ok {
					return n, fmt.Errorf("row %d, column %d: scanned %T into *any, want string", i, j, v)
				}
				got[j] = s
			}
		}
		if mode == 1 || mode == 2 {
			got = [4]string{decs[0].String(), decs[1].String(), hss[0].String(), hss[1].String()}
		}
		n++
		want := soakWant(i)
		if got != want {
			return n, fmt.Errorf("row %d: got %q, want %q", i, got, want)
		}
		if (mode == 1 || mode == 2) && rng.IntN(4) == 0 {
			for j, d := range decs {
				if err := mutateDecimalCopies(d, want[j]); err != nil {
					return n, fmt.Errorf("row %d: %w", i, err)
				}
			}
			for j, h := range hss {
				if err := mutateHstoreCopies(h, want[2+j]); err != nil {
					return n, fmt.Errorf("row %d: %w", i, err)
				}
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	if want := hi - lo + 1; n != want {
		return n, fmt.Errorf("%d rows, want %d", n, want)
	}
	return n, rows.Close()
}

// mutateDecimalCopies takes every copy d hands out, changes it, and checks
// that d, and a fresh copy, still say want.
func mutateDecimalCopies(d pgcache.Decimal, want string) error {
	check := func(after string) error {
		if s := d.String(); s != want {
			return fmt.Errorf("after mutating %s: Decimal says %q, want %q", after, s, want)
		}
		return nil
	}
	a := d.Apd(new(apd.Decimal))
	ref := new(apd.Decimal).Set(a)
	a.Neg(a)
	a.Coeff.SetInt64(987654321)
	a.Exponent = 7
	if err := check("Apd"); err != nil {
		return err
	}
	if b := d.Apd(nil); b.Cmp(ref) != 0 || b.String() != ref.String() {
		return fmt.Errorf("Apd after mutating an earlier copy: %s, want %s", b, ref)
	}

	form, neg, coef, exp := d.Decompose(nil)
	saved := bytes.Clone(coef)
	for k := range coef {
		coef[k] ^= 0xff
	}
	if err := check("Decompose's coefficient"); err != nil {
		return err
	}
	if f2, n2, c2, e2 := d.Decompose(nil); f2 != form || n2 != neg || e2 != exp || !bytes.Equal(c2, saved) {
		return fmt.Errorf("Decompose after mutating an earlier coefficient: %d %t %x %d, want %d %t %x %d", f2, n2, c2, e2, form, neg, saved, exp)
	}

	for _, m := range []struct {
		name string
		f    func() ([]byte, error)
		want string
	}{
		{"MarshalJSON", d.MarshalJSON, want},
		{"MarshalText", d.MarshalText, want},
	} {
		b, err := m.f()
		if err != nil {
			return err
		}
		if string(b) != m.want {
			return fmt.Errorf("%s = %s, want %s", m.name, b, m.want)
		}
		for k := range b {
			b[k] = 'X'
		}
		if err := check(m.name); err != nil {
			return err
		}
		if b2, _ := m.f(); string(b2) != m.want {
			return fmt.Errorf("%s after mutating an earlier result: %s, want %s", m.name, b2, m.want)
		}
	}
	return nil
}

// mutateHstoreCopies is mutateDecimalCopies for Hstore.
func mutateHstoreCopies(h pgcache.Hstore, want string) error {
	check := func(after string) error {
		if s := h.String(); s != want {
			return fmt.Errorf("after mutating %s: Hstore says %q, want %q", after, s, want)
		}
		return nil
	}
	wantJSON, err := h.MarshalJSON()
	if err != nil {
		return err
	}
	wantJSON = bytes.Clone(wantJSON)
	x := "mutated"
	for name, m := range map[string]map[string]*string{"Map": h.Map(), "Pgtype": h.Pgtype()} {
		for k, v := range m {
			if v != nil {
				*v = "changed"
			} else {
				m[k] = &x
			}
		}
		m["added"] = &x
		for k := range m {
			if k != "added" {
				delete(m, k)
				break
			}
		}
		if err := check(name); err != nil {
			return err
		}
	}
	b, _ := h.MarshalJSON()
	for k := range b {
		b[k] = '!'
	}
	if err := check("MarshalJSON"); err != nil {
		return err
	}
	if b2, _ := h.MarshalJSON(); !bytes.Equal(b2, wantJSON) {
		return fmt.Errorf("MarshalJSON after mutating an earlier result: %s, want %s", b2, wantJSON)
	}
	if v, ok := h.Lookup("added"); ok {
		return fmt.Errorf("Lookup(added) = %v after adding it to a copy", v)
	}
	return nil
}
