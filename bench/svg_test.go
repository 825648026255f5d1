package bench

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWriteSVG draws a made-up report and checks that the result is
// well-formed XML, escapes its texts, leaves failed cells out and scales the
// bars: the slowest cell gets the full bar length, the others in proportion.
func TestWriteSVG(t *testing.T) {
	sample := func(cpuNs int) []Sample {
		return []Sample{{Values: 1000, Wall: time.Duration(cpuNs) * 1000, CPU: time.Duration(cpuNs) * 1000}}
	}
	reports := []Report{{
		Title: "data=prices: 2 <rows> & more",
		Kind:  Numeric,
		Results: []Result{
			{Cell: Cell{Pgcache, String}, Samples: sample(60)},
			{Cell: Cell{Pgx, String}, Samples: sample(120)},
			{Cell: Cell{Pq, String}, Err: errors.New("failed")},
			{Cell: Cell{Pgcache, PgcacheDecimal}, Samples: sample(80)},
			{Cell: Cell{Pgx, PgcacheDecimal}, Samples: sample(240)},
		},
	}}
	var buf bytes.Buffer
	if err := WriteSVG(&buf, "pgcache-bench", "go1.26 \"quoted\"", reports); err != nil {
		t.Fatal(err)
	}
	svg := buf.String()

	var widths []float64
	var texts []string
	dec := xml.NewDecoder(strings.NewReader(svg))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Local
			}
			if el.Name.Local != "rect" {
				continue
			}
			var w float64
			var h string
			for _, a := range el.Attr {
				switch a.Name.Local {
				case "width":
					w, _ = strconv.ParseFloat(a.Value, 64)
				case "height":
					h = a.Value
				}
			}
			if h == strconv.Itoa(svgBarH) {
				widths = append(widths, w)
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(el)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	// Bars in order: string (pgcache, pgx), then pgcache.Decimal (pgcache, pgx).
	const full = float64(svgBarMax)
	want := []float64{full * 60 / 240, full * 120 / 240, full * 80 / 240, full}
	if len(widths) != len(want) {
		t.Fatalf("bar widths %v, want %v (the failed pq cell left out)", widths, want)
	}
	for i := range want {
		if d := widths[i] - want[i]; d > 0.1 || d < -0.1 {
			t.Errorf("bar %d: width %.1f, want %.1f", i, widths[i], want[i])
		}
	}
	for _, s := range []string{"data=prices: 2 <rows> & more", `go1.26 "quoted"`, "120", "240", "pgcache.Decimal"} {
		found := false
		for _, tx := range texts {
			found = found || tx == s
		}
		if !found {
			t.Errorf("no text %q in the chart; texts: %q", s, texts)
		}
	}
	if strings.Contains(svg, ">pq<") {
		t.Error("the legend names pq, whose only cell failed")
	}
}

func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"short", 10, []string{"short"}},
		{"one two three four", 9, []string{"one two", "three", "four"}},
		{"averyveryverylongword x", 5, []string{"averyveryverylongword", "x"}},
	} {
		if got := wrap(tt.in, tt.width); !slices.Equal(got, tt.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}
