package judge

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/llmtest"
)

// partialShapes are replies as a judge model writes them, with what each
// means under a CORRECT/WRONG prompt (binary) and under one that offers
// PARTIAL (graded).
var partialShapes = []struct{ in, binary, graded string }{
	// the label itself, every spelling
	{"PARTIAL", invalid, LabelPartial},
	{"Partial.", invalid, LabelPartial},
	{"**partial**", invalid, LabelPartial},
	{"PARTIALLY CORRECT", invalid, LabelPartial},
	{"Partially correct.", invalid, LabelPartial},
	{"partly_correct", invalid, LabelPartial},
	{"Partially-Correct", invalid, LabelPartial},
	// JSON
	{`{"label": "partial"}`, invalid, LabelPartial},
	{`{"reason": "names the topic only", "label": "PARTIAL"}`, invalid, LabelPartial},
	{`{"label": "partially correct"}`, invalid, LabelPartial},
	{`{"verdict": "Partial credit"}`, invalid, LabelPartial},
	{"```json\n{\"label\": \"partial\", \"reason\": \"no link\"}\n```", invalid, LabelPartial},
	{`{"label": "PARTIAL", "verdict": "CORRECT"}`, invalid, invalid},
	{`{"label": "not partial"}`, invalid, invalid},
	{`{"label": "mostly correct"}`, invalid, invalid},
	// labelled
	{"Label: PARTIAL", invalid, LabelPartial},
	{"Verdict: partially correct", invalid, LabelPartial},
	{"Reasoning: it names the trip but not why.\nFinal answer: PARTIAL", invalid, LabelPartial},
	// a binary prompt's reader skips the PARTIAL line; a graded one sees two labels
	{"Verdict: PARTIAL\nLabel: WRONG", LabelWrong, invalid},
	// prose
	{"The reply is partially correct: it recalls the trip but not the link.", invalid, LabelPartial},
	{"The answer is partly wrong.", invalid, LabelPartial},
	{"It deserves partial credit.", invalid, LabelPartial},
	{"The reply recalls the fall but draws no link, so PARTIAL.", invalid, LabelPartial},
	{"The reply is half correct.", invalid, LabelPartial},
	// hedges that are not PARTIAL stay no verdict
	{"The answer is mostly correct.", invalid, invalid},
	{"Almost correct.", invalid, invalid},
	// negations are honoured
	{"The reply is not partially correct; it is WRONG.", LabelWrong, LabelWrong},
	{"The reply is not even partially correct.", LabelWrong, LabelWrong},
	{"Not PARTIAL.", invalid, invalid},
	{"I would not say the reply is PARTIAL.", invalid, invalid}, // reaches as far back as for CORRECT
	{"It is not PARTIAL: CORRECT", LabelCorrect, LabelCorrect},
	{"NOT CORRECT", LabelWrong, LabelWrong},
	{"It isn't correct, not even partially.", LabelWrong, LabelWrong},
	// a lower-case "partial" describes a thing; a capital label outranks it
	{"It gives a partial list of the pets, but every one is right. CORRECT", LabelCorrect, LabelCorrect},
	{"A PARTIAL match would not do here; the reply is WRONG.", LabelWrong, LabelWrong},
	{"Partially correct, but under the lenient rules: CORRECT", LabelCorrect, LabelCorrect},
	{"The answer is partially correct.", invalid, LabelPartial},
	// the other labels read as before
	{`{"label": "CORRECT"}`, LabelCorrect, LabelCorrect},
	{"WRONG", LabelWrong, LabelWrong},
	// capitals outrank lower case, as for the other labels
	{"The answer is correct. Actually, it is only PARTIAL.", LabelCorrect, LabelPartial},
	{"Is it partially correct?", invalid, invalid},
}

func TestParseReplyPartial(t *testing.T) {
	for _, c := range partialShapes {
		for _, k := range []struct {
			set  Labels
			want string
		}{{Binary, c.binary}, {Graded, c.graded}} {
			v, err := ParseReplyIn(c.in, k.set)
			switch {
			case k.want == invalid && err == nil:
				t.Errorf("%v: ParseReplyIn(%q) = %s, want no verdict", k.set, c.in, v.Label)
			case k.want != invalid && (err != nil || v.Label != k.want):
				t.Errorf("%v: ParseReplyIn(%q) = %q, %v; want %s", k.set, c.in, v.Label, err, k.want)
			}
		}
	}
	// The binary table reads the same under Binary as ParseReply does.
	for _, c := range replyShapes {
		a, errA := ParseReply(c.in)
		b, errB := ParseReplyIn(c.in, Binary)
		if a != b || (errA == nil) != (errB == nil) {
			t.Errorf("ParseReply(%q) = %v, %v but ParseReplyIn(Binary) = %v, %v", c.in, a, errA, b, errB)
		}
	}
	t.Logf("%d reply shapes, each read under both label sets", len(partialShapes))
}

