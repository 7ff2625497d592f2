// Package turns holds the raw-turn memory systems: turns-cosine (exact
// cosine top-k), turns-rerank (cosine candidates filtered by the decision
// model selector) and turns-llm (cosine candidates reordered by one listwise
// LLM request). Each stores the conversation's turns unchanged, with date
// and speaker; none calls a model at build time.
package turns

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/vindex"
	"github.com/membench/membench/llm"
	"github.com/membench/membench/systems"
)

// embedBatch bounds one embedder call; the harness caches embeddings on disk.
const embedBatch = 256

// store is the shared write path: every turn embedded once.
type store struct {
	emb   llm.Embedder
	turns []*datasets.Turn
	// vecs are the turns' vectors by position, kept only for neighbour
	// search between turns (Store.Earlier); nil otherwise.
	vecs     [][]float32
	keepVecs bool
	// One of the two holds the turns after Ingest: sparse when the
	// embedder's vectors are mostly zeros (the hashed embedder's: a search
	// then touches only the components a turn shares with the question,
	// with the same results as the dense index), else index.
	index  *vindex.Index
	sparse *vindex.Sparse
	dense  bool // always the dense index (tests)
}

// sparseShare: vectors with at most one component in eight nonzero go to
// the sparse index.
const sparseShare = 8

// isSparse says whether the batch's vectors all have v's width and on
// average at most one nonzero component in sparseShare.
func isSparse(vecs [][]float32) bool {
	if len(vecs) == 0 || len(vecs[0]) == 0 {
		return false
	}
	nnz := 0
	for _, v := range vecs {
		if len(v) != len(vecs[0]) {
			return false
		}
		for _, f := range v {
			if f != 0 {
				nnz++
			}
		}
	}
	return sparseEnough(nnz, len(vecs), len(vecs[0]))
}

// sparseEnough says whether n vectors of width dim with nnz nonzero
// components in all are sparse enough for the sparse index.
func sparseEnough(nnz, n, dim int) bool { return dim > 0 && nnz*sparseShare <= n*dim }

// EmbedText is what gets embedded for a turn: speaker and text, because
// questions usually name the person they ask about.
func EmbedText(t *datasets.Turn) string {
	if t.Speaker == "" {
		return t.Text
	}
	return t.Speaker + ": " + t.Text
}

func newStore(env systems.Env) (*store, error) {
	if env.Embedder == nil {
		return nil, errors.New("turns: no embedder in the environment (set --embedder)")
	}
	return &store{emb: env.Embedder}, nil
}

func (s *store) ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	s.turns = conv.AllTurns()
	s.index, s.sparse = nil, nil
	s.vecs = nil
	if s.keepVecs {
		s.vecs = make([][]float32, 0, len(s.turns))
	}
	sparse := llm.Sparse(s.emb)
	if s.dense || s.keepVecs {
		sparse = nil
	}
	for start := 0; start < len(s.turns); start += embedBatch {
		end := min(start+embedBatch, len(s.turns))
		texts := make([]string, 0, end-start)
		for _, t := range s.turns[start:end] {
			texts = append(texts, EmbedText(t))
		}
		var vecs [][]float32
		var err error
		if sparse != nil {
			vecs, err = s.ingestSparse(ctx, sparse, texts, start == 0)
			if err == nil && vecs == nil {
				continue
			}
			sparse = nil // too dense for the sparse index: vecs are the batch's vectors
		} else {
			vecs, err = s.emb.Embed(ctx, texts)
		}
		if err != nil {
			return membench.BuildStats{}, fmt.Errorf("embedding turns of conversation %s: %w", conv.ID, err)
		}
		if len(vecs) != len(texts) {
			return membench.BuildStats{}, fmt.Errorf("embedding turns of conversation %s: embedder %s returned %d vectors for %d texts", conv.ID, s.emb.Name(), len(vecs), len(texts))
		}
		if s.keepVecs {
			s.vecs = append(s.vecs, vecs...)
		}
		if start == 0 {
			// Turns-graph's neighbour search filters, which only the dense index does.
			if !s.dense && !s.keepVecs && isSparse(vecs) {
				s.sparse = vindex.NewSparse(len(vecs[0]))
			} else {
				s.index = vindex.New()
				if len(vecs) > 0 {
					s.index.Grow(len(s.turns), len(vecs[0])) // one allocation for the conversation
				}
			}
		}
		for i, v := range vecs {
			if s.sparse != nil {
				s.sparse.Add(v) // ids are positions
				continue
			}
			// Keyed by position: turn ids are not guaranteed unique across datasets.
			s.index.Add(strconv.Itoa(start+i), v)
		}
	}
	if s.index == nil && s.sparse == nil {
		s.index = vindex.New() // no turns
	}
	return membench.BuildStats{Counts: map[string]int{"turns": len(s.turns)}}, nil
}

