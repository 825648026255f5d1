// Package difftest holds what pgcache's differential tests share, in the root
// package's external tests and in the integration module: the two drivers
// they compare, a *sql.DB of each, the cache traffic a part of a test causes,
// a record of what a run observed and the comparison of two runs' lines.
//
// It imports pgcache, so the root package's internal tests cannot use it;
// helpers that need no pgcache, such as [pgtest.OpenDB], live in pgtest.
package difftest

import (
	"database/sql"
	"fmt"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// The database/sql drivers a differential test compares: pgx stdlib is the
// reference, and pgcache must give what it gives.
const (
	Std     = "pgx"
	PgCache = pgcache.DriverName
)

// Drivers lists [Std] and [PgCache], in that order.
var Drivers = [2]string{Std, PgCache}

// OpenPair opens dsn with pgx stdlib and with pgcache and closes both when t
// ends.
func OpenPair(t testing.TB, dsn string) (std, pc *sql.DB) {
	t.Helper()
	return pgtest.OpenDB(t, Std, dsn), pgtest.OpenDB(t, PgCache, dsn)
}

// Traffic runs f and returns the cache traffic it caused in pgcache's
// numeric and hstore tables. Counts are published when a result set closes,
// so f must close (or fully read) every Rows it opens. The cache is
// process-wide: the counts are exact only while no other test reads through
// it.
func Traffic(f func()) (numeric, hstore cache.Counts) {
	before := pgcache.Stats()
	f()
	after := pgcache.Stats()
	return after.Numeric.Since(before.Numeric), after.Hstore.Since(before.Hstore)
}

// Record collects what a run observed, one line per value or event, so that
// two drivers' runs compare as a whole.
type Record []string

// Add appends a line, formatted as by fmt.Sprintf.
func (r *Record) Add(format string, args ...any) { *r = append(*r, fmt.Sprintf(format, args...)) }

// CompareLines reports on t every line in which pgcache's lines got differ
// from pgx stdlib's lines want, or their numbers when those differ, under the
// heading what. It returns whether they were the same.
func CompareLines(t testing.TB, what string, want, got []string) bool {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: stdlib gave %d rows, pgcache %d\nstdlib:  %q\npgcache: %q", what, len(want), len(got), want, got)
		return false
	}
	same := true
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("%s, row %d:\nstdlib:  %.600s\npgcache: %.600s", what, i, want[i], got[i])
			same = false
		}
	}
	return same
}

// MustDecimal parses s with [pgcache.ParseDecimal] and fails t if it does not
// parse.
func MustDecimal(t testing.TB, s string) pgcache.Decimal {
	t.Helper()
	d, err := pgcache.ParseDecimal(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// MustHstore parses s with [pgcache.ParseHstore] and fails t if it does not
// parse.
func MustHstore(t testing.TB, s string) pgcache.Hstore {
	t.Helper()
	h, err := pgcache.ParseHstore(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
