package pgcache

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/internal/backoff"
	"github.com/pgcache/pgcache/internal/box"
)

// query runs sql on c as database/sql would and reads it to its end
// through Next; it returns the Rows, closed.
func query(t *testing.T, c *Conn, sql string) *Rows {
	t.Helper()
	dr, err := c.QueryContext(context.Background(), sql, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := dr.(*Rows)
	if err := replayReaders[0].read(r); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPlanReuse: a result set reuses the Rows its connection kept from an
// earlier one with the same columns and types, keptPlans shapes at most;
// other columns, another type map registration, or (for cached expression
// columns, whose memory key is the query) another query text plan anew.
func TestPlanReuse(t *testing.T) {
	c, done := rawConn(t, "pgcache_types=none")
	defer done()
	prices := "select price from (values (1.50::numeric), (2.25)) v(price)"
	a := query(t, c, prices)
	if b := query(t, c, prices); b != a {
		t.Fatal("the same query twice: the second result set planned anew")
	}
	if b := query(t, c, "select 1::numeric as price"); b == a {
		t.Error("another query text with a cached expression column reused the plan of the first")
	}
	if b := query(t, c, prices); b != a {
		t.Error("the first query again: planned anew")
	}
	// Plain expression columns do not depend on the query text.
	n1 := query(t, c, "select 1::int8 as n")
	if n2 := query(t, c, "select 2::int8 as n"); n2 != n1 {
		t.Error("two queries of one plain int8 column each: the second planned anew")
	}
	if b := query(t, c, "select 1::int8 as m"); b == n1 {
		t.Error("a column of another name reused the plan")
	}
	if b := query(t, c, "select 1::int4 as n"); b == n1 {
		t.Error("a column of another type reused the plan")
	}

	// A codec registered since: pgx stdlib would plan with it, and so must
	// pgcache.
	m := c.conn.TypeMap()
	m.RegisterType(&pgtype.Type{Name: "int8", OID: pgtype.Int8OID, Codec: pgtype.Int8Codec{}})
	if b := query(t, c, "select 2::int8 as n"); b == n1 {
		t.Error("an int8 column after int8's type was registered anew reused the plan")
	}

	// keptPlans shapes are kept; one more drops the oldest.
	first := query(t, c, "select 1::int2 as k0")
	for i := 1; i < keptPlans; i++ {
		query(t, c, fmt.Sprintf("select 1::int2 as k%d", i))
	}
	if b := query(t, c, "select 1::int2 as k0"); b != first {
		t.Errorf("after %d shapes the first was planned anew", keptPlans)
	}
	for i := range keptPlans {
		query(t, c, fmt.Sprintf("select 1::int2 as j%d", i))
	}
	if b := query(t, c, "select 1::int2 as k0"); b == first {
		t.Errorf("after %d other shapes the first was still kept", keptPlans)
	}
}

// TestPlanKeyMatches: field descriptions are compared field by field, and
// the type map by registered type and codec.
func TestPlanKeyMatches(t *testing.T) {
	m := pgtype.NewMap()
	fields := []pgconn.FieldDescription{
		{Name: "id", TableOID: 16384, TableAttributeNumber: 1, DataTypeOID: pgtype.Int8OID, DataTypeSize: 8, TypeModifier: -1, Format: 1},
		{Name: "price", TableOID: 16384, TableAttributeNumber: 2, DataTypeOID: pgtype.NumericOID, DataTypeSize: -1, TypeModifier: 655366, Format: 0},
	}
	k := newPlanKey(fields, "select id, price from items", m, false)
	if len(k.types) != 2 {
		t.Fatalf("types %v, want one per distinct OID", k.types)
	}
	if !k.matches(append([]pgconn.FieldDescription(nil), fields...), "select other text", m) {
		t.Error("equal fields, another query text, no expression column: no match")
	}
	for i, change := range []func(fd *pgconn.FieldDescription){
		func(fd *pgconn.FieldDescription) { fd.Name = "cost" },
		func(fd *pgconn.FieldDescription) { fd.TableOID++ },
		func(fd *pgconn.FieldDescription) { fd.TableAttributeNumber++ },
		func(fd *pgconn.FieldDescription) { fd.DataTypeOID = pgtype.Float8OID },
		func(fd *pgconn.FieldDescription) { fd.DataTypeSize = 4 },
		func(fd *pgconn.FieldDescription) { fd.TypeModifier = -1 },
		func(fd *pgconn.FieldDescription) { fd.Format = 1 },
	} {
		f := append([]pgconn.FieldDescription(nil), fields...)
		change(&f[1])
		if k.matches(f, "", m) {
			t.Errorf("change %d of the price field: still a match", i)
		}
	}
	if k.matches(fields[:1], "", m) {
		t.Error("fewer fields: still a match")
	}
	e := newPlanKey(fields, "select 1", m, true)
	if e.matches(fields, "select 2", m) || !e.matches(fields, "select 1", m) {
		t.Error("with an expression column the query text decides")
	}
	// A codec of an incomparable type is compared by identity, not ==.
	m.RegisterType(&pgtype.Type{Name: "numeric", OID: pgtype.NumericOID, Codec: incomparableCodec{pgtype.NumericCodec{}, nil}})
	if k.matches(fields, "", m) {
		t.Error("numeric registered anew: still a match")
	}
	k = newPlanKey(fields, "", m, false)
	if !k.matches(fields, "", m) {
		t.Error("the same registrations: no match")
	}
}

// incomparableCodec is a codec == would panic on.
type incomparableCodec struct {
	pgtype.NumericCodec
	_ []int
}

// TestKeptTrackers: a kept Rows' trackers go on across its result sets
// without the memory, which learns them when a window ends, when the
// connection drops the Rows and when it closes; ResetCache makes kept
// Rows forget theirs too.
func TestKeptTrackers(t *testing.T) {
	ResetCache()
	defer ResetCache()
	c, done := rawConn(t, "")
	defer done()
	sql := "select (g * 1000 + 7)::numeric as v from generate_series(1, 10) g"
	r := query(t, c, sql)
	ref := &r.mem[0]
	// Its first Close writes a column the memory did not know.
	tr, ok := ref.Remembered()
	if !ok || tr.WindowLeft() != backoff.ProbeWindow-10 {
		t.Fatalf("after one result set of 10 rows the memory has %+v (known %t), want %d lookups left", tr, ok, backoff.ProbeWindow-10)
	}
	query(t, c, sql)
	if tr, _ = ref.Remembered(); tr.WindowLeft() != backoff.ProbeWindow-10 {
		t.Errorf("the memory was written after a second result set that ended no window: %d left", tr.WindowLeft())
	}
	if got := r.cached[0].reuse.WindowLeft(); got != backoff.ProbeWindow-20 {
		t.Errorf("the kept tracker has %d lookups left, want %d", got, backoff.ProbeWindow-20)
	}
	// Dropped for keptPlans other shapes: written.
	for i := range keptPlans {
		query(t, c, fmt.Sprintf("select 1::int2 as j%d", i))
	}
	if tr, _ = ref.Remembered(); tr.WindowLeft() != backoff.ProbeWindow-20 {
		t.Errorf("after the Rows was dropped the memory has %d lookups left, want %d", tr.WindowLeft(), backoff.ProbeWindow-20)
	}
	// Kept again; ResetCache forgets it.
	r = query(t, c, sql)
	ResetCache()
	if r2 := query(t, c, sql); r2 != r || r2.cached[0].reuse.WindowLeft() != backoff.ProbeWindow-10 {
		t.Errorf("after ResetCache the kept tracker has %d lookups left, want a fresh one's %d", r2.cached[0].reuse.WindowLeft(), backoff.ProbeWindow-10)
	}
	// Closing the connection writes what it kept (Close calls dropKept).
	query(t, c, sql)
	c.dropKept()
	if tr, _ = ref.Remembered(); tr.WindowLeft() != backoff.ProbeWindow-20 {
		t.Errorf("after the connection closed the memory has %d lookups left, want %d", tr.WindowLeft(), backoff.ProbeWindow-20)
	}
}

// TestPlanReuseAllocs: a result set that reuses a kept Rows allocates
// nothing of pgcache's own: no Rows, no plan, no cached-column state.
func TestPlanReuseAllocs(t *testing.T) {
	c, done := rawConn(t, "pgcache_types=all")
	defer done()
	rec := record(t, c, "select 1.5::numeric, 2::int8, 'a'::text, now()::date, 'x=>1'::text from generate_series(1, 3)")
	replay(c, rec).Close()
	if n := testing.AllocsPerRun(100, func() {
		r := replay(c, rec)
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("a result set of a kept plan allocates %.1f times, want 0", n)
	}
}

// TestKeptPlanFootprint: what a kept plan holds, as the README and
// docs/guarantees.md give it: at most 1.5 KiB and 400 bytes a column, and
// for each column of a fixed-size type its conversion's box slab
// (internal/box: box.SlabLen values, 768 bytes for a date or time, 256 for
// an integer or float). Measured for 8 and 17 columns, every one of them
// cached (the most a column holds), each plan with its own conversions, as
// planning makes them, each of which has converted a value (so that its
// slab is made).
func TestKeptPlanFootprint(t *testing.T) {
	c, done := rawConn(t, "pgcache_types=all")
	defer done()
	const timeSlab, wordSlab = box.SlabLen * 24, box.SlabLen * 8
	for _, tc := range []struct {
		query string
		limit uint64
	}{
		{"select 1.5::numeric a, 2::int8 b, 'x'::text c, now()::date d, 2.5::numeric e, 'y'::varchar f, 1000::int4 g, now() h",
			1536 + 8*400 + 2*timeSlab + 2*wordSlab},
		{"select 1000::int8 a, 2000::int8 b, 3000::int8 c, 4000::int4 d, 1.5::numeric e, 2.5::numeric f, 3.5::numeric g, 4.5::numeric h, 'a'::char(1) i," +
			" 'b'::char(1) j, now()::date k, now()::date l, now()::date m, 'x'::char(25) n, 'x'::varchar(10) o, 'x'::varchar(44) p, 1000::int2 q",
			1536 + 17*400 + 3*timeSlab + 5*wordSlab},
	} {
		rec := record(t, c, tc.query)
		const n = 500
		plans := make([]*Rows, n)
		before := heapAfterGC()
		for i := range plans {
			plans[i] = newCursor(c, newPlan(c, rec.fields, rec.query, c.conn.TypeMap()))
			for col, conv := range plans[i].plan.conv {
				if _, err := conv(rec.rows[0][col]); err != nil {
					t.Fatal(err)
				}
			}
		}
		per := (heapAfterGC() - before) / n
		runtime.KeepAlive(plans)
		t.Logf("%d columns: %d bytes per kept plan", len(rec.fields), per)
		if per > tc.limit {
			t.Errorf("%d columns: a kept plan holds %d bytes, want at most %d", len(rec.fields), per, tc.limit)
		}
	}
}

// TestOrderCached: a plan lists the cached columns of the call-free loop's
// kinds (numeric, text kinds) first, then the fixed-size kinds, then
// hstore, each group in the columns' order, and every per-column list
// follows: a column's cachedIdx is its place in cached, and its memory key
// is its own.
func TestOrderCached(t *testing.T) {
	createHstore(t)
	c, done := rawConn(t, "pgcache_types=all")
	defer done()
	r := query(t, c, `select 1::int8 as a, 1.5::numeric as b, '"k"=>"v"'::hstore as c, 'abc'::text as d,
		2::int4 as e, 2.5::numeric as f, '1995-03-15'::date as g`)
	var got []string
	for k, cp := range r.plan.cached {
		col := r.plan.cols[cp.col]
		if int(col.cachedIdx) != k || r.cached[k].col != cp.col {
			t.Errorf("cached[%d] is column %d, whose cachedIdx is %d and cursor column %d", k, cp.col, col.cachedIdx, r.cached[k].col)
		}
		if want := backoff.CatalogKey(backoff.ColumnKey(0, 0, int(cp.col), backoff.HashQuery(r.plan.key.query)), c.setup.Catalog); r.plan.memKeys[k] != want {
			t.Errorf("cached[%d] (column %d) has another column's memory key", k, cp.col)
		}
		got = append(got, string(rune('a'+cp.col)))
	}
	if want := "bdfaegc"; strings.Join(got, "") != want {
		t.Errorf("cached columns in the order %s, want %s", strings.Join(got, ""), want)
	}
	for _, k := range r.plan.lazy {
		if r.plan.cached[k].kind != kindFixed {
			t.Errorf("lazy column %d (cached[%d]) is not of a fixed-size kind", r.plan.cached[k].col, k)
		}
	}
	if RowsColumnScanner && len(r.plan.lazy) != 3 {
		t.Errorf("%d lazy columns, want the 3 fixed-size ones", len(r.plan.lazy))
	}
}
