package driver_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pgcache/pgcache/driver"
)

// testDisable feeds the parse test, the round-trip test and the fuzz seeds.
var testDisable = []struct {
	in   string
	want []driver.Column
}{
	{"", nil},
	{"   ", nil},
	{"price", []driver.Column{{Name: "price"}}},
	{"Price", []driver.Column{{Name: "price"}}},
	{`"Price"`, []driver.Column{{Name: "Price"}}},
	{"orders.note_total", []driver.Column{{Table: "orders", Name: "note_total"}}},
	{"public.orders.note_total", []driver.Column{{Schema: "public", Table: "orders", Name: "note_total"}}},
	{"a, b.c ,d.e.f", []driver.Column{{Name: "a"}, {Table: "b", Name: "c"}, {Schema: "d", Table: "e", Name: "f"}}},
	{`"we""ird.na,me".x`, []driver.Column{{Table: `we"ird.na,me`, Name: "x"}}},
	{"col$1,_x9", []driver.Column{{Name: "col$1"}, {Name: "_x9"}}},
	{"prix_été", []driver.Column{{Name: "prix_été"}}},
	// Found by FuzzParseDisable: U+00A0 is a valid identifier character, not
	// a separator. Before the fix the whole list was taken for empty.
	{"\u00a0", []driver.Column{{Name: "\u00a0"}}},
	{"\"\u00a0\"", []driver.Column{{Name: "\u00a0"}}},
}

