package bench

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"
)

// driverLegend says what each driver name in the tables is.
var driverLegend = map[Driver]string{
	Pgcache:    `database/sql with pgcache, sql.Open("pgcache", dsn)`,
	PgcacheAll: "pgcache with pgcache_types=" + TypesOfAll() + ": short repeating values of these kinds cached too",
	Pgx:        `database/sql with pgx v5 stdlib, sql.Open("pgx", dsn): the baseline of "vs pgx"`,
	PgcacheOff: "pgcache with pgcache=off: its code without the cache (what the cache itself saves)",
	Pq:         `database/sql with lib/pq, sql.Open("postgres", dsn)`,
	PgxNative:  "pgx.Conn.Query and Rows.Scan, no database/sql, pgx's binary formats",
}

// destLegend says what each destination name in the tables scans into.
var destLegend = map[Dest]string{
	RawBytes:       "*sql.RawBytes: the bytes only, nothing decoded (the floor)",
	String:         "*string",
	Any:            "*any",
	Float64:        "*float64",
	ApdDecimal:     "*apd.Decimal (cockroachdb/apd v3)",
	ShopspringDec:  "*decimal.Decimal (shopspring)",
	PgtypeNumeric:  "*pgtype.Numeric",
	PgcacheDecimal: "*pgcache.Decimal",
	PgtypeHstore:   "*pgtype.Hstore (lib/pq: its own hstore.Hstore)",
	PgcacheHstore:  "*pgcache.Hstore",
	StringMap:      "*map[string]string",
	PgcacheTypes:   "numerics into *pgcache.NullDecimal, hstores into *pgcache.NullHstore, the rest into *any",
	Natural:        "each column into the type an application has: *int64, *int32, *time.Time, else *string (numerics and hstores too)",
	Typed:          "natural, but numerics into *apd.Decimal and hstores into *pgtype.Hstore",
	PgcacheTyped:   "natural, but numerics into *pgcache.Decimal and hstores into *pgcache.Hstore",
}

// LegendEntry is a name the tables show and what it is.
type LegendEntry struct{ Name, Text string }

// Legend returns an entry per name the tables of these drivers and
// destinations show, drivers first, each in the order given. RawValues,
// pgx-native's name for RawBytes, comes after RawBytes when pgx-native is
// among the drivers.
func Legend(drivers []Driver, dests []Dest) []LegendEntry {
	var es []LegendEntry
	add := func(name, text string) {
		if !slices.ContainsFunc(es, func(e LegendEntry) bool { return e.Name == name }) {
			es = append(es, LegendEntry{name, text})
		}
	}
	for _, d := range drivers {
		if t, ok := driverLegend[d]; ok {
			add(string(d), t)
		}
	}
	for _, d := range dests {
		if t, ok := destLegend[d]; ok {
			add(string(d), t)
			if d == RawBytes && slices.Contains(drivers, PgxNative) {
				add("RawValues", "pgx-native's RawBytes: Rows.RawValues, the bytes off the wire")
			}
		}
	}
	return es
}

// FormatLegend writes es as lines: names padded to one width, or with
// markdown set, a list item per entry.
func FormatLegend(es []LegendEntry, markdown bool) []string {
	width := 0
	for _, e := range es {
		width = max(width, utf8.RuneCountInString(e.Name))
	}
	lines := make([]string, len(es))
	for i, e := range es {
		if markdown {
			lines[i] = "- `" + e.Name + "`: " + e.Text
		} else {
			lines[i] = "  " + pad(e.Name, width) + "  " + e.Text
		}
	}
	return lines
}

// Scan costs the estimate of [Estimate] assumes, in wall time per value
// read: the fastest cells on an idle 2-core machine, and the slow ones
// (decimal types that parse every value, lib/pq) on a busy one.
const (
	fastNsPerValue = 150
	slowNsPerValue = 600
)

// Planned is the work of one data set or query: cells measured over values
// values per scan.
type Planned struct {
	Cells, Values int
}

// Estimate returns how long measuring work takes over rounds rounds, at
// least and at most: every cell scans once to warm up and then once a
// round for at least minTime (a scan shorter than minTime repeats), each
// value read costing from 150 to 600 ns of wall time. Loading the tables
// is not included.
func Estimate(work []Planned, rounds int, minTime time.Duration) (low, high time.Duration) {
	for _, w := range work {
		for _, ns := range []time.Duration{fastNsPerValue, slowNsPerValue} {
			scan := time.Duration(w.Values) * ns
			d := time.Duration(w.Cells) * (scan + time.Duration(rounds)*max(scan, minTime))
			if ns == fastNsPerValue {
				low += d
			} else {
				high += d
			}
		}
	}
	return low, high
}

// FormatEstimate words an [Estimate]: "about 4–15 minutes", "about 20–80
// seconds", "about 6 seconds".
func FormatEstimate(low, high time.Duration) string {
	unit, name := time.Second, "seconds"
	if high >= 2*time.Minute {
		unit, name = time.Minute, "minutes"
	}
	lo, hi := max(1, int(low.Round(unit)/unit)), max(1, int(high.Round(unit)/unit))
	if lo == hi {
		return fmt.Sprintf("about %d %s", lo, name)
	}
	return fmt.Sprintf("about %d–%d %s", lo, hi, name)
}
