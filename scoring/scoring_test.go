package scoring_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/scoring"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"

	_ "github.com/membench/membench/answer"
	_ "github.com/membench/membench/systems/all"
)

// `membench score --out` must not overwrite a real run's artifacts; an
// earlier score directory may be rescored.
func TestScoreRefusesToOverwriteARun(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	dir := harnesstest.Dir(t, cfg)
	before, _ := os.ReadFile(filepath.Join(dir, runlog.AnswersFile))
	preds := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(preds, []byte(`{"question_id":"sample-1:0","prediction":"x"}`+"\n"), 0o644)
	sc := scoring.Config{Config: membench.Config{Dataset: "sample", CacheDir: cfg.CacheDir}, Predictions: preds, Out: dir}
	_, _, err := scoring.Run(context.Background(), sc)
	if err == nil || !strings.Contains(err.Error(), "--out") {
		t.Fatalf("score into a run dir: want a refusal naming --out, got %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, runlog.AnswersFile))
	if string(before) != string(after) {
		t.Fatal("score overwrote the run's answers.jsonl")
	}
	other := filepath.Join(t.TempDir(), "notes")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "readme.txt"), []byte("mine"), 0o644)
	if _, _, err := scoring.Run(context.Background(), scoring.Config{Config: membench.Config{Dataset: "sample", CacheDir: cfg.CacheDir}, Predictions: preds, Out: other}); err == nil {
		t.Fatal("score into a non-empty directory that is no score dir was accepted")
	}
	out := filepath.Join(t.TempDir(), "scored")
	sc.Out = out
	for i := 0; i < 2; i++ { // fresh, then rescoring its own output
		if _, _, err := scoring.Run(context.Background(), sc); err != nil {
			t.Fatalf("score #%d into %s: %v", i+1, out, err)
		}
	}
}
