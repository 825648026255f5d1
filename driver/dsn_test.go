package driver_test

import (
	"errors"
	"reflect"
	"testing"

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
		{"none", map[string]string{"application_name": "x"}, driver.Options{Cache: true}, ""},
		{"nil", nil, driver.Options{Cache: true}, ""},
		{"off", map[string]string{"pgcache": "off"}, driver.Options{Cache: false}, ""},
		{"OFF", map[string]string{"pgcache": "OFF"}, driver.Options{Cache: false}, ""},
		{"on", map[string]string{"pgcache": "true"}, driver.Options{Cache: true}, ""},
		{"disable", map[string]string{"pgcache_disable": "a,t.b"},
			driver.Options{Cache: true, Disable: []driver.Column{{Name: "a"}, {Table: "t", Name: "b"}}}, ""},
		{"bad bool", map[string]string{"pgcache": "maybe"}, driver.Options{},
			`pgcache: invalid DSN option pgcache="maybe": want on or off`},
		{"unknown", map[string]string{"pgcache_disabel": "a"}, driver.Options{},
			`pgcache: unknown DSN option "pgcache_disabel" (known options: pgcache, pgcache_disable)`},
		{"unknown upper", map[string]string{"PGCACHE": "off"}, driver.Options{},
			`pgcache: unknown DSN option "PGCACHE" (known options: pgcache, pgcache_disable)`},
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
				if len(k) >= 7 && (k[:7] == "pgcache" || k[:7] == "PGCACHE") {
					t.Fatalf("Extract left %q in the params; pgx would send it to the server", k)
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
			want := driver.Options{Cache: false, Disable: []driver.Column{{Table: "orders", Name: "note_total"}, {Name: "price"}}}
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
	o := driver.Options{Cache: false, Disable: []driver.Column{{Name: "Mixed"}, {Schema: "s", Table: "t.x", Name: "c"}}}
	got, err := driver.Extract(o.Params())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, o) {
		t.Fatalf("Extract(Params()) = %#v, want %#v", got, o)
	}
}
