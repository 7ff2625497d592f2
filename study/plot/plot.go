// Package plot draws the papers' figures from run directories with
// gonum/plot: accuracy vs retrieval budget k (Figure 3(c)), accuracy vs
// number of semantic seeds K (Figure 3(d)) and cumulative build tokens vs
// turns (Figure 3(a)). Every chart is written as PNG and SVG.
package plot

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a chart.
type Series struct {
	Name string    `json:"name"`
	X    []float64 `json:"x"`
	Y    []float64 `json:"y"`
}

// Chart is a titled line chart.
type Chart struct {
	Title, XLabel, YLabel string
	Series                []Series
	// Points draws markers on the lines (sweeps have few points; token
	// curves have thousands and are drawn as plain lines).
	Points bool
	// Notes go under the title (e.g. the offline-backend warning).
	Note string
	// Percent fixes the y axis to 0..100 (accuracies), which also leaves
	// the legend room at the top.
	Percent bool
}

// Formats are the files Save writes for a base path.
var Formats = []string{".png", ".svg"}

// Save writes base.png and base.svg and returns their paths.
func (c *Chart) Save(base string) ([]string, error) {
	if len(c.Series) == 0 {
		return nil, fmt.Errorf("plot %q: no data to draw", c.Title)
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return nil, err
	}
	p := gplot.New()
	p.Title.Text = c.Title
	if c.Note != "" {
		p.Title.Text += "\n" + c.Note
	}
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	var args []any
	for _, s := range c.Series {
		xy := make(plotter.XYs, len(s.X))
		for i := range s.X {
			xy[i].X, xy[i].Y = s.X[i], s.Y[i]
		}
		args = append(args, s.Name, xy)
	}
	if c.Percent {
		p.Y.Min, p.Y.Max = 0, 100
	}
	if c.Points {
		p.X.Tick.Marker = dataTicks(c.Series)
	} else {
		p.X.Tick.Marker = compactTicks{}
	}
	p.Y.Tick.Marker = compactTicks{}
	var err error
	if c.Points {
		err = plotutil.AddLinePoints(p, args...)
	} else {
		err = plotutil.AddLines(p, args...)
	}
	if err != nil {
		return nil, fmt.Errorf("plot %q: %w", c.Title, err)
	}
	var out []string
	for _, ext := range Formats {
		path := base + ext
		if err := p.Save(16*vg.Centimeter, 11*vg.Centimeter, path); err != nil {
			return out, fmt.Errorf("write %s: %w", path, err)
		}
		out = append(out, path)
	}
	return out, nil
}

// sortSeries orders each series by x and the series by name, so the
// same runs always give the same picture.
func sortSeries(ss []Series) {
	for i := range ss {
		s := &ss[i]
		idx := make([]int, len(s.X))
		for j := range idx {
			idx[j] = j
		}
		sort.SliceStable(idx, func(a, b int) bool { return s.X[idx[a]] < s.X[idx[b]] })
		x, y := make([]float64, len(idx)), make([]float64, len(idx))
		for j, k := range idx {
			x[j], y[j] = s.X[k], s.Y[k]
		}
		s.X, s.Y = x, y
	}
	sort.SliceStable(ss, func(a, b int) bool { return ss[a].Name < ss[b].Name })
}

// dataTicks labels the x axis at the swept values themselves.
func dataTicks(ss []Series) gplot.ConstantTicks {
	seen := map[float64]bool{}
	var xs []float64
	for _, s := range ss {
		for _, x := range s.X {
			if !seen[x] {
				seen[x] = true
				xs = append(xs, x)
			}
		}
	}
	sort.Float64s(xs)
	ticks := make(gplot.ConstantTicks, len(xs))
	for i, x := range xs {
		ticks[i] = gplot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', -1, 64)}
	}
	return ticks
}

// compactTicks are gonum's default tick positions labelled without
// trailing zeros and with k/M suffixes ("2.5M", not "2500000.00").
type compactTicks struct{}

func (compactTicks) Ticks(min, max float64) []gplot.Tick {
	ts := gplot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = compact(ts[i].Value)
		}
	}
	return ts
}

func compact(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
