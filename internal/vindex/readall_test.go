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
