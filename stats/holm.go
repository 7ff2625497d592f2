package stats

import (
	"fmt"
	"math"
	"slices"
)

// Holm applies the Holm–Bonferroni step-down procedure to a family of
// p-values (Holm 1979, Scand J Stat 6:65). With p sorted ascending as
// p_(1) ≤ … ≤ p_(m), the adjusted values are
//
//	p̃_(i) = min(1, max_{j≤i} (m−j+1)·p_(j))
//
// returned in the input order; reject[i] is p̃_i ≤ alpha, which is exactly
// Holm's rule of stopping at the first p_(i) > alpha/(m−i+1). Ties keep
// input order.
func Holm(p []float64, alpha float64) (adjusted []float64, reject []bool, err error) {
	for i, v := range p {
		if math.IsNaN(v) || v < 0 || v > 1 {
			return nil, nil, fmt.Errorf("stats.Holm: p[%d] = %v is not a probability in [0,1]", i, v)
		}
	}
	if !(alpha > 0 && alpha < 1) {
		return nil, nil, fmt.Errorf("stats.Holm: alpha must be in (0,1), got %v (use 0.05)", alpha)
	}
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	adjusted = make([]float64, m)
	reject = make([]bool, m)
	running := 0.0
	for rank, i := range order {
		running = math.Max(running, math.Min(1, float64(m-rank)*p[i]))
		adjusted[i] = running
		reject[i] = running <= alpha
	}
	return adjusted, reject, nil
}
