package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// A true mean far above the margin: power → 1.
func TestPowerLargeGap(t *testing.T) {
	p, err := NIPower(NormalSampler(10, 30), 200, 500, DefaultMargin, 0.05, NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	if p < 0.99 {
		t.Errorf("power = %v, want ≈ 1", p)
	}
}

// At the margin exactly, a level-α test passes with probability α
// (the type I error). 4000 reps: Monte Carlo SE ≈ 0.0034.
func TestPowerAtMarginIsAlpha(t *testing.T) {
	p, _ := NIPower(NormalSampler(-5, 30), 100, 4000, DefaultMargin, 0.05, NewRand(2))
	near(t, "normal at margin", p, 0.05, 0.02)

	// Nonparametric: a 0/±100 pool whose mean is exactly −5 points
	// (60 × +100, 80 × −100, 260 × 0 → −2000/400), resampled at n = 778.
	var pool []float64
	for range 60 {
		pool = append(pool, 100)
	}
	for range 80 {
		pool = append(pool, -100)
	}
	for range 260 {
		pool = append(pool, 0)
	}
	p, _ = NIPower(ResampleSampler(pool), 778, 2000, DefaultMargin, 0.05, NewRand(3))
	near(t, "resampled at margin", p, 0.05, 0.02)
}

// Between the extremes, compare with the normal approximation for a
// one-sample non-inferiority test (Chow, Shao & Wang, Sample Size
// Calculations in Clinical Research, sec. 3.1):
// power ≈ Φ((μ − δ)√n/σ − z_{1−α}). μ = 0, δ = −5, σ = 30, n = 200 →
// Φ(2.357 − 1.645) ≈ 0.76.
func TestPowerMatchesNormalApproximation(t *testing.T) {
	want := distuv.UnitNormal.CDF(5*math.Sqrt(200)/30 - distuv.UnitNormal.Quantile(0.95))
	p, _ := NIPower(NormalSampler(0, 30), 200, 3000, DefaultMargin, 0.05, NewRand(4))
	near(t, "power", p, want, 0.03)

	// The parametric discordant model: plus = minus = 0.09 gives mean 0 and
	// SD ≈ 100·√0.18 = 42.4 at n = 778 → Φ(5·√778/42.43 − 1.645) ≈ 0.87.
	want = distuv.UnitNormal.CDF(5*math.Sqrt(778)/(100*math.Sqrt(0.18)) - distuv.UnitNormal.Quantile(0.95))
	p, _ = NIPower(DiscordantSampler(0.09, 0.09), 778, 2000, DefaultMargin, 0.05, NewRand(5))
	near(t, "discordant power", p, want, 0.03)
}

func TestPowerSeeded(t *testing.T) {
	s := DiscordantSampler(0.1, 0.12)
	a, _ := NIPower(s, 300, 300, DefaultMargin, 0.05, NewRand(9))
	b, _ := NIPower(s, 300, 300, DefaultMargin, 0.05, NewRand(9))
	if a != b {
		t.Errorf("same seed: %v vs %v", a, b)
	}
	if _, err := NIPower(nil, 10, 10, -5, 0.05, NewRand(1)); err == nil {
		t.Error("nil sampler accepted")
	}
	if _, err := NIPower(ResampleSampler(nil), 10, 10, -5, 0.05, NewRand(1)); err == nil {
		t.Error("empty pool accepted")
	}
	if _, err := NIPower(s, 1, 10, -5, 0.05, NewRand(1)); err == nil {
		t.Error("n=1 accepted")
	}
}
