// Command pgcache-bench measures how much client time and memory pgcache
// saves reading numeric and hstore columns and rows of mixed columns, against
// pgx's database/sql driver, lib/pq, pgcache with its cache off, and native
// pgx.
//
// With no arguments it starts a throwaway PostgreSQL server (see
// internal/pgtest), loads the benchmark data sets, measures every driver and
// destination over six interleaved rounds and prints a table of medians per
// data set:
//
//	go run ./bench/cmd/pgcache-bench
//
// Flags:
//
//	-dsn DSN      use this server instead of starting one; nothing is written
//	              to it unless -load is given
//	-load         (with -dsn) create or replace the data set tables
//	-query SQL    measure this read-only query instead of the data sets
//	-rounds N     rounds of measurements to take medians over (default 6)
//	-rows N       scale every data set to N rows, for a quick run
//	-data LIST    comma-separated data sets (default all)
//	-dests LIST   comma-separated destinations (default the main ones)
//	-drivers LIST comma-separated drivers (default all; pgx is the baseline)
//	-markdown     print GitHub tables
//	-summary      print the headline comparisons only, not the tables
//	-svg FILE     also write the results as an SVG bar chart to FILE
//	-cpuprofile F write a CPU profile of the measured rounds to F
//	-pace         also measure the server's pace: the CPU its backend spends a
//	              value producing each data set's rows (a server on this machine)
//
// It first says how long the run will take (estimated from the data sets,
// the cells and -rounds) and what each driver and destination name in the
// tables means. Every figure is per value read (rows × columns). "CPU" is the user plus
// system time of this process (getrusage), garbage collection included, and
// not the server's. See bench/README.md for how to read the tables.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgcache/pgcache"
	"github.com/pgcache/pgcache/bench"
	"github.com/pgcache/pgcache/internal/pgtest"
)

type config struct {
	dsn        string
	load       bool
	query      string
	rounds     int
	rows       int
	data       string
	dests      string
	drivers    string
	markdown   bool
	summary    bool
	cpuprofile string
	svg        string
	minTime    time.Duration
	pace       bool
}

// mainDests are the destinations measured by default: what database/sql users
// scan into, the RawBytes floor, pgcache's types, and each column of the mixed
// data sets into its natural Go type (and, on shop, numeric and hstore into
// decimal and map types). map[string]string applies on Go 1.27 only.
var mainDests = []bench.Dest{
	bench.RawBytes, bench.String, bench.Any, bench.Float64, bench.ApdDecimal, bench.ShopspringDec,
	bench.PgtypeNumeric, bench.PgcacheDecimal, bench.PgtypeHstore, bench.PgcacheHstore,
	bench.StringMap, bench.Natural, bench.Typed, bench.PgcacheTyped,
}

