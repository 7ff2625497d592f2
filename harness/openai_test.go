package harness_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/runlog"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm/llmtest"
)

// The whole pipeline against an OpenAI-compatible server speaking the real
// wire format: answers and judge verdicts come over HTTP, embeddings too;
// a rerun under a new run id is served from the on-disk cache.
func TestRunAgainstOpenAICompatibleServer(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithEmbedDim(32), llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		u := r.LastUser()
		if strings.Contains(strings.ToLower(r.Messages[0].Content+u), "judge") || strings.Contains(u, "Gold") || strings.Contains(u, "gold") {
			return llmtest.Reply{Text: `{"reason": "matches", "label": "CORRECT"}`}
		}
		return llmtest.Reply{Text: "Biscuit"}
	}))
	t.Setenv("OPENAI_API_KEY", "sk-test-never-logged-42")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	cfg := membench.Config{
		System: "turns-cosine", Model: "openai:gpt-4o-mini", Embedder: "openai:text-embedding-3-small",
		Judges:     []string{"llm", "f1"},
		ResultsDir: t.TempDir(), CacheDir: t.TempDir(), Quiet: true, Concurrency: 2,
	}
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	chats := srv.Count("/v1/chat/completions")
	if chats != 2*sum.Questions {
		t.Fatalf("chat requests = %d, want one answer + one judge call per question = %d", chats, 2*sum.Questions)
	}
	if srv.Count("/v1/embeddings") == 0 {
		t.Fatal("no embedding requests reached the server")
	}
	for _, a := range srv.Authorizations() {
		if a != "Bearer sk-test-never-logged-42" {
			t.Fatalf("authorization header %q", a)
		}
	}
	if got := sum.Overall.Scores["llm"]; got != 100 {
		t.Fatalf("server said CORRECT to everything; llm judge accuracy = %v", got)
	}
	dir := harnesstest.Dir(t, cfg)
	man, _ := os.ReadFile(filepath.Join(dir, runlog.ManifestFile))
	if !strings.Contains(string(man), srv.URL) || !strings.Contains(string(man), "gpt-4o-mini") {
		t.Fatalf("manifest lacks model and base URL:\n%s", man)
	}
	// The key must not reach any artifact or cache file.
	for _, d := range []string{dir, cfg.CacheDir} {
		filepath.Walk(d, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				b, _ := os.ReadFile(p)
				if strings.Contains(string(b), "sk-test-never-logged-42") {
					t.Errorf("API key found in %s", p)
				}
			}
			return nil
		})
	}

	// Same prompts under a new run id: every chat call is a cache hit.
	cfg.RunID = "again"
	if _, err := harness.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	if after := srv.Count("/v1/chat/completions"); after != chats {
		t.Fatalf("rerun sent %d new chat requests; want 0 (cache)", after-chats)
	}
}
