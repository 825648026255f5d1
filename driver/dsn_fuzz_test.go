package driver_test

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgcache/pgcache/driver"
)

// FuzzParseDisable: any text either fails with an error or parses into
// columns that format and parse back to themselves. Never a panic.
func FuzzParseDisable(f *testing.F) {
	for _, tt := range testDisable {
		f.Add(tt.in)
	}
	for _, s := range []string{"a,,b", `"`, `"a""`, "a.b.c.d", ".", ",", "\x00", "a\tb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cols, err := driver.ParseDisable(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		o := driver.Options{Cache: true, Disable: cols}
		again, err := driver.Extract(o.Params())
		if err != nil {
			t.Fatalf("re-parse of %q (from %q): %v", o.Params(), s, err)
		}
		if len(cols) == 0 {
			cols = nil
		}
		if !reflect.DeepEqual(again.Disable, cols) {
			t.Fatalf("round trip of %q: got %#v, want %#v", s, again.Disable, cols)
		}
	})
}

// FuzzDSN runs arbitrary option values through pgx's DSN parser and Extract:
// never a panic, and no pgcache key survives into the server parameters.
func FuzzDSN(f *testing.F) {
	f.Add("off", "a,b.c")
	f.Add("maybe", "")
	f.Add("1", `"x y".z`)
	f.Fuzz(func(t *testing.T, cacheVal, disableVal string) {
		cfg, err := pgx.ParseConfig("host=localhost user=u dbname=d")
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["pgcache"] = cacheVal
		cfg.RuntimeParams["pgcache_disable"] = disableVal
		_, _ = driver.Extract(cfg.RuntimeParams)
		for k := range cfg.RuntimeParams {
			if k == "pgcache" || k == "pgcache_disable" {
				t.Fatalf("%q left in RuntimeParams", k)
			}
		}
	})
}

// FuzzDSNForms: an option's value means the same whether it travels in a
// keyword/value DSN, in a URL or straight in RuntimeParams: when pgx parses
// the DSN, Extract gives the same options, or the same error, as it gives for
// the value itself. Never a panic.
func FuzzDSNForms(f *testing.F) {
	for _, tt := range testDisable {
		f.Add("on", tt.in)
	}
	for _, s := range []string{"a,,b", `"x y".z`, "a b", `"a\b"`, `'q'`, "a+b", "%20", "a&b=c", "\x00", "\xff", "é, \"名前\".x"} {
		f.Add("off", s)
	}
	f.Add("maybe", "")
	f.Add(" on ", "a")
	f.Fuzz(func(t *testing.T, cacheVal, disableVal string) {
		wantOpts, wantErr := driver.Extract(map[string]string{driver.KeyCache: cacheVal, driver.KeyDisable: disableVal})
		q := url.Values{driver.KeyCache: {cacheVal}, driver.KeyDisable: {disableVal}}.Encode()
		for _, dsn := range []string{
			"host=localhost user=u dbname=d " + driver.KeyCache + "=" + quoteKeyword(cacheVal) + " " + driver.KeyDisable + "=" + quoteKeyword(disableVal),
			"postgres://u@localhost/d?" + strings.ReplaceAll(q, "+", "%20"),
		} {
			cfg, err := pgx.ParseConfig(dsn)
			if err != nil {
				continue // pgx refuses the DSN itself, with or without pgcache
			}
			got, err := driver.Extract(cfg.RuntimeParams)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("%s: error %v, want %v", dsn, err, wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, wantOpts) {
				t.Fatalf("%s: options %#v, want %#v", dsn, got, wantOpts)
			}
		}
	})
}

// quoteKeyword quotes a keyword/value DSN value as libpq reads it.
func quoteKeyword(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// FuzzParseTypes: any value of pgcache_types either fails with an error
// naming the problem or parses into a set that String spells and
// ParseTypes reads back to the same set. Never a panic.
func FuzzParseTypes(f *testing.F) {
	for _, s := range []string{"", "none", "all", "default", "default,int8", "text, varchar", "bigint,timestamp with time zone",
		"TEXT", "none,text", "a,,b", ",", "all,none", " \t", "\x00", "timestamp  with   time zone"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := driver.ParseTypes(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		again, err := driver.ParseTypes(set.String())
		if err != nil {
			t.Fatalf("re-parse of %q (from %q): %v", set.String(), s, err)
		}
		if again != set {
			t.Fatalf("round trip of %q: %q gives %v, want %v", s, set.String(), again, set)
		}
	})
}
