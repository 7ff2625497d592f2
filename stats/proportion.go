package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Proportion is a success rate with a two-sided confidence interval.
// All fields are fractions in [0, 1]; multiply by 100 for points.
type Proportion struct {
	Successes, N int
	P            float64 // Successes / N
	Lo, Hi       float64 // interval bounds
	Level        float64 // e.g. 0.95
}

// zTwoSided is the standard normal quantile for a two-sided interval at level.
func zTwoSided(level float64) float64 {
	return distuv.UnitNormal.Quantile(1 - (1-level)/2)
}

// Wilson returns the Wilson score interval for successes out of n.
//
// Formula (Wilson 1927; Newcombe 1998, Stat Med 17:857, method 3):
//
//	center = (p + z²/2n) / (1 + z²/n)
//	half   = z/(1 + z²/n) · sqrt(p(1−p)/n + z²/4n²)
//
// with p = successes/n and z the 1−(1−level)/2 normal quantile. The bounds
// are clamped to [0, 1] (they can fall outside only by rounding).
func Wilson(successes, n int, level float64) (lo, hi float64, err error) {
	if n <= 0 || successes < 0 || successes > n {
		return 0, 0, fmt.Errorf("stats.Wilson: need 0 <= successes <= n and n > 0, got successes=%d n=%d", successes, n)
	}
	if !(level > 0 && level < 1) {
		return 0, 0, fmt.Errorf("stats.Wilson: level must be in (0,1), got %v (use 0.95)", level)
	}
	lo, hi = WilsonRate(float64(successes)/float64(n), float64(n), level)
	return lo, hi, nil
}

// WilsonRate is Wilson's interval for a rate p observed over n trials,
// for a rate that is not a whole count over n (the mean of several
// judgment runs' rates); level must be in (0, 1) and n positive.
func WilsonRate(p, n, level float64) (lo, hi float64) {
	z := zTwoSided(level)
	z2 := z * z
	den := 1 + z2/n
	center := (p + z2/(2*n)) / den
	half := z / den * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	lo, hi = math.Max(0, center-half), math.Min(1, center+half)
	// At the edges the exact bound is 0 or 1; avoid a 1e-17 residue.
	if p == 0 {
		lo = 0
	}
	if p == 1 {
		hi = 1
	}
	return lo, hi
}
