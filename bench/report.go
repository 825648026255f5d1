package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// Report formats the results of one [Run].
type Report struct {
	Title    string // e.g. "repetitive: 200000 rows × 5 numeric columns"
	Kind     Kind   // of the workload, for hit ratios and headlines
	Results  []Result
	Markdown bool // GitHub tables instead of aligned text
	// Summary leaves the table out: the title, the headline comparisons
	// and the cells not measured only.
	Summary bool
}

// Baseline is the driver every row is compared with.
const Baseline = Pgx

var header = []string{
	"dest", "driver", "ns/value", "CPU ns/value", "allocs/value", "B/value",
	"CPU vs pgx", "wall vs pgx", "cache hits",
}

// WriteTo writes the table: one row per cell, the median of each figure over
// the rounds, and speed-ups against [Baseline] reading into the same
// destination (pgx's figure divided by the cell's: above 1 the cell is
// faster than pgx). Then the headline comparisons for the workload's kind.
// With Summary set, the table is left out.
func (r Report) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	base := make(map[Dest]PerValue)
	for _, res := range r.Results {
		if res.Cell.Driver == Baseline && res.Err == nil {
			base[res.Cell.Dest] = res.Median(r.Kind)
		}
	}
	var rows [][]string
	var failed []string
	for _, res := range r.Results {
		if res.Err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", res.Cell, res.Err))
			continue
		}
		m := res.Median(r.Kind)
		row := []string{
			destLabel(res.Cell), string(res.Cell.Driver),
			fmt.Sprintf("%.1f", m.Wall), fmt.Sprintf("%.1f", m.CPU),
			fmt.Sprintf("%.2f", m.Allocs), fmt.Sprintf("%.1f", m.Bytes),
			"", "", hitLabel(res, r.Kind),
		}
		if b, ok := base[res.Cell.Dest]; ok {
			row[6], row[7] = ratio(b.CPU, m.CPU), ratio(b.Wall, m.Wall)
		}
		rows = append(rows, row)
	}

	switch {
	case r.Summary && r.Markdown:
		fmt.Fprintf(cw, "#### %s\n", r.Title)
	case r.Summary:
		fmt.Fprintf(cw, "%s\n", r.Title)
	case r.Markdown:
		fmt.Fprintf(cw, "#### %s\n\n", r.Title)
		writeMarkdown(cw, header, rows)
	default:
		fmt.Fprintf(cw, "%s\n", r.Title)
		writeAligned(cw, header, rows)
	}
	lines := r.headlines()
	for _, f := range failed {
		lines = append(lines, "not measured: "+f)
	}
	if len(lines) > 0 {
		fmt.Fprintln(cw)
		for _, l := range lines {
			if r.Markdown {
				fmt.Fprintf(cw, "- %s\n", l)
			} else {
				fmt.Fprintf(cw, "  %s\n", l)
			}
		}
	}
	fmt.Fprintln(cw)
	return cw.n, cw.err
}

