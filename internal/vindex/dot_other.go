//go:build !amd64

package vindex

// useAVX512 is always false here (no assembly kernel); the tests read and
// set it on every platform.
var useAVX512 = false

func dotBlocks(q []float64, blocks []float32, nb int, out []float64) {
	dotBlocksGo(q, blocks, nb, out)
}
