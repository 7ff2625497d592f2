package peers

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/datasets/longmemeval"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/runlog/runlogtest"
	"github.com/membench/membench/scoring"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/testutil"
)

// tiny is a two-conversation dataset; conv-b asks the same text twice
// (categories 4 and 5), as LoCoMo does.
func tiny() *datasets.Dataset {
	q := func(conv string, i, cat int, text, gold string) *datasets.Question {
		return &datasets.Question{ID: conv + ":" + string(rune('0'+i)), ConversationID: conv, Category: cat, Text: text, Gold: gold}
	}
	return &datasets.Dataset{Name: "locomo", Source: "tiny", Conversations: []*datasets.Conversation{
		{ID: "conv-a", Questions: []*datasets.Question{
			q("conv-a", 0, 2, "When did Ann move?", "2020"),
			q("conv-a", 1, 5, "What did Ann never say?", ""),
			q("conv-a", 2, 1, "Who visited Ann?", "Bob"),
		}},
		{ID: "conv-b", Questions: []*datasets.Question{
			q("conv-b", 0, 4, "What did Cy win?", "a trophy"),
			q("conv-b", 1, 5, "What did Cy win?", ""),
			q("conv-b", 2, 3, "Would Cy like jazz?", "Likely yes"),
		}},
	}}
}

const zepFixture = `{
 "locomo_experiment_user_0": [
  {"question": "When did Ann move?", "answer": "In 2020.", "golden_answer": 2020, "grade": true, "category": 2},
  {"question": "Who visited Ann?", "answer": "Carl", "golden_answer": "Bob", "grade": false, "category": 1}],
 "locomo_experiment_user_1": [
  {"question": "What did Cy win?", "answer": "A trophy", "golden_answer": "a trophy", "grade": true, "category": 4},
  {"question": "would cy like JAZZ", "answer": "yes", "golden_answer": "Likely yes", "grade": true, "category": 3},
  {"question": "Is this in the data?", "answer": "no", "golden_answer": "x", "grade": false, "category": 4}]}`

func TestZepMatchAndAccuracy(t *testing.T) {
	items, err := ParseZep([]byte(zepFixture), "zep.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 5 || items[0].Gold != "2020" || items[2].ConvIndex != 1 {
		t.Fatalf("parsed %+v", items)
	}
	ms, rep := Match(items, tiny())
	if rep.Matched != 4 || rep.Unmatched != 1 || rep.Normalized != 1 || rep.CategoryMismatch != 0 {
		t.Fatalf("report %+v", rep)
	}
	if !strings.Contains(rep.UnmatchedSample[0], "Is this in the data?") {
		t.Errorf("unmatched example %q", rep.UnmatchedSample)
	}
	ids := map[string]bool{}
	for _, m := range ms {
		ids[m.ID] = true
	}
	// The duplicated text goes to the category-4 question, not the adversarial one.
	for _, want := range []string{"conv-a:0", "conv-a:2", "conv-b:0", "conv-b:2"} {
		if !ids[want] {
			t.Errorf("missing %s in %v", want, ids)
		}
	}
	overall, by := Accuracy(ms, []int{1, 2, 3, 4})
	if overall != (Tally{Correct: 3, N: 4}) || by[1] != (Tally{0, 1}) || by[2] != (Tally{1, 1}) {
		t.Errorf("overall %+v by %+v", overall, by)
	}
}

func TestDuplicateTextMatchedInOrder(t *testing.T) {
	// No categories: two peer items with the same text take both questions.
	items := []Item{{ConvID: "conv-b", ConvIndex: -1, Question: "What did Cy win?"}, {ConvID: "conv-b", ConvIndex: -1, Question: "What did Cy win?"},
		{ConvID: "conv-b", ConvIndex: -1, Question: "What did Cy win?"}}
	ms, rep := Match(items, tiny())
	if len(ms) != 2 || ms[0].ID != "conv-b:0" || ms[1].ID != "conv-b:1" || rep.Unmatched != 1 {
		t.Fatalf("matched %+v report %+v", ms, rep)
	}
}

