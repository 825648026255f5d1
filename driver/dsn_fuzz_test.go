package driver_test

import (
	"reflect"
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
