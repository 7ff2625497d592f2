// Package vindex is the program's one vector index: exact cosine top-k over
// unit vectors. Memory sizes here (thousands of entries per conversation)
// make exact search cheaper than any approximate structure.
package vindex

import (
	"math"
	"sort"
	"sync"
)

// Hit is one search result.
type Hit struct {
	ID    string
	Score float64 // cosine similarity
	Index int     // insertion order, stable tie-break
}

// Index holds vectors by id. Safe for concurrent use.
type Index struct {
	mu   sync.RWMutex
	ids  []string
	vecs [][]float32
	pos  map[string]int
}

// New returns an empty index.
func New() *Index { return &Index{pos: map[string]int{}} }

// Add stores (or replaces) a vector; it is normalised on the way in.
func (x *Index) Add(id string, v []float32) {
	u := Normalize(v)
	x.mu.Lock()
	defer x.mu.Unlock()
	if i, ok := x.pos[id]; ok {
		x.vecs[i] = u
		return
	}
	x.pos[id] = len(x.ids)
	x.ids = append(x.ids, id)
	x.vecs = append(x.vecs, u)
}

// Len is the number of stored vectors.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ids)
}

// Search returns the k most similar ids (all when k <= 0), best first; ties
// go to the earlier insertion. filter, when non-nil, keeps only ids it accepts.
func (x *Index) Search(q []float32, k int, filter func(id string) bool) []Hit {
	u := Normalize(q)
	x.mu.RLock()
	hits := make([]Hit, 0, len(x.ids))
	for i, v := range x.vecs {
		if filter != nil && !filter(x.ids[i]) {
			continue
		}
		hits = append(hits, Hit{ID: x.ids[i], Score: Dot(u, v), Index: i})
	}
	x.mu.RUnlock()
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].Score != hits[b].Score {
			return hits[a].Score > hits[b].Score
		}
		return hits[a].Index < hits[b].Index
	})
	if k > 0 && len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// Dot is the inner product (the cosine for unit vectors).
func Dot(a, b []float32) float64 {
	n := len(a)
	if len(b) < n {
		n = len(b)
	}
	var s float64
	for i := 0; i < n; i++ {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// Normalize returns v scaled to unit length (a zero vector stays zero).
func Normalize(v []float32) []float32 {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	out := make([]float32, len(v))
	if s == 0 {
		return out
	}
	inv := 1 / math.Sqrt(s)
	for i, f := range v {
		out[i] = float32(float64(f) * inv)
	}
	return out
}
