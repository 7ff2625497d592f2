package vindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Vectors added after Grow, or added with no Grow at all, are stored as
// Normalize makes them (bit for bit, zero vectors and other widths
// included) and searched alike; after Grow the adds it made room for
// allocate no chunk.
func TestGrowAndAddStoreNormalized(t *testing.T) {
	const dim, n = 48, 2500
	rng := rand.New(rand.NewPCG(3, 5))
	vecs := make([][]float32, n)
	for i := range vecs {
		v := make([]float32, dim)
		switch i % 97 {
		case 5: // zero
		case 6:
			v[3] = float32(math.Copysign(0, -1))
		case 7:
			v = v[:dim-5] // another width: kept aside
		default:
			for j := range v {
				v[j] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(8)-4)))
			}
		}
		vecs[i] = v
	}
	plain, grown, pieces := New(), New(), New()
	grown.Grow(n, dim)
	for i, v := range vecs {
		id := fmt.Sprint(i)
		if i == 0 || i == 1100 {
			pieces.Grow(1100, dim)
		}
		plain.Add(id, v)
		grown.Add(id, v)
		pieces.Add(id, v)
	}
	for name, x := range map[string]*Index{"plain": plain, "grown": grown, "pieces": pieces} {
		for i, v := range vecs {
			got, want := x.vector(i), Normalize(v)
			if len(got) != len(want) {
				t.Fatalf("%s: vector %d has width %d, want %d", name, i, len(got), len(want))
			}
			for j := range want {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("%s: vector %d[%d] = %v, Normalize gives %v", name, i, j, got[j], want[j])
				}
			}
		}
		for q := range 5 {
			a, b := plain.Search(vecs[q*31], 10, nil), x.Search(vecs[q*31], 10, nil)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("%s: search %d = %v, plain index gives %v", name, q, b, a)
			}
		}
	}
	// Room made: adding what Grow announced keeps the first chunk in place.
	x := New()
	x.Grow(700, dim)
	x.Add("0", vecs[0])
	first := &x.chunks[0][:1][0]
	for i := 1; i < 700; i++ {
		x.Add(fmt.Sprint(i), vecs[i%len(vecs)][:dim:dim])
	}
	if len(x.chunks) != 1 || &x.chunks[0][:1][0] != first {
		t.Errorf("adds after Grow(700) moved or split the chunk (%d chunks)", len(x.chunks))
	}
}
