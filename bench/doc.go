// Package bench measures pgcache against the drivers people would otherwise
// use. It is shared by the Go benchmarks in this directory and by the
// pgcache-bench command, so both report figures from the same data, the same
// scan loops and the same arithmetic.
//
//	env, err := bench.Open(ctx, dsn) // one connection per Driver
//	d, _ := bench.LookupDataSet("repetitive")
//	err = bench.Load(ctx, dsn, []bench.DataSet{d}, nil)
//	n, err := env.Scan(ctx, bench.Cell{Driver: bench.Pgcache, Dest: bench.PgcacheDecimal}, d.Workload())
//
// # Data sets
//
// [DataSets] are deterministic tables (fixed seed, fixed generators) that
// model repetitive and worst-case numeric and hstore columns, and rows of
// mixed columns (TPC-H's order lines, a shop's order rows) read into the
// types applications already have. [Load] creates them once per server with
// COPY and marks each with a version comment; [Check] verifies them without
// writing.
//
// # Cells
//
// A [Cell] is a [Driver] reading into a [Dest]. [Env.Scan] runs a
// [Workload]'s query once through a cell and returns the number of values
// read. [Measure] times repeated scans (wall time, process CPU time from
// getrusage, heap allocations, pgcache cache traffic), and a [Run]
// interleaves cells over rounds so that their medians can be compared.
// [ServerPace] measures the other side: the CPU the server's backend
// spends a value producing a workload's rows.
//
// Nothing here is safe for concurrent use: an [Env] has one connection per
// driver, and measurements of one process's CPU time and allocations must
// not overlap.
package bench
