package compare

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
)

// Geometry of the chart, in pixels.
const (
	chartWidth   = 900
	chartLabelW  = 320 // the labels' column
	chartPlotX   = chartLabelW + 20
	chartPlotW   = chartWidth - chartPlotX - 50
	chartLegendY = 50 // the top of the legend's first line
	chartLegendH = 18 // a line of the legend
	chartRowH    = 30
	chartBarH    = 10
	chartBottomH = 46 // the axis and its caption
)

// barColors are the colours of the compared libraries' bars, in order.
var barColors = []string{"#1f6fb4", "#e5801c", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf"}

// WriteSVG draws the headline ratios as an SVG bar chart: one row per
// headline, one bar per compared library that measured it (a row is as tall
// as its bars need), on a logarithmic axis centred on 1 (parity with the
// first library).
func (r *Results) WriteSVG(w io.Writer) error {
	libs := r.Config.Libraries[1:]
	type row struct {
		label  string
		ratios []float64 // 0 when not measured
		y, h   int       // top and height
	}
	var rows []row
	lo, hi := 0.5, 2.0
	for _, h := range r.Config.headlines() {
		rw := row{label: h.label}
		measured := false
		for _, lib := range libs {
			v, ok := r.headlineRatio(h, lib.Name)
			if ok {
				measured = true
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			rw.ratios = append(rw.ratios, v)
		}
		if measured {
			rows = append(rows, rw)
		}
	}
	lo = math.Pow(2, math.Floor(math.Log2(lo)))
	hi = math.Pow(2, math.Ceil(math.Log2(hi)))
	x := func(v float64) float64 {
		return chartPlotX + (math.Log2(v)-math.Log2(lo))/(math.Log2(hi)-math.Log2(lo))*chartPlotW
	}
	legend, legendLines := chartLegend(libs)
	chartTop := chartLegendY + legendLines*chartLegendH + 10
	plotBottom := chartTop
	for i := range rows {
		bars := 0
		for _, v := range rows[i].ratios {
			if v != 0 {
				bars++
			}
		}
		rows[i].y, rows[i].h = plotBottom, max(chartRowH, 8+bars*(chartBarH+2))
		plotBottom += rows[i].h
	}
	height := plotBottom + chartBottomH

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", chartWidth, height, chartWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	title := fmt.Sprintf("informer-go / %s: median of %d rounds (below 1: informer-go is better)", r.Config.Libraries[0].Name, r.Config.Rounds)
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", escape(title))
	fmt.Fprintf(&b, `<text x="10" y="38" fill="#555">%s</text>`+"\n", escape(r.Machine.String()+"; "+r.Machine.ShortLoad()))
	b.WriteString(legend)
	for t := lo; t <= hi*1.0001; t *= 2 {
		tx := x(t)
		stroke, width := "#ddd", 1
		if t == 1 {
			stroke, width = "#333", 2
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="%d"/>`+"\n", tx, chartTop-6, tx, plotBottom, stroke, width)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", tx, plotBottom+16, formatRatioTick(t))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="end" fill="#555">← informer-go better</text>`+"\n", x(1)-8, plotBottom+34)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#555">client-go better →</text>`+"\n", x(1)+8, plotBottom+34)
	for _, rw := range rows {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", chartLabelW, rw.y+rw.h/2+4, escape(rw.label))
		bar := 0
		for j, v := range rw.ratios {
			if v == 0 {
				continue
			}
			by := rw.y + 4 + bar*(chartBarH+2)
			bar++
			x0, x1 := x(1), x(v)
			left := math.Min(x0, x1)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", left, by, math.Max(math.Abs(x1-x0), 1), chartBarH, barColors[j%len(barColors)])
			tx, anchor := x1+4, "start"
			if v < 1 {
				tx, anchor = x1-4, "end"
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="%s" font-size="10">%.2f</text>`+"\n", tx, by+chartBarH-1, anchor, v)
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// chartLegend returns the legend of the libraries' colours, laid out from
// the plot's left edge in lines that fit the chart, and its number of lines.
func chartLegend(libs []Library) (string, int) {
	var b strings.Builder
	x, line := chartPlotX, 0
	for i, lib := range libs {
		w := 40 + 7*len(lib.Name) // the box, its gap and the name at about 7 pixels a character
		if x > chartPlotX && x+w > chartWidth {
			x, line = chartPlotX, line+1
		}
		y := chartLegendY + line*chartLegendH
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="14" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, y, barColors[i%len(barColors)], x+20, y+9, escape(lib.Name))
		x += w
	}
	return b.String(), line + 1
}

// formatRatioTick writes an axis tick: 0.25, 0.5, 1, 2, 4.
func formatRatioTick(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
