package integration

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "github.com/lib/pq" // registers "postgres"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/pgcache/pgcache"
)

// This file is a small catalog and orders service, written the way an
// application is: 50-row pages of the catalog, lookups by id, a report over
// every order line, and a transaction that places an order. Each operation
// exists three times, through database/sql, sqlx and GORM, and the service
// runs unchanged on every driver. TestApp checks that pgcache and pgx stdlib
// return the same values for every operation; BenchmarkApp
// (app_bench_test.go) measures them.

// reportRows is the number of order lines the report reads (and the table
// holds). The default keeps a one-pass benchmark run (-benchtime=1x) and the
// tests quick; bench/app.sh measures 300000.
var reportRows = flag.Int("app.rows", envInt("PGCACHE_APP_ROWS", 20000),
	"order lines the app benchmark's report reads (default $PGCACHE_APP_ROWS or 20000)")

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// catalogSize is the number of products; pages and lookups cycle over them.
const catalogSize = 3000

// pageSize is the rows of one list page.
const pageSize = 50

// appSchemaSQL creates the service's tables and fills the catalog and the
// order lines ($1 of them): prices from 300 price points, seven VAT rates
// (20.00 on most rows), discounts and notes that are NULL on most rows, and
// hstore attributes from a few dozen maps, so the numerics and hstores
// repeat as a shop's do; ids and times never repeat.
const appSchemaSQL = `
create table products (
	id       bigint primary key,
	sku      text not null,
	name     text not null,
	price    numeric(10, 2) not null,
	vat      numeric(4, 2) not null,
	discount numeric(4, 2),
	attrs    hstore not null,
	note     hstore
);
insert into products
select i, 'SKU-' || lpad(i::text, 5, '0'), 'product ' || i,
	(((i * 7919) % 300) * 1.25 + 0.99)::numeric(10, 2),
	case when i % 10 < 6 then 20.00 else (array[0.00, 5.50, 7.00, 10.00, 19.00, 21.00])[i % 6 + 1] end,
	case when i % 3 = 0 then ((i % 4) * 5)::numeric(4, 2) end,
	hstore(array['color', 'size'], array[(array['red', 'green', 'blue', 'black'])[i % 4 + 1],
		(array['S', 'M', 'L', 'XL', 'XXL'])[i % 5 + 1]]),
	case when i % 7 = 0 then hstore('gift', 'yes') end
from generate_series(1, ` + "3000" + `) i;

create table order_lines (
	id        bigint primary key,
	order_id  bigint not null,
	placed_at timestamptz not null,
	status    text not null,
	sku       text not null,
	qty       int not null,
	price     numeric(10, 2) not null,
	vat       numeric(4, 2) not null,
	discount  numeric(4, 2),
	attrs     hstore not null
);
insert into order_lines
select i, i / 3 + 1, timestamptz '2026-01-01 00:00:00+00' + (i * 37) * interval '1 second',
	(array['delivered', 'delivered', 'delivered', 'shipped', 'paid', 'cancelled'])[i % 6 + 1],
	p.sku, 1 + (i % 4) * (i % 3), p.price, p.vat, p.discount, p.attrs
from generate_series(1, $1::int8) i join products p on p.id = (i * 104729) % 3000 + 1;

create table carts (
	id          bigserial primary key,
	customer_id bigint not null,
	total       numeric(12, 2) not null,
	created_at  timestamptz not null default now()
);
create table cart_lines (
	id         bigserial primary key,
	cart_id    bigint not null references carts,
	product_id bigint not null references products,
	qty        int not null,
	price      numeric(10, 2) not null
);
analyze products, order_lines`

// loadApp creates the service's database with rows order lines and returns
// its DSN; the database is dropped when tb ends.
func loadApp(tb testing.TB, rows int) string {
	tb.Helper()
	dsn := hstoreDatabase(tb)
	loadAppInto(tb, dsn, rows)
	return dsn
}

// loadAppInto creates the service's tables, with rows order lines, in the
// database dsn names, which has the hstore extension.
func loadAppInto(tb testing.TB, dsn string, rows int) {
	tb.Helper()
	db := openDB(tb, "pgx", dsn)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	// One statement at a time: $1 needs the extended protocol.
	for stmt := range strings.SplitSeq(appSchemaSQL, ";\n") {
		var args []any
		if strings.Contains(stmt, "$1") {
			args = append(args, rows)
		}
		if _, err := conn.ExecContext(ctx, stmt, args...); err != nil {
			tb.Fatalf("loading the app's tables: %v\n%s", err, stmt)
		}
	}
}

