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
		{"none", 0, ""},
		{" None ", 0, ""},
		{"default", DefaultTypes, ""},
		{"default,int8", DefaultTypes | TypeSet(TypeInt8), ""},
		{"none,text", 0, `"none" stands alone`},
		{"text,NONE", 0, `"none" stands alone`},
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
	for _, s := range []TypeSet{0, AllTypes, TextTypes, FixedTypes, DefaultTypes, TypeSet(TypeText | TypeDate), TypeSet(TypeTimestamptz)} {
		back, err := ParseTypes(s.String())
		if err != nil || back != s {
			t.Errorf("ParseTypes(%q) = %v, %v; want %v", s.String(), back, err, s)
		}
	}
	if AllTypes.String() != "all" {
		t.Errorf("AllTypes.String() = %q", AllTypes.String())
	}
	if TypeSet(0).String() != "none" {
		t.Errorf("TypeSet(0).String() = %q, want none", TypeSet(0).String())
	}
}

// TestTypeGroups: TextTypes are the kinds cached as text, FixedTypes the
// binary ones, and together they are every kind; DefaultTypes is one of the
// two choices the toolchains make (defaults_go126.go, defaults_go127.go).
func TestTypeGroups(t *testing.T) {
	for _, k := range Kinds {
		if TextTypes.Has(k.Kind) == k.Binary || FixedTypes.Has(k.Kind) != k.Binary {
			t.Errorf("kind %s (binary %t): in TextTypes %t, in FixedTypes %t", k.Name, k.Binary, TextTypes.Has(k.Kind), FixedTypes.Has(k.Kind))
		}
	}
	if TextTypes|FixedTypes != AllTypes || TextTypes&FixedTypes != 0 {
		t.Errorf("TextTypes %v and FixedTypes %v do not split AllTypes", TextTypes, FixedTypes)
	}
	if DefaultTypes&TextTypes != TextTypes {
		t.Errorf("DefaultTypes %v lacks text kinds: a text hit saves an allocation on every toolchain", DefaultTypes)
	}
}

// TestExtractDefaultTypes: an absent pgcache_types is DefaultTypes, and
// pgcache_types=none or empty is the empty set; each survives Params.
func TestExtractDefaultTypes(t *testing.T) {
	for _, tt := range []struct {
		params map[string]string
		want   TypeSet
		param  string // Params()[KeyTypes], "" for absent
	}{
		{nil, DefaultTypes, ""},
		{map[string]string{"application_name": "x"}, DefaultTypes, ""},
		{map[string]string{KeyTypes: "none"}, 0, "none"},
		{map[string]string{KeyTypes: ""}, 0, "none"},
		{map[string]string{KeyTypes: "default"}, DefaultTypes, ""},
		{map[string]string{KeyTypes: "all"}, AllTypes, paramOf(AllTypes)},
		{map[string]string{KeyTypes: "text"}, TypeSet(TypeText), "text"},
		{map[string]string{KeyTypes: "int8", KeyCache: "off"}, TypeSet(TypeInt8), "int8"},
	} {
		o, err := Extract(tt.params)
		if err != nil {
			t.Fatalf("Extract(%v): %v", tt.params, err)
		}
		if o.Types != tt.want {
			t.Errorf("Extract(%v).Types = %v, want %v", tt.params, o.Types, tt.want)
		}
		p := o.Params()
		if got, ok := p[KeyTypes]; got != tt.param || ok != (tt.param != "") {
			t.Errorf("Extract(%v).Params() = %v, want %s=%q", tt.params, p, KeyTypes, tt.param)
		}
		back, err := Extract(p)
		if err != nil || back.Types != o.Types || back.Cache != o.Cache {
			t.Errorf("Extract(%v) = %+v, %v; want %+v", p, back, err, o)
		}
	}
	if DefaultOptions().Types != DefaultTypes {
		t.Errorf("DefaultOptions().Types = %v, want %v", DefaultOptions().Types, DefaultTypes)
	}
}

// paramOf is what Params writes for a set other than DefaultTypes.
func paramOf(s TypeSet) string {
	if s == DefaultTypes {
		return ""
	}
	return s.String()
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
