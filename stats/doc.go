// Package stats holds the pure statistical functions membench reports with:
// proportion intervals, clustered bootstrap, rater agreement, McNemar,
// Holm correction, paired non-inferiority with its power, and token matching.
//
// Everything here is deterministic given its inputs (and a seeded *rand.Rand
// for the resampling functions); nothing does I/O. Distributions come from
// gonum.org/v1/gonum/stat/distuv. Where a result is a ratio of integer
// counts (kappas, the exact McNemar p) it is computed in exact rational
// arithmetic and rounded once, so it is correct to the last float64 digit.
package stats

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// NewRand returns the generator the resampling functions expect, seeded so
// that a run can be repeated bit for bit (PCG's output is fixed by the Go
// specification of math/rand/v2, not by the release).
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6d656d62656e6368)) // "membench"
}

var errNilRand = errors.New("stats: rng is nil; pass stats.NewRand(seed)")

func errLen(fn, a, b string, na, nb int) error {
	return fmt.Errorf("stats.%s: %s has %d values but %s has %d; pass parallel slices of equal length", fn, a, na, b, nb)
}
