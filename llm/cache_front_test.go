package llm

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/llm/llmtest"
)

// A preloaded cache answers from memory what the file held at the scan,
// still finds what another process stored after it, serves a re-ask's
// (Fresh) reply afterwards, and refuses a file too large for the calls
// expected.
func TestCachePreload(t *testing.T) {
	var reply atomic.Value
	reply.Store("first")
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Text: reply.Load().(string) + " " + r.LastUser(), PromptTokens: 30, CompletionTokens: 4}
	}))
	path := filepath.Join(t.TempDir(), "c.sqlite")
	cache, err := NewCache(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m := cache.Wrap(newTestOpenAI(t, srv))
	for _, q := range []string{"a", "b", "c"} {
		if _, err := m.Chat(ctx, Request{Messages: msgs(q)}); err != nil {
			t.Fatal(err)
		}
	}
	cache.Close()

	cache, err = NewCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	if cache.Preload(0) {
		t.Fatal("Preload(0) started a scan")
	}
	if !cache.Preload(20) {
		n, err := cache.Bytes()
		t.Fatalf("Preload(20) refused a %d-byte database (%v)", n, err)
	}
	if cache.Preload(20) {
		t.Error("a second Preload started another scan")
	}
	m = cache.Wrap(newTestOpenAI(t, srv))
	before := srv.Count("/v1/chat/completions")
	if r, err := m.Chat(ctx, Request{Messages: msgs("a")}); err != nil || !r.Cached || r.Text != "first a" || r.Usage != (membench.Usage{InputTokens: 30, OutputTokens: 4}) {
		t.Fatalf("preloaded hit: %+v, %v", r, err)
	}

	// Served from memory: a row deleted behind the cache's back (another
	// handle) is still a hit...
	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(`DELETE FROM responses WHERE key = ?`, chatKey(m.ID(), Request{Messages: msgs("b")})); err != nil {
		t.Fatal(err)
	}
	if r, err := m.Chat(ctx, Request{Messages: msgs("b")}); err != nil || !r.Cached || r.Text != "first b" {
		t.Fatalf("hit after the row was deleted elsewhere: %+v, %v", r, err)
	}
	// ...and a row another process stored after the scan is found in the file.
	late := Request{Messages: msgs("late")}
	crc := entrySum(chatKey(m.ID(), late), "chat", "stored elsewhere", "", 7, 2)
	if _, err := other.Exec(`INSERT INTO responses (key, kind, model, text, probs, input_tokens, output_tokens, created_at, crc) VALUES (?, 'chat', 'm', 'stored elsewhere', '', 7, 2, 'x', ?)`,
		chatKey(m.ID(), late), int64(crc)); err != nil {
		t.Fatal(err)
	}
	if r, err := m.Chat(ctx, late); err != nil || !r.Cached || r.Text != "stored elsewhere" {
		t.Fatalf("entry stored after the scan: %+v, %v", r, err)
	}
	if n := srv.Count("/v1/chat/completions") - before; n != 0 {
		t.Fatalf("server asked %d times for cached entries", n)
	}

	// A re-ask (Fresh) replaces the entry in the file and in memory.
	reply.Store("second")
	if r, err := m.Chat(ctx, Request{Messages: msgs("c"), Fresh: true}); err != nil || r.Cached || r.Text != "second c" {
		t.Fatalf("fresh: %+v, %v", r, err)
	}
	if r, err := m.Chat(ctx, Request{Messages: msgs("c")}); err != nil || !r.Cached || r.Text != "second c" {
		t.Fatalf("after a fresh re-ask: %+v, %v; want the new reply", r, err)
	}
	// A miss is asked and kept.
	if r, err := m.Chat(ctx, Request{Messages: msgs("d")}); err != nil || r.Cached {
		t.Fatalf("miss: %+v, %v", r, err)
	}
	if r, err := m.Chat(ctx, Request{Messages: msgs("d")}); err != nil || !r.Cached || r.Text != "second d" {
		t.Fatalf("stored miss: %+v, %v", r, err)
	}

	// Too large for the calls expected: not read whole.
	big, err := NewCache(filepath.Join(t.TempDir(), "big.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	for i := range 40 {
		if err := big.store(ctx, fmt.Sprint("k", i), "chat", "m", strings.Repeat("x", 1000), "", membench.Usage{}); err != nil {
			t.Fatal(err)
		}
	}
	if big.Preload(1) {
		n, err := big.Bytes()
		t.Errorf("Preload(1) read a %d-byte database whole (bound %d, %v)", n, PreloadBytesPerCall, err)
	}
	if !big.Preload(100) {
		t.Error("Preload(100) refused")
	}
}

// A damaged entry found in the preloaded copy is counted and asked again,
// exactly as one read from the file (TestCacheFlippedBitIsAskedAgain).
func TestCachePreloadDamaged(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithChat(func(n int, r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Text: "the answer is " + r.LastUser() + " indeed", PromptTokens: 40, CompletionTokens: 6}
	}))
	path := filepath.Join(t.TempDir(), "c.sqlite")
	cache, err := NewCache(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m := cache.Wrap(newTestOpenAI(t, srv))
	for _, q := range []string{"Paris", "Rome"} {
		if _, err := m.Chat(ctx, Request{Messages: msgs(q)}); err != nil {
			t.Fatal(err)
		}
	}
	cache.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	needle := "the answer is Rome indeed"
	i := strings.Index(string(b), needle)
	if i < 0 {
		t.Fatalf("%q not in the file", needle)
	}
	b[i+len(needle)/2] ^= 0x01
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cache, err = NewCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	if !cache.Preload(20) {
		t.Fatal("Preload refused")
	}
	m = cache.Wrap(newTestOpenAI(t, srv))
	before := srv.Count("/v1/chat/completions")
	for _, q := range []string{"Paris", "Rome"} {
		r, err := m.Chat(ctx, Request{Messages: msgs(q)})
		if err != nil || r.Text != "the answer is "+q+" indeed" || r.Cached != (q == "Paris") {
			t.Fatalf("%s: %+v, %v", q, r, err)
		}
	}
	if n := srv.Count("/v1/chat/completions") - before; n != 1 || cache.Damaged() != 1 {
		t.Fatalf("server asked %d times, Damaged = %d; want 1 and 1", n, cache.Damaged())
	}
	if r, _ := m.Chat(ctx, Request{Messages: msgs("Rome")}); !r.Cached {
		t.Errorf("repaired entry not a hit: %+v", r)
	}
}

// A cache key hashes to what earlier builds wrote for it, so their cache
// files still hit; changing the encoding means bumping cacheVersion.
func TestCacheKeyHashIsStable(t *testing.T) {
	seed := 7
	msgs := []membench.Message{{Role: "system", Content: "You answer <b>questions</b> & \"more\""}, {Role: "user", Content: "q \u2028 ü\n\t"}}
	k := cacheKey{Backend: "openai", Model: "m", BaseURL: "http://x/v1", Kind: "chat", Messages: msgs, Temperature: 0.3, MaxTokens: 32, JSON: true, Seed: &seed, Choices: []string{"yes", "no"}}
	if got, want := k.hash(), "78346a426eafcb4e34960e7629b263a0c94cd46bb964b8a4fd355479cbc0016a"; cacheVersion == 1 && got != want {
		t.Fatalf("key hash %s, earlier builds wrote %s for the same key", got, want)
	}
}
