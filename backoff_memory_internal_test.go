package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// numericResult makes a replayed result set of rows rows of cols numeric
// expression columns, the value of column k in row g being value(g, k), as
// the query text query would name them.
func numericResult(query string, rows, cols int, value func(g, k int) string) *replayRows {
	rec := &replayRows{query: query}
	for k := range cols {
		rec.fields = append(rec.fields, pgconn.FieldDescription{Name: fmt.Sprint("c", k), DataTypeOID: pgtype.NumericOID, Format: 0})
	}
	for g := range rows {
		row := make([][]byte, cols)
		for k := range row {
			row[k] = []byte(value(g, k))
		}
		rec.rows = append(rec.rows, row)
	}
	return rec
}

// readNext reads r to its end through Next, checking every value against
// the replayed text (what pgx stdlib returns), and closes it.
func readNext(t *testing.T, r *Rows, rec *replayRows) {
	t.Helper()
	dest := make([]sqldriver.Value, len(rec.fields))
	for g := 0; ; g++ {
		if err := r.Next(dest); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		for k, v := range dest {
			if v != string(rec.rows[g][k]) {
				t.Fatalf("row %d column %d: %#v, want %q", g, k, v, rec.rows[g][k])
			}
		}
	}
	r.Close()
}

// TestBackoffMemory: the back-off's judgement outlives result sets. Many
// short result sets of the same query, each shorter than a window:
//   - values that come exactly twice in a row and never again are admitted
//     only until the warm-up windows and a few re-probes are over, not on
//     every result set, whether the two rows are in one result set or in
//     two;
//   - repeating prices stay cached and hit;
//   - ResetCache forgets.
func TestBackoffMemory(t *testing.T) {
	c, done := rawConn(t, "")
	defer done()
	const cols, queries = 4, 6000

	ResetCache()
	// At 20 rows a value's two rows are mostly in one result set; at one
	// row always in two, which the column's previous lookup, kept with its
	// Rows, links.
	for _, rowsPer := range []int{20, 1} {
		before := numericTable.Stats()
		query := fmt.Sprint("pairs-", rowsPer)
		for q := range queries {
			rec := numericResult(query, rowsPer, cols, func(g, k int) string { return fmt.Sprint(rowsPer*1000000 + (q*rowsPer+g)/2*cols + k) })
			readNext(t, replay(c, rec), rec)
		}
		d := numericTable.Stats()
		adms := d.Admissions - before.Admissions
		// Per column: quickAdmissions in its first window, which then
		// fails, and as many in each re-probe after a skip (of at least
		// skipFirst rows). Without the rule, the warm-up windows would
		// admit every second value; without the memory, every result set.
		bound := uint64(cols * quickAdmissions * (queries*rowsPer/skipFirst + 2))
		t.Logf("%s: %d admissions, %d hits over %d values; bound %d", query, adms, d.Hits-before.Hits, queries*rowsPer*cols, bound)
		if adms > bound || d.Hits != before.Hits {
			t.Errorf("%s: %d admissions and %d hits over %d values; want at most %d admissions and no hit",
				query, adms, d.Hits-before.Hits, queries*rowsPer*cols, bound)
		}
	}
	if s := Stats().Backoff; s.Columns < 2*cols || s.Skipping < 2*cols {
		t.Errorf("Stats().Backoff = %+v after the pairs, want their %d columns remembered, skipping", s, 2*cols)
	}

	const rowsPer = 20
	before := numericTable.Stats()
	for q := range queries / 10 {
		rec := numericResult("prices", rowsPer, cols, func(g, k int) string { return fmt.Sprintf("%d.%02d", 10+(q*7+g*13+k)%2, (q+g*31+k)%100) })
		readNext(t, replay(c, rec), rec)
	}
	d := numericTable.Stats()
	values := uint64(queries / 10 * rowsPer * cols)
	if hits := d.Hits - before.Hits; hits < values*9/10 {
		t.Errorf("repeating prices: %d hits of %d values, want at least 90%%", hits, values)
	}

	ResetCache()
	if s := Stats().Backoff; s != (BackoffStats{}) {
		t.Errorf("Stats().Backoff = %+v after ResetCache, want none", s)
	}
}

// TestColumnKey: table columns are known by table and attribute, wherever
// they appear and whatever the query; expressions by the query and their
// position.
func TestColumnKey(t *testing.T) {
	q1, q2 := uint64(0x1234_5678_9abc), uint64(0x0fed_cba9_8765)
	for _, tt := range []struct {
		name string
		a, b uint64
		same bool
	}{
		{"table column in two queries", columnKey(16384, 2, 0, q1), columnKey(16384, 2, 5, q2), true},
		{"two attributes", columnKey(16384, 2, 0, q1), columnKey(16384, 3, 0, q1), false},
		{"expression in two positions", columnKey(0, 0, 0, q1), columnKey(0, 0, 1, q1), false},
		{"expression in two queries", columnKey(0, 0, 0, q1), columnKey(0, 0, 0, q2), false},
		{"table column and expression", columnKey(16384, 2, 0, 16384<<16|2), columnKey(0, 0, 0, 16384<<16|2), false},
	} {
		if (tt.a == tt.b) != tt.same || tt.a == 0 || tt.b == 0 {
			t.Errorf("%s: keys %#x and %#x; want same %t, never 0", tt.name, tt.a, tt.b, tt.same)
		}
	}
}

// TestQuickAdmissions: a column whose values come twice in a row and never
// again fails its window after quickAdmissions admissions; one that repeats
// a value on consecutive rows and then hits it (a constant, an order's lines)
// does not.
func TestQuickAdmissions(t *testing.T) {
	tr := newReuseTracker()
	for i := range quickAdmissions {
		if tr.observeAdmission(missed, false) {
			t.Fatalf("pairs: a skip at miss %d", i)
		}
		started := tr.observeAdmission(admitted, true)
		if started != (i == quickAdmissions-1) {
			t.Fatalf("pairs: skip started %t at admission %d, want it at the %dth", started, i+1, quickAdmissions)
		}
	}
	tr = newReuseTracker()
	for i := range 10 * quickAdmissions {
		// Each value on three rows: a miss, a quick admission, a hit.
		if tr.observeAdmission(missed, false) || tr.observeAdmission(admitted, true) || tr.observeHit() {
			t.Fatalf("triples: a skip at value %d", i)
		}
	}
}
