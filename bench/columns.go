package bench

import (
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pgcache/pgcache/cache"
)

// WriteColumnReports prints one line per column of a user's query: its type,
// the hit ratio pgcache gets on it by default and with pgcache_types=all, and
// a verdict — whether the option would help it.
func WriteColumnReports(w io.Writer, reports []ColumnReport, markdown bool) error {
	rows := [][]string{{"column", "type", "default", "pgcache_types=all", "verdict"}}
	for _, r := range reports {
		if r.Err != nil {
			rows = append(rows, []string{r.Column.Name, r.Column.Type, "-", "-", r.Err.Error()})
			continue
		}
		rows = append(rows, []string{r.Column.Name, r.Column.Type, trafficLabel(r, r.Default), trafficLabel(r, r.AllTypes), verdict(r)})
	}
	if markdown {
		for i, row := range rows {
			if _, err := fmt.Fprintf(w, "| %s |\n", strings.Join(row, " | ")); err != nil {
				return err
			}
			if i == 0 {
				fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(row)))
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// trafficLabel describes one read's traffic: the hit ratio over all values,
// or why there is none.
func trafficLabel(r ColumnReport, s cache.Stats) string {
	if !r.Cached(s) {
		return "not cached"
	}
	n := s.Hits + s.Misses + s.Admissions + s.Bypasses
	label := fmt.Sprintf("%.1f%% hits", 100*float64(s.Hits)/float64(n))
	if s.Bypasses > 0 {
		label += fmt.Sprintf(", %.0f%% bypass", 100*float64(s.Bypasses)/float64(n))
	}
	return label
}

// verdict says whether pgcache_types would help the column: it does when the
// option caches a column the defaults do not and most of its values hit. A
// column with too few hits either does not repeat or repeats over more
// values than a table holds, which the reuse back-off then bypasses.
func verdict(r ColumnReport) string {
	switch {
	case r.Cached(r.Default):
		return "cached by default"
	case !r.Cached(r.AllTypes):
		return "no pgcache_types kind applies"
	}
	n := r.AllTypes.Hits + r.AllTypes.Misses + r.AllTypes.Admissions + r.AllTypes.Bypasses
	switch ratio := float64(r.AllTypes.Hits) / float64(n); {
	case ratio >= 0.5:
		return "pgcache_types helps"
	case ratio >= 0.1:
		return "pgcache_types helps a little"
	}
	return "too few hits: leave it out"
}

// Recommendation is what [Recommend] makes of the per-column reports: the
// DSN options to paste and, per column they name, what it gains.
type Recommendation struct {
	// Types are the pgcache_types kinds worth adding to the default ones,
	// in column order.
	Types []string
	// Disable are the pgcache_disable entries: columns of a cached kind
	// whose values do not repeat enough to pay for their lookups.
	Disable []string
	// Gains has one line per column the options name.
	Gains []string
}

// fewHits is the hit ratio under which a column is not worth caching: its
// lookups cost more than its hits save (the verdict "too few hits").
const fewHits = 0.1

// Recommend turns per-column reports into DSN options. A kind is listed when
// one of its columns gets at least 10% hits with pgcache_types=all and is
// not cached by default; then every column of a listed kind (and of numeric
// and hstore, cached by default) with fewer hits is disabled, by table
// column when the server reports one, else by result name.
func Recommend(reports []ColumnReport) Recommendation {
	var rec Recommendation
	type col struct {
		r      ColumnReport
		kind   string // pgcache_types kind, "" when cached by default
		ratio  float64
		cached bool // by default or by the option
	}
	var cols []col
	for _, r := range reports {
		if r.Err != nil {
			continue
		}
		c := col{r: r}
		switch {
		case r.Cached(r.Default):
			c.cached, c.ratio = true, hitRatio(r.Default)
		case r.Cached(r.AllTypes):
			c.cached, c.ratio, c.kind = true, hitRatio(r.AllTypes), typesKind(r.Column.Type)
		}
		cols = append(cols, c)
	}
	for _, c := range cols {
		if c.kind != "" && c.ratio >= fewHits && !slices.Contains(rec.Types, c.kind) {
			rec.Types = append(rec.Types, c.kind)
		}
	}
	for _, c := range cols {
		switch {
		case !c.cached:
		case c.ratio >= fewHits && c.kind != "":
			rec.Gains = append(rec.Gains, fmt.Sprintf("%s (%s): %.1f%% hits with pgcache_types=%s: %s", c.r.Column.Name, c.r.Column.Type,
				100*c.ratio, c.kind, gain(c.kind, c.ratio)))
		case c.ratio < fewHits && (c.kind == "" || slices.Contains(rec.Types, c.kind)):
			name := c.r.Column.Source
			scope := "this table column, in every query"
			if name == "" {
				name = sqlName(c.r.Column.Name)
				scope = "every result column of this name"
			}
			rec.Disable = append(rec.Disable, name)
			rec.Gains = append(rec.Gains, fmt.Sprintf("%s (%s): %.1f%% hits, so disabled (%s): read as pgx stdlib reads it, "+
				"without the lookups of the cache's first window (5120 values per result set)", c.r.Column.Name, c.r.Column.Type,
				100*c.ratio, scope))
		}
	}
	return rec
}

// typesValue is the pgcache_types value that adds rec.Types to the
// toolchain's default kinds: a list replaces the default, so it starts with
// "default".
func (rec Recommendation) typesValue() string {
	return strings.Join(append([]string{"default"}, rec.Types...), ",")
}

// Line is the DSN options of rec in keyword/value form, such as
// "pgcache_types=default,int8,date pgcache_disable=items.sku", or "" when
// there is nothing to set.
func (rec Recommendation) Line() string {
	var parts []string
	if len(rec.Types) > 0 {
		parts = append(parts, "pgcache_types="+dsnValue(rec.typesValue()))
	}
	if len(rec.Disable) > 0 {
		parts = append(parts, "pgcache_disable="+dsnValue(strings.Join(rec.Disable, ",")))
	}
	return strings.Join(parts, " ")
}

// URLQuery is the same options as a URL's query, such as
// "pgcache_types=default%2Cint8%2Cdate", or "".
func (rec Recommendation) URLQuery() string {
	q := url.Values{}
	if len(rec.Types) > 0 {
		q.Set("pgcache_types", rec.typesValue())
	}
	if len(rec.Disable) > 0 {
		q.Set("pgcache_disable", strings.Join(rec.Disable, ","))
	}
	return strings.ReplaceAll(q.Encode(), "+", "%20")
}

// WriteRecommendation prints rec: the line to paste into the DSN, the
// same as a URL query, and what each column it names gains.
func WriteRecommendation(w io.Writer, rec Recommendation) error {
	line := rec.Line()
	if line == "" {
		_, err := fmt.Fprintln(w, "DSN options: none to add; pgcache's defaults fit this query.")
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "DSN options to add (keyword/value DSN):\n\n    %s\n\nor in a URL DSN:\n\n    ?%s\n\nWhat each column they name is expected to gain:\n\n", line, rec.URLQuery())
	for _, g := range rec.Gains {
		fmt.Fprintf(&b, "  - %s\n", g)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func hitRatio(s cache.Stats) float64 {
	n := s.Hits + s.Misses + s.Admissions + s.Bypasses
	if n == 0 {
		return 0
	}
	return float64(s.Hits) / float64(n)
}

// typesKind returns the pgcache_types kind of a column of type typ (the
// server's name for it, as [QueryColumn] holds it). A type pgx has no codec
// for, such as an enum, is the kind "enum".
func typesKind(typ string) string {
	switch typ {
	case "text", "varchar", "bpchar", "name", "uuid", "int2", "int4", "int8", "float8", "date", "timestamp", "timestamptz":
		return typ
	}
	return "enum"
}

// gain says what a hit saves a column of kind, from the values pgx stdlib
// makes per value: a text is copied into a string and boxed into a
// driver.Value (two allocations), a fixed-size value is boxed (one; none
// for an int2, int4 or int8 below 256).
func gain(kind string, ratio float64) string {
	switch kind {
	case "int2", "int4", "int8", "float8", "date", "timestamp", "timestamptz":
		return fmt.Sprintf("up to %.0f fewer allocations per 100 values (a hit hands out a pre-boxed value; pgx stdlib boxes each value it reads, but not an integer below 256)", 100*ratio)
	}
	return fmt.Sprintf("up to %.0f fewer allocations per 100 values (a hit hands out a pre-boxed string; pgx stdlib copies and boxes each value it reads, but not an empty one)", 200*ratio)
}

// dsnValue quotes v for a keyword/value DSN when it holds a space or a
// quote, as libpq reads values.
func dsnValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n'\\") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}
