package embedder

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm"
)

// fileDamageCase fills a real cache, damages its file, and checks that a
// new cache on it returns every vector right (recomputing), keeps the
// damaged file aside byte for byte, and says so in one log line.
// It returns how many of the 1000 texts were embedded again.
func fileDamageCase(t *testing.T, damage func(t *testing.T, b []byte, want [][]float32) []byte) int64 {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "embeddings.sqlite")
	c, err := NewCache(&countingEmbedder{name: "test-emb", inner: NewHashed(64)}, path)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i := range 1000 { // several 64 KiB pages
		texts = append(texts, fmt.Sprintf("utterance %d about topic %d", i, i%13))
	}
	want, err := c.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := damage(t, b, want)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}

	inner := &countingEmbedder{name: "test-emb", inner: NewHashed(64)}
	c2, err := NewCache(inner, path)
	if err != nil {
		t.Fatalf("a damaged cache stops the run: %v", err)
	}
	var log bytes.Buffer
	c2.Log(&log)
	for lo := 0; lo < len(texts); lo += 100 { // batches, as a build embeds them
		got, err := c2.Embed(ctx, texts[lo:lo+100])
		if err != nil {
			t.Fatalf("batch at %d: %v", lo, err)
		}
		for i := range got {
			if !slices.Equal(got[i], want[lo+i]) {
				t.Fatalf("text %d: wrong vector", lo+i)
			}
		}
	}
	if inner.texts.Load() == 0 {
		t.Error("every vector came from a damaged file")
	}
	if err := c2.Flush(); err != nil {
		t.Fatal(err)
	}
	before := inner.texts.Load()
	again := before
	if _, err := c2.Embed(ctx, texts[len(texts)-100:]); err != nil || inner.texts.Load() != before {
		t.Errorf("the fresh file does not keep what was computed since (%v, %d recomputed)", err, inner.texts.Load()-before)
	}
	if err := c2.Close(); err != nil {
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
	if got, err := os.ReadFile(kept[0]); err != nil || !bytes.Equal(got, bad) {
		t.Errorf("the file set aside is not the damaged one (%d bytes, %v)", len(got), err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], kept[0]) || !strings.Contains(lines[0], "restarts empty") {
		t.Errorf("log = %q; want one line naming %s and saying the cache restarts empty", log.String(), kept[0])
	}
	return again
}

func TestCacheFileOfGarbageIsSetAside(t *testing.T) {
	_ = fileDamageCase(t, func(t *testing.T, b []byte, _ [][]float32) []byte {
		return bytes.Repeat([]byte("not an SQLite file. "), 5000)
	})
}

func TestCacheTruncatedFileIsSetAside(t *testing.T) {
	_ = fileDamageCase(t, func(t *testing.T, b []byte, _ [][]float32) []byte {
		return b[:len(b)/2]
	})
}

// A page overwritten in the middle of a sound file is found when a lookup
// reads it: the cache is replaced then, in the middle of the run.
func TestCacheCorruptedPageIsSetAside(t *testing.T) {
	again := fileDamageCase(t, func(t *testing.T, b []byte, want [][]float32) []byte {
		return testutil.ClobberPageHolding(t, b, llm.Vector(want[500]).Bytes(), pageSize)
	})
	if again == 1000 {
		t.Error("the damage was found at open; this case is for a page met by a lookup")
	}
}
