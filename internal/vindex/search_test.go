package vindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
)

// bruteForce is the previous Search: score every accepted vector, sort them
// all by (score desc, insertion asc), cut to k. The reference ordering.
func bruteForce(x *Index, q []float32, k int, filter func(string) bool) []Hit {
	u := Normalize(q)
	x.mu.RLock()
	hits := make([]Hit, 0, len(x.ids))
	for i := range x.ids {
		if filter != nil && !filter(x.ids[i]) {
			continue
		}
		hits = append(hits, Hit{ID: x.ids[i], Score: Dot(u, x.vector(i)), Index: i})
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

// randomIndex fills an index with n vectors of width dim. With levels > 0
// the components take only that many values, so many scores tie exactly.
func randomIndex(r *rand.Rand, n, dim, levels int) *Index {
	x := New()
	for i := range n {
		v := make([]float32, dim)
		for j := range v {
			if levels > 0 {
				v[j] = float32(r.IntN(levels) - levels/2)
			} else {
				v[j] = float32(r.NormFloat64())
			}
		}
		x.Add(fmt.Sprintf("id%d", i), v)
	}
	return x
}

func sameHits(t *testing.T, what string, got, want []Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] { // score bits, id and index all equal
			t.Fatalf("%s: hit %d = %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

// bothKernels runs f with the assembly block kernel (where the CPU has
// one) and with the Go loop.
func bothKernels(t *testing.T, f func(t *testing.T)) {
	saved := useAVX512
	defer func() { useAVX512 = saved }()
	for _, asm := range []bool{true, false} {
		if asm && !saved {
			continue
		}
		useAVX512 = asm
		t.Run(fmt.Sprint("asm=", asm), f)
	}
}

func TestSearchEqualsBruteForce(t *testing.T) { bothKernels(t, testSearchEqualsBruteForce) }

func testSearchEqualsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []struct{ n, dim, levels int }{
		{0, 4, 0}, {1, 4, 0}, {7, 3, 3}, {100, 16, 0}, {1000, 4, 3}, // small: one goroutine
		{5000, 64, 0}, {40000, 8, 3}, {17001, 16, 2}, // above parallelMin: split over cores
	}
	for _, c := range cases {
		x := randomIndex(r, c.n, c.dim, c.levels)
		for trial := range 5 {
			if c.n > 4000 && trial%2 == 1 {
				continue // large cases: three queries (one of them zero) keep CI's race run short
			}
			q := make([]float32, c.dim)
			for j := range q {
				if c.levels > 0 {
					q[j] = float32(r.IntN(c.levels) - c.levels/2)
				} else {
					q[j] = float32(r.NormFloat64())
				}
			}
			if trial == 4 {
				clear(q) // a zero query: every score ties at 0
			}
			keepOdd := func(id string) bool { return id[len(id)-1]%2 == 1 }
			for _, k := range []int{-1, 0, 1, 2, 10, 37, c.n - 1, c.n, c.n + 5} {
				what := fmt.Sprintf("n=%d dim=%d levels=%d trial=%d k=%d", c.n, c.dim, c.levels, trial, k)
				sameHits(t, what, x.Search(q, k, nil), bruteForce(x, q, k, nil))
				sameHits(t, what+" filtered", x.Search(q, k, keepOdd), bruteForce(x, q, k, keepOdd))
			}
		}
	}
}

// Vectors of other widths than the index's fall back to Dot's common-prefix
// rule wherever they sit in a block; replacing a vector by one of another
// width (and back) moves it in and out of its block.
func TestSearchMixedWidths(t *testing.T) { bothKernels(t, testSearchMixedWidths) }

func testSearchMixedWidths(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := New()
	for i := range 50 {
		dim := 6
		if i%7 == 3 {
			dim = 4 + i%3
		}
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		x.Add(fmt.Sprint(i), v)
	}
	check := func(when string) {
		for _, q := range [][]float32{{1, 2, 3, 4, 5, 6}, {1, -2, 3}, {2, 1, 0, 0, 1, 2, 3}} {
			for _, k := range []int{0, 3, 10} {
				what := fmt.Sprint(when, " q=", q, " k=", k)
				sameHits(t, what, x.Search(q, k, nil), bruteForce(x, q, k, nil))
			}
		}
	}
	check("mixed")
	x.Add("3", []float32{1, 1, 1, 1, 1, 1}) // odd -> blocked
	x.Add("8", []float32{1, 1})             // blocked -> odd
	check("after replacing")
	x.Add("8", []float32{0, 0, 0, 0, 0, 1}) // and back
	check("after replacing back")
}

func TestSearchConcurrentWithParallelScan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randomIndex(r, 600, 512, 0) // above parallelMin
	q := make([]float32, 512)
	for j := range q {
		q[j] = float32(r.NormFloat64())
	}
	want := bruteForce(x, q, 10, nil)
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got := x.Search(q, 10, nil)
				for i := range got {
					if got[i] != want[i] {
						t.Errorf("concurrent search hit %d = %+v, want %+v", i, got[i], want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestSearchAllocatesNoPerVectorList(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x := randomIndex(r, 5000, 32, 0)
	q := make([]float32, 32)
	q[0] = 1
	// Normalize(q), the heap of k and the k hits: a few small allocations,
	// none that grow with the index.
	allocs := testing.AllocsPerRun(20, func() { x.Search(q, 10, nil) })
	bytes := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x.Search(q, 10, nil)
		}
	}).AllocedBytesPerOp()
	if allocs > 12 || bytes > 4096 {
		t.Fatalf("Search(k=10) over 5000 vectors: %.0f allocs, %d B per call; want no N-element list", allocs, bytes)
	}
}

// The block kernel against Dot, lane by lane, for every count of blocks
// the four-at-a-time pass leaves over (0 to 3, before and after full
// passes) and widths from 1 up, with components spread over many orders of
// magnitude (subnormals and signed zeros included) so every add rounds.
func TestDotBlocksEqualsDot(t *testing.T) { bothKernels(t, testDotBlocksEqualsDot) }

func testDotBlocksEqualsDot(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	comp := func() float32 {
		switch r.IntN(10) {
		case 0:
			return float32(math.Copysign(0, r.NormFloat64()))
		case 1:
			return float32(r.NormFloat64() * 1e-41) // subnormal
		default:
			return float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20)))
		}
	}
	for _, dim := range []int{1, 2, 3, 7, 16, 33, 512} {
		for nb := range 10 {
			q := make([]float32, dim)
			for j := range q {
				q[j] = comp()
			}
			qd := make([]float64, dim)
			for j, v := range q {
				qd[j] = float64(v)
			}
			blocks := make([]float32, nb*lanes*dim)
			for i := range blocks {
				blocks[i] = comp()
			}
			out := make([]float64, nb*lanes+1)
			out[nb*lanes] = 42 // the kernel writes nothing past nb blocks
			dotBlocks(qd, blocks, nb, out[:nb*lanes])
			for b := range nb {
				for l := range lanes {
					v := make([]float32, dim)
					for j := range v {
						v[j] = blocks[b*lanes*dim+j*lanes+l]
					}
					want := Dot(q, v)
					if got := out[b*lanes+l]; math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("dim=%d nb=%d block %d lane %d: %v (%#x), Dot %v (%#x)", dim, nb, b, l, got, math.Float64bits(got), want, math.Float64bits(want))
					}
				}
			}
			if out[nb*lanes] != 42 {
				t.Fatalf("dim=%d nb=%d: wrote past the last block", dim, nb)
			}
		}
	}
}

