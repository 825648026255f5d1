package pgcache

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/cache"

	"github.com/pgcache/pgcache/internal/pgtest"
)

// BenchmarkRowsReplay measures what pgcache itself adds per value: Rows.Next
// (the per-row bookkeeping of advance, the lookups and the conversions) over
// a result set read once from the server and then replayed from memory, so
// neither the server, the socket nor database/sql is in the figures. The
// end-to-end benchmarks in bench/ are the user-facing numbers; this one has
// a fraction of their noise on a shared machine, which is what a change to
// the hot path needs to be judged by (a 3% end-to-end budget is ~4 ns/value).
func BenchmarkRowsReplay(b *testing.B) {
	sets := []struct{ name, query string }{
		// Random int8 keys and 8-character codes that never repeat: what the
		// reuse back-off exists for.
		{"distinct-keys", `SELECT hashint8extended(g, 0) AS id, hashint8extended(-g, 0) AS ref, substr(md5(g::text), 1, 8) AS code,
			substr(md5((-g)::text), 1, 8)::varchar(8) AS tag FROM generate_series(1, 200000) g`},
		// The same shapes drawn from 64 values each: every read a hit.
		{"repeating-keys", `SELECT hashint8extended(g % 64, 0) AS id, hashint8extended(-(g % 64), 0) AS ref, substr(md5((g % 64)::text), 1, 8) AS code,
			substr(md5((-(g % 64))::text), 1, 8)::varchar(8) AS tag FROM generate_series(1, 200000) g`},
	}
	// Two int8 columns drawn at random from N keys, around and above the
	// table's 4096 slots: part hits, part churn, which mode=types-reuse-only
	// measures without the back-off's churn rule (what churnRatio is set by).
	for _, n := range []int{3000, 4000, 6000} {
		sets = append(sets, struct{ name, query string }{fmt.Sprint("random-keys-", n),
			fmt.Sprintf(`SELECT 1000 + abs(hashint8extended(g, 0)) %% %d AS id, 1000 + abs(hashint8extended(-g, 0)) %% %d AS ref FROM generate_series(1, 200000) g`, n, n)})
	}
	modes := []struct{ name, opts string }{
		{"off", "pgcache=off"},
		{"default", ""},
		{"types", "pgcache_types=all"},
		{"types-reuse-only", "pgcache_types=all"},
	}
	for _, set := range sets {
		for _, mode := range modes {
			b.Run("data="+set.name+"/mode="+mode.name, func(b *testing.B) {
				if mode.name == "types-reuse-only" {
					// Any hit keeps a column cached, as before the churn
					// rule.
					defer func(r int) { churnRatio = r }(churnRatio)
					churnRatio = 0
				}
				c, closeDB := rawConn(b, mode.opts)
				defer closeDB()
				rec := record(b, c, set.query)
				dest := make([]sqldriver.Value, len(rec.fields))
				b.ReportAllocs()
				h0, a0, l0 := tableTraffic()
				b.ResetTimer()
				for range b.N {
					rec.pos = 0
					r := newRows(c, rec, true)
					for r.Next(dest) == nil {
					}
					r.Close()
				}
				values := float64(b.N) * float64(len(rec.rows)*len(rec.fields))
				h1, a1, l1 := tableTraffic()
				b.ReportMetric(float64(h1-h0)/values, "hits/value")
				b.ReportMetric(float64(a1-a0)/values, "admissions/value")
				// Every iteration but the first re-reads the result set.
				b.ReportMetric(float64(l1-l0)/values, "lookups/value")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/values, "ns/value")
			})
		}
	}
}

// tableTraffic sums the counts of every table: hits, admissions, and
// lookups (hits, misses and admissions: the values not bypassed).
func tableTraffic() (hits, admissions, lookups uint64) {
	s := Stats()
	for _, t := range []cache.Stats{s.Numeric, s.Hstore, s.Text, s.LongText, s.Int8, s.Int4, s.Float8, s.Date, s.Timestamp, s.Timestamptz} {
		hits, admissions = hits+t.Hits, admissions+t.Admissions
		lookups += t.Hits + t.Misses + t.Admissions
	}
	return hits, admissions, lookups
}

// rawConn opens a pgcache connection to the test server with the given
// options and returns the driver connection under it.
func rawConn(b testing.TB, opts string) (*Conn, func()) {
	b.Helper()
	dsn := pgtest.DSN(b)
	// opts is one key=value or empty; pgtest.WithOptions adds it to
	// either DSN form (a URL takes it as a query parameter).
	if k, v, ok := strings.Cut(opts, "="); ok {
		dsn = pgtest.MustWithOptions(b, dsn, k, v)
	}
	db, err := sql.Open(DriverName, dsn)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var c *Conn
	if err := conn.Raw(func(dc any) error { c = dc.(*Conn); return nil }); err != nil {
		b.Fatal(err)
	}
	return c, func() { conn.Close(); db.Close() }
}

// record runs query on c with pgcache's result formats and keeps its rows.
func record(b testing.TB, c *Conn, query string) *replayRows {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := c.conn.Query(ctx, query, resultFormats)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	rec := &replayRows{fields: rows.FieldDescriptions()}
	for rows.Next() {
		var row [][]byte
		for _, v := range rows.RawValues() {
			if v != nil {
				v = append([]byte{}, v...)
			}
			row = append(row, v)
		}
		rec.rows = append(rec.rows, row)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return rec
}

// replayRows is a pgx.Rows over recorded rows: only what Rows uses.
type replayRows struct {
	fields []pgconn.FieldDescription
	rows   [][][]byte
	pos    int
}

func (r *replayRows) Close()                                       {}
func (r *replayRows) Err() error                                   { return nil }
func (r *replayRows) CommandTag() pgconn.CommandTag                { return pgconn.CommandTag{} }
func (r *replayRows) FieldDescriptions() []pgconn.FieldDescription { return r.fields }
func (r *replayRows) Scan(...any) error                            { return io.ErrUnexpectedEOF }
func (r *replayRows) Values() ([]any, error)                       { return nil, io.ErrUnexpectedEOF }
func (r *replayRows) RawValues() [][]byte                          { return r.rows[r.pos] }
func (r *replayRows) Conn() *pgx.Conn                              { return nil }
func (r *replayRows) TypeMap() *pgtype.Map                         { return nil }
func (r *replayRows) Next() bool                                   { r.pos++; return r.pos < len(r.rows) }

var _ pgx.Rows = (*replayRows)(nil)
