package llm

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/llm/llmtest"
)

// A flipped bit in a stored response (the SQLite file still valid) makes
// that entry a miss: the server is asked again and the right text returned.
func TestCacheFlippedBitIsAskedAgain(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		if r.Logprobs {
			return llmtest.Reply{Text: "yes", TopLogprobs: []llmtest.TopLogprob{{Token: "yes", Logprob: -0.2}, {Token: "no", Logprob: -1.7}}}
		}
		return llmtest.Reply{Text: "the answer is " + r.LastUser() + " indeed", PromptTokens: 40, CompletionTokens: 6}
	}))
	path := filepath.Join(t.TempDir(), "c.sqlite")
	cache, err := NewCache(path)
	if err != nil {
		t.Fatal(err)
	}
	m := cache.Wrap(newTestOpenAI(t, srv))
	ctx := context.Background()
	reqs := []Request{{Messages: msgs("Paris")}, {Messages: msgs("Rome")}}
	want := make([]string, len(reqs))
	for i, r := range reqs {
		resp, err := m.Chat(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = resp.Text
	}
	dreq := DecideRequest{Messages: msgs("ok?"), Choices: []string{"yes", "no"}}
	d1, err := m.Decide(ctx, dreq)
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.Close(); err != nil { // checkpoints the WAL into the file
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, needle := range []string{"the answer is Rome indeed", `{"no":`} {
		i := bytes.Index(b, []byte(needle))
		if i < 0 {
			t.Fatalf("%q not found in %s", needle, path)
		}
		b[i+len(needle)/2] ^= 0x01
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}

	cache2, err := NewCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cache2.Close()
	m2 := cache2.Wrap(newTestOpenAI(t, srv))
	before := srv.Count("/v1/chat/completions")
	for i, r := range reqs {
		resp, err := m2.Chat(ctx, r)
		if err != nil || resp.Text != want[i] {
			t.Fatalf("request %d after a flipped bit: %q, %v; want %q", i, resp.Text, err, want[i])
		}
		if wantCached := i == 0; resp.Cached != wantCached {
			t.Errorf("request %d: Cached = %v, want %v", i, resp.Cached, wantCached)
		}
	}
	d2, err := m2.Decide(ctx, dreq)
	if err != nil || d2.Cached || d2.Probs["yes"] != d1.Probs["yes"] {
		t.Fatalf("decide after a flipped bit: %+v, %v; want a fresh %+v", d2, err, d1)
	}
	if got := srv.Count("/v1/chat/completions") - before; got != 2 {
		t.Errorf("server asked %d times after the damage, want 2 (the damaged chat and decide)", got)
	}
	if cache2.Damaged() != 2 {
		t.Errorf("Damaged = %d, want 2", cache2.Damaged())
	}
	// Repaired: the next reads are hits.
	if r, _ := m2.Chat(ctx, reqs[1]); !r.Cached || r.Text != want[1] {
		t.Errorf("repaired entry not a hit: %+v", r)
	}
}

// An entry without a checksum is not trusted but asked again, as a
// damaged one.
func TestCacheUncheckedEntryIsAskedAgain(t *testing.T) {
	cache, err := NewCache(filepath.Join(t.TempDir(), "llm.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	id := membench.ModelID{Backend: "openai", Model: "gpt-4o-mini", BaseURL: "http://x/v1"}
	late := chatKey(id, Request{Messages: msgs("later question"), MaxTokens: 8})
	if _, err := dbOf(cache).Exec(`INSERT INTO responses (key, kind, model, text, input_tokens, output_tokens, created_at) VALUES (?, 'chat', 'gpt-4o-mini', 'unchecked', 1, 1, 'x')`, late); err != nil {
		t.Fatal(err)
	}
	if _, found, err := cache.lookup(context.Background(), late, "chat"); err != nil || found {
		t.Fatalf("an entry without a checksum was served (found %v, err %v)", found, err)
	}
	if cache.Damaged() != 1 {
		t.Errorf("Damaged = %d, want 1 (the unchecked entry)", cache.Damaged())
	}
}

// dbOf is the cache's current database, for tests that look inside it.
func dbOf(c *Cache) *sql.DB {
	var db *sql.DB
	c.file.Do(func(d *cacheDB) error { db = d.db; return nil })
	return db
}
