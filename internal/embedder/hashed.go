// Package embed holds the local embedders (USE-lite, hashed TF-IDF) and the
// on-disk embedding cache.
package embedder

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/llm"
)

// Hashed is the lexical fallback embedder: lowercased word unigrams and
// bigrams hashed into Dim buckets with a signed hash, weighted by
// 1+log(tf) and a fixed idf proxy (longer words weigh more), L2-normalised.
// It is deterministic and needs no model, but it only sees shared words;
// every report of a run that used it says so.
type Hashed struct{ Dim int }

// WorthCaching reports whether e's vectors are worth keeping in a Cache.
// The hashed embedder computes a question's vector in less CPU than the
// cache's SQLite lookup of it (BenchmarkHashedSingle against
// BenchmarkCacheHit), and its vectors depend on nothing but the text, so it
// is used uncached.
func WorthCaching(e llm.Embedder) bool {
	_, cheap := e.(*Hashed)
	return !cheap
}

// NewHashed returns a hashed TF-IDF embedder of the given width.
func NewHashed(dim int) *Hashed { return &Hashed{Dim: dim} }

func (h *Hashed) Name() string { return fmt.Sprintf("tfidf-hash-%d", h.Dim) }

func (h *Hashed) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = h.vector(t)
	}
	return out, nil
}

func (h *Hashed) vector(text string) []float32 {
	words := lexical.Words(text)
	tf := map[string]int{}
	for i, w := range words {
		if lexical.IsStopword(w) {
			continue
		}
		tf[w]++
		if i+1 < len(words) && !lexical.IsStopword(words[i+1]) {
			tf[w+" "+words[i+1]]++
		}
	}
	v := make([]float64, h.Dim)
	for term, n := range tf {
		f := fnv.New64a()
		f.Write([]byte(term))
		x := f.Sum64()
		idx := int(x % uint64(h.Dim))
		sign := 1.0
		if (x>>63)&1 == 1 {
			sign = -1
		}
		w := (1 + math.Log(float64(n))) * math.Log(2+float64(len([]rune(term))))
		v[idx] += sign * w
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, h.Dim)
	if norm == 0 {
		return out
	}
	inv := 1 / math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x * inv)
	}
	return out
}
