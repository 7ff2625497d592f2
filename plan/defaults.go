package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
)

// DefaultJudges are the judges a run gets when it names none: the model
// judge `llm` when the judge model is a real model, else the offline
// `lexical` heuristic (never a heuristic called llm), then LoCoMo's
// lexical metrics f1 and bleu1.
func DefaultJudges(judgeModel string) []string {
	if s, err := llm.ParseSpec(judgeModel); err == nil && s.Backend != "offline" {
		return []string{"llm", "f1", "bleu1"}
	}
	return []string{"lexical", "f1", "bleu1"}
}

// withDefaults is cfg.WithDefaults, the one place of a run's defaults,
// with the judges filled too: their default depends on what the judge
// model is, which only the model layer can tell.
func withDefaults(cfg membench.Config) membench.Config {
	cfg = cfg.WithDefaults()
	if cfg.Dataset == "" {
		cfg.Dataset = datasets.Default()
	}
	if len(cfg.Judges) == 0 {
		cfg.Judges = DefaultJudges(cfg.JudgeModelSpec())
	}
	return cfg
}

// QuestionSetHash is the sha256 of the questions a run covers, in run
// order: id, text and gold of each (Manifest.QuestionSetSHA256). Two runs
// with the same hash asked the same questions, whatever
// --conversations/--limit said.
func QuestionSetHash(qs []*datasets.Question) string {
	h := sha256.New()
	for _, q := range qs {
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", q.ID, q.Text, q.Gold)
	}
	return hex.EncodeToString(h.Sum(nil))
}