// The APIs the service is written against.
const (
	apiSQL  = "sql"
	apiSQLX = "sqlx"
	apiGORM = "gorm"
)

// The drivers the service runs on: pgcache, pgx stdlib and lib/pq, as
// database/sql names them.
const (
	drvPgcache = pgcache.DriverName
	drvPgx     = "pgx"
	drvPq      = "postgres"
)

// appDriverLabel is a driver's key=value name in benchmarks.
func appDriverLabel(driverName string) string {
	if driverName == drvPq {
		return "pq"
	}
	return driverName
}

// plainProduct is a product as an application written for pgx stdlib holds
// it: numerics and hstores as their texts, NULL-able ones as
// sql.NullString. A driver swap leaves it as it is.
type plainProduct struct {
	ID       int64          `db:"id" gorm:"column:id;primaryKey"`
	SKU      string         `db:"sku" gorm:"column:sku"`
	Name     string         `db:"name" gorm:"column:name"`
	Price    string         `db:"price" gorm:"column:price"`
	VAT      string         `db:"vat" gorm:"column:vat"`
	Discount sql.NullString `db:"discount" gorm:"column:discount"`
	Attrs    string         `db:"attrs" gorm:"column:attrs"`
	Note     sql.NullString `db:"note" gorm:"column:note"`
}

func (plainProduct) TableName() string { return "products" }

func (p *plainProduct) ptrs() []any {
	return []any{&p.ID, &p.SKU, &p.Name, &p.Price, &p.VAT, &p.Discount, &p.Attrs, &p.Note}
}

func (p plainProduct) String() string {
	return fmt.Sprintf("%d %s %s %s %s %v %s %v", p.ID, p.SKU, p.Name, p.Price, p.VAT, p.Discount, p.Attrs, p.Note)
}

func (p plainProduct) unitPrice() string { return p.Price }

// typedProduct is the same product with pgcache's types, which scan from
// any driver.
type typedProduct struct {
	ID       int64               `db:"id" gorm:"column:id;primaryKey"`
	SKU      string              `db:"sku" gorm:"column:sku"`
	Name     string              `db:"name" gorm:"column:name"`
	Price    pgcache.Decimal     `db:"price" gorm:"column:price"`
	VAT      pgcache.Decimal     `db:"vat" gorm:"column:vat"`
	Discount pgcache.NullDecimal `db:"discount" gorm:"column:discount"`
	Attrs    pgcache.Hstore      `db:"attrs" gorm:"column:attrs"`
	Note     pgcache.NullHstore  `db:"note" gorm:"column:note"`
}

func (typedProduct) TableName() string { return "products" }

func (p *typedProduct) ptrs() []any {
	return []any{&p.ID, &p.SKU, &p.Name, &p.Price, &p.VAT, &p.Discount, &p.Attrs, &p.Note}
}

func (p typedProduct) String() string {
	return fmt.Sprintf("%d %s %s %s %s %v/%s %s %v/%s", p.ID, p.SKU, p.Name, p.Price, p.VAT,
		p.Discount.Valid, p.Discount.Decimal, p.Attrs, p.Note.Valid, p.Note.Hstore)
}

func (p typedProduct) unitPrice() string { return p.Price.String() }

// plainLine is a report row in an application's own types.
type plainLine struct {
	ID       int64          `db:"id" gorm:"column:id"`
	OrderID  int64          `db:"order_id" gorm:"column:order_id"`
	PlacedAt time.Time      `db:"placed_at" gorm:"column:placed_at"`
	Status   string         `db:"status" gorm:"column:status"`
	SKU      string         `db:"sku" gorm:"column:sku"`
	Qty      int32          `db:"qty" gorm:"column:qty"`
	Price    string         `db:"price" gorm:"column:price"`
	VAT      string         `db:"vat" gorm:"column:vat"`
	Discount sql.NullString `db:"discount" gorm:"column:discount"`
	Attrs    string         `db:"attrs" gorm:"column:attrs"`
}

func (plainLine) TableName() string { return "order_lines" }

func (l *plainLine) ptrs() []any {
	return []any{&l.ID, &l.OrderID, &l.PlacedAt, &l.Status, &l.SKU, &l.Qty, &l.Price, &l.VAT, &l.Discount, &l.Attrs}
}

