// Package vindex is the program's one vector index: exact cosine top-k over
// unit vectors. Memory sizes here (thousands of entries per conversation)
// make exact search cheaper than any approximate structure.
package vindex

import (
	"math"
	"runtime"
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

// parallelMin is the number of stored floats from which an unfiltered
// search is split over the cores: below it, goroutine start-up costs more
// than the scan (256 vectors of 512-d take ~50µs on one core).
const parallelMin = 1 << 17

// Search returns the k most similar ids (all when k <= 0), best first; ties
// go to the earlier insertion. filter, when non-nil, keeps only ids it
// accepts; it is called from the calling goroutine only, so it need not be
// safe for concurrent use.
//
// Top-k keeps a bounded heap (no N-element allocation) and, for large
// unfiltered indexes, scans one contiguous share per core and merges. Scores
// are computed exactly as Dot does, so results equal a full sort.
func (x *Index) Search(q []float32, k int, filter func(id string) bool) []Hit {
	u := Normalize(q)
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := len(x.vecs)
	if k <= 0 || k >= n {
		return x.searchAll(u, filter)
	}
	workers := 1
	if filter == nil && n*len(u) >= parallelMin {
		workers = min(runtime.GOMAXPROCS(0), n/64)
	}
	var top topK
	if workers <= 1 {
		top = x.scan(u, k, 0, n, filter)
	} else {
		parts := make([]topK, workers)
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := w*n/workers, (w+1)*n/workers
			wg.Add(1)
			go func() {
				defer wg.Done()
				parts[w] = x.scan(u, k, lo, hi, nil)
			}()
		}
		wg.Wait()
		top = parts[0]
		for _, p := range parts[1:] {
			for _, c := range p.items {
				top.offer(c)
			}
		}
	}
	return x.hits(top.sorted())
}

// searchAll scores every accepted vector and sorts them all (k <= 0 asks
// for the whole ranking, so the N-element list is the answer itself).
func (x *Index) searchAll(u []float32, filter func(string) bool) []Hit {
	cands := make([]cand, 0, len(x.vecs))
	x.each(u, 0, len(x.vecs), filter, func(c cand) { cands = append(cands, c) })
	sort.Slice(cands, func(a, b int) bool { return cands[a].better(cands[b]) })
	return x.hits(cands)
}

func (x *Index) hits(cs []cand) []Hit {
	out := make([]Hit, len(cs))
	for i, c := range cs {
		out[i] = Hit{ID: x.ids[c.i], Score: c.s, Index: c.i}
	}
	return out
}

// scan returns the k best of vectors [lo, hi).
func (x *Index) scan(u []float32, k, lo, hi int, filter func(string) bool) topK {
	t := topK{k: k, items: make([]cand, 0, k)}
	x.each(u, lo, hi, filter, t.offer)
	return t
}

// each scores vectors [lo, hi) in order and passes the accepted ones to f.
// Four vectors are scored per pass: each keeps its own float64 sum in
// Dot's order, so the scores are bit-identical to Dot, but the four
// dependency chains overlap instead of waiting on one add at a time.
func (x *Index) each(u []float32, lo, hi int, filter func(string) bool, f func(cand)) {
	i := lo
	if filter == nil {
		for ; i+4 <= hi; i += 4 {
			a, b, c, d := x.vecs[i], x.vecs[i+1], x.vecs[i+2], x.vecs[i+3]
			if len(a) != len(u) || len(b) != len(u) || len(c) != len(u) || len(d) != len(u) {
				break // mixed widths: leave them to Dot's prefix rule below
			}
			sa, sb, sc, sd := dot4(u, a, b, c, d)
			f(cand{sa, i})
			f(cand{sb, i + 1})
			f(cand{sc, i + 2})
			f(cand{sd, i + 3})
		}
	}
	for ; i < hi; i++ {
		if filter != nil && !filter(x.ids[i]) {
			continue
		}
		f(cand{Dot(u, x.vecs[i]), i})
	}
}

// dot4 is Dot(u, a), Dot(u, b), Dot(u, c), Dot(u, d) for equal lengths.
func dot4(u, a, b, c, d []float32) (sa, sb, sc, sd float64) {
	n := len(u)
	a, b, c, d = a[:n], b[:n], c[:n], d[:n]
	for j, q := range u {
		qf := float64(q)
		sa += qf * float64(a[j])
		sb += qf * float64(b[j])
		sc += qf * float64(c[j])
		sd += qf * float64(d[j])
	}
	return
}

// cand is a scored vector by position.
type cand struct {
	s float64
	i int
}

// better is the result order: higher score first, then earlier insertion.
func (c cand) better(o cand) bool {
	if c.s != o.s {
		return c.s > o.s
	}
	return c.i < o.i
}

// topK keeps the k best candidates seen in a heap whose root is the worst
// kept one, so a candidate costs one comparison unless it gets in.
type topK struct {
	k     int
	items []cand
}

func (t *topK) offer(c cand) {
	if len(t.items) < t.k {
		t.items = append(t.items, c)
		t.up(len(t.items) - 1)
		return
	}
	if !c.better(t.items[0]) {
		return
	}
	t.items[0] = c
	t.down(0)
}

func (t *topK) up(j int) {
	h := t.items
	for j > 0 {
		p := (j - 1) / 2
		if !h[p].better(h[j]) { // parent already the worse one
			return
		}
		h[p], h[j] = h[j], h[p]
		j = p
	}
}

func (t *topK) down(j int) {
	h := t.items
	for {
		w := j
		if l := 2*j + 1; l < len(h) && h[w].better(h[l]) {
			w = l
		}
		if r := 2*j + 2; r < len(h) && h[w].better(h[r]) {
			w = r
		}
		if w == j {
			return
		}
		h[j], h[w] = h[w], h[j]
		j = w
	}
}

// sorted returns the kept candidates best first.
func (t *topK) sorted() []cand {
	sort.Slice(t.items, func(a, b int) bool { return t.items[a].better(t.items[b]) })
	return t.items
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
