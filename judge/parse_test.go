package judge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/llm/llmtest"
)

// realModel stands for a real judge model in tests that only parse.
type realModel struct{ llm.Model }

func (realModel) ID() membench.ModelID {
	return membench.ModelID{Backend: "openai", Model: "gpt-4o-mini"}
}

func TestParseKinds(t *testing.T) {
	var gotSpecs []string
	deps := Deps{DefaultModel: realModel{llm.NewOffline()}, NewModel: func(s string) (llm.Model, error) {
		gotSpecs = append(gotSpecs, s)
		return llm.NewOffline(), nil
	}}
	cases := []struct {
		spec, name, kind string
		threshold        float64
		modelSpec        string // what NewModel must receive ("" = not called)
	}{
		{"f1", "f1", "f1", 0.5, ""},
		{"bleu1", "bleu1", "bleu1", 0.5, ""},
		{"em", "em", "em", 1, ""},
		{"F1,threshold=0.3,name=f1-loose", "f1-loose", "f1", 0.3, ""},
		{"lexical", "lexical", "lexical", 0, ""},
		{"llm", "llm", "llm", 0, ""},
		{"gpt4o=openai:gpt-4o-mini", "gpt4o", "llm", 0, "openai:gpt-4o-mini"},
		{"name=qwen,backend=openai,model=qwen2.5-32b-instruct,base-url=http://localhost:8000/v1", "qwen", "llm", 0,
			"backend=openai,model=qwen2.5-32b-instruct,base-url=http://localhost:8000/v1"},
		{"backend=openai,model=deepseek-v3.2,rpm=60", "deepseek-v3.2", "llm", 0, "backend=openai,model=deepseek-v3.2,rpm=60"},
	}
	for _, c := range cases {
		gotSpecs = nil
		j, err := Parse(c.spec, deps)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.spec, err)
			continue
		}
		info := Describe(j)
		if j.Name() != c.name || info.Kind != c.kind || info.Threshold != c.threshold {
			t.Errorf("Parse(%q) = %+v, want name %s kind %s threshold %v", c.spec, info, c.name, c.kind, c.threshold)
		}
		switch {
		case c.modelSpec == "" && len(gotSpecs) != 0:
			t.Errorf("Parse(%q) built a model from %q", c.spec, gotSpecs)
		case c.modelSpec != "" && (len(gotSpecs) != 1 || gotSpecs[0] != c.modelSpec):
			t.Errorf("Parse(%q) passed model spec %q, want %q", c.spec, gotSpecs, c.modelSpec)
		}
	}
}

