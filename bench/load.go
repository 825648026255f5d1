package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// marker is the table comment that says a table holds data set d, completely
// loaded by this version of the generators.
func marker(d DataSet) string {
	return fmt.Sprintf("pgcache-bench data set %s v%d rows=%d", d.Name, Version, d.Rows)
}

// ErrNotLoaded is wrapped by [Check]'s error for a data set whose table is
// missing or holds other data.
var ErrNotLoaded = errors.New("bench: data set not loaded")

// Load makes sure the tables of sets hold their data, loading those that do
// not: missing tables, tables of another row count or generator version, and
// tables whose load did not finish. It creates the hstore extension if a
// data set has an hstore column, and a table's enum types ([DataSet.Enums])
// with the table. A table that is already right is left alone, so calling
// Load once per process costs a few catalog queries.
//
// A table is loaded with COPY … FREEZE in one transaction that also creates
// it and sets its marker comment, under an advisory lock, so processes sharing
// a server never see half a table. progress, if not nil, is told about each
// table loaded.
func Load(ctx context.Context, dsn string, sets []DataSet, progress func(msg string)) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("bench: load: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))

	if slices.ContainsFunc(sets, DataSet.hasHstore) {
		if err := createHstore(ctx, conn); err != nil {
			return err
		}
	}
	for _, d := range sets {
		if err := d.check(); err != nil {
			return err
		}
		if loaded(ctx, conn, d) == nil {
			continue
		}
		if progress != nil {
			progress(fmt.Sprintf("loading %s (%d rows × %d columns)", d.Table, d.Rows, len(d.Columns)))
		}
		if err := loadTable(ctx, conn, d); err != nil {
			return fmt.Errorf("bench: loading %s: %w", d.Table, err)
		}
	}
	return nil
}

// CreateHstore creates the hstore extension if the database lacks it.
//
// pgcache learns the type's OID when a connection opens, so a connection
// opened before the extension existed never treats hstore columns as hstore.
// Programs that load data sets lazily call this before opening an [Env].
func CreateHstore(ctx context.Context, dsn string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return createHstore(ctx, conn)
}

func createHstore(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, "create extension if not exists hstore"); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// Check returns an error wrapping [ErrNotLoaded] if any of sets is not loaded
// as [Load] would load it. It only reads.
func Check(ctx context.Context, dsn string, sets []DataSet) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var errs []error
	for _, d := range sets {
		if err := d.check(); err != nil {
			return err
		}
		errs = append(errs, loaded(ctx, conn, d))
	}
	return errors.Join(errs...)
}

// loaded returns nil if d's table holds d, and otherwise an error saying why not.
func loaded(ctx context.Context, conn *pgx.Conn, d DataSet) error {
	var comment *string
	err := conn.QueryRow(ctx, "select obj_description(to_regclass($1), 'pg_class')", d.Table).Scan(&comment)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %s: %v", ErrNotLoaded, d.Table, err)
	case comment == nil:
		return fmt.Errorf("%w: %s is missing or has no marker", ErrNotLoaded, d.Table)
	case *comment != marker(d):
		return fmt.Errorf("%w: %s holds %q, want %q", ErrNotLoaded, d.Table, *comment, marker(d))
	}
	// The marker is committed with the rows; counting guards against a
	// table someone changed since.
	var n int
	if err := conn.QueryRow(ctx, "select count(*) from "+pgx.Identifier{d.Table}.Sanitize()).Scan(&n); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrNotLoaded, d.Table, err)
	}
	if n != d.Rows {
		return fmt.Errorf("%w: %s has %d rows, want %d", ErrNotLoaded, d.Table, n, d.Rows)
	}
	return nil
}

func loadTable(ctx context.Context, conn *pgx.Conn, d DataSet) error {
	table := pgx.Identifier{d.Table}.Sanitize()
	cols := make([]string, len(d.Columns))
	defs := make([]string, len(d.Columns))
	for i, c := range d.Columns {
		cols[i] = pgx.Identifier{c.Name}.Sanitize()
		defs[i] = cols[i] + " " + c.Type + " not null"
	}

	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))

	h := fnv.New64a()
	h.Write([]byte(d.Table))
	if _, err := tx.Exec(ctx, "select pg_advisory_xact_lock($1)", int64(h.Sum64())); err != nil {
		return err
	}
	if loaded(ctx, conn, d) == nil { // another process loaded it while we waited
		return nil
	}
	stmts := []string{"drop table if exists " + table}
	for _, e := range d.Enums {
		name := pgx.Identifier{e.Name}.Sanitize()
		labels := make([]string, len(e.Labels))
		for i, l := range e.Labels {
			labels[i] = "'" + strings.ReplaceAll(l, "'", "''") + "'"
		}
		stmts = append(stmts, "drop type if exists "+name, "create type "+name+" as enum ("+strings.Join(labels, ", ")+")")
	}
	stmts = append(stmts, "create table "+table+" ("+strings.Join(defs, ", ")+")")
	for _, q := range stmts {
		if _, err := tx.Exec(ctx, q); err != nil {
			return err
		}
	}

	// Rows go as COPY text: the generators' texts need no escaping (copyRows
	// checks), and the server parses them exactly as it would an INSERT.
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(copyRows(pw, d)) }()
	tag, err := conn.PgConn().CopyFrom(ctx, pr,
		"copy "+table+" ("+strings.Join(cols, ", ")+") from stdin with (freeze)")
	pr.CloseWithError(io.ErrClosedPipe) // stop the writer if COPY failed early
	if err != nil {
		return err
	}
	if int(tag.RowsAffected()) != d.Rows {
		return fmt.Errorf("copied %d rows, want %d", tag.RowsAffected(), d.Rows)
	}
	comment := "comment on table " + table + " is '" + strings.ReplaceAll(marker(d), "'", "''") + "'"
	if _, err := tx.Exec(ctx, comment); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	// Statistics and the visibility map, so the first benchmark scan reads the
	// table as every later one does.
	_, err = conn.Exec(ctx, "vacuum (analyze) "+table)
	return err
}

// hasHstore reports whether a column of d is an hstore.
func (d DataSet) hasHstore() bool {
	return slices.ContainsFunc(d.Columns, func(c Column) bool { return c.Type == "hstore" })
}

// copyRows writes d's rows to w in COPY text format.
func copyRows(w io.Writer, d DataSet) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	for row := range d.Generate() {
		for i, v := range row {
			if strings.ContainsAny(v, "\t\n\r\\") {
				return fmt.Errorf("bench: generated value %q needs COPY escaping", v)
			}
			if i > 0 {
				bw.WriteByte('\t')
			}
			bw.WriteString(v)
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