func (l plainLine) String() string {
	return fmt.Sprintf("%d %d %s %s %s %d %s %s %v %s", l.ID, l.OrderID, l.PlacedAt.UTC().Format(time.RFC3339),
		l.Status, l.SKU, l.Qty, l.Price, l.VAT, l.Discount, l.Attrs)
}

// typedLine is a report row with pgcache's types.
type typedLine struct {
	ID       int64               `db:"id" gorm:"column:id"`
	OrderID  int64               `db:"order_id" gorm:"column:order_id"`
	PlacedAt time.Time           `db:"placed_at" gorm:"column:placed_at"`
	Status   string              `db:"status" gorm:"column:status"`
	SKU      string              `db:"sku" gorm:"column:sku"`
	Qty      int32               `db:"qty" gorm:"column:qty"`
	Price    pgcache.Decimal     `db:"price" gorm:"column:price"`
	VAT      pgcache.Decimal     `db:"vat" gorm:"column:vat"`
	Discount pgcache.NullDecimal `db:"discount" gorm:"column:discount"`
	Attrs    pgcache.Hstore      `db:"attrs" gorm:"column:attrs"`
}

func (typedLine) TableName() string { return "order_lines" }

func (l *typedLine) ptrs() []any {
	return []any{&l.ID, &l.OrderID, &l.PlacedAt, &l.Status, &l.SKU, &l.Qty, &l.Price, &l.VAT, &l.Discount, &l.Attrs}
}

func (l typedLine) String() string {
	return fmt.Sprintf("%d %d %s %s %s %d %s %s %v/%s %s", l.ID, l.OrderID, l.PlacedAt.UTC().Format(time.RFC3339),
		l.Status, l.SKU, l.Qty, l.Price, l.VAT, l.Discount.Valid, l.Discount.Decimal, l.Attrs)
}

// cart and cartLine are what placing an order writes.
type cart struct {
	ID         int64  `gorm:"column:id;primaryKey"`
	CustomerID int64  `gorm:"column:customer_id"`
	Total      string `gorm:"column:total"`
}

func (cart) TableName() string { return "carts" }

type cartLine struct {
	ID        int64  `gorm:"column:id;primaryKey"`
	CartID    int64  `gorm:"column:cart_id"`
	ProductID int64  `gorm:"column:product_id"`
	Qty       int32  `gorm:"column:qty"`
	Price     string `gorm:"column:price"`
}

func (cartLine) TableName() string { return "cart_lines" }

const (
	productColumns = "id, sku, name, price, vat, discount, attrs, note"
	pageSQL        = "select " + productColumns + " from products order by id limit 50 offset $1"
	getSQL         = "select " + productColumns + " from products where id = $1"
	basketSQL      = "select " + productColumns + " from products where id in ($1, $2, $3) order by id"
	reportSQL      = "select id, order_id, placed_at, status, sku, qty, price, vat, discount, attrs from order_lines where id <= $1 order by id"
)

// product is a product type the service reads.
type product[P any] interface {
	*P
	ptrs() []any
	unitPrice() string
}

// lineOf is a report row type the service reads.
type lineOf[L any] interface {
	*L
	ptrs() []any
}

// service is the catalog and orders service on one API and one driver. P
// and L are its product and report row types.
type service[P any, L any, PP product[P], LP lineOf[L]] struct {
	api  string
	db   *sql.DB
	x    *sqlx.DB
	gorm *gorm.DB
}

// openService opens the service on driverName through api. It closes with
// tb.
func openService[P any, L any, PP product[P], LP lineOf[L]](tb testing.TB, api, driverName, dsn string) *service[P, L, PP, LP] {
	tb.Helper()
	s := &service[P, L, PP, LP]{api: api}
	switch api {
	case apiSQL:
		s.db = openDB(tb, driverName, dsn)
	case apiSQLX:
		s.db = openDB(tb, driverName, dsn)
		s.x = sqlx.NewDb(s.db, driverName)
	case apiGORM:
		// The way the README's migration checklist says to.
		gdb, err := gorm.Open(postgres.New(postgres.Config{DriverName: driverName, DSN: dsn}),
			&gorm.Config{Logger: logger.Default.LogMode(logger.Silent)})
		if err != nil {
			tb.Fatal(err)
		}
		if s.db, err = gdb.DB(); err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { s.db.Close() })
		s.gorm = gdb
	default:
		tb.Fatalf("unknown api %q", api)
	}
	s.db.SetMaxIdleConns(2)
	return s
}

