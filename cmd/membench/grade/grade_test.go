package grade

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/cmd/membench/clierr"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/rejudge"
	"github.com/membench/membench/runlog"
)

func TestGradeWithOptions(t *testing.T) {
	dir := t.TempDir()
	if err := runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), runlog.Manifest{RunID: "r", Config: membench.Config{System: "s"}}); err != nil {
		t.Fatal(err)
	}
	testutil.WriteJSONL(t, filepath.Join(dir, runlog.AnswersFile),
		runlog.AnswerRecord{QuestionID: "q1", Question: "Where?", Gold: "Lisbon", Prediction: "Lisbon", Category: 4},
		runlog.AnswerRecord{QuestionID: "q2", Question: "Who?", Gold: "Ana", Prediction: "Ben", Category: 4},
		runlog.AnswerRecord{QuestionID: "q3", Question: "Why?", Gold: "x", Prediction: "y", Category: 5})
	// --json: the counts go to stdout (Out), the items to stderr (Err).
	var shown, counts bytes.Buffer
	o := &Options{Runs: []string{dir}, Human: rejudge.HumanOptions{Seed: 1, Exclude: []string{"abstention"}, Grader: "me"}, JSON: true,
		In: strings.NewReader("c\nw\n"), Out: &counts, Err: &shown}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var res rejudge.HumanResult
	if err := json.Unmarshal(counts.Bytes(), &res); err != nil || res.Graded != 2 {
		t.Fatalf("counts %s (%v), want 2 graded", counts.String(), err)
	}
	if strings.Contains(shown.String(), "Why?") {
		t.Error("an excluded category was shown")
	}
	js, err := runlog.ReadJSONL[runlog.Judgment](filepath.Join(dir, runlog.JudgmentsFile))
	if err != nil || len(js) != 2 || js[0].Judge != "human" {
		t.Fatalf("judgments %+v (%v), want 2 by human", js, err)
	}
	if err := Run(context.Background(), &Options{Runs: []string{filepath.Join(dir, "none")}, In: strings.NewReader(""), Out: os.Stderr}); clierr.Code(err) != 2 {
		t.Errorf("missing run: err %v, want exit 2", err)
	}
}
