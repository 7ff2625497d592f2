package main

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
)

// LongMemEval's judge (the llm judge with LongMemEval's per-type prompts,
// e.g. the abstention prompt) runs on the run's judge model: --judge-model
// when given, else the run's model. The fake server records which model
// each grading request named.
func TestLongMemEvalJudgeModel(t *testing.T) {
	t.Parallel()
	data, err := filepath.Abs(filepath.Join("..", "..", "datasets", "testdata", "longmemeval_mini.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	graded := map[string][]string{} // model -> kinds of grading prompt seen
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		sys := ""
		if len(r.Messages) > 0 {
			sys = r.Messages[0].Content
		}
		if !strings.HasPrefix(sys, "You grade answers") {
			return llmtest.Reply{Text: "I don't know."} // the answer model
		}
		kind := "generic"
		if strings.Contains(sys, "cannot be answered from the past conversations") {
			kind = "abstention"
		}
		mu.Lock()
		graded[r.Model] = append(graded[r.Model], kind)
		mu.Unlock()
		return llmtest.Reply{Text: `{"reason": "ok", "label": "CORRECT"}`}
	}))
	res := t.TempDir()
	env := []string{"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + srv.URL}
	run := func(id string, extra ...string) string {
		args := append([]string{"run", "--quiet", "--dataset", "longmemeval", "--data", data, "--system", "turns-cosine",
			"--judge-spec", "llm", "--results", res, "--run-id", id}, extra...)
		out, code := membench(t, env, args...)
		if code != 0 {
			t.Fatalf("run %s: exit %d\n%s", id, code, out)
		}
		return filepath.Join(res, id)
	}
	seen := func() map[string][]string {
		mu.Lock()
		defer mu.Unlock()
		out := graded
		graded = map[string][]string{}
		return out
	}
	hasAbstention := func(kinds []string) bool {
		for _, k := range kinds {
			if k == "abstention" {
				return true
			}
		}
		return false
	}

	// Offline answers, judge model set on its own.
	dir := run("set", "--judge-model", "openai:lme-judge")
	if g := seen(); len(g) != 1 || len(g["lme-judge"]) != 3 || !hasAbstention(g["lme-judge"]) {
		t.Fatalf("grading requests by model %v, want all 3 (incl. the abstention prompt) on lme-judge", g)
	}
	m, err := runlog.LoadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if spec := m.JudgeSet().Spec("llm"); !strings.Contains(spec, "lme-judge") {
		t.Errorf("manifest judge spec %q does not name the judge model", spec)
	}

	// No --judge-model: the run's model judges.
	run("default", "--model", "openai:run-model")
	if g := seen(); len(g) != 1 || len(g["run-model"]) != 3 || !hasAbstention(g["run-model"]) {
		t.Errorf("grading requests by model %v, want all 3 on the run's model run-model", g)
	}
}
