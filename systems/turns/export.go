package turns

import (
	"context"
	"strconv"

	"github.com/membench/membench"
	"github.com/membench/membench/datasets"
	"github.com/membench/membench/internal/vindex"
	"github.com/membench/membench/systems"
)

// Store is the raw-turn write path (every turn embedded once, with speaker)
// exported for other raw-turn systems (turns-graph), so they store and
// search turns exactly as turns-cosine and turns-rerank do.
type Store struct{ s *store }

// NewStore needs env.Embedder.
func NewStore(env systems.Env) (*Store, error) {
	s, err := newStore(env)
	if err != nil {
		return nil, err
	}
	s.keepVecs = true // Earlier searches from a turn's own vector
	return &Store{s: s}, nil
}

// Ingest embeds every turn of the conversation.
func (s *Store) Ingest(ctx context.Context, conv *datasets.Conversation) (membench.BuildStats, error) {
	return s.s.ingest(ctx, conv)
}

// Nearest returns the positions of the n turns nearest the question, best
// first (turn ids need not be unique; positions are).
func (s *Store) Nearest(ctx context.Context, q *datasets.Question, n int) ([]Neighbour, error) {
	hits, err := s.s.nearest(ctx, q, n)
	return neighbours(hits), err
}

// neighbours reads the index's hits, whose ids are turn positions.
func neighbours(hits []vindex.Hit) []Neighbour {
	out := make([]Neighbour, len(hits))
	for i, h := range hits {
		p, _ := strconv.Atoi(h.ID)
		out[i] = Neighbour{Pos: p, Cosine: h.Score}
	}
	return out
}

// Turns lists the stored turns in conversation order (position = node id).
func (s *Store) Turns() []*datasets.Turn { return s.s.turns }

// Neighbour is a turn similar to a given turn or question.
type Neighbour struct {
	Pos    int     // position in Turns()
	Cosine float64 // similarity to the given turn
}

// Earlier returns the m turns before position pos most similar to it, best
// first (ties to the earlier turn).
func (s *Store) Earlier(pos, m int) []Neighbour {
	if pos <= 0 || pos >= len(s.s.vecs) {
		return nil
	}
	return neighbours(s.s.index.Search(s.s.vecs[pos], m, func(id string) bool {
		p, _ := strconv.Atoi(id)
		return p < pos
	}))
}
