package pgcache

import (
	"context"
	"database/sql"
	sqldriver "database/sql/driver"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pgcache/pgcache/internal/pgtest"
)

// The replay fake: a result set read once from the server (record) or made
// up row by row, handed to newRows as its pgx.Rows and read again from
// memory as often as a test or benchmark needs. It lets Rows be driven with
// no server, socket or database/sql in the way, and with wire bytes no
// server sends.

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

// createHstore installs the hstore extension in the test database. Call it
// before rawConn: a connection learns the hstore OID when it opens.
func createHstore(t testing.TB) {
	t.Helper()
	admin, closeAdmin := rawConn(t, "")
	_, err := admin.conn.Exec(context.Background(), "create extension if not exists hstore")
	closeAdmin()
	if err != nil {
		t.Fatalf("create extension hstore: %v", err)
	}
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
	rec := &replayRows{fields: rows.FieldDescriptions(), query: query}
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
	query  string // the recorded query, whose text names its expression columns in the back-off's memory
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

// replay returns a Rows over rec from its first row, as QueryContext makes
// one: the first row pending, read by the first Next or NextRow.
func replay(c *Conn, rec *replayRows) *Rows {
	rec.pos = 0
	return newRows(c, rec, len(rec.rows) > 0, rec.query)
}

// replayReaders are the ways database/sql reads a Rows to its end: Next,
// and on Go 1.27 NextRow (added by replay_go127_internal_test.go). Each
// returns the first error other than io.EOF.
var replayReaders = []struct {
	name string
	read func(r *Rows) error
}{{"Next", func(r *Rows) error {
	dest := make([]sqldriver.Value, len(r.Columns()))
	for {
		if err := r.Next(dest); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}}}
