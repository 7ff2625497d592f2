package stats

import (
	"math"
	"testing"
)

// Wikipedia, "Cohen's kappa", worked example: 50 proposals, both yes 20,
// A yes/B no 5, A no/B yes 10, both no 15: p_o = 0.7, p_e = 0.5, κ = 0.4.
// The article's two further tables: (45,15,25,15) → 0.1304 and
// (25,35,5,35) → 0.2593; exact fractions 3/23 and 7/27 by hand.
func TestCohenKappaWikipedia(t *testing.T) {
	cases := []struct {
		a, b, c, d int
		want       float64
	}{
		{20, 5, 10, 15, 0.4},
		{45, 15, 25, 15, 3.0 / 23},
		{25, 35, 5, 35, 7.0 / 27},
	}
	for _, c := range cases {
		k, err := CohenKappaTable([][]int{{c.a, c.b}, {c.c, c.d}})
		if err != nil {
			t.Fatal(err)
		}
		if k != c.want { // exact: the fraction is rounded once
			t.Errorf("table %v: κ = %.17g, want %.17g", c, k, c.want)
		}
	}
	near(t, "rounded 0.1304", 3.0/23, 0.1304, 0.5e-4)
	near(t, "rounded 0.2593", 7.0/27, 0.2593, 0.5e-4)
}

// The same 50-item example as raw label vectors, for the bool and generic paths.
func TestCohenKappaFromLabels(t *testing.T) {
	var a, b []bool
	add := func(n int, x, y bool) {
		for range n {
			a, b = append(a, x), append(b, y)
		}
	}
	add(20, true, true)
	add(5, true, false)
	add(10, false, true)
	add(15, false, false)
	k, err := CohenKappaBinary(a, b)
	if err != nil || k != 0.4 {
		t.Fatalf("CohenKappaBinary = %v, %v; want 0.4", k, err)
	}
	// Swapping raters leaves κ unchanged; relabelling categories too.
	k2, _ := CohenKappaBinary(b, a)
	if k2 != 0.4 {
		t.Errorf("swapped raters κ = %v", k2)
	}
	sa, sb := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		sa[i], sb[i] = map[bool]string{true: "yes", false: "no"}[a[i]], map[bool]string{true: "yes", false: "no"}[b[i]]
	}
	if k3, _ := CohenKappa(sa, sb); k3 != 0.4 {
		t.Errorf("string labels κ = %v", k3)
	}
	// Three categories, hand computed: table [[5,1,0],[2,4,1],[0,1,6]], N = 20,
	// diag 15, rows (6,7,7), cols (7,6,7): κ = (20·15 − 133)/(400 − 133) = 167/267.
	var x, y []int
	tab := [][]int{{5, 1, 0}, {2, 4, 1}, {0, 1, 6}}
	for i, row := range tab {
		for j, n := range row {
			for range n {
				x, y = append(x, i), append(y, j)
			}
		}
	}
	if k4, _ := CohenKappa(x, y); k4 != 167.0/267 {
		t.Errorf("3-category κ = %.17g, want 167/267", k4)
	}
	if k5, _ := CohenKappa([]int{1, 1}, []int{1, 1}); !math.IsNaN(k5) {
		t.Errorf("single shared category: κ = %v, want NaN (undefined)", k5)
	}
	if _, err := CohenKappa([]int{1}, []int{1, 2}); err == nil {
		t.Error("length mismatch accepted")
	}
}

// Fleiss (1971) / Wikipedia "Fleiss' kappa" worked example: 10 subjects,
// 14 raters, 5 categories; P̄ = 0.378, P̄e = 0.213, κ = 0.210. By hand in
// exact fractions P̄ = 172/455, P̄e = 417/1960, κ = 4211/20059.
func fleissExample() [][]int {
	return [][]int{
		{0, 0, 0, 0, 14},
		{0, 2, 6, 4, 2},
		{0, 0, 3, 5, 6},
		{0, 3, 9, 2, 0},
		{2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0},
		{3, 2, 6, 3, 0},
		{2, 5, 3, 2, 2},
		{6, 5, 2, 1, 0},
		{0, 2, 2, 3, 7},
	}
}

func TestFleissKappaWikipedia(t *testing.T) {
	k, err := FleissKappaCounts(fleissExample())
	if err != nil {
		t.Fatal(err)
	}
	if k != 4211.0/20059 {
		t.Errorf("κ = %.17g, want 4211/20059 = %.17g", k, 4211.0/20059)
	}
	near(t, "published 0.210", k, 0.210, 0.5e-3)

	// Same data as items × raters labels; raters listed in a scrambled order.
	labels := make([][]string, 10)
	cats := []string{"a", "b", "c", "d", "e"}
	for i, row := range fleissExample() {
		for j := len(row) - 1; j >= 0; j-- {
			for range row[j] {
				labels[i] = append(labels[i], cats[j])
			}
		}
	}
	k2, err := FleissKappa(labels)
	if err != nil || k2 != k {
		t.Errorf("FleissKappa(labels) = %v, %v; want %v", k2, err, k)
	}
}

