package pgcache_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestRegisteredNames: code that registers a config and opens it by name
// keeps working when "pgx" becomes "pgcache", whichever package's
// RegisterConnConfig it calls, with the registered settings in effect and the
// same values as pgx stdlib.
func TestRegisteredNames(t *testing.T) {
	dsn := pgtest.DSN(t)
	const query = "select current_setting('application_name'), ((i % 5) * 0.5)::numeric(8, 2) from generate_series(1, 100) i"

	register := func(t *testing.T, reg func(*pgx.ConnConfig) string, unreg func(string)) string {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["application_name"] = "registered"
		name := reg(cfg)
		t.Cleanup(func() { unreg(name) })
		return name
	}
	stdName := register(t, stdlib.RegisterConnConfig, stdlib.UnregisterConnConfig)
	pcName := register(t, pgcache.RegisterConnConfig, pgcache.UnregisterConnConfig)
	if stdName == pcName {
		t.Fatalf("both packages returned the name %q", stdName)
	}

	want := scanTexts(t, openDB(t, stdDriver, stdName), query)
	if !strings.HasPrefix(want[0], "registered|") {
		t.Fatalf("pgx stdlib: first row %q, want the registered application_name", want[0])
	}
	for _, tt := range []struct{ what, name string }{
		{"stdlib.RegisterConnConfig", stdName},
		{"pgcache.RegisterConnConfig", pcName},
	} {
		t.Run(tt.what, func(t *testing.T) {
			db := openDB(t, pcDriver, tt.name)
			var got []string
			num, _ := traffic(func() {
				for range 3 {
					got = scanTexts(t, db, query)
				}
			})
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("pgcache: %v\npgx stdlib: %v", got, want)
			}
			if num.Hits == 0 {
				t.Errorf("cache traffic %v: no hits in three passes over repeating values", num)
			}
		})
	}

	t.Run("stdlib config carrying a pgcache option", func(t *testing.T) {
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.RuntimeParams["pgcache"] = "off"
		name := stdlib.RegisterConnConfig(cfg)
		defer stdlib.UnregisterConnConfig(name)
		err = openDB(t, pcDriver, name).PingContext(pgtest.Context(t, time.Minute))
		if !errors.Is(err, pgcache.ErrOptionReachesServer) || !strings.Contains(err.Error(), `"pgcache"`) ||
			!strings.Contains(err.Error(), "pgcache.RegisterConnConfig") {
			t.Fatalf("Ping = %v, want ErrOptionReachesServer naming the key and the way out", err)
		}
	})

	t.Run("unknown registered name", func(t *testing.T) {
		// Both drivers treat it as a DSN, which does not parse.
		const name = "registeredConnConfig999999"
		errStd := openDB(t, stdDriver, name).PingContext(pgtest.Context(t, time.Minute))
		errPC := openDB(t, pcDriver, name).PingContext(pgtest.Context(t, time.Minute))
		if errStd == nil || errPC == nil || errShow(errStd) != errShow(errPC) {
			t.Fatalf("pgx stdlib: %v\npgcache: %v", errStd, errPC)
		}
	})
}
