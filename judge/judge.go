// Package judge scores predictions: LoCoMo's lexical metrics (F1, BLEU-1),
// the adversarial/abstention check, LLM judges and an offline lexical judge.
package judge

import (
	"context"

	"github.com/membench/membench/datasets"
)

// Judgment is one judge's verdict on one prediction.
type Judgment struct {
	QuestionID string  `json:"question_id"`
	System     string  `json:"system"`
	Judge      string  `json:"judge"`
	Correct    bool    `json:"correct"`
	Score      float64 `json:"score"` // 0..1; F1/BLEU value for lexical metrics, 0/1 for binary judges
	Reason     string  `json:"reason,omitempty"`
	Raw        string  `json:"raw,omitempty"` // raw model verdict text
}

// Judge scores one prediction for one question.
type Judge interface {
	Name() string
	Judge(ctx context.Context, q *datasets.Question, prediction string) (Judgment, error)
}
