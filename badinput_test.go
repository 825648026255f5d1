package pgcache_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/driver"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// badOptions is every pgcache DSN option with malformed values, and keys
// that look like pgcache's but are not.
var badOptions = []struct{ key, value string }{
	{"pgcache_types", "txt"},
	{"pgcache_types", "text,"},
	{"pgcache_types", ",text"},
	{"pgcache_types", "text,,date"},
	{"pgcache_types", "numeric"},
	{"pgcache_types", "hstore"},
	{"pgcache_types", "all;drop"},
	{"pgcache_types", "int 8"},
	{"pgcache", ""},
	{"pgcache", " "},
	{"pgcache", "maybe"},
	{"pgcache", "of"},
	{"pgcache", "onn"},
	{"pgcache", "2"},
	{"pgcache", "-1"},
	{"pgcache", "on off"},
	{"pgcache", "on,off"},
	{"pgcache", "'on'"},
	{"pgcache", `"on"`},
	{"pgcache", "ön"},
	{"pgcache", "\xff"},
	{"pgcache", "o\x00n"},
	{"pgcache", strings.Repeat("on", 5000)},
	{"pgcache_disable", ","},
	{"pgcache_disable", "."},
	{"pgcache_disable", "a,"},
	{"pgcache_disable", ",a"},
	{"pgcache_disable", "a,,b"},
	{"pgcache_disable", "a.."},
	{"pgcache_disable", "a..b"},
	{"pgcache_disable", ".a"},
	{"pgcache_disable", "a.b.c.d"},
	{"pgcache_disable", "a.b.c.d.e.f.g.h"},
	{"pgcache_disable", "1col"},
	{"pgcache_disable", "$x"},
	{"pgcache_disable", "a b"},
	{"pgcache_disable", "a;b"},
	{"pgcache_disable", "a'b"},
	{"pgcache_disable", "a-b"},
	{"pgcache_disable", "a=b"},
	{"pgcache_disable", `"`},
	{"pgcache_disable", `"unterminated`},
	{"pgcache_disable", `"a""`},
	{"pgcache_disable", `""`},
	{"pgcache_disable", `a.""`},
	{"pgcache_disable", `"a"b`},
	{"pgcache_disable", "\"a\x00b\""},
	{"pgcache_disable", "ab\xffc"},
	{"pgcache_disable", "t.\"\xc3\""},
	{"pgcache_disable", strings.Repeat("a,", 3000) + ","},
	{"pgcache_foo", "1"},
	{"pgcache_numeric", "on"},
	{"pgcache_disabled", "a"},
	{"pgcache_disable_", "a"},
	{"pgcachex", "on"},
	{"PGCACHE", "off"},
	{"PGCACHE_DISABLE", "a"},
	{"Pgcache_Disable", "a"},
}

// wantOptionError returns the error Extract gives for key=value alone: the
// error every way of passing the option must give, whatever DSN form carries
// it.
func wantOptionError(t *testing.T, key, value string) string {
	t.Helper()
	_, err := driver.Extract(map[string]string{key: value})
	if err == nil {
		t.Fatalf("%s=%q is not malformed", key, value)
	}
	return err.Error()
}

// TestBadOptions passes every malformed option in a keyword/value DSN, in a
// URL, in ConnConfig.RuntimeParams (GetConnector and RegisterConnConfig), and
// checks that it fails with the *driver.OptionError naming the key and
// quoting the value, before any connection is made — never a panic, never
// forwarded to the server.
func TestBadOptions(t *testing.T) {
	t.Parallel()
	dsn := pgtest.DSN(t)
	for _, tc := range badOptions {
		name := tc.key + "=" + tc.value
		if len(name) > 60 {
			name = name[:60] + "…"
		}
		t.Run(name, func(t *testing.T) {
			want := wantOptionError(t, tc.key, tc.value)
			if !strings.Contains(want, tc.key) {
				t.Errorf("error %q does not name the key", want)
			}
			if strings.HasPrefix(want, "pgcache: invalid") && !strings.Contains(want, fmt.Sprintf("%q", tc.value)) {
				t.Errorf("error %q does not quote the value", want)
			}
			check := func(how string, err error) {
				t.Helper()
				if err == nil {
					t.Errorf("%s: no error", how)
					return
				}
				if err.Error() != want {
					t.Errorf("%s: error\n got: %.300s\nwant: %.300s", how, err, want)
				}
				if oe, ok := errors.AsType[*driver.OptionError](err); !ok || oe.Key != tc.key || oe.Value != tc.value {
					t.Errorf("%s: error %#v is not the *driver.OptionError for %s", how, err, tc.key)
				}
			}
			for _, form := range dsnForms {
				d := form.make(t, dsn, tc.key, tc.value)
				if _, err := pgx.ParseConfig(d); err != nil {
					// pgx itself refuses the DSN: pgcache must fail the
					// same way, at the first connection (as stdlib does).
					db := openDB(t, pcDriver, d)
					std := openDB(t, stdDriver, d)
					if got, want := errShow(db.Ping()), errShow(std.Ping()); got != want {
						t.Errorf("%s DSN pgx cannot parse: pgcache %s, stdlib %s", form.name, got, want)
					}
					continue
				}
				db, err := sql.Open(pcDriver, d)
				if err == nil {
					db.Close()
				}
				check(form.name+" DSN, sql.Open", err)
			}

			cfg, err := pgx.ParseConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			cfg.RuntimeParams[tc.key] = tc.value
			params := maps.Clone(cfg.RuntimeParams)
			db := sql.OpenDB(pgcache.GetConnector(*cfg))
			check("GetConnector, first connection", db.Ping())
			db.Close()
			if !maps.Equal(cfg.RuntimeParams, params) {
				t.Errorf("GetConnector changed the caller's RuntimeParams: %v, was %v", cfg.RuntimeParams, params)
			}
			db = pgcache.OpenDB(*cfg)
			check("OpenDB, first connection", db.Ping())
			db.Close()
			reg := pgcache.RegisterConnConfig(cfg)
			defer pgcache.UnregisterConnConfig(reg)
			db, err = sql.Open(pcDriver, reg)
			if err == nil {
				db.Close()
			}
			check("RegisterConnConfig, sql.Open", err)
		})
	}
}