// Sizes around the parallel threshold whose last share holds every count
// of blocks the kernel's four-at-a-time pass leaves over, with a partial
// last block, split over more workers than cores.
func TestSearchShareTails(t *testing.T) { bothKernels(t, testSearchShareTails) }

func testSearchShareTails(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const dim = 64
	base := parallelMin/dim + 3*shareBlocks*lanes // several shares
	for _, n := range []int{base, base + 1, base + 15, base + 16, base + 17, base + 3*lanes + 5, base + 5*lanes, base + 13*lanes + 1} {
		x := randomIndex(r, n, dim, 0)
		if workers(n, dim) < 2 && runtime.GOMAXPROCS(0) > 1 {
			t.Fatalf("n=%d dim=%d: %d worker, want the parallel path", n, dim, workers(n, dim))
		}
		q := make([]float32, dim)
		for j := range q {
			q[j] = float32(r.NormFloat64())
		}
		for _, k := range []int{1, 10, 300} {
			sameHits(t, fmt.Sprintf("n=%d k=%d", n, k), x.Search(q, k, nil), bruteForce(x, q, k, nil))
		}
	}
}

// split hands out every share exactly once, whatever the number of
// workers, and names workers 0 to workers-1.
func TestSplitCoversOnce(t *testing.T) {
	for _, n := range []int{1, 255, 256, 257, 5000, 65536} {
		for _, w := range []int{1, 2, 3, 8} {
			seen := make([]atomic.Int32, n)
			var bad atomic.Int32
			split(n, w, func(worker, lo, hi int) {
				if worker < 0 || worker >= w || lo%lanes != 0 || hi > n || lo >= hi {
					bad.Add(1)
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			if bad.Load() > 0 {
				t.Fatalf("n=%d workers=%d: %d bad shares", n, w, bad.Load())
			}
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("n=%d workers=%d: vector %d scanned %d times", n, w, i, c)
				}
			}
		}
	}
}