func TestLabelsAndScores(t *testing.T) {
	for name, want := range map[string]Labels{"strict": Binary, "lenient": Binary, "cognitive": Graded} {
		if got, err := PromptLabels(name); err != nil || got != want {
			t.Errorf("PromptLabels(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := PromptLabels("nosuch"); err == nil || !strings.Contains(err.Error(), "cognitive") {
		t.Errorf("an unknown prompt name: %v (want the known names listed)", err)
	}
	for label, want := range map[string]float64{LabelCorrect: 1, LabelPartial: 0.5, LabelWrong: 0, "": 0} {
		v := verdictOf(label, "r")
		if LabelScore(label) != want || v.Score != want || v.Correct != (label == LabelCorrect) || IsPartial(v.Score) != (label == LabelPartial) {
			t.Errorf("%q: score %v, verdict %+v", label, LabelScore(label), v)
		}
	}
}

// A prompt file declares its labels on its first line; a bad declaration is
// refused when the judge is built, naming the file and the fix.
func TestPromptFileLabels(t *testing.T) {
	graded := writeFile(t, "g.tmpl", "---labels: CORRECT PARTIAL WRONG---\nGrade.\n---user---\n{{.Question}} {{.Evidence}} {{.Prediction}}")
	m := &replies{Model: llm.NewOffline(), texts: []string{"partially correct"}}
	j, err := Parse("llm,name=mine,prompt="+graded, Deps{DefaultModel: m})
	if err != nil {
		t.Fatal(err)
	}
	v, err := j.Judge(context.Background(), Sample{Question: q(4, "Paris"), Prediction: "Paris?", Evidence: "A: I flew to Paris."})
	if err != nil || v.Invalid || v.Correct || v.Score != 0.5 {
		t.Fatalf("a PARTIAL from a prompt that offers it: %+v, %v", v, err)
	}
	if txt := allText(m.reqs[0].Messages); !strings.Contains(txt, "A: I flew to Paris.") || strings.Contains(txt, "labels") {
		t.Errorf("rendered %q: want the evidence and no labels line", txt)
	}
	// The same reply to a CORRECT/WRONG file is no verdict, asked again.
	plain := writeFile(t, "p.tmpl", "Grade.\n---user---\n{{.Question}} {{.Prediction}}")
	m = &replies{Model: llm.NewOffline(), texts: []string{"partially correct"}}
	j, _ = Parse("llm,name=plain,prompt="+plain, Deps{DefaultModel: m})
	v, err = j.Judge(context.Background(), Sample{Question: q(4, "Paris"), Prediction: "Paris?"})
	if err != nil || !v.Invalid || v.Score != 0 || len(m.reqs) != 1+Reasks || !strings.Contains(v.Reason, "CORRECT or WRONG") {
		t.Fatalf("a partial reply to a binary prompt: %+v, %v, asked %d times", v, err, len(m.reqs))
	}
	for body, want := range map[string]string{
		"---labels: CORRECT MAYBE WRONG---\nx":   "MAYBE on its labels line is not one of CORRECT, PARTIAL, WRONG",
		"---labels: PARTIAL WRONG---\nx":         "must name both CORRECT and WRONG",
		"x\n---labels: CORRECT PARTIAL WRONG---": "line 2",
	} {
		p := writeFile(t, "bad.tmpl", body)
		_, err := Parse("llm,name=bad,prompt="+p, Deps{DefaultModel: llm.NewOffline()})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: err = %v, want one naming %s and saying %q", body, err, p, want)
		}
	}
}

// cue is a LoCoMo-Plus-shaped question: the trigger, with the cue dialogue
// as its evidence turns in the conversation.
func cue() (*datasets.Conversation, *datasets.Question) {
	conv := &datasets.Conversation{ID: "plus-1", Speakers: []string{"Ann", "Bo"}, Sessions: []*datasets.Session{
		{ID: "s1", Turns: []*datasets.Turn{{ID: "D1:1", Speaker: "Ann", Text: "We had a long chat about cameras."}}},
		{ID: "cue", Turns: []*datasets.Turn{
			{ID: "C:1", Speaker: "Ann", Text: "Since my son broke his arm on the trampoline, we replaced it with a vegetable garden."},
			{ID: "C:2", Speaker: "Bo", Text: "That accident changed how you use the whole yard."},
		}},
	}}
	q := &datasets.Question{ID: "plus-1:0", ConversationID: conv.ID, Text: "Ann: Every time I pick tomatoes out back I feel a jolt of guilt and relief.", Evidence: []string{"C:1", "C:2", "X:9"}}
	return conv, q
}

func TestEvidenceText(t *testing.T) {
	conv, q := cue()
	want := "Ann: Since my son broke his arm on the trampoline, we replaced it with a vegetable garden.\nBo: That accident changed how you use the whole yard."
	if got := NewSample(conv, q, "p").Evidence; got != want {
		t.Errorf("evidence %q, want %q (the missing id X:9 skipped)", got, want)
	}
	if got := EvidenceText(nil, q); got != "" {
		t.Errorf("no conversation: %q", got)
	}
}

// The offline heuristic under a prompt offering PARTIAL: overlap of
// content words with the evidence, beyond the question's own, gives each
// of the three labels; under a binary prompt it never gives PARTIAL.
func TestEvidenceOverlapHeuristic(t *testing.T) {
	conv, q := cue()
	cases := []struct{ name, pred, want, reason string }{
		{"links the cue", "The garden replaced the trampoline after your son broke his arm, so the tomatoes bring back that accident.", LabelCorrect, "draws on the evidence"},
		{"topic only", "Gardens can stir up feelings.", LabelPartial, "touches the evidence"},
		{"echoes the trigger", "Picking tomatoes out back can bring guilt and relief.", LabelWrong, "no trace"},
		{"declines", "I don't know.", LabelWrong, "declines"},
	}
	for _, c := range cases {
		s := NewSample(conv, q, c.pred)
		got := LexicalReply(Input(s, Graded))
		if got.Label != c.want || !strings.Contains(got.Reason, c.reason) {
			t.Errorf("%s: %+v; want %s (%q)", c.name, got, c.want, c.reason)
		}
		if b := LexicalReply(Input(s, Binary)); b.Label == LabelPartial {
			t.Errorf("%s: PARTIAL under a binary prompt: %+v", c.name, b)
		}
		t.Logf("%-18s %-7s %s", c.name, got.Label, got.Reason)
	}
	// The lexical judge offers PARTIAL only when the question's prompt does.
	lj := &LexicalJudge{name: "lexical"}
	s := NewSample(conv, q, "Gardens can stir up feelings.")
	s.Prompt = "cognitive"
	if v, err := lj.Judge(context.Background(), s); err != nil || v.Score != 0.5 || v.Correct {
		t.Errorf("lexical on a cognitive question: %+v, %v", v, err)
	}
	s.Prompt = ""
	if v, err := lj.Judge(context.Background(), s); err != nil || IsPartial(v.Score) {
		t.Errorf("lexical on a question offering no PARTIAL: %+v, %v", v, err)
	}
	s.Prompt = "nosuch"
	if _, err := lj.Judge(context.Background(), s); err == nil || !strings.Contains(err.Error(), q.ID) {
		t.Errorf("an unknown prompt name: %v", err)
	}
	// The offline backend answers a cognitive-prompt judge the same way.
	oj, err := NewLLMJudge("cheap", llm.NewOffline(), "")
	if err != nil {
		t.Fatal(err)
	}
	s.Prompt = "cognitive"
	if v, err := oj.Judge(context.Background(), s); err != nil || v.Invalid || v.Score != 0.5 {
		t.Errorf("offline model judge on a cognitive question: %+v, %v", v, err)
	}
}

// End to end over the OpenAI wire: the default judge asks the cognitive
// prompt for questions whose group names it, shows the cue dialogue,
// reads CORRECT, PARTIAL and WRONG as 1, 0.5 and 0, and a partial reply to
// the strict prompt of another question is asked again and left invalid.
func TestCognitiveJudgeOverTheWire(t *testing.T) {
	var mu sync.Mutex
	var users []string
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		u := r.LastUser()
		mu.Lock()
		users = append(users, u)
		mu.Unlock()
		switch {
		case strings.Contains(u, "answer one"):
			return llmtest.Reply{Text: `{"reason": "it ties the tomatoes to the accident", "label": "CORRECT"}`}
		case strings.Contains(u, "answer two"):
			return llmtest.Reply{Text: "The reply mentions the garden but not the accident.\nVerdict: partially correct"}
		case strings.Contains(u, "answer three"):
			return llmtest.Reply{Text: "```json\n{\"label\": \"WRONG\", \"reason\": \"generic\"}\n```"}
		case strings.Contains(u, "answer four"):
			return llmtest.Reply{Text: "PARTIAL"} // no verdict for a CORRECT/WRONG prompt
		}
		return llmtest.Reply{Text: "?"}
	}))
	j, err := Parse("name=cog,backend=openai,model=m,retries=-1,base-url="+srv.URL, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	conv, cq := cue()
	sum, n := 0.0, 0
	for i, c := range []struct {
		pred  string
		score float64
	}{{"answer one", 1}, {"answer two", 0.5}, {"answer three", 0}} {
		s := NewSample(conv, cq, c.pred)
		s.Prompt = "cognitive"
		v, err := j.Judge(context.Background(), s)
		if err != nil || v.Invalid || v.Score != c.score || v.Correct != (c.score == 1) {
			t.Fatalf("%s: %+v, %v; want score %v", c.pred, v, err, c.score)
		}
		if !strings.Contains(users[i], "Ann: Since my son broke his arm") || !strings.Contains(users[i], "Trigger message: Ann: Every time") {
			t.Errorf("request %d lacks the cue dialogue or the trigger:\n%s", i, users[i])
		}
		sum += v.Score
		n++
	}
	if mean := 100 * sum / float64(n); math.Abs(mean-50) > 1e-9 {
		t.Errorf("mean %.2f, want 50.00 (1 + 0.5 + 0 over 3)", mean)
	}
	// A LoCoMo question with no group prompt: the strict prompt, binary.
	before := len(users)
	v, err := j.Judge(context.Background(), Sample{Question: q(4, "Paris"), Prediction: "answer four"})
	if err != nil || !v.Invalid || v.Score != 0 || len(users)-before != 1+Reasks {
		t.Fatalf("PARTIAL to the strict prompt: %+v, %v, asked %d times", v, err, len(users)-before)
	}
	if strings.Contains(users[before], "Cue dialogue") {
		t.Errorf("a question with no group prompt got the cognitive prompt")
	}
	// prompt=lenient yields to the question's prompt too; a prompt file does not.
	jl, _ := Parse(fmt.Sprintf("name=len,backend=openai,model=m,retries=-1,prompt=lenient,base-url=%s", srv.URL), Deps{})
	s := NewSample(conv, cq, "answer two")
	s.Prompt = "cognitive"
	if v, err := jl.Judge(context.Background(), s); err != nil || v.Score != 0.5 {
		t.Errorf("lenient judge on a cognitive question: %+v, %v", v, err)
	}
	t.Logf("cognitive prompt over the wire: scores 1, 0.5, 0, mean %.2f; %d requests", 100*sum/float64(n), len(users))
}

