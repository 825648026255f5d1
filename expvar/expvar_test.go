package expvar_test

import (
	"encoding/json"
	"expvar"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/pgcache/pgcache"
	pgcacheexpvar "github.com/pgcache/pgcache/expvar"
)

// TestPublished reads the variable the way a metrics scraper does, through
// /debug/vars, and checks it decodes into pgcache's own statistics type with
// the tables' real sizes.
func TestPublished(t *testing.T) {
	v := expvar.Get(pgcacheexpvar.Name)
	if v == nil {
		t.Fatalf("expvar %q not published", pgcacheexpvar.Name)
	}
	var direct pgcache.CacheStats
	if err := json.Unmarshal([]byte(v.String()), &direct); err != nil {
		t.Fatalf("expvar %q = %s: %v", pgcacheexpvar.Name, v.String(), err)
	}
	want := pgcache.Stats()
	if direct.Numeric.Slots != want.Numeric.Slots || direct.Hstore.Slots != want.Hstore.Slots || want.Numeric.Slots == 0 {
		t.Errorf("published %+v, pgcache.Stats() %+v", direct, want)
	}

	rec := httptest.NewRecorder()
	expvar.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/vars", nil))
	var all map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &all); err != nil {
		t.Fatal(err)
	}
	var served pgcache.CacheStats
	if err := json.Unmarshal(all[pgcacheexpvar.Name], &served); err != nil {
		t.Fatalf("/debug/vars %q: %s: %v", pgcacheexpvar.Name, all[pgcacheexpvar.Name], err)
	}
	if served.Numeric.Slots != want.Numeric.Slots {
		t.Errorf("/debug/vars: %+v, want Slots %d", served, want.Numeric.Slots)
	}
}

// TestPublishedTables: the variable holds an object for every table of
// pgcache.CacheStats, the pgcache_types tables included.
func TestPublishedTables(t *testing.T) {
	var tables map[string]json.RawMessage
	if err := json.Unmarshal([]byte(expvar.Get(pgcacheexpvar.Name).String()), &tables); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Numeric", "Hstore", "Text", "LongText", "Int8", "Int4", "Float8", "Date", "Timestamp", "Timestamptz"} {
		if _, ok := tables[name]; !ok {
			t.Errorf("no %q in the published statistics: %v", name, tables)
		}
	}
	if n := reflect.TypeFor[pgcache.CacheStats]().NumField(); len(tables) != n {
		t.Errorf("%d tables published, pgcache.CacheStats has %d", len(tables), n)
	}
}
