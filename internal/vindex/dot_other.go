//go:build !amd64

package vindex

func dotBlocks(q []float64, blocks []float32, nb int, out []float64) {
	dotBlocksGo(q, blocks, nb, out)
}

func readAll(v []float32) float32 { return sumGo(v) }
