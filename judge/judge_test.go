package judge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
)

func TestLexicalVerdict(t *testing.T) {
	cases := []struct {
		name   string
		in     LLMJudgeInput
		want   string
		reason string // substring showing which rule fired
	}{
		// F1 = 2/7 < 0.5 but the gold's only content word is present
		{"content words", LLMJudgeInput{Gold: "Hawaii", Prediction: "She went to Hawaii last summer"}, LabelCorrect, "content word"},
		{"wrong place", LLMJudgeInput{Gold: "Hawaii", Prediction: "Japan"}, LabelWrong, "F1"},
		// F1 with "7 May 2023" is 4/9 and "7th" ≠ "7"; the date rule decides
		{"same date", LLMJudgeInput{Gold: "7 May 2023", Prediction: "It was on May 7th, 2023"}, LabelCorrect, "date"},
		{"other day", LLMJudgeInput{Gold: "7 May 2023", Prediction: "It was on May 8th, 2023"}, LabelWrong, ""},
		{"iso date", LLMJudgeInput{Gold: "The week before 9 June 2023", Prediction: "2023-06-09, a week before"}, LabelCorrect, ""},
		{"high F1", LLMJudgeInput{Gold: "painting and pottery", Prediction: "pottery, painting"}, LabelCorrect, "F1"},
		{"declines answerable", LLMJudgeInput{Gold: "Paris", Prediction: "Not mentioned in the conversation"}, LabelWrong, "declines"},
		{"abstention declines", LLMJudgeInput{Category: 5, Prediction: "I don't know."}, LabelCorrect, "declines"},
		{"abstention answers", LLMJudgeInput{Abstention: true, Gold: "no info", Prediction: "Paris"}, LabelWrong, ""},
		{"empty prediction", LLMJudgeInput{Gold: "Paris"}, LabelWrong, "empty"},
	}
	for _, c := range cases {
		v := LexicalReply(c.in)
		if v.Label != c.want || !strings.Contains(v.Reason, c.reason) {
			t.Errorf("%s: got %+v, want %s with reason containing %q", c.name, v, c.want, c.reason)
		}
	}
}

func TestFindDates(t *testing.T) {
	cases := map[string][]date{
		"7 May 2023":             {{2023, 5, 7}},
		"on the 3rd of July":     {{0, 7, 3}},
		"August 14, 2022":        {{2022, 8, 14}},
		"Sept 2021 and in 2019":  {{2021, 9, 0}, {2019, 0, 0}},
		"2023-06-09":             {{2023, 6, 9}},
		"she may 40 go, no date": nil,
	}
	for in, want := range cases {
		got := findDates(in)
		if len(got) != len(want) {
			t.Errorf("findDates(%q) = %v, want %v", in, got, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("findDates(%q) = %v, want %v", in, got, want)
			}
		}
	}
}

func TestParseVerdict(t *testing.T) {
	cases := []struct {
		in, label, reason string
	}{
		{`{"reason": "same city", "label": "CORRECT"}`, LabelCorrect, "same city"},
		{"```json\n{\"label\": \"WRONG\", \"reason\": \"other year\"}\n```", LabelWrong, "other year"},
		{`Here you go: {"label":"correct"} hope it helps`, LabelCorrect, ""},
		{`{"verdict": "incorrect"}`, LabelWrong, ""},
		{"CORRECT", LabelCorrect, ""},
		{"WRONG.", LabelWrong, ""},
		{"The answer is incorrect.", LabelWrong, ""},
		{"The answer is not correct.", LabelWrong, ""},
		{"CORRECT - the answer is not wrong", LabelCorrect, ""},
	}
	for _, c := range cases {
		v, err := ParseReply(c.in)
		if err != nil || v.Label != c.label || !strings.Contains(v.Reason, c.reason) {
			t.Errorf("ParseReply(%q) = %+v, %v; want %s", c.in, v, err, c.label)
		}
	}
	for _, bad := range []string{"", "I am not sure.", "correct or wrong?", `{"label": "maybe"}`} {
		if v, err := ParseReply(bad); err == nil {
			t.Errorf("ParseReply(%q) = %+v, want an error", bad, v)
		}
	}
}

// recorder wraps a model and keeps every request.
type recorder struct {
	llm.Model
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *recorder) Chat(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.Model.Chat(ctx, req)
}

func (r *recorder) last() llm.Request { r.mu.Lock(); defer r.mu.Unlock(); return r.reqs[len(r.reqs)-1] }

func allText(msgs []membench.Message) string {
	var sb strings.Builder
	for _, m := range msgs {
		sb.WriteString(m.Content + "\n")
	}
	return sb.String()
}

