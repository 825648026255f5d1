package pgcache

import (
	"fmt"
	"math/bits"
	"reflect"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/driver"
)

// The tables and the column kinds that use them. The pgcache_types kinds
// themselves — spelling, OID, format, table — are one table, driver.Kinds;
// this file joins it, once at start-up, with what the root package keeps per
// kind, and is the one place that turns a result column into a table.

// tableID names a process-wide table, in a Rows' counts and below.
type tableID uint8

const (
	tabNumeric tableID = iota // (at most 16 tables: plan.tabs has a bit for each)
	tabHstore
	tabText     // text kinds, ≤ 8 bytes, packed keys
	tabLongText // text kinds, 9 to MaxTextKey bytes, hashed
	tabInt8
	tabInt4 // int4 and int2 (PackFixed keeps their lengths apart)
	tabFloat8
	tabDate
	tabTimestamp
	tabTimestamptz
	numTables
)

// plan.tabs has a bit per table: this fails to compile past 16 tables.
var _ [16 - numTables]struct{}

// tableNames are the tables' names, in tableID order: the CacheStats field
// each reports to, and the name driver.Kinds gives a kind's table.
var tableNames = [numTables]string{
	"Numeric", "Hstore", "Text", "LongText", "Int8", "Int4", "Float8", "Date", "Timestamp", "Timestamptz",
}

// kindPlan is what planning needs of one driver.Kinds row.
type kindPlan struct {
	col   columnKind   // kindText or kindFixed
	tab   tableID      // the kind's table
	codec pgtype.Codec // a binary kind's codec in pgx's default type map, which built the table's entries
}

// kindPlans are driver.Kinds' plans, index for index.
var kindPlans = func() (plans [len(driver.Kinds)]kindPlan) {
	defaults := pgtype.NewMap()
	for i, k := range driver.Kinds {
		p := &plans[i]
		p.tab = tableByName(k.Table)
		p.col = kindText
		if k.Binary {
			p.col = kindFixed
			t, ok := defaults.TypeForOID(k.OID)
			if !ok {
				panic(fmt.Sprintf("pgcache: pgx has no default codec for kind %s (OID %d)", k.Name, k.OID))
			}
			p.codec = t.Codec
		}
	}
	return plans
}()

// tableByName returns the table named name; it panics on a name that is
// none, which only an edit of driver.Kinds can bring (TestKindPlans).
func tableByName(name string) tableID {
	for id, n := range tableNames {
		if n == name {
			return tableID(id)
		}
	}
	panic(fmt.Sprintf("pgcache: driver.Kinds names table %q, which does not exist", name))
}

// statsFields are the CacheStats field indices of the tables, by tableID.
var statsFields = func() (idx [numTables]int) {
	t := reflect.TypeFor[CacheStats]()
	for id, name := range tableNames {
		f, ok := t.FieldByName(name)
		if !ok || f.Type != reflect.TypeFor[cache.Stats]() {
			panic(fmt.Sprintf("pgcache: CacheStats has no cache.Stats field %s", name))
		}
		idx[id] = f.Index[0]
	}
	return idx
}()

// typeColumn decides whether a result column of another type than numeric
// and hstore goes through a type table under the kinds in set, and which.
// It runs once per column per result set.
//
// A column takes a table only when its driver value is a pure function of
// its wire bytes that every connection computes alike, so that an entry one
// connection made is what any other would make. For text-format kinds that
// always holds: pgx scans a text-format value into a string as the text
// itself, whatever codec its OID has. A binary kind needs the connection's
// codec for the OID to be pgx's default one (see sameCodec).
func typeColumn(m *pgtype.Map, fd *pgconn.FieldDescription, set driver.TypeSet) (kind columnKind, tab tableID) {
	binary := fd.Format == pgx.BinaryFormatCode
	for i := range driver.Kinds {
		k := &driver.Kinds[i]
		if k.OID != fd.DataTypeOID || k.Binary != binary || k.OID == 0 {
			continue
		}
		if !set.Has(k.Kind) || (binary && !sameCodec(m, fd.DataTypeOID, kindPlans[i].codec)) {
			return kindPlain, 0
		}
		return kindPlans[i].col, kindPlans[i].tab
	}
	// Enums, and every other text-format type pgx has no codec for, reach
	// stdlib as the text the server sent.
	if binary || fd.DataTypeOID == 0 || !set.Has(driver.TypeEnum) {
		return kindPlain, 0
	}
	if _, known := m.TypeForOID(fd.DataTypeOID); known {
		return kindPlain, 0
	}
	return kindPlans[enumKind].col, kindPlans[enumKind].tab
}

// enumKind is TypeEnum's index in driver.Kinds.
var enumKind = func() int {
	for i, k := range driver.Kinds {
		if k.Kind == driver.TypeEnum {
			return i
		}
	}
	panic("pgcache: driver.Kinds has no enum row")
}()

// sameCodec reports whether the connection whose type map is m scans values
// of oid with def, pgx's default codec for it, compared by value: a
// TimestamptzCodec with a ScanLocation, or any codec registered in its place
// (in AfterConnect, or later through Conn()), is not; the default registered
// anew is. For the time kinds, whose default codecs are pointers, the
// pointees are compared. (== on codecs of one dynamic type cannot panic:
// pgx's default codecs are comparable types, and values of different dynamic
// types compare unequal.)
func sameCodec(m *pgtype.Map, oid uint32, def pgtype.Codec) bool {
	t, ok := m.TypeForOID(oid)
	if !ok {
		return false
	}
	c := t.Codec
	if c == def {
		return true
	}
	switch d := def.(type) {
	case *pgtype.TimestampCodec:
		x, ok := c.(*pgtype.TimestampCodec)
		return ok && x != nil && *x == *d
	case *pgtype.TimestamptzCodec:
		x, ok := c.(*pgtype.TimestamptzCodec)
		return ok && x != nil && *x == *d
	}
	return false
}

// countedTable is what every table offers for Stats, ResetCache and a
// result set's publish.
type countedTable interface {
	Stats() cache.Stats
	Reset()
	Record(cache.Counts)
}

// tableOf returns table id, or nil while it has not been made (the type
// tables are made on first use). With create, the hashed text table is made
// if need be (create): a result set may count bypasses for it (empty and long texts)
// without having made it.
func tableOf(id tableID, create bool) countedTable {
	switch id {
	case tabNumeric:
		return &numericTable
	case tabHstore:
		return hstoreTable
	case tabLongText:
		if create {
			return typeTabs.longTable()
		}
		if t := typeTabs.longText.Load(); t != nil {
			return t
		}
	default:
		if t := typeTabs.short[id].Load(); t != nil {
			return t
		}
	}
	return nil
}

// publishCounts publishes a result set's counts in the tables of tabs (a
// bit per tableID), the only ones its columns count in: one atomic add per
// counter of each table it used. It leaves counts zero for the next result
// set.
func publishCounts(counts *[numTables]cache.Counts, tabs uint16) {
	if tabs == 1<<tabNumeric {
		// The numeric table alone, the common case, with a direct call:
		// 33 instructions a result set, where the loop below, even with a
		// direct call for the numeric table in it, counts 53.
		if c := &counts[tabNumeric]; *c != (cache.Counts{}) {
			numericTable.Record(*c)
			*c = cache.Counts{}
		}
		return
	}
	for ; tabs != 0; tabs &= tabs - 1 {
		id := tableID(bits.TrailingZeros16(tabs))
		if c := &counts[id]; *c != (cache.Counts{}) {
			tableOf(id, true).Record(*c)
			*c = cache.Counts{}
		}
	}
}
