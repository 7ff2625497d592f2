package stats

import (
	"fmt"
	"math"
	"slices"
)

// MatchK picks k* for token matching (papers.md section B): the k whose
// mean rendered tokens is closest to the comparator's mean reference; ties
// go to the smaller k. NaN candidates are skipped.
func MatchK(reference float64, candidates map[int]float64) (int, error) {
	if math.IsNaN(reference) {
		return 0, fmt.Errorf("stats.MatchK: reference mean tokens is NaN")
	}
	ks := make([]int, 0, len(candidates))
	for k, v := range candidates {
		if !math.IsNaN(v) {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return 0, fmt.Errorf("stats.MatchK: no candidate k with a mean token count; measure at least one k")
	}
	slices.Sort(ks) // ascending, so a strict < keeps the smaller k on ties
	best, bestGap := ks[0], math.Abs(candidates[ks[0]]-reference)
	for _, k := range ks[1:] {
		if g := math.Abs(candidates[k] - reference); g < bestGap {
			best, bestGap = k, g
		}
	}
	return best, nil
}
