package stats

import "testing"

// Worked by hand from Holm (1979): p = (0.01, 0.04, 0.03, 0.005), m = 4.
// Sorted 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → max
// with 0.06 = 0.06. In input order: 0.03, 0.06, 0.06, 0.02. At α = 0.05 the
// first and last are rejected.
func TestHolmWorked(t *testing.T) {
	adj, rej, err := Holm([]float64{0.01, 0.04, 0.03, 0.005}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.03, 0.06, 0.06, 0.02}
	wantRej := []bool{true, false, false, true}
	for i := range want {
		near(t, "adjusted", adj[i], want[i], 1e-15)
		if rej[i] != wantRej[i] {
			t.Errorf("reject[%d] = %v, want %v", i, rej[i], wantRej[i])
		}
	}
}

// Step-down stops at the first failure even if a later raw p would pass its
// own threshold: p = (0.02, 0.03) → 0.04, 0.04 at α 0.05 (both rejected),
// but p = (0.03, 0.03, 0.001) → 0.003, 0.06, 0.06 at α 0.05; and capping
// at 1: p = (0.6, 0.9) → 1, 1.
func TestHolmStepDownAndCap(t *testing.T) {
	adj, rej, _ := Holm([]float64{0.02, 0.03}, 0.05)
	near(t, "a0", adj[0], 0.04, 1e-15)
	near(t, "a1", adj[1], 0.04, 1e-15)
	if !rej[0] || !rej[1] {
		t.Errorf("reject = %v, want both", rej)
	}
	adj, rej, _ = Holm([]float64{0.03, 0.03, 0.001}, 0.05)
	for i, w := range []float64{0.06, 0.06, 0.003} {
		near(t, "adj", adj[i], w, 1e-15)
	}
	if rej[0] || rej[1] || !rej[2] {
		t.Errorf("reject = %v, want [false false true]", rej)
	}
	adj, _, _ = Holm([]float64{0.6, 0.9}, 0.05)
	if adj[0] != 1 || adj[1] != 1 {
		t.Errorf("cap: %v", adj)
	}
	if _, _, err := Holm([]float64{0.1, 1.5}, 0.05); err == nil {
		t.Error("p > 1 accepted")
	}
	if adj, rej, err := Holm(nil, 0.05); err != nil || len(adj) != 0 || len(rej) != 0 {
		t.Errorf("empty family: %v %v %v", adj, rej, err)
	}
}
