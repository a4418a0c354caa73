package compare

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// tinyConfig is a run of every workload at sizes small enough for a test.
func tinyConfig() Config {
	cfg := DefaultConfig()
	cfg.Rounds = 1
	cfg.Sizes = []int{1000}
	cfg.WatchObjects, cfg.WatchUpdates = 200, 2000
	cfg.PacedEvents = 200
	cfg.ReadObjects, cfg.GetOps, cfg.ListOps, cfg.ByIndexOps = 1000, 1000, 2, 100
	cfg.APIGetOps = 1000
	cfg.ResyncObjects = 200
	cfg.Timeout = time.Minute
	return cfg
}

// TestRun runs every workload once with every library at tiny sizes, and
// checks that every metric was measured and that the table and the chart
// render.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every workload, with two resyncs of a second each per library")
	}
	res, err := Run(tinyConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range res.Workloads {
		for _, e := range w.Errors {
			t.Errorf("%s: %s", w.Name, e)
		}
		for _, lib := range res.Config.Libraries {
			if !lib.runs(w.Workload) {
				if len(w.samples[lib.Name]) != 0 {
					t.Errorf("%s: variant %s ran it", w.Name, lib.Name)
				}
				continue
			}
			for _, m := range w.Metrics {
				want := 1
				if m.NotVariants && lib.Variant {
					want = 0
				}
				if st := w.stat(lib.Name, m.ID); st.n != want {
					t.Errorf("%s, %s: %s measured %d times, want %d", w.Name, lib.Name, m.ID, st.n, want)
				}
			}
		}
	}

	var md bytes.Buffer
	if err := res.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Headline ratios", "### " + sectionSync, "### " + sectionResync, "| realistic, 1k objects: time to HasSynced (ms) |",
		"| pod, 1k objects: heap per cached object, the object included (B) |", "| pods 1k: heap per cached object |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, md.String())
		}
	}
	var svg bytes.Buffer
	if err := res.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(&svg)
	for {
		if _, err := d.Token(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("the chart is not well-formed XML: %v", err)
			}
			break
		}
	}
}

func TestParseSizes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  bool
	}{
		{in: "10k,100k,1M", want: []int{10_000, 100_000, 1_000_000}},
		{in: " 5000 , 2k", want: []int{5000, 2000}},
		{in: "", err: true},
		{in: "ten", err: true},
		{in: "-1k", err: true},
	} {
		got, err := ParseSizes(tc.in)
		if (err != nil) != tc.err || (!tc.err && !slices.Equal(got, tc.want)) {
			t.Errorf("ParseSizes(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}