func main() {
	var cfg config
	flag.StringVar(&cfg.dsn, "dsn", "", "PostgreSQL `DSN` (URL or keyword/value) to use instead of a throwaway server")
	flag.BoolVar(&cfg.load, "load", false, "with -dsn: create or replace the data set tables")
	flag.StringVar(&cfg.query, "query", "", "measure this read-only `SQL` query instead of the data sets")
	flag.IntVar(&cfg.rounds, "rounds", 6, "measurement `rounds`; figures are medians over them")
	flag.IntVar(&cfg.rows, "rows", 0, "scale every data set to `N` rows (0: full size)")
	flag.StringVar(&cfg.data, "data", "", "comma-separated data `sets` to run (default all)")
	flag.StringVar(&cfg.dests, "dests", "", "comma-separated `destinations` (default "+joinDests(mainDests)+")")
	flag.StringVar(&cfg.drivers, "drivers", "", "comma-separated `drivers` (default all; keep pgx, the baseline)")
	flag.BoolVar(&cfg.markdown, "markdown", false, "print GitHub Markdown tables")
	flag.BoolVar(&cfg.summary, "summary", false, "print the headline comparisons of each data set only, not the tables")
	flag.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write a CPU profile of the measured rounds to `file`")
	flag.StringVar(&cfg.svg, "svg", "", "also write the results as an SVG bar chart to `file`")
	flag.BoolVar(&cfg.pace, "pace", false, "also measure the server's pace: its backend's CPU a value for each data set (server on this machine only)")
	flag.DurationVar(&cfg.minTime, "mintime", 100*time.Millisecond, "least `time` one measurement takes (short scans are repeated)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: pgcache-bench [flags]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || cfg.rounds < 1 || cfg.rows < 0 || (cfg.load && cfg.dsn == "") {
		flag.Usage()
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		clearProgress()
		fmt.Fprintln(os.Stderr, "pgcache-bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg config) (err error) {
	sets, err := selectSets(cfg)
	if err != nil {
		return err
	}
	dests, err := selectDests(cfg.dests)
	if err != nil {
		return err
	}
	drivers, err := selectDrivers(cfg.drivers)
	if err != nil {
		return err
	}

	dsn := cfg.dsn
	if dsn == "" {
		notice("starting PostgreSQL")
		var stopServer func()
		dsn, stopServer, err = pgtest.Open(ctx)
		if err != nil {
			return err
		}
		defer stopServer()
		cfg.load = true
	}

	if cfg.query == "" || cfg.load {
		if cfg.load {
			err = bench.Load(ctx, dsn, sets, notice)
		} else {
			err = bench.Check(ctx, dsn, sets)
			if err != nil {
				err = fmt.Errorf("%w\n(run with -load to create the data set tables, or -rows to match the loaded size)", err)
			}
		}
		if err != nil {
			return err
		}
	}

	env, err := bench.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer env.Close()
	// A driver that cannot connect is left out, not fatal: lib/pq, say,
	// refuses DSNs pgx accepts. The line goes with the tables.
	var skipped []string
	for _, drv := range bench.Drivers {
		if err, ok := env.Unavailable()[drv]; ok && slices.Contains(drivers, drv) {
			skipped = append(skipped, fmt.Sprintf("pgcache-bench: skipping driver %s: cannot connect: %v", drv, err))
			drivers = slices.DeleteFunc(drivers, func(d bench.Driver) bool { return d == drv })
		}
	}

	preamble, err := printPreamble(ctx, dsn, cfg)
	if err != nil {
		return err
	}
	for _, line := range skipped {
		fmt.Fprintln(os.Stderr, line)
		fmt.Printf("%s\n\n", line)
	}
	start := time.Now()
	defer func() {
		if err == nil {
			notice(fmt.Sprintf("done in %s", time.Since(start).Round(time.Second)))
			clearProgress()
		}
	}()
	setCells := make([][]bench.Cell, len(sets))
	var work []bench.Planned
	if cfg.query != "" {
		var cells []bench.Cell
		for _, c := range bench.QueryCells() {
			if slices.Contains(drivers, c.Driver) {
				cells = append(cells, c)
			}
		}
		work = append(work, bench.Planned{Cells: len(cells)})
	} else {
		for i, d := range sets {
			for _, c := range d.Cells() {
				if slices.Contains(dests, c.Dest) && slices.Contains(drivers, c.Driver) {
					setCells[i] = append(setCells[i], c)
				}
			}
			work = append(work, bench.Planned{Cells: len(setCells[i]), Values: d.Values()})
		}
	}
	printPlan(cfg, work, drivers, dests)
	var reports []bench.Report
	if cfg.svg != "" {
		defer func() {
			if err == nil {
				err = writeSVG(cfg.svg, preamble, reports)
			}
		}()
	}

	if cfg.cpuprofile != "" {
		f, err := os.Create(cfg.cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}

	if cfg.query != "" {
		w, err := env.QueryWorkload(ctx, cfg.query)
		if err != nil {
			return err
		}
		var cells []bench.Cell
		for _, c := range bench.QueryCells() {
			if slices.Contains(drivers, c.Driver) {
				cells = append(cells, c)
			}
		}
		title := fmt.Sprintf("query: %s (%d columns: %s)", cfg.query, len(w.Kinds), kindsSummary(w.Kinds))
		r, err := measure(ctx, env, cfg, w, cells, title, bench.Other)
		reports = append(reports, r)
		if err != nil {
			return err
		}
		printPace(ctx, dsn, cfg, w)
		// What the back-off remembers of the query's cached columns after
		// a few reads from an empty cache: the ones it bypasses start the
		// next result sets of this query uncached.
		for _, c := range cells {
			if c.Driver != bench.Pgcache {
				continue
			}
			pgcache.ResetCache()
			for range 3 {
				if _, err := env.Scan(ctx, c, w); err != nil {
					return err
				}
			}
			if b := pgcache.Stats().Backoff; b.Columns > 0 {
				fmt.Printf("\nAfter three reads the reuse back-off remembers %d of the query's columns: %d bypassed (judged not to pay), %d cached.\n",
					b.Columns, b.Skipping, b.Columns-b.Skipping)
			}
			break
		}
		// What each column would get, with and without pgcache_types.
		notice("reading each column on its own")
		cols := env.ColumnReports(ctx, w)
		fmt.Println()
		fmt.Println("Per column (second read from an empty cache; hits over all values):")
		fmt.Println()
		if err := bench.WriteColumnReports(os.Stdout, cols, cfg.markdown); err != nil {
			return err
		}
		fmt.Println()
		return bench.WriteRecommendation(os.Stdout, bench.Recommend(cols))
	}
	for i, d := range sets {
		cells := setCells[i]
		title := fmt.Sprintf("data=%s: %s (%d rows × %d %s columns = %d values per scan)",
			d.Name, d.Models, d.Rows, len(d.Columns), d.Kind, d.Values())
		r, err := measure(ctx, env, cfg, d.Workload(), cells, title, d.Kind)
		if err != nil {
			return err
		}
		reports = append(reports, r)
		printPace(ctx, dsn, cfg, d.Workload())
	}
	return nil
}

// printPace prints, with -pace, how fast the server produces w's rows
// (bench.ServerPace), or why it cannot be measured: a server on another
// machine.
func printPace(ctx context.Context, dsn string, cfg config, w bench.Workload) {
	if !cfg.pace {
		return
	}
	progress(w.Name + ": the server's pace")
	p, err := bench.ServerPace(ctx, dsn, w, max(cfg.minTime, time.Second))
	clearProgress()
	if err != nil {
		fmt.Printf("  %v\n\n", err)
		return
	}
	fmt.Printf("  %s\n\n", p)
}

func measure(ctx context.Context, env *bench.Env, cfg config, w bench.Workload, cells []bench.Cell, title string, kind bench.Kind) (bench.Report, error) {
	r := bench.Run{
		Env:      env,
		Workload: w,
		Cells:    cells,
		Rounds:   cfg.rounds,
		MinTime:  cfg.minTime,
		Progress: func(round int, c bench.Cell) {
			what := fmt.Sprintf("round %d/%d", round, cfg.rounds)
			if round == 0 {
				what = "warm-up"
			}
			progress(fmt.Sprintf("%s: %s, %s", w.Name, what, c))
		},
	}
	results, err := r.Do(ctx)
	clearProgress()
	if err != nil {
		return bench.Report{}, err
	}
	rep := bench.Report{Title: title, Kind: kind, Results: results, Markdown: cfg.markdown, Summary: cfg.summary}
	_, err = rep.WriteTo(os.Stdout)
	return rep, err
}

// writeSVG writes the chart of reports to path, with the preamble (Go,
// machine and server versions) under its title.
func writeSVG(path, preamble string, reports []bench.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	subtitle := strings.TrimPrefix(preamble, "pgcache-bench: ")
	if err := bench.WriteSVG(f, "pgcache-bench: client CPU per value read", subtitle, reports); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	notice("wrote " + path)
	return nil
}

func selectSets(cfg config) ([]bench.DataSet, error) {
	var sets []bench.DataSet
	if cfg.data == "" {
		sets = bench.DataSets()
	} else {
		for name := range strings.SplitSeq(cfg.data, ",") {
			d, ok := bench.LookupDataSet(strings.TrimSpace(name))
			if !ok {
				var names []string
				for _, d := range bench.DataSets() {
					names = append(names, d.Name)
				}
				return nil, fmt.Errorf("unknown data set %q (have %s)", name, strings.Join(names, ", "))
			}
			sets = append(sets, d)
		}
	}
	for i := range sets {
		sets[i] = sets[i].WithRows(cfg.rows)
	}
	return sets, nil
}

func selectDests(list string) ([]bench.Dest, error) {
	if list == "" {
		return mainDests, nil
	}
	all := append(bench.Dests(bench.Numeric), bench.Dests(bench.Hstore)...)
	for _, d := range bench.DataSets() {
		all = append(all, d.Dests()...)
	}
	var dests []bench.Dest
	for name := range strings.SplitSeq(list, ",") {
		d := bench.Dest(strings.TrimSpace(name))
		if !slices.Contains(all, d) {
			return nil, fmt.Errorf("unknown destination %q (have %s)", name, joinDests(all))
		}
		dests = append(dests, d)
	}
	return dests, nil
}

func selectDrivers(list string) ([]bench.Driver, error) {
	if list == "" {
		return bench.Drivers, nil
	}
	var drivers []bench.Driver
	for name := range strings.SplitSeq(list, ",") {
		d := bench.Driver(strings.TrimSpace(name))
		if !slices.Contains(bench.Drivers, d) {
			return nil, fmt.Errorf("unknown driver %q (have %v)", name, bench.Drivers)
		}
		drivers = append(drivers, d)
	}
	return drivers, nil
}

func joinDests(ds []bench.Dest) string {
	var s []string
	for _, d := range ds {
		if !slices.Contains(s, string(d)) {
			s = append(s, string(d))
		}
	}
	return strings.Join(s, ",")
}

func kindsSummary(kinds []bench.Kind) string {
	n := map[bench.Kind]int{}
	for _, k := range kinds {
		n[k]++
	}
	var parts []string
	for _, k := range []bench.Kind{bench.Numeric, bench.Hstore, bench.Other} {
		if n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
		}
	}
	return strings.Join(parts, ", ")
}

// printPreamble says what was measured where (Go version included), so a
// pasted table carries its context, and returns that line.
func printPreamble(ctx context.Context, dsn string, cfg config) (string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var version string
	if err := conn.QueryRow(ctx, "show server_version").Scan(&version); err != nil {
		return "", err
	}
	server := "throwaway server on a Unix socket"
	if cfg.dsn != "" {
		server = "server given by -dsn"
	}
	line := fmt.Sprintf("pgcache-bench: %s %s/%s, GOMAXPROCS=%d, %d CPUs; PostgreSQL %s (%s); medians of %d rounds",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU(), version, server, cfg.rounds)
	fmt.Printf("%s\n\n", line)
	return line, nil
}

// printPlan says on stdout how long the measuring takes and what the names
// in the tables mean, and the estimate on stderr too, for a run whose
// stdout goes to a file.
func printPlan(cfg config, work []bench.Planned, drivers []bench.Driver, dests []bench.Dest) {
	low, high := bench.Estimate(work, cfg.rounds, cfg.minTime)
	cells := 0
	for _, w := range work {
		cells += w.Cells
	}
	var line string
	if cfg.query != "" {
		line = fmt.Sprintf("Measuring %d cells × %d rounds: at least %s, longer the more rows the query returns; then each column on its own.",
			cells, cfg.rounds, max(low, time.Second).Round(time.Second))
	} else {
		line = fmt.Sprintf("Measuring %d cells over %d data sets × %d rounds: %s on a 2-core machine (the upper end when it is busy), "+
			"after loading any table not loaded yet.", cells, len(work), cfg.rounds, bench.FormatEstimate(low, high))
	}
	notice(line)
	clearProgress()
	if cfg.query != "" {
		dests = []bench.Dest{bench.RawBytes, bench.Any, bench.PgcacheTypes}
	}
	fmt.Printf("%s\n\nNames in the tables:\n\n", line)
	for _, l := range bench.FormatLegend(bench.Legend(drivers, dests), cfg.markdown) {
		fmt.Println(l)
	}
	fmt.Println()
}

// The progress line is rewritten in place on a terminal; elsewhere (a CI log,
// a redirected stderr) each message gets a line of its own.
var (
	stderrIsTerminal = func() bool {
		fi, err := os.Stderr.Stat()
		return err == nil && fi.Mode()&os.ModeCharDevice != 0
	}()
	progressShown bool
	lastProgress  time.Time
)

func progress(msg string) {
	if !stderrIsTerminal {
		// One line per measurement would flood a log: print at most every 10 s.
		if time.Since(lastProgress) >= 10*time.Second {
			notice(msg)
		}
		return
	}
	fmt.Fprintf(os.Stderr, "\r\033[K%s", msg)
	progressShown = true
}

// notice is progress that is never skipped.
func notice(msg string) {
	if !stderrIsTerminal {
		fmt.Fprintln(os.Stderr, "pgcache-bench:", msg)
		lastProgress = time.Now()
		return
	}
	fmt.Fprintf(os.Stderr, "\r\033[K%s", msg)
	progressShown = true
}

func clearProgress() {
	if progressShown {
		fmt.Fprint(os.Stderr, "\r\033[K")
		progressShown = false
	}
}