func TestOtherFormats(t *testing.T) {
	cases := []struct {
		f      Format
		data   string
		n, cor int
		conv   string
	}{
		{FormatMemobase, `{"1": [{"question": "Would Cy like jazz?", "answer": "Likely yes", "response": "yes", "category": "3", "llm_score": 1, "f1_score": 0.5, "bleu_score": 0.3}],
		  "0": [{"question": "Who visited Ann?", "answer": "Bob", "response": "Bob", "category": "2", "llm_score": 0}]}`, 2, 1, ""},
		{FormatBackboard, `{"conversation_id": "conv-b", "responses": [{"conversation_id": "conv-b", "category": 4, "question": "What did Cy win?",
		  "expected_answer": "a trophy", "ai_response": "trophy", "evaluation": {"is_correct": true, "reasoning": "same", "error": null}}]}`, 1, 1, "conv-b"},
		{FormatCORE, `{"summary": {}, "conversations": [{"conversationId": "locomo_2", "results": [{"question": "What did Cy win?", "expectedAnswer": "a trophy",
		  "category": 4, "generatedAnswer": "a cup", "evaluationResult": "WRONG", "evaluationReasoning": "no"}]}]}`, 1, 0, ""},
	}
	for _, c := range cases {
		items, err := Parse(c.f, []byte(c.data), string(c.f))
		if err != nil {
			t.Fatalf("%s: %v", c.f, err)
		}
		ms, rep := Match(items, tiny())
		if rep.Matched != c.n {
			t.Errorf("%s: matched %d of %d: %+v", c.f, rep.Matched, c.n, rep)
		}
		overall, _ := Accuracy(ms, nil)
		if overall.Correct != c.cor {
			t.Errorf("%s: %d correct, want %d", c.f, overall.Correct, c.cor)
		}
	}
	// Memobase's category "2" on a category-1 question is counted as a mismatch.
	items, _ := ParseMemobase([]byte(cases[0].data), "m")
	if _, rep := Match(items, tiny()); rep.CategoryMismatch != 1 {
		t.Errorf("category mismatches %d, want 1", rep.CategoryMismatch)
	}
	lme, err := ParseLongMemEval([]byte(`[{"question_id": "q1", "question_type": "t", "answer": "a", "hypothesis": "h", "evaluation": "Yes"},
	  {"question_id": "q2", "answer": 3, "hypothesis": "h", "evaluation": "no"}]`), "l")
	if err != nil || len(lme) != 2 || !lme[0].Correct || lme[1].Correct || lme[1].Gold != "3" {
		t.Fatalf("longmemeval %+v %v", lme, err)
	}
	if _, err := Parse(FormatZep, []byte(`[1]`), "bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("bad input error %v should name the file", err)
	}
}

func TestWriteRun(t *testing.T) {
	items, _ := ParseZep([]byte(zepFixture), "zep.json")
	ms, rep := Match(items, tiny())
	dir := t.TempDir()
	// Without the file's sha256 a LoCoMo import is refused: compare joins
	// runs on it.
	if err := WriteRun(dir, RunInfo{System: "zep", Dataset: "locomo", DatasetSource: "tiny"}, ms, rep); err == nil || !strings.Contains(err.Error(), "no sha256 of the LoCoMo file") {
		t.Fatalf("import without the dataset's sha256: %v, want it refused", err)
	}
	if err := WriteRun(dir, RunInfo{System: "zep", Dataset: "locomo", DatasetSource: "tiny", DatasetSHA256: "5ha"}, ms, rep); err != nil {
		t.Fatal(err)
	}
	m, err := runlog.LoadManifest(dir)
	if err != nil || m.DatasetSHA256 != "5ha" || m.Config.DataSHA256 != "5ha" || !m.Peer {
		t.Fatalf("manifest %+v %v: want the dataset's sha256 and marked a peer", m, err)
	}
	js, err := runlogtest.Judgments(dir)
	if err != nil || len(js) != 4 {
		t.Fatalf("judgments %v %v", js, err)
	}
	want := runlog.Judgment{QuestionID: "conv-a:0", System: "zep", Judge: JudgeName, Correct: true, Score: 1, Raw: "true"}
	if js[0] != want {
		t.Errorf("first judgment %+v, want %+v", js[0], want)
	}
	preds, err := scoring.ReadPredictions(filepath.Join(dir, PredictionsFile))
	if err != nil || len(preds) != 4 || preds[0].Prediction != "In 2020." {
		t.Errorf("predictions %+v %v", preds, err)
	}
	ans, _ := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if len(ans) != 4 || ans[0].Category != 2 || ans[0].Gold != "2020" {
		t.Errorf("answers %+v", ans)
	}
}

