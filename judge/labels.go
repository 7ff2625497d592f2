package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/membench/membench/prompts"
)

// LabelPartial is the half-right verdict, worth 0.5. A reply may give it
// only when the prompt offered it (Graded): under a CORRECT/WRONG prompt a
// partial reply has no verdict and is asked again.
const LabelPartial = "PARTIAL"

// Labels is the set of verdicts a judge prompt offers.
type Labels uint8

const (
	// Binary is CORRECT or WRONG: every prompt that declares no labels.
	Binary Labels = iota
	// Graded is CORRECT, PARTIAL or WRONG (e.g. the cognitive prompt).
	Graded
)

// String names the labels as an error message lists them.
func (l Labels) String() string {
	if l == Graded {
		return "CORRECT, PARTIAL or WRONG"
	}
	return "CORRECT or WRONG"
}

// LabelsOf reads the verdicts a template declares on its first line
// ("---labels: CORRECT PARTIAL WRONG---", see prompts). No line
// means Binary. A declared set must hold CORRECT and WRONG, and may add
// PARTIAL; anything else is refused, so a typo cannot silently turn a
// prompt binary.
func LabelsOf(t *prompts.Template) (Labels, error) {
	ls := t.Labels()
	if ls == nil {
		return Binary, nil
	}
	for _, l := range ls {
		if l != LabelCorrect && l != LabelWrong && l != LabelPartial {
			return Binary, fmt.Errorf("prompt %s: label %s on its labels line is not one of CORRECT, PARTIAL, WRONG; fix the first line, e.g. ---labels: CORRECT PARTIAL WRONG---", t.Name(), l)
		}
	}
	if !slices.Contains(ls, LabelCorrect) || !slices.Contains(ls, LabelWrong) {
		return Binary, fmt.Errorf("prompt %s: its labels line (%s) must name both CORRECT and WRONG; write ---labels: CORRECT WRONG--- or ---labels: CORRECT PARTIAL WRONG---", t.Name(), strings.Join(ls, " "))
	}
	if slices.Contains(ls, LabelPartial) {
		return Graded, nil
	}
	return Binary, nil
}

// LabelScore is what a verdict is worth in accuracy: CORRECT 1, PARTIAL
// 0.5, WRONG (and anything else) 0. Every reader averages Judgment.Score,
// so this is the one place a label becomes a number.
func LabelScore(label string) float64 {
	switch label {
	case LabelCorrect:
		return 1
	case LabelPartial:
		return 0.5
	}
	return 0
}

// verdictOf is the Verdict a label gives: Correct only for CORRECT (a
// PARTIAL is not correct, which McNemar and kappa read), Score per
// LabelScore.
func verdictOf(label, reason string) Verdict {
	return Verdict{Correct: label == LabelCorrect, Score: LabelScore(label), Reason: reason}
}

// IsPartial reports whether a verdict judge's score is a PARTIAL: strictly
// between WRONG and CORRECT.
func IsPartial(score float64) bool { return score > 0 && score < 1 }

// PromptLabels is the label set of a built-in prompt named as BuiltinPrompts
// names it ("strict", "lenient", "cognitive"); the strict set declares
// none, so it is Binary.
func PromptLabels(name string) (Labels, error) {
	tmpl, ok := BuiltinPrompts[name]
	if !ok {
		return Binary, fmt.Errorf("no built-in judge prompt %q (known: %s)", name, strings.Join(BuiltinPromptNames(), ", "))
	}
	if tmpl == "" {
		return Binary, nil
	}
	t, err := prompts.Embedded(tmpl)
	if err != nil {
		return Binary, err
	}
	return LabelsOf(t)
}
