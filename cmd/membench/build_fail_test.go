package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/llm/llmtest"
)

// The whole binary against a server that ignores JSON mode: exit 1, the
// message quotes the reply, no results table, summary.json says degraded.
func TestRunWithJSONIgnoringServerExitsOne(t *testing.T) {
	t.Parallel()
	reply := "Of course! Here is what I found in the conversation."
	srv := llmtest.New(t, llmtest.WithChat(func(int, llmtest.ChatRequest) llmtest.Reply { return llmtest.Reply{Text: reply} }))
	results := t.TempDir()
	env := []string{"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + srv.URL}
	out, code := membench(t, env, "run", "--system", "structmem", "--build-model", "openai:gpt-4o-mini",
		"--judge-spec", "f1", "--results", results, "--quiet", "--run-id", "broken")
	if code != 1 || !strings.Contains(out, "build failed") || !strings.Contains(out, reply) {
		t.Fatalf("exit %d, output:\n%s\nwant exit 1 quoting the reply", code, out)
	}
	if strings.Contains(out, "overall") {
		t.Fatalf("a failed run printed a results table:\n%s", out)
	}
	var sum struct {
		Degraded bool `json:"degraded"`
		Failed   int  `json:"build_failed"`
	}
	b, err := os.ReadFile(filepath.Join(results, "broken", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil || !sum.Degraded || sum.Failed == 0 {
		t.Fatalf("summary.json %s: want degraded with failures", b)
	}
	if _, code := membench(t, env, "run", "--max-build-failures", "1.5"); code != 2 {
		t.Fatalf("--max-build-failures 1.5: exit %d, want 2", code)
	}
}
