// Package embed holds the local embedders (USE-lite, hashed TF-IDF) and the
// on-disk embedding cache.
package embedder

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/membench/membench/internal/lexical"
	"github.com/membench/membench/llm"
)

// Hashed is the lexical fallback embedder: lowercased word unigrams and
// bigrams hashed into Dim buckets with a signed hash, weighted by
// 1+log(tf) and a fixed idf proxy (longer words weigh more), L2-normalised.
// It is deterministic and needs no model, but it only sees shared words;
// every report of a run that used it says so.
//
// Terms are added to their buckets in the order of their first occurrence
// in the text, so a bucket shared by two terms sums them in the same order
// in every run and the vectors are the same to the last bit.
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
	return each(ctx, texts, h.vector)
}

// each maps texts through f with one pooled scratch.
func each[T any](ctx context.Context, texts []string, f func(string, *scratch) T) ([]T, error) {
	out := make([]T, len(texts))
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = f(t, sc)
	}
	return out, nil
}

// FNV-1a, 64 bits (hash/fnv's New64a), written out so that a bigram's hash
// continues from its first word's over " " and the second word: no string
// is built for it.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// term is a unigram (second == "") or a bigram "first second" (words hold
// no space, so two terms are equal exactly when both parts are).
type term struct {
	first, second string
	hash          uint64
	runes, n      int
	next          int32 // the next term with the same hash, -1 for none
}

// scratch is one vector's working memory, reused across texts.
type scratch struct {
	words []string
	runes []int
	terms []term
	at    map[uint64]int32 // hash -> first term with it
	v     []float64
	used  []int32 // buckets in use (EmbedSparse)
}

var scratchPool = sync.Pool{New: func() any { return &scratch{at: map[uint64]int32{}} }}

// logTwoPlus[r] is math.Log(2 + r), the weight of a term of r runes.
var logTwoPlus = func() (t [64]float64) {
	for r := range t {
		t[r] = math.Log(2 + float64(r))
	}
	return t
}()

// count adds one occurrence of the term (first, second) with hash x.
func (sc *scratch) count(first, second string, x uint64, runes int) {
	i, ok := sc.at[x]
	if ok {
		for {
			t := &sc.terms[i]
			if t.first == first && t.second == second {
				t.n++
				return
			}
			if t.next < 0 {
				break
			}
			i = t.next
		}
	}
	n := int32(len(sc.terms))
	sc.terms = append(sc.terms, term{first: first, second: second, hash: x, runes: runes, n: 1, next: -1})
	if ok {
		sc.terms[i].next = n // a 64-bit collision: chained, still exact
	} else {
		sc.at[x] = n
	}
}

func (h *Hashed) vector(text string, sc *scratch) []float32 {
	v := h.accumulate(text, sc)
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

// EmbedSparse is Embed's vectors as their nonzero components (see
// llm.SparseEmbedder), computed on the buckets the text's terms fall in
// alone: the same sums in the same order, so the same bits.
func (h *Hashed) EmbedSparse(ctx context.Context, texts []string) ([]llm.SparseVector, error) {
	return each(ctx, texts, h.sparse)
}

func (h *Hashed) sparse(text string, sc *scratch) llm.SparseVector {
	v := h.accumulate(text, sc)
	// The buckets in use, in increasing order: the dense norm's order (a
	// zero bucket adds nothing to it).
	sc.used = sc.used[:0]
	for _, t := range sc.terms {
		sc.used = append(sc.used, int32(t.hash%uint64(h.Dim)))
	}
	slices.Sort(sc.used)
	used := slices.Compact(sc.used)
	var norm float64
	for _, i := range used {
		norm += v[i] * v[i]
	}
	out := llm.SparseVector{Dim: h.Dim}
	if norm == 0 {
		return out
	}
	inv := 1 / math.Sqrt(norm)
	out.Index = make([]int32, 0, len(used))
	out.Value = make([]float32, 0, len(used))
	for _, i := range used {
		if f := float32(v[i] * inv); f != 0 {
			out.Index = append(out.Index, i)
			out.Value = append(out.Value, f)
		}
	}
	return out
}

// accumulate is text's unnormalised vector in sc's memory: each term's
// weight added to its bucket, in the order of first occurrence.
func (h *Hashed) accumulate(text string, sc *scratch) []float64 {
	sc.words = lexical.AppendWords(sc.words[:0], text)
	sc.runes = sc.runes[:0]
	for _, w := range sc.words {
		sc.runes = append(sc.runes, utf8.RuneCountInString(w))
	}
	sc.terms = sc.terms[:0]
	if len(sc.at) > 1<<12 {
		sc.at = map[uint64]int32{} // clearing keeps a long text's buckets
	} else {
		clear(sc.at)
	}
	words := sc.words
	for i, w := range words {
		if lexical.IsStopword(w) {
			continue
		}
		x := fnvAdd(fnvOffset, w)
		sc.count(w, "", x, sc.runes[i])
		if i+1 < len(words) && !lexical.IsStopword(words[i+1]) {
			sc.count(w, words[i+1], fnvAdd((x^' ')*fnvPrime, words[i+1]), sc.runes[i]+1+sc.runes[i+1])
		}
	}
	if cap(sc.v) < h.Dim {
		sc.v = make([]float64, h.Dim)
	}
	v := sc.v[:h.Dim]
	clear(v)
	for _, t := range sc.terms {
		idx := int(t.hash % uint64(h.Dim))
		sign := 1.0
		if (t.hash>>63)&1 == 1 {
			sign = -1
		}
		tf := 1.0 // 1 + log(1)
		if t.n > 1 {
			tf = 1 + math.Log(float64(t.n))
		}
		idf := 0.0
		if t.runes < len(logTwoPlus) {
			idf = logTwoPlus[t.runes]
		} else {
			idf = math.Log(2 + float64(t.runes))
		}
		v[idx] += sign * (tf * idf)
	}
	return v
}
