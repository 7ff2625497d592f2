package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultMargin is the pre-registered non-inferiority margin of the
// raw-turn-selection study (papers.md section B): −5 points.
const DefaultMargin = -5.0

// NIResult is a paired non-inferiority test of A against B. Differences are
// d = a − b in the inputs' unit (points).
type NIResult struct {
	N      int
	Mean   float64 // mean of d
	SD     float64 // sample SD of d (n−1 denominator)
	SE     float64 // SD / sqrt(n)
	Lower  float64 // one-sided (1−Alpha) lower bound: Mean − t(1−Alpha, n−1)·SE
	T      float64 // (Mean − Margin) / SE
	P      float64 // one-sided p of H0: mean ≤ Margin
	Margin float64
	Alpha  float64
	Pass   bool // Lower > Margin (equivalently P < Alpha)
}

// NonInferiority runs the paired one-sample t test of non-inferiority on
// per-question scores a and b (0/100 or 0..100 points), at one-sided level
// alpha (0.05 for a 95% bound) against margin (DefaultMargin):
//
//	d_i = a_i − b_i,  SE = sd(d)/√n,  L = mean − t_{1−α,n−1}·SE
//	p = 1 − T_{n−1}((mean − margin)/SE)
//
// (Student 1908; non-inferiority framing per Wellek 2010, Testing
// Statistical Hypotheses of Equivalence and Noninferiority, ch. 5, and
// CONSORT's Piaggio et al. 2012). H0: mean ≤ margin is rejected (A is
// non-inferior) when L > margin.
func NonInferiority(a, b []float64, margin, alpha float64) (NIResult, error) {
	if len(a) != len(b) {
		return NIResult{}, errLen("NonInferiority", "a", "b", len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return NonInferiorityDiffs(d, margin, alpha)
}

// NonInferiorityDiffs is NonInferiority on precomputed differences d = a − b.
func NonInferiorityDiffs(d []float64, margin, alpha float64) (NIResult, error) {
	n := len(d)
	if n < 2 {
		return NIResult{}, fmt.Errorf("stats.NonInferiority: %d paired differences; need at least 2", n)
	}
	if !(alpha > 0 && alpha < 1) {
		return NIResult{}, fmt.Errorf("stats.NonInferiority: alpha must be in (0,1), got %v (use 0.05)", alpha)
	}
	if math.IsNaN(margin) || math.IsInf(margin, 0) {
		return NIResult{}, fmt.Errorf("stats.NonInferiority: margin %v is not finite (use %v)", margin, DefaultMargin)
	}
	m := mean(d)
	var k ksum
	for _, v := range d {
		k.add((v - m) * (v - m))
	}
	sd := math.Sqrt(k.value() / float64(n-1))
	se := sd / math.Sqrt(float64(n))
	r := NIResult{N: n, Mean: m, SD: sd, SE: se, Margin: margin, Alpha: alpha}
	if se == 0 {
		// Every difference is equal: no sampling spread, the decision is sure.
		r.Lower = m
		r.T = math.Copysign(math.Inf(1), m-margin)
		if m > margin {
			r.P = 0
		} else {
			r.P = 1
		}
	} else {
		dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
		r.Lower = m - dist.Quantile(1-alpha)*se
		r.T = (m - margin) / se
		r.P = dist.Survival(r.T) // = 1 − CDF, without cancellation
	}
	r.Pass = r.Lower > margin
	return r, nil
}
