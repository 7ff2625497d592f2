package llm

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/llm/llmtest"
)

func TestCacheHitMissAndNoKey(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		if r.Logprobs {
			return llmtest.Reply{Text: "yes", TopLogprobs: []llmtest.TopLogprob{{Token: "yes", Logprob: -0.105}, {Token: "no", Logprob: -2.3}}}
		}
		return llmtest.Reply{Text: "answer " + r.LastUser(), PromptTokens: 100, CompletionTokens: 5}
	}))
	path := filepath.Join(t.TempDir(), "sub", "cache.sqlite")
	cache, err := NewCache(path)
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := dbOf(cache).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
	}
	m := cache.Wrap(newTestOpenAI(t, srv))
	ctx := context.Background()
	req := Request{Task: "answer", Messages: msgs("when?"), Temperature: 0, MaxTokens: 32, Stage: membench.StageAnswer}

	first, err := m.Chat(ctx, req)
	if err != nil || first.Cached {
		t.Fatalf("first call: %+v, %v", first, err)
	}
	// Rerun, with tags that must not matter: served from the cache.
	req2 := req
	req2.Task, req2.Stage, req2.Label, req2.Inputs = "other", membench.StageJudge, "lbl", map[string]int{"x": 1}
	again, err := m.Chat(ctx, req2)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || again.Text != first.Text || again.Usage != (membench.Usage{InputTokens: 100, OutputTokens: 5}) {
		t.Fatalf("rerun = %+v, want cached copy of %+v", again, first)
	}
	if n := srv.Count("/v1/chat/completions"); n != 1 {
		t.Fatalf("server saw %d chat requests, want 1", n)
	}
	// Each output-changing field misses.
	seed := 1
	for name, r := range map[string]Request{
		"temperature": {Messages: req.Messages, Temperature: 0.5, MaxTokens: 32},
		"max_tokens":  {Messages: req.Messages, MaxTokens: 33},
		"json":        {Messages: req.Messages, MaxTokens: 32, JSON: true},
		"seed":        {Messages: req.Messages, MaxTokens: 32, Seed: &seed},
		"messages":    {Messages: msgs("why?"), MaxTokens: 32},
	} {
		before := srv.Count("/v1/chat/completions")
		if resp, err := m.Chat(ctx, r); err != nil || resp.Cached {
			t.Fatalf("%s change: %+v, %v", name, resp, err)
		}
		if srv.Count("/v1/chat/completions") != before+1 {
			t.Fatalf("%s change did not reach the server", name)
		}
	}
	// A different model at the same URL misses too.
	other, err := NewOpenAI(OpenAIConfig{Model: "gpt-4o", BaseURL: srv.URL, APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	if resp, _ := cache.Wrap(other).Chat(ctx, req); resp.Cached {
		t.Fatal("different model hit the cache")
	}

	// Decide is cached with its probabilities.
	dreq := DecideRequest{Task: "judge", Messages: msgs("right?"), Choices: []string{"yes", "no"}}
	d1, err := m.Decide(ctx, dreq)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := m.Decide(ctx, dreq)
	if err != nil || !d2.Cached || d2.Probs["yes"] != d1.Probs["yes"] || d2.Usage != d1.Usage {
		t.Fatalf("decide rerun = %+v (first %+v), %v", d2, d1, err)
	}
	dreq.Choices = []string{"no", "yes", "maybe"}
	if d3, _ := m.Decide(ctx, dreq); d3.Cached {
		t.Fatal("different choices hit the cache")
	}

	// A second handle on the same file sees the entries (persistence).
	if err := cache.Close(); err != nil {
		t.Fatal(err)
	}
	cache2, err := NewCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cache2.Close()
	before := srv.Count("/v1/chat/completions")
	if r, err := cache2.Wrap(newTestOpenAI(t, srv)).Chat(ctx, req); err != nil || !r.Cached || srv.Count("/v1/chat/completions") != before {
		t.Fatalf("reopened cache missed: %+v, %v", r, err)
	}

	// The key is in no file the cache wrote (db, WAL, shm).
	files, _ := filepath.Glob(path + "*")
	if len(files) == 0 {
		t.Fatal("no cache files found")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(testKey)) || bytes.Contains(b, []byte("SECRET")) {
			t.Fatalf("API key found in %s", f)
		}
	}
}

func TestCacheConcurrent(t *testing.T) {
	srv := llmtest.New(t)
	cache, err := NewCache(filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	m := cache.Wrap(newTestOpenAI(t, srv))
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			q := "q" + strings.Repeat("x", i%10)
			r, err := m.Chat(context.Background(), Request{Messages: msgs(q)})
			if err == nil && r.Text != "echo: "+q {
				err = &HTTPError{msg: "wrong text " + r.Text}
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, err := cache.Len(); err != nil || n != 10 {
		t.Fatalf("cache holds %d entries (%v), want 10 distinct prompts", n, err)
	}
}

func TestCacheKeyIgnoresTags(t *testing.T) {
	id := membench.ModelID{Backend: "openai", Model: "m", BaseURL: "http://x/v1"}
	a := Request{Task: "a", Messages: msgs("q"), Stage: membench.StageBuild, Label: "l1", Inputs: 1}
	b := Request{Task: "b", Messages: msgs("q"), Stage: membench.StageJudge, Label: "l2", Inputs: "z"}
	if chatKey(id, a) != chatKey(id, b) {
		t.Fatal("tags changed the cache key")
	}
	id2 := id
	id2.BaseURL = "http://y/v1"
	if chatKey(id, a) == chatKey(id2, a) {
		t.Fatal("base URL did not change the cache key")
	}
	if chatKey(id, a) == decideKey(id, DecideRequest{Messages: msgs("q")}) {
		t.Fatal("chat and decide share a key")
	}
}
