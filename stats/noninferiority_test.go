package stats

import (
	"fmt"
	"testing"
)

// Hand example: d = (10, −5, 0, 20, 5), n = 5. mean 6, Σ(d−mean)² = 370,
// SD = √92.5, SE = √18.5 = 4.30116; t(0.95, 4) = 2.132 (any Student t
// table; 2.13184678632665032 in 30-digit mpmath), so the 95% one-sided
// bound is 6 − 2.1318·4.3012 = −3.1694. Against −5: T = 11/√18.5 =
// 2.5574, p = 1 − T₄(2.5574) = 0.0314038055 (mpmath incomplete beta).
func TestNonInferiorityHand(t *testing.T) {
	a := []float64{100, 50, 60, 80, 100}
	b := []float64{90, 55, 60, 60, 95}
	r, err := NonInferiority(a, b, DefaultMargin, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if r.N != 5 {
		t.Fatalf("N = %d", r.N)
	}
	near(t, "mean", r.Mean, 6, 1e-14)
	near(t, "SD", r.SD, 9.61769203083567238, 1e-13)
	near(t, "SE", r.SE, 4.30116263352131339, 1e-13)
	near(t, "lower", r.Lower, -3.16941973774068395, 1e-11)
	near(t, "lower (table)", r.Lower, 6-2.132*4.30116, 5e-3)
	near(t, "T", r.T, 2.55744805236402418, 1e-13)
	near(t, "p", r.P, 0.0314038055003505869, 1e-13)
	if !r.Pass {
		t.Error("lower −3.17 > −5 should pass")
	}
	// A tighter margin the bound does not clear: fails, p > alpha.
	r2, _ := NonInferiority(a, b, -2, 0.05)
	if r2.Pass || r2.P <= 0.05 {
		t.Errorf("margin −2: pass=%v p=%v, want fail with p > 0.05", r2.Pass, r2.P)
	}
}

// h1Diffs builds the seed paper's H1 situation (papers.md B: n = 778,
// difference −0.5 points, one-sided 95% bound −3.0, p = 0.0017). With 0/100
// scores each difference is −100, 0 or +100, so the mean is 100·(plus −
// minus)/778; −389/778 is not reachable, the nearest is plus − minus = −4
// (mean −0.514). The SE is then ≈ 100·√(plus+minus)/778, and a bound of
// −3.0 needs SE ≈ 2.5/1.647 ≈ 1.52, i.e. about 140 discordant questions.
// plus = 68, minus = 72 (638 ties) gives mean −0.5141, SE 1.5217, bound
// −3.0201, p = 0.0016476 (30-digit mpmath: −3.02011633567606059,
// 0.00164758305797040605). Questions are spread over five conversations
// (the paper's conv-44..50) round-robin, for the clustered bootstrap.
func h1Diffs() (d []float64, conv []string) {
	add := func(n int, v float64) {
		for range n {
			d = append(d, v)
		}
	}
	add(68, 100)
	add(72, -100)
	add(638, 0)
	for i := range d {
		conv = append(conv, fmt.Sprintf("conv-%d", 44+i%5))
	}
	return d, conv
}

func TestNonInferiorityH1(t *testing.T) {
	d, _ := h1Diffs()
	r, err := NonInferiorityDiffs(d, DefaultMargin, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if r.N != 778 {
		t.Fatalf("N = %d", r.N)
	}
	near(t, "mean", r.Mean, -400.0/778, 1e-14)
	near(t, "mean ≈ −0.5", r.Mean, -0.5, 0.05)
	near(t, "SE", r.SE, 1.52170970129160707, 1e-13)
	near(t, "lower", r.Lower, -3.02011633567606059, 1e-11)
	near(t, "lower ≈ −3.0", r.Lower, -3.0, 0.05)
	near(t, "p", r.P, 0.00164758305797040605, 1e-14)
	if r.P < 0.0015 || r.P > 0.0025 || !r.Pass {
		t.Errorf("p = %v pass=%v; want p in [0.0015, 0.0025] and pass", r.P, r.Pass)
	}
}

func TestNonInferiorityDegenerate(t *testing.T) {
	r, _ := NonInferiorityDiffs([]float64{0, 0, 0}, -5, 0.05)
	if !r.Pass || r.P != 0 || r.Lower != 0 {
		t.Errorf("all-zero differences: %+v", r)
	}
	r, _ = NonInferiorityDiffs([]float64{-10, -10}, -5, 0.05)
	if r.Pass || r.P != 1 {
		t.Errorf("all −10: %+v", r)
	}
	if _, err := NonInferiorityDiffs([]float64{1}, -5, 0.05); err == nil {
		t.Error("n=1 accepted")
	}
	if _, err := NonInferiority([]float64{1, 2}, []float64{1}, -5, 0.05); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, err := NonInferiorityDiffs([]float64{1, 2}, -5, 5); err == nil {
		t.Error("alpha 5 accepted")
	}
}

// With 0/±100 scores every difference is an integer, so the mean must be the
// correctly rounded quotient of the exact sum. The real Zep vs Memobase
// v0.0.37 table (209 only-A, 219 only-B, 1112 ties) gives −1000/1540; a
// correction pass over (d − mean) used to drift ~50 ulps from it.
func TestNonInferiorityMeanExactForIntegerDiffs(t *testing.T) {
	var d []float64
	for range 209 {
		d = append(d, 100)
	}
	for range 219 {
		d = append(d, -100)
	}
	for range 1112 {
		d = append(d, 0)
	}
	r, err := NonInferiorityDiffs(d, DefaultMargin, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if want := -1000.0 / 1540; r.Mean != want {
		t.Errorf("mean = %.17g, want %.17g (exact sum / n)", r.Mean, want)
	}
}

// The mean of a constant is that constant, even where the rounded sum is not
// n times it (3 × 0.1 sums to 0.30000000000000004).
func TestMeanOfConstant(t *testing.T) {
	for _, c := range []float64{0.1, 0.7, 123.456, -2.3} {
		for n := 1; n <= 50; n++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = c
			}
			if m := mean(x); m != c {
				t.Fatalf("mean of %d × %v = %.17g", n, c, m)
			}
		}
	}
}
