package turns

import (
	"context"
	"math"
	"testing"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	_ "github.com/membench/membench/datasets/sample" // the stand-in when ../shared is absent
	"github.com/membench/membench/embedder"
	"github.com/membench/membench/internal/testutil"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// The hashed embedder's vectors go to the sparse index, whose results are
// those of the dense one: every question of two real LoCoMo conversations
// (the sample without the file) finds the same turns with the same
// cosines, bit for bit, at several depths.
func TestSparseStoreEqualsDense(t *testing.T) {
	var convs []*datasets.Conversation
	if path, ok := testutil.SharedPath("datasets", "locomo10.json"); ok {
		ds, err := datasets.Load("locomo", path, datasets.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		convs = ds.Conversations[:2]
	} else {
		t.Logf("LoCoMo not found at %s: the embedded sample stands in", path)
		ds, err := datasets.Load("sample", "", datasets.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		convs = ds.Conversations
	}
	ctx := context.Background()
	// The hashed embedder as it is, through a meter (as runs use it), and
	// at a width where LoCoMo turns are too dense for the sparse index.
	for _, dim := range []int{512, 7} {
		for _, metered := range []bool{false, true} {
			compareStores(t, ctx, convs, dim, metered)
		}
	}
}

// compareStores holds a store that may take the sparse index, given the
// hashed embedder of width dim, to one that always takes the dense index:
// the same hits and scores, and (metered) the same embedding tallies.
func compareStores(t *testing.T, ctx context.Context, convs []*datasets.Conversation, dim int, metered bool) {
	t.Helper()
	emb := func(m *llm.Meter) llm.Embedder {
		if metered {
			return llm.WithEmbedMeter(embedder.NewHashed(dim), m, "retrieval", membench.StageBuild)
		}
		return embedder.NewHashed(dim)
	}
	for _, conv := range convs {
		ms, md := llm.NewMeter(), llm.NewMeter()
		sparse, _ := newStore(systems.Env{Embedder: emb(ms)})
		dense, _ := newStore(systems.Env{Embedder: emb(md)})
		dense.dense = true
		for _, s := range []*store{sparse, dense} {
			if _, err := s.ingest(ctx, conv); err != nil {
				t.Fatal(err)
			}
		}
		if wantSparse := dim == 512; (sparse.sparse != nil) != wantSparse || dense.index == nil {
			t.Fatalf("dim %d %s: sparse index %v (want %v), dense index %v", dim, conv.ID, sparse.sparse != nil, wantSparse, dense.index != nil)
		}
		for _, q := range conv.Questions {
			for _, n := range []int{1, 10, 50} {
				a, err := sparse.nearest(ctx, q, n)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := dense.nearest(ctx, q, n)
				if len(a) != len(b) {
					t.Fatalf("dim %d %s n=%d: %d hits, dense %d", dim, q.ID, n, len(a), len(b))
				}
				for i := range a {
					if a[i].ID != b[i].ID || math.Float64bits(a[i].Score) != math.Float64bits(b[i].Score) {
						t.Fatalf("dim %d %s n=%d hit %d: sparse %+v, dense %+v", dim, q.ID, n, i, a[i], b[i])
					}
				}
			}
		}
		a, b := embedded(ms), embedded(md)
		if metered && (a.Calls != b.Calls || a.InputTokens != b.InputTokens || a.Calls == 0) {
			t.Fatalf("dim %d %s: the sparse store metered %d texts and %d tokens, the dense one %d and %d", dim, conv.ID, a.Calls, a.InputTokens, b.Calls, b.InputTokens)
		}
	}
}

// embedded is m's embedding tally (zero when there is none).
func embedded(m *llm.Meter) membench.Tally {
	for _, t := range m.Snapshot() {
		if t.Label == "embedding" {
			return t
		}
	}
	return membench.Tally{}
}

// A dense embedder's vectors stay in the dense index.
func TestDenseVectorsStayDense(t *testing.T) {
	dense := [][]float32{{0.1, 0.2, 0.3, 0.4}, {0.5, 0, 0.1, 0.2}}
	sparse := [][]float32{append(make([]float32, 15), 1), append(make([]float32, 15), 2)}
	if isSparse(dense) || !isSparse(sparse) || isSparse(nil) || isSparse([][]float32{{1, 0}, {1}}) {
		t.Error("isSparse misjudged a batch")
	}
}
