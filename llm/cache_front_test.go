package llm

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

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
	if r, err := m.Chat(ctx, Request{Messages: msgs("a")}); err != nil || !r.Cached || r.Text != "first a" || r.Usage != (Usage{InputTokens: 30, OutputTokens: 4}) {
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
		if err := big.store(ctx, fmt.Sprint("k", i), "chat", "m", strings.Repeat("x", 1000), "", Usage{}); err != nil {
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

// marshalHash is how every cache file's keys were made: the sha256 of
// json.Marshal's bytes.
func marshalHash(t testing.TB, k cacheKey) string {
	k.Version = cacheVersion
	b, err := json.Marshal(k)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// The key hash is the sha256 of json.Marshal's bytes, whatever the key
// holds: escapes of every kind, invalid UTF-8, long runs with and without
// escapes, floats in both notations, nil and empty lists.
func TestCacheKeyIsMarshalHash(t *testing.T) {
	seed, neg := 7, -3
	long := strings.Repeat("context line with <tags> & \"quotes\"\tand tabs\n", 300)
	keys := []cacheKey{
		{Backend: "openai", Model: "m", BaseURL: "http://x/v1?a=1&b=<2>", Kind: "chat", Messages: msgs("when did <b>Caroline</b> & Mel go?"), MaxTokens: 32},
		{Backend: "openai", Model: "m", Kind: "chat", Messages: []Message{{Role: "system", Content: long}, {Role: "user", Content: "q \u2028 \u2029 \x00\x01\x1f\x7f \b\f\r \\ ü 日本 \xff\xfe\xc3 end"}}, Temperature: 0.3, JSON: true, Seed: &seed},
		{Backend: "openai", Kind: "chat", Messages: []Message{{Content: strings.Repeat("plain text without escapes ", 40)}}, Temperature: 1e-7, Seed: &neg},
		{Kind: "chat", Messages: []Message{}, Temperature: 1e21, MaxTokens: -1},
		{Kind: "chat", Temperature: 123456789.125},
		{Kind: "chat", Temperature: math.Copysign(0, -1)},
		{Kind: "chat", Temperature: 2.5e-300},
		{Backend: "offline", Kind: "decide", Messages: msgs("ok?"), Choices: []string{"yes", "no", "<&>"}},
		{Kind: "decide", Choices: []string{}},
		{},
	}
	for i, k := range keys {
		if got, want := k.hash(), marshalHash(t, k); got != want {
			t.Errorf("key %d: hash %s, sha256 of json.Marshal %s", i, got, want)
		}
	}
}

// FuzzCacheKeyHash: for any strings and numbers, the key hash is the
// sha256 of json.Marshal's bytes.
func FuzzCacheKeyHash(f *testing.F) {
	f.Add("openai", "http://x/v1", "system text <b>", "user \u2028 \xff q\n", 0.0, 32, true, "yes")
	f.Add("", "", strings.Repeat("a", 200)+"\"", "\x00", 1e-9, -1, false, "")
	f.Fuzz(func(t *testing.T, backend, url, sys, user string, temp float64, maxTok int, js bool, choice string) {
		k := cacheKey{Backend: backend, Model: user, BaseURL: url, Kind: "chat", Temperature: temp, MaxTokens: maxTok, JSON: js,
			Messages: []Message{{Role: "system", Content: sys}, {Role: choice, Content: user}}, Seed: &maxTok, Choices: []string{choice, sys}}
		if math.IsNaN(temp) || math.IsInf(temp, 0) {
			return // json.Marshal refuses it; hash panics as before
		}
		if got, want := k.hash(), marshalHash(t, k); got != want {
			t.Fatalf("hash %s, sha256 of json.Marshal %s, for %+v", got, want, k)
		}
	})
}
