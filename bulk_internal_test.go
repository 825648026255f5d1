package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/pgcache/pgcache/cache"
	"github.com/pgcache/pgcache/internal/backoff"
)

// valueReader reads a Rows to its end and returns its rows' values, as
// database/sql would hand them to *any destinations: Next's driver values,
// and on Go 1.27 NextRow and ScanColumn's (replay_go127_internal_test.go).
type valueReader struct {
	name string
	read func(r *Rows) ([][]any, error)
}

var valueReaders = []valueReader{{"Next", func(r *Rows) ([][]any, error) {
	var rows [][]any
	dest := make([]sqldriver.Value, len(r.cols))
	for {
		if err := r.Next(dest); err != nil {
			if err == io.EOF {
				return rows, nil
			}
			return rows, err
		}
		row := make([]any, len(dest))
		for i, v := range dest {
			row[i] = v
		}
		rows = append(rows, row)
	}
}}}

// partState is what one result set of TestKeptBulkPass leaves: its values,
// its traffic in each table, and each cached column's tracker as it is once
// a pass still open has given back the rows it has yet to pass.
type partState struct {
	rows     [][]any
	counts   [numTables]cache.Counts
	trackers []backoff.Tracker
	memory   []backoff.Tracker // the memory's, when the connection dropped the Rows after it
	bulkRows int               // rows the result set passed in bulk
	carried  bool              // it went on with a pass an earlier result set started
	open     bool              // it left a pass open
	quiet    bool              // it looked values up by Quiet lookups only (see Rows.touched)
}

// tableCounts is the traffic of every table so far (zero for a table not
// made yet).
func tableCounts() (c [numTables]cache.Counts) {
	for id := range tableID(numTables) {
		if t := tableOf(id, false); t != nil {
			c[id] = countsOf(t.Stats())
		}
	}
	return c
}

// readInParts reads rec's rows on c as result sets of random lengths (most
// of them 0 to 40 rows, one in 50 up to 3000), the same ones for the same
// seed, with an empty cache and memory, another column's writes to the
// memory between some of them and the Rows dropped after some, and returns
// what each one left.
func readInParts(t *testing.T, c *Conn, rec *replayRows, reader valueReader, seed uint64) []partState {
	t.Helper()
	ResetCache()
	rng := rand.New(rand.NewPCG(seed, 1))
	// Another column, whose writes to the memory make a kept Rows read it
	// at its next start, as other connections' judgements do; and now and
	// then another connection's judgement of one of rec's columns: a new
	// tracker, which the Rows' next start takes.
	other, otherTracker := backoff.NewRef(0x6f74686572), backoff.New()
	var keys []uint64
	var parts []partState
	for from := 0; from < len(rec.rows); {
		if rng.IntN(10) == 0 {
			other.Flush(&otherTracker)
		}
		if keys != nil && rng.IntN(300) == 0 {
			ref := backoff.NewRef(keys[rng.IntN(len(keys))])
			var tr backoff.Tracker
			ref.Start(&tr, true)
			tr = backoff.New()
			ref.Flush(&tr)
		}
		n := rng.IntN(41)
		if rng.IntN(50) == 0 {
			n = rng.IntN(3000)
		}
		to := min(from+n, len(rec.rows))
		part := &replayRows{fields: rec.fields, rows: rec.rows[from:to], query: rec.query}
		from = to
		before := tableCounts()
		r := replay(c, part)
		keys = r.plan.memKeys
		st := partState{carried: r.bulkRows > 0}
		var err error
		if st.rows, err = reader.read(r); err != nil {
			t.Fatalf("%s: %v", reader.name, err)
		}
		bulk0 := r.bulkHere
		st.quiet = r.dirty && !r.touched && r.bulkHere == 0
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		st.bulkRows = int(bulk0)
		after := tableCounts()
		for id := range st.counts {
			a, b := after[id], before[id]
			st.counts[id] = cache.Counts{Hits: a.Hits - b.Hits, Misses: a.Misses - b.Misses, Admissions: a.Admissions - b.Admissions, Bypasses: a.Bypasses - b.Bypasses}
		}
		st.open = r.bulkRows > 0
		for k := range r.cached {
			tr := r.cached[k].reuse
			tr.UnskipRows(r.bulkRows)
			st.trackers = append(st.trackers, tr)
		}
		if rng.IntN(100) == 0 {
			// The connection drops the Rows (as when it closes): the
			// memory learns its trackers, and the next result set plans
			// anew from them.
			c.dropKept()
			for k := range r.mem {
				tr, _ := r.mem[k].Remembered()
				st.memory = append(st.memory, tr)
			}
		}
		parts = append(parts, st)
	}
	return parts
}

