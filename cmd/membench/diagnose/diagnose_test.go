package diagnose

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog/runlogtest"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/analysis"
	"github.com/membench/membench/cmd/membench/clierr"
)

// writeRun: two temporal questions (one lost at selection, one fully hit)
// and one adversarial question the llm judge accepts.
func writeRun(t *testing.T, dir, system string, k int, abstainOK bool) {
	t.Helper()
	it := func(s string) []membench.ItemRef { return []membench.ItemRef{{ID: s, Sources: []string{s}}} }
	j := runlog.Judgment{QuestionID: "q3", Judge: "llm", Correct: abstainOK}
	if abstainOK {
		j.Score = 1 // readers refuse correct judgments scored 0
	}
	r := runlogtest.Run{
		Manifest: runlog.Manifest{Config: membench.Config{System: system, K: k}, Dataset: "locomo", Judges: []string{"f1", "llm"}},
		Retrievals: []runlog.RetrievalRecord{
			{QuestionID: "q1", Evidence: []string{"D1:1"}, Candidates: append(it("D1:1"), it("D1:2")...), Items: it("D1:2")},
			{QuestionID: "q2", Evidence: []string{"D1:3"}, Candidates: it("D1:3"), Items: it("D1:3")},
			{QuestionID: "q3", Candidates: it("D1:4"), Items: it("D1:4")}},
		Answers:   []runlog.AnswerRecord{{QuestionID: "q1", Category: 2}, {QuestionID: "q2", Category: 2}, {QuestionID: "q3", Category: 5}},
		Judgments: []runlog.Judgment{j},
	}
	r.Write(t, dir)
}

func run(args ...string) (string, error) { return testutil.Execute(NewCmd(), args...) }

