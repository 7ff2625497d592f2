package llm

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/membench/membench/llm/llmtest"
)

// A reply the caller rejects is neither stored nor served, and Fresh skips
// the read: a re-ask reaches the server, and the first usable reply is kept.
func TestCacheAcceptAndFresh(t *testing.T) {
	var bad atomic.Bool
	bad.Store(true)
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		if bad.Load() {
			return llmtest.Reply{Text: "Hmm, hard to say."}
		}
		return llmtest.Reply{Text: `{"label": "CORRECT"}`}
	}))
	cache, err := NewCache(filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	m := cache.Wrap(newTestOpenAI(t, srv))
	ctx := context.Background()
	accept := func(s string) error {
		if !strings.Contains(s, "label") {
			return errors.New("no label")
		}
		return nil
	}
	req := Request{Messages: msgs("judge this"), Accept: accept}
	for i := 0; i < 2; i++ {
		r, err := m.Chat(ctx, req)
		if err != nil || r.Cached || r.Text != "Hmm, hard to say." {
			t.Fatalf("call %d: %+v, %v; want the uncached bad reply", i, r, err)
		}
	}
	if n, _ := cache.Len(); n != 0 {
		t.Fatalf("cache holds %d entries after rejected replies, want 0", n)
	}
	if n := srv.Count("/v1/chat/completions"); n != 2 {
		t.Fatalf("server saw %d requests, want 2 (nothing served from the cache)", n)
	}
	bad.Store(false)
	if r, err := m.Chat(ctx, req); err != nil || r.Cached || r.Text != `{"label": "CORRECT"}` {
		t.Fatalf("after the fix: %+v, %v", r, err)
	}
	if r, err := m.Chat(ctx, req); err != nil || !r.Cached {
		t.Fatalf("a usable reply is cached: %+v, %v", r, err)
	}
	fresh := req
	fresh.Fresh = true
	if r, err := m.Chat(ctx, fresh); err != nil || r.Cached {
		t.Fatalf("Fresh must skip the read: %+v, %v", r, err)
	}
	if n := srv.Count("/v1/chat/completions"); n != 4 {
		t.Fatalf("server saw %d requests, want 4", n)
	}

	// An entry stored by a caller that accepted anything is a miss for a
	// caller that rejects it, and is overwritten by the usable reply.
	bad.Store(true)
	other := Request{Messages: msgs("another")}
	if _, err := m.Chat(ctx, other); err != nil {
		t.Fatal(err)
	}
	bad.Store(false)
	other.Accept = accept
	if r, err := m.Chat(ctx, other); err != nil || r.Cached || !strings.Contains(r.Text, "label") {
		t.Fatalf("a stored unusable entry must be asked again: %+v, %v", r, err)
	}
	if r, err := m.Chat(ctx, other); err != nil || !r.Cached || !strings.Contains(r.Text, "label") {
		t.Fatalf("and then replaced: %+v, %v", r, err)
	}
}
