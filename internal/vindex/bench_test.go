package vindex

import (
	"fmt"
	"math/rand/v2"
	"sort"
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

// sumBound reads every stored float once, with the goroutines, shares and
// hand-out order Search uses (workers, split), with vector adds into
// independent accumulators (readAll): the time memory (or cache) needs to
// deliver the vectors, which no exact search can beat.
func sumBound(x *Index) float32 {
	n := len(x.ids)
	w := workers(n, x.dim)
	sums := make([]float32, w)
	split(n, w, func(w, lo, hi int) {
		for b := lo / lanes; b*lanes < hi; b++ {
			sums[w] += readAll(x.block(b))
		}
	})
	var s float32
	for _, v := range sums {
		s += v
	}
	return s
}

var sink float32

// BenchmarkSearch times a top-10 search and reports it as a multiple of
// the bandwidth bound (x-bound, 1.0 = as fast as reading the vectors) and
// of the previous sort-everything search (x-old). Each ratio is the median
// of runs taken in alternation, so a busy neighbour slows both sides alike.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{6_000, 60_000, 600_000} {
		b.Run(fmt.Sprintf("n=%dk", n/1000), func(b *testing.B) {
			x := benchIndex(n)
			q := make([]float32, 512)
			for j := range q {
				q[j] = float32(j%7) - 3
			}
			search := func() { x.Search(q, 10, nil) }
			xBound, bound := pairedRatio(search, func() { sink += sumBound(x) })
			xOld, _ := pairedRatio(search, func() { bruteForce(x, q, 10, nil) })
			b.ResetTimer()
			for b.Loop() {
				search()
			}
			per := float64(b.Elapsed()) / float64(b.N)
			b.ReportMetric(xBound, "x-bound")
			b.ReportMetric(xOld, "x-old")
			b.ReportMetric(float64(n*512*4)/per, "GB/s")
			b.ReportMetric(float64(n*512*4)/bound, "bound-GB/s")
		})
	}
}

// pairedRatio runs f and g in pairs (after one warm-up each) and returns
// the median of the time ratios f/g and g's median time (ns).
func pairedRatio(f, g func()) (ratio, gTime float64) {
	f()
	g()
	var rs, gs []float64
	for deadline := time.Now().Add(2 * time.Second); len(rs) < 5 || (len(rs) < 41 && time.Now().Before(deadline)); {
		// Which side goes first alternates, so neither always runs
		// just after the other.
		var tf, tg time.Duration
		if len(rs)%2 == 0 {
			tf, tg = timed(f), timed(g)
		} else {
			tg, tf = timed(g), timed(f)
		}
		rs = append(rs, float64(tf)/float64(tg))
		gs = append(gs, float64(tg))
	}
	return median(rs), median(gs)
}

func timed(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}

func median(v []float64) float64 {
	v = append([]float64(nil), v...)
	sort.Float64s(v)
	return v[len(v)/2]
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