// readTwice is readInParts with *flag set (on) and then cleared (off), the
// same result sets for both, and the Rows dropped after.
func readTwice(t *testing.T, c *Conn, rec *replayRows, reader valueReader, seed uint64, flag *bool) (on, off []partState) {
	t.Helper()
	*flag = true
	on = readInParts(t, c, rec, reader, seed)
	*flag = false
	off = readInParts(t, c, rec, reader, seed)
	c.dropKept()
	if len(on) != len(off) {
		t.Fatalf("%s: %d and %d result sets", reader.name, len(on), len(off))
	}
	return on, off
}

// sameParts fails the test unless result set i left the same in a as in b:
// its values, its counts, the trackers, and the memory if the connection
// dropped the Rows after it.
func sameParts(t *testing.T, name string, i int, a, b *partState) {
	t.Helper()
	if !reflect.DeepEqual(a.rows, b.rows) {
		t.Fatalf("%s: result set %d reads %v, want %v", name, i, a.rows, b.rows)
	}
	if a.counts != b.counts {
		t.Fatalf("%s: result set %d counts %v, want %v", name, i, a.counts, b.counts)
	}
	if !reflect.DeepEqual(a.memory, b.memory) {
		t.Fatalf("%s: the connection dropped the Rows after result set %d, and the memory has %+v, want %+v", name, i, a.memory, b.memory)
	}
	if !reflect.DeepEqual(a.trackers, b.trackers) {
		t.Fatalf("%s: after result set %d the trackers are %+v, want %+v", name, i, a.trackers, b.trackers)
	}
}

// TestKeptBulkPass: a bulk pass that a kept Rows carries on into its next
// result sets (bulk.go) changes nothing but what a result set costs. Read
// as result sets of a few rows, and now and then a long one, the same rows
// give the same values, the same traffic in every table and, once the pass
// has given back the rows it has yet to pass, the same trackers after every
// result set as with a Rows that settles each pass at publish; and when the
// connection drops the Rows, the memory learns the same trackers. The
// columns: two all-distinct numeric ones, one of them NULL in a row of
// three (their windows, and so their skips, fall apart), a distinct text
// of more than 8 bytes and a short one with NULLs (pgcache_types text
// kinds), and an int8 (cached on Go 1.26 by default, lazy on Go 1.27 with
// pgcache_types=all); 140000 rows, enough for the first windows, their
// skips and a re-probe's.
func TestKeptBulkPass(t *testing.T) {
	defer ResetCache()
	defer func() { keepPasses = true }()
	for _, opts := range []string{"", "pgcache_types=all"} {
		c, done := rawConn(t, opts)
		rec := record(t, c, `select (g * 10 + 3)::numeric as a,
			case when g % 3 = 0 then null else (g * 10 + 7)::numeric end as b,
			'long text ' || g as long, case when g % 5 = 0 then null else (g * 7)::text end as short,
			g::int8 as id
			from generate_series(1, 140000) g`)
		for _, reader := range valueReaders {
			kept, settled := readTwice(t, c, rec, reader, 7, &keepPasses)
			carried, bulk, dropped := 0, 0, 0
			for i := range kept {
				a, b := &kept[i], &settled[i]
				sameParts(t, fmt.Sprintf("%q %s", opts, reader.name), i, a, b)
				if a.carried {
					carried++
				}
				if a.memory != nil && a.open {
					dropped++
				}
				bulk += a.bulkRows
			}
			t.Logf("%q %s: %d result sets, %d rows passed in bulk, %d result sets went on with a pass, %d dropped in one", opts, reader.name, len(kept), bulk, carried, dropped)
			if bulk == 0 || opts == "" && (carried == 0 || dropped == 0) {
				t.Errorf("%q %s: %d rows passed in bulk, %d result sets carried a pass on, %d dropped in one; the test no longer tests what it is for", opts, reader.name, bulk, carried, dropped)
			}
		}
		done()
	}
}

