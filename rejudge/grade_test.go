package rejudge

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/membench/membench/datasets/all"
	"github.com/membench/membench/runlog/runlogtest"

	"github.com/membench/membench"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"

	_ "github.com/membench/membench/answer"
	"github.com/membench/membench/harness"
	"github.com/membench/membench/judge"
	_ "github.com/membench/membench/systems/all"
)

func sampleRun(t *testing.T, root, system string) string {
	t.Helper()
	cfg := membench.Config{System: system, ResultsDir: filepath.Join(root, "runs"), CacheDir: filepath.Join(root, "cache"), Quiet: true, Judges: []string{"lexical"},
		Host: membench.Host{Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	return harnesstest.Dir(t, cfg)
}

func judgments(t *testing.T, dir, name string) []runlog.Judgment {
	t.Helper()
	js, err := runlogtest.Judgments(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []runlog.Judgment
	for _, j := range js {
		if j.Judge == name {
			out = append(out, j)
		}
	}
	return out
}

func TestRejudgeAddsJudgeAndIsIdempotent(t *testing.T) {
	root := t.TempDir()
	dir := sampleRun(t, root, "turns-cosine")
	answers, _ := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	o := Options{CacheDir: filepath.Join(root, "cache"), Concurrency: 2}
	counts, sum, err := Run(context.Background(), dir, []string{"em", "lexical"}, o)
	if err != nil {
		t.Fatal(err)
	}
	if counts[0].Added != len(answers) || counts[1].Added != 0 || counts[1].Skipped != len(answers) {
		t.Fatalf("counts %+v with %d answers", counts, len(answers))
	}
	if _, ok := sum.Overall.Scores["em"]; !ok {
		t.Fatalf("summary lacks em: %+v", sum.Overall.Scores)
	}
	em := judgments(t, dir, "em")
	if len(em) != len(answers) {
		t.Fatalf("%d em judgments for %d answers", len(em), len(answers))
	}
	// The em verdicts match judging the answers directly.
	ej, _ := judge.Parse("em", judge.Deps{})
	byID := map[string]runlog.AnswerRecord{}
	for _, a := range answers {
		byID[a.QuestionID] = a
	}
	for _, j := range em {
		want, _ := ej.Judge(context.Background(), judge.Sample{Question: Question(byID[j.QuestionID]), Prediction: byID[j.QuestionID].Prediction})
		if want.Correct != j.Correct || j.System != "turns-cosine" {
			t.Fatalf("%s: stored %+v, direct %+v", j.QuestionID, j, want)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, runlog.SummaryMD))
	if !strings.Contains(string(b), "em") {
		t.Fatal("summary.md not rewritten with the new judge")
	}
	counts, _, err = Run(context.Background(), dir, []string{"em"}, o)
	if err != nil || counts[0].Added != 0 || counts[0].Skipped != len(answers) {
		t.Fatalf("rerun: %+v %v", counts, err)
	}
	if n := len(judgments(t, dir, "em")); n != len(answers) {
		t.Fatalf("rerun duplicated judgments: %d", n)
	}
	// The run still resumes cleanly (its config hash is untouched).
	cfg := membench.Config{System: "turns-cosine", ResultsDir: filepath.Join(root, "runs"), CacheDir: filepath.Join(root, "cache"), Quiet: true, Judges: []string{"lexical"},
		Host: membench.Host{Embedder: "hashed"}}
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatalf("resume after rejudge: %v", err)
	}
	if _, _, err := Run(context.Background(), dir, []string{"nonsense-judge"}, o); err == nil {
		t.Fatal("unknown judge accepted")
	}
}

func TestHumanFromPipeResumes(t *testing.T) {
	root := t.TempDir()
	a := sampleRun(t, root, "turns-cosine")
	b := sampleRun(t, root, "fullcontext")
	var out bytes.Buffer
	// c, junk (re-asked), w, s, c, then q.
	res, err := Human([]string{a, b}, strings.NewReader("c\nmaybe\nw\ns\nC\nq\n"), &out, HumanOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if res.Graded != 3 || res.Skipped != 1 {
		t.Fatalf("result %+v", res)
	}
	text := out.String()
	if strings.Contains(text, "turns-cosine") || strings.Contains(text, "fullcontext") || strings.Contains(text, a) {
		t.Fatal("grading screen reveals the system or run")
	}
	if !strings.Contains(text, "please answer") {
		t.Fatal("bad reply was not re-asked")
	}
	h := append(judgments(t, a, HumanJudge), judgments(t, b, HumanJudge)...)
	if len(h) != 3 {
		t.Fatalf("%d human judgments stored, want 3", len(h))
	}
	correct := 0
	for _, j := range h {
		if j.Correct {
			correct++
			if j.Score != 1 {
				t.Fatal("correct grade with score != 1")
			}
		}
	}
	if correct != 2 {
		t.Fatalf("%d correct, want 2", correct)
	}
	// Second session, same seed: graded pairs are skipped; the skipped item
	// comes back first; input running out ends the session cleanly.
	out.Reset()
	res2, err := Human([]string{a, b}, strings.NewReader("w\n"), &out, HumanOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Already != 3 || res2.Graded != 1 || res2.Remaining != res.Remaining-1 {
		t.Fatalf("second session %+v after %+v", res2, res)
	}
	all := append(judgments(t, a, HumanJudge), judgments(t, b, HumanJudge)...)
	seen := map[string]bool{}
	for _, j := range all {
		k := j.System + "/" + j.QuestionID
		if seen[k] {
			t.Fatalf("%s graded twice", k)
		}
		seen[k] = true
	}
	sum, err := summary.Compute(a)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, j := range sum.Judges {
		found = found || j == HumanJudge
	}
	if !found {
		t.Fatalf("human not in the summary's judges: %v", sum.Judges)
	}
}

// One run named twice ("r" and "r/") is graded once per question.
func TestHumanSameRunTwiceGradesOnce(t *testing.T) {
	a := sampleRun(t, t.TempDir(), "turns-cosine")
	var out bytes.Buffer
	answers := strings.Repeat("c\n", 100)
	res, err := Human([]string{a, a + "/"}, strings.NewReader(answers), &out, HumanOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := judgments(t, a, HumanJudge)
	seen := map[string]bool{}
	for _, j := range h {
		if seen[j.QuestionID] {
			t.Fatalf("question %s graded twice", j.QuestionID)
		}
		seen[j.QuestionID] = true
	}
	if res.Graded != len(h) || len(h) == 0 {
		t.Fatalf("graded %d, stored %d", res.Graded, len(h))
	}
}