// page reads the 50 products from offset on.
func (s *service[P, L, PP, LP]) page(ctx context.Context, offset int) ([]P, error) {
	switch s.api {
	case apiSQLX:
		var ps []P
		return ps, s.x.SelectContext(ctx, &ps, pageSQL, offset)
	case apiGORM:
		var ps []P
		return ps, s.gorm.WithContext(ctx).Order("id").Limit(pageSize).Offset(offset).Find(&ps).Error
	}
	return queryAll[P, PP](ctx, s.db, pageSQL, offset)
}

// get reads the product with this id.
func (s *service[P, L, PP, LP]) get(ctx context.Context, id int64) (P, error) {
	var p P
	switch s.api {
	case apiSQLX:
		return p, s.x.GetContext(ctx, &p, getSQL, id)
	case apiGORM:
		return p, s.gorm.WithContext(ctx).First(&p, id).Error
	}
	return p, s.db.QueryRowContext(ctx, getSQL, id).Scan(PP(&p).ptrs()...)
}

// report streams the first n order lines to each, in id order: a report
// does not hold 300k rows at once.
func (s *service[P, L, PP, LP]) report(ctx context.Context, n int, each func(*L)) error {
	var rows *sql.Rows
	var err error
	switch s.api {
	case apiSQLX:
		xr, err := s.x.QueryxContext(ctx, reportSQL, n)
		if err != nil {
			return err
		}
		defer xr.Close()
		var l L
		for xr.Next() {
			if err := xr.StructScan(&l); err != nil {
				return err
			}
			each(&l)
		}
		return xr.Err()
	case apiGORM:
		rows, err = s.gorm.WithContext(ctx).Model(new(L)).Where("id <= ?", n).Order("id").Rows()
		if err != nil {
			return err
		}
		defer rows.Close()
		var l L
		for rows.Next() {
			if err := s.gorm.ScanRows(rows, &l); err != nil {
				return err
			}
			each(&l)
		}
		return rows.Err()
	}
	rows, err = s.db.QueryContext(ctx, reportSQL, n)
	if err != nil {
		return err
	}
	defer rows.Close()
	var l L
	ptrs := LP(&l).ptrs()
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		each(&l)
	}
	return rows.Err()
}

// placeOrder places an order of three products in one transaction: it reads
// their prices, writes the cart and its lines, and returns the cart's id
// and the prices read.
func (s *service[P, L, PP, LP]) placeOrder(ctx context.Context, customer int64, ids [3]int64) (int64, []P, error) {
	switch s.api {
	case apiGORM:
		var cartID int64
		var ps []P
		err := s.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if err := tx.Where("id in ?", ids[:]).Order("id").Find(&ps).Error; err != nil {
				return err
			}
			c := cart{CustomerID: customer, Total: "0"}
			if err := tx.Create(&c).Error; err != nil {
				return err
			}
			lines := make([]cartLine, len(ps))
			for i := range ps {
				p := PP(&ps[i])
				lines[i] = cartLine{CartID: c.ID, ProductID: ids[i], Qty: int32(i + 1), Price: p.unitPrice()}
			}
			if err := tx.Create(&lines).Error; err != nil {
				return err
			}
			cartID = c.ID
			return tx.Exec("update carts set total = (select sum(qty * price) from cart_lines where cart_id = ?) where id = ?",
				c.ID, c.ID).Error
		})
		return cartID, ps, err
	}
	var tx *sql.Tx
	var xtx *sqlx.Tx
	var err error
	if s.api == apiSQLX {
		if xtx, err = s.x.BeginTxx(ctx, nil); err == nil {
			tx = xtx.Tx
		}
	} else {
		tx, err = s.db.BeginTx(ctx, nil)
	}
	if err != nil {
		return 0, nil, err
	}
	defer tx.Rollback()
	var ps []P
	if xtx != nil {
		err = xtx.SelectContext(ctx, &ps, basketSQL, ids[0], ids[1], ids[2])
	} else {
		ps, err = queryAll[P, PP](ctx, tx, basketSQL, ids[0], ids[1], ids[2])
	}
	if err != nil {
		return 0, nil, err
	}
	var cartID int64
	if err := tx.QueryRowContext(ctx, "insert into carts (customer_id, total) values ($1, 0) returning id", customer).Scan(&cartID); err != nil {
		return 0, nil, err
	}
	for i := range ps {
		if _, err := tx.ExecContext(ctx, "insert into cart_lines (cart_id, product_id, qty, price) values ($1, $2, $3, $4)",
			cartID, ids[i], i+1, PP(&ps[i]).unitPrice()); err != nil {
			return 0, nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, "update carts set total = (select sum(qty * price) from cart_lines where cart_id = $1) where id = $1", cartID); err != nil {
		return 0, nil, err
	}
	return cartID, ps, tx.Commit()
}