// With two raters Fleiss' kappa equals Scott's pi (Fleiss 1971, p. 379). For
// the 50-item Cohen example the pooled marginals are yes 55/100, no 45/100:
// π = (0.7 − 0.505)/(1 − 0.505) = 13/33.
func TestFleissTwoRatersIsScottPi(t *testing.T) {
	var labels [][]bool
	add := func(n int, x, y bool) {
		for range n {
			labels = append(labels, []bool{x, y})
		}
	}
	add(20, true, true)
	add(5, true, false)
	add(10, false, true)
	add(15, false, false)
	k, err := FleissKappa(labels)
	if err != nil || k != 13.0/33 {
		t.Errorf("κ = %.17g, %v; want 13/33", k, err)
	}
}

func TestFleissErrors(t *testing.T) {
	if _, err := FleissKappaCounts([][]int{{1, 1}, {3, 0}}); err == nil {
		t.Error("unequal raters per item accepted")
	}
	if _, err := FleissKappaCounts([][]int{{1, 0}, {0, 1}}); err == nil {
		t.Error("one rater per item accepted")
	}
	if _, err := FleissKappaCounts([][]int{{1, 1}, {1}}); err == nil {
		t.Error("ragged counts accepted")
	}
}

// Hand example: x = 1..5, y = 2,4,5,4,5. Sxy = 6, Sxx = 10, Syy = 6, so
// r = 6/√60 = √0.6; t = r·√(3/(1−r²)) = √4.5. For 3 df the t CDF has the
// closed form F(t) = ½ + (1/π)[u/(1+u²) + atan u], u = t/√3 (e.g. Johnson,
// Kotz & Balakrishnan, Continuous Univariate Distributions vol. 2, ch. 28),
// which gives the two-sided p used below (also 0.124027062657554625 in mpmath).
func TestPearsonHand(t *testing.T) {
	r, p, err := Pearson([]float64{1, 2, 3, 4, 5}, []float64{2, 4, 5, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "r", r, math.Sqrt(0.6), 1e-15)
	u := math.Sqrt(4.5) / math.Sqrt(3)
	want := 1 - 2/math.Pi*(u/(1+u*u)+math.Atan(u))
	near(t, "p closed form", p, want, 1e-13)
	near(t, "p mpmath", p, 0.124027062657554625, 1e-13)

	// Negative correlation gives −r and the same p.
	r2, p2, _ := Pearson([]float64{1, 2, 3, 4, 5}, []float64{-2, -4, -5, -4, -5})
	near(t, "negated r", r2, -math.Sqrt(0.6), 1e-15)
	near(t, "negated p", p2, p, 1e-15)

	r3, p3, _ := Pearson([]float64{1, 2, 3}, []float64{2, 4, 6})
	if r3 != 1 || p3 != 0 {
		t.Errorf("perfect line: r=%v p=%v, want 1, 0", r3, p3)
	}
	if r4, _, _ := Pearson([]float64{1, 2, 3}, []float64{7, 7, 7}); !math.IsNaN(r4) {
		t.Errorf("constant y: r=%v, want NaN", r4)
	}
	if _, _, err := Pearson([]float64{1, 2}, []float64{1, 2}); err == nil {
		t.Error("n=2 accepted")
	}
}

// Pearson r of two binary raters is the phi coefficient of their 2×2 table.
// The real Memobase v0.0.32 vs v0.0.37 verdicts (both correct 961, only
// v0.0.32 131, only v0.0.37 206, neither 242; n = 1540) give, in 40-digit
// mpmath, r = 0.44548413423579070128 and two-sided p =
// 6.0051741176614648503e-76 (t = 19.514020469462819610 on 1538 df). Plain
// running sums over 1540 centred terms missed r by ~15 ulps.
func TestPearsonBinaryMemobase(t *testing.T) {
	var x, y []float64
	add := func(n int, a, b float64) {
		for range n {
			x, y = append(x, a), append(y, b)
		}
	}
	add(961, 1, 1)
	add(131, 1, 0)
	add(206, 0, 1)
	add(242, 0, 0)
	r, p, err := Pearson(x, y)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "r", r, 0.44548413423579070128, 2e-16)
	// gonum's Student t tail is good to ~1e-12 relative at this df.
	near(t, "p", p/6.0051741176614648503e-76, 1, 1e-11)
}
