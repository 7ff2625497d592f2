package vindex

import "golang.org/x/sys/cpu"

// useAVX512 picks the assembly block kernel (eight float64 lanes per
// instruction); elsewhere the Go loop does the same sums.
var useAVX512 = cpu.X86.HasAVX512F

//go:noescape
func dotBlocksAVX512(q *float64, dim int, blocks *float32, nb int, out *float64)

func dotBlocks(q []float64, blocks []float32, nb int, out []float64) {
	if nb == 0 {
		return
	}
	if !useAVX512 || len(q) == 0 {
		dotBlocksGo(q, blocks, nb, out)
		return
	}
	_ = blocks[nb*lanes*len(q)-1] // the kernel does no bounds checks
	_ = out[nb*lanes-1]
	dotBlocksAVX512(&q[0], len(q), &blocks[0], nb, &out[0])
}

//go:noescape
func sumAVX512(p *float32, n int) float32

// readAll sums v as fast as the memory system delivers it: the bandwidth
// bound the search benchmarks are measured against.
func readAll(v []float32) float32 {
	n := len(v) &^ 63
	var s float32
	if useAVX512 && n > 0 {
		s = sumAVX512(&v[0], n)
	} else {
		n = 0
	}
	return s + sumGo(v[n:])
}

//go:noescape
func sumBlocksAVX512(p *float32, dim, nb int) float32

// readBlocks sums nb blocks of width dim read in the search kernel's
// order (four streams, prefetched): the other reading of the bound.
func readBlocks(v []float32, dim, nb int) float32 {
	n4 := nb &^ 3
	var s float32
	if useAVX512 && n4 > 0 && dim > 0 {
		s = sumBlocksAVX512(&v[0], dim, n4)
	} else {
		n4 = 0
	}
	return s + sumGo(v[n4*lanes*dim:nb*lanes*dim])
}
