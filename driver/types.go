package driver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"
)

// KeyTypes is the DSN option that chooses the column types cached besides
// numeric and hstore, which are always cached (unless pgcache=off):
// pgcache_types=text,varchar,date, pgcache_types=all, or pgcache_types=none
// (or empty) for numeric and hstore only. Without it a connection caches
// [DefaultTypes], the kinds whose hits are cheaper than their uncached path
// on the running toolchain.
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

// TypeSet is a set of [TypeKind]s; the zero set (pgcache_types=none) caches
// numeric and hstore only.
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

// TextTypes are the kinds whose values arrive as text: text, varchar, bpchar,
// name, enum and uuid. A hit hands out a string made at admission, where the
// uncached path allocates one per value (string(raw)), on every toolchain.
const TextTypes = TypeSet(TypeText | TypeVarchar | TypeBPChar | TypeName | TypeEnum | TypeUUID)

// FixedTypes are the fixed-size kinds, cached when they arrive in binary:
// int2, int4, int8, float8, date, timestamp and timestamptz.
const FixedTypes = AllTypes &^ TextTypes

// DefaultTypes are the kinds a connection caches when its DSN has no
// pgcache_types: on each toolchain, the kinds whose hit costs less than the
// uncached path of the same value (bench/README.md has the measurements).
// On Go 1.26, where database/sql converts driver values itself and every
// value is boxed into a driver.Value, that is every kind ([AllTypes]): a hit
// hands out a value boxed once. On Go 1.27 and later, where pgcache decodes
// the fixed-size kinds from the wire bytes straight into the destination
// with no box, a lookup costs more than that decode, and the default is the
// text kinds ([TextTypes]), whose hits still save a string's allocation.
// Every cached column is still judged by the reuse back-off.
const DefaultTypes = defaultTypes

// Has reports whether k is in s.
func (s TypeSet) Has(k TypeKind) bool { return s&TypeSet(k) != 0 }

// String returns the set as the option spells it: "all", "none" for the
// empty set, or the kinds in documentation order, comma-separated.
func (s TypeSet) String() string {
	switch s {
	case AllTypes:
		return "all"
	case 0:
		return "none"
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
// names (case-insensitive, spaces around names ignored; "all" for every kind,
// "default" for [DefaultTypes]; PostgreSQL's long names such as "bigint" and
// "timestamp with time zone" too). "none" or an empty value is the empty set:
// numeric and hstore only. An unknown name, or "none" in a list, is an error
// naming it and listing the known ones.
func ParseTypes(s string) (TypeSet, error) {
	var set TypeSet
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "none":
		return 0, nil
	}
	for _, part := range strings.Split(s, ",") {
		name := strings.Join(strings.Fields(strings.ToLower(part)), " ")
		if name == "" {
			return 0, fmt.Errorf("empty type name in %q", s)
		}
		if name == "none" {
			return 0, fmt.Errorf(`"none" stands alone: it means numeric and hstore only, and cannot be listed with other kinds in %q`, s)
		}
		k, ok := lookupKind(name)
		if !ok {
			return 0, fmt.Errorf("unknown type %q (known: all, default, none, %s)", strings.TrimSpace(part), strings.Join(TypeNames(), ", "))
		}
		set |= k
	}
	return set, nil
}

// lookupKind returns the kinds a lower-case name in the option stands for.
func lookupKind(name string) (TypeSet, bool) {
	switch name {
	case "all":
		return AllTypes, true
	case "default":
		return DefaultTypes, true
	}
	for _, k := range Kinds {
		if k.Name == name || slices.Contains(k.Aliases, name) {
			return TypeSet(k.Kind), true
		}
	}
	return 0, false
}
