package pgcache_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgcache/pgcache"
)

// Switching an application to pgcache changes only the driver name: the DSN,
// the queries and the Scan destinations stay. Scanning into a
// pgcache.Decimal instead of a string or float64 is optional; a repeated
// value then comes back as one shared, immutable decimal with no allocation.
func Example() {
	// Was: sql.Open("pgx", os.Getenv("DATABASE_URL"))
	db, err := sql.Open("pgcache", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	rows, err := db.Query("select sku, price from products order by sku")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sku string
		var price pgcache.Decimal
		if err := rows.Scan(&sku, &price); err != nil {
			log.Fatal(err)
		}
		fmt.Println(sku, price)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	s := pgcache.Stats()
	fmt.Printf("numeric cache: %d hits, %d misses\n", s.Numeric.Hits, s.Numeric.Misses)
}

// Decimals of different scales are different texts but equal values.
func ExampleDecimal_Cmp() {
	a, _ := pgcache.ParseDecimal("1.50")
	b, _ := pgcache.ParseDecimal("1.5")
	nan, _ := pgcache.ParseDecimal("NaN")
	fmt.Println(a, b, a.Cmp(b))
	// PostgreSQL sorts NaN above every other value, infinities included.
	fmt.Println(nan.Cmp(a))
	// Output:
	// 1.50 1.5 0
	// 1
}

// ParseDecimal reads numeric input as PostgreSQL does and keeps the text
// PostgreSQL would print for it.
func ExampleParseDecimal() {
	for _, s := range []string{"1.50e1", " +0.001 ", "-0.00", "inf", "12abc"} {
		d, err := pgcache.ParseDecimal(s)
		if err != nil {
			fmt.Printf("%q is not a number\n", s)
			continue
		}
		fmt.Println(d)
	}
	// Output:
	// 15.0
	// 0.001
	// 0.00
	// Infinity
	// "12abc" is not a number
}

// Lookup tells an absent key from a key whose value is NULL.
func ExampleHstore_Lookup() {
	h, err := pgcache.ParseHstore(`"color"=>"red", "size"=>NULL`)
	if err != nil {
		log.Fatal(err)
	}
	for _, key := range []string{"color", "size", "weight"} {
		v, ok := h.Lookup(key)
		fmt.Printf("%s: present=%t valid=%t %q\n", key, ok, v.Valid, v.String)
	}
	// Output:
	// color: present=true valid=true "red"
	// size: present=true valid=false ""
	// weight: present=false valid=false ""
}

// pgcache's options go in the DSN next to pgx's, in either form; pgcache
// takes them out before the DSN reaches pgx, which would send them to the
// server. pgcache=off turns the cache off for a connection, pgcache_disable
// names columns that bypass it, pgcache_types adds column types to it. A
// misspelt pgcache key or a malformed value fails sql.Open with an error
// naming the key.
func Example_dsnOptions() {
	for _, dsn := range []string{
		"postgres://app@db/shop?pgcache_disable=orders.note_total,discount&pgcache_types=int8,date",
		"host=db user=app dbname=shop pgcache=off",
		"host=db user=app dbname=shop pgcache_disable='public.\"Orders\".total, note'",
	} {
		db, err := sql.Open("pgcache", dsn)
		if err != nil {
			log.Fatal(err)
		}
		db.Close()
	}
	_, err := sql.Open("pgcache", "postgres://app@db/shop?pgcache_disabel=orders.note")
	fmt.Println(err)
	// Output:
	// pgcache: unknown DSN option "pgcache_disabel" (known options: pgcache, pgcache_disable, pgcache_types)
}

// With pgcache_types, short repeating columns of other types — codes,
// flags, enums, dates, keys into small tables — are cached too: a repeated
// value comes back as one shared, pre-boxed driver value, the same value
// pgx stdlib makes of those wire bytes. List the kinds a query's repeating
// columns have (pgcache-bench -query prints the line to paste) and disable
// the columns of those kinds that never repeat.
func Example_pgcacheTypes() {
	db, err := sql.Open("pgcache",
		"postgres://app@db/shop?pgcache_types=bpchar,varchar,date,int8&pgcache_disable=lineitem.l_comment")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	rows, err := db.Query("select l_orderkey, l_shipmode, l_shipdate, l_comment from lineitem")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			key     int64
			mode    string    // varchar: cached
			shipped time.Time // date: cached, in the location pgx stdlib uses
			comment string    // disabled: read as pgx stdlib reads it
		)
		if err := rows.Scan(&key, &mode, &shipped, &comment); err != nil {
			log.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	s := pgcache.Stats()
	fmt.Printf("varchar hits %d, date hits %d\n", s.Text.Hits, s.Date.Hits)
}

// OpenDB takes a pgx.ConnConfig, as stdlib.OpenDB does, and reads pgcache's
// options from its RuntimeParams (ParseConfig puts every key it does not
// know there). Set them there too when building the config in code;
// pgcache removes them before connecting. stdlib's OptionOpenDB hooks work
// unchanged.
func ExampleOpenDB() {
	cfg, err := pgx.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	cfg.RuntimeParams["pgcache_disable"] = "orders.note_total"
	cfg.RuntimeParams["pgcache_types"] = "date,int8"
	// Behind PgBouncer in transaction pooling mode, as GORM's
	// PreferSimpleProtocol would set it.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec

	db := pgcache.OpenDB(*cfg, stdlib.OptionAfterConnect(func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, "set statement_timeout = '30s'")
		return err
	}))
	defer db.Close()
	if err := db.Ping(); err != nil {
		log.Fatal(err)
	}
}

