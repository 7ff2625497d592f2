package analysis

import (
	"slices"

	"github.com/membench/membench/datasets/locomo"
)

// Abstaining is the exclusion name that stands for every question whose
// right answer is to decline, whatever its dataset calls its group
// (LoCoMo adversarial, LongMemEval abstention): what a summary's overall
// leaves out, and what compare and agreement leave out by default.
const Abstaining = "abstention"

// Excluded reports whether a question of group, abstaining or not, is
// left out by the exclusion names (group names and Abstaining).
func Excluded(exclude []string, group string, abstains bool) bool {
	return slices.Contains(exclude, group) || (abstains && slices.Contains(exclude, Abstaining))
}

// CategoryExclusion reads LoCoMo's category numbers as
// older preregistrations (exclude_category) give them: 0 excludes
// nothing, 5 every abstaining question (it always stood for LongMemEval's
// _abs too), 1-4 LoCoMo's group of that number.
func CategoryExclusion(cs []int) []string {
	out := []string{}
	for _, c := range cs {
		switch {
		case c == locomo.CatAdversarial:
			out = append(out, Abstaining)
		case c != 0:
			out = append(out, locomo.CategoryName(c))
		}
	}
	return out
}
