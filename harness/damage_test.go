package harness_test

import (
	"context"
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/membench/membench/harness"
	"github.com/membench/membench/llm/llmtest"
	"github.com/membench/membench/runlog"
)

// Damaged embedding-cache entries found by a run are counted in its
// manifest and summary, with a note line; a run without any has none.
func TestDamagedCacheEntriesAreCountedInTheSummary(t *testing.T) {
	cfg := testConfig(t, "turns-cosine")
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
	md, _ := os.ReadFile(filepath.Join(cfg.WithDefaults().Dir(), runlog.SummaryMD))
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
	dir := cfg.WithDefaults().Dir()
	md, _ = os.ReadFile(filepath.Join(dir, runlog.SummaryMD))
	if !strings.Contains(string(md), "CACHE: 3 damaged entries (LLM cache 0, embedding cache 3, token counts 0)") {
		t.Fatalf("summary lacks the damaged-entries note:\n%s", md)
	}
	// Readers recompute the summary from the manifest.
	again, err := runlog.Summarize(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.CacheDamaged.Total() != 3 {
		t.Fatalf("Summarize reads %+v from the manifest, want 3", again.CacheDamaged)
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
