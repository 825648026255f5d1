package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Pace is how fast the server produces a workload's rows: the CPU time its
// backend spends a value, and the wall time a value takes to arrive at a
// client that decodes nothing. A driver whose client CPU a value nears the
// server's is paced by the server: it waits for each batch of rows, and
// what the Go runtime spends waiting (its scheduler's spinning, a park and
// a wake-up for each batch) counts as client CPU, so that below that point
// fewer instructions a value no longer buy less CPU.
type Pace struct {
	ServerCPU float64 // ns a value, the server backend's CPU time
	Wall      float64 // ns a value, reading with pgconn and decoding nothing
	Values    int     // values read in the timed reads
}

// ServerPace reads w's query over one pgconn connection of dsn until
// minTime has passed (at least twice, the first read untimed; a query
// that returns no rows gives a Pace of no values and zero figures), with the
// result formats pgx stdlib asks for and nothing decoded, and measures the
// server backend's CPU time from its /proc/PID/schedstat: the server must
// run on this machine, under Linux. A workload marked ReadOnly is read in a
// READ ONLY transaction, as [Env.Scan] does.
func ServerPace(ctx context.Context, dsn string, w Workload, minTime time.Duration) (Pace, error) {
	c, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		return Pace{}, err
	}
	defer c.Close(context.Background())
	if _, err := backendCPU(c.PID()); err != nil {
		return Pace{}, fmt.Errorf("server pace: the server's process is not readable on this machine: %w", err)
	}
	// A named statement: a simple query (a ReadOnly workload's begin)
	// drops the unnamed one.
	const stmt = "pgcache_bench_pace"
	sd, err := c.Prepare(ctx, stmt, w.Query, nil)
	if err != nil {
		return Pace{}, fmt.Errorf("server pace: %w", err)
	}
	m := pgtype.NewMap()
	formats := make([]int16, len(sd.Fields))
	for i, f := range sd.Fields {
		formats[i] = m.FormatCodeForOID(f.DataTypeOID)
	}
	read := func() (int, error) {
		if w.ReadOnly {
			if err := c.Exec(ctx, "begin read only").Close(); err != nil {
				return 0, err
			}
			defer func() { c.Exec(ctx, "rollback").Close() }()
		}
		rr := c.ExecPrepared(ctx, stmt, nil, nil, formats)
		n := 0
		for rr.NextRow() {
			n += len(rr.Values())
		}
		_, err := rr.Close()
		return n, err
	}
	if _, err := read(); err != nil { // the table into the server's buffers
		return Pace{}, fmt.Errorf("server pace: %w", err)
	}
	cpu0, err := backendCPU(c.PID())
	if err != nil {
		return Pace{}, err
	}
	t0 := time.Now()
	var p Pace
	for first := true; first || time.Since(t0) < minTime; first = false {
		n, err := read()
		if err != nil {
			return Pace{}, fmt.Errorf("server pace: %w", err)
		}
		p.Values += n
	}
	wall := time.Since(t0)
	cpu1, err := backendCPU(c.PID())
	if err != nil {
		return Pace{}, err
	}
	if p.Values == 0 { // no rows: no figure a value
		return p, nil
	}
	v := float64(p.Values)
	p.ServerCPU = float64((cpu1 - cpu0).Nanoseconds()) / v
	p.Wall = float64(wall.Nanoseconds()) / v
	return p, nil
}

// String says what p measured, for pgcache-bench.
func (p Pace) String() string {
	if p.Values == 0 {
		return "server pace: the query returned no values"
	}
	return fmt.Sprintf("server pace: the PostgreSQL backend takes %.1f ns of CPU a value to produce these rows; read with pgconn, decoding nothing, a value arrives every %.1f ns",
		p.ServerCPU, p.Wall)
}
