package vindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// BenchmarkSearch times a top-10 search and reports it as a multiple of
// the previous sort-everything search (x-old; its CPU-time counterpart
// x-old-cpu) and as the rate it reads the stored vectors (GB/s). The ratio
// is the median of runs taken in alternation, so a busy neighbour slows
// both sides alike.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{6_000, 60_000, 600_000} {
		b.Run(fmt.Sprintf("n=%dk", n/1000), func(b *testing.B) {
			x := benchIndex(n)
			q := make([]float32, 512)
			for j := range q {
				q[j] = float32(j%7) - 3
			}
			search := func() { x.Search(q, 10, nil) }
			vsOld := pairedRun(search, func() { bruteForce(x, q, 10, nil) })
			b.ResetTimer()
			for b.Loop() {
				search()
			}
			per := float64(b.Elapsed()) / float64(b.N)
			b.ReportMetric(vsOld.wall, "x-old")
			if vsOld.cpu > 0 {
				b.ReportMetric(vsOld.cpu, "x-old-cpu")
			}
			b.ReportMetric(float64(n*512*4)/per, "GB/s")
		})
	}
}

// paired is pairedRun's result: medians of the per-pair ratios f/g of wall
// time and of the process's CPU time (0 where the platform has no rusage).
type paired struct{ wall, cpu float64 }

// pairedRun times f against g alternately. Next to the wall-time ratio it
// keeps the ratio of CPU time (both workers' together): on a machine
// shared with other processes a descheduled worker adds wall time to
// whichever side it hits, not CPU time, so the CPU ratio says whether a
// wall ratio moved with the code or with the neighbours.
func pairedRun(f, g func()) paired {
	f()
	g()
	var rs, cs []float64
	// At least 11 pairs: at 600k a pair takes 50-150 ms on a busy
	// machine and single ratios ranged 0.6-3.5 under load 5.
	for deadline := time.Now().Add(3 * time.Second); len(rs) < 11 || (len(rs) < 41 && time.Now().Before(deadline)); {
		// Which side goes first alternates, so neither always runs
		// just after the other.
		var tf, tg, cf, cg time.Duration
		if len(rs)%2 == 0 {
			tf, cf = timed(f)
			tg, cg = timed(g)
		} else {
			tg, cg = timed(g)
			tf, cf = timed(f)
		}
		rs = append(rs, float64(tf)/float64(tg))
		if cg > 0 {
			cs = append(cs, float64(cf)/float64(cg))
		}
	}
	p := paired{wall: median(rs)}
	if len(cs) == len(rs) {
		p.cpu = median(cs)
	}
	return p
}

// timed returns f's wall time and the process's CPU time during it.
func timed(f func()) (wall, cpu time.Duration) {
	c0 := processCPU()
	t0 := time.Now()
	f()
	wall = time.Since(t0)
	return wall, processCPU() - c0
}

func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}
