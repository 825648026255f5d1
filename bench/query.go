package bench

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"
)

// QueryWorkload describes a user's query for measuring: every column is read
// into *any, and numeric and hstore columns also into pgcache's types (see
// [QueryCells]). It learns the column types by preparing query on the pgx
// connection, which does not run it, and marks the workload ReadOnly, so
// [Env.Scan] runs it inside a READ ONLY transaction and the server refuses
// anything that writes.
func (e *Env) QueryWorkload(ctx context.Context, query string) (Workload, error) {
	sd, err := e.native.Prepare(ctx, "", query)
	if err != nil {
		return Workload{}, fmt.Errorf("bench: preparing the query: %w", err)
	}
	if len(sd.ParamOIDs) > 0 {
		return Workload{}, fmt.Errorf("bench: the query has %d parameters; inline them", len(sd.ParamOIDs))
	}
	if len(sd.Fields) == 0 {
		return Workload{}, fmt.Errorf("bench: the query returns no columns")
	}
	var hstoreOID uint32
	if t, ok := e.native.TypeMap().TypeForName("hstore"); ok {
		hstoreOID = t.OID
	}
	w := Workload{Name: "query", Query: query, ReadOnly: true, Kind: Other}
	for _, f := range sd.Fields {
		switch {
		case f.DataTypeOID == pgtype.NumericOID:
			w.Kinds = append(w.Kinds, Numeric)
		case hstoreOID != 0 && f.DataTypeOID == hstoreOID:
			w.Kinds = append(w.Kinds, Hstore)
		default:
			w.Kinds = append(w.Kinds, Other)
		}
	}
	return w, nil
}

// QueryCells returns the cells measured for a user's query: every driver
// reading into [RawBytes], [Any] and [PgcacheTypes].
func QueryCells() []Cell {
	var cells []Cell
	for _, dest := range Dests(Other) {
		for _, drv := range Drivers {
			cells = append(cells, Cell{drv, dest})
		}
	}
	return cells
}
