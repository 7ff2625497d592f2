package answerkey

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/membench/membench/datasets"
	_ "github.com/membench/membench/datasets/all"
	"github.com/membench/membench/internal/badinput"
)

const (
	shippedKey    = "../../../shared/datasets/locomo-audit/errors.json"
	shippedLoCoMo = "../../../shared/datasets/locomo10.json"
)

func shipped(t *testing.T) (*Key, *datasets.Dataset) {
	t.Helper()
	for _, p := range []string{shippedKey, shippedLoCoMo} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("shipped data absent (%v); it lives in ../shared/datasets", err)
		}
	}
	k, err := Read(shippedKey)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load("locomo", shippedLoCoMo, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return k, ds
}

// The audit's own figures: 156 flags; 99 scored questions with a wrong
// published gold, ceilings 93.57% overall and 90.07/91.90/90.62/95.72%.
func TestShippedKeyCeilings(t *testing.T) {
	k, ds := shipped(t)
	if len(k.Flags) != 156 {
		t.Fatalf("%d flags, want 156", len(k.Flags))
	}
	cs, err := k.Match(ds)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]float64{1: 90.07, 2: 91.90, 3: 90.62, 4: 95.72, 0: 93.57}
	cl := cs.Ceilings(ds.Questions())
	if len(cl) != 5 {
		t.Fatalf("ceilings %+v", cl)
	}
	for _, c := range cl {
		// The audit prints two decimals (90.625 as 90.62): within half a unit.
		if got := c.Ceiling * 100; math.Abs(got-want[c.Category]) > 0.005+1e-9 {
			t.Errorf("category %d: ceiling %.2f%% (%d wrong of %d), want %.2f%%", c.Category, got, c.GoldWrong, c.Questions, want[c.Category])
		}
	}
	if all := cl[4]; all.Questions != 1540 || all.GoldWrong != 99 {
		t.Errorf("overall %+v, want 99 wrong of 1540", all)
	}
}

// Applying the key: 86 answers replaced, 57 citations fixed, 13 ambiguous
// questions dropped; a replaced gold is the key's answer, a fixed citation
// the key's evidence, and the published gold of a citation fix stays.
func TestShippedKeyApply(t *testing.T) {
	k, ds := shipped(t)
	cs, err := k.Match(ds)
	if err != nil {
		t.Fatal(err)
	}
	before := len(ds.Questions())
	a := cs.Apply(ds)
	if a.AnswerChanged != 86 || a.EvidenceChanged != 57 || a.Excluded != 13 {
		t.Errorf("applied %+v, want 86 answers, 57 evidence, 13 excluded", a)
	}
	if n := len(ds.Questions()); n != before-13 {
		t.Errorf("%d questions after, want %d", n, before-13)
	}
	q := ds.Conversations[0].Questions[1] // locomo_0_qa1: a wrong citation
	if q.ID != "conv-26:1" || q.Gold != "2022" || strings.Join(q.Evidence, ",") != "D1:14" {
		t.Errorf("locomo_0_qa1 under the key: %+v", q)
	}
	q = ds.Conversations[0].Questions[2] // locomo_0_qa2: hallucinated gold
	if q.Gold != "Counseling or mental health" {
		t.Errorf("locomo_0_qa2 gold %q", q.Gold)
	}
}

// A key for another file is refused with the id and both texts.
func TestMatchRefusesAnotherFile(t *testing.T) {
	k, err := Parse([]byte(`[{"question_id":"locomo_0_qa0","question":"Who is Zed?","category":1,"error_type":"HALLUCINATION","correct_answer":"x"}]`), "k.json")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.Load("sample", "", datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.Match(ds)
	if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), "locomo_0_qa0") {
		t.Errorf("got %v, want a bad-input refusal naming the id", err)
	}
}

func TestParseRefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{}`, "JSON list"},
		{`[{"question_id":"q1","error_type":"HALLUCINATION","correct_answer":"x"}]`, "not locomo_"},
		{`[{"question_id":"locomo_0_qa1","correct_answer":"x"}]`, "no error_type"},
		{`[{"question_id":"locomo_0_qa1","error_type":"HALLUCINATION"}]`, "correct_answer is empty"},
		{`[{"question_id":"locomo_0_qa1","error_type":"WRONG_CITATION"}]`, "without correct_evidence"},
		{`[{"question_id":"locomo_0_qa1","error_type":"AMBIGUOUS"},{"question_id":"locomo_0_qa1","error_type":"AMBIGUOUS"}]`, "already flagged"},
		{`[{"question_id":"locomo_0_qa1","error_type":"HALLUCINATION","correct_answer":{}}]`, "correct_answer"},
	} {
		_, err := Parse([]byte(c.in), "k.json")
		if err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "k.json") {
			t.Errorf("%s: got %v, want a bad-input error with %q", c.in, err, c.want)
		}
	}
	k, err := Parse([]byte(`[{"question_id":"locomo_2_qa7","golden_answer":2022,"error_type":"TEMPORAL_ERROR","correct_answer":2021}]`), "dir/mine.json")
	if err != nil || k.Flags[0].CorrectAnswer != "2021" || k.Flags[0].GoldenAnswer != "2022" || k.Name != "mine" {
		t.Errorf("numbers as answers: %+v %v", k, err)
	}
}

// published is no key; audited needs the registered copy.
func TestOpen(t *testing.T) {
	home := t.TempDir()
	if k, err := Open("published", home); k != nil || err != nil {
		t.Errorf("published: %v %v", k, err)
	}
	_, err := Open("audited", home)
	if err == nil || !strings.Contains(err.Error(), "datasets add locomo-audit") {
		t.Errorf("audited, not installed: %v", err)
	}
	if _, err := os.Stat(shippedKey); err != nil {
		t.Skip("shipped key absent")
	}
	e, _ := datasets.File(Entry)
	if _, err := datasets.AddLocal(e, datasets.DefaultDir(home), shippedKey, 0); err != nil {
		t.Fatal(err)
	}
	k, err := Open("audited", home)
	if err != nil || k.Name != Audited || len(k.Flags) != 156 || !strings.HasPrefix(k.ID(), "audited sha256:f298ef46") {
		t.Errorf("audited: %v %v", k, err)
	}
}

func FuzzParseKey(f *testing.F) {
	f.Add([]byte(`[{"question_id":"locomo_0_qa1","question":"q","golden_answer":"a","category":2,"error_type":"WRONG_CITATION","cited_evidence":["D1:12"],"correct_evidence":["D1:14"],"correct_answer":"a"}]`))
	f.Add([]byte(`[{"question_id":"locomo_9_qa100","error_type":"AMBIGUOUS"}]`))
	f.Add([]byte(`[{"question_id":"locomo_1_qa3","error_type":"TEMPORAL_ERROR","correct_answer":2021}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := Parse(b, "fuzz.json")
		if err != nil {
			if !badinput.Is(err) {
				t.Fatalf("not a bad-input error: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, fl := range k.Flags {
			if !auditID.MatchString(fl.QuestionID) || seen[fl.QuestionID] {
				t.Fatalf("accepted flag %+v", fl)
			}
			seen[fl.QuestionID] = true
			if fl.ChangesAnswer() && strings.TrimSpace(fl.CorrectAnswer) == "" {
				t.Fatalf("answer-changing flag without an answer: %+v", fl)
			}
		}
	})
}
