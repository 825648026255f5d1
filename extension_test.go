package pgcache_test

import (
	"database/sql"
	"testing"

	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestHstoreExtensionLifecycle covers issue 3's "find the type" rules in a
// database of its own: without the hstore extension pgcache works normally; a
// connection opened before CREATE EXTENSION keeps reading hstore as the plain
// text stdlib returns, with no cache traffic; a connection opened afterwards
// caches it. Values equal pgx stdlib's throughout.
func TestHstoreExtensionLifecycle(t *testing.T) {
	dsn := pgtest.Database(t)
	std, pc := openDBs(t, dsn)
	pc.SetMaxOpenConns(1)
	pc.SetMaxIdleConns(1)
	pc.SetConnMaxLifetime(0)

	scanText := func(db *sql.DB, query string) string {
		t.Helper()
		var s string
		if err := db.QueryRow(query).Scan(&s); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return s
	}

	// No extension: numeric still goes through the cache, nothing else breaks.
	num, _ := traffic(func() { scanText(pc, "select 1.25::numeric") })
	if num.Hits+num.Misses+num.Admissions == 0 {
		t.Fatalf("numeric in a database without hstore caused no cache traffic: %v", num)
	}
	if got, want := scanText(pc, "select 'x'::text"), "x"; got != want {
		t.Fatalf("text column: got %q, want %q", got, want)
	}

	// The pooled connection was opened before the extension exists.
	mustExec(t, std, "create extension hstore")
	const q = `select '"a"=>"1", "b"=>NULL'::hstore`
	want := scanText(std, q)
	for range 3 {
		var got string
		_, hs := traffic(func() { got = scanText(pc, q) })
		if got != want {
			t.Fatalf("old connection: got %q, want stdlib's %q", got, want)
		}
		if hs != (counts{}) {
			t.Fatalf("old connection caused hstore cache traffic %v; it should treat hstore as text", hs)
		}
	}

	// A connection opened now knows the type and caches it.
	fresh := openDB(t, "pgcache", dsn)
	var hs counts
	for range 3 {
		var got string
		_, d := traffic(func() { got = scanText(fresh, q) })
		if got != want {
			t.Fatalf("new connection: got %q, want stdlib's %q", got, want)
		}
		hs.Hits += d.Hits
		hs.Misses += d.Misses
		hs.Admissions += d.Admissions
	}
	if hs.Hits+hs.Misses+hs.Admissions != 3 {
		t.Fatalf("new connection: hstore cache traffic %v over three reads, want three lookups", hs)
	}
}
