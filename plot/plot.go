// Package plot draws the papers' figures from run directories with
// gonum/plot: accuracy vs retrieval budget k (Figure 3(c)), accuracy vs
// number of semantic seeds K (Figure 3(d)) and cumulative build tokens vs
// turns (Figure 3(a)). Every chart is written as PNG (300 dpi), SVG and PDF.
package plot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one line of a chart. Lo and Hi, when set, are each point's
// 95% Wilson interval in Y's units, drawn as error bars; a point without
// an interval (a metric judge's mean) has Lo = Hi = Y.
type Series struct {
	Name string    `json:"name"`
	X    []float64 `json:"x"`
	Y    []float64 `json:"y"`
	Lo   []float64 `json:"lo,omitempty"`
	Hi   []float64 `json:"hi,omitempty"`
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
	// Percent says Y is a percentage: the axis is fitted to the points
	// and their intervals, within 0..100 (FullRange: all of 0..100).
	Percent   bool
	FullRange bool
}

// Formats are the files Save writes for a base path.
var Formats = []string{".png", ".svg", ".pdf"}

// Size and resolution of the saved figures: a two-column paper figure.
const DPI = 300

var (
	Width  = 17 * vg.Centimeter
	Height = 10 * vg.Centimeter
)

// Palette is Okabe and Ito's colour-blind-safe palette (Color Universal
// Design, 2008), yellow last as it is faint on white.
var Palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
}

// Markers are told apart by shape as well as colour (and in print).
var Markers = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// dashes tell plain lines apart (token curves have no markers).
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)}}

// Style is series i's colour, marker and dash pattern.
func Style(i int) (color.RGBA, draw.GlyphDrawer, []vg.Length) {
	return Palette[i%len(Palette)], Markers[i%len(Markers)], dashes[i%len(dashes)]
}