// TestEdgeValues reads values at the edges of what the server sends through
// pgx stdlib and pgcache, three times each (miss, admission or bypass, hit),
// into every destination, and requires identical results and a connection
// that stays usable after each.
func TestEdgeValues(t *testing.T) {
	needHstore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	std, pcDB := openDBs(t, pgtest.DSN(t))
	pcDB.SetMaxOpenConns(1) // one connection, which must stay usable
	pc, err := pcDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()

	rng := rand.New(rand.NewPCG(9, 9))
	junkKeys, junkValues := make([]string, 300), make([]string, 300)
	for i := range junkKeys {
		junkKeys[i] = fmt.Sprintf("%d:%s", i, junkText(rng, 1+rng.IntN(40)))
		junkValues[i] = junkText(rng, rng.IntN(40))
	}

	for _, tc := range []struct {
		name    string
		query   string
		args    []any
		targets []target
	}{
		{"1000-digit integer", `select repeat('9', 1000)::numeric`, nil, numericTargets},
		{"1000-digit negative fraction", `select ('-0.' || repeat('0', 998) || '1')::numeric`, nil, numericTargets},
		{"1000 digits on both sides", `select (repeat('8', 1000) || '.' || repeat('7', 1000))::numeric`, nil, numericTargets},
		{"1e1000", `select 1e1000::numeric`, nil, numericTargets},
		{"1e-1000", `select 1e-1000::numeric`, nil, numericTargets},
		// A megabyte read 4 times per destination is slow under -race: the
		// destinations that parse, and the plain string.
		{"1 MB hstore value", `select hstore('k', repeat('x', 1 << 20))`, nil, bigHstoreTargets},
		{"1 MB hstore of escapes", `select hstore('k"\', repeat('"\\', 1 << 19))`, nil, bigHstoreTargets},
		{"10000 pairs", `select hstore(array(select 'k' || i from generate_series(1, 10000) i), array(select case when i % 7 = 0 then null else 'v' || i end from generate_series(1, 10000) i))`, nil, hstoreTargets},
		{"every character up to U+07FF as key", `select hstore(array(select chr(i) from generate_series(1, 2047) i), array(select chr(2048 + i) from generate_series(1, 2047) i))`, nil, hstoreTargets},
		{"binary junk keys and values", `select hstore($1::text[], $2::text[])`, []any{junkKeys, junkValues}, hstoreTargets},
		{"junk keys, one pair per row", `select hstore(k, v) from unnest($1::text[], $2::text[]) as p(k, v)`, []any{junkKeys, junkValues}, hstoreTargets},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, tg := range tc.targets {
				want := readAll(t, std, tc.query, tc.args, []target{tg})
				checkReference(t, tg.name, want)
				pgcache.ResetCache()
				for pass := 1; pass <= passes; pass++ {
					got := readAll(t, pc, tc.query, tc.args, []target{tg})
					compareLines(t, fmt.Sprintf("%s, pass %d", tg.name, pass), want, got)
				}
			}
			if got := recovered(ctx, t, pc); got != "ok" {
				t.Errorf("the connection after %s: %s", tc.name, got)
			}
		})
	}
}

var bigHstoreTargets = []target{tString, tPgHstore, tHstore}

// junkText returns n random characters: any valid UTF-8 but NUL, biased to
// the ASCII punctuation hstore's syntax gives meaning to.
func junkText(rng *rand.Rand, n int) string {
	const special = "\"\\=>, \t\n\r'{}[]NULLnull"
	var b strings.Builder
	for b.Len() < n {
		var r rune
		switch rng.IntN(4) {
		case 0:
			r = rune(special[rng.IntN(len(special))])
		case 1:
			r = rune(1 + rng.IntN(127))
		case 2:
			r = rune(rng.IntN(0x10000))
		default:
			r = rune(rng.IntN(utf8.MaxRune + 1))
		}
		if r == 0 || !utf8.ValidRune(r) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
