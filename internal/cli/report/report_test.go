package report

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/internal/cli/clierr"
)

// writeRun writes n single-hop questions of which right are correct.
func writeRun(t *testing.T, dir, system string, k, n, right int, offline, build bool) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	m := runlog.Manifest{RunID: filepath.Base(dir), Config: runlog.Config{System: system, K: k}, Judges: []string{"bleu1", "llm"}, Offline: offline}
	if err := runlog.WriteJSON(filepath.Join(dir, runlog.ManifestFile), m); err != nil {
		t.Fatal(err)
	}
	var ans, js []any
	for i := 0; i < n; i++ {
		id := system + string(rune('a'+i))
		ans = append(ans, runlog.AnswerRecord{QuestionID: id, Category: 4})
		ok := i < right
		s := 0.0
		if ok {
			s = 1
		}
		js = append(js, runlog.Judgment{QuestionID: id, Judge: "llm", Correct: ok, Score: s},
			runlog.Judgment{QuestionID: id, Judge: "bleu1", Score: 0.5})
	}
	testutil.WriteJSONL(t, filepath.Join(dir, runlog.AnswersFile), ans...)
	testutil.WriteJSONL(t, filepath.Join(dir, runlog.JudgmentsFile), js...)
	if build {
		testutil.WriteJSONL(t, filepath.Join(dir, runlog.BuildFile), runlog.BuildRecord{Calls: 7, InputTokens: 2_000_000, OutputTokens: 500_000, Seconds: 3.5})
	}
}

func run(args ...string) (string, error) { return testutil.Execute(NewCmd(), args...) }

func TestReportCommand(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "z-struct"), "structmem", 0, 10, 7, false, true)
	writeRun(t, filepath.Join(root, "a-preds"), "preds", 0, 4, 1, false, false)
	writeRun(t, filepath.Join(root, "sub", "m-cos"), "turns-cosine", 3, 5, 5, true, false)

	out, err := run("--runs", root, "--table", "2", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, out)
	}
	if len(rows) != 4 {
		t.Fatalf("%d csv rows, want header + 3:\n%s", len(rows), out)
	}
	// Sorted by system: preds, structmem, turns-cosine.
	want := [][]string{
		{"a-preds", "preds", "4", "25.00", "[4.6, 69.9]", "-", "-", "25.00", "-", "-", "-", "-", "-", "-", "-", "4", "-", "-", "complete"},
		{"z-struct", "structmem", "10", "70.00", "[39.7, 89.2]", "-", "-", "70.00", "-", "2.000", "0.500", "2.500", "7", "3.5", "-", "10", "-", "-", "complete"},
		{"m-cos", "turns-cosine k=3 (offline)", "5", "100.00", "[56.6, 100.0]", "-", "-", "100.00", "-", "-", "-", "-", "-", "-", "-", "5", "-", "offline", "complete"},
	}
	for i, w := range want {
		if strings.Join(rows[i+1], "|") != strings.Join(w, "|") {
			t.Errorf("row %d:\n got %q\nwant %q", i+1, rows[i+1], w)
		}
	}

	out, err = run("--runs", filepath.Join(root, "z-*"), "--table", "4", "--format", "markdown")
	if err != nil || !strings.Contains(out, "| z-struct | structmem | 10 | 70.00 | [39.7, 89.2] | - | - | 70.00 | - | - | 10 | - | - | complete |") {
		t.Errorf("markdown table 4 (%v):\n%s", err, out)
	}
	out, err = run("--runs", root)
	if err != nil || strings.Count(out, "shape") != 3 {
		t.Errorf("--table all should print 3 tables (%v):\n%s", err, out)
	}
	for _, bad := range [][]string{{}, {"--runs", root, "--table", "5"}, {"--runs", root, "--format", "html"},
		{"--runs", root, "--judge", "gpt"}, {"--runs", filepath.Join(root, "nothing-*")}} {
		if _, err := run(bad...); clierr.Code(err) != 2 {
			t.Errorf("%v: err %v, want exit 2", bad, err)
		}
	}
}

func TestReportWithOptions(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "a"), "structmem", 0, 4, 3, false, false)
	var out strings.Builder
	o := &Options{Runs: []string{root}, Table: "3", Format: "markdown", Out: &out}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| a | structmem | 4 |") || !strings.Contains(out.String(), "75.00") {
		t.Errorf("table 3:\n%s", out.String())
	}
	o.Table = "9"
	if err := Run(context.Background(), o); clierr.Code(err) != 2 {
		t.Errorf("table 9: err %v, want exit 2", err)
	}
}
