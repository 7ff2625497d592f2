package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/runlog"
)

// score --out on an earlier scoring keeps what judge and grade added to it;
// when a prediction they judged changed, it refuses and says why.
func TestScoreAgainKeepsJudgeAndGradeAdditions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	preds := filepath.Join(dir, "p.jsonl")
	write := func(first string) {
		var b strings.Builder
		fmt.Fprintf(&b, `{"question_id": "sample-1:0", "prediction": %q}`+"\n", first)
		fmt.Fprintf(&b, `{"question_id": "sample-1:1", "prediction": "at a bike shop"}`+"\n")
		fmt.Fprintf(&b, `{"question_id": "sample-1:2", "prediction": "I do not know"}`+"\n")
		os.WriteFile(preds, []byte(b.String()), 0o644)
	}
	write("Biscuit")
	out := filepath.Join(dir, "scored")
	home := []string{"MEMBENCH_HOME=" + t.TempDir()}
	score := func() (string, int) {
		return membench(t, home, "score", "--dataset", "sample", "--predictions", preds, "--out", out, "--judge-spec", "f1")
	}
	if o, code := score(); code != 0 {
		t.Fatalf("score: %d\n%s", code, o)
	}
	if o, code := membench(t, home, "judge", "--run", out, "--judge-spec", "em"); code != 0 {
		t.Fatalf("judge: %d\n%s", code, o)
	}
	grade := exec.Command(bin, "grade", "--run", out, "--seed", "3")
	grade.Env = append(os.Environ(), home...)
	grade.Stdin = strings.NewReader("c\nw\nc\n")
	var gout bytes.Buffer
	grade.Stdout, grade.Stderr = &gout, &gout
	if err := grade.Run(); err != nil {
		t.Fatalf("grade: %v\n%s", err, gout.String())
	}
	count := func() map[string]int {
		n := map[string]int{}
		for _, j := range jsonLines[runlog.Judgment](t, filepath.Join(out, runlog.JudgmentsFile)) {
			n[j.Judge]++
		}
		return n
	}
	before := count()
	if before["em"] != 3 || before["human"] != 3 || before["f1"] != 3 {
		t.Fatalf("before rescoring: %v", before)
	}
	if o, code := score(); code != 0 {
		t.Fatalf("score again: %d\n%s", code, o)
	}
	if after := count(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("score again kept %v of %v", after, before)
	}
	m, err := runlog.LoadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Judges, ",") != "f1,em,human" || len(m.JudgeSpecs) != 3 {
		t.Fatalf("manifest judges %v, %d specs", m.Judges, len(m.JudgeSpecs))
	}
	// A changed prediction under a human grade: refused, nothing lost.
	write("Rex")
	o, code := score()
	if code != 2 || !strings.Contains(o, "sample-1:0") || !strings.Contains(o, "drop") {
		t.Fatalf("score with a changed prediction: exit %d\n%s", code, o)
	}
	if after := count(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused score changed the judgments: %v", after)
	}
}
