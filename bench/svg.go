package bench

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Chart layout, in SVG user units (pixels at 100%).
const (
	svgMargin    = 16
	svgLabelW    = 250 // destination and driver labels, left of the bars
	svgBarMax    = 520 // the longest bar of a section
	svgBarH      = 14
	svgRowGap    = 3
	svgGroupGap  = 10
	svgTitleH    = 26
	svgSectionH  = 30
	svgLegendH   = 22
	svgValueTail = 100 // room right of a bar for its figure
	svgWidth     = 2*svgMargin + svgLabelW + svgBarMax + svgValueTail
)

// driverColors gives every driver the colour of its bars; pgcache stands
// out, its cache-off variant is a lighter shade of it.
var driverColors = map[Driver]string{
	Pgcache:    "#1f6fb4",
	Pgx:        "#e0892b",
	PgcacheOff: "#9cc0e0",
	Pq:         "#8a8a8a",
	PgxNative:  "#4f9d5d",
}

// WriteSVG draws reports as one plain SVG image: a horizontal bar chart per
// report of the median client CPU per value (lower is better) of every
// cell, grouped by destination, one bar per driver in [Drivers] order, with
// the figure at the end of each bar. Cells that failed are left out. title
// and subtitle head the image (the subtitle says where it was measured). The
// SVG needs no fonts, scripts or styles beyond what every browser and
// converter has.
func WriteSVG(w io.Writer, title, subtitle string, reports []Report) error {
	var body bytes.Buffer
	y := svgMargin + svgTitleH
	text(&body, svgMargin, y-8, "font-size=\"16\" font-weight=\"bold\"", title)
	for _, line := range wrap(subtitle, 130) {
		y += 16
		text(&body, svgMargin, y-8, "fill=\"#444\"", line)
	}

	// The legend names the drivers that appear at all.
	var present []Driver
	for _, r := range reports {
		for _, res := range r.Results {
			if res.Err == nil && !slices.Contains(present, res.Cell.Driver) {
				present = append(present, res.Cell.Driver)
			}
		}
	}
	slices.SortFunc(present, func(a, b Driver) int { return slices.Index(Drivers, a) - slices.Index(Drivers, b) })
	y += 6
	x := svgMargin
	for _, d := range present {
		fmt.Fprintf(&body, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, y, colorOf(d))
		text(&body, x+16, y+11, "", string(d))
		x += 24 + 8*len(d)
	}
	y += svgLegendH + 8
	text(&body, svgMargin, y, "fill=\"#444\"", "client CPU per value read, ns (median; lower is better)")
	y += 8

	for _, r := range reports {
		y = drawSection(&body, y, r)
	}
	height := y + svgMargin

	var out bytes.Buffer
	fmt.Fprintf(&out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "+
		"font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n", svgWidth, height, svgWidth, height)
	fmt.Fprintf(&out, "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", svgWidth, height)
	out.Write(body.Bytes())
	out.WriteString("</svg>\n")
	_, err := w.Write(out.Bytes())
	return err
}

// drawSection draws one report starting at y and returns the y below it.
func drawSection(b *bytes.Buffer, y int, r Report) int {
	type bar struct {
		cell Cell
		cpu  float64
	}
	var dests []Dest
	bars := map[Dest][]bar{}
	maxCPU := 0.0
	for _, res := range r.Results {
		if res.Err != nil || len(res.Samples) == 0 {
			continue
		}
		cpu := res.Median(r.Kind).CPU
		if math.IsNaN(cpu) || math.IsInf(cpu, 0) || cpu < 0 {
			continue
		}
		if !slices.Contains(dests, res.Cell.Dest) {
			dests = append(dests, res.Cell.Dest)
		}
		bars[res.Cell.Dest] = append(bars[res.Cell.Dest], bar{res.Cell, cpu})
		maxCPU = max(maxCPU, cpu)
	}
	lines := wrap(r.Title, 110)
	y += svgSectionH + 16*(len(lines)-1)
	for i, line := range lines {
		text(b, svgMargin, y-10-16*(len(lines)-1-i), "font-size=\"13\" font-weight=\"bold\"", line)
	}
	if len(dests) == 0 {
		text(b, svgMargin, y+4, "fill=\"#888\"", "no results")
		return y + 12
	}
	scale := svgBarMax / maxCPU
	for _, d := range dests {
		bs := bars[d]
		slices.SortStableFunc(bs, func(a, b bar) int {
			return slices.Index(Drivers, a.cell.Driver) - slices.Index(Drivers, b.cell.Driver)
		})
		top := y
		for _, br := range bs {
			wdt := max(br.cpu*scale, 1)
			text(b, svgMargin+svgLabelW-8, y+svgBarH-3, "text-anchor=\"end\" fill=\"#444\"", string(br.cell.Driver))
			fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
				svgMargin+svgLabelW, y, wdt, svgBarH, colorOf(br.cell.Driver))
			text(b, int(float64(svgMargin+svgLabelW)+wdt)+4, y+svgBarH-3, "", fmt.Sprintf("%.0f", br.cpu))
			y += svgBarH + svgRowGap
		}
		// The destination labels its group, level with the group's middle.
		mid := top + (y-svgRowGap-top)/2 + 4
		text(b, svgMargin, mid, "font-weight=\"bold\"", destLabel(bs[0].cell))
		y += svgGroupGap
	}
	return y
}

func colorOf(d Driver) string {
	if c, ok := driverColors[d]; ok {
		return c
	}
	return "#555"
}

// text writes a <text> element with s escaped.
func text(b *bytes.Buffer, x, y int, attrs, s string) {
	fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\"", x, y)
	if attrs != "" {
		b.WriteString(" " + attrs)
	}
	b.WriteString(">")
	_ = xml.EscapeText(b, []byte(s))
	b.WriteString("</text>\n")
}

// wrap breaks s into lines of at most width bytes at spaces (a longer word
// gets a line of its own). SVG text does not wrap by itself.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
