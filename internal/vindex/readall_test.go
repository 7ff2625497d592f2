package vindex

import "testing"

func TestReadAllSums(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, 1000, 4096} {
		v := make([]float32, n)
		want := float32(0)
		for i := range v {
			v[i] = float32(i % 5)
			want += v[i]
		}
		if got := readAll(v); got != want { // small integers: exact in any order
			t.Errorf("readAll(%d floats) = %v, want %v", n, got, want)
		}
	}
}

// readBlocks sums the same floats as readAll, whatever the number of
// blocks (its four-at-a-time pass leaves 0 to 3) and the width.
func TestReadBlocksSums(t *testing.T) {
	saved := useAVX512
	defer func() { useAVX512 = saved }()
	for _, asm := range []bool{saved, false} {
		useAVX512 = asm
		for _, dim := range []int{0, 1, 3, 512} {
			for nb := range 10 {
				v := make([]float32, nb*lanes*dim+7) // floats past nb blocks are not read
				want := float32(0)
				for i := range v {
					v[i] = float32(i % 5)
					if i < nb*lanes*dim {
						want += v[i]
					}
				}
				if got := readBlocks(v, dim, nb); got != want {
					t.Errorf("asm=%v readBlocks(dim %d, %d blocks) = %v, want %v", asm, dim, nb, got, want)
				}
			}
		}
	}
}