// YRange is the y axis of a percent chart: 0..100 with FullRange, else the
// points and their intervals with a margin, rounded out to multiples of 5
// and kept within 0..100, at least 10 points tall. ok is false for other
// charts (gonum fits their axis).
func (c *Chart) YRange() (lo, hi float64, ok bool) {
	if !c.Percent {
		return 0, 0, false
	}
	if c.FullRange {
		return 0, 100, true
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i, y := range s.Y {
			for _, v := range []float64{y, at(s.Lo, i, y), at(s.Hi, i, y)} {
				if !math.IsNaN(v) {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
	}
	if math.IsInf(lo, 0) {
		return 0, 100, true
	}
	pad := math.Max(2, 0.05*(hi-lo))
	lo = math.Max(0, 5*math.Floor((lo-pad)/5))
	hi = math.Min(100, 5*math.Ceil((hi+pad)/5))
	for hi-lo < 10 {
		if hi < 100 {
			hi += 5
		}
		if hi-lo < 10 && lo > 0 {
			lo -= 5
		}
	}
	return lo, hi, true
}

func at(v []float64, i int, def float64) float64 {
	if i < len(v) {
		return v[i]
	}
	return def
}

// errBars are a series' intervals as gonum's error bars (offsets from Y).
type errBars struct {
	plotter.XYs
	lo, hi []float64
}

func (e errBars) YError(i int) (float64, float64) {
	return e.XYs[i].Y - e.lo[i], e.hi[i] - e.XYs[i].Y
}

// build makes the plot without its legend, and the legend, which draw
// puts outside the data area.
func (c *Chart) build() (*gplot.Plot, *gplot.Legend, error) {
	p := gplot.New() // the title is drawn by draw, across the legend too
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(10)
		a.Tick.Label.Font.Size = vg.Points(9)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil // horizontal rules only: they help read off y
	grid.Horizontal.Color = color.Gray{0xDD}
	p.Add(grid)
	if c.Points {
		p.X.Tick.Marker = dataTicks(c.Series)
	} else {
		p.X.Tick.Marker = compactTicks{}
	}
	p.Y.Tick.Marker = compactTicks{}
	if lo, hi, ok := c.YRange(); ok {
		p.Y.Min, p.Y.Max = lo, hi
		p.Y.Tick.Marker = percentTicks{}
	}
	l := gplot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = vg.Points(9)
	l.ThumbnailWidth = vg.Points(24)
	l.Padding = vg.Points(3)
	// Series side by side at one x are shifted apart a little so their
	// error bars do not hide each other (the x ticks stay on the values).
	dodge := 0.0
	if c.Points && len(c.Series) > 1 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range c.Series {
			for _, x := range s.X {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
		dodge = 0.018 * (hi - lo)
	}
	for i, s := range c.Series {
		col, mark, dash := Style(i)
		shift := dodge * (float64(i) - float64(len(c.Series)-1)/2)
		xy := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xy[j].X, xy[j].Y = s.X[j]+shift, s.Y[j]
		}
		line, err := plotter.NewLine(xy)
		if err != nil {
			return nil, nil, fmt.Errorf("plot %q: series %s: %w", c.Title, s.Name, err)
		}
		line.Color, line.Width = col, vg.Points(1.5)
		thumbs := []gplot.Thumbnailer{line}
		if c.Points {
			line.Width = vg.Points(1.2)
			if len(s.Lo) == len(s.X) && len(s.Hi) == len(s.X) {
				eb, err := plotter.NewYErrorBars(errBars{xy, s.Lo, s.Hi})
				if err != nil {
					return nil, nil, fmt.Errorf("plot %q: series %s: %w", c.Title, s.Name, err)
				}
				eb.Color, eb.Width, eb.CapWidth = col, vg.Points(1), vg.Points(5)
				p.Add(eb)
			}
			sc, err := plotter.NewScatter(xy)
			if err != nil {
				return nil, nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3.5), Shape: mark}
			p.Add(line, sc)
			thumbs = append(thumbs, sc)
		} else {
			line.Dashes = dash
			p.Add(line)
		}
		l.Add(s.Name, thumbs...)
	}
	return p, &l, nil
}

// layout is where draw put the data area and the legend's frame.
type layout struct{ data, legend vg.Rectangle }

// draw lays the chart out on dc: the plot on the left, and to its right,
// level with the top of the data area, the legend in a frame.
func (c *Chart) draw(dc draw.Canvas) (layout, error) {
	p, l, err := c.build()
	if err != nil {
		return layout{}, err
	}
	margin := vg.Points(6)
	dc = draw.Crop(dc, margin, -margin, margin, -margin)
	// Title, then the note in a smaller size, centred over the figure.
	for i, line := range append([]string{c.Title}, splitNonEmpty(c.Note)...) {
		sty := p.X.Label.TextStyle
		sty.Font.Size = vg.Points(11)
		if i > 0 {
			sty.Font.Size = vg.Points(9)
		}
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		sty.Color = color.Black
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y}, line)
		dc.Max.Y -= sty.Rectangle(line).Size().Y + vg.Points(2)
	}
	dc.Max.Y -= vg.Points(4)
	pad, gap := vg.Points(5), vg.Points(8)
	lr := l.Rectangle(dc)
	lw, lh := lr.Max.X-lr.Min.X+2*pad, lr.Max.Y-lr.Min.Y+2*pad
	pc := draw.Crop(dc, 0, -(lw + gap), 0, 0)
	p.Draw(pc)
	data := p.DataCanvas(pc).Rectangle
	top := data.Max.Y
	box := vg.Rectangle{Min: vg.Point{X: pc.Max.X + gap, Y: top - lh}, Max: vg.Point{X: pc.Max.X + gap + lw, Y: top}}
	dc.SetColor(color.White)
	dc.Fill(box.Path())
	dc.SetLineStyle(draw.LineStyle{Color: color.Gray{0x66}, Width: vg.Points(0.75)})
	dc.Stroke(box.Path())
	inner := vg.Rectangle{Min: vg.Point{X: box.Min.X + pad, Y: box.Min.Y + pad}, Max: vg.Point{X: box.Max.X - pad, Y: box.Max.Y - pad}}
	l.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: inner})
	return layout{data: data, legend: box}, nil
}

