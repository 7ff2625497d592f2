package stats

import (
	"fmt"
	"math"
	"testing"
)

// Hyndman & Fan (1996) definition 7 equals R's quantile(type = 7):
// quantile(1:5, c(0, .1, .5, .975, 1)) = 1, 1.4, 3, 4.9, 5.
func TestQuantileType7(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	for _, c := range [][2]float64{{0, 1}, {0.1, 1.4}, {0.5, 3}, {0.975, 4.9}, {1, 5}} {
		near(t, fmt.Sprint("q", c[0]), quantileSorted(x, c[0]), c[1], 1e-15)
	}
}

// Replicate means pool observations (drawn sums / drawn sizes), not average
// cluster means. Clusters a = {0,0,0}, b = {100}: a resample is aa → 0,
// bb → 100 or ab/ba → 100/4 = 25, with probabilities ¼, ¼, ½. The 30%
// quantile therefore lands on 25 (a mean of cluster means would give 50).
func TestClusterMeansArePooled(t *testing.T) {
	v := []float64{0, 0, 0, 100}
	c := []string{"a", "a", "a", "b"}
	l, _, err := ClusterBootstrapCI(v, c, 4000, 0.40, NewRand(7)) // lower end: the 30% quantile
	if err != nil {
		t.Fatal(err)
	}
	if l != 25 {
		t.Errorf("30%% quantile = %v, want 25", l)
	}
	lo, hi, _ := ClusterBootstrapCI(v, c, 4000, 0.95, NewRand(7))
	if lo != 0 || hi != 100 {
		t.Errorf("95%% interval = [%v, %v], want [0, 100]", lo, hi)
	}
}

// Large iid sample: the percentile interval is close to the normal-theory
// mean ± 1.96·SD/√n (Efron & Tibshirani 1993, ch. 13). 0/1 data, p = 0.3,
// n = 2000: half-width 1.96·√(0.21/2000) = 0.0201.
func TestBootstrapMatchesNormalTheory(t *testing.T) {
	n := 2000
	v := make([]float64, n)
	for i := range v {
		if i%10 < 3 {
			v[i] = 1
		}
	}
	lo, hi, err := ClusterBootstrapCI(v, nil, 4000, 0.95, NewRand(11))
	if err != nil {
		t.Fatal(err)
	}
	half := 1.959964 * math.Sqrt(0.3*0.7/float64(n))
	near(t, "lo", lo, 0.3-half, 0.1*half)
	near(t, "hi", hi, 0.3+half, 0.1*half)
}

// When each conversation's questions are perfectly correlated (10 identical
// values per cluster), there are only 40 independent units, so the cluster
// bootstrap interval must be about √10 ≈ 3.2 times wider than the iid one.
func TestClusterBootstrapWidensForCorrelation(t *testing.T) {
	var v []float64
	var c []string
	for k := range 40 {
		val := 0.0
		if k%5 < 2 {
			val = 100
		}
		for range 10 {
			v = append(v, val)
			c = append(c, fmt.Sprint("conv", k))
		}
	}
	clo, chi, _ := ClusterBootstrapCI(v, c, 3000, 0.95, NewRand(5))
	ilo, ihi, _ := ClusterBootstrapCI(v, nil, 3000, 0.95, NewRand(5))
	ratio := (chi - clo) / (ihi - ilo)
	if ratio < 2.6 || ratio > 3.8 {
		t.Errorf("cluster/iid width ratio %.2f, want ≈ 3.2", ratio)
	}
	if !(clo < 40 && chi > 40) {
		t.Errorf("interval [%v,%v] misses the mean 40", clo, chi)
	}
}

func TestClusterBootstrapSeedsAndErrors(t *testing.T) {
	v := []float64{1, 5, 2, 8, 3, 9, 4}
	c := []string{"x", "x", "y", "y", "z", "w", "w"}
	a1, b1, _ := ClusterBootstrapCI(v, c, 500, 0.9, NewRand(42))
	a2, b2, _ := ClusterBootstrapCI(v, c, 500, 0.9, NewRand(42))
	a3, b3, _ := ClusterBootstrapCI(v, c, 500, 0.9, NewRand(43))
	if a1 != a2 || b1 != b2 {
		t.Error("same seed, different interval")
	}
	if a1 == a3 && b1 == b3 {
		t.Error("different seeds, identical interval")
	}
	lo, hi, _ := ClusterBootstrapCI([]float64{7, 7, 7}, nil, 100, 0.95, NewRand(1))
	if lo != 7 || hi != 7 {
		t.Errorf("constant data: [%v, %v]", lo, hi)
	}
	for _, tc := range []struct {
		v     []float64
		c     []string
		b     int
		level float64
	}{
		{nil, nil, 100, 0.95},
		{v, c[:2], 100, 0.95},
		{v, c, 1, 0.95},
		{v, c, 100, 95},
	} {
		if _, _, err := ClusterBootstrapCI(tc.v, tc.c, tc.b, tc.level, NewRand(1)); err == nil {
			t.Errorf("bad input accepted: %+v", tc)
		}
	}
}

// One conversation cannot be resampled: the interval falls back on Wilson
// over its questions and has width; five conversations get the bootstrap.
func TestMeanCIFallsBackOnWilsonUnderFiveClusters(t *testing.T) {
	vals := []float64{1, 0, 1, 1, 0, 1, 0.5, 1, 0, 1}
	one := make([]string, len(vals))
	for i := range one {
		one[i] = "conv-26"
	}
	lo, hi, method, err := MeanCI(vals, one, 1000, 0.95, NewRand(1))
	if err != nil || method != CIWilsonQuestions || !(hi-lo > 0.1) || lo > 0.65 || hi < 0.65 {
		t.Fatalf("one conversation: [%v, %v] %q %v; want a Wilson interval of width around the mean 0.65", lo, hi, method, err)
	}
	five := []string{"a", "a", "b", "b", "c", "c", "d", "d", "e", "e"}
	_, _, method, err = MeanCI(vals, five, 1000, 0.95, NewRand(1))
	if err != nil || method != CIClusterBootstrap {
		t.Fatalf("five conversations: %q %v", method, err)
	}
}
