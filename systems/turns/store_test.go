package turns

import (
	"context"
	"math"
	"testing"

	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/embedder"
	"github.com/membench/membench/internal/testutil"
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
	env := systems.Env{Embedder: embedder.NewHashed(512)}
	for _, conv := range convs {
		sparse, _ := newStore(env)
		dense, _ := newStore(env)
		dense.dense = true
		for _, s := range []*store{sparse, dense} {
			if _, err := s.ingest(ctx, conv); err != nil {
				t.Fatal(err)
			}
		}
		if sparse.sparse == nil || dense.index == nil {
			t.Fatalf("%s: hashed vectors did not take the sparse index (sparse %v, dense %v)", conv.ID, sparse.sparse != nil, dense.index != nil)
		}
		for _, q := range conv.Questions {
			for _, n := range []int{1, 10, 50} {
				a, err := sparse.nearest(ctx, q, n)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := dense.nearest(ctx, q, n)
				if len(a) != len(b) {
					t.Fatalf("%s n=%d: %d hits, dense %d", q.ID, n, len(a), len(b))
				}
				for i := range a {
					if a[i].ID != b[i].ID || math.Float64bits(a[i].Score) != math.Float64bits(b[i].Score) {
						t.Fatalf("%s n=%d hit %d: sparse %+v, dense %+v", q.ID, n, i, a[i], b[i])
					}
				}
			}
		}
	}
}

// A dense embedder's vectors stay in the dense index.
func TestDenseVectorsStayDense(t *testing.T) {
	dense := [][]float32{{0.1, 0.2, 0.3, 0.4}, {0.5, 0, 0.1, 0.2}}
	sparse := [][]float32{append(make([]float32, 15), 1), append(make([]float32, 15), 2)}
	if isSparse(dense) || !isSparse(sparse) || isSparse(nil) || isSparse([][]float32{{1, 0}, {1}}) {
		t.Error("isSparse misjudged a batch")
	}
}