// TestQuietPublish: a result set whose lookups were all advance's Quiet
// ones, which publish closes without settling each column (Rows.touched),
// leaves the same counts in every table, the same trackers and the same
// memory as one settled column by column. The columns: a numeric of 200
// values, one of 3000 values in turn (seen for the first time, then
// admitted, then hit) and a short repeating text, all of 4 to 8 bytes and
// never NULL, so that most short result sets are looked up by Quiet lookups
// only; 60000 rows, enough for many windows.
func TestQuietPublish(t *testing.T) {
	defer ResetCache()
	defer func() { quietPublish = true }()
	c, done := rawConn(t, "")
	defer done()
	rec := record(t, c, `select (g % 200 + 1000)::numeric as rep, (g % 3000 * 10 + 100003)::numeric as cycle,
		(g % 50 + 10000)::text as short
		from generate_series(1, 60000) g`)
	for _, reader := range valueReaders {
		fast, settled := readTwice(t, c, rec, reader, 11, &quietPublish)
		quiet := 0
		for i := range fast {
			a, b := &fast[i], &settled[i]
			if a.quiet != b.quiet {
				t.Fatalf("%s: result set %d quiet %v, and %v when settled", reader.name, i, a.quiet, b.quiet)
			}
			if a.quiet {
				quiet++
			}
			sameParts(t, reader.name, i, a, b)
		}
		t.Logf("%s: %d result sets, %d of them quiet", reader.name, len(fast), quiet)
		if quiet < len(fast)/4 {
			t.Errorf("%s: %d of %d result sets quiet; the test no longer tests what it is for", reader.name, quiet, len(fast))
		}
	}
}

// TestNextBulkCounts: a row passed in bulk takes its NULLs and its long
// texts out of the bypasses countBulk counts, column by column, among the
// first 64 columns and past them: checked against the rule itself, for rows of
// every mix of NULL, short and long texts in a result set of 70 columns,
// the others uncached json texts over 8 bytes.
func TestNextBulkCounts(t *testing.T) {
	c, done := rawConn(t, "pgcache_types=text")
	defer done()
	var cols []string
	texts := map[int]bool{2: true, 40: true, 63: true, 64: true, 68: true}
	for i := range 70 {
		if texts[i] {
			cols = append(cols, fmt.Sprintf("'t'::text as c%d", i))
		} else {
			cols = append(cols, fmt.Sprintf("'{}'::json as c%d", i))
		}
	}
	rec := record(t, c, "select "+strings.Join(cols, ", "))
	r := newCursor(c, newPlan(c, rec.fields, rec.query, c.conn.TypeMap()))
	for i := range cols {
		if (r.cols[i].kind == kindText) != texts[i] {
			t.Fatalf("plan: column %d of kind %d, a text kind: %v", i, r.cols[i].kind, texts[i])
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	dest := make([]sqldriver.Value, len(cols))
	for range 200 {
		raws := make([][]byte, len(cols))
		var want [numTables]cache.Counts
		for i := range raws {
			raws[i] = fmt.Appendf(nil, `{"column":%d}`, i) // long, not a text kind
			if !texts[i] {
				continue
			}
			switch rng.IntN(3) {
			case 0:
				raws[i] = nil
				want[tabText].Bypasses--
			case 1:
				raws[i] = []byte("short")
			case 2:
				raws[i] = []byte("a text over 8 bytes")
				want[tabText].Bypasses--
				want[tabLongText].Bypasses++
			}
		}
		r.counts = [numTables]cache.Counts{}
		if err := r.nextBulk(dest, raws); err != nil {
			t.Fatal(err)
		}
		if r.counts != want {
			t.Fatalf("counts %v, want %v", r.counts, want)
		}
		for i, raw := range raws {
			if texts[i] && (raw == nil) != (dest[i] == nil) || raw != nil && texts[i] && dest[i] != string(raw) {
				t.Fatalf("column %d: %#v from %q", i, dest[i], raw)
			}
		}
	}
}
