package bench

import (
	"fmt"
	"io"
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
