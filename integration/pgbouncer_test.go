package integration

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// execModes are pgx's query exec modes, as default_query_exec_mode spells
// them in a DSN.
var execModes = []string{"cache_statement", "cache_describe", "describe_exec", "exec", "simple_protocol"}

// bouncerDSN returns a DSN that reaches the database of dsn through bouncer
// (a DSN from pgtest.PgBouncerDSN), with extra keyword=value settings.
func bouncerDSN(t testing.TB, bouncer, dsn string, settings ...string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	s := bouncer + " dbname=" + cfg.Database
	for _, kv := range settings {
		s += " " + kv
	}
	return s
}

// bouncerLoop runs a loop of queries and transactions over three client
// connections of one *sql.DB, taking turns, through PgBouncer with two
// server connections: consecutive statements of one client land on
// different server connections. It records every value, and stops at the
// first error, which it records by SQLSTATE.
func bouncerLoop(t *testing.T, db *sql.DB) (r record, err error) {
	ctx := testContext(t)
	db.SetMaxOpenConns(3)
	var conns []*sql.Conn
	for range 3 {
		c, err := db.Conn(ctx)
		if err != nil {
			return r, err
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for i := range 30 {
		c := conns[i%len(conns)]
		var (
			n     int64
			price string
			dec   pgcache.Decimal
			attrs pgcache.Hstore
		)
		q := "select $1::int8, ($1::int8 % 4 * 1.25)::numeric(6, 2), ($1::int8 % 3 * 0.5)::numeric(6, 2), " +
			"hstore('k', ($1::int8 % 3)::text)"
		if err := c.QueryRowContext(ctx, q, i).Scan(&n, &price, &dec, &attrs); err != nil {
			return r, err
		}
		r.Add("%d %s %s %s", n, price, dec, attrs)
		if i%5 == 0 {
			tx, err := c.BeginTx(ctx, nil)
			if err != nil {
				return r, err
			}
			var sum string
			if err := tx.QueryRowContext(ctx, "select sum(x) from (values ($1::numeric), (2.50)) v(x)", "1.25").Scan(&sum); err != nil {
				tx.Rollback()
				return r, err
			}
			if err := tx.Commit(); err != nil {
				return r, err
			}
			r.Add("tx %s", sum)
		}
	}
	return r, nil
}

// TestPgBouncer: behind a real PgBouncer in transaction pooling mode, with
// clients taking turns, every exec mode that works with "pgx" works with
// "pgcache", with the same values. Modes that keep named prepared statements
// on a server connection (cache_statement, pgx's default) cannot work there
// with either driver: PgBouncer 1.18 does not track prepared statements.
// describe_exec passes here but fails under concurrent clients
// (TestPgBouncerConcurrent).
func TestPgBouncer(t *testing.T) {
	bouncer, server := pgtest.PgBouncerDSN(t, 2)
	dsn := hstoreDatabaseOn(t, server)
	var working []string
	for _, mode := range execModes {
		t.Run(mode, func(t *testing.T) {
			var results [2]record
			var errs [2]error
			for i, name := range drivers {
				db := openDB(t, name, bouncerDSN(t, bouncer, dsn, "default_query_exec_mode="+mode))
				num, _ := traffic(func() { results[i], errs[i] = bouncerLoop(t, db) })
				if name == pgcache.DriverName && errs[i] == nil {
					requireHits(t, "numeric", num)
				}
			}
			if errs[0] != nil {
				t.Logf("pgx: %s fails behind PgBouncer (transaction mode): %v", mode, errs[0])
				if errs[1] == nil {
					t.Logf("pgcache: works")
				} else {
					t.Logf("pgcache: %v", errs[1])
				}
				return
			}
			if errs[1] != nil {
				t.Fatalf("works with pgx, but pgcache fails after %d values: %v", len(results[1]), errs[1])
			}
			if !slices.Equal(results[0], results[1]) {
				t.Fatalf("values differ\npgx:     %v\npgcache: %v", results[0], results[1])
			}
			working = append(working, mode)
		})
	}
	// The modes PgBouncer's documentation promises: no named statements.
	for _, mode := range []string{"describe_exec", "exec", "simple_protocol"} {
		if !slices.Contains(working, mode) {
			t.Errorf("%s did not work behind PgBouncer (working: %v)", mode, working)
		}
	}
	t.Logf("exec modes working behind PgBouncer in transaction pooling mode: %v", working)
}

// bouncerClients is how many clients TestPgBouncerConcurrent runs at once,
// against bouncerServerConns server connections: each server connection
// serves four clients' transactions in turn.
const (
	bouncerClients     = 8
	bouncerServerConns = 2
	bouncerQueries     = 24 // per client and round
	bouncerRounds      = 10 // a mode that fails may need a few to show it
)

// concurrentOutcome is what one driver did in one exec mode: nil if every
// round of every client got its values, else the first error and how many
// of the clients' queries failed.
type concurrentOutcome struct {
	err            error
	failed, total  int
	roundsToFailed int
}

func (o concurrentOutcome) String() string {
	if o.err == nil {
		return fmt.Sprintf("works (%d queries)", o.total)
	}
	return fmt.Sprintf("fails in round %d: %d of %d queries, first: %v", o.roundsToFailed, o.failed, o.total, o.err)
}

// runConcurrentClients opens bouncerClients connections of db, each its own
// client of PgBouncer, then starts them together: each runs bouncerQueries
// queries with 0, 1 or 2 parameters (and a transaction every sixth), checks
// every value, and counts its failures. It returns the count of failed
// queries, of all queries, and the first error.
func runConcurrentClients(ctx context.Context, db *sql.DB) (failed, total int, firstErr error) {
	db.SetMaxOpenConns(bouncerClients)
	db.SetMaxIdleConns(bouncerClients)
	conns := make([]*sql.Conn, bouncerClients)
	for i := range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			return 1, 1, fmt.Errorf("opening client %d: %w", i, err)
		}
		defer c.Close()
		conns[i] = c
	}
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		failed++
		if firstErr == nil {
			firstErr = err
		}
	}
	for ci, c := range conns {
		wg.Go(func() {
			<-start
			for q := range bouncerQueries {
				k := int64(ci*1000 + q)
				if err := clientQuery(ctx, c, q, k); err != nil {
					fail(fmt.Errorf("client %d, query %d: %w", ci, q, err))
				}
			}
		})
	}
	close(start)
	wg.Wait()
	return failed, bouncerClients * bouncerQueries, firstErr
}