func TestLLMJudgeOffline(t *testing.T) {
	rec := &recorder{Model: llm.NewOffline()}
	j, err := NewLLMJudge("off", rec, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	qs := &datasets.Question{ID: "conv-1:3", Text: "Where did Mel go on holiday?", Gold: "Hawaii", Category: 4}
	got, err := j.Judge(ctx, Sample{Question: qs, Prediction: "She flew to Hawaii."})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Correct || got.Score != 1 || got.Reason == "" {
		t.Errorf("judgment = %+v, want a correct one with a reason", got)
	}
	var v Reply
	if err := json.Unmarshal([]byte(got.Raw), &v); err != nil || v.Label != LabelCorrect {
		t.Errorf("raw %q is not the JSON verdict: %v", got.Raw, err)
	}
	req := rec.last()
	if req.Task != "judge" || req.Stage != membench.StageJudge || req.Temperature != 0 || !req.JSON || req.Label != "judge" {
		t.Errorf("request = %+v", req)
	}
	if txt := allText(req.Messages); !strings.Contains(txt, "Where did Mel go on holiday?") || !strings.Contains(txt, "Hawaii") || !strings.Contains(txt, "She flew to Hawaii.") {
		t.Errorf("prompt misses question/gold/prediction:\n%s", txt)
	}
	if in, ok := req.Inputs.(LLMJudgeInput); !ok || in.Gold != "Hawaii" {
		t.Errorf("Inputs = %#v", req.Inputs)
	}

	got, err = j.Judge(ctx, Sample{Question: qs, Prediction: "Japan"})
	if err != nil || got.Correct || got.Score != 0 {
		t.Errorf("wrong answer judged %+v, %v", got, err)
	}

	// LoCoMo adversarial: the prompt says so and declining is correct
	adv := &datasets.Question{ID: "conv-1:9", Text: "What is Mel's cat called?", Category: 5, Abstention: true}
	got, err = j.Judge(ctx, Sample{Question: adv, Prediction: "Not mentioned in the conversation."})
	if err != nil || !got.Correct {
		t.Errorf("adversarial decline judged %+v, %v", got, err)
	}
	if txt := allText(rec.last().Messages); !strings.Contains(txt, "cannot be answered") {
		t.Errorf("abstention prompt lacks the abstention rule:\n%s", txt)
	}
}

func TestLLMJudgeLongMemEvalVariants(t *testing.T) {
	rec := &recorder{Model: llm.NewOffline()}
	j, err := NewLLMJudge("off", rec, "")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q        datasets.Question
		template string
		marker   string
	}{
		{datasets.Question{Type: "temporal-reasoning", Gold: "3 days"}, "judge_lme_temporal", "off by one"},
		{datasets.Question{Type: "knowledge-update", Gold: "Seattle"}, "judge_lme_update", "latest value"},
		{datasets.Question{Type: "single-session-preference", Gold: "likes hiking"}, "judge_lme_preference", "Rubric"},
		{datasets.Question{Type: "multi-session", Abstention: true, Gold: "never said"}, "judge_lme_abstention", "declines"},
		{datasets.Question{Type: "single-session-user", Gold: "blue"}, "judge", "Gold answer"},
	}
	for _, c := range cases {
		c.q.ID, c.q.Text = "lme:"+c.q.Type, "Q?"
		if _, err := j.Judge(context.Background(), Sample{Question: &c.q, Prediction: "some answer"}); err != nil {
			t.Fatalf("%s: %v", c.q.Type, err)
		}
		req := rec.last()
		if req.Label != c.template || !strings.Contains(allText(req.Messages), c.marker) {
			t.Errorf("%s: template %q, want %q containing %q", c.q.Type, req.Label, c.template, c.marker)
		}
	}
	// F1 still works on LongMemEval questions (no LoCoMo category)
	if f := LoCoMoF1(&datasets.Question{Type: "knowledge-update", Gold: "Seattle"}, "in Seattle", nil); !near(f, 2.0/3) {
		t.Errorf("LongMemEval F1 = %v, want 2/3", f)
	}
}

// scripted returns a fixed reply.
type scripted struct {
	llm.Model
	text string
}

func (s scripted) Chat(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{Text: s.text}, nil
}

// replies answers from a script, one reply per call, recording requests.
type replies struct {
	llm.Model
	texts []string
	reqs  []llm.Request
}

func (r *replies) Chat(_ context.Context, req llm.Request) (llm.Response, error) {
	r.reqs = append(r.reqs, req)
	t := r.texts[min(len(r.reqs)-1, len(r.texts)-1)]
	return llm.Response{Text: t}, nil
}

