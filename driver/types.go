package driver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"
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

// KindInfo describes one kind of the pgcache_types option: how the option
// spells it, which column type it is and in which format its values are
// cached, and which table caches them. [Kinds] lists every kind; the
// option's parser, the driver's column planning and its Stats all read it,
// so a kind is added by adding its TypeKind constant and its row there.
type KindInfo struct {
	Kind    TypeKind
	Name    string   // the option's spelling
	Aliases []string // PostgreSQL's own spellings of the type, accepted too
	// OID is the column type's OID; 0 for TypeEnum, which stands for every
	// text-format type that the connection's type map does not know.
	OID uint32
	// Binary: the kind is cached when its values arrive in binary format
	// (the fixed-size kinds, as pgx stdlib asks for them); the others when
	// they arrive as text.
	Binary bool
	// Table names the table that caches the kind, as [CacheStats] (in the
	// root package) names it: "Text" for the text kinds, whose texts of 9
	// bytes and more go to "LongText", or a fixed-size kind's own.
	Table string
}

// Kinds are the pgcache_types kinds in documentation order, which is also
// the order of their TypeKind bits (TestKindsTable checks it).
var Kinds = [...]KindInfo{
	{Kind: TypeText, Name: "text", OID: pgtype.TextOID, Table: "Text"},
	{Kind: TypeVarchar, Name: "varchar", Aliases: []string{"character varying"}, OID: pgtype.VarcharOID, Table: "Text"},
	{Kind: TypeBPChar, Name: "bpchar", Aliases: []string{"char", "character"}, OID: pgtype.BPCharOID, Table: "Text"},
	{Kind: TypeName, Name: "name", OID: pgtype.NameOID, Table: "Text"},
	{Kind: TypeEnum, Name: "enum", Table: "Text"},
	{Kind: TypeUUID, Name: "uuid", OID: pgtype.UUIDOID, Table: "Text"},
	{Kind: TypeInt2, Name: "int2", Aliases: []string{"smallint"}, OID: pgtype.Int2OID, Binary: true, Table: "Int4"},
	{Kind: TypeInt4, Name: "int4", Aliases: []string{"integer", "int"}, OID: pgtype.Int4OID, Binary: true, Table: "Int4"},
	{Kind: TypeInt8, Name: "int8", Aliases: []string{"bigint"}, OID: pgtype.Int8OID, Binary: true, Table: "Int8"},
	{Kind: TypeFloat8, Name: "float8", Aliases: []string{"double precision"}, OID: pgtype.Float8OID, Binary: true, Table: "Float8"},
	{Kind: TypeDate, Name: "date", OID: pgtype.DateOID, Binary: true, Table: "Date"},
	{Kind: TypeTimestamp, Name: "timestamp", Aliases: []string{"timestamp without time zone"}, OID: pgtype.TimestampOID, Binary: true, Table: "Timestamp"},
	{Kind: TypeTimestamptz, Name: "timestamptz", Aliases: []string{"timestamp with time zone"}, OID: pgtype.TimestamptzOID, Binary: true, Table: "Timestamptz"},
}

// AllTypes is every kind in [Kinds]: pgcache_types=all.
const AllTypes = TypeSet(1<<len(Kinds) - 1)

// Has reports whether k is in s.
func (s TypeSet) Has(k TypeKind) bool { return s&TypeSet(k) != 0 }

// String returns the set as the option spells it: "all", "" for the empty set,
// or the kinds in documentation order, comma-separated.
func (s TypeSet) String() string {
	if s == AllTypes {
		return "all"
	}
	var names []string
	for _, k := range Kinds {
		if s.Has(k.Kind) {
			names = append(names, k.Name)
		}
	}
	return strings.Join(names, ",")
}

// TypeNames lists the kinds the option accepts, for documentation and errors.
func TypeNames() []string {
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = k.Name
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
		k, ok := lookupKind(name)
		if !ok {
			return 0, fmt.Errorf("unknown type %q (known: all, %s)", strings.TrimSpace(part), strings.Join(TypeNames(), ", "))
		}
		set |= k
	}
	return set, nil
}

// lookupKind returns the kinds a lower-case name in the option stands for.
func lookupKind(name string) (TypeSet, bool) {
	if name == "all" {
		return AllTypes, true
	}
	for _, k := range Kinds {
		if k.Name == name || slices.Contains(k.Aliases, name) {
			return TypeSet(k.Kind), true
		}
	}
	return 0, false
}
