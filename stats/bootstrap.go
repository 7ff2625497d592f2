package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// clusterSums groups values by cluster id (first-appearance order, so the
// result never depends on map iteration) and returns per-cluster sums and
// sizes. A nil clusters slice makes every value its own cluster.
func clusterSums(fn string, values []float64, clusters []string) (sums []float64, sizes []int, err error) {
	if len(values) == 0 {
		return nil, nil, fmt.Errorf("stats.%s: values is empty", fn)
	}
	if clusters == nil {
		sizes = make([]int, len(values))
		for i := range sizes {
			sizes[i] = 1
		}
		return slices.Clone(values), sizes, nil
	}
	if len(clusters) != len(values) {
		return nil, nil, errLen(fn, "values", "clusters", len(values), len(clusters))
	}
	idx := map[string]int{}
	for i, c := range clusters {
		j, ok := idx[c]
		if !ok {
			j = len(sums)
			idx[c] = j
			sums = append(sums, 0)
			sizes = append(sizes, 0)
		}
		sums[j] += values[i]
		sizes[j]++
	}
	return sums, sizes, nil
}

// bootstrapMeans draws B cluster resamples (clusters with replacement, as
// many as there are clusters) and returns each replicate's pooled mean,
// total of drawn sums / total of drawn sizes, sorted ascending.
func bootstrapMeans(sums []float64, sizes []int, b int, rng *rand.Rand) []float64 {
	k := len(sums)
	out := make([]float64, b)
	for r := range out {
		var s float64
		var n int
		for range k {
			j := rng.IntN(k)
			s += sums[j]
			n += sizes[j]
		}
		out[r] = s / float64(n)
	}
	slices.Sort(out)
	return out
}

// quantileSorted is the sample quantile of sorted x by linear interpolation
// between order statistics (Hyndman & Fan 1996, definition 7; R's default):
// h = (len−1)·q, x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]).
func quantileSorted(x []float64, q float64) float64 {
	h := float64(len(x)-1) * q
	lo := int(math.Floor(h))
	if lo >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}

// ClusterBootstrapCI is the percentile bootstrap interval for the mean of
// values when observations are clustered (questions within conversations):
// resample whole clusters with replacement, B times, take the mean of each
// replicate, and return the (1−level)/2 and 1−(1−level)/2 quantiles
// (Efron & Tibshirani 1993, ch. 13; cluster resampling per Davison &
// Hinkley 1997, sec. 3.8). clusters may be nil for the ordinary bootstrap.
func ClusterBootstrapCI(values []float64, clusters []string, b int, level float64, rng *rand.Rand) (lo, hi float64, err error) {
	if rng == nil {
		return 0, 0, errNilRand
	}
	if b < 2 {
		return 0, 0, fmt.Errorf("stats.ClusterBootstrapCI: replicates B=%d; use at least 1000", b)
	}
	if !(level > 0 && level < 1) {
		return 0, 0, fmt.Errorf("stats.ClusterBootstrapCI: level must be in (0,1), got %v (use 0.95)", level)
	}
	sums, sizes, err := clusterSums("ClusterBootstrapCI", values, clusters)
	if err != nil {
		return 0, 0, err
	}
	means := bootstrapMeans(sums, sizes, b, rng)
	a := (1 - level) / 2
	return quantileSorted(means, a), quantileSorted(means, 1-a), nil
}

// MinBootstrapClusters is the fewest clusters a cluster bootstrap
// resamples: with fewer (one conversation gives a zero-width interval),
// MeanCI falls back on Wilson over the observations.
const MinBootstrapClusters = 5

// Interval methods MeanCI reports.
const (
	CIClusterBootstrap = "cluster bootstrap over conversations"
	CIWilsonQuestions  = "Wilson over questions (fewer than 5 conversations)"
)

// MeanCI is the 95%-style interval (level) of the mean of values in
// [0,1] clustered by clusters: the cluster bootstrap (B replicates) with at
// least MinBootstrapClusters distinct clusters, else the Wilson interval
// of the mean as a rate over len(values) observations. method says which.
func MeanCI(values []float64, clusters []string, b int, level float64, rng *rand.Rand) (lo, hi float64, method string, err error) {
	if len(values) == 0 {
		return 0, 0, "", fmt.Errorf("stats.MeanCI: no values")
	}
	distinct := map[string]bool{}
	for _, c := range clusters {
		distinct[c] = true
	}
	if len(distinct) >= MinBootstrapClusters {
		lo, hi, err = ClusterBootstrapCI(values, clusters, b, level, rng)
		return lo, hi, CIClusterBootstrap, err
	}
	sum := 0.0
	for _, v := range values {
		sum += v
	}
	lo, hi = WilsonRate(sum/float64(len(values)), float64(len(values)), level)
	return lo, hi, CIWilsonQuestions, nil
}
