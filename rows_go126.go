//go:build !go1.27

package pgcache

import (
	sqldriver "database/sql/driver"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// planWire is Go 1.27's choice of a column's direct route; database/sql
// before Go 1.27 converts driver values itself and takes none.
func planWire(*pgtype.Map, *pgconn.FieldDescription) wireKind { return wireNone }

// planLazy is Go 1.27's; before it every cached column looks its table up.
func (r *Rows) planLazy() {}

// cellsRead says whether the columns' cells are read (see cell): not
// before Go 1.27.
const cellsRead = false

// entryValue returns the driver value of column i's cache entry for the
// current row, nil when it has none.
func (r *Rows) entryValue(i int) sqldriver.Value { return r.vals[i] }

// routeMemo is Go 1.27's memory of a column's destination; before Go 1.27
// database/sql converts driver values itself.
type routeMemo struct{}
