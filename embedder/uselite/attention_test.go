package uselite

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Attention on each micro-kernel equals the float64 definition (softmax of
// scaled q.k over the sentence, times v), for sentence lengths on and off
// the panel width, up to the model's 128 tokens, several sentences a batch.
func TestAttentionKernelMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lengths := []int{1, 7, 16, 17, 31, 32, 33, 35, 64, 100, 128}
	for _, kern := range kernels() {
		for _, dims := range [][2]int{{256, 4}, {512, 4}} {
			l := &layer{dAtt: dims[0], heads: dims[1], scale: 0.125}
			dh := l.dAtt / l.heads
			var spans []span
			T := 0
			for _, n := range lengths {
				spans = append(spans, span{T, n})
				T += n
			}
			stride := 3 * l.dAtt
			qkv := make([]float32, T*stride)
			for i := range qkv {
				qkv[i] = 4 * (r.Float32() - 0.5)
			}
			att := make([]float32, T*l.dAtt)
			for i := range att {
				att[i] = float32(i%5) * 1e6 // must be overwritten
			}
			l.attendKernel(kern, qkv, att, spans, new(scratch))
			worst := 0.0
			for _, s := range spans {
				for hd := range l.heads {
					for i := range s.n {
						q := qkv[(s.off+i)*stride+hd*dh:][:dh]
						p := make([]float64, s.n)
						m := math.Inf(-1)
						for j := range s.n {
							k := qkv[(s.off+j)*stride+l.dAtt+hd*dh:][:dh]
							for d := range dh {
								p[j] += float64(q[d]) * float64(k[d])
							}
							p[j] *= float64(l.scale)
							m = math.Max(m, p[j])
						}
						sum := 0.0
						for j := range p {
							p[j] = math.Exp(p[j] - m)
							sum += p[j]
						}
						for d := range dh {
							want := 0.0
							for j := range s.n {
								want += p[j] / sum * float64(qkv[(s.off+j)*stride+2*l.dAtt+hd*dh+d])
							}
							got := float64(att[(s.off+i)*l.dAtt+hd*dh+d])
							worst = math.Max(worst, math.Abs(got-want))
							if math.Abs(got-want) > 1e-5 {
								t.Fatalf("%s d=%d len=%d head %d row %d col %d: %v, want %v", kern.name, l.dAtt, s.n, hd, i, d, got, want)
							}
						}
					}
				}
			}
			t.Logf("%s dAtt=%d: max abs error %.2g", kern.name, l.dAtt, worst)
		}
	}
}