// NewPool builds a pgxpool and a *sql.DB over it from one DSN with pgx's,
// pgxpool's and pgcache's keys: the pool for native pgx code, the *sql.DB
// for database/sql code, both on the same connections. (pgxpool.New would
// send pgcache's keys to the server, which refuses them.)
func ExampleNewPool() {
	ctx := context.Background()
	pool, db, err := pgcache.NewPool(ctx, "postgres://app@db/shop?pool_max_conns=8&pgcache_types=int8")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close() // after db.Close
	defer db.Close()

	var n int64
	if err := db.QueryRowContext(ctx, "select count(*) from orders").Scan(&n); err != nil {
		log.Fatal(err)
	}
	if err := pool.QueryRow(ctx, "select count(*) from orders").Scan(&n); err != nil {
		log.Fatal(err)
	}
}

// ParsePoolConfig takes pgcache's keys out of a pool DSN, so the pool config
// can be changed before the pool is made; OpenDBFromPool opens a *sql.DB on
// any pool with the cache's defaults, and GetPoolConnectorWithOptions with
// the DSN's options.
func ExampleOpenDBFromPool() {
	cfg, opts, err := pgcache.ParsePoolConfig("postgres://app@db/shop?pool_max_conns=4&pgcache_types=int8,date")
	if err != nil {
		log.Fatal(err)
	}
	_, inRuntimeParams := cfg.ConnConfig.RuntimeParams["pgcache_types"]
	fmt.Println("max conns:", cfg.MaxConns)
	fmt.Println("pgcache_types left for the server:", inRuntimeParams)
	fmt.Println("cache on:", opts.Cache)

	// Then, with a live server:
	//
	//	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	//	db := sql.OpenDB(pgcache.GetPoolConnectorWithOptions(pool, opts))
	//	db.SetMaxIdleConns(0)
	//
	// or, with the cache's defaults, db := pgcache.OpenDBFromPool(pool).

	// Output:
	// max conns: 4
	// pgcache_types left for the server: false
	// cache on: true
}

// Stats reports each table's counters; they only grow, so take differences
// (or let a metrics system compute rates). A result set's counts are
// published when it is closed. The tables of pgcache_types report zeros
// until a connection with the option reads a column of their kind.
func ExampleStats() {
	db, err := sql.Open("pgcache", os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	before := pgcache.Stats()
	rows, err := db.Query("select price from order_lines")
	if err != nil {
		log.Fatal(err)
	}
	for rows.Next() {
	}
	rows.Close() // publishes the counts
	after := pgcache.Stats()

	hits := after.Numeric.Hits - before.Numeric.Hits
	misses := after.Numeric.Misses - before.Numeric.Misses
	fmt.Printf("numeric: %d hits, %d misses, %d of %d slots filled, hit ratio so far %.2f\n",
		hits, misses, after.Numeric.Entries, after.Numeric.Slots, after.Numeric.HitRatio())
}
