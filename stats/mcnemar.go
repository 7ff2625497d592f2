package stats

import (
	"fmt"
	"math"
	"math/big"

	"gonum.org/v1/gonum/stat/distuv"
)

// PairedTable is the 2×2 table of two systems scored on the same questions.
// OnlyA and OnlyB are the discordant cells McNemar's test uses.
type PairedTable struct {
	Both, OnlyA, OnlyB, Neither int
}

// Paired cross-tabulates per-question correctness of systems A and B.
func Paired(a, b []bool) (PairedTable, error) {
	if len(a) != len(b) {
		return PairedTable{}, errLen("Paired", "a", "b", len(a), len(b))
	}
	var t PairedTable
	for i := range a {
		switch {
		case a[i] && b[i]:
			t.Both++
		case a[i]:
			t.OnlyA++
		case b[i]:
			t.OnlyB++
		default:
			t.Neither++
		}
	}
	return t, nil
}

// exactBinomialLimit bounds the discordant count for which the binomial tail
// is summed in exact integers; above it gonum's regularized incomplete beta
// is used (still accurate to ~1e-14 relative).
const exactBinomialLimit = 20000

// McNemarExact is the exact (conditional binomial) McNemar test on the
// discordant counts b and c: with X ~ Bin(b+c, 1/2),
//
//	p = min(1, 2·P(X ≤ min(b, c)))
//
// (McNemar 1947; Agresti 2013, Categorical Data Analysis 3rd ed., sec. 11.1.4).
// The tail is Σ_{k≤min} C(b+c, k) / 2^(b+c), summed exactly. b = c = 0 gives 1.
func McNemarExact(b, c int) (float64, error) {
	if b < 0 || c < 0 {
		return 0, fmt.Errorf("stats.McNemarExact: discordant counts must be >= 0, got b=%d c=%d", b, c)
	}
	n, m := b+c, min(b, c)
	if n == 0 {
		return 1, nil
	}
	if n > exactBinomialLimit {
		return math.Min(1, 2*distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(m))), nil
	}
	// Running C(n, k) = C(n, k−1)·(n−k+1)/k stays an integer at every step.
	coef := big.NewInt(1)
	sum := big.NewInt(1)
	for k := 1; k <= m; k++ {
		coef.Mul(coef, big.NewInt(int64(n-k+1)))
		coef.Quo(coef, big.NewInt(int64(k)))
		sum.Add(sum, coef)
	}
	sum.Lsh(sum, 1) // two-sided
	den := new(big.Int).Lsh(big.NewInt(1), uint(n))
	if sum.Cmp(den) >= 0 {
		return 1, nil
	}
	return ratio(sum, den), nil
}

// McNemarChiSquare is McNemar's asymptotic test on discordant counts b, c,
// chi-square with 1 df. With continuity (Edwards 1948) the statistic is
// (|b−c|−1)²/(b+c), else (b−c)²/(b+c) (McNemar 1947). With the correction,
// |b−c| < 1 gives 0. b = c = 0 gives stat 0, p 1.
func McNemarChiSquare(b, c int, continuity bool) (stat, p float64, err error) {
	if b < 0 || c < 0 {
		return 0, 0, fmt.Errorf("stats.McNemarChiSquare: discordant counts must be >= 0, got b=%d c=%d", b, c)
	}
	if b+c == 0 {
		return 0, 1, nil
	}
	d := math.Abs(float64(b - c))
	if continuity {
		d = math.Max(0, d-1)
	}
	stat = d * d / float64(b+c)
	return stat, distuv.ChiSquared{K: 1}.Survival(stat), nil
}
