package plot

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/runlog/runlogtest"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// fakeRun writes a run of system at retrieval budget k whose llm judge
// found right of n questions correct.
func fakeRun(t *testing.T, dir, system string, k, n, right int) string {
	t.Helper()
	return runlogtest.New(system, k, "llm").Scored(n, right, 1).Write(t, dir)
}

// Newcombe (1998, Stat Med 17:857, Table I) gives the Wilson 95% interval
// of 81/263 as 0.2553-0.3662 and of 15/148 as 0.0624-0.1605: the error
// bars of points with those counts must be those intervals, in percent.
func TestAccuracyChartWilsonBarsAndFittedRange(t *testing.T) {
	root := t.TempDir()
	dirs := []string{
		fakeRun(t, filepath.Join(root, "a5"), "sys-a", 5, 263, 81),
		fakeRun(t, filepath.Join(root, "a1"), "sys-a", 1, 148, 15),
		fakeRun(t, filepath.Join(root, "b1"), "sys-b", 1, 148, 15),
	}
	c, err := KChart(dirs, "llm")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Series) != 2 || c.Series[0].Name != "sys-a" {
		t.Fatalf("series %+v", c.Series)
	}
	a := c.Series[0]
	want := []struct{ x, y, lo, hi float64 }{{1, 100 * 15.0 / 148, 6.24, 16.05}, {5, 100 * 81.0 / 263, 25.53, 36.62}}
	for i, w := range want {
		if a.X[i] != w.x || math.Abs(a.Y[i]-w.y) > 1e-9 || math.Abs(a.Lo[i]-w.lo) > 0.005 || math.Abs(a.Hi[i]-w.hi) > 0.005 {
			t.Errorf("point %d: x %v y %.4f [%.4f, %.4f], want x %v y %.4f [%.2f, %.2f]", i, a.X[i], a.Y[i], a.Lo[i], a.Hi[i], w.x, w.y, w.lo, w.hi)
		}
	}
	if !strings.Contains(c.Note, "Wilson 95%") || !strings.Contains(c.Note, "n = 148–263 per point") || strings.Contains(c.Note, "offline") {
		t.Errorf("note %q should say what the bars are", c.Note)
	}
	// Fitted: from 6.24-2 down to 0, from 36.62+2 up to the next 5.
	if lo, hi, ok := c.YRange(); !ok || lo != 0 || hi != 40 {
		t.Errorf("YRange = %v..%v (%v), want 0..40", lo, hi, ok)
	}
	c.FullRange = true
	if lo, hi, _ := c.YRange(); lo != 0 || hi != 100 {
		t.Errorf("FullRange YRange = %v..%v, want 0..100", lo, hi)
	}
	// High accuracies do not start the axis at 0.
	hiC := &Chart{Percent: true, Series: []Series{{X: []float64{1, 2}, Y: []float64{78, 82}, Lo: []float64{74, 79}, Hi: []float64{81.5, 84.6}}}}
	if lo, hi, _ := hiC.YRange(); lo != 70 || hi != 90 {
		t.Errorf("YRange of 74..84.6 = %v..%v, want 70..90", lo, hi)
	}
	// A flat series still gets a readable span.
	flat := &Chart{Percent: true, Series: []Series{{X: []float64{1}, Y: []float64{50}}}}
	if lo, hi, _ := flat.YRange(); hi-lo < 10 || lo > 48 || hi < 52 {
		t.Errorf("YRange of a single 50 = %v..%v", lo, hi)
	}
}

func TestPaletteAndMarkers(t *testing.T) {
	okabeIto := []string{"#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000", "#F0E442"}
	seenC, seenM := map[string]bool{}, map[string]bool{}
	for i := range okabeIto {
		c, m, _ := Style(i)
		hex := fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B)
		if hex != okabeIto[i] {
			t.Errorf("series %d colour %s, want %s", i, hex, okabeIto[i])
		}
		seenC[hex], seenM[fmt.Sprintf("%T", m)] = true, true
	}
	if len(seenC) != 8 || len(seenM) != 8 {
		t.Errorf("8 series should have 8 colours and 8 markers, got %d and %d", len(seenC), len(seenM))
	}
}

// The saved figure: PNG at 300 dpi of 17 x 10 cm with the series'
// colours in it, SVG and PDF; the framed legend lies outside the data area.
func TestSaveFormatsAndLayout(t *testing.T) {
	c := &Chart{Title: "t", XLabel: "k", YLabel: "acc", Points: true, Percent: true, Note: offlineNote,
		Series: []Series{
			{Name: "first", X: []float64{1, 5, 10}, Y: []float64{20, 30, 35}, Lo: []float64{10, 20, 25}, Hi: []float64{30, 40, 45}},
			{Name: "second-with-a-long-name", X: []float64{1, 5, 10}, Y: []float64{25, 28, 40}, Lo: []float64{15, 18, 30}, Hi: []float64{35, 38, 50}},
		}}
	paths, err := c.Save(filepath.Join(t.TempDir(), "fig"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("paths %v, want png, svg, pdf", paths)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if dpi := PNGDPI(b); dpi != 300 {
		t.Errorf("png says %d dpi, want 300", dpi)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	// 17 cm and 10 cm at 300 dots per inch.
	if bd := img.Bounds(); bd.Dx() != 2008 || bd.Dy() != 1181 {
		t.Errorf("png %dx%d, want 2008x1181", bd.Dx(), bd.Dy())
	}
	count := map[color.RGBA]int{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 2 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			count[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}]++
		}
	}
	for i := 0; i < 2; i++ {
		if col, _, _ := Style(i); count[col] < 200 {
			t.Errorf("series %d colour %v drawn on only %d sampled pixels", i, col, count[col])
		}
	}
	svg, _ := os.ReadFile(paths[1])
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("second-with-a-long-name")) {
		t.Errorf("svg lacks the drawing or the legend text")
	}
	pdf, _ := os.ReadFile(paths[2])
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || len(pdf) < 1000 {
		t.Errorf("pdf: %d bytes starting %q", len(pdf), pdf[:min(8, len(pdf))])
	}

	lay, err := c.draw(draw.New(vgimg.New(Width, Height)))
	if err != nil {
		t.Fatal(err)
	}
	if lay.legend.Min.X < lay.data.Max.X {
		t.Errorf("legend frame %v overlaps the data area %v", lay.legend, lay.data)
	}
	if lay.legend.Max.X > Width || lay.legend.Max.Y > lay.data.Max.Y+1 {
		t.Errorf("legend frame %v outside the figure or above the data area %v", lay.legend, lay.data)
	}
}

// PNGDPI reads the resolution from a PNG's pHYs chunk (0 when it has none).
func PNGDPI(b []byte) int {
	for i := 8; i+12 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[i : i+4]))
		if string(b[i+4:i+8]) == "pHYs" && n == 9 && i+8+9 <= len(b) && b[i+16] == 1 {
			return int(math.Round(float64(binary.BigEndian.Uint32(b[i+8:i+12])) * 0.0254))
		}
		i += 12 + n
	}
	return 0
}
