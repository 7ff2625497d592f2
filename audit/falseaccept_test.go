package audit

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/datasets/locomo"
	"github.com/membench/membench/internal/badinput"
	"github.com/membench/membench/judge"
	"github.com/membench/membench/stats"
)

// Textbook values, computed by hand from Wilson's formula, not by the code:
//
//	81/263 (Newcombe 1998, Stat Med 17:857, example): p = 0.30798,
//	z = 1.959964, z²/n = 0.0146063; centre = (0.30798 + 0.0073032)/1.0146063
//	= 0.310746; half = 1.931739·sqrt(0.30798·0.69202/263 + 3.841459/276676)
//	= 1.931739·0.028700 = 0.055441 → [0.2553, 0.3662], as the paper prints.
//
//	163/1540: p = 0.1058442, z²/n = 0.0024944; centre = (0.1058442 +
//	0.0012472)/1.0024944 = 0.1068249; half = 1.955087·sqrt(6.14557e-5 +
//	4.0494e-7) = 1.955087·0.0078652 = 0.0153771 → [0.09145, 0.12220].
func TestWilsonTextbook(t *testing.T) {
	for _, c := range []struct {
		k, n   float64
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{163, 1540, 0.09145, 0.12220},
	} {
		lo, hi := stats.WilsonRate(c.k/c.n, c.n, 0.95)
		if math.Abs(lo-c.lo) > 5e-5 || math.Abs(hi-c.hi) > 5e-5 {
			t.Errorf("wilson(%v/%v) = [%.5f, %.5f], want [%v, %v]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	// At whole successes it is stats.Wilson (one home for the formula's
	// integer form); at the edges it reaches 0 and 1.
	for _, c := range [][2]int{{0, 10}, {1, 10}, {5, 10}, {10, 10}, {490, 4620}, {7, 1540}} {
		lo, hi := stats.WilsonRate(float64(c[0])/float64(c[1]), float64(c[1]), 0.95)
		slo, shi, err := stats.Wilson(c[0], c[1], 0.95)
		if err != nil || math.Abs(lo-slo) > 1e-12 || math.Abs(hi-shi) > 1e-12 {
			t.Errorf("wilson(%d/%d) = [%v, %v], stats.Wilson [%v, %v] %v", c[0], c[1], lo, hi, slo, shi, err)
		}
	}
}

// shippedWrong is the locomo-audit file of 1,540 known-wrong answers with
// three recorded gpt-4o-mini verdicts each.
const shippedWrong = "../../shared/datasets/locomo-audit/ap-baseline/v1_specific_wrong.scored.json"

func readShipped(t *testing.T) *WrongFile {
	t.Helper()
	if _, err := os.Stat(shippedWrong); err != nil {
		t.Skipf("%s is absent (the locomo-audit data set, never committed): %v", shippedWrong, err)
	}
	w, err := ReadWrong(shippedWrong)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The published rate of the shipped file, 10.61%, is the mean of its three
// judgment runs: 163, 166 and 161 accepted of 1,540.
func TestRecordedShippedFile(t *testing.T) {
	w := readShipped(t)
	if w.Format != FormatScored || len(w.Answers) != 1540 || strings.Join(w.Runs, ",") != "judgment_1,judgment_2,judgment_3" {
		t.Fatalf("format %s, %d answers, runs %v", w.Format, len(w.Answers), w.Runs)
	}
	jr, err := Recorded(w)
	if err != nil {
		t.Fatal(err)
	}
	all := jr.Overall()
	for i, want := range []int{163, 166, 161} {
		if rc := all.Runs[i]; rc.Accepted != want || rc.Judged != 1540 {
			t.Errorf("run %s: %d of %d accepted, want %d of 1540", rc.Run, rc.Accepted, rc.Judged, want)
		}
	}
	if w.Accuracy == nil || all.Rate != *w.Accuracy || all.Rate != (163.0/1540+166.0/1540+161.0/1540)/3 {
		t.Errorf("rate %v, published %v", all.Rate, w.Accuracy)
	}
	if got := pct(all.Rate); got != "10.61%" {
		t.Errorf("rate prints %s, want 10.61%%", got)
	}
	// The categories add up to the whole, run by run.
	sum := make([]int, 3)
	n := 0
	for _, row := range jr.Rows[:len(jr.Rows)-1] {
		n += row.Answers
		for i, rc := range row.Runs {
			sum[i] += rc.Accepted
		}
	}
	if n != 1540 || sum[0] != 163 || sum[1] != 166 || sum[2] != 161 || len(jr.Rows) != 5 {
		t.Errorf("categories: %d answers, accepted %v, %d rows", n, sum, len(jr.Rows))
	}
}

// tinyLoCoMo has two conversations; conv-b's qa list holds a category-5
// question first, so its qa1 is the second question of the full list.
const tinyLoCoMo = `[
{"sample_id":"conv-a","conversation":{"speaker_a":"Ann","speaker_b":"Bo",
 "session_1_date_time":"1:56 pm on 8 May, 2023",
 "session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I went to Paris on 7 May 2023."}]},
 "qa":[{"question":"When did Ann go to Paris?","answer":"7 May 2023","evidence":["D1:1"],"category":2},
       {"question":"Where did Ann go?","answer":"Paris","evidence":["D1:1"],"category":4}]},
{"sample_id":"conv-b","conversation":{"speaker_a":"Cy","speaker_b":"Di",
 "session_1_date_time":"1:56 pm on 8 May, 2023",
 "session_1":[{"speaker":"Cy","dia_id":"D1:1","text":"My dog is called Biscuit and my cat Pepper."}]},
 "qa":[{"question":"What is Di's dog called?","adversarial_answer":"Biscuit","evidence":["D1:1"],"category":5},
       {"question":"What are Cy's pets called?","answer":"Biscuit, Pepper","evidence":["D1:1"],"category":1}]}
]`

func tinyDataset(t *testing.T) *datasets.Dataset {
	t.Helper()
	p := filepath.Join(t.TempDir(), "locomo.json")
	if err := os.WriteFile(p, []byte(tinyLoCoMo), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := locomo.Load(p, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// Plain JSONL takes questions from the dataset by the audit's ids (the qa
// index counts category 5) or membench's; then offline judges run, and
// their counts are the ones worked out by hand here.
func TestJudgedOfflineJSONL(t *testing.T) {
	w, err := ParseWrong([]byte(`{"question_id": "locomo_0_qa0", "answer": "8 May 2023"}
{"question_id": "locomo_0_qa1", "answer": "Rome"}

{"question_id": "conv-b:1", "answer": "Biscuit, Rex"}
`), "wrong.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if w.Format != FormatJSONL || !w.NeedsData() {
		t.Fatalf("format %s, needs data %v", w.Format, w.NeedsData())
	}
	if _, err := Judged(context.Background(), w, mustJudge(t, "f1"), 2); err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "--data") {
		t.Fatalf("judging without questions: %v", err)
	}
	if err := w.Resolve(tinyDataset(t)); err != nil {
		t.Fatal(err)
	}
	if q := w.Answers[2].Question; q.ID != "conv-b:1" || q.Gold != "Biscuit, Pepper" || q.Category != 1 {
		t.Fatalf("conv-b:1 resolved to %+v", q)
	}
	// By hand: "8 May 2023" vs "7 May 2023" shares may and 2023, F1 2/3:
	// accepted by f1 (>= 0.5) and by lexical (F1 >= 0.5). "Rome" vs
	// "Paris": nothing shared. "Biscuit, Rex" vs "Biscuit, Pepper"
	// (multi-hop: F1 per gold part, averaged): biscuit 1, pepper 0 → 0.5,
	// accepted by f1; lexical's plain token F1 is 1/2 as well → accepted.
	for _, c := range []struct {
		spec string
		want []int // accepted in categories 1, 2, 4, then overall
	}{
		{"f1", []int{1, 1, 0, 2}},
		{"lexical", []int{1, 1, 0, 2}},
		{"f1,threshold=0.6", []int{0, 1, 0, 1}},
	} {
		jr, err := Judged(context.Background(), w, mustJudge(t, c.spec), 2)
		if err != nil {
			t.Fatal(err)
		}
		if !jr.Offline || len(jr.Rows) != 4 {
			t.Fatalf("%s: offline %v, %d rows", c.spec, jr.Offline, len(jr.Rows))
		}
		for i, row := range jr.Rows {
			if row.Runs[0].Accepted != c.want[i] {
				t.Errorf("%s %s: %d accepted, want %d", c.spec, row.Category, row.Runs[0].Accepted, c.want[i])
			}
		}
		if o := jr.Overall(); o.Answers != 3 || math.Abs(o.Rate-float64(c.want[3])/3) > 1e-15 {
			t.Errorf("%s overall %+v", c.spec, o)
		}
	}
}

func mustJudge(t *testing.T, spec string) judge.Judge {
	t.Helper()
	j, err := judge.Parse(spec, judge.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestResolveErrors(t *testing.T) {
	ds := tinyDataset(t)
	for _, c := range []struct{ in, want string }{
		{`{"question_id": "locomo_2_qa0", "answer": "x"}`, "has 2 conversations"},
		{`{"question_id": "locomo_1_qa2", "answer": "x"}`, "which has 2 questions"},
		{`{"question_id": "q-17", "answer": "x"}`, "neither locomo_<conversation index>_qa<question index>"},
		{`{"question_id": "locomo_0_qa0", "answer": "x", "question": "Where did Ann go?"}`, "the ids do not match"},
		{`{"question_id": "locomo_0_qa1", "answer": "x", "category": 2}`, "category 2 in the file but 4"},
		{`{"question_id": "locomo_99999999999999999999_qa0", "answer": "x"}`, "conversations"},
	} {
		w, err := ParseWrong([]byte(c.in), "w.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		err = w.Resolve(ds)
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "w.jsonl line 1") {
			t.Errorf("%s: %v, want bad input naming w.jsonl line 1 and %q", c.in, err, c.want)
		}
	}
}

func TestParseWrongErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{"  \n", "empty"},
		{`{"answer": "x"}`, "line 1: no question_id"},
		{`{"question_id": "a"}`, "line 1 (a): no answer"},
		{`{"question_id": "a", "answer": "x"}` + "\n" + `{"question_id": "a", "answer": "y"}`, "line 2: question_id \"a\" is also at line 1"},
		{`{"question_id": "a", "answer": "x", "category": 7}`, "not a LoCoMo category"},
		{`{"question_id": "a", "answer": "x", "category": "two"}`, "not a LoCoMo category"},
		{`{"question_id": "a", "answer": "x", "gold": [1]}`, "gold is [1]"},
		{`{"question_id": "a", "answer": "x", "llm_judgments": {"judgment_1": "yes"}}`, "llm_judgments.judgment_1 is \"yes\", not true or false"},
		{`{"question_id": "a", "answer": "x", "llm_judgments": {"judgment_1": null}}`, "llm_judgments.judgment_1 is null"},
		{`{"question_id": "a", "answer": "x", "generated_answer": "y"}`, "answer and generated_answer differ"},
		{`{"question_id": "a", "answer": "x"}` + "\n" + `{"question_id": "b", "answer": `, "line 2: not a JSON record"},
		{`{"detailed_results": {"c": [{"question_id": "a", "generated_answer": "x"}]}} {}`, "text after the scored file's closing }"},
		{`{"detailed_results": {"c": {"question_id": "a"}}}`, "detailed_results.c is not a list"},
		{`{"detailed_results": {"c": [{"question_id": "a"}]}}`, "detailed_results.c[0] (a): no answer"},
		{`{"detailed_results": {}}`, "no answers"},
		{`{"detailed_results": []}`, "detailed_results is not an object"},
	} {
		_, err := ParseWrong([]byte(c.in), "w")
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseWrong(%q) = %v, want bad input with %q", c.in, err, c.want)
		}
	}
}

// A scored file reads its records in conversation-key order, its recorded
// runs in natural order, and numbers as gold answers.
func TestParseWrongScored(t *testing.T) {
	w, err := ParseWrong([]byte(`{"accuracy": 0.5, "detailed_results": {
 "u_1": [{"question_id": "locomo_1_qa1", "question": "q2", "golden_answer": 2022, "generated_answer": "2021", "category": "2",
          "llm_judgments": {"judgment_10": true, "judgment_2": false}}],
 "u_0": [{"question_id": "locomo_0_qa0", "question": "q1", "golden_answer": "Paris", "generated_answer": "Rome", "category": 4,
          "llm_judgments": {"judgment_2": true}}]}}`), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if w.Format != FormatScored || w.NeedsData() || *w.Accuracy != 0.5 || strings.Join(w.Runs, ",") != "judgment_2,judgment_10" {
		t.Fatalf("%+v", w)
	}
	if a := w.Answers[1]; a.ID != "locomo_1_qa1" || a.Question.Gold != "2022" || a.Question.Category != 2 || a.Answer != "2021" {
		t.Fatalf("second answer %+v %+v", a, a.Question)
	}
	jr, err := Recorded(w)
	if err != nil {
		t.Fatal(err)
	}
	// judgment_2: 1 of 2 accepted; judgment_10 judged only the second: 1 of 1.
	o := jr.Overall()
	if o.Runs[0].Accepted != 1 || o.Runs[0].Judged != 2 || o.Runs[1].Accepted != 1 || o.Runs[1].Judged != 1 || o.Rate != 0.75 {
		t.Errorf("overall %+v", o)
	}
	if _, err := Recorded(&WrongFile{Path: "x", Answers: w.Answers[:0]}); err == nil || !badinput.Is(err) {
		t.Errorf("recorded with no verdicts: %v", err)
	}
}

// A model judge's error stops the audit and names judge and question.
func TestJudgedError(t *testing.T) {
	w, err := ParseWrong([]byte(`{"question_id": "a", "answer": "x", "question": "q", "gold": "g", "category": 4}`), "w")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Judged(context.Background(), w, failing{}, 1)
	if err == nil || !strings.Contains(err.Error(), "judge boom, question a: down") {
		t.Errorf("error %v", err)
	}
}

type failing struct{}

func (failing) Name() string { return "boom" }
func (failing) Judge(context.Context, judge.Sample) (judge.Verdict, error) {
	return judge.Verdict{}, errors.New("down")
}
