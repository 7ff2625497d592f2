package harness

import (
	"testing"

	"github.com/membench/membench"
)

// A resumed run's resolved options are compared key by key in name order,
// a key on either side only counting as a difference.
func TestFirstDifferenceOfResolvedOptions(t *testing.T) {
	for _, c := range []struct {
		a, b         membench.Options
		key, was, is string
	}{
		{membench.Options{"k": "5", "clock": "turn"}, membench.Options{"k": "5", "clock": "turn"}, "", "", ""},
		{membench.Options{"k": "5", "clock": "turn"}, membench.Options{"k": "5", "clock": "utterance"}, "clock", "turn", "utterance"},
		{membench.Options{"k": "5"}, membench.Options{"k": "5", "alpha": "1"}, "alpha", "", "1"},
		{membench.Options{"z": "1", "b": "2"}, membench.Options{"z": "0"}, "b", "2", ""},
	} {
		key, was, is, differ := firstDifference(c.a, c.b)
		if key != c.key || was != c.was || is != c.is || differ != (c.key != "") {
			t.Errorf("firstDifference(%v, %v) = %q %q %q %v, want %q %q %q", c.a, c.b, key, was, is, differ, c.key, c.was, c.is)
		}
	}
}
