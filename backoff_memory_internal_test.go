package pgcache

import (
	sqldriver "database/sql/driver"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/internal/backoff"
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
//     every result set;
//   - repeating prices stay cached and hit;
//   - ResetCache forgets.
func TestBackoffMemory(t *testing.T) {
	c, done := rawConn(t, "")
	defer done()
	const rowsPer, cols, queries = 20, 4, 6000

	ResetCache()
	before := numericTable.Stats()
	for q := range queries {
		rec := numericResult("pairs", rowsPer, cols, func(g, k int) string { return fmt.Sprint((q*rowsPer+g)/2*cols + k) })
		readNext(t, replay(c, rec), rec)
	}
	d := numericTable.Stats()
	adms := d.Admissions - before.Admissions
	// Per column: quickAdmissions in its first window, which then fails,
	// and as many in each re-probe after a skip (of at least skipFirst
	// rows). Without the rule, the warm-up windows would admit every second
	// value; without the memory, every result set.
	bound := uint64(cols * backoff.QuickAdmissions * (queries*rowsPer/backoff.SkipFirst + 2))
	t.Logf("pairs: %d admissions, %d hits over %d values; bound %d", adms, d.Hits-before.Hits, queries*rowsPer*cols, bound)
	if adms > bound || d.Hits != before.Hits {
		t.Errorf("pairs: %d admissions and %d hits over %d values; want at most %d admissions and no hit",
			adms, d.Hits-before.Hits, queries*rowsPer*cols, bound)
	}
	if s := Stats().Backoff; s.Columns < cols || s.Skipping < cols {
		t.Errorf("Stats().Backoff = %+v after the pairs, want its %d columns remembered, skipping", s, cols)
	}

	before = numericTable.Stats()
	for q := range queries / 10 {
		rec := numericResult("prices", rowsPer, cols, func(g, k int) string { return fmt.Sprintf("%d.%02d", 10+(q*7+g*13+k)%2, (q+g*31+k)%100) })
		readNext(t, replay(c, rec), rec)
	}
	d = numericTable.Stats()
	values := uint64(queries / 10 * rowsPer * cols)
	if hits := d.Hits - before.Hits; hits < values*9/10 {
		t.Errorf("repeating prices: %d hits of %d values, want at least 90%%", hits, values)
	}

	ResetCache()
	if s := Stats().Backoff; s != (BackoffStats{}) {
		t.Errorf("Stats().Backoff = %+v after ResetCache, want none", s)
	}
}
