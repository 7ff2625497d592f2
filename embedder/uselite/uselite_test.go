package uselite

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/membench/membench/internal/testutil"
)

type golden struct {
	Sentences  []string    `json:"sentences"`
	TokenIDs   [][]int     `json:"token_ids"`
	Embeddings [][]float64 `json:"embeddings"`
}

func loadGolden(t testing.TB) golden {
	path := testutil.Shared(t, "embeddings", "use-lite-golden.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(g.Sentences) == 0 || len(g.Sentences) != len(g.TokenIDs) || len(g.Sentences) != len(g.Embeddings) {
		t.Fatalf("%s: inconsistent golden file", path)
	}
	return g
}

var (
	modelOnce sync.Once
	model     *Embedder
	modelErr  error
)

func loadModel(t testing.TB) *Embedder {
	dir := DefaultDir(os.Getenv("MEMBENCH_HOME")) // where CI installs it
	if !Installed(dir) {
		t.Skipf("USE-lite model not installed in %s; run: bash scripts/setup-embeddings.sh", dir)
	}
	modelOnce.Do(func() { model, modelErr = Load(dir) })
	if modelErr != nil {
		t.Fatalf("load %s: %v", dir, modelErr)
	}
	return model
}

func TestTokenizerMatchesGolden(t *testing.T) {
	g := loadGolden(t)
	m := loadModel(t)
	for i, s := range g.Sentences {
		got := m.Tokenize(s)
		want := g.TokenIDs[i]
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("sentence %d %q:\n got %v\nwant %v", i, s, got, want)
		}
	}
}

func cosine(a []float32, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * b[i]
		na += float64(a[i]) * float64(a[i])
		nb += b[i] * b[i]
	}
	return dot / math.Sqrt(na*nb)
}

func TestEmbeddingsMatchGolden(t *testing.T) {
	g := loadGolden(t)
	m := loadModel(t)
	ctx := context.Background()
	batch, err := m.Embed(ctx, g.Sentences)
	if err != nil {
		t.Fatal(err)
	}
	minCos, maxCos, maxAbs := 2.0, -2.0, 0.0
	for i, s := range g.Sentences {
		// Batched and one-at-a-time must agree too (no padding leaks).
		single, err := m.Embed(ctx, []string{s})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range [][]float32{batch[i], single[0]} {
			if len(v) != len(g.Embeddings[i]) {
				t.Fatalf("sentence %d: dim %d, want %d", i, len(v), len(g.Embeddings[i]))
			}
			c := cosine(v, g.Embeddings[i])
			minCos, maxCos = min(minCos, c), max(maxCos, c)
			for j := range v {
				maxAbs = max(maxAbs, math.Abs(float64(v[j])-g.Embeddings[i][j]))
			}
			if c < 0.9999 {
				t.Errorf("sentence %d %q: cosine %.6f < 0.9999", i, s, c)
			}
		}
	}
	t.Logf("%d sentences: cosine min %.9f max %.9f, max abs diff %.2g", len(g.Sentences), minCos, maxCos, maxAbs)
}

func TestEmbedEmptyAndOrder(t *testing.T) {
	m := loadModel(t)
	out, err := m.Embed(context.Background(), nil)
	if err != nil || len(out) != 0 {
		t.Fatalf("Embed(nil) = %d vectors, %v", len(out), err)
	}
	texts := []string{"I adopted a puppy last week.", "We got a new dog recently.", "The stock market fell sharply today."}
	v, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	dot := func(a, b []float32) (s float64) {
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return
	}
	// A real sentence encoder relates the paraphrases more than the unrelated one.
	if dot(v[0], v[1]) <= dot(v[0], v[2]) {
		t.Errorf("puppy/dog %.3f <= puppy/stocks %.3f", dot(v[0], v[1]), dot(v[0], v[2]))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Embed(ctx, texts); err == nil {
		t.Error("Embed with a cancelled context returned no error")
	}
}

func TestLoadMissingDir(t *testing.T) {
	_, err := Load(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "setup-embeddings.sh") {
		t.Fatalf("Load(empty dir) error = %v, want a hint to run setup-embeddings.sh", err)
	}
}