// Save writes base.png (300 dpi), base.svg and base.pdf and returns their
// paths.
func (c *Chart) Save(base string) ([]string, error) {
	if len(c.Series) == 0 {
		return nil, fmt.Errorf("plot %q: no data to draw", c.Title)
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, ext := range Formats {
		path := base + ext
		var buf bytes.Buffer
		if err := c.write(&buf, ext); err != nil {
			return out, fmt.Errorf("write %s: %w", path, err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return out, err
		}
		out = append(out, path)
	}
	return out, nil
}

func (c *Chart) write(w io.Writer, ext string) error {
	var cv interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch ext {
	case ".png":
		cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))}
	case ".svg":
		cv = vgsvg.New(Width, Height)
	case ".pdf":
		cv = vgpdf.New(Width, Height)
	default:
		return fmt.Errorf("unknown figure format %q", ext)
	}
	if _, err := c.draw(draw.New(cv)); err != nil {
		return err
	}
	if ext != ".png" {
		_, err := cv.WriteTo(w)
		return err
	}
	var raw bytes.Buffer
	if _, err := cv.WriteTo(&raw); err != nil {
		return err
	}
	b, err := withDPI(raw.Bytes(), DPI)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// withDPI adds a pHYs chunk to an encoded PNG (Go's encoder writes none),
// so viewers and typesetters read the resolution the figure was drawn at.
func withDPI(b []byte, dpi int) ([]byte, error) {
	const sig = 8
	if len(b) < sig+8 || string(b[sig+4:sig+8]) != "IHDR" {
		return nil, fmt.Errorf("not a PNG")
	}
	ihdrEnd := sig + 8 + int(binary.BigEndian.Uint32(b[sig:sig+4])) + 4
	ppm := uint32(math.Round(float64(dpi) / 0.0254))
	// Data: pixels per unit in x, then y, then the unit (1: metre).
	chunk := binary.BigEndian.AppendUint32(nil, 9)
	chunk = append(chunk, "pHYs"...)
	chunk = binary.BigEndian.AppendUint32(chunk, ppm)
	chunk = binary.BigEndian.AppendUint32(chunk, ppm)
	chunk = append(chunk, 1)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	return slices.Concat(b[:ihdrEnd], chunk, b[ihdrEnd:]), nil
}

func splitNonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// percentTicks label a percent axis every 2, 5, 10 or 20 points, whichever
// gives 4 to 8 labels, with unlabelled ticks halfway.
type percentTicks struct{}

func (percentTicks) Ticks(min, max float64) []gplot.Tick {
	step := 20.0
	for _, s := range []float64{1, 2, 5, 10, 20} {
		if (max-min)/s <= 8 {
			step = s
			break
		}
	}
	var ts []gplot.Tick
	for v := math.Ceil(min/step) * step; v <= max+1e-9; v += step {
		ts = append(ts, gplot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		if h := v + step/2; h < max {
			ts = append(ts, gplot.Tick{Value: h})
		}
	}
	return ts
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
		s.X, s.Y = pick(s.X, idx), pick(s.Y, idx)
		if len(s.Lo) == len(idx) && len(s.Hi) == len(idx) {
			s.Lo, s.Hi = pick(s.Lo, idx), pick(s.Hi, idx)
		}
	}
	sort.SliceStable(ss, func(a, b int) bool { return ss[a].Name < ss[b].Name })
}

func pick(v []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for j, k := range idx {
		out[j] = v[k]
	}
	return out
}

// dataTicks labels the x axis at the swept values themselves.
func dataTicks(ss []Series) gplot.ConstantTicks {
	var xs []float64
	for _, s := range ss {
		xs = append(xs, s.X...)
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
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
