package vindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
)

// Sparse returns what Index returns, bit for bit and in the same order,
// on sparse vectors with signed components (negative scores, so vectors
// sharing nothing with the query, scored zero, rank above them), repeated
// vectors (ties), zero vectors, -0 components, vectors and queries of
// another width, for every k.
func TestSparseEqualsIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 4))
	const dim = 64
	for _, n := range []int{0, 1, 7, 40, 300} {
		dense, sparse, given := New(), NewSparse(dim), NewSparse(dim)
		vecs := make([][]float32, n)
		for i := range vecs {
			v := make([]float32, dim)
			switch {
			case i%11 == 3 && i > 0:
				copy(v, vecs[i-1]) // a tie
			case i%13 == 5: // zero
			case i%17 == 6:
				v[2] = float32(math.Copysign(0, -1))
				v[9] = 0.5
			case i%19 == 7:
				v = make([]float32, dim-3) // another width
				v[1] = 1
			default:
				for range 1 + rng.IntN(6) {
					v[rng.IntN(dim)] = float32(rng.NormFloat64())
				}
			}
			vecs[i] = v
			dense.Add(strconv.Itoa(i), v)
			sparse.Add(v)
			idx, val := nonzeros(v)
			given.AddSparse(len(v), idx, val)
		}
		if sparse.Len() != n {
			t.Fatalf("Len = %d, want %d", sparse.Len(), n)
		}
		for qi := range 30 {
			q := make([]float32, dim)
			for range 1 + rng.IntN(8) {
				q[rng.IntN(dim)] = float32(rng.NormFloat64())
			}
			switch qi {
			case 0:
				q = q[:dim-10] // a query of another width
			case 1:
				clear(q)
			case 2:
				if n > 0 {
					q = vecs[n/2]
				}
			}
			for _, k := range []int{1, 3, 10, n, n + 5, 0} {
				want := dense.Search(q, k, nil)
				idx, val := nonzeros(q)
				for way, got := range map[string][]Hit{"Search": sparse.Search(q, k), "SearchSparse": given.SearchSparse(len(q), idx, val, k)} {
					if len(got) != len(want) {
						t.Fatalf("n %d query %d k %d: %s gives %d hits, Index %d", n, qi, k, way, len(got), len(want))
					}
					for i := range want {
						if got[i].ID != want[i].ID || got[i].Index != want[i].Index || math.Float64bits(got[i].Score) != math.Float64bits(want[i].Score) {
							t.Fatalf("n %d query %d k %d hit %d: %s gives %+v, Index %+v", n, qi, k, i, way, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// Adding and searching from several goroutines at once, both ways and
// with vectors of another width (the odd map), is safe (run with -race)
// and loses no vector.
func TestSparseConcurrent(t *testing.T) {
	const dim, per = 32, 200
	x := NewSparse(dim)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for i := range per {
				v := make([]float32, dim)
				if i%50 == 7 {
					v = make([]float32, dim-1) // another width
				}
				v[rng.IntN(len(v))] = float32(rng.NormFloat64())
				idx, val := nonzeros(v)
				if g%2 == 0 {
					x.Add(v)
				} else {
					x.AddSparse(len(v), idx, val)
				}
				if hits := x.SearchSparse(len(v), idx, val, 3); len(hits) == 0 {
					t.Error("SearchSparse found nothing after an add")
					return
				}
				x.Search(v, 3)
			}
		}()
	}
	wg.Wait()
	if x.Len() != 4*per {
		t.Fatalf("Len = %d after %d adds", x.Len(), 4*per)
	}
}

// nonzeros is v's nonzero components, as AddSparse and SearchSparse take them.
func nonzeros(v []float32) (idx []int32, val []float32) {
	for j, f := range v {
		if f != 0 {
			idx, val = append(idx, int32(j)), append(val, f)
		}
	}
	return idx, val
}

func BenchmarkSparseSearch(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const dim, n = 512, 600
	dense, sparse := New(), NewSparse(dim)
	for i := range n {
		v := make([]float32, dim)
		for range 40 {
			v[rng.IntN(dim)] = float32(rng.NormFloat64())
		}
		dense.Add(fmt.Sprint(i), v)
		sparse.Add(v)
	}
	q := make([]float32, dim)
	for range 15 {
		q[rng.IntN(dim)] = float32(rng.NormFloat64())
	}
	b.Run("sparse", func(b *testing.B) {
		for b.Loop() {
			sparse.Search(q, 10)
		}
	})
	b.Run("dense", func(b *testing.B) {
		for b.Loop() {
			dense.Search(q, 10, nil)
		}
	})
}
