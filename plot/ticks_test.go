package plot

import "testing"

func TestCompactTickLabels(t *testing.T) {
	cases := map[float64]string{0: "0", 2500: "2500", 25000: "25k", 2.5e6: "2.5M", 7.5e6: "7.5M", 0.25: "0.25", -3e6: "-3M"}
	for v, want := range cases {
		if got := compact(v); got != want {
			t.Errorf("compact(%v) = %q, want %q", v, got, want)
		}
	}
}
