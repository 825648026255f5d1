package integration

import (
	"context"
	"database/sql"
	"testing"

	"github.com/pgcache/pgcache"
)

// The code below is shaped as sqlc generates it for database/sql
// (sql_package: database/sql, with an override of numeric to
// pgcache.Decimal and pgcache.NullDecimal): a DBTX interface that *sql.DB,
// *sql.Conn and *sql.Tx satisfy, a Queries struct over it, one method per
// query. Nothing in it knows which driver is underneath.

type DBTX interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
	PrepareContext(context.Context, string) (*sql.Stmt, error)
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

func New(db DBTX) *Queries { return &Queries{db: db} }

type Queries struct{ db DBTX }

func (q *Queries) WithTx(tx *sql.Tx) *Queries { return &Queries{db: tx} }

type Item struct {
	ID       int64
	Name     string
	Price    pgcache.Decimal
	Discount pgcache.NullDecimal
	Attrs    pgcache.Hstore
}

const getItem = `-- name: GetItem :one
select id, name, price, discount, attrs from items where id = $1
`

func (q *Queries) GetItem(ctx context.Context, id int64) (Item, error) {
	row := q.db.QueryRowContext(ctx, getItem, id)
	var i Item
	err := row.Scan(&i.ID, &i.Name, &i.Price, &i.Discount, &i.Attrs)
	return i, err
}

const listItemsAbove = `-- name: ListItemsAbove :many
select id, name, price, discount, attrs from items where price > $1 order by id
`

func (q *Queries) ListItemsAbove(ctx context.Context, price pgcache.Decimal) ([]Item, error) {
	rows, err := q.db.QueryContext(ctx, listItemsAbove, price)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var items []Item
	for rows.Next() {
		var i Item
		if err := rows.Scan(&i.ID, &i.Name, &i.Price, &i.Discount, &i.Attrs); err != nil {
			return nil, err
		}
		items = append(items, i)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return items, nil
}

const setPrice = `-- name: SetPrice :execrows
update items set price = $2 where id = $1
`

type SetPriceParams struct {
	ID    int64
	Price pgcache.Decimal
}

func (q *Queries) SetPrice(ctx context.Context, arg SetPriceParams) (int64, error) {
	result, err := q.db.ExecContext(ctx, setPrice, arg.ID, arg.Price)
	if err != nil {
		return 0, err
	}
	return result.RowsAffected()
}

// TestSQLC runs sqlc-shaped queries on a *sql.DB, inside a transaction and
// through prepared statements (sqlc's emit_prepared_queries prepares them
// once with PrepareContext), through both drivers.
func TestSQLC(t *testing.T) {
	numeric, _ := compareDrivers(t, func(t *testing.T, driverName, dsn string) record {
		var r record
		ctx := testContext(t)
		db := openDB(t, driverName, dsn)
		mustExec(t, db, seedSQL)
		q := New(db)

		for range 2 {
			items, err := q.ListItemsAbove(ctx, mustDecimal(t, "5"))
			if err != nil {
				t.Fatal(err)
			}
			r.Add("above 5: %d items, first %d %s %v", len(items), items[0].ID, items[0].Price, items[0].Discount)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, err := q.WithTx(tx).SetPrice(ctx, SetPriceParams{ID: 4, Price: mustDecimal(t, "123.40")})
		if err != nil {
			t.Fatal(err)
		}
		it, err := q.WithTx(tx).GetItem(ctx, 4)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		r.Add("set price: %d row, now %s %s %s", n, it.Name, it.Price, it.Attrs)

		stmt, err := db.PrepareContext(ctx, getItem)
		if err != nil {
			t.Fatal(err)
		}
		defer stmt.Close()
		for _, id := range []int64{1, 2, 3, 1, 2, 3} {
			var i Item
			if err := stmt.QueryRowContext(ctx, id).Scan(&i.ID, &i.Name, &i.Price, &i.Discount, &i.Attrs); err != nil {
				t.Fatal(err)
			}
			r.Add("prepared: %d %s %v %s", i.ID, i.Price, i.Discount, i.Attrs)
		}
		if _, err := q.GetItem(ctx, 999); err != sql.ErrNoRows {
			t.Fatalf("GetItem(999) = %v, want sql.ErrNoRows", err)
		}
		return r
	})
	requireHits(t, "numeric", numeric)
}
