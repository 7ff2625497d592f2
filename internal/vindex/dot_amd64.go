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
