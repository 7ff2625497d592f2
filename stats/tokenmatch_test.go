package stats

import (
	"math"
	"testing"
)

func TestMatchK(t *testing.T) {
	// papers.md B: engram v2 at k = 3 reads 251 tokens; the rerank k whose
	// mean is nearest is chosen.
	k, err := MatchK(251, map[int]float64{2: 180, 3: 230, 4: 265, 5: 330})
	if err != nil || k != 4 {
		t.Errorf("MatchK = %d, %v; want 4 (|265−251| = 14 < 21)", k, err)
	}
	// Exact tie (gap 15 both sides) goes to the smaller k, whatever the map order.
	for range 20 {
		k, _ = MatchK(265, map[int]float64{5: 280, 3: 250, 1: 120, 9: 600})
		if k != 3 {
			t.Fatalf("tie: got k=%d, want 3", k)
		}
	}
	k, _ = MatchK(100, map[int]float64{7: math.NaN(), 8: 400})
	if k != 8 {
		t.Errorf("NaN candidate not skipped: k=%d", k)
	}
	if _, err := MatchK(100, nil); err == nil {
		t.Error("no candidates accepted")
	}
	if _, err := MatchK(math.NaN(), map[int]float64{1: 1}); err == nil {
		t.Error("NaN reference accepted")
	}
}
