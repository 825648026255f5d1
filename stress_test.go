package pgcache_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// stressQuery returns, for each i, two numeric columns (one repeating every
// 50 rows, one never repeating) and two hstore columns (repeating every 20
// rows, never repeating). Ranges of different workers overlap, so the same
// values are read, admitted and hit from many connections at once.
const stressQuery = `select i,
	(i % 50)::numeric(12,2) + 0.25,
	i::numeric(12,3) + 0.001,
	hstore('k', (i % 20)::text),
	hstore(array['a', 'b'], array[i::text, NULL])
from generate_series($1::int, $2::int) i`

// stressWant returns the texts PostgreSQL prints for row i of stressQuery.
func stressWant(i int) (rep, dist, hrep, hdist string) {
	return fmt.Sprintf("%d.25", i%50), fmt.Sprintf("%d.001", i),
		fmt.Sprintf(`"k"=>"%d"`, i%20), fmt.Sprintf(`"a"=>"%d", "b"=>NULL`, i)
}

// TestStress reads overlapping value sets from 16 goroutines over 8
// connections, scanning into strings, Decimals, Hstores and their Null forms,
// while another goroutine resets the cache and takes snapshots, and checks
// every value against the text computed from the row's id. It runs for a
// fixed time rather than a fixed amount of work, so that it stays short
// under -race on a slow machine; it asserts nothing about speed.
func TestStress(t *testing.T) {
	needHstore(t)
	db := openDB(t, pcDriver, pgtest.DSN(t))
	db.SetMaxOpenConns(8)
	before := pgcache.Stats()
	rows, _ := load{
		workers:  16,
		duration: 3 * time.Second,
		seed:     1,
		read: func(_, iter int, rng *rand.Rand) (int, error) {
			lo := 1 + rng.IntN(1000)
			hi := lo + rng.IntN(300)
			n, err := stressRead(db, lo, hi, iter%3)
			if err != nil {
				err = fmt.Errorf("rows %d-%d: %w", lo, hi, err)
			}
			return n, err
		},
		pause: func() time.Duration { return 50 * time.Millisecond },
		disturb: func() error {
			pgcache.ResetCache()
			if s := pgcache.Stats(); s.Numeric.Entries > s.Numeric.Slots || s.Hstore.Entries > s.Hstore.Slots {
				return fmt.Errorf("more entries than slots: %+v", s)
			}
			return nil
		},
	}.run(t)
	// Every non-NULL value read was counted exactly once, in one table:
	// two numeric and two hstore values per row.
	num, hs := loadTraffic(t, before, pgcache.Stats(), 2*rows)
	t.Logf("%d values per table; numeric %v, hstore %v", 2*rows, num, hs)
}

// stressRead reads rows lo..hi of stressQuery, scanning in one of three ways,
// and checks every value. It returns the number of rows read.
func stressRead(db *sql.DB, lo, hi, mode int) (int, error) {
	rows, err := db.Query(stressQuery, lo, hi)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var i int
		var got [4]string
		switch mode {
		case 0:
			if err := rows.Scan(&i, &got[0], &got[1], &got[2], &got[3]); err != nil {
				return n, err
			}
		case 1:
			var rep, dist pgcache.Decimal
			var hrep, hdist pgcache.Hstore
			if err := rows.Scan(&i, &rep, &dist, &hrep, &hdist); err != nil {
				return n, err
			}
			if err := checkStressValues(i, rep, dist, hrep, hdist); err != nil {
				return n, err
			}
			got = [4]string{rep.String(), dist.String(), hrep.String(), hdist.String()}
		case 2:
			var rep, dist pgcache.NullDecimal
			var hrep pgcache.NullHstore
			var hdist any
			if err := rows.Scan(&i, &rep, &dist, &hrep, &hdist); err != nil {
				return n, err
			}
			if !rep.Valid || !dist.Valid || !hrep.Valid {
				return n, fmt.Errorf("row %d: a value is not Valid", i)
			}
			if err := checkStressValues(i, rep.Decimal, dist.Decimal, hrep.Hstore, pgcache.Hstore{}); err != nil {
				return n, err
			}
			s, _ := hdist.(string)
			got = [4]string{rep.Decimal.String(), dist.Decimal.String(), hrep.Hstore.String(), s}
		}
		n++
		rep, dist, hrep, hdist := stressWant(i)
		if want := [4]string{rep, dist, hrep, hdist}; got != want {
			return n, fmt.Errorf("row %d: got %q, want %q", i, got, want)
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

// checkStressValues checks the decimals' methods and the hstores' lookups;
// an empty hdist is not checked.
func checkStressValues(i int, rep, dist pgcache.Decimal, hrep, hdist pgcache.Hstore) error {
	wantRep, wantDist, _, _ := stressWant(i)
	for _, c := range []struct {
		d    pgcache.Decimal
		want string
	}{{rep, wantRep}, {dist, wantDist}} {
		want, err := pgcache.ParseDecimal(c.want)
		if err != nil {
			return err
		}
		if c.d.Cmp(want) != 0 || c.d.String() != c.want || c.d.Sign() != 1 {
			return fmt.Errorf("row %d: Decimal %s, want %s", i, c.d, c.want)
		}
		f, err := c.d.Float64()
		if wantF, _ := strconv.ParseFloat(c.want, 64); err != nil || f != wantF {
			return fmt.Errorf("row %d: Float64 of %s = %v, %v", i, c.d, f, err)
		}
	}
	if v, ok := hrep.Lookup("k"); !ok || v.String != strconv.Itoa(i%20) || hrep.Len() != 1 {
		return fmt.Errorf("row %d: Lookup(k) in %s = %v, %t", i, hrep, v, ok)
	}
	if hdist.Len() == 0 {
		return nil
	}
	if v, ok := hdist.Lookup("a"); !ok || v.String != strconv.Itoa(i) {
		return fmt.Errorf("row %d: Lookup(a) in %s = %v, %t", i, hdist, v, ok)
	}
	if v, ok := hdist.Lookup("b"); !ok || v.Valid {
		return fmt.Errorf("row %d: Lookup(b) in %s = %v, %t; want a NULL value", i, hdist, v, ok)
	}
	return nil
}
