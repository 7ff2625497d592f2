package stats

import (
	"math"
	"math/big"
	"testing"
)

func TestPaired(t *testing.T) {
	a := []bool{true, true, false, false, true, false}
	b := []bool{true, false, true, false, false, false}
	got, err := Paired(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := PairedTable{Both: 1, OnlyA: 2, OnlyB: 1, Neither: 2}
	if got != want {
		t.Errorf("Paired = %+v, want %+v", got, want)
	}
	if _, err := Paired(a, b[:2]); err == nil {
		t.Error("length mismatch accepted")
	}
}

// Exact McNemar by hand: b=1, c=8, n=9, P(X ≤ 1) = (C(9,0)+C(9,1))/2⁹ = 10/512,
// so p = 20/512 = 0.0390625 exactly (binary fraction, so bit-exact).
// b=0,c=5: p = 2/32 = 0.0625. b=c gives p = 1 (capped). b=c=0 gives 1.
func TestMcNemarExactSmall(t *testing.T) {
	cases := []struct {
		b, c int
		want float64
	}{
		{1, 8, 0.0390625},
		{8, 1, 0.0390625},
		{0, 5, 0.0625},
		{3, 3, 1},
		{0, 0, 1},
		{2, 3, 1}, // 2·P(X≤2 | n=5) = 2·16/32 = 1
		{1, 4, 0.375},
	}
	for _, c := range cases {
		p, err := McNemarExact(c.b, c.c)
		if err != nil {
			t.Fatal(err)
		}
		if p != c.want {
			t.Errorf("McNemarExact(%d,%d) = %.17g, want %.17g", c.b, c.c, p, c.want)
		}
	}
	if _, err := McNemarExact(-1, 2); err == nil {
		t.Error("negative count accepted")
	}
}

// Larger counts: the discordant cells of Wikipedia's "McNemar's test" example
// (b=121, c=59). Reference: the same binomial tail summed in exact rationals
// here by a separate route (C(n,k) via big.Int.Binomial), and the exact
// count path must agree with gonum's incomplete-beta path to ~1e-12 relative.
func TestMcNemarExactLarge(t *testing.T) {
	p, _ := McNemarExact(121, 59)
	sum := new(big.Int)
	for k := int64(0); k <= 59; k++ {
		sum.Add(sum, new(big.Int).Binomial(180, k))
	}
	want, _ := new(big.Rat).SetFrac(new(big.Int).Lsh(sum, 1), new(big.Int).Lsh(big.NewInt(1), 180)).Float64()
	if p != want {
		t.Errorf("McNemarExact(121,59) = %.17g, want %.17g", p, want)
	}
	if !(p > 3e-6 && p < 6e-6) { // same order as the chi-square p ≈ 5.45e-6
		t.Errorf("McNemarExact(121,59) = %g, implausible", p)
	}
	// Crossing the exact/beta switch must not jump.
	n := exactBinomialLimit
	pe, _ := McNemarExact(n/2-80, n/2+80)
	pb, _ := McNemarExact(n/2-80, n/2+81)
	if !(pb < pe && pe/pb < 1.2) {
		t.Errorf("tail around the switch: exact %g, beta %g", pe, pb)
	}
}

// Chi-square forms.
//   - Wikipedia "McNemar's test" example, b=121, c=59: uncorrected
//     χ² = 62²/180 = 21.3556 (as printed); corrected (61)²/180 = 20.672…
//     with p = 5.45009482542711984e-6 (30-digit mpmath upper incomplete gamma).
//   - Agresti (2013) Categorical Data Analysis, sec. 11.1, presidential
//     approval, b=150, c=86: z² = 64²/236 = 17.36 uncorrected.
func TestMcNemarChiSquare(t *testing.T) {
	s, p, err := McNemarChiSquare(121, 59, false)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "Wikipedia χ²", s, 21.3556, 0.5e-4)
	if p >= 0.001 {
		t.Errorf("p = %g, want < 0.001", p)
	}
	s, p, _ = McNemarChiSquare(121, 59, true)
	near(t, "χ² CC", s, 3721.0/180, 1e-14)
	near(t, "p CC", p, 5.45009482542711984e-6, 1e-18)
	s, _, _ = McNemarChiSquare(150, 86, false)
	near(t, "Agresti z²", s, 17.36, 0.005)
	s, _, _ = McNemarChiSquare(150, 86, true)
	near(t, "Agresti CC", s, 3969.0/236, 1e-14)
	// |b−c| ≤ 1 with correction: statistic 0, p 1.
	s, p, _ = McNemarChiSquare(4, 5, true)
	if s != 0 || p != 1 {
		t.Errorf("b=4,c=5 CC: stat=%v p=%v, want 0, 1", s, p)
	}
	_, p, _ = McNemarChiSquare(0, 0, true)
	if p != 1 {
		t.Errorf("empty table p = %v", p)
	}
	// χ²₁ survival of s equals the two-sided normal tail erfc(√(s/2)), an
	// independent route to the same p (Agresti's z = 4.166).
	s, p, _ = McNemarChiSquare(150, 86, false)
	near(t, "p vs normal tail", p, math.Erfc(math.Sqrt(s/2)), 1e-17)
}
