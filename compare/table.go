package compare

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// WriteMarkdown writes the results as markdown: how and where they were
// measured, the headline ratios, then a table per section with every
// metric's median and range over the rounds for each library and its ratio
// to the first library.
func (r *Results) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	cfg := r.Config
	libs := cfg.Libraries
	fmt.Fprintf(&b, "%d rounds; in each, the libraries take turns on every workload. Cells: median (min–max) over the rounds; ratio: the median over %s's median.\n\n", cfg.Rounds, libs[0].Name)
	fmt.Fprintf(&b, "- Machine: %s.\n", r.Machine)
	fmt.Fprintf(&b, "- Load: %s.\n", r.Machine.Load())
	fmt.Fprintf(&b, "- Run time: %s.\n\n", r.Duration.Round(1e9))

	hs := cfg.headlines()
	var rows [][]string
	for _, h := range hs {
		row := []string{h.label}
		measured := false
		for _, lib := range libs[1:] {
			if v, ok := r.headlineRatio(h, lib.Name); ok {
				row = append(row, fmt.Sprintf("%.2f", v))
				measured = true
			} else {
				row = append(row, "—")
			}
		}
		if measured {
			rows = append(rows, row)
		}
	}
	if len(rows) > 0 {
		fmt.Fprintf(&b, "### Headline ratios to %s (below 1: informer-go is better)\n\n", libs[0].Name)
		head := []string{"realistic objects, unless named"}
		for _, lib := range libs[1:] {
			head = append(head, lib.Name)
		}
		writeTable(&b, head, rows)
	}

	for _, section := range sections {
		var rows [][]string
		for _, wr := range r.Workloads {
			for _, m := range wr.Metrics {
				if m.Section != section && (m.Section != "" || wr.Section != section) {
					continue
				}
				label := wr.Row + ": " + m.Label
				if m.Unit != "" {
					label += " (" + m.Unit + ")"
				}
				if m.HigherIsBetter {
					label += ", higher is better"
				}
				row := []string{label}
				for i, lib := range libs {
					st := wr.stat(lib.Name, m.ID)
					row = append(row, formatStat(st))
					if i == 0 {
						continue
					}
					if v, ok := r.ratio(wr, lib.Name, m.ID); ok {
						row = append(row, fmt.Sprintf("%.2f", v))
					} else {
						row = append(row, "—")
					}
				}
				rows = append(rows, row)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "### %s\n\n", section)
		head := []string{""}
		for i, lib := range libs {
			head = append(head, lib.Name)
			if i > 0 {
				head = append(head, "ratio")
			}
		}
		writeTable(&b, head, rows)
	}

	var errs []string
	for _, wr := range r.Workloads {
		for _, e := range wr.Errors {
			errs = append(errs, fmt.Sprintf("- %s, %s", wr.Name, e))
		}
	}
	if len(errs) > 0 {
		fmt.Fprintf(&b, "### Runs that failed (not in the medians)\n\n%s\n", strings.Join(errs, "\n"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes a markdown table, its first column left-aligned and the
// others right-aligned.
func writeTable(b *strings.Builder, head []string, rows [][]string) {
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for i := range head {
		if i == 0 {
			b.WriteString("---|")
		} else {
			b.WriteString("--:|")
		}
	}
	b.WriteString("\n")
	for _, row := range rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// formatStat writes a median and its range, or a dash when nothing was
// measured.
func formatStat(s stat) string {
	switch {
	case s.n == 0:
		return "—"
	case s.n == 1 || formatNumber(s.min) == formatNumber(s.max):
		return formatNumber(s.median)
	default:
		return fmt.Sprintf("%s (%s–%s)", formatNumber(s.median), formatNumber(s.min), formatNumber(s.max))
	}
}

// formatNumber writes v with three significant digits, or as an integer
// with thousands separators from 1,000 up.
func formatNumber(v float64) string {
	a := math.Abs(v)
	switch {
	case math.Round(a) >= 1000:
		s := fmt.Sprintf("%.0f", a)
		var out []byte
		for i := range len(s) {
			if i > 0 && (len(s)-i)%3 == 0 {
				out = append(out, ',')
			}
			out = append(out, s[i])
		}
		if v < 0 {
			return "-" + string(out)
		}
		return string(out)
	case a >= 100 || v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	case a == 0:
		return "0"
	default:
		return fmt.Sprintf("%.2g", v)
	}
}