func TestParseMetricJudgesScore(t *testing.T) {
	f1, _ := Parse("f1", Deps{})
	j, err := f1.Judge(context.Background(), Sample{Question: q(4, "Hawaii beach"), Prediction: "She went to the beach in Hawaii"})
	if err != nil || !near(j.Score, 0.5) || !j.Correct || f1.Name() != "f1" {
		t.Errorf("f1 judgment %+v, %v", j, err)
	}
	strict, _ := Parse("f1,threshold=0.6", Deps{})
	if j, _ := strict.Judge(context.Background(), Sample{Question: q(4, "Hawaii beach"), Prediction: "She went to the beach in Hawaii"}); j.Correct {
		t.Errorf("F1 0.5 passed threshold 0.6: %+v", j)
	}
	bleu, _ := Parse("bleu1", Deps{})
	if j, _ := bleu.Judge(context.Background(), Sample{Question: q(4, "the cat is on the mat"), Prediction: "the cat sat on the mat"}); !near(j.Score, 0.75) {
		t.Errorf("bleu1 judgment %+v", j)
	}
	em, _ := Parse("em,decline=nobody knows", Deps{})
	if j, _ := em.Judge(context.Background(), Sample{Question: q(5, ""), Prediction: "Nobody knows."}); j.Score != 1 || !j.Correct {
		t.Errorf("em with custom decline phrase on cat 5: %+v", j)
	}
	if j, _ := em.Judge(context.Background(), Sample{Question: q(3, "Paris; because she said so"), Prediction: "paris"}); j.Score != 1 {
		t.Errorf("em with cat-3 cut: %+v", j)
	}
	lex, _ := Parse("lexical", Deps{})
	if j, _ := lex.Judge(context.Background(), Sample{Question: q(2, "7 May 2023"), Prediction: "May 7th, 2023"}); !j.Correct || j.Score != 1 || j.Reason == "" {
		t.Errorf("lexical judgment %+v", j)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		spec string
		deps Deps
		want string // substring of the error
	}{
		{"", Deps{}, "empty"},
		{"gpt5", Deps{}, "known: bleu1, em, f1, lexical, llm"},
		{"llm", Deps{}, "--judge-spec lexical"},
		{"f1,prompt=x.tmpl", Deps{}, "prompt= does not apply to the f1 judge"},
		{"f1,threshold=2", Deps{}, "threshold=2"},
		{"llm,threshold=0.5", Deps{DefaultModel: llm.NewOffline()}, "threshold= does not apply to the llm judge"},
		{"llm,strict", Deps{DefaultModel: llm.NewOffline()}, "not key=value"},
		{"name=x,name=y", Deps{DefaultModel: llm.NewOffline()}, "given twice"},
		{"name=x,prompt=", Deps{}, "key and a value"},
		{"llm,prompt=/nonexistent/judge.tmpl", Deps{DefaultModel: llm.NewOffline()}, "/nonexistent/judge.tmpl"},
		{"lexical,backend=openai", Deps{}, "only name="},
		// without a NewModel callback the llm package's spec parser is used
		{"name=q,backend=vllm,model=m", Deps{}, "unknown backend"},
	}
	for _, c := range cases {
		j, err := Parse(c.spec, c.deps)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, %v; want an error containing %q", c.spec, j, err, c.want)
		}
	}
}

// "llm" means a real model: on the offline judge model it is refused,
// pointing at lexical, the same heuristic under its own name.
func TestLLMJudgeRefusesOfflineModel(t *testing.T) {
	_, err := Parse("llm", Deps{DefaultModel: llm.NewOffline()})
	if err == nil || !strings.Contains(err.Error(), "--judge-spec lexical") {
		t.Fatalf("llm on the offline backend: %v", err)
	}
}

func TestParseBuildsOfflineModel(t *testing.T) {
	j, err := Parse("cheap=offline", Deps{})
	if err != nil {
		t.Fatal(err)
	}
	if info := Describe(j); info.Model == nil || info.Model.Backend != "offline" || j.Name() != "cheap" {
		t.Fatalf("info %+v", info)
	}
	got, err := j.Judge(context.Background(), Sample{Question: q(4, "Hawaii"), Prediction: "Hawaii, I think"})
	if err != nil || !got.Correct {
		t.Errorf("offline-built judge: %+v, %v", got, err)
	}
}

// The LLM judge through the OpenAI backend, against the fake server: the
// wire request is greedy (the llm backend sends temperature 0 as 1e-45,
// since go-openai would drop an exact 0) with JSON mode, and the reply is
// parsed.
func TestLLMJudgeOverOpenAIWire(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		label := "WRONG"
		if strings.Contains(r.LastUser(), "System answer: Hawaii") {
			label = "CORRECT"
		}
		b, _ := json.Marshal(Reply{Reason: "checked against gold", Label: label})
		return llmtest.Reply{Text: string(b)}
	}))
	j, err := Parse("name=qwen,backend=openai,model=qwen2.5-32b-instruct,retries=-1,base-url="+srv.URL, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	good, err := j.Judge(ctx, Sample{Question: q(4, "Hawaii"), Prediction: "Hawaii"})
	if err != nil || !good.Correct || good.Reason != "checked against gold" || j.Name() != "qwen" {
		t.Errorf("good: %+v, %v", good, err)
	}
	bad, err := j.Judge(ctx, Sample{Question: q(4, "Hawaii"), Prediction: "Japan"})
	if err != nil || bad.Correct || bad.Score != 0 {
		t.Errorf("bad: %+v, %v", bad, err)
	}
	bodies := srv.Bodies("/v1/chat/completions")
	if len(bodies) != 2 {
		t.Fatalf("server saw %d chat requests, want 2", len(bodies))
	}
	var req llmtest.ChatRequest
	if err := json.Unmarshal(bodies[0], &req); err != nil {
		t.Fatal(err)
	}
	if req.Temperature == nil || *req.Temperature > 1e-30 {
		t.Errorf("wire temperature %v, want (near) 0", req.Temperature)
	}
	if req.Model != "qwen2.5-32b-instruct" || req.ResponseFormat == nil || req.ResponseFormat.Type != "json_object" {
		t.Errorf("wire request: model %q format %+v", req.Model, req.ResponseFormat)
	}
}

