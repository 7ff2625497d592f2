package stats

import (
	"fmt"
	"math/rand/v2"
)

// Sampler draws one paired difference (points) for a power simulation.
type Sampler func(rng *rand.Rand) float64

// ResampleSampler draws uniformly, with replacement, from observed (pilot)
// paired differences: the nonparametric choice. An empty pool gives nil,
// which NIPower rejects.
func ResampleSampler(pool []float64) Sampler {
	if len(pool) == 0 {
		return nil
	}
	p := append([]float64(nil), pool...)
	return func(rng *rand.Rand) float64 { return p[rng.IntN(len(p))] }
}

// DiscordantSampler is the parametric model for 0/100 scores: a difference
// is +100 with probability pPlus (only A correct), −100 with pMinus (only B
// correct), else 0. Its mean is 100·(pPlus − pMinus).
func DiscordantSampler(pPlus, pMinus float64) Sampler {
	return func(rng *rand.Rand) float64 {
		u := rng.Float64()
		switch {
		case u < pPlus:
			return 100
		case u < pPlus+pMinus:
			return -100
		}
		return 0
	}
}

// NormalSampler draws N(mean, sd²) differences.
func NormalSampler(mean, sd float64) Sampler {
	return func(rng *rand.Rand) float64 { return mean + sd*rng.NormFloat64() }
}

// NIPower estimates the power of NonInferiorityDiffs at planned size n by
// simulation: reps times, draw n differences from sample, run the test at
// (margin, alpha) and count passes (Monte Carlo power; e.g. Arnold et al.
// 2011, BMC Med Res Methodol 11:94). The estimate's standard error is
// sqrt(power·(1−power)/reps).
func NIPower(sample Sampler, n, reps int, margin, alpha float64, rng *rand.Rand) (float64, error) {
	if rng == nil {
		return 0, errNilRand
	}
	if sample == nil {
		return 0, fmt.Errorf("stats.NIPower: sample is nil; use ResampleSampler(pilotDiffs) or DiscordantSampler")
	}
	if n < 2 || reps < 1 {
		return 0, fmt.Errorf("stats.NIPower: need n >= 2 and reps >= 1, got n=%d reps=%d", n, reps)
	}
	d := make([]float64, n)
	pass := 0
	for range reps {
		for i := range d {
			d[i] = sample(rng)
		}
		r, err := NonInferiorityDiffs(d, margin, alpha)
		if err != nil {
			return 0, err
		}
		if r.Pass {
			pass++
		}
	}
	return float64(pass) / float64(reps), nil
}
