package driver

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTypes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want TypeSet
		err  string // substring of the error, "" for none
	}{
		{"", 0, ""},
		{"  ", 0, ""},
		{"text", TypeSet(TypeText), ""},
		{"TEXT, Varchar ,bpchar", TypeSet(TypeText | TypeVarchar | TypeBPChar), ""},
		{"all", AllTypes, ""},
		{"int8,all", AllTypes, ""},
		{"bigint, timestamp with time zone", TypeSet(TypeInt8 | TypeTimestamptz), ""},
		{"character  varying", TypeSet(TypeVarchar), ""},
		{"char", TypeSet(TypeBPChar), ""},
		{"int", TypeSet(TypeInt4), ""},
		{"txt", 0, `unknown type "txt"`},
		{"text,,date", 0, "empty type name"},
		{"text,", 0, "empty type name"},
		{"numeric", 0, `unknown type "numeric"`}, // always cached; not a pgcache_types kind
		{"hstore", 0, `unknown type "hstore"`},
	} {
		got, err := ParseTypes(tt.in)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("ParseTypes(%q): %v", tt.in, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseTypes(%q): error %v, want one containing %q", tt.in, err, tt.err)
		case got != tt.want:
			t.Errorf("ParseTypes(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestTypeSetString(t *testing.T) {
	for _, s := range []TypeSet{0, AllTypes, TypeSet(TypeText | TypeDate), TypeSet(TypeTimestamptz)} {
		back, err := ParseTypes(s.String())
		if err != nil || back != s {
			t.Errorf("ParseTypes(%q) = %v, %v; want %v", s.String(), back, err, s)
		}
	}
	if AllTypes.String() != "all" {
		t.Errorf("AllTypes.String() = %q", AllTypes.String())
	}
}

func TestExtractTypes(t *testing.T) {
	params := map[string]string{KeyTypes: "text,date", "application_name": "x"}
	o, err := Extract(params)
	if err != nil || o.Types != TypeSet(TypeText|TypeDate) {
		t.Fatalf("Extract: %+v, %v", o, err)
	}
	if _, left := params[KeyTypes]; left || params["application_name"] != "x" {
		t.Errorf("params after Extract: %v", params)
	}
	if p := o.Params(); p[KeyTypes] != "text,date" {
		t.Errorf("Params() = %v", p)
	}
	_, err = Extract(map[string]string{KeyTypes: "text,bogus"})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Key != KeyTypes || !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), `"bogus"`) {
		t.Errorf("Extract with an unknown kind: %v", err)
	}
}

// TestKindsTable: Kinds lists every TypeKind once, in bit order, so that
// AllTypes is every kind; names and aliases are unique and lower-case, as
// ParseTypes matches them; each kind names its format's OID.
func TestKindsTable(t *testing.T) {
	seen := map[string]bool{"all": true}
	for i, k := range Kinds {
		if k.Kind != TypeKind(1)<<i {
			t.Errorf("Kinds[%d] is %s with bit %#x, want bit %#x: the table must follow the TypeKind constants", i, k.Name, k.Kind, 1<<i)
		}
		if !AllTypes.Has(k.Kind) {
			t.Errorf("AllTypes lacks %s", k.Name)
		}
		for _, name := range append([]string{k.Name}, k.Aliases...) {
			if name != strings.ToLower(name) || seen[name] {
				t.Errorf("kind %s: spelling %q is not lower-case or not unique", k.Name, name)
			}
			seen[name] = true
		}
		if (k.OID == 0) != (k.Kind == TypeEnum) || (k.Binary && k.Table == "Text") || k.Table == "" {
			t.Errorf("kind %s: OID %d, binary %t, table %q do not fit together", k.Name, k.OID, k.Binary, k.Table)
		}
	}
}
