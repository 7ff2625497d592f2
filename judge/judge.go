// Package judge scores predictions: LoCoMo's lexical metrics (F1, BLEU-1),
// the adversarial/abstention check, LLM judges and an offline lexical judge.
// Judges register and describe themselves (registry.go); a run's manifest
// records each description, class included, and readers of the run read
// the class from there, never from this registry.
package judge

import (
	"context"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
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
}

// Verdict is one judge's decision on one sample. The harness, not the
// judge, attaches run, system and question ids when it logs it.
type Verdict struct {
	Correct bool
	Score   float64 // 0..1: the metric's value for metric judges, 0/1 for verdict judges
	Reason  string
	Raw     string // the model's raw reply, for model judges
	// Request and Usage are the model judge's request messages and its
	// cost, for the run's transcripts (nil and zero for metrics).
	Request []llm.Message
	Usage   llm.Usage
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
