//go:build !amd64

package vindex

// useAVX512 is always false here (no assembly kernel); the tests read and
// set it on every platform.
var useAVX512 = false

func dotBlocks(q []float64, blocks []float32, nb int, out []float64) {
	dotBlocksGo(q, blocks, nb, out)
}

func readAll(v []float32) float32 { return sumGo(v) }

func readBlocks(v []float32, dim, nb int) float32 { return sumGo(v[:nb*lanes*dim]) }