func TestDiagnoseCommand(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeRun(t, a, "turns-rerank", 3, true)
	writeRun(t, b, "turns-cosine", 3, false)
	pq := filepath.Join(root, "pq.csv")
	out, err := run("--run", a, "--run", root, "--out", pq, "--format", "markdown")
	if err != nil {
		t.Fatal(err)
	}
	// temporal: 2 with candidates, both have evidence in them, q1 dropped
	// -> 50% dropped. Three questions are not the study's question set:
	// no paper column, and a line that says so.
	for _, want := range []string{
		"| temporal | 2 | 100.0 | 100.0 | 0.0 | 50.0 | 50.0 |",
		"| a | turns-rerank | 3 | llm | 1 | 100.0 |",
		"| b | turns-cosine | 3 | llm | 1 | 0.0 |",
		"no paper column: the raw-turn selection study's loss decomposition does not apply here: the study's figures are over the 9 held-out LoCoMo conversations (all but conv-26), 1,388 scored questions; this run answered locomo no conversation ids, 2 scored questions (other conversations)",
		"a: the study's rate at k=3 does not apply",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "22.7") || strings.Contains(out, "paper at k=3") {
		t.Errorf("the study's figures beside a run on other questions:\n%s", out)
	}
	f, err := os.Open(pq)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 4 || recs[1][8] != "lost-selection" || recs[2][8] != "all-hit" || recs[3][8] != "no-evidence" {
		t.Errorf("per-question csv %v %v", recs, err)
	}

	out, err = run("--run", a, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Rates []struct {
			Group   string   `json:"group"`
			Dropped *float64 `json:"dropped_by_selector_pct"`
		}
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || len(js.Rates) != 3 || js.Rates[2].Group != "overall" || *js.Rates[2].Dropped != 50 {
		t.Errorf("json rates %+v %v\n%s", js.Rates, err, out)
	}

	for _, bad := range [][]string{{}, {"--run", filepath.Join(root, "none")}, {"--run", a, "--judge", "nope"}, {"--run", a, "--format", "html"}} {
		if _, err := run(bad...); clierr.Code(err) != 2 {
			t.Errorf("%v: err %v, want exit 2", bad, err)
		}
	}
}

func TestDiagnoseWithOptions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a")
	writeRun(t, dir, "turns-rerank", 3, false)
	var out strings.Builder
	if err := Run(context.Background(), &Options{Runs: []string{dir}, Judge: "llm", Format: "markdown", Out: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| a | turns-rerank | 3 | llm | 1 | 0.0 |") {
		t.Errorf("abstention row missing:\n%s", out.String())
	}
	if err := Run(context.Background(), &Options{Runs: []string{dir}, Judge: "nope", Out: &out}); clierr.Code(err) != 2 {
		t.Errorf("unknown judge: err %v, want exit 2", err)
	}
}

// The new spellings: --run repeatable with a directory of runs, --out for
// the per-question CSV; a system the paper has no decomposition for gets no
// paper table and no paper column.
func TestDiagnoseRunOutAndNoPaperTable(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	writeRun(t, a, "structmem", 3, true)
	writeRun(t, b, "flat", 5, false)
	pq := filepath.Join(t.TempDir(), "pq.csv")
	out, err := run("--run", a, "--run", root, "--out", pq, "--format", "markdown")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| a | structmem | 3 | llm | 1 | 100.0 |", "| b | flat | 5 | llm | 1 | 0.0 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "paper") || strings.Contains(out, "22.7") {
		t.Errorf("structmem run printed a paper comparison the paper does not report:\n%s", out)
	}
	if _, err := os.Stat(pq); err != nil {
		t.Errorf("--out did not write the per-question CSV: %v", err)
	}
	js, err := run("--run", a, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["paper"]; ok {
		t.Errorf("JSON of a structmem run has paper figures: %s", js)
	}
}

// writeStudyRun: turns-rerank at k=3 on the study's held-out set (9
// LoCoMo conversations, all 1,388 scored questions), every evidence turn
// among the candidates and in the context.
func writeStudyRun(t *testing.T, dir string) {
	t.Helper()
	it := func(s string) []membench.ItemRef { return []membench.ItemRef{{ID: s, Sources: []string{s}}} }
	convs := analysis.HeldOutSet.Conversations
	r := runlogtest.Run{Manifest: runlog.Manifest{Config: membench.Config{System: "turns-rerank", K: 3}, Dataset: "locomo", Judges: []string{"llm"}, Embedder: "tfidf-hash-512",
		Prompts: map[string]string{"relevance": "55cffed978e6c8443699c6bbe656d8b1299e8b16aa9cc8a9cfce6a3fe9cb61ea"}}}
	add := func(i int, conv string, cat int) {
		id := fmt.Sprintf("q%d", i)
		r.Retrievals = append(r.Retrievals, runlog.RetrievalRecord{QuestionID: id, ConversationID: conv, Evidence: []string{"D1:1"}, Candidates: append(it("D1:1"), it("D1:2")...), Items: it("D1:1")})
		r.Answers = append(r.Answers, runlog.AnswerRecord{QuestionID: id, ConversationID: conv, Category: cat, Abstention: cat == 5})
		r.Judgments = append(r.Judgments, runlog.Judgment{QuestionID: id, Judge: "llm", Correct: true, Score: 1})
	}
	for i := range 1388 {
		add(i, convs[i%len(convs)], 1+i%4)
	}
	r.Write(t, dir)
}

// On the study's question set the paper column is printed with the
// decision model, embedder and prompt each side used; an offline run's
// figures say so in every table, beside the paper's.
func TestDiagnoseMarksOfflineFigures(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	writeStudyRun(t, a)
	mp := filepath.Join(a, runlog.ManifestFile)
	m, err := runlog.LoadManifest(a)
	if err != nil {
		t.Fatal(err)
	}
	m.Models = map[string]membench.ModelID{"answer": {Backend: "offline", Model: "heuristic"}, "decide": {Backend: "offline", Model: "heuristic"}}
	if err := runlog.WriteJSON(mp, m); err != nil {
		t.Fatal(err)
	}
	out, err := run("--run", a, "--format", "markdown")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tb := range strings.Split(out, "### ")[1:] {
		n++
		if !strings.Contains(tb, "offline heuristics") {
			t.Errorf("table without the offline note:\n%s", tb)
		}
	}
	if n < 4 || !strings.Contains(out, "ours vs the raw-turn selection study") {
		t.Errorf("want the candidate, recall, paper and abstention tables marked (%d tables):\n%s", n, out)
	}
	for _, want := range []string{
		"| temporal: in candidates but all dropped % | 0.0 | 22.7 |",
		"| decision model | offline:heuristic | " + analysis.PaperDecisionModel + " |",
		"| embedder | tfidf-hash-512 | text-embedding-3-small |",
		"| decision prompt | relevance sha256:55cffed978e6 | " + analysis.PaperDecisionPrompt + " |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("paper table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no paper column") {
		t.Errorf("the study's own question set said not to apply:\n%s", out)
	}
}