// queryAll runs query on q and scans every row into a new P.
func queryAll[P any, PP product[P]](ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]P, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ps []P
	for rows.Next() {
		var p P
		if err := rows.Scan(PP(&p).ptrs()...); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, rows.Err()
}

// appTypes names the row types the service is written with: the texts an
// application written for pgx stdlib holds ("plain"), or pgcache's Decimal
// and Hstore ("pgcache").
var appTypes = []string{"plain", "pgcache"}

// appScenario runs every operation of the service twice (the second pass
// reads what the first put in pgcache's cache) and records what it read.
func appScenario[P any, L any, PP product[P], LP lineOf[L]](t *testing.T, api, driverName, dsn string, lines int) record {
	var r record
	ctx := testContext(t)
	s := openService[P, L, PP, LP](t, api, driverName, dsn)
	for pass := range 2 {
		for _, offset := range []int{0, 1500, catalogSize - pageSize} {
			ps, err := s.page(ctx, offset)
			if err != nil {
				t.Fatalf("%s page %d: %v", api, offset, err)
			}
			if len(ps) != pageSize {
				t.Fatalf("%s page %d: %d rows, want %d", api, offset, len(ps), pageSize)
			}
			for _, p := range ps {
				r.Add("page %d: %v", offset, any(p))
			}
		}
		for _, id := range []int64{1, 7, 21, catalogSize} {
			p, err := s.get(ctx, id)
			if err != nil {
				t.Fatalf("%s get %d: %v", api, id, err)
			}
			r.Add("get %d: %v", id, any(p))
		}
		n := 0
		if err := s.report(ctx, lines, func(l *L) {
			n++
			r.Add("report: %v", any(*l))
		}); err != nil {
			t.Fatalf("%s report: %v", api, err)
		}
		if n != lines {
			t.Fatalf("%s report: %d rows, want %d", api, n, lines)
		}
		id, ps, err := s.placeOrder(ctx, int64(100+pass), [3]int64{3, 14, 15})
		if err != nil {
			t.Fatalf("%s placeOrder: %v", api, err)
		}
		for _, p := range ps {
			r.Add("order %d: %v", id, any(p))
		}
		var total string
		if err := s.db.QueryRowContext(ctx, "select total from carts where id = $1", id).Scan(&total); err != nil {
			t.Fatal(err)
		}
		r.Add("order %d total %s", id, total)
	}
	return r
}

// TestApp: the catalog and orders service, through database/sql, sqlx and
// GORM and with plain or pgcache types, reads the same pages, lookups,
// report rows and order totals through pgcache as through pgx stdlib, and
// the pgcache runs hit the cache. lib/pq runs the same service (its values
// are lib/pq's own and not compared).
func TestApp(t *testing.T) {
	const lines = 2000
	for _, api := range []string{apiSQL, apiSQLX, apiGORM} {
		for _, types := range appTypes {
			t.Run("api="+api+"/types="+types, func(t *testing.T) {
				run := func(t *testing.T, driverName, dsn string) record {
					loadAppInto(t, dsn, lines)
					if types == "plain" {
						return appScenario[plainProduct, plainLine](t, api, driverName, dsn, lines)
					}
					return appScenario[typedProduct, typedLine](t, api, driverName, dsn, lines)
				}
				numeric, hstore := compareDrivers(t, run)
				requireHits(t, "numeric", numeric)
				requireHits(t, "hstore", hstore)
				t.Run("pq", func(t *testing.T) {
					if got := run(t, drvPq, hstoreDatabase(t)); len(got) == 0 {
						t.Fatal("lib/pq: the scenario recorded nothing")
					}
				})
			})
		}
	}
}
