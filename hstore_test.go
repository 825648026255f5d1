package pgcache_test

import (
	"database/sql"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

func str(s string) *string { return &s }

func equalHstoreMaps(a, b map[string]*string) bool {
	return maps.EqualFunc(a, b, func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) })
}

func TestHstoreAccessors(t *testing.T) {
	t.Parallel()
	h := mustHstore(t, `"a"=>"1", "b"=>NULL, "c"=>"", "bb"=>"x\"y", ""=>"empty key", "ключ"=>"\\"`)
	// hstore_out order is shorter keys first; ParseHstore also takes other
	// orders, so this text (not in that order) checks the sorting.
	if h.Len() != 6 {
		t.Errorf("Len() = %d, want 6", h.Len())
	}
	for _, tt := range []struct {
		key string
		val sql.NullString
		ok  bool
	}{
		{"a", sql.NullString{String: "1", Valid: true}, true},
		{"b", sql.NullString{}, true},
		{"c", sql.NullString{String: "", Valid: true}, true},
		{"bb", sql.NullString{String: `x"y`, Valid: true}, true},
		{"", sql.NullString{String: "empty key", Valid: true}, true},
		{"ключ", sql.NullString{String: `\`, Valid: true}, true},
		{"d", sql.NullString{}, false},
		{"A", sql.NullString{}, false},
		{"a ", sql.NullString{}, false},
	} {
		v, ok := h.Lookup(tt.key)
		if v != tt.val || ok != tt.ok || h.Has(tt.key) != tt.ok {
			t.Errorf("Lookup(%q) = %v, %t; Has %t; want %v, %t", tt.key, v, ok, h.Has(tt.key), tt.val, tt.ok)
		}
	}
	var keys []string
	for k := range h.All() {
		keys = append(keys, k)
	}
	if want := []string{"", "a", "b", "c", "bb", "ключ"}; !slices.Equal(keys, want) {
		t.Errorf("All() keys %q, want %q (shorter first, then bytewise)", keys, want)
	}
	n := 0
	for range h.All() {
		n++
		break
	}
	if n != 1 {
		t.Errorf("All() did not stop at break")
	}
	want := map[string]*string{"a": str("1"), "b": nil, "c": str(""), "bb": str(`x"y`), "": str("empty key"), "ключ": str(`\`)}
	if m := h.Map(); !equalHstoreMaps(m, want) {
		t.Errorf("Map() = %v", m)
	}
	if p := h.Pgtype(); !equalHstoreMaps(p, want) {
		t.Errorf("Pgtype() = %v", p)
	}
}

// TestHstoreCopiesAreTheCallers: Map and Pgtype hand out copies; changing
// them (the maps or the strings their pointers point to) leaves h as it was.
func TestHstoreCopiesAreTheCallers(t *testing.T) {
	t.Parallel()
	h := mustHstore(t, `"a"=>"1", "b"=>NULL`)
	m := h.Map()
	*m["a"] = "changed"
	m["b"] = str("set")
	delete(m, "a")
	m["new"] = nil
	p := h.Pgtype()
	*p["a"] = "changed too"
	p["c"] = str("3")
	if v, _ := h.Lookup("a"); v.String != "1" || h.Len() != 2 || h.Has("c") || h.Has("new") {
		t.Errorf("h changed through its copies: %s", h)
	}
	if b, _ := h.Lookup("b"); b.Valid {
		t.Errorf("h's NULL changed through a copy: %v", b)
	}
	if h.String() != `"a"=>"1", "b"=>NULL` {
		t.Errorf("String() = %s", h)
	}
}

func TestHstoreZeroValue(t *testing.T) {
	t.Parallel()
	var h pgcache.Hstore
	if h.Len() != 0 || h.String() != "" || h.Has("") || len(h.Map()) != 0 {
		t.Errorf("zero Hstore: %q, len %d", h.String(), h.Len())
	}
	if b, err := json.Marshal(h); string(b) != "{}" || err != nil {
		t.Errorf("zero Hstore JSON: %s, %v", b, err)
	}
	if v, err := h.Value(); v != "" || err != nil {
		t.Errorf("zero Hstore Value: %#v, %v", v, err)
	}
	for range h.All() {
		t.Error("zero Hstore has pairs")
	}
}

func TestHstoreFromMap(t *testing.T) {
	t.Parallel()
	h := pgcache.HstoreFromMap(map[string]*string{"bb": str("2"), "a": str(`q"\`), "c": nil})
	if h.String() != `"a"=>"q\"\\", "c"=>NULL, "bb"=>"2"` {
		t.Errorf("String() = %s", h)
	}
	if v, ok := h.Lookup("a"); !ok || v.String != `q"\` {
		t.Errorf("Lookup(a) = %v, %t", v, ok)
	}
	if e := pgcache.HstoreFromMap(nil); e.Len() != 0 || e.String() != "" {
		t.Errorf("HstoreFromMap(nil) = %q", e.String())
	}
}

func TestHstoreJSON(t *testing.T) {
	t.Parallel()
	h := mustHstore(t, `"a"=>"1", "b"=>NULL, "<&>"=>"\"\\ é"`)
	b, err := h.MarshalJSON()
	if err != nil || string(b) != `{"a":"1","b":null,"<&>":"\"\\ é"}` {
		t.Errorf("MarshalJSON() = %s, %v", b, err)
	}
	// encoding/json escapes HTML in what MarshalJSON returns.
	if b, err = json.Marshal(h); err != nil || string(b) != `{"a":"1","b":null,"\u003c\u0026\u003e":"\"\\ é"}` {
		t.Errorf("json.Marshal = %s, %v", b, err)
	}
	var back pgcache.Hstore
	if err := json.Unmarshal(b, &back); err != nil || !equalHstoreMaps(back.Map(), h.Map()) {
		t.Errorf("Unmarshal(%s) = %s, %v", b, back, err)
	}
	// null leaves the value unchanged; bad input is an error.
	if err := json.Unmarshal([]byte("null"), &back); err != nil || back.Len() != 3 {
		t.Errorf("Unmarshal(null): %s, %v", back, err)
	}
	for _, bad := range []string{`{"a":1}`, `[]`, `"a=>1"`, `{"a":`, `{"a":true}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("Unmarshal(%s) succeeded: %s", bad, back)
		}
	}

	type doc struct {
		H pgcache.Hstore
		N pgcache.NullHstore
		V pgcache.NullHstore
	}
	var d doc
	if err := json.Unmarshal([]byte(`{"H": {"x": "1"}, "N": null, "V": {}}`), &d); err != nil {
		t.Fatal(err)
	}
	if v, _ := d.H.Lookup("x"); v.String != "1" || d.N.Valid || !d.V.Valid || d.V.Hstore.Len() != 0 {
		t.Errorf("decoded %+v", d)
	}
	if b, err := json.Marshal(d); err != nil || string(b) != `{"H":{"x":"1"},"N":null,"V":{}}` {
		t.Errorf("Marshal = %s, %v", b, err)
	}
}

func TestHstoreScan(t *testing.T) {
	t.Parallel()
	const text = `"a"=>"1", "b"=>NULL`
	for _, src := range []any{text, []byte(text)} {
		var h pgcache.Hstore
		if err := h.Scan(src); err != nil || h.String() != text || h.Len() != 2 {
			t.Errorf("Scan(%#v) = %s, %v", src, h, err)
		}
		var n pgcache.NullHstore
		if err := n.Scan(src); err != nil || !n.Valid || n.Hstore.String() != text {
			t.Errorf("NullHstore.Scan(%#v) = %+v, %v", src, n, err)
		}
	}
	var h pgcache.Hstore
	if err := h.Scan(""); err != nil || h.Len() != 0 {
		t.Errorf(`Scan("") = %s, %v`, h, err)
	}
	for _, src := range []any{`a=>1`, `"a"=>`, `"a"=>"1",`, int64(1), 1.5, true} {
		h := mustHstore(t, `"k"=>"v"`)
		if err := h.Scan(src); err == nil {
			t.Errorf("Scan(%#v) succeeded: %s", src, h)
		} else if h.String() != `"k"=>"v"` {
			t.Errorf("a failed Scan(%#v) changed the Hstore to %s", src, h)
		}
	}
	if err := h.Scan(nil); err == nil || !strings.Contains(err.Error(), "NullHstore") {
		t.Errorf("Scan(nil) = %v; want an error pointing to NullHstore", err)
	}
	n := pgcache.NullHstore{Hstore: mustHstore(t, `"k"=>"v"`), Valid: true}
	if err := n.Scan(nil); err != nil || n.Valid || n.Hstore.Len() != 0 {
		t.Errorf("NullHstore.Scan(nil) = %+v, %v", n, err)
	}
	if v, err := (pgcache.NullHstore{}).Value(); v != nil || err != nil {
		t.Errorf("invalid NullHstore Value() = %#v, %v", v, err)
	}
	if v, err := n.Value(); v != nil || err != nil {
		t.Errorf("NULL NullHstore Value() = %#v, %v", v, err)
	}
}

// TestHstoreArgs writes Hstores back to PostgreSQL as query arguments through
// both drivers; the server must read exactly the pairs the Hstore holds and
// print exactly its String.
func TestHstoreArgs(t *testing.T) {
	t.Parallel()
	needHstore(t)
	dsn := pgtest.DSN(t)
	values := []pgcache.Hstore{
		{},
		mustHstore(t, `"a"=>"1"`),
		mustHstore(t, `"a"=>"1", "b"=>NULL, "bb"=>""`),
		pgcache.HstoreFromMap(map[string]*string{"": str(""), `q"`: str(`\`), "NULL": nil, "null": str("NULL"), "k=>": str(", "), "ключ": str("値")}),
		pgcache.HstoreFromMap(func() map[string]*string {
			m := map[string]*string{}
			for i := 0; i < 300; i++ {
				m[strings.Repeat("k", i%7)+string(rune('a'+i%26))+strings.Repeat("!", i/26)] = str(strings.Repeat("v", i))
			}
			return m
		}()),
	}
	for _, name := range []string{stdDriver, pcDriver} {
		t.Run(name, func(t *testing.T) {
			db := openDB(t, name, dsn)
			table := "pgc_hstore_args_" + name
			mustExec(t, db, "drop table if exists "+table+"; create table "+table+" (id int, h hstore)")
			for i, h := range values {
				mustExec(t, db, "insert into "+table+" values ($1, $2)", i, h)
			}
			mustExec(t, db, "insert into "+table+" values ($1, $2)", len(values), pgcache.NullHstore{})
			rows, err := db.Query("select h, h::text from " + table + " order by id")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			i := 0
			for ; rows.Next(); i++ {
				var h pgcache.NullHstore
				var text sql.NullString
				if err := rows.Scan(&h, &text); err != nil {
					t.Fatal(err)
				}
				if i == len(values) {
					if h.Valid || text.Valid {
						t.Errorf("NULL came back as %+v", h)
					}
					continue
				}
				if !h.Valid || !equalHstoreMaps(h.Hstore.Map(), values[i].Map()) {
					t.Errorf("row %d: %s, want %s", i, h.Hstore, values[i])
				}
				if text.String != values[i].String() {
					t.Errorf("row %d: the server prints %q, String() is %q", i, text.String, values[i].String())
				}
			}
			if err := rows.Err(); err != nil || i != len(values)+1 {
				t.Errorf("%d rows, %v", i, err)
			}
			// pgtype.Hstore reads what pgcache writes, and the other way round.
			var p pgtype.Hstore
			if err := db.QueryRow("select $1::hstore", values[3]).Scan(&p); err != nil || !equalHstoreMaps(p, values[3].Map()) {
				t.Errorf("pgtype.Hstore read %v, %v", p, err)
			}
			var h pgcache.Hstore
			if err := db.QueryRow("select $1::hstore", values[3].Pgtype()).Scan(&h); err != nil || h.String() != values[3].String() {
				t.Errorf("pgcache.Hstore read %s, %v", h, err)
			}
		})
	}
}

// TestParseHstoreDuplicateKeys: text not produced by hstore_out may be out
// of order and repeat keys. ParseHstore keeps the first of a repeated key,
// which is what the server keeps for fewer than seven pairs; for more the
// server's choice is unspecified. Either way, a value written back with Value
// must read back as the pairs Lookup and Map report.
//
// Before the fix Value returned the text as parsed, so with nine pairs the
// server kept "b"=>"4" where Lookup said "b"=>"0".
func TestParseHstoreDuplicateKeys(t *testing.T) {
	t.Parallel()
	needHstore(t)
	std := openDB(t, stdDriver, pgtest.DSN(t))
	for _, text := range []string{
		`"a"=>"1", "a"=>"2"`,
		`"b"=>"1", "a"=>"2", "b"=>"3"`,
		`"bb"=>NULL, "a"=>"x", "bb"=>"y", "a"=>NULL`,
		`"b"=>"0", "c"=>"1", "b"=>"2", "d"=>"3", "b"=>"4", "c"=>"5", "c"=>"6", "a"=>"7", "d"=>"8"`,
		`"a"=>"0", "a"=>"1", "c"=>"2", "a"=>"3", "a"=>"4", "b"=>"5", "c"=>"6", "b"=>"7", "a"=>"8", "d"=>"9", "c"=>"10", "d"=>"11"`,
	} {
		h := mustHstore(t, text)
		if strings.Count(text, "=>") < 7 {
			var server pgtype.Hstore
			if err := std.QueryRow("select $1::text::hstore", text).Scan(&server); err != nil {
				t.Fatal(err)
			}
			if !equalHstoreMaps(h.Map(), server) {
				t.Errorf("ParseHstore(%s) = %s; the server reads %s", text, showPgHstore(h.Map()), showPgHstore(server))
			}
		}
		var back pgtype.Hstore
		var printed string
		if err := std.QueryRow("select $1::hstore, $1::hstore::text", h).Scan(&back, &printed); err != nil {
			t.Fatal(err)
		}
		if !equalHstoreMaps(h.Map(), back) {
			t.Errorf("ParseHstore(%s) written back with Value reads %s; Map() is %s", text, showPgHstore(back), showPgHstore(h.Map()))
		}
		if v, _ := h.Value(); v != printed {
			t.Errorf("ParseHstore(%s).Value() = %s; the server prints it as %s", text, v, printed)
		}
	}
}
