package harness_test

import (
	"context"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/analysis"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// lengthRatio is a throw-away metric judge: the share of the gold's length
// the prediction reaches, capped at 1. It exists only to prove that a new
// judge is one registration, that the manifest records its kind, and that
// every reader reads the kind from there.
type lengthRatio struct{ name string }

func (l lengthRatio) Name() string { return l.name }

func (l lengthRatio) Judge(_ context.Context, s judge.Sample) (judge.Verdict, error) {
	g := len(s.Question.Gold)
	if g == 0 {
		return judge.Verdict{}, nil
	}
	r := math.Min(1, float64(len(s.Prediction))/float64(g))
	return judge.Verdict{Score: r, Correct: r >= 0.5}, nil
}

func TestThrowAwayJudgeIsTreatedAsItsKindEverywhere(t *testing.T) {
	judge.Register(judge.Spec{Name: "lenratio", Kind: membench.JudgeMetric,
		Description: "test only: prediction length over gold length",
		New:         func(c judge.Config) (judge.Judge, error) { return lengthRatio{c.Name}, nil }})

	cfg := harnesstest.Config(t, "turns-cosine")
	// Listed first on purpose: a reader that took "the first judge" or
	// treated unknown names as verdicts would pick it as the primary judge.
	cfg.Judges = []string{"lenratio", "lexical", "f1"}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	dir := harnesstest.Dir(t, cfg)

	// Manifest: the judge is described in full, with its registry class.
	r, err := runlog.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var info *membench.JudgeInfo
	for i := range r.Manifest.JudgeSpecs {
		if r.Manifest.JudgeSpecs[i].Name == "lenratio" {
			info = &r.Manifest.JudgeSpecs[i]
		}
	}
	if info == nil || info.Class != membench.JudgeMetric || info.Description == "" {
		t.Fatalf("manifest judge_specs lacks lenratio as a metric: %+v", r.Manifest.JudgeSpecs)
	}

	// Summary: a mean score, listed among the metric judges.
	if strings.Join(sum.Metrics, ",") != "lenratio,f1" {
		t.Errorf("summary metric judges = %v, want [lenratio f1]", sum.Metrics)
	}
	if v, ok := sum.Overall.Scores["lenratio"]; !ok || v <= 0 || v > 100 {
		t.Errorf("summary overall lenratio = %v (%v), want a mean score in (0,100]", v, ok)
	}
	var notes strings.Builder
	summary.Print(&notes, sum)
	if !strings.Contains(notes.String(), "metric judges (lenratio, f1): mean score") {
		t.Errorf("summary notes do not call lenratio a mean score:\n%s", notes.String())
	}

	// Report: the default judge is the verdict judge, and a table of the
	// metric judge says it shows a mean score, not an accuracy.
	runs := []*runlog.Run{r}
	if got := analysis.ChooseJudge(runs, ""); got != "lexical" {
		t.Errorf("report's default judge = %q, want llm", got)
	}
	t2, err := analysis.Table2(runs, "lenratio", analysis.Wide)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(t2.Title, "accuracy") || !strings.Contains(t2.Title, "mean lenratio score") {
		t.Errorf("Table 2 title for a metric judge = %q", t2.Title)
	}

	// Diagnose: abstention comes from the primary (verdict) judge.
	ab, err := analysis.Abstention(r, "")
	if err != nil {
		t.Fatal(err)
	}
	if ab.Judge != "lexical" || ab.N == 0 {
		t.Errorf("diagnose abstention used judge %q over %d questions, want llm", ab.Judge, ab.N)
	}
}
