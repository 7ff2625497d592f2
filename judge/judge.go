// Package judge scores predictions: LoCoMo's lexical metrics (F1, BLEU-1),
// the adversarial/abstention check, LLM judges and an offline lexical judge.
// Judges register and describe themselves (registry.go); a run's manifest
// records each description, class included, and readers of the run read
// the class from there, never from this registry.
package judge

import (
	"context"
	"fmt"
	"strings"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/lexical"
)

// Sample is what a judge sees of one answered question.
type Sample struct {
	// Question carries the text, the gold answer, the category or
	// question type, and whether declining is the right answer
	// (Question.Abstention).
	Question   *datasets.Question
	Prediction string
	// Context is the retrieved context the answer model read ("" when
	// unknown, e.g. scored predictions).
	Context string
	// Evidence is the text of the question's evidence turns, one
	// "Speaker: text" line each (NewSample fills it; "" when unknown). The
	// cognitive prompt shows it as the cue dialogue; the lexical judge
	// grades against it under a prompt offering PARTIAL.
	Evidence string
	// Prompt names the built-in judge prompt the question's dataset group
	// asks for (a BuiltinPrompts name: "cognitive" for LoCoMo-Plus's
	// Cognitive group); "" or "strict" leaves each judge its own. Model judges on our
	// built-in prompts use it in place of theirs (a judge given its own
	// prompt file keeps the file); the lexical judge reads from it whether
	// the question offers PARTIAL.
	Prompt string
	// Repeat is which of a judge's repeated judgments this is (0 for the
	// first or only one); a model judge gives each repeat its own request
	// (Seed), so each has its own cache entry.
	Repeat int
}

// NewSample is the sample of question q of conversation conv answered
// with prediction, its Evidence filled from conv's turns. A conversation
// whose sessions are not loaded (datasets.Conversation.Lazy) gives no
// evidence text: hydrate it first when a judge needs it.
func NewSample(conv *datasets.Conversation, q *datasets.Question, prediction string) Sample {
	return Sample{Question: q, Prediction: prediction, Evidence: EvidenceText(conv, q)}
}

// EvidenceText is the text of q's evidence turns in conv, in the order
// q lists them, one "Speaker: text" line each; ids conv does not hold are
// skipped. "" when there are none.
func EvidenceText(conv *datasets.Conversation, q *datasets.Question) string {
	if conv == nil || len(q.Evidence) == 0 {
		return ""
	}
	want := lexical.Set(q.Evidence)
	byID := map[string]*datasets.Turn{}
	for _, s := range conv.Sessions {
		for _, t := range s.Turns {
			if want[t.ID] {
				byID[t.ID] = t
			}
		}
	}
	var b strings.Builder
	for _, id := range q.Evidence {
		t := byID[id]
		if t == nil {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		if t.Speaker != "" {
			b.WriteString(t.Speaker + ": ")
		}
		b.WriteString(t.Text)
	}
	return b.String()
}

// Verdict is one judge's decision on one sample. The harness, not the
// judge, attaches run, system and question ids when it logs it.
type Verdict struct {
	Correct bool    // a verdict judge's CORRECT (not PARTIAL); a metric judge's score >= threshold
	Score   float64 // 0..1: the metric's value for metric judges; LabelScore (1, 0.5, 0) for verdict judges
	Reason  string
	Raw     string // the model's raw reply, for model judges
	// Request and Usage are the model judge's request messages and its
	// cost, for the run's transcripts (nil and zero for metrics).
	Request []membench.Message
	Usage   membench.Usage
	Cached  bool
	// Invalid: the model gave no verdict (its reply stayed unparseable
	// after re-asking). Such a verdict is logged with its Raw reply, counted
	// apart and left out of accuracy; a rerun asks again.
	Invalid bool
}

// Judge scores one sample.
type Judge interface {
	Name() string
	Judge(ctx context.Context, s Sample) (Verdict, error)
}

// MaxRepeats bounds repeats=N: more costs N times the judge calls.
const MaxRepeats = 100

// Repeater is a judge that judges each answer several times.
type Repeater interface {
	Repeats() int
}

// Repeats is how many times j judges each answer (1 unless it says more).
func Repeats(j Judge) int {
	if r, ok := j.(Repeater); ok && r.Repeats() > 1 {
		return r.Repeats()
	}
	return 1
}

// WithRepeats makes a model judge judge each answer n times. Only judges
// that send a model request can repeat: another judge's verdicts would be
// n copies of one.
func WithRepeats(j Judge, n int) (Judge, error) {
	lj, ok := j.(*LLMJudge)
	if !ok {
		return nil, fmt.Errorf("judge %s: repeats= applies to model judges only; this judge decides the same way every time", j.Name())
	}
	cp := *lj
	cp.repeats = n
	return &cp, nil
}
