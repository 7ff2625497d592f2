// Package vindex is the program's one vector index: exact cosine top-k over
// unit vectors. Memory sizes here (thousands of entries per conversation)
// make exact search cheaper than any approximate structure.
package vindex

import (
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// Hit is one search result.
type Hit struct {
	ID    string
	Score float64 // cosine similarity
	Index int     // insertion order, stable tie-break
}

// Index holds vectors by id. Safe for concurrent use.
//
// Vectors of the index's width (that of the first one added) are stored in
// blocks of sixteen, interleaved by component (block[j*16+lane], one cache
// line per component), so a search scores eight vectors per vector
// instruction while each lane still sums in Dot's order: scores are
// bit-identical to Dot.
// Vectors of another width (rare) are kept aside and scored with Dot.
type Index struct {
	mu     sync.RWMutex
	ids    []string
	pos    map[string]int
	dim    int         // width of blocked vectors; 0 until the first Add
	chunks [][]float32 // up to chunkBlocks blocks of 16*dim floats each
	odd    map[int][]float32
}

const (
	lanes       = 16
	chunkBlocks = 64 // 1,024 vectors per chunk: growth never copies the index
)

// New returns an empty index.
func New() *Index { return &Index{pos: map[string]int{}} }

// Grow makes room for n more vectors of the index's width (that of the
// first one added; give it as dim before any): an ingest that knows how
// many it will add allocates its chunk once instead of doubling it (each
// doubling copied the vectors so far and left the old chunk as garbage).
func (x *Index) Grow(n, dim int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.dim == 0 && len(x.ids) == 0 {
		x.dim = dim
	}
	if x.dim == 0 || n <= 0 {
		return
	}
	bs := lanes * x.dim
	// Blocks the last chunk will need, up to its limit; later chunks start
	// at their full size anyway once the first one fills.
	used := len(x.ids) % (chunkBlocks * lanes)
	want := min((used+n+lanes-1)/lanes, chunkBlocks) * bs
	if len(x.chunks) == 0 || len(x.ids)%(chunkBlocks*lanes) == 0 && len(x.ids) > 0 {
		x.chunks = append(x.chunks, make([]float32, 0, want))
		return
	}
	last := &x.chunks[len(x.chunks)-1]
	if cap(*last) < want {
		grown := make([]float32, len(*last), want)
		copy(grown, *last)
		*last = grown
	}
}

// Add stores (or replaces) a vector; it is normalised on the way in.
func (x *Index) Add(id string, v []float32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.dim == 0 && len(x.ids) == 0 {
		x.dim = len(v)
	}
	var u []float32
	if len(v) != x.dim || x.dim == 0 {
		u = Normalize(v) // kept aside; blocked vectors are normalised in place below
	}
	i, ok := x.pos[id]
	if !ok {
		i = len(x.ids)
		x.pos[id] = i
		x.ids = append(x.ids, id)
		if i%lanes == 0 && x.dim > 0 { // a new block
			// Chunks grow by append up to chunkBlocks blocks, so a small
			// index holds little more than its vectors.
			bs := lanes * x.dim
			if len(x.chunks) == 0 || len(x.chunks[len(x.chunks)-1]) == chunkBlocks*bs {
				x.chunks = append(x.chunks, nil)
			}
			last := &x.chunks[len(x.chunks)-1]
			if cap(*last)-len(*last) < bs {
				// Double (append grows large slices by 1.25x, which
				// copied a conversation's vectors many times over).
				grown := make([]float32, len(*last), min(max(2*cap(*last), 4*bs), chunkBlocks*bs))
				copy(grown, *last)
				*last = grown
			}
			*last = (*last)[:len(*last)+bs]
		}
	}
	if u != nil {
		if x.odd == nil {
			x.odd = map[int][]float32{}
		}
		x.odd[i] = u
	} else {
		delete(x.odd, i)
	}
	if x.dim == 0 {
		return
	}
	blk, lane := x.block(i/lanes), i%lanes
	// Normalize's arithmetic, written straight into the block; a vector
	// kept aside leaves zeros in its lanes.
	inv := invNorm(v)
	if u != nil || inv == 0 {
		for j := range x.dim {
			blk[j*lanes+lane] = 0
		}
		return
	}
	for j, f := range v {
		blk[j*lanes+lane] = float32(float64(f) * inv)
	}
}

// block returns block b's 8*dim floats.
func (x *Index) block(b int) []float32 {
	n := lanes * x.dim
	return x.chunks[b/chunkBlocks][(b%chunkBlocks)*n:][:n]
}

// vector copies out stored vector i.
func (x *Index) vector(i int) []float32 {
	if v, ok := x.odd[i]; ok {
		return v
	}
	blk, lane := x.block(i/lanes), i%lanes
	v := make([]float32, x.dim)
	for j := range v {
		v[j] = blk[j*lanes+lane]
	}
	return v
}

// Len is the number of stored vectors.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ids)
}

// parallelMin is the number of stored floats from which an unfiltered
// search is split over the cores: below it, goroutine start-up costs more
// than the scan.
const parallelMin = 1 << 18

// shareBlocks is the unit of a parallel scan: 16 blocks (256 vectors,
// 512 KB at 512-d), small enough that the cores finish within a share of
// each other, large enough that handing one out costs nothing measurable.
// chunkBlocks is a multiple, so a share never straddles two chunks.
const shareBlocks = 16

// workers is the number of goroutines an unfiltered search over n vectors
// of width dim uses.
func workers(n, dim int) int {
	if n*dim < parallelMin {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), shares(n)))
}

func shares(n int) int { return (n + shareBlocks*lanes - 1) / (shareBlocks * lanes) }

