package vindex

import (
	"math"
	"sort"
	"strconv"
	"sync"
)

// Sparse is exact cosine top-k for vectors with few nonzero components,
// such as the hashed embedder's (a LoCoMo turn sets about 40 of 512): each
// component keeps the list of vectors that use it, so a search multiplies
// only the components a vector shares with the query. Its results equal
// Index's bit for bit (the test holds them equal): vectors are normalised
// as Index.Add does, each vector's products are summed in component order
// as Dot does (a skipped product is ±0, which leaves a sum unchanged), and
// ties go to the earlier insertion. Ids are insertion positions
// (strconv.Itoa). Safe for concurrent use.
type Sparse struct {
	mu   sync.RWMutex
	dim  int
	n    int
	post [][]posting       // by component: the vectors with a nonzero there
	odd  map[int][]float32 // vectors of another width, scored with Dot
}

type posting struct {
	i int32
	v float32
}

// NewSparse returns an empty index for vectors of width dim.
func NewSparse(dim int) *Sparse { return &Sparse{dim: dim, post: make([][]posting, dim)} }

// Len is the number of stored vectors.
func (x *Sparse) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.n
}

// Add stores v (normalised on the way in) at the next position.
func (x *Sparse) Add(v []float32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	i := x.n
	x.n++
	if len(v) != x.dim {
		if x.odd == nil {
			x.odd = map[int][]float32{}
		}
		x.odd[i] = Normalize(v)
		return
	}
	// Normalize's arithmetic; a zero component stays zero and is not kept
	// (a zero vector has only those).
	inv := invNorm(v)
	for j, f := range v {
		if f != 0 {
			x.post[j] = append(x.post[j], posting{int32(i), float32(float64(f) * inv)})
		}
	}
}

// AddSparse stores the vector of width dim whose nonzero components are
// val at idx (increasing, no zeros), exactly as Add stores its dense form:
// the same norm, summed in component order, and the same postings.
func (x *Sparse) AddSparse(dim int, idx []int32, val []float32) {
	if dim != x.dim {
		x.Add(Densify(dim, idx, val))
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	i := x.n
	x.n++
	inv := invNorm(val) // the zeros add nothing to the sum
	for j, c := range idx {
		if f := val[j]; f != 0 {
			x.post[c] = append(x.post[c], posting{int32(i), float32(float64(f) * inv)})
		}
	}
}

// Densify is the vector of width dim whose nonzero components are val at
// idx, with its zeros.
func Densify(dim int, idx []int32, val []float32) []float32 {
	v := make([]float32, dim)
	for j, c := range idx {
		v[c] = val[j]
	}
	return v
}

var scoreBufs = sync.Pool{New: func() any { return new([]float64) }}

// Search returns the k most similar vectors (all when k <= 0), best first.
func (x *Sparse) Search(q []float32, k int) []Hit {
	// Normalize's arithmetic on the query's nonzero components only,
	// without its copy (a zero component is skipped either way).
	inv := invNorm(q)
	return x.search(k, func(acc []float64) { x.scoreDense(acc, q, inv) })
}

// SearchSparse is Search of the vector of width dim whose nonzero
// components are val at idx (increasing), bit for bit.
func (x *Sparse) SearchSparse(dim int, idx []int32, val []float32, k int) []Hit {
	inv := invNorm(val) // the zeros add nothing to the sum
	return x.search(k, func(acc []float64) {
		if dim != x.dim || len(x.odd) > 0 {
			x.scoreDense(acc, Densify(dim, idx, val), inv)
			return
		}
		for j, c := range idx {
			x.scatter(acc, int(c), val[j], inv)
		}
	})
}

// search runs score on a zeroed score per stored vector, under the read
// lock, and returns the k best.
func (x *Sparse) search(k int, score func(acc []float64)) []Hit {
	x.mu.RLock()
	defer x.mu.RUnlock()
	bp := scoreBufs.Get().(*[]float64)
	defer scoreBufs.Put(bp)
	if cap(*bp) < x.n {
		*bp = make([]float64, x.n)
	}
	acc := (*bp)[:x.n]
	clear(acc)
	score(acc)
	return x.top(acc, k)
}

// scoreDense scores the dense query q, of inverse norm inv.
func (x *Sparse) scoreDense(acc []float64, q []float32, inv float64) {
	// Dot's common prefix when the query has another width.
	for j := range min(len(q), x.dim) {
		x.scatter(acc, j, q[j], inv)
	}
	if len(x.odd) > 0 {
		u := Normalize(q)
		for i, v := range x.odd {
			acc[i] = Dot(u, v)
		}
	}
}

// sumSquares is v's squared norm, summed in float64 in component order as
// Normalize sums it.
func sumSquares(v []float32) float64 {
	var ss float64
	for _, f := range v {
		ss += float64(f) * float64(f)
	}
	return ss
}

// invNorm is 1 over v's norm; 0 for a zero vector.
func invNorm(v []float32) float64 {
	if ss := sumSquares(v); ss != 0 {
		return 1 / math.Sqrt(ss)
	}
	return 0
}

// scatter adds component j's products with the query's component f (times
// inv, the query's inverse norm) to the vectors that have one there.
func (x *Sparse) scatter(acc []float64, j int, f float32, inv float64) {
	uj := float32(float64(f) * inv)
	if uj == 0 {
		return
	}
	qf := float64(uj)
	for _, p := range x.post[j] {
		acc[p.i] += float64(qf * float64(p.v))
	}
}

// top is the k best of acc (all when k <= 0) as hits, best first.
func (x *Sparse) top(acc []float64, k int) []Hit {
	var cands []cand
	if k <= 0 || k >= x.n {
		cands = make([]cand, x.n)
		for i, s := range acc {
			cands[i] = cand{s, i}
		}
		sort.Slice(cands, func(a, b int) bool { return cands[a].better(cands[b]) })
	} else {
		top := topK{k: k, items: make([]cand, 0, k)}
		for i, s := range acc {
			if len(top.items) == k && s < top.items[0].s {
				continue
			}
			top.offer(cand{s, i})
		}
		cands = top.sorted()
	}
	out := make([]Hit, len(cands))
	for i, c := range cands {
		out[i] = Hit{ID: strconv.Itoa(c.i), Score: c.s, Index: c.i}
	}
	return out
}
