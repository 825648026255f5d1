package integration

import (
	"fmt"

	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"

	"github.com/pgcache/pgcache"
)

// sqlx knows the bind style of "pgx" but not of "pgcache": without this,
// Rebind and the Named* functions would leave '?' and ':name' for the server.
func init() { sqlx.BindDriver(pgcache.DriverName, sqlx.DOLLAR) }

// sqlxItem scans one numeric column into every destination type users pick.
type sqlxItem struct {
	ID        int64               `db:"id"`
	Name      string              `db:"name"`
	AsString  string              `db:"as_string"`
	AsFloat   float64             `db:"as_float"`
	AsDecimal pgcache.Decimal     `db:"as_decimal"`
	Discount  pgcache.NullDecimal `db:"discount"`
	AsShop    decimal.Decimal     `db:"as_shop"`
	Attrs     pgcache.Hstore      `db:"attrs"`
	Extra     pgcache.NullHstore  `db:"extra"`
}

func (it sqlxItem) String() string {
	return fmt.Sprintf("%d %s %s %v %s %v/%s %s %s %v/%s", it.ID, it.Name, it.AsString, it.AsFloat, it.AsDecimal,
		it.Discount.Valid, it.Discount.Decimal, it.AsShop, it.Attrs, it.Extra.Valid, it.Extra.Hstore)
}

const sqlxColumns = `id, name, price as as_string, price as as_float, price as as_decimal, discount,
	price as as_shop, attrs, extra`

// TestSQLX: struct scanning with Select and Get, NamedExec and NamedQuery
// with pgcache's types as arguments, and In + Rebind, give the same results
// through both drivers, and the pgcache run hits the cache.
func TestSQLX(t *testing.T) {
	numeric, hstore := compareDrivers(t, func(t *testing.T, driverName, dsn string) record {
		var r record
		db := sqlx.NewDb(openDB(t, driverName, dsn), driverName)
		ctx := testContext(t)
		mustExec(t, db, seedSQL)

		var all []sqlxItem
		for range 2 { // the second pass reads from the cache
			if err := db.SelectContext(ctx, &all, "select "+sqlxColumns+" from items order by id"); err != nil {
				t.Fatal(err)
			}
		}
		for _, it := range all {
			r.Add("select: %s", it)
		}

		var one sqlxItem
		if err := db.GetContext(ctx, &one, "select "+sqlxColumns+" from items where id = $1", 7); err != nil {
			t.Fatal(err)
		}
		r.Add("get: %s", one)

		// NamedExec sends pgcache's types through their driver.Valuer.
		price, err := pgcache.ParseDecimal("12.50")
		if err != nil {
			t.Fatal(err)
		}
		attrs, err := pgcache.ParseHstore(`"color"=>"black", "note"=>NULL`)
		if err != nil {
			t.Fatal(err)
		}
		res, err := db.NamedExecContext(ctx, `insert into items (id, name, price, discount, attrs)
			values (:id, :name, :as_decimal, :discount, :attrs)`,
			sqlxItem{ID: 100, Name: "new", AsDecimal: price, Attrs: attrs})
		if err != nil {
			t.Fatal(err)
		}
		n, _ := res.RowsAffected()
		r.Add("named exec: %d row", n)

		rows, err := db.NamedQueryContext(ctx, "select "+sqlxColumns+" from items where price >= :min order by id",
			map[string]any{"min": price})
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var it sqlxItem
			if err := rows.StructScan(&it); err != nil {
				t.Fatal(err)
			}
			r.Add("named query: %s", it)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()

		q, args, err := sqlx.In("select "+sqlxColumns+" from items where id in (?) order by id", []int64{2, 3, 5, 100})
		if err != nil {
			t.Fatal(err)
		}
		var some []sqlxItem
		if err := db.SelectContext(ctx, &some, db.Rebind(q), args...); err != nil {
			t.Fatal(err)
		}
		for _, it := range some {
			r.Add("in: %s", it)
		}
		return r
	})
	requireHits(t, "numeric", numeric)
	requireHits(t, "hstore", hstore)
}