// split calls work(w, lo, hi) for every share [lo, hi) of [0, n) on
// workers goroutines (the caller is worker 0). Shares are handed out in
// order by a counter rather than as fixed halves: on a shared machine a
// worker whose core is taken away does fewer shares instead of leaving the
// others idle at the end.
func split(n, workers int, work func(w, lo, hi int)) {
	total := shares(n)
	var next atomic.Int64
	run := func(w int) {
		for {
			s := int(next.Add(1)) - 1
			if s >= total {
				return
			}
			work(w, s*shareBlocks*lanes, min((s+1)*shareBlocks*lanes, n))
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Go(func() { run(w) })
	}
	run(0)
	wg.Wait()
}

// Search returns the k most similar ids (all when k <= 0), best first; ties
// go to the earlier insertion. filter, when non-nil, keeps only ids it
// accepts; it is called from the calling goroutine only, in insertion
// order, so it need not be safe for concurrent use.
//
// Top-k keeps a bounded heap (no N-element allocation) and, for large
// unfiltered indexes, the cores take shares of the blocks in turn, each
// keeping its own heap; the heaps are merged at the end.
func (x *Index) Search(q []float32, k int, filter func(id string) bool) []Hit {
	u := Normalize(q)
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := len(x.ids)
	qd := make([]float64, len(u))
	for j, v := range u {
		qd[j] = float64(v)
	}
	if k <= 0 || k >= n {
		cands := make([]cand, 0, n)
		x.each(u, qd, 0, n, filter, nil, func(c cand) { cands = append(cands, c) })
		sort.Slice(cands, func(a, b int) bool { return cands[a].better(cands[b]) })
		return x.hits(cands)
	}
	w := 1
	if filter == nil {
		w = workers(n, len(u))
	}
	parts := make([]topK, w)
	offers := make([]func(cand), w)
	for i := range parts {
		parts[i] = topK{k: k, items: make([]cand, 0, k)}
		offers[i] = parts[i].offer
	}
	if w == 1 {
		x.each(u, qd, 0, n, filter, &parts[0], offers[0])
	} else {
		split(n, w, func(w, lo, hi int) { x.each(u, qd, lo, hi, nil, &parts[w], offers[w]) })
	}
	top := parts[0]
	for _, p := range parts[1:] {
		for _, c := range p.items {
			top.offer(c)
		}
	}
	return x.hits(top.sorted())
}

func (x *Index) hits(cs []cand) []Hit {
	out := make([]Hit, len(cs))
	for i, c := range cs {
		out[i] = Hit{ID: x.ids[c.i], Score: c.s, Index: c.i}
	}
	return out
}

// each scores vectors [lo, hi) (lo a multiple of 16) in order and passes
// the accepted ones to f; qd is u in float64. With top set (f is its
// offer), a score below the worst kept one is dropped without a call: most
// of them, for a small k.
func (x *Index) each(u []float32, qd []float64, lo, hi int, filter func(string) bool, top *topK, f func(cand)) {
	if lo >= hi {
		return
	}
	if len(u) != x.dim { // a query of another width: Dot's common-prefix rule
		for i := lo; i < hi; i++ {
			if filter == nil || filter(x.ids[i]) {
				f(cand{Dot(u, x.vector(i)), i})
			}
		}
		return
	}
	var scores [shareBlocks * lanes]float64
	odd := len(x.odd) > 0
	for b := lo / lanes; b*lanes < hi; {
		// Up to a share of blocks within one chunk, scored in one call.
		c := b / chunkBlocks
		end := min((c+1)*chunkBlocks, b+shareBlocks, (hi+lanes-1)/lanes)
		ch := x.chunks[c][(b%chunkBlocks)*lanes*x.dim:]
		dotBlocks(qd, ch, end-b, scores[:(end-b)*lanes])
		for i := b * lanes; i < min(end*lanes, hi); i++ {
			if filter != nil && !filter(x.ids[i]) {
				continue
			}
			s := scores[i-b*lanes]
			if top != nil && !odd && len(top.items) == top.k && s < top.items[0].s {
				continue
			}
			if odd {
				if v, ok := x.odd[i]; ok {
					s = Dot(u, v)
				}
			}
			f(cand{s, i})
		}
		b = end
	}
}

// dotBlocksGo scores nb blocks of 16 interleaved vectors against q into
// out (16 per block). Each lane sums exactly as Dot does; the lanes are
// independent chains, so they overlap instead of waiting on one add.
func dotBlocksGo(q []float64, blocks []float32, nb int, out []float64) {
	dim := len(q)
	for b := range nb {
		blk := blocks[b*lanes*dim:][:lanes*dim]
		s := out[b*lanes:][:lanes]
		clear(s)
		for j, qf := range q {
			c := blk[j*lanes:][:lanes]
			for l := range s {
				s[l] += float64(qf * float64(c[l])) // the conversion keeps Go from fusing into an FMA
			}
		}
	}
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

// Dot is the inner product (the cosine for unit vectors). Each product is
// rounded to float64 before it is added (the explicit conversion forbids a
// fused multiply-add), which the block kernels reproduce lane by lane. (The
// assembly kernel does fuse them: a product of two float32 values is exact
// in float64, so the single rounding of the fused add is the same.)
func Dot(a, b []float32) float64 {
	var s float64
	for i := range min(len(a), len(b)) {
		s += float64(float64(a[i]) * float64(b[i]))
	}
	return s
}

// Normalize returns v scaled to unit length (a zero vector stays zero).
func Normalize(v []float32) []float32 {
	s := sumSquares(v)
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