// writeAligned writes header and rows as aligned text: the two label
// columns (dest, driver) left-aligned, each as wide as its longest entry,
// the figures right-aligned.
func writeAligned(w io.Writer, header []string, rows [][]string) {
	all := append([][]string{header}, rows...)
	var width [2]int
	for _, row := range all {
		for i := range width {
			width[i] = max(width[i], utf8.RuneCountInString(row[i]))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range all {
		fmt.Fprintf(tw, "%s  %s\t%s\t\n", pad(row[0], width[0]), pad(row[1], width[1]), strings.Join(row[2:], "\t"))
	}
	tw.Flush()
}

func pad(s string, n int) string { return s + strings.Repeat(" ", max(n-utf8.RuneCountInString(s), 0)) }

func writeMarkdown(w io.Writer, header []string, rows [][]string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	seps := make([]string, len(header))
	for i := range seps {
		seps[i] = "---:"
		if i < 2 {
			seps[i] = "---"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for _, row := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | "))
	}
}

func destLabel(c Cell) string {
	if c.Driver == Pq && c.Dest == PgtypeHstore {
		return "pq hstore.Hstore"
	}
	if c.Driver == PgxNative && c.Dest == RawBytes {
		return "RawValues"
	}
	return string(c.Dest)
}

// target names what a cell scans into, for prose.
func target(c Cell) string {
	switch c.Dest {
	case PgcacheTypes:
		return "pgcache types"
	case Natural:
		return "natural types"
	case Typed:
		return "natural types, *apd.Decimal, " + target(Cell{c.Driver, PgtypeHstore})
	case PgcacheTyped:
		return "natural types, *pgcache.Decimal, *pgcache.Hstore"
	}
	return "*" + destLabel(c)
}

func hitLabel(res Result, kind Kind) string {
	if res.Cell.Driver != Pgcache && res.Cell.Driver != PgcacheAll {
		return ""
	}
	var bypassed bool
	for _, s := range res.Samples {
		c := s.Cache
		bypassed = bypassed || c.Numeric.Bypasses+c.Hstore.Bypasses > 0
	}
	h := res.Median(kind).HitRatio
	switch {
	case math.IsNaN(h) && bypassed:
		return "bypass"
	case math.IsNaN(h):
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*h)
}

// ratio returns base/x as "2.10×".
func ratio(base, x float64) string {
	if x <= 0 || math.IsNaN(x) || math.IsNaN(base) {
		return ""
	}
	return fmt.Sprintf("%.2f×", base/x)
}

// Compare words what x costs against base in what: "2.10× less client CPU"
// when x is cheaper, "1.05× more client CPU" when it costs more (never
// "0.95× less"), "as much client CPU" when the ratio rounds to 1.00×, and
// "client CPU not measured" when either is missing.
func Compare(base, x float64, what string) string {
	if !(x > 0) || !(base > 0) || math.IsInf(x, 0) || math.IsInf(base, 0) {
		return what + " not measured"
	}
	switch r := base / x; {
	case fmt.Sprintf("%.2f", r) == "1.00":
		return "as much " + what
	case r > 1:
		return fmt.Sprintf("%.2f× less %s", r, what)
	default:
		return fmt.Sprintf("%.2f× more %s", x/base, what)
	}
}

// headlines compares pgcache's typed reads with what users of the other
// drivers scan into instead.
func (r Report) headlines() []string {
	find := func(d Driver, dest Dest) (PerValue, bool) {
		for _, res := range r.Results {
			if res.Cell == (Cell{d, dest}) && res.Err == nil && len(res.Samples) > 0 {
				return res.Median(r.Kind), true
			}
		}
		return PerValue{}, false
	}
	type pair struct{ a, b Cell }
	var pairs []pair
	switch r.Kind {
	case Numeric:
		pairs = []pair{
			{Cell{Pgcache, String}, Cell{Pgx, String}},
			{Cell{Pgcache, PgcacheDecimal}, Cell{Pgx, ApdDecimal}},
			{Cell{Pgcache, PgcacheDecimal}, Cell{Pgx, ShopspringDec}},
			{Cell{Pgcache, PgcacheDecimal}, Cell{PgxNative, PgtypeNumeric}},
			{Cell{Pgcache, String}, Cell{PgcacheOff, String}},
		}
	case Hstore:
		pairs = []pair{
			{Cell{Pgcache, PgcacheHstore}, Cell{Pgx, PgtypeHstore}},
			{Cell{Pgcache, PgcacheHstore}, Cell{PgxNative, PgtypeHstore}},
			{Cell{Pgcache, PgcacheHstore}, Cell{PgcacheOff, PgcacheHstore}},
		}
	case Lines:
		pairs = []pair{
			{Cell{Pgcache, Natural}, Cell{Pgx, Natural}},
			{Cell{PgcacheAll, Natural}, Cell{Pgx, Natural}},
			{Cell{Pgcache, PgcacheTyped}, Cell{Pgx, Typed}},
			{Cell{Pgcache, PgcacheTyped}, Cell{Pgx, Natural}},
		}
	default:
		pairs = []pair{
			{Cell{Pgcache, Any}, Cell{Pgx, Any}},
			{Cell{Pgcache, PgcacheTypes}, Cell{Pgx, Any}},
		}
	}
	var lines []string
	for _, p := range pairs {
		a, ok1 := find(p.a.Driver, p.a.Dest)
		b, ok2 := find(p.b.Driver, p.b.Dest)
		if !ok1 || !ok2 {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s → %s vs %s → %s: %s, %s, %.2f vs %.2f allocs/value",
			p.a.Driver, target(p.a), p.b.Driver, target(p.b), Compare(b.CPU, a.CPU, "client CPU"), Compare(b.Wall, a.Wall, "wall time"), a.Allocs, b.Allocs))
	}
	return lines
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}
