package pgcache

import (
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/driver"
)

// int8Custom is a codec of its own for int8, of another dynamic type than
// pgx's.
type int8Custom struct{ pgtype.Int8Codec }

// TestTypeColumnCodecs: a binary fixed-size kind takes its shared table only
// with pgx's default codec for its OID, compared by value.
func TestTypeColumnCodecs(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		typ   *pgtype.Type // registered on a new map, nil for none
		oid   uint32
		isDef bool
	}{
		{"int8, nothing registered", nil, pgtype.Int8OID, true},
		{"timestamptz, nothing registered", nil, pgtype.TimestamptzOID, true},
		{"int8 default registered again", &pgtype.Type{Name: "int8", OID: pgtype.Int8OID, Codec: pgtype.Int8Codec{}}, pgtype.Int8OID, true},
		{"int8 custom codec", &pgtype.Type{Name: "int8", OID: pgtype.Int8OID, Codec: int8Custom{}}, pgtype.Int8OID, false},
		{"int8 codec of another kind", &pgtype.Type{Name: "int8", OID: pgtype.Int8OID, Codec: pgtype.Int4Codec{}}, pgtype.Int8OID, false},
		{"timestamptz zero codec again", &pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID, Codec: &pgtype.TimestamptzCodec{}}, pgtype.TimestamptzOID, true},
		{"timestamptz ScanLocation", &pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID, Codec: &pgtype.TimestamptzCodec{ScanLocation: tokyo}}, pgtype.TimestamptzOID, false},
		{"timestamptz ScanLocation UTC", &pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID, Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC}}, pgtype.TimestamptzOID, false},
		{"timestamp ScanLocation", &pgtype.Type{Name: "timestamp", OID: pgtype.TimestampOID, Codec: &pgtype.TimestampCodec{ScanLocation: tokyo}}, pgtype.TimestampOID, false},
		{"timestamp nil codec pointer", &pgtype.Type{Name: "timestamp", OID: pgtype.TimestampOID, Codec: (*pgtype.TimestampCodec)(nil)}, pgtype.TimestampOID, false},
		{"timestamptz codec on timestamp", &pgtype.Type{Name: "timestamp", OID: pgtype.TimestampOID, Codec: &pgtype.TimestamptzCodec{}}, pgtype.TimestampOID, false},
		{"date other codec", &pgtype.Type{Name: "date", OID: pgtype.DateOID, Codec: pgtype.TextCodec{}}, pgtype.DateOID, false},
		{"another OID registered", &pgtype.Type{Name: "int8", OID: pgtype.Int8OID, Codec: int8Custom{}}, pgtype.Int4OID, true},
		{"not a fixed-size kind", nil, pgtype.TextOID, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := pgtype.NewMap()
			if tt.typ != nil {
				m.RegisterType(tt.typ)
			}
			fd := &pgconn.FieldDescription{DataTypeOID: tt.oid, Format: pgx.BinaryFormatCode}
			if kind, _ := typeColumn(m, fd, driver.AllTypes); (kind == kindFixed) != tt.isDef {
				t.Errorf("typeColumn gives kind %d; want the type table: %t", kind, tt.isDef)
			}
		})
	}
}

// TestKindPlans: every kind of driver.Kinds has a table CacheStats reports,
// text kinds the text table, and binary kinds pgx's default codec.
func TestKindPlans(t *testing.T) {
	for i, k := range driver.Kinds {
		p := kindPlans[i]
		if tableNames[p.tab] != k.Table {
			t.Errorf("kind %s: table %s, want %s", k.Name, tableNames[p.tab], k.Table)
		}
		if k.Binary != (p.col == kindFixed) || k.Binary != (p.codec != nil) || (!k.Binary && p.tab != tabText) {
			t.Errorf("kind %s: plan %+v", k.Name, p)
		}
	}
	for id := range tableID(numTables) {
		if got := reflect.TypeFor[CacheStats]().Field(statsFields[id]).Name; got != tableNames[id] {
			t.Errorf("table %d reports to CacheStats.%s, want %s", id, got, tableNames[id])
		}
	}
}
