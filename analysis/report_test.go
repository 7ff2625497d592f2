package analysis

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
)

// reportRuns writes an offline run (llm judge 0/1, f1 continuous, build
// records) and a `membench score`-style directory (no build, other judges).
func reportRuns(t *testing.T) (root string) {
	root = t.TempDir()
	cats := map[string]int{"q1": 1, "q2": 1, "q3": 2, "q4": 3, "q5": 4, "q6": 4, "q7": 5}
	llmOK := map[string]bool{"q1": true, "q3": true, "q5": true, "q6": true, "q7": true}
	a := fakeRun{Manifest: runlog.Manifest{Config: membench.Config{System: "turns-cosine", K: 3}, Judges: []string{"llm", "f1"}, Offline: true}}
	b := fakeRun{Manifest: runlog.Manifest{Config: membench.Config{System: "preds"}, Judges: []string{"f1", "lexical"}}}
	for _, q := range []string{"q1", "q2", "q3", "q4", "q5", "q6", "q7"} {
		a.Answers = append(a.Answers, runlog.AnswerRecord{QuestionID: q, Category: cats[q]})
		b.Answers = append(b.Answers, runlog.AnswerRecord{QuestionID: q, Category: cats[q]})
		s := 0.0
		if llmOK[q] {
			s = 1
		}
		a.Judgments = append(a.Judgments, runlog.Judgment{QuestionID: q, Judge: "llm", Correct: llmOK[q], Score: s},
			runlog.Judgment{QuestionID: q, Judge: "f1", Score: 0.25})
		b.Judgments = append(b.Judgments, runlog.Judgment{QuestionID: q, Judge: "lexical", Correct: true, Score: 1},
			runlog.Judgment{QuestionID: q, Judge: "f1", Score: 0.5, Correct: true})
	}
	a.Builds = []runlog.BuildRecord{
		{ConversationID: "c1", Calls: 10, InputTokens: 1_000_000, OutputTokens: 200_000, Seconds: 12},
		{ConversationID: "c2", Calls: 5, InputTokens: 500_000, OutputTokens: 50_000, Seconds: 8},
	}
	a.write(t, filepath.Join(root, "a-run"))
	b.write(t, filepath.Join(root, "b-score"))
	return root
}

func parseMarkdown(t *testing.T, s string) [][]string {
	t.Helper()
	var rows [][]string
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

func TestReportTables(t *testing.T) {
	root := reportRuns(t)
	dirs, err := runlog.FindRuns([]string{root})
	if err != nil || len(dirs) != 2 {
		t.Fatalf("FindRuns: %v %v", dirs, err)
	}
	var runs []*runlog.Run
	for _, d := range dirs {
		runs = append(runs, mustLoad(t, d))
	}
	j := ChooseJudge(runs, "")
	if j != "llm" {
		t.Fatalf("default judge %q, want llm (first non-metric judge)", j)
	}
	t2, err := Table2(runs, j, Wide)
	if err != nil {
		t.Fatal(err)
	}
	var md, cs bytes.Buffer
	t2.Markdown(&md)
	t2.CSV(&cs)
	mdRows := parseMarkdown(t, md.String())
	csvRows, err := csv.NewReader(&cs).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(mdRows) != 3 || len(csvRows) != 3 {
		t.Fatalf("markdown %d rows, csv %d rows; want header + 2", len(mdRows), len(csvRows))
	}
	for i := range csvRows {
		if strings.Join(csvRows[i], "\x00") != strings.Join(mdRows[i], "\x00") {
			t.Errorf("row %d differs:\n csv %q\n  md %q", i, csvRows[i], mdRows[i])
		}
	}
	// Overall over categories 1-4: q1,q3,q5,q6 right of 6 -> 66.67; Wilson 4/6 = [30.0, 90.3].
	want := []string{"a-run", "turns-cosine k=3 (offline)", "6", "0", "66.67", "[30.0, 90.3]", "50.00", "0.00", "100.00", "100.00", "1.500", "0.250", "1.750", "15", "20.0*", "-", "-", "-", "7", "-", "offline", "complete"}
	if got := csvRows[1]; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("table 2 run row:\n got %q\nwant %q", got, want)
	}
	wantB := []string{"b-score", "preds", "0", "0", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "7", "-", "-", "complete"}
	if got := csvRows[2]; strings.Join(got, "|") != strings.Join(wantB, "|") {
		t.Errorf("table 2 score row (no llm judge, no build):\n got %q\nwant %q", got, wantB)
	}
	if !strings.Contains(md.String(), "judge llm is missing from b-score") {
		t.Errorf("markdown notes should name the run without the judge:\n%s", md.String())
	}

	t3, _ := Table3(runs, j, Wide)
	if h := strings.Join(t3.Header, ","); h != "run,method,n,invalid,95% CI (llm),llm,f1,lexical,dataset,questions,embedder,backend,status" {
		t.Errorf("table 3 header %s", h)
	}
	if r := strings.Join(t3.Rows[0][5:8], ","); r != "66.67,25.00,-" {
		t.Errorf("table 3 row a %s", r)
	}
	if r := strings.Join(t3.Rows[1][5:8], ","); r != "-,50.00,100.00" {
		t.Errorf("table 3 row b %s", r)
	}

	// With the f1 metric chosen, the mean is shown but no Wilson interval.
	t4, _ := Table4(runs, "f1", Wide)
	if r := t4.Rows[0]; r[3] != "0" || r[4] != "25.00" || r[5] != "-" || r[6] != "25.00" {
		t.Errorf("table 4 f1 row %q: want overall 25.00 without CI", r)
	}
	if r := t4.Rows[1]; r[4] != "50.00" || r[5] != "-" {
		t.Errorf("table 4 score row %q", r)
	}
	var term bytes.Buffer
	if err := t4.Terminal(&term); err != nil || !strings.Contains(term.String(), "Table 4 shape") {
		t.Errorf("terminal: %v\n%s", err, term.String())
	}
}