// ingestSparse adds a batch of turns to the sparse index from their
// nonzero components. When the first batch is too dense for it, as
// isSparse would find the same vectors, it adds nothing and returns the
// batch's vectors instead.
func (s *store) ingestSparse(ctx context.Context, e llm.SparseEmbedder, texts []string, first bool) ([][]float32, error) {
	vecs, err := e.EmbedSparse(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedder %s returned %d vectors for %d texts", e.Name(), len(vecs), len(texts))
	}
	if first { // the batch is never empty
		nnz := 0
		for _, v := range vecs {
			if v.Dim != vecs[0].Dim {
				return dense(vecs), nil
			}
			nnz += len(v.Index)
		}
		if !sparseEnough(nnz, len(vecs), vecs[0].Dim) {
			return dense(vecs), nil
		}
		s.sparse = vindex.NewSparse(vecs[0].Dim)
	}
	for _, v := range vecs {
		s.sparse.AddSparse(v.Dim, v.Index, v.Value) // ids are positions
	}
	return nil, nil
}

// dense is the vectors with their zeros.
func dense(vecs []llm.SparseVector) [][]float32 {
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		out[i] = vindex.Densify(v.Dim, v.Index, v.Value)
	}
	return out
}

// search returns the n turns most similar to the question, best first, as
// items scored by cosine.
func (s *store) search(ctx context.Context, q *datasets.Question, n int) ([]membench.Item, error) {
	hits, err := s.nearest(ctx, q, n)
	if err != nil {
		return nil, err
	}
	out := make([]membench.Item, len(hits))
	for i, h := range hits {
		pos, _ := strconv.Atoi(h.ID)
		out[i] = TurnItem(s.turns[pos], h.Score)
	}
	return out, nil
}

// nearest embeds the question and returns the n nearest turns (ids are positions).
func (s *store) nearest(ctx context.Context, q *datasets.Question, n int) ([]vindex.Hit, error) {
	if s.index == nil && s.sparse == nil {
		return nil, errors.New("turns: Retrieve called before Ingest")
	}
	if e := llm.Sparse(s.emb); e != nil && s.sparse != nil {
		vecs, err := e.EmbedSparse(ctx, []string{q.Text})
		if err != nil {
			return nil, fmt.Errorf("embedding question %s: %w", q.ID, err)
		}
		if len(vecs) != 1 {
			return nil, fmt.Errorf("embedding question %s: embedder %s returned %d vectors", q.ID, s.emb.Name(), len(vecs))
		}
		return s.sparse.SearchSparse(vecs[0].Dim, vecs[0].Index, vecs[0].Value, n), nil
	}
	vecs, err := s.emb.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, fmt.Errorf("embedding question %s: %w", q.ID, err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embedding question %s: embedder %s returned %d vectors", q.ID, s.emb.Name(), len(vecs))
	}
	if s.sparse != nil {
		return s.sparse.Search(vecs[0], n), nil
	}
	return s.index.Search(vecs[0], n, nil), nil
}
