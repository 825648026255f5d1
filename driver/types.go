package driver

import (
	"fmt"
	"strings"
)

// KeyTypes is the DSN option that extends the cache to more column types:
// pgcache_types=text,varchar,date or pgcache_types=all. numeric and hstore are
// always cached (unless pgcache=off); this option adds to them.
const KeyTypes = "pgcache_types"

// TypeKind is one column type the pgcache_types option can turn the cache on
// for.
type TypeKind uint16

// The kinds. Text kinds are cached when the server sends them as text (always,
// for these types, in pgx stdlib's formats); the fixed-size kinds when they
// arrive in binary, which is how pgx stdlib asks for them except in the simple
// protocol.
const (
	TypeText        TypeKind = 1 << iota // text
	TypeVarchar                          // varchar(n)
	TypeBPChar                           // char(n), padding as the server sends it
	TypeName                             // name
	TypeEnum                             // enums, and every other type pgx does not know (read as text)
	TypeUUID                             // uuid
	TypeInt2                             // int2 (smallint)
	TypeInt4                             // int4 (integer)
	TypeInt8                             // int8 (bigint)
	TypeFloat8                           // float8 (double precision)
	TypeDate                             // date
	TypeTimestamp                        // timestamp without time zone
	TypeTimestamptz                      // timestamp with time zone
)

// TypeSet is a set of [TypeKind]s; the zero set caches numeric and hstore only.
type TypeSet uint16

// typeNames are the option's spellings, in documentation order.
var typeNames = []struct {
	name string
	kind TypeKind
}{
	{"text", TypeText}, {"varchar", TypeVarchar}, {"bpchar", TypeBPChar}, {"name", TypeName},
	{"enum", TypeEnum}, {"uuid", TypeUUID},
	{"int2", TypeInt2}, {"int4", TypeInt4}, {"int8", TypeInt8}, {"float8", TypeFloat8},
	{"date", TypeDate}, {"timestamp", TypeTimestamp}, {"timestamptz", TypeTimestamptz},
}

// Aliases accepted besides the names above: PostgreSQL's own spellings of the
// same types, and "all".
var typeAliases = map[string]TypeSet{
	"char": TypeSet(TypeBPChar), "character": TypeSet(TypeBPChar), "character varying": TypeSet(TypeVarchar),
	"smallint": TypeSet(TypeInt2), "integer": TypeSet(TypeInt4), "int": TypeSet(TypeInt4), "bigint": TypeSet(TypeInt8),
	"double precision":            TypeSet(TypeFloat8),
	"timestamp without time zone": TypeSet(TypeTimestamp), "timestamp with time zone": TypeSet(TypeTimestamptz),
}

// AllTypes is every kind: pgcache_types=all.
const AllTypes = TypeSet(TypeTimestamptz<<1 - 1)

// Has reports whether k is in s.
func (s TypeSet) Has(k TypeKind) bool { return s&TypeSet(k) != 0 }

// String returns the set as the option spells it: "all", "" for the empty set,
// or the kinds in documentation order, comma-separated.
func (s TypeSet) String() string {
	if s == AllTypes {
		return "all"
	}
	var names []string
	for _, t := range typeNames {
		if s.Has(t.kind) {
			names = append(names, t.name)
		}
	}
	return strings.Join(names, ",")
}

// TypeNames lists the kinds the option accepts, for documentation and errors.
func TypeNames() []string {
	names := make([]string, len(typeNames))
	for i, t := range typeNames {
		names[i] = t.name
	}
	return names
}

// ParseTypes parses the value of pgcache_types: a comma-separated list of kind
// names (case-insensitive, spaces around names ignored; "all" for every kind;
// PostgreSQL's long names such as "bigint" and "timestamp with time zone"
// too). An empty value is the empty set. An unknown name is an error naming
// it and listing the known ones.
func ParseTypes(s string) (TypeSet, error) {
	var set TypeSet
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	for _, part := range strings.Split(s, ",") {
		name := strings.Join(strings.Fields(strings.ToLower(part)), " ")
		if name == "" {
			return 0, fmt.Errorf("empty type name in %q", s)
		}
		if name == "all" {
			set |= AllTypes
			continue
		}
		if a, ok := typeAliases[name]; ok {
			set |= a
			continue
		}
		found := false
		for _, t := range typeNames {
			if t.name == name {
				set |= TypeSet(t.kind)
				found = true
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown type %q (known: all, %s)", strings.TrimSpace(part), strings.Join(TypeNames(), ", "))
		}
	}
	return set, nil
}