func TestFindRunsGlobAndErrors(t *testing.T) {
	root := reportRuns(t)
	got, err := runlog.FindRuns([]string{filepath.Join(root, "a-*"), filepath.Join(root, "a-run")})
	if err != nil || len(got) != 1 || filepath.Base(got[0]) != "a-run" {
		t.Errorf("glob: %v %v (duplicates must be merged)", got, err)
	}
	if _, err := runlog.FindRuns([]string{filepath.Join(root, "zzz*")}); err == nil {
		t.Error("a glob matching nothing should be an error")
	}
	if _, err := runlog.FindRuns([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no run directory") {
		t.Errorf("empty dir: %v", err)
	}
}

func TestAbstentionTableOrder(t *testing.T) {
	rows := []AbstentionRate{
		{Run: "r3", System: "turns-rerank", K: 3, N: 10, Correct: 5, Rate: 50, Lo: 23.7, Hi: 76.3},
		{Run: "c5", System: "turns-cosine", K: 5, N: 0},
		{Run: "c3", System: "turns-cosine", K: 3, N: 4, Correct: 3, Rate: 75, Lo: 30, Hi: 95},
	}
	tb := AbstentionTable(rows)
	var order []string
	for _, r := range tb.Rows {
		order = append(order, r[0])
	}
	if strings.Join(order, ",") != "c3,c5,r3" {
		t.Errorf("order %v, want by system then k", order)
	}
	if tb.Rows[0][7] != "63.6" || tb.Rows[1][5] != "-" || tb.Rows[2][7] != "54.1" {
		t.Errorf("rows %q", tb.Rows)
	}
}

func TestChooseJudgeMostShared(t *testing.T) {
	mk := func(judges ...string) *runlog.Run {
		return &runlog.Run{Manifest: runlog.Manifest{Judges: judges, JudgeSpecs: runlogtest.Specs(judges...)}}
	}
	cases := []struct {
		runs []*runlog.Run
		want string
	}{
		{[]*runlog.Run{mk("f1", "lexical"), mk("llm", "f1"), mk("llm")}, "llm"}, // llm in 2 runs beats lexical in 1
		{[]*runlog.Run{mk("f1", "lexical"), mk("llm", "f1")}, "lexical"},        // tie: first seen
		{[]*runlog.Run{mk("bleu1", "f1"), mk("f1")}, "f1"},                      // only metrics: f1
	}
	for i, c := range cases {
		if got := ChooseJudge(c.runs, ""); got != c.want {
			t.Errorf("case %d: %q, want %q", i, got, c.want)
		}
	}
	if got := ChooseJudge(cases[0].runs, "gpt"); got != "gpt" {
		t.Errorf("given judge ignored: %q", got)
	}
}
