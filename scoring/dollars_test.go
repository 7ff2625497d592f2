package scoring_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/scoring"
)

// Scoring outside predictions prices its judges' spend as a run does: a
// model judge's calls in dollars at the default table (or a --prices
// file over it), offline judges at $0, in summary.json and summary.md.
func TestScorePricesItsJudges(t *testing.T) {
	preds := filepath.Join(t.TempDir(), "p.jsonl")
	if err := os.WriteFile(preds, []byte(`{"question_id":"sample-1:0","prediction":"blue"}`+"\n"+`{"question_id":"sample-1:1","prediction":"in May"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(out string) (runlog.Summary, string) {
		var s runlog.Summary
		testutil.ReadJSON(t, filepath.Join(out, runlog.SummaryJSON), &s)
		md, err := os.ReadFile(filepath.Join(out, runlog.SummaryMD))
		if err != nil {
			t.Fatal(err)
		}
		return s, string(md)
	}

	offline := filepath.Join(t.TempDir(), "offline")
	if _, _, err := scoring.Run(context.Background(), scoring.Config{Config: membench.Config{Dataset: "sample", NoCache: true}, Predictions: preds, Out: offline}); err != nil {
		t.Fatal(err)
	}
	s, md := read(offline)
	if s.Dollars == nil || !s.Dollars.Total.Offline || s.Dollars.Total.USD == nil || *s.Dollars.Total.USD != 0 {
		t.Fatalf("offline judges: dollars %+v, want $0 (offline)", s.Dollars)
	}
	if !strings.Contains(md, "dollars:") {
		t.Errorf("summary.md lacks the dollars line:\n%s", md)
	}

	srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	t.Setenv("OPENAI_API_KEY", "sk-test-score-dollars")
	priced := filepath.Join(t.TempDir(), "priced")
	sc := scoring.Config{Config: membench.Config{Dataset: "sample", NoCache: true, Judges: []string{"llm"},
		Model: "backend=openai,model=gpt-4o-mini,base-url=" + srv.URL}, Predictions: preds, Out: priced}
	if _, _, err := scoring.Run(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	s, md = read(priced)
	if s.Dollars == nil || s.Dollars.Total.USD == nil || *s.Dollars.Total.USD <= 0 || s.Dollars.PricesFrom != "default" {
		t.Fatalf("an openai judge's spend: dollars %+v, want a known amount above $0 at the default table", s.Dollars)
	}
	if _, ok := s.Dollars.Stages["judge"]; !ok || !strings.Contains(md, s.Dollars.Line) {
		t.Errorf("dollars by stage %v lack judge, or summary.md lacks %q:\n%s", s.Dollars.Stages, s.Dollars.Line, md)
	}
	t.Logf("scored with gpt-4o-mini as judge: %s", s.Dollars.Line)

	// A prices file that cannot be read is refused before any work.
	sc.Out, sc.PricesFile = filepath.Join(t.TempDir(), "bad"), filepath.Join(t.TempDir(), "missing.yaml")
	if _, _, err := scoring.Run(context.Background(), sc); err == nil || !strings.Contains(err.Error(), "--prices") {
		t.Fatalf("a missing --prices file: %v, want an error naming --prices", err)
	}
	if _, err := os.Stat(sc.Out); err == nil {
		t.Errorf("a refused score wrote %s", sc.Out)
	}
}
