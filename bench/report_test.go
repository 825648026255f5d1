package bench_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pgcache/pgcache/bench"
)

func TestCompare(t *testing.T) {
	for _, tt := range []struct {
		base, x float64
		want    string
	}{
		{210, 100, "2.10× less client CPU"},
		{100, 105, "1.05× more client CPU"}, // never "0.95× less"
		{100, 200, "2.00× more client CPU"},
		{100, 100.2, "as much client CPU"},
		{100.3, 100, "as much client CPU"},
		{0, 100, "client CPU not measured"},
		{100, 0, "client CPU not measured"},
	} {
		if got := bench.Compare(tt.base, tt.x, "client CPU"); got != tt.want {
			t.Errorf("Compare(%v, %v) = %q, want %q", tt.base, tt.x, got, tt.want)
		}
	}
}

// sample is one measurement of n values taking cpu and wall ns per value.
func sample(cpu, wall float64) bench.Sample {
	const n = 1000
	return bench.Sample{Values: n, CPU: time.Duration(cpu * n), Wall: time.Duration(wall * n), Allocs: 2 * n}
}

func lineResults() []bench.Result {
	return []bench.Result{
		{Cell: bench.Cell{Driver: bench.Pgcache, Dest: bench.Natural}, Samples: []bench.Sample{sample(100, 200)}},
		{Cell: bench.Cell{Driver: bench.PgcacheAll, Dest: bench.Natural}, Samples: []bench.Sample{sample(105, 210)}},
		{Cell: bench.Cell{Driver: bench.Pgx, Dest: bench.Natural}, Samples: []bench.Sample{sample(100, 200)}},
		{Cell: bench.Cell{Driver: bench.PgxNative, Dest: bench.RawBytes}, Samples: []bench.Sample{sample(50, 90)}},
		{Cell: bench.Cell{Driver: bench.Pq, Dest: bench.Natural}, Err: errors.New("cannot connect")},
	}
}

// TestReportAligned: the text table's columns line up whatever the length
// of a driver's name (pgcache+types is the longest), a loss is worded as
// "× more", and a cell that failed is listed under the table.
func TestReportAligned(t *testing.T) {
	var b strings.Builder
	if _, err := (bench.Report{Title: "data=shop", Kind: bench.Lines, Results: lineResults()}).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Log("\n" + out)
	lines := strings.Split(out, "\n")
	var table []string
	for _, l := range lines[1:] {
		if l == "" {
			break
		}
		table = append(table, l)
	}
	if len(table) != 5 { // the header and four measured cells
		t.Fatalf("table has %d lines, want 5:\n%s", len(table), out)
	}
	// Every line as long as the header, and the driver column starting
	// and the first figure ending at the same place on each.
	driverAt := strings.Index(table[0], "driver")
	for _, l := range table {
		if len([]rune(l)) != len([]rune(table[0])) {
			t.Errorf("line %q is %d runes wide, the header %d", l, len([]rune(l)), len([]rune(table[0])))
		}
		if l[driverAt-2:driverAt] != "  " || l[driverAt] == ' ' {
			t.Errorf("line %q: driver column not at %d", l, driverAt)
		}
	}
	for _, want := range []string{
		"pgcache+types → natural types vs pgx → natural types: 1.05× more client CPU, 1.05× more wall time",
		"pgcache → natural types vs pgx → natural types: as much client CPU",
		"not measured: pq/natural: cannot connect",
		"RawValues",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "0.95× less") {
		t.Error("a loss is worded as less")
	}
}

// TestReportSummary: with Summary set, the title and the headlines are
// written, the table is not.
func TestReportSummary(t *testing.T) {
	for _, markdown := range []bool{false, true} {
		var b strings.Builder
		r := bench.Report{Title: "data=shop", Kind: bench.Lines, Results: lineResults(), Summary: true, Markdown: markdown}
		if _, err := r.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(out, "CPU ns/value") || strings.Contains(out, "|") {
			t.Errorf("markdown=%v: the summary has the table:\n%s", markdown, out)
		}
		if !strings.Contains(out, "data=shop") || !strings.Contains(out, "pgcache → natural types vs pgx") {
			t.Errorf("markdown=%v: the summary lacks the title or headlines:\n%s", markdown, out)
		}
	}
}

func TestLegend(t *testing.T) {
	for _, tt := range []struct {
		name    string
		drivers []bench.Driver
		dests   []bench.Dest
		want    []string // names, in order
	}{
		{"everything", bench.Drivers, []bench.Dest{bench.RawBytes, bench.Natural, bench.Typed},
			[]string{"pgcache", "pgcache+types", "pgx", "pgcache-off", "pq", "pgx-native", "RawBytes", "RawValues", "natural", "typed"}},
		{"no pgx-native, no RawValues", []bench.Driver{bench.Pgcache, bench.Pgx}, []bench.Dest{bench.RawBytes, bench.String},
			[]string{"pgcache", "pgx", "RawBytes", "string"}},
		{"repeats once", []bench.Driver{bench.Pgx, bench.Pgx}, []bench.Dest{bench.Natural, bench.Natural},
			[]string{"pgx", "natural"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			es := bench.Legend(tt.drivers, tt.dests)
			var names []string
			for _, e := range es {
				names = append(names, e.Name)
				if e.Text == "" {
					t.Errorf("%s has no text", e.Name)
				}
			}
			if strings.Join(names, " ") != strings.Join(tt.want, " ") {
				t.Errorf("names %q, want %q", names, tt.want)
			}
			// Aligned: every text starts in the same column.
			lines := bench.FormatLegend(es, false)
			at := len([]rune(lines[0])) - len([]rune(es[0].Text))
			for i, l := range lines {
				if got := len([]rune(l)) - len([]rune(es[i].Text)); got != at {
					t.Errorf("line %q: text at %d, want %d", l, got, at)
				}
			}
			for i, l := range bench.FormatLegend(es, true) {
				if want := "- `" + es[i].Name + "`: " + es[i].Text; l != want {
					t.Errorf("markdown line %q, want %q", l, want)
				}
			}
		})
	}
}

func TestEstimate(t *testing.T) {
	for _, tt := range []struct {
		name   string
		work   []bench.Planned
		rounds int
		want   string
	}{
		// 10 cells × (1 warm-up + 6 rounds) × 1M values × 150–600 ns.
		{"scans", []bench.Planned{{Cells: 10, Values: 1_000_000}}, 6, "about 11–42 seconds"},
		{"big scans", []bench.Planned{{Cells: 10, Values: 10_000_000}}, 6, "about 2–7 minutes"},
		// Short scans take -mintime (100ms) a round: 10 × 6 × 0.1 s plus
		// the warm-ups.
		{"short scans", []bench.Planned{{Cells: 10, Values: 1000}}, 6, "about 6 seconds"},
		{"a query", []bench.Planned{{Cells: 15}}, 6, "about 9 seconds"},
		{"two sets add", []bench.Planned{{Cells: 10, Values: 1_000_000}, {Cells: 10, Values: 1_000_000}}, 6, "about 21–84 seconds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			low, high := bench.Estimate(tt.work, tt.rounds, 100*time.Millisecond)
			if low > high {
				t.Errorf("low %v > high %v", low, high)
			}
			if got := bench.FormatEstimate(low, high); got != tt.want {
				t.Errorf("%v–%v formats as %q, want %q", low, high, got, tt.want)
			}
		})
	}
}
