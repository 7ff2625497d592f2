package analysis

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
)

// A verdict judge's PARTIAL (score 0.5, not correct) counts 0.5 in the
// summary, the report's overall and compare's means; McNemar and kappa
// need binary outcomes and count it as not correct, and say so.
func TestPartialVerdictsScoreHalf(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, scores ...float64) string {
		fr := fakeRun{Manifest: runlog.Manifest{Config: membench.Config{System: "turns-cosine"}, Judges: []string{"llm"}}}
		for i, s := range scores {
			id := "plus:" + string(rune('0'+i))
			fr.Answers = append(fr.Answers, runlog.AnswerRecord{QuestionID: id, Category: 6})
			fr.Judgments = append(fr.Judgments, runlog.Judgment{QuestionID: id, System: "turns-cosine", Judge: "llm", Correct: s == 1, Score: s})
		}
		return fr.write(t, filepath.Join(dir, name))
	}
	a := run("a", 1, 0.5, 0.5, 0)
	b := run("b", 1, 1, 0, 0)
	ra := mustLoad(t, a)
	o, err := OverallOf(ra, "llm")
	if err != nil {
		t.Fatal(err)
	}
	if o.N != 4 || o.Score != 50 || ra.Summary.Overall.Scores["llm"] != 50 || o.Binary {
		t.Errorf("overall %+v, summary %v: want 50 over 4 and no Wilson interval (not binary)", o, ra.Summary.Overall.Scores)
	}
	opts := CompareOptions{A: a, B: b, Test: "mcnemar", Alpha: 0.05}
	j, err := Pair(opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Compare(j, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r.MeanA != 50 || r.MeanB != 50 || r.AccuracyA != 25 || r.AccuracyB != 50 || r.Both != 1 || r.OnlyA != 0 || r.OnlyB != 1 || r.Neither != 2 {
		t.Errorf("mcnemar %+v: want means 50/50, share CORRECT 25/50, table 1 0 1 2", r)
	}
	if r.PartialA != 2 || r.PartialB != 0 || !strings.Contains(r.Verdict, "PARTIAL verdicts (2 in A, 0 in B) count as not correct in McNemar") {
		t.Errorf("partials %d/%d, verdict %q", r.PartialA, r.PartialB, r.Verdict)
	}
	t.Logf("A 1,.5,.5,0 vs B 1,1,0,0: means %.0f/%.0f, share CORRECT %.0f/%.0f; %s", r.MeanA, r.MeanB, r.AccuracyA, r.AccuracyB, r.Verdict)
	opts.Test, opts.Margin = "noninferiority", -10
	if r, err = Compare(j, opts); err != nil || r.MeanDiff == nil || *r.MeanDiff != 0 {
		t.Errorf("non-inferiority on means with PARTIAL = 0.5: %+v, %v; want a mean difference of 0", r, err)
	}
	// Binary verdicts only: no partial count and no note.
	c := run("c", 1, 0, 1, 0)
	opts = CompareOptions{A: c, B: b, Test: "mcnemar", Alpha: 0.05}
	j, _ = Pair(opts)
	if r, err = Compare(j, opts); err != nil || r.PartialA+r.PartialB != 0 || strings.Contains(r.Verdict, "PARTIAL") {
		t.Errorf("binary runs: %+v, %v", r, err)
	}
}
