package stats

import (
	"math"
	"testing"
)

func near(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.17g, want %.17g (±%g)", name, got, want, tol)
	}
}

// Published values: Newcombe (1998), Stat Med 17:857–872, Table II, method 3
// (Wilson score, no continuity correction), four-decimal bounds for his
// examples 81/263, 15/148, 0/20 and 1/29. The 1e-12 references are the same
// formula evaluated by hand in 30-digit arithmetic (python mpmath,
// z = √2·erfinv(0.95)).
func TestWilsonNewcombe(t *testing.T) {
	cases := []struct {
		x, n             int
		pubLo, pubHi     float64
		exactLo, exactHi float64
	}{
		{81, 263, 0.2553, 0.3662, 0.255288519878, 0.366209576983},
		{15, 148, 0.0624, 0.1605, 0.0623863995307, 0.160487241723},
		{0, 20, 0.0000, 0.1611, 0, 0.161125158053},
		{1, 29, 0.0061, 0.1718, 0.00611321429276, 0.171755218793},
	}
	for _, c := range cases {
		lo, hi, err := Wilson(c.x, c.n, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "published lo", lo, c.pubLo, 0.5e-4)
		near(t, "published hi", hi, c.pubHi, 0.5e-4)
		near(t, "lo", lo, c.exactLo, 1e-12)
		near(t, "hi", hi, c.exactHi, 1e-12)
	}
}

func TestWilsonEdgesAndErrors(t *testing.T) {
	lo, hi, _ := Wilson(20, 20, 0.95)
	// Symmetry: x/n has the mirror interval of (n−x)/n.
	near(t, "hi at x=n", hi, 1, 0)
	near(t, "lo at x=n", lo, 1-0.161125158053, 1e-12)
	for _, bad := range [][2]int{{1, 0}, {-1, 5}, {6, 5}} {
		if _, _, err := Wilson(bad[0], bad[1], 0.95); err == nil {
			t.Errorf("Wilson(%d,%d) accepted bad input", bad[0], bad[1])
		}
	}
	if _, _, err := Wilson(1, 2, 95); err == nil {
		t.Error("Wilson accepted level 95")
	}
}
