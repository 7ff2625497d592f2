package harness_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/runlog"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/summary"
)

// A judge that saw only some questions (human grading in progress) shows
// how many it judged instead of passing for a full column.
func TestPartialJudgeShowsItsN(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	dir := harnesstest.Dir(t, cfg)
	answers, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, runlog.JudgmentsFile), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	graded := 0
	for _, a := range answers {
		if a.Category == 5 || graded == 4 {
			continue
		}
		b, _ := json.Marshal(runlog.Judgment{QuestionID: a.QuestionID, System: a.System, Judge: "human", Correct: true, Score: 1})
		f.Write(append(b, '\n'))
		graded++
	}
	f.Close()
	var m runlog.Manifest
	b, _ := os.ReadFile(filepath.Join(dir, runlog.ManifestFile))
	json.Unmarshal(b, &m)
	m.Judges = append(m.Judges, "human")
	runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), m)

	sum, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Overall.Judged["human"] != 4 || sum.Overall.Judged["f1"] != 0 {
		t.Fatalf("judged counts %v, want human=4 and full judges absent", sum.Overall.Judged)
	}
	var out strings.Builder
	summary.Print(&out, sum)
	if !strings.Contains(out.String(), "100.00 (n=4)") {
		t.Fatalf("table should mark the partial human column:\n%s", out.String())
	}
}
