package embedder

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// countingEmbedder wraps the hashed embedder under a chosen name and counts
// the texts it is asked to embed.
type countingEmbedder struct {
	name  string
	inner *Hashed
	calls atomic.Int64
	texts atomic.Int64
}

func (c *countingEmbedder) Name() string { return c.name }

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.calls.Add(1)
	c.texts.Add(int64(len(texts)))
	return c.inner.Embed(ctx, texts)
}

func TestCacheHitsMissesAndReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "emb.sqlite")
	inner := &countingEmbedder{name: "test-emb", inner: NewHashed(64)}
	c, err := NewCache(inner, path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "test-emb" {
		t.Errorf("Name = %q, want the inner name", c.Name())
	}
	texts := []string{"alpha beta", "gamma delta", "alpha beta", ""}
	first, err := c.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := inner.texts.Load(); got != 3 {
		t.Errorf("first call sent %d texts to the inner embedder, want 3 (duplicates once)", got)
	}
	want, _ := inner.inner.Embed(ctx, texts)
	for i := range texts {
		if !slices.Equal(first[i], want[i]) {
			t.Errorf("text %d: cached result differs from the inner embedder", i)
		}
	}
	// Second call: all hits.
	second, err := c.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if inner.calls.Load() != 1 {
		t.Errorf("second call reached the inner embedder (%d calls)", inner.calls.Load())
	}
	for i := range texts {
		if !slices.Equal(second[i], want[i]) {
			t.Errorf("text %d: vector changed on a cache hit", i)
		}
	}
	// A partly new batch sends only the new text.
	if _, err := c.Embed(ctx, []string{"gamma delta", "epsilon"}); err != nil {
		t.Fatal(err)
	}
	if inner.calls.Load() != 2 || inner.texts.Load() != 4 {
		t.Errorf("after a mixed batch: %d calls, %d texts; want 2 calls, 4 texts", inner.calls.Load(), inner.texts.Load())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopen: still hits.
	inner2 := &countingEmbedder{name: "test-emb", inner: NewHashed(64)}
	c2, err := NewCache(inner2, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	got, err := c2.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if inner2.calls.Load() != 0 {
		t.Errorf("after reopening, %d inner calls, want 0", inner2.calls.Load())
	}
	for i := range texts {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("text %d: vector changed after reopening", i)
		}
	}

	// Another embedder name on the same file does not see those vectors.
	other := &countingEmbedder{name: "other-emb", inner: NewHashed(32)}
	c3, err := NewCache(other, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	v, err := c3.Embed(ctx, texts[:2])
	if err != nil {
		t.Fatal(err)
	}
	if other.texts.Load() != 2 {
		t.Errorf("other embedder: %d texts embedded, want 2 (no collision)", other.texts.Load())
	}
	if len(v[0]) != 32 {
		t.Errorf("other embedder got a %d-d vector, want its own 32-d", len(v[0]))
	}
}

func TestCacheConcurrent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "emb.sqlite")
	inner := &countingEmbedder{name: "test-emb", inner: NewHashed(64)}
	c, err := NewCache(inner, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 10 {
				texts := []string{fmt.Sprintf("shared %d", r), fmt.Sprintf("own %d %d", g, r)}
				v, err := c.Embed(ctx, texts)
				if err != nil {
					errs <- err
					return
				}
				want, _ := inner.inner.Embed(ctx, texts)
				if !slices.Equal(v[0], want[0]) || !slices.Equal(v[1], want[1]) {
					errs <- fmt.Errorf("goroutine %d round %d: wrong vector", g, r)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := c.Flush(); err != nil { // writes are batched by one goroutine
		t.Fatal(err)
	}
	var n int
	if err := dbOf(c).QueryRow("SELECT COUNT(*) FROM vectors").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 10+160 {
		t.Errorf("cache holds %d rows, want 170", n)
	}
}

// Reads must not map the file: mapped pages a lookup touched stay in the
// process's resident set, so a warm run's peak RSS grew with the cache
// file. Every pooled connection reads through a bounded page cache.
func TestCacheReadsDoNotMapTheFile(t *testing.T) {
	c, err := NewCache(&countingEmbedder{name: "test-emb", inner: NewHashed(64)}, filepath.Join(t.TempDir(), "emb.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	// Hold several connections at once so the check covers more than one.
	var conns []*sql.Conn
	for range 3 {
		conn, err := dbOf(c).Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
	}
	for i, conn := range conns {
		var mmap, pages int64
		if err := conn.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&mmap); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&pages); err != nil {
			t.Fatal(err)
		}
		if mmap != 0 || pages != 128 {
			t.Errorf("connection %d: mmap_size %d, cache_size %d; want 0 and 128 pages", i, mmap, pages)
		}
		conn.Close()
	}
}
