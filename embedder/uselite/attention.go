package uselite

// Attention through the dense layers' micro-kernel. A LoCoMo turn is ~35
// tokens, so per head the products are 35x64 . 64x35 and 35x35 . 35x64:
// a small part of the encoder's arithmetic, but through gonum's general
// sgemm (no packing, SSE) they took a far larger share of its time. Here
// K^T and V are packed into the kernel's panels per sentence and head (a
// few KiB, in L1) and the same register-blocked kernel does both products.

// attendKernel is attend on kern; it needs the head width to be a multiple
// of the kernel's panel width (64 and 128 here, against 16 or 32).
func (l *layer) attendKernel(kern *kernel, qkv, att []float32, spans []span, sc *scratch) {
	dh := l.dAtt / l.heads
	nr := kern.nr
	stride := 3 * l.dAtt
	maxN := 0
	for _, s := range spans {
		maxN = max(maxN, s.n)
	}
	maxNP := (maxN + nr - 1) / nr * nr
	kt := sc.buf(slotKT, dh*maxNP)
	vp := sc.buf(slotVP, maxN*dh)
	scores := sc.buf(slotScores, maxN*maxNP)
	// The kernel's "set" mode (y = product + bias) with a zero bias saves
	// clearing the outputs first.
	zero := sc.buf(slotZero, max(maxNP, dh))
	clear(zero)
	for _, s := range spans {
		L := s.n
		if L == 0 {
			continue
		}
		LP := (L + nr - 1) / nr * nr
		base := s.off * stride
		for hd := 0; hd < l.heads; hd++ {
			q := base + hd*dh
			k := base + l.dAtt + hd*dh
			v := base + 2*l.dAtt + hd*dh
			// K^T as LP/nr panels of dh rows x nr keys; keys past L are
			// zero and their scores are never read.
			for t := range LP {
				p := kt[(t/nr)*dh*nr+t%nr:]
				if t >= L {
					for d := range dh {
						p[d*nr] = 0
					}
					continue
				}
				for d, x := range qkv[k+t*stride:][:dh] {
					p[d*nr] = x
				}
			}
			gemm(kern, qkv[q:], stride, L, dh, kt, LP, scores, LP, zero)
			for r := range L {
				softmax(scores[r*LP:][:L], l.scale)
			}
			// V as dh/nr panels of L rows x nr.
			for t := range L {
				row := qkv[v+t*stride:][:dh]
				for j := 0; j < dh/nr; j++ {
					copy(vp[j*L*nr+t*nr:][:nr], row[j*nr:])
				}
			}
			gemm(kern, scores, LP, L, L, vp[:L*dh], dh, att[s.off*l.dAtt+hd*dh:], l.dAtt, zero)
		}
	}
}
