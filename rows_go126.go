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

// directRoutes says whether database/sql scans through ScanColumn, whose
// direct routes read numeric and hstore entries from the columns' cells
// (see cell): not before Go 1.27, where Next hands over vals.
const directRoutes = false

// entryValue returns the driver value of column i's cache entry for the
// current row, nil when it has none: vals[i], where vals is r.vals, which
// Next takes once a row.
func (r *Rows) entryValue(i int, vals []sqldriver.Value) sqldriver.Value { return vals[i] }

// column is one result column: its plan, and what the cursor keeps for it.
// (Go 1.27's also remembers its destination's routes; before Go 1.27
// database/sql converts driver values itself.)
type column struct {
	columnPlan
	cell cell // numeric and hstore: the current row's entry (see directRoutes)
}

// numEntry is what the numeric table keeps for one text (see numForms);
// Go 1.27's also holds values its direct routes build.
type numEntry struct{ numForms }