// TestRealPeers reproduces the published accuracies from the shared files.
func TestRealPeers(t *testing.T) {
	peersDir := testutil.Shared(t, "peers")
	loco := testutil.Shared(t, "datasets", "locomo10.json")
	ds, err := datasets.Load("locomo", loco, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// exact: the published figure is reproduced to its rounding (0.01).
	// Zep's 75.14 is a mean over runs: no k/1540 rounds to it, so only the
	// count of this run's file is pinned (1157/1540 = 75.13).
	want := map[string]struct {
		correct int
		exact   bool
	}{"zep": {1157, false}, "memobase-v0.0.32": {1092, true}, "memobase-v0.0.37": {1167, true}, "backboard": {1386, true}, "core": {1358, false}}
	for _, s := range Known() {
		if s.Dataset != "locomo" {
			continue
		}
		items, _, err := LoadFiles(s.Format, peersDir, s.Glob)
		if err != nil {
			t.Fatal(err)
		}
		ms, rep := Match(items, ds)
		if rep.Items != 1540 || rep.Matched != 1540 || rep.Unmatched != 0 || rep.CategoryMismatch != 0 {
			t.Errorf("%s: %+v", s.System, rep)
		}
		overall, by := Accuracy(ms, []int{1, 2, 3, 4})
		w, ok := want[s.System]
		if ok && overall.Correct != w.correct {
			t.Errorf("%s: %d correct, want %d", s.System, overall.Correct, w.correct)
		}
		if !ok || !w.exact || s.Published == nil {
			continue
		}
		if d := math.Abs(overall.Pct() - s.Published.Overall); d > 0.01 {
			t.Errorf("%s: overall %.4f vs published %.2f", s.System, overall.Pct(), s.Published.Overall)
		}
		for c, p := range s.Published.ByCategory {
			if d := math.Abs(by[c].Pct() - p); d > 0.01 {
				t.Errorf("%s: category %d %.4f vs published %.2f", s.System, c, by[c].Pct(), p)
			}
		}
	}
	// Zep per category: 1 and 4 match the paper; 2 and 3 are swapped there.
	for _, s := range Known() {
		if s.System != "zep" {
			continue
		}
		items, _, _ := LoadFiles(s.Format, peersDir, s.Glob)
		ms, _ := Match(items, ds)
		_, by := Accuracy(ms, nil)
		p := s.Published.ByCategory
		for _, pair := range [][2]int{{1, 1}, {4, 4}, {2, 3}, {3, 2}} {
			if d := math.Abs(by[pair[0]].Pct() - p[pair[1]]); d > 0.01 {
				t.Errorf("zep: category %d %.4f vs paper's category-%d column %.2f", pair[0], by[pair[0]].Pct(), pair[1], p[pair[1]])
			}
		}
	}
	// LongMemEval text run: 435 lowercase "yes" (their 87.0), 443 ignoring case.
	items, _, err := LoadFiles(FormatLongMemEval, peersDir, "longmemeval_lugmans/gemini-2.5-flash-dynamic-thinking-text-context-eval.json")
	if err != nil {
		t.Fatal(err)
	}
	lower, any := 0, 0
	for _, it := range items {
		if it.Raw == "yes" {
			lower++
		}
		if it.Correct {
			any++
		}
	}
	if len(items) != 500 || lower != 435 || any != 443 {
		t.Errorf("lugmans text: %d items, %d lowercase yes, %d yes any case", len(items), lower, any)
	}
}

// A peer's LongMemEval "_abs" question is written with the dataset
// question's abstention flag, which readers use instead of the id.
func TestWriteRunCarriesAbstention(t *testing.T) {
	ds, err := longmemeval.Load(filepath.Join("..", "datasets", "testdata", "longmemeval_mini.json"), datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items, err := ParseLongMemEval([]byte(`[{"question_id": "q_pref_1", "answer": "Tallinn", "hypothesis": "Tallinn", "evaluation": "yes"},
	  {"question_id": "q_pref_1_abs", "answer": "x", "hypothesis": "He moved to Oslo", "evaluation": "no"}]`), "l")
	if err != nil {
		t.Fatal(err)
	}
	ms, rep := Match(items, ds)
	dir := t.TempDir()
	if err := WriteRun(dir, RunInfo{System: "peer", Dataset: "longmemeval", DatasetSource: ds.Source}, ms, rep); err != nil {
		t.Fatal(err)
	}
	ans, err := runlog.ReadJSONL[runlog.AnswerRecord](filepath.Join(dir, runlog.AnswersFile))
	if err != nil || len(ans) != 2 {
		t.Fatalf("answers %+v %v", ans, err)
	}
	for _, a := range ans {
		if a.Abstention != (a.QuestionID == "q_pref_1_abs") {
			t.Errorf("%s: abstention %v", a.QuestionID, a.Abstention)
		}
	}
}

// Tally is correct/total in one group.
type Tally struct {
	Correct, N int
}

// Pct is the accuracy in points (NaN-free: 0 when empty).
func (t Tally) Pct() float64 {
	if t.N == 0 {
		return 0
	}
	return 100 * float64(t.Correct) / float64(t.N)
}

// Accuracy tallies graded items by dataset category and overall over the
// categories in scored (all when scored is empty). LoCoMo papers score 1-4.
func Accuracy(ms []Matched, scored []int) (overall Tally, byCat map[int]Tally) {
	keep := map[int]bool{}
	for _, c := range scored {
		keep[c] = true
	}
	byCat = map[int]Tally{}
	for _, m := range ms {
		if !m.Graded {
			continue
		}
		t := byCat[m.DataCategory]
		t.N++
		if m.Correct {
			t.Correct++
		}
		byCat[m.DataCategory] = t
		if len(scored) == 0 || keep[m.DataCategory] {
			overall.N++
			if m.Correct {
				overall.Correct++
			}
		}
	}
	return overall, byCat
}