// Which template a judge uses for a question that asks for a prompt, and
// what its manifest entry lists.
func TestQuestionPromptChoice(t *testing.T) {
	file := writeFile(t, "own.tmpl", "Mine.\n---user---\n{{.Question}} {{.Prediction}}")
	conv, cq := cue()
	for _, c := range []struct {
		prompt, asks, want string
		lists              []string
	}{
		{"", "cognitive", TemplateCognitive, []string{TemplateJudge, TemplateCognitive, "judge_lme_temporal"}},
		{"", "", TemplateJudge, nil},
		{"lenient", "cognitive", TemplateCognitive, []string{TemplateLenient, TemplateCognitive}},
		{"lenient", "strict", TemplateLenient, nil},
		{"cognitive", "", TemplateCognitive, []string{TemplateCognitive}},
		{file, "cognitive", "judge@own", []string{"judge@own"}},
	} {
		rec := &recorder{Model: llm.NewOffline()}
		j, err := NewLLMJudge("own", rec, c.prompt)
		if err != nil {
			t.Fatal(err)
		}
		s := NewSample(conv, cq, "a reply")
		s.Prompt = c.asks
		if _, err := j.Judge(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		if got := rec.last().Label; got != c.want {
			t.Errorf("prompt=%s, question asks %q: template %s, want %s", c.prompt, c.asks, got, c.want)
		}
		if c.lists != nil {
			h := j.PromptHashes()
			for _, n := range c.lists {
				if h[n] == "" {
					t.Errorf("prompt=%s: manifest prompts %v lack %s", c.prompt, h, n)
				}
			}
			if c.prompt != "" && len(h) != len(c.lists) {
				t.Errorf("prompt=%s: manifest prompts %v, want only %v", c.prompt, h, c.lists)
			}
		}
	}
	j, _ := NewLLMJudge("own", llm.NewOffline(), "")
	s := NewSample(conv, cq, "a reply")
	s.Prompt = "nosuch"
	if _, err := j.Judge(context.Background(), s); err == nil || !strings.Contains(err.Error(), "nosuch") || !strings.Contains(err.Error(), "cognitive") {
		t.Errorf("a question asking for an unknown prompt: %v", err)
	}
}