func TestParseDisable(t *testing.T) {
	for _, tt := range testDisable {
		t.Run(tt.in, func(t *testing.T) {
			got, err := driver.ParseDisable(tt.in)
			if err != nil {
				t.Fatalf("ParseDisable(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseDisable(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseDisableErrors(t *testing.T) {
	for _, tt := range []struct{ in, wantErr string }{
		{"a,,b", `pgcache: invalid DSN option pgcache_disable="a,,b": unexpected ',' at byte 2; want a column name`},
		{"a,", `pgcache: invalid DSN option pgcache_disable="a,": missing column name at byte 2`},
		{"a.b.c.d", `pgcache: invalid DSN option pgcache_disable="a.b.c.d": entry 1 has 4 dot-separated parts; want column, table.column or schema.table.column`},
		{"a b", `pgcache: invalid DSN option pgcache_disable="a b": unexpected 'b' at byte 2; entries are separated by commas`},
		{`"abc`, `pgcache: invalid DSN option pgcache_disable="\"abc": unterminated quoted identifier starting at byte 0`},
		{`""`, `pgcache: invalid DSN option pgcache_disable="\"\"": empty quoted identifier at byte 0`},
		{"1col", `pgcache: invalid DSN option pgcache_disable="1col": unexpected '1' at byte 0; want a column name`},
		{"a.", `pgcache: invalid DSN option pgcache_disable="a.": missing column name at byte 2`},
		// No PostgreSQL identifier holds a NUL, and a DSN is UTF-8 text.
		{"\"a\x00b\"", `pgcache: invalid DSN option pgcache_disable="\"a\x00b\"": identifier starting at byte 0 contains a NUL byte`},
		{"t.\"\x00\"", `pgcache: invalid DSN option pgcache_disable="t.\"\x00\"": identifier starting at byte 2 contains a NUL byte`},
		{"ab\xffc", `pgcache: invalid DSN option pgcache_disable="ab\xffc": identifier starting at byte 0 is not valid UTF-8`},
		{"x, \"\xc3\"", `pgcache: invalid DSN option pgcache_disable="x, \"\xc3\"": identifier starting at byte 3 is not valid UTF-8`},
	} {
		t.Run(tt.in, func(t *testing.T) {
			_, err := driver.ParseDisable(tt.in)
			if err == nil {
				t.Fatalf("ParseDisable(%q) succeeded, want error", tt.in)
			}
			if err.Error() != tt.wantErr {
				t.Fatalf("ParseDisable(%q) error\n got: %s\nwant: %s", tt.in, err, tt.wantErr)
			}
			if !errors.Is(err, driver.ErrInvalidValue) {
				t.Fatalf("error %v does not wrap ErrInvalidValue", err)
			}
		})
	}
}

func TestColumnStringRoundTrip(t *testing.T) {
	for _, tt := range testDisable {
		for _, c := range tt.want {
			got, err := driver.ParseDisable(c.String())
			if err != nil || len(got) != 1 || got[0] != c {
				t.Errorf("ParseDisable(%q) = %#v, %v; want %#v", c.String(), got, err, c)
			}
		}
	}
}

func TestExtract(t *testing.T) {
	for _, tt := range []struct {
		name    string
		params  map[string]string
		want    driver.Options
		wantErr string
	}{
		{"none", map[string]string{"application_name": "x"}, driver.DefaultOptions(), ""},
		{"nil", nil, driver.DefaultOptions(), ""},
		{"off", map[string]string{"pgcache": "off"}, driver.Options{Cache: false, Types: driver.DefaultTypes}, ""},
		{"OFF", map[string]string{"pgcache": "OFF"}, driver.Options{Cache: false, Types: driver.DefaultTypes}, ""},
		{"on", map[string]string{"pgcache": "true"}, driver.DefaultOptions(), ""},
		{"types none", map[string]string{"pgcache_types": "none"}, driver.Options{Cache: true}, ""},
		{"types empty", map[string]string{"pgcache_types": ""}, driver.Options{Cache: true}, ""},
		{"disable", map[string]string{"pgcache_disable": "a,t.b"},
			driver.Options{Cache: true, Types: driver.DefaultTypes, Disable: []driver.Column{{Name: "a"}, {Table: "t", Name: "b"}}}, ""},
		{"bad bool", map[string]string{"pgcache": "maybe"}, driver.Options{},
			`pgcache: invalid DSN option pgcache="maybe": want on/off, true/false, yes/no or 1/0`},
		{"unknown", map[string]string{"pgcache_disabel": "a"}, driver.Options{},
			`pgcache: unknown DSN option "pgcache_disabel" (known options: pgcache, pgcache_disable, pgcache_types)`},
		{"unknown upper", map[string]string{"PGCACHE": "off"}, driver.Options{},
			`pgcache: unknown DSN option "PGCACHE" (known options: pgcache, pgcache_disable, pgcache_types)`},
		{"unknown no underscore", map[string]string{"pgcachetypes": "all"}, driver.Options{},
			`pgcache: unknown DSN option "pgcachetypes" (known options: pgcache, pgcache_disable, pgcache_types)`},
		{"misspelt", map[string]string{"pgcahce_disable": "a"}, driver.Options{},
			`pgcache: unknown DSN option "pgcahce_disable" (known options: pgcache, pgcache_disable, pgcache_types)`},
		{"misspelt short", map[string]string{"pgcahe": "off"}, driver.Options{},
			`pgcache: unknown DSN option "pgcahe" (known options: pgcache, pgcache_disable, pgcache_types)`},
		// A dotted key is a custom server parameter, which pgx sends to the
		// server: not pgcache's, whatever its prefix.
		{"custom parameter", map[string]string{"pgcache.foo": "bar", "PGCACHE.Bar": "1", "myapp.pgcache_types": "x"},
			driver.DefaultOptions(), ""},
		{"others left alone", map[string]string{"search_path": "public", "application_name": "pgcache", "pgcache_types": "int8"},
			driver.Options{Cache: true, Types: driver.TypeSet(driver.TypeInt8)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			params := tt.params
			got, err := driver.Extract(params)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Extract error = %v, want %s", err, tt.wantErr)
				}
				var oe *driver.OptionError
				if !errors.As(err, &oe) {
					t.Fatalf("error %T is not an *OptionError", err)
				}
			} else if err != nil {
				t.Fatalf("Extract: %v", err)
			} else if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Extract = %#v, want %#v", got, tt.want)
			}
			for k := range params {
				if len(k) >= 7 && strings.EqualFold(k[:7], "pgcache") && !strings.Contains(k, ".") {
					t.Fatalf("Extract left %q in the params; pgx would send it to the server", k)
				}
			}
			for k, v := range tt.params {
				if strings.Contains(k, ".") || !strings.HasPrefix(strings.ToLower(k), "pgcache") {
					if params[k] != v {
						t.Errorf("Extract took %s=%q, which is the server's", k, v)
					}
				}
			}
		})
	}
}

// TestExtractFromPgxConfig checks both DSN forms end to end through pgx's own
// parser, which is how the driver reads them.
func TestExtractFromPgxConfig(t *testing.T) {
	for _, dsn := range []string{
		"postgres://u@localhost/db?pgcache=off&pgcache_disable=orders.note_total,price&application_name=app",
		"host=localhost user=u dbname=db pgcache=off pgcache_disable='orders.note_total, price' application_name=app",
	} {
		t.Run(dsn, func(t *testing.T) {
			cfg, err := pgx.ParseConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			o, err := driver.Extract(cfg.RuntimeParams)
			if err != nil {
				t.Fatal(err)
			}
			want := driver.Options{Cache: false, Types: driver.DefaultTypes, Disable: []driver.Column{{Table: "orders", Name: "note_total"}, {Name: "price"}}}
			if !reflect.DeepEqual(o, want) {
				t.Fatalf("got %#v, want %#v", o, want)
			}
			if want := map[string]string{"application_name": "app"}; !reflect.DeepEqual(cfg.RuntimeParams, want) {
				t.Fatalf("RuntimeParams after Extract = %v, want %v", cfg.RuntimeParams, want)
			}
		})
	}
}

func TestOptionsParamsRoundTrip(t *testing.T) {
	disable := []driver.Column{{Name: "Mixed"}, {Schema: "s", Table: "t.x", Name: "c"}}
	for _, o := range []driver.Options{
		{Cache: false, Types: driver.DefaultTypes, Disable: disable},
		{Cache: true, Disable: disable}, // pgcache_types=none
		{Cache: true, Types: driver.AllTypes},
		{Cache: true, Types: driver.TextTypes},
		{Cache: true, Types: driver.FixedTypes},
		{Cache: true, Types: driver.TypeSet(driver.TypeDate)},
		driver.DefaultOptions(),
	} {
		got, err := driver.Extract(o.Params())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, o) {
			t.Errorf("Extract(Params()) = %#v, want %#v (Params %v)", got, o, o.Params())
		}
	}
	if p := driver.DefaultOptions().Params(); len(p) != 0 {
		t.Errorf("DefaultOptions().Params() = %v, want none", p)
	}
	if p := (driver.Options{Cache: true}).Params(); p[driver.KeyTypes] != "none" {
		t.Errorf("Params of numeric and hstore only = %v, want pgcache_types=none", p)
	}
}

func TestTruncateIdentifier(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"price", "price"},
		{strings.Repeat("a", 63), strings.Repeat("a", 63)},
		{strings.Repeat("a", 64), strings.Repeat("a", 63)},
		{strings.Repeat("a", 200), strings.Repeat("a", 63)},
		// A 2-byte character straddling byte 63 is dropped whole.
		{strings.Repeat("a", 62) + "é", strings.Repeat("a", 62)},
		{strings.Repeat("a", 61) + "é", strings.Repeat("a", 61) + "é"},
		{strings.Repeat("é", 40), strings.Repeat("é", 31)},
		// 3- and 4-byte characters.
		{strings.Repeat("名", 22), strings.Repeat("名", 21)},
		{strings.Repeat("a", 60) + "😀", strings.Repeat("a", 60)},
		{strings.Repeat("a", 59) + "😀", strings.Repeat("a", 59) + "😀"},
	} {
		got := driver.TruncateIdentifier(tt.in)
		if got != tt.want {
			t.Errorf("TruncateIdentifier(%q) = %q (%d bytes), want %q", tt.in, got, len(got), tt.want)
		}
		if len(got) > driver.MaxIdentifierLength || !utf8.ValidString(got) {
			t.Errorf("TruncateIdentifier(%q) = %q: too long or not UTF-8", tt.in, got)
		}
	}
}

// TestParseDisableKeepsLongNames: ParseDisable keeps what was written (so
// Column.String shows it); the truncation happens when a connection resolves
// the entries, where the database's encoding is known.
func TestParseDisableKeepsLongNames(t *testing.T) {
	long := strings.Repeat("x", 100)
	got, err := driver.ParseDisable(long + "." + long)
	if err != nil {
		t.Fatal(err)
	}
	if want := []driver.Column{{Table: long, Name: long}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}
