package harness_test

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/harness/harnesstest"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
	"github.com/membench/membench/summary"
)

// Damaged embedding-cache entries found by a run are counted in its
// manifest and summary, with a note line; a run without any has none.
func TestDamagedCacheEntriesAreCountedInTheSummary(t *testing.T) {
	cfg := harnesstest.Config(t, "turns-cosine")
	// An embedder whose vectors are cached (the hashed one is not: it is
	// cheaper to compute than to look up).
	srv := llmtest.New(t)
	t.Setenv("OPENAI_API_KEY", "sk-test-damage")
	cfg.Embedder = "backend=openai,model=e,base-url=" + srv.URL
	first, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if first.CacheDamaged != nil {
		t.Fatalf("a clean run reports damaged cache entries: %+v", first.CacheDamaged)
	}
	md, _ := os.ReadFile(filepath.Join(harnesstest.Dir(t, cfg), runlog.SummaryMD))
	if strings.Contains(string(md), "CACHE:") {
		t.Fatalf("a clean run's summary has a cache note:\n%s", md)
	}

	// Flip one byte in three stored vectors (the file stays valid SQLite).
	db, err := sql.Open("sqlite", filepath.Join(cfg.CacheDir, "embeddings.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT id, vec FROM vectors ORDER BY id LIMIT 3`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		id  int64
		vec []byte
	}
	var rs []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.vec); err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	rows.Close()
	if len(rs) != 3 {
		t.Fatalf("%d cached vectors, want at least 3", len(rs))
	}
	for _, r := range rs {
		r.vec[0] ^= 0x10
		if _, err := db.Exec(`UPDATE vectors SET vec = ? WHERE id = ?`, r.vec, r.id); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	cfg.RunID = "again"
	sum, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sum.CacheDamaged == nil || sum.CacheDamaged.Embeddings != 3 || sum.CacheDamaged.LLM != 0 {
		t.Fatalf("summary counts %+v damaged entries; want 3 embeddings", sum.CacheDamaged)
	}
	dir := harnesstest.Dir(t, cfg)
	md, _ = os.ReadFile(filepath.Join(dir, runlog.SummaryMD))
	if !strings.Contains(string(md), "CACHE: 3 damaged entries (LLM cache 0, embedding cache 3, token counts 0)") {
		t.Fatalf("summary lacks the damaged-entries note:\n%s", md)
	}
	// Readers recompute the summary from the manifest.
	again, err := summary.Compute(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.CacheDamaged.Total() != 3 {
		t.Fatalf("summary.Compute reads %+v from the manifest, want 3", again.CacheDamaged)
	}
	// The entries were rewritten: a third run finds none.
	cfg.RunID = "third"
	third, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if third.CacheDamaged != nil {
		t.Fatalf("damaged entries were not rewritten: %+v", third.CacheDamaged)
	}
}

// lockedBuffer is a log that several goroutines may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Cache files that are not SQLite databases do not stop a run: each is
// moved aside, the run answers every question with fresh caches, and the
// run's log says where each file went.
func TestDamagedCacheFilesAreSetAside(t *testing.T) {
	srv := llmtest.New(t, llmtest.WithEmbedDim(32), llmtest.WithChat(llmtest.Plausible))
	t.Setenv("OPENAI_API_KEY", "sk-test-damage")
	cfg := harnesstest.Config(t, "turns-cosine")
	cfg.Model = "backend=openai,model=m,base-url=" + srv.URL
	cfg.Embedder = "backend=openai,model=e,base-url=" + srv.URL
	first, err := harness.Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	garbage := bytes.Repeat([]byte("this is no database "), 500)
	files := []string{filepath.Join(cfg.CacheDir, "llm.sqlite"), filepath.Join(cfg.CacheDir, "embeddings.sqlite")}
	for _, f := range files {
		os.Remove(f + "-wal")
		os.Remove(f + "-shm")
		if err := os.WriteFile(f, garbage, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg.RunID = "after-damage"
	var log lockedBuffer
	sum, err := harness.Run(context.Background(), cfg, &log)
	if err != nil {
		t.Fatalf("a run on damaged cache files: %v", err)
	}
	if sum.Questions != first.Questions || !reflect.DeepEqual(sum.Overall, first.Overall) {
		t.Errorf("after the damage: %d questions, %+v; before %d, %+v", sum.Questions, sum.Overall, first.Questions, first.Overall)
	}
	for _, f := range files {
		aside, _ := filepath.Glob(f + ".damaged-*")
		if len(aside) != 1 {
			t.Fatalf("%s set aside as %v; want one file", f, aside)
		}
		if b, _ := os.ReadFile(aside[0]); !bytes.Equal(b, garbage) {
			t.Errorf("%s does not hold the damaged bytes", aside[0])
		}
		if !strings.Contains(log.String(), aside[0]) {
			t.Errorf("the run's log does not name %s:\n%s", aside[0], log.String())
		}
	}
}