// repeats= is a model judge's option: a whole number from 1 to MaxRepeats,
// recorded in its description; deterministic judges refuse it.
func TestParseRepeats(t *testing.T) {
	deps := Deps{}
	j, err := Parse("name=r,backend=offline,repeats=3", deps)
	if err != nil || Repeats(j) != 3 || Describe(j).Repeats != 3 {
		t.Fatalf("repeats=3: %v %v", j, err)
	}
	if j, err := Parse("name=one,backend=offline", deps); err != nil || Repeats(j) != 1 || Describe(j).Repeats != 0 {
		t.Errorf("no repeats: %v %v", j, err)
	}
	for _, bad := range []string{"f1,repeats=3", "lexical,repeats=2", "name=r,backend=offline,repeats=0", "name=r,backend=offline,repeats=x", "name=r,backend=offline,repeats=101"} {
		if _, err := Parse(bad, deps); err == nil || !strings.Contains(err.Error(), "repeats") {
			t.Errorf("%s: err %v, want one naming repeats", bad, err)
		}
	}
}

// SpecName names a spec's judge as Parse does, and SpecOf writes back a
// spec that builds the same judge from its description: so a command
// that must be told which judge to add prints a spec the user can paste.
func TestSpecNameAndSpecOfRoundTrip(t *testing.T) {
	srv := llmtest.New(t)
	prompt := writeFile(t, "j.tmpl", "Judge: {{.Question}} | {{.Gold}} | {{.Prediction}}. Say CORRECT or WRONG.")
	t.Setenv("OPENAI_API_KEY", "test-key") // models are built, never called
	sp, err := llm.ParseSpec("backend=openai,model=gpt-4o-mini,base-url=" + srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	runModel, err := llm.Build(sp, llm.BuildDeps{})
	if err != nil {
		t.Fatal(err)
	}
	deps := Deps{DefaultModel: runModel}
	for _, spec := range []string{
		"f1", "bleu1", "em", "lexical", "llm",
		"f1,threshold=0.3,name=f1-loose", "em,name=exact", "bleu1,threshold=0.5",
		"cheap=offline", "name=r,backend=offline,repeats=3", "llm,name=strict,prompt=" + prompt,
		"gpt4o=openai:gpt-4o-mini", "backend=openai,model=deepseek-v3.2,rpm=60",
		"name=qwen,backend=openai,model=qwen2.5-32b-instruct,base-url=" + srv.URL,
		"llm,name=llm,backend=openai,model=m1", "llm=openai:m2", "llm,repeats=2",
	} {
		j, err := Parse(spec, deps)
		if err != nil {
			t.Errorf("Parse(%q): %v", spec, err)
			continue
		}
		if got := SpecName(spec); got != j.Name() {
			t.Errorf("SpecName(%q) = %q, Parse named it %q", spec, got, j.Name())
		}
		back := SpecOf(Describe(j), runModel.ID())
		j2, err := Parse(back, deps)
		if err != nil {
			t.Errorf("SpecOf(Parse(%q)) = %q does not parse: %v", spec, back, err)
			continue
		}
		a, _ := json.Marshal(Describe(j))
		b, _ := json.Marshal(Describe(j2))
		if string(a) != string(b) {
			t.Errorf("SpecOf(Parse(%q)) = %q builds another judge:\n%s\n%s", spec, back, a, b)
		}
	}
	if got := SpecOf(membench.JudgeInfo{Name: "human", Kind: "human"}, runModel.ID()); got != "" {
		t.Errorf("SpecOf(human) = %q, want none: no --judge builds it", got)
	}
	if got := SpecName("f1,,"); got != "" {
		t.Errorf("SpecName of a bad spec = %q", got)
	}
}
