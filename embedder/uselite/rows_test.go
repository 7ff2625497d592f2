package uselite

import (
	"math"
	"testing"
)

// exp32 agrees with math.Exp to float32 precision over the range softmax
// feeds it (scores minus their maximum), and is 0 far below it.
func TestExp32(t *testing.T) {
	worst := 0.0
	for x := -87.0; x <= 0; x += 0.000913 {
		got, want := float64(exp32(float32(x))), math.Exp(float64(float32(x)))
		rel := math.Abs(got-want) / want
		worst = math.Max(worst, rel)
		if rel > 4e-7 {
			t.Fatalf("exp32(%v) = %v, want %v (relative error %.2g)", float32(x), got, want, rel)
		}
	}
	for _, x := range []float32{-87.5, -100, -1e9, float32(math.Inf(-1))} {
		if got := exp32(x); got != 0 {
			t.Errorf("exp32(%v) = %v, want 0", x, got)
		}
	}
	t.Logf("max relative error %.2g", worst)
}

// layerNorm equals its float64 definition on rows of odd widths too.
func TestLayerNorm(t *testing.T) {
	for _, d := range []int{1, 3, 256, 513} {
		rows := 3
		x, y := make([]float32, rows*d), make([]float32, rows*d)
		scale, bias := make([]float32, d), make([]float32, d)
		for i := range x {
			x[i] = float32(math.Sin(float64(i)*0.7))*3 + float32(i%5)
		}
		for j := range d {
			scale[j], bias[j] = 0.5+float32(j%3), float32(j%7)-3
		}
		layerNorm(x, rows, d, scale, bias, 1e-6, y)
		for r := range rows {
			var mean, vr float64
			for _, v := range x[r*d : (r+1)*d] {
				mean += float64(v)
			}
			mean /= float64(d)
			for _, v := range x[r*d : (r+1)*d] {
				vr += (float64(v) - mean) * (float64(v) - mean)
			}
			vr /= float64(d)
			for j := range d {
				want := (float64(x[r*d+j])-mean)/math.Sqrt(vr+1e-6)*float64(scale[j]) + float64(bias[j])
				if got := float64(y[r*d+j]); math.Abs(got-want) > 1e-5*(1+math.Abs(want)) {
					t.Fatalf("d=%d row %d col %d: %v, want %v", d, r, j, got, want)
				}
			}
		}
	}
}
