package suggest

import (
	"math/rand/v2"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"run", "run", 0},
		{"rnu", "run", 1}, // a swap is one edit
		{"sytem", "system", 1},
		{"structmen", "structmem", 1},
		{"lcomo", "locomo", 1},
		{"lexcal", "lexical", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment: no edit after a swap
		{"héllo", "hello", 1},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", c.b, c.a, got, c.want)
		}
	}
}

// A distance is a count of edits: never more than the longer string, never
// less than the difference in length, and one random edit moves it by one
// at most.
func TestDistanceBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, r.IntN(8))
		for i := range b {
			b[i] = "abcd"[r.IntN(4)]
		}
		return string(b)
	}
	for range 2000 {
		a, b := word(), word()
		d := Distance(a, b)
		lo, hi := len(a)-len(b), max(len(a), len(b))
		if lo < 0 {
			lo = -lo
		}
		if d < lo || d > hi {
			t.Fatalf("Distance(%q, %q) = %d outside [%d, %d]", a, b, d, lo, hi)
		}
		c := b + "x"
		if e := Distance(a, c); e < d-1 || e > d+1 {
			t.Fatalf("Distance(%q, %q) = %d but Distance(%q, %q) = %d", a, b, d, a, c, e)
		}
	}
}

func TestClosestAndHint(t *testing.T) {
	systems := []string{"exec", "flat", "fullcontext", "structmem", "structmem-no-cross-event", "turns-cosine", "turns-rerank"}
	judges := []string{"bleu1", "em", "f1", "lexical", "llm"}
	for _, c := range []struct {
		typed string
		known []string
		want  string
	}{
		{"structmen", systems, ` (did you mean "structmem"?)`},
		{"StructMem", systems, ` (did you mean "structmem"?)`},
		{"turns-cosin", systems, ` (did you mean "turns-cosine"?)`},
		{"x", systems, ""}, // too short to guess from
		{"em", judges, ""}, // typed exactly: nothing to suggest
		{"f2", judges, ` (did you mean "f1"?)`},
		{"lm", judges, ` (did you mean "em" or "llm"?)`}, // ties are all named
		{"graphiti", systems, ""},                        // far from everything
		{"lexcal", judges, ` (did you mean "lexical"?)`},
	} {
		if got := Hint(c.typed, c.known); got != c.want {
			t.Errorf("Hint(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
	if got := HintQuoted("sytem", []string{"system", "seed"}, "--%s"); got != " (did you mean --system?)" {
		t.Errorf("flag hint: %q", got)
	}
}