// clientQuery runs query number q of a client, with key k in its
// parameters, and checks what comes back.
func clientQuery(ctx context.Context, c *sql.Conn, q int, k int64) error {
	switch q % 6 {
	case 0: // a transaction of two statements
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		var sum string
		if err := tx.QueryRowContext(ctx, "select sum(x)::numeric(8, 2) from (values ($1::numeric), (2.50)) v(x)", "1.25").Scan(&sum); err != nil {
			return err
		}
		var n int64
		if err := tx.QueryRowContext(ctx, "select $1::int8 + 1", k).Scan(&n); err != nil {
			return err
		}
		if sum != "3.75" || n != k+1 {
			return fmt.Errorf("transaction read %s and %d, want 3.75 and %d", sum, n, k+1)
		}
		return tx.Commit()
	case 1, 4: // two parameters, repeating numerics and an hstore
		var (
			n     int64
			price string
			dec   pgcache.Decimal
			attrs pgcache.Hstore
		)
		err := c.QueryRowContext(ctx, "select $1::int8, ($1::int8 % 4 * 1.25)::numeric(6, 2), ($1::int8 % 3 * 0.5)::numeric(6, 2), "+
			"hstore($2::text, ($1::int8 % 3)::text)", k, "k").Scan(&n, &price, &dec, &attrs)
		if err != nil {
			return err
		}
		wantPrice := fmt.Sprintf("%d.%02d", k%4*125/100, k%4*125%100)
		if v, _ := attrs.Lookup("k"); n != k || price != wantPrice || v.String != fmt.Sprint(k%3) {
			return fmt.Errorf("read %d %s %s %s, want %d %s … k=>%d", n, price, dec, attrs, k, wantPrice, k%3)
		}
		return nil
	case 2: // no parameters
		var s string
		if err := c.QueryRowContext(ctx, "select 42.00::numeric(6, 2)").Scan(&s); err != nil {
			return err
		}
		if s != "42.00" {
			return fmt.Errorf("read %s, want 42.00", s)
		}
		return nil
	default: // one parameter, several rows
		rows, err := c.QueryContext(ctx, "select i, (i % 5 * 0.25)::numeric(4, 2) from generate_series(1, $1::int4) i", 10+k%7)
		if err != nil {
			return err
		}
		defer rows.Close()
		var got int64
		for rows.Next() {
			var i int64
			var p string
			if err := rows.Scan(&i, &p); err != nil {
				return err
			}
			got++
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if got != 10+k%7 {
			return fmt.Errorf("read %d rows, want %d", got, 10+k%7)
		}
		return nil
	}
}

// recommendedModes are the exec modes the docs recommend behind PgBouncer
// in transaction pooling mode; TestPgBouncerConcurrent requires them to
// work for both drivers.
var recommendedModes = []string{"exec", "simple_protocol", "cache_describe"}

// TestPgBouncerConcurrent runs bouncerClients clients at once, each its own
// connection, through a real PgBouncer in transaction pooling mode with
// bouncerServerConns server connections, in every exec mode, through pgx
// stdlib and through pgcache. In each mode both drivers must work or both
// fail, and the recommended modes must work. It logs which modes work: the
// table in docs/integrations.md is this test's output.
//
// What it shows: cache_statement fails at once (named statements collide on
// the shared server connections); describe_exec fails too under concurrent
// clients (it describes in one round trip and binds the unnamed statement
// in the next, which PgBouncer may send to another server connection:
// "unnamed prepared statement does not exist", or a bind to another
// client's statement); cache_describe, exec and simple_protocol work.
func TestPgBouncerConcurrent(t *testing.T) {
	bouncer, server := pgtest.PgBouncerDSN(t, bouncerServerConns)
	dsn := hstoreDatabaseOn(t, server)
	summary := map[string]string{}
	for _, mode := range execModes {
		t.Run(mode, func(t *testing.T) {
			ctx := testContext(t)
			var outcomes [2]concurrentOutcome
			for i, name := range drivers {
				o := &outcomes[i]
				db := openDB(t, name, bouncerDSN(t, bouncer, dsn, "default_query_exec_mode="+mode))
				for round := 1; round <= bouncerRounds && o.err == nil; round++ {
					failed, total, err := runConcurrentClients(ctx, db)
					o.failed += failed
					o.total += total
					if err != nil {
						o.err, o.roundsToFailed = err, round
					}
				}
				db.Close()
				t.Logf("%s: %s", name, o)
			}
			pgxOK, pcOK := outcomes[0].err == nil, outcomes[1].err == nil
			switch {
			case pgxOK && !pcOK:
				t.Errorf("works with pgx, but pgcache %s", outcomes[1])
			case !pgxOK && pcOK:
				t.Errorf("fails with pgx (%s), but works with pgcache: the two should behave alike", outcomes[0])
			}
			if slices.Contains(recommendedModes, mode) && !(pgxOK && pcOK) {
				t.Errorf("%s is recommended behind PgBouncer but failed", mode)
			}
			if pgxOK && pcOK {
				summary[mode] = "works, both drivers"
			} else {
				summary[mode] = "fails, " + map[bool]string{true: "both drivers", false: "pgx only"}[!pcOK] + ": " + errorGist(outcomes[0].err)
			}
		})
	}
	var lines []string
	for _, mode := range execModes {
		lines = append(lines, fmt.Sprintf("  %-16s %s", mode, summary[mode]))
	}
	t.Logf("%d concurrent clients, %d server connections, transaction pooling:\n%s",
		bouncerClients, bouncerServerConns, strings.Join(lines, "\n"))
}

// errorGist is the server's message of err, without the context pgx adds.
func errorGist(err error) string {
	if err == nil {
		return ""
	}
	for errors.Unwrap(err) != nil {
		err = errors.Unwrap(err)
	}
	return err.Error()
}
