package vindex

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
)

// benchIndex is n random 512-d unit vectors (built once per size).
var benchIndexes sync.Map

func benchIndex(n int) *Index {
	if x, ok := benchIndexes.Load(n); ok {
		return x.(*Index)
	}
	r := rand.New(rand.NewPCG(uint64(n), 9))
	x := New()
	x.ids = make([]string, 0, n)
	x.vecs = make([][]float32, 0, n)
	v := make([]float32, 512)
	for i := range n {
		for j := range v {
			v[j] = r.Float32() - 0.5
		}
		x.Add(fmt.Sprint(i), v)
	}
	benchIndexes.Store(n, x)
	return x
}

// sumBound reads every stored float once, on the same number of goroutines
// Search uses, with independent accumulators so the adds never wait on each
// other: the time memory (or cache) needs to deliver the vectors, which no
// exact search can beat.
func sumBound(x *Index) float32 {
	n := len(x.vecs)
	workers := 1
	if n*512 >= parallelMin {
		workers = min(runtime.GOMAXPROCS(0), n/64)
	}
	sums := make([]float32, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var a0, a1, a2, a3, a4, a5, a6, a7 float32
			for _, v := range x.vecs[w*n/workers : (w+1)*n/workers] {
				for j := 0; j+8 <= len(v); j += 8 {
					w := v[j : j+8 : j+8]
					a0 += w[0]
					a1 += w[1]
					a2 += w[2]
					a3 += w[3]
					a4 += w[4]
					a5 += w[5]
					a6 += w[6]
					a7 += w[7]
				}
			}
			sums[w] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
		}()
	}
	wg.Wait()
	var s float32
	for _, v := range sums {
		s += v
	}
	return s
}

var sink float32

// BenchmarkSearch times a top-10 search and reports it as a multiple of
// the bandwidth bound (x-bound, 1.0 = as fast as reading the vectors) and
// of the previous sort-everything search (x-old).
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{6_000, 60_000, 600_000} {
		b.Run(fmt.Sprintf("n=%dk", n/1000), func(b *testing.B) {
			x := benchIndex(n)
			q := make([]float32, 512)
			for j := range q {
				q[j] = float32(j%7) - 3
			}
			bound := timeEach(func() { sink += sumBound(x) })
			old := timeEach(func() { bruteForce(x, q, 10, nil) })
			b.ResetTimer()
			for b.Loop() {
				x.Search(q, 10, nil)
			}
			per := float64(b.Elapsed()) / float64(b.N)
			b.ReportMetric(per/bound, "x-bound")
			b.ReportMetric(per/old, "x-old")
			b.ReportMetric(float64(n*512*4)/per, "GB/s")
			b.ReportMetric(float64(n*512*4)/bound, "bound-GB/s")
		})
	}
}

// timeEach is the median duration of f over a few runs (ns).
func timeEach(f func()) float64 {
	f()
	var ds []time.Duration
	for deadline := time.Now().Add(time.Second); len(ds) < 5 || (len(ds) < 51 && time.Now().Before(deadline)); {
		t := time.Now()
		f()
		ds = append(ds, time.Since(t))
	}
	for i := range ds { // insertion sort: a handful of values
		for j := i; j > 0 && ds[j] < ds[j-1]; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
	return float64(ds[len(ds)/2])
}

// BenchmarkSearchBound and BenchmarkSearchOld time the two references alone,
// for a whole-process comparison with BenchmarkSearch.
func BenchmarkSearchBound(b *testing.B) {
	for _, n := range []int{6_000, 60_000, 600_000} {
		b.Run(fmt.Sprintf("n=%dk", n/1000), func(b *testing.B) {
			x := benchIndex(n)
			b.ResetTimer()
			for b.Loop() {
				sink += sumBound(x)
			}
		})
	}
}
