// Package suggest finds which known name a mistyped one was meant to be,
// for the "did you mean" of commands, flags, systems, datasets and judges.
package suggest

import (
	"fmt"
	"strings"
)

// MaxDistance is the most edits a typo may be from the name it meant.
const MaxDistance = 2

// Closest returns the known names nearest to typed, at most MaxDistance
// edits away (case is ignored; swapping two neighbours counts as one edit),
// in the order known lists them. A name is never suggested for a typed
// word so short that every edit of it would match: the distance must stay
// below typed's length, so "x" suggests nothing and "em" does not turn
// into "f1".
func Closest(typed string, known []string) []string {
	t := strings.ToLower(typed)
	best := MaxDistance + 1
	var out []string
	seen := map[string]bool{}
	for _, k := range known {
		if seen[k] || k == typed {
			continue
		}
		seen[k] = true
		d := Distance(t, strings.ToLower(k))
		if d > MaxDistance || d >= len([]rune(t)) {
			continue
		}
		switch {
		case d < best:
			best, out = d, []string{k}
		case d == best:
			out = append(out, k)
		}
	}
	return out
}

// Hint is ` (did you mean "X"?)` for the closest known names, or "" when
// none is close: an error message puts it right after the name it could
// not find.
func Hint(typed string, known []string) string {
	return HintQuoted(typed, known, "%q")
}

// HintQuoted is Hint with each suggestion written through format, e.g.
// "--%s" for flags.
func HintQuoted(typed string, known []string, format string) string {
	c := Closest(typed, known)
	if len(c) == 0 {
		return ""
	}
	names := make([]string, len(c))
	for i, n := range c {
		names[i] = fmt.Sprintf(format, n)
	}
	return " (did you mean " + orList(names) + "?)"
}

func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Distance is the optimal-string-alignment edit distance between a and b:
// insertions, deletions, substitutions and swaps of two adjacent runes each
// cost one.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rolling rows: a swap looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
