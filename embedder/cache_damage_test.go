package embedder

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/membench/membench/llm"
)

// flipIn flips one bit in the middle of the first copy of needle in the
// file, as a disk or a careless tool would, leaving the SQLite file valid.
func flipIn(t *testing.T, path string, needle []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, needle)
	if i < 0 {
		t.Fatalf("%s: stored bytes not found in the file", path)
	}
	b[i+len(needle)/2] ^= 0x10
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCacheFlippedBitIsRecomputed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "emb.sqlite")
	inner := &countingEmbedder{name: "test-emb", inner: NewHashed(64)}
	c, err := NewCache(inner, path)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"the cat sat on the mat", "a dog barked at noon", "rain in the evening"}
	want, err := c.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil { // checkpoints the WAL into the file
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		if fi, _ := os.Stat(path + "-wal"); fi.Size() > 0 {
			t.Fatalf("WAL not checkpointed on close (%d bytes)", fi.Size())
		}
	}
	flipIn(t, path, llm.Vector(want[1]).Bytes())

	inner2 := &countingEmbedder{name: "test-emb", inner: NewHashed(64)}
	c2, err := NewCache(inner2, path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c2.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("text %d: wrong vector after a flipped bit", i)
		}
	}
	if n := inner2.texts.Load(); n != 1 {
		t.Errorf("%d texts recomputed, want 1 (the damaged one)", n)
	}
	if n := c2.Damaged(); n != 1 {
		t.Errorf("Damaged = %d, want 1", n)
	}
	// The recomputed vector replaced the damaged row.
	if _, err := c2.Embed(ctx, texts); err != nil {
		t.Fatal(err)
	}
	if n := inner2.texts.Load(); n != 1 || c2.Damaged() != 1 {
		t.Errorf("after repair: %d texts recomputed, %d damaged; want 1 and 1", n, c2.Damaged())
	}
	// A row whose stored length disagrees with its bytes is damaged too.
	if _, err := dbOf(c2).Exec(`UPDATE vectors SET dim = dim - 1 WHERE id = (SELECT MIN(id) FROM vectors)`); err != nil {
		t.Fatal(err)
	}
	if got, err := c2.Embed(ctx, texts[:1]); err != nil || !slices.Equal(got[0], want[0]) {
		t.Fatalf("after a length change: %v, %v", got, err)
	}
	if c2.Damaged() != 2 || inner2.texts.Load() != 2 {
		t.Errorf("length mismatch: %d damaged, %d recomputed; want 2 and 2", c2.Damaged(), inner2.texts.Load())
	}
	c2.Close()
}

// Files from before checksums are not trusted: their entries are misses.
func TestCacheOldFileEntriesAreMisses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.sqlite")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE embeddings (embedder TEXT NOT NULL, text_sha256 BLOB NOT NULL, vec BLOB NOT NULL,
		PRIMARY KEY (embedder, text_sha256)) WITHOUT ROWID`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO embeddings VALUES ('test-emb', x'00', x'00000000')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	inner := &countingEmbedder{name: "test-emb", inner: NewHashed(64)}
	c, err := NewCache(inner, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Embed(ctx, []string{"x", "y"}); err != nil || inner.texts.Load() != 2 {
		t.Fatalf("old file: %v, %d texts embedded, want 2", err, inner.texts.Load())
	}
}

// 512-d entries take at most 2.2 KB of file each.
func TestCacheBytesPerEntry(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "emb.sqlite")
	c, err := NewCache(&countingEmbedder{name: "test-emb", inner: NewHashed(512)}, path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 6000 // about the number of LoCoMo turns
	texts := make([]string, 0, 100)
	for i := range n {
		texts = append(texts, fmt.Sprintf("utterance number %d about topic %d", i, i%37))
		if len(texts) == cap(texts) || i == n-1 { // batches, as a build embeds them
			if _, err := c.Embed(ctx, texts); err != nil {
				t.Fatal(err)
			}
			texts = texts[:0]
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	per := float64(fi.Size()) / n
	t.Logf("%d entries of 512-d: %d bytes, %.0f bytes per entry", n, fi.Size(), per)
	if per > 2200 {
		t.Errorf("%.0f bytes per 512-d entry, want <= 2200", per)
	}
}

// dbOf is the cache's current database, for tests that look inside it.
func dbOf(c *Cache) *sql.DB {
	var db *sql.DB
	c.file.Do(func(d *vectorDB) error { db = d.db; return nil })
	return db
}
