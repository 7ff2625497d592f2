package llm

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm/llmtest"
)

// fileDamageCase fills a real cache, damages its file with damage, and
// checks that a new cache on it answers every request right (asking the
// server again), keeps the damaged file aside byte for byte, and says so
// in one log line. It returns how many of the 200 requests reached the
// server again.
func fileDamageCase(t *testing.T, damage func(t *testing.T, b []byte, path string) []byte) int {
	t.Helper()
	srv := llmtest.New(t, llmtest.WithChat(func(_ int, r llmtest.ChatRequest) llmtest.Reply {
		return llmtest.Reply{Text: "reply to " + r.LastUser() + strings.Repeat(" padding", 40), PromptTokens: 10, CompletionTokens: 3}
	}))
	dir := t.TempDir()
	path := filepath.Join(dir, "llm.sqlite")
	cache, err := NewCache(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m := cache.Wrap(newTestOpenAI(t, srv))
	var reqs []Request
	for i := range 200 { // several table pages
		reqs = append(reqs, Request{Messages: msgs(fmt.Sprintf("question %03d", i))})
		if _, err := m.Chat(ctx, reqs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := cache.Close(); err != nil { // checkpoints the WAL into the file
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := damage(t, b, path)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}

	var log bytes.Buffer
	cache2, err := NewCache(path)
	if err != nil {
		t.Fatalf("a damaged cache stops the run: %v", err)
	}
	cache2.Log(&log)
	m2 := cache2.Wrap(newTestOpenAI(t, srv))
	before := srv.Count("/v1/chat/completions")
	for _, r := range reqs {
		resp, err := m2.Chat(ctx, r)
		if want := "reply to " + r.Messages[1].Content; err != nil || !strings.HasPrefix(resp.Text, want) {
			t.Fatalf("%s: %q, %v; want %q...", r.Messages[1].Content, resp.Text, err, want)
		}
	}
	asked := srv.Count("/v1/chat/completions") - before
	if asked == 0 {
		t.Error("every request was a hit in a damaged file")
	}
	// The fresh file keeps what was asked since.
	if resp, err := m2.Chat(ctx, reqs[len(reqs)-1]); err != nil || !resp.Cached {
		t.Errorf("after the damage, a stored reply is not a hit: %+v, %v", resp, err)
	}
	if err := cache2.Close(); err != nil {
		t.Fatal(err)
	}

	aside, _ := filepath.Glob(path + ".damaged-*")
	var kept []string
	for _, a := range aside {
		if !strings.HasSuffix(a, "-wal") && !strings.HasSuffix(a, "-shm") {
			kept = append(kept, a)
		}
	}
	if len(kept) != 1 {
		t.Fatalf("files set aside: %v; want one", aside)
	}
	got, err := os.ReadFile(kept[0])
	if err != nil || !bytes.Equal(got, bad) {
		t.Errorf("the file set aside is not the damaged one (%d bytes, %v)", len(got), err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], kept[0]) || !strings.Contains(lines[0], "restarts empty") {
		t.Errorf("log = %q; want one line naming %s and saying the cache restarts empty", log.String(), kept[0])
	}
	return asked
}

func TestCacheFileOfGarbageIsSetAside(t *testing.T) {
	_ = fileDamageCase(t, func(t *testing.T, b []byte, _ string) []byte {
		return bytes.Repeat([]byte("not an SQLite file at all. "), 300)
	})
}

func TestCacheTruncatedFileIsSetAside(t *testing.T) {
	_ = fileDamageCase(t, func(t *testing.T, b []byte, _ string) []byte {
		return b[:len(b)/2]
	})
}

// A page overwritten in the middle of a sound file is found only when a
// query reads it: the cache is replaced then, in the middle of the run.
func TestCacheCorruptedPageIsSetAside(t *testing.T) {
	asked := fileDamageCase(t, func(t *testing.T, b []byte, path string) []byte {
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		var pageSize int
		err = db.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		return testutil.ClobberPageHolding(t, b, []byte("reply to question 150"), pageSize)
	})
	if asked == 200 {
		t.Error("the damage was found at open; this case is for a page met by a lookup")
	}
}
