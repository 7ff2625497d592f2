package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
)

// A local OpenAI-compatible server needs no key (vLLM, Ollama), as the
// README says; OpenAI's own needs one.
func TestKeylessLocalServer(t *testing.T) {
	t.Parallel()
	srv := llmtest.New(t, llmtest.WithChat(llmtest.Plausible))
	results := t.TempDir()
	out, code := membench(t, []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL=" + srv.URL},
		"run", "--quiet", "--results", results, "--llm", "openai", "--model", "m", "--judge-spec", "f1")
	if code != 0 || srv.Count("/v1/chat/completions") == 0 {
		t.Fatalf("keyless local server: exit %d, %d chat calls\n%s", code, srv.Count("/v1/chat/completions"), out)
	}
	for _, a := range srv.Authorizations() {
		if strings.Contains(a, "sk-") {
			t.Fatalf("a key reached the server: %q", a)
		}
	}
	out, code = membench(t, []string{"OPENAI_API_KEY=", "OPENAI_BASE_URL="}, "run", "--results", results, "--llm", "openai", "--model", "m")
	if code != 2 || !strings.Contains(out, "OPENAI_API_KEY") {
		t.Fatalf("OpenAI without a key: exit %d\n%s", code, out)
	}
	readme, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `OPENAI_API_KEY` .*$").Find(readme)
	if !bytes.Contains(row, []byte("OpenAI's own servers")) || !bytes.Contains(row, []byte("without one")) {
		t.Errorf("README's OPENAI_API_KEY row does not say a local server needs no key: %s", row)
	}
}