func TestLLMJudgeUnparseable(t *testing.T) {
	// Stays unparseable: asked 1+Reasks times, the re-asks past the cache,
	// then an invalid verdict with the raw reply and no error.
	m := &replies{Model: llm.NewOffline(), texts: []string{"Hmm, hard to say."}}
	j, err := NewLLMJudge("bad", m, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := j.Judge(context.Background(), Sample{Question: q(4, "Paris"), Prediction: "Paris"})
	if err != nil || !got.Invalid || got.Raw != "Hmm, hard to say." || got.Correct || got.Score != 0 {
		t.Fatalf("got %+v, %v; want an invalid verdict keeping the raw text", got, err)
	}
	if len(m.reqs) != 1+Reasks {
		t.Fatalf("asked %d times, want %d", len(m.reqs), 1+Reasks)
	}
	for i, r := range m.reqs {
		if r.Fresh != (i > 0) || r.Accept == nil || r.Accept("Hmm, hard to say.") == nil || r.Accept(`{"label":"WRONG"}`) != nil {
			t.Fatalf("request %d: Fresh=%v, Accept must reject the bad reply and take a verdict", i, r.Fresh)
		}
	}
	// Recovers on the re-ask: a normal verdict.
	m = &replies{Model: llm.NewOffline(), texts: []string{"Hmm.", "CORRECT"}}
	j, _ = NewLLMJudge("flaky", m, "")
	got, err = j.Judge(context.Background(), Sample{Question: q(4, "Paris"), Prediction: "Paris"})
	if err != nil || got.Invalid || !got.Correct || got.Score != 1 || len(m.reqs) != 2 {
		t.Fatalf("got %+v, %v after %d calls; want CORRECT on the second", got, err, len(m.reqs))
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPerJudgePromptFiles(t *testing.T) {
	f1 := writeFile(t, "a.tmpl", "You are judge A.\n---user---\nA: {{.Question}} | {{.Gold}} | {{.Prediction}}. Say CORRECT or WRONG.")
	f2 := writeFile(t, "b.tmpl", "B asks: {{.Question}} gold={{.Gold}} answer={{.Prediction}}; reply in json with a label.")
	ra, rb := &recorder{Model: scripted{Model: llm.NewOffline(), text: "CORRECT"}}, &recorder{Model: scripted{Model: llm.NewOffline(), text: `{"label":"WRONG","reason":"no"}`}}
	if _, err := Parse("a,prompt="+f1, Deps{DefaultModel: ra}); err == nil {
		t.Fatalf("kind %q should be unknown", "a")
	}
	ja, err := Parse("llm,name=a,prompt="+f1, Deps{DefaultModel: ra})
	if err != nil {
		t.Fatal(err)
	}
	jb, err := Parse("llm,name=b", Deps{DefaultModel: rb, PromptFile: f2}) // --judge-prompt
	if err != nil {
		t.Fatal(err)
	}
	qs := q(4, "Paris")
	ga, err := ja.Judge(context.Background(), Sample{Question: qs, Prediction: "Paris!"})
	if err != nil || !ga.Correct {
		t.Fatalf("judge a: %+v, %v", ga, err)
	}
	gb, err := jb.Judge(context.Background(), Sample{Question: qs, Prediction: "Paris!"})
	if err != nil || gb.Correct || gb.Reason != "no" {
		t.Fatalf("judge b: %+v, %v", gb, err)
	}
	ta, tb := allText(ra.last().Messages), allText(rb.last().Messages)
	if !strings.Contains(ta, "A: What? | Paris | Paris!") || strings.Contains(ta, "B asks") {
		t.Errorf("judge a rendered %q", ta)
	}
	if !strings.Contains(tb, "B asks: What? gold=Paris answer=Paris!") {
		t.Errorf("judge b rendered %q", tb)
	}
	if ra.last().JSON || !rb.last().JSON {
		t.Errorf("JSON mode must follow whether the prompt mentions json: a=%v b=%v", ra.last().JSON, rb.last().JSON)
	}
	ia, ib := Describe(ja), Describe(jb)
	ha, hb := ia.Prompts["judge@a"], ib.Prompts["judge@b"]
	if ha == "" || hb == "" || ha == hb || !strings.Contains(ha, f1) {
		t.Errorf("prompt hashes: %v / %v", ia.Prompts, ib.Prompts)
	}
	// an embedded-prompt judge reports all its templates
	jo, _ := NewLLMJudge("plain", llm.NewOffline(), "")
	if p := Describe(jo).Prompts; len(p) != 6 || p["judge_lme_temporal"] == "" || p[TemplateCognitive] == "" {
		t.Errorf("embedded prompt hashes = %v", p)
	}
}
