package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgcache/pgcache/bench"
	"github.com/pgcache/pgcache/internal/pgtest"
)

// TestQueryNulls measures, as pgcache-bench -query does, a table whose
// numeric and hstore columns hold NULLs, and a NOT NULL column made NULL by
// an outer join: every cell is measured. Scanned into pgcache.Decimal and
// pgcache.Hstore, each such cell reported "cannot scan NULL into
// *pgcache.Decimal" and was left out.
func TestQueryNulls(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dsn := pgtest.Database(t)
	if err := bench.CreateHstore(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, stmt := range []string{
		`create table orders (id int8 primary key, total numeric(10,2) not null, discount numeric(4,2), attrs hstore, tags hstore not null)`,
		`insert into orders select i, (i % 9) * 1.5, case when i % 3 = 0 then (i % 4) * 0.25 end,
			case when i % 4 > 0 then hstore('color', (array['red', 'blue'])[i % 2 + 1]) end, hstore('k', (i % 5)::text)
			from generate_series(1, 3000) i`,
		`create table notes (order_id int8 not null, amount numeric(6,2) not null)`,
		`insert into notes select i, i % 7 from generate_series(1, 3000, 10) i`,
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	env, err := bench.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for _, query := range []string{
		"select id, total, discount, attrs, tags from orders",
		"select o.id, n.amount from orders o left join notes n on n.order_id = o.id",
	} {
		t.Run(query, func(t *testing.T) {
			w, err := env.QueryWorkload(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			var cells []bench.Cell
			for _, c := range bench.QueryCells() {
				if _, down := env.Unavailable()[c.Driver]; !down {
					cells = append(cells, c)
				}
			}
			results, err := bench.Run{Env: env, Workload: w, Cells: cells, Rounds: 1, MinTime: time.Millisecond}.Do(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range results {
				if r.Err != nil {
					t.Errorf("%s: not measured: %v", r.Cell, r.Err)
				} else if len(r.Samples) == 0 || r.Samples[0].Values == 0 {
					t.Errorf("%s: read no values", r.Cell)
				}
			}
		})
	}
}
