package uselite

import (
	"os"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// The dense layers are nearly all of the encoder's time. On amd64 they run
// through a register-blocked assembly micro-kernel (AVX-512 or AVX2+FMA,
// chosen at start-up from what the CPU reports) over weights packed once
// at load; elsewhere, or with MEMBENCH_USELITE_GEMM=gonum, through gonum's
// blas32.
// The kernels only reorder the sums (and fuse multiply-adds), so vectors
// agree with the reference to float32 rounding (see the golden test).

// kernel is a micro-kernel: c[0:mr][0:nr] += a[0:mr][0:k] . b, for a with
// row stride lda, b a packed panel (k rows of nr contiguous floats) and c
// with row stride ldc; with bias non-nil, c = a . b + bias[0:nr] in every
// row instead (a dense layer's bias costs no pass of its own).
//
// A kernel with whole set instead (the optional OpenBLAS build) takes the
// unpacked product in one call.
type kernel struct {
	name   string
	mr, nr int
	fn     func(k int, a *float32, lda int, b *float32, c *float32, ldc int, bias *float32)
	whole  func(x []float32, rows, k int, w []float32, n int, y []float32)
}

// Blocking: a kc-deep slice of one packed panel (kc*nr floats, 32 KiB at
// nr=32) stays in L1 while every mr-row strip of an mc x kc block of the
// input (96 KiB, in L2) passes over it.
const (
	kc    = 256
	mc    = 96
	maxMR = 8
	maxNR = 32
)

// defaultKernel is the best kernel here, nil for gonum.
var defaultKernel = func() *kernel {
	ks := append(buildKernels, kernels()...)
	if len(ks) == 0 || os.Getenv("MEMBENCH_USELITE_GEMM") == "gonum" {
		return nil
	}
	return ks[0]
}()

// matrix is a constant k x n weight matrix (row-major), packed for a
// kernel when there is one.
type matrix struct {
	k, n   int
	w      []float32
	kern   *kernel
	panels []float32 // n/nr panels, each k rows of nr floats
}

// buildKernels are kernels a build tag adds (OpenBLAS), preferred when present.
var buildKernels []*kernel

func newMatrix(w []float32, k, n int, kern *kernel) *matrix {
	m := &matrix{k: k, n: n, w: w}
	if kern != nil && kern.whole != nil && k > 0 {
		m.kern = kern
		return m
	}
	if kern == nil || n%kern.nr != 0 || k == 0 {
		return m
	}
	m.kern = kern
	nr := kern.nr
	m.panels = make([]float32, k*n)
	for j := 0; j < n/nr; j++ {
		p := m.panels[j*k*nr:]
		for r := 0; r < k; r++ {
			copy(p[r*nr:(r+1)*nr], w[r*n+j*nr:])
		}
	}
	return m
}

// mulAdd sets y (rows x n) += x (rows x k) . m.
func (m *matrix) mulAdd(x []float32, rows int, y []float32) { m.mul(x, rows, y, nil) }

// dense sets y (rows x n) = x (rows x k) . m + b (b broadcast to each row).
func (m *matrix) dense(x []float32, rows int, y []float32, b []float32) {
	if m.kern == nil || m.kern.whole != nil || len(b) != m.n {
		for r := range rows {
			copy(y[r*m.n:][:m.n], b)
		}
		m.mulAdd(x, rows, y)
		return
	}
	m.mul(x, rows, y, b)
}

// mul is mulAdd, or dense when bias is non-nil (then y's contents do not
// matter and the kernel path is taken).
func (m *matrix) mul(x []float32, rows int, y []float32, bias []float32) {
	if rows == 0 {
		return
	}
	k, n := m.k, m.n
	if m.kern == nil {
		blas32.Gemm(blas.NoTrans, blas.NoTrans, 1,
			blas32.General{Rows: rows, Cols: k, Stride: k, Data: x},
			blas32.General{Rows: k, Cols: n, Stride: n, Data: m.w},
			1,
			blas32.General{Rows: rows, Cols: n, Stride: n, Data: y})
		return
	}
	if m.kern.whole != nil {
		m.kern.whole(x, rows, k, m.w, n, y)
		return
	}
	gemm(m.kern, x, k, rows, k, m.panels, n, y, n, bias)
}

// gemm sets y (rows x n, row stride ldy) += x (rows x k, row stride lda) .
// p, where p is a k x n matrix packed for kern (n/nr panels, each k rows of
// nr floats); with bias non-nil, y = x . p + bias[0:n] instead. The strides
// let attention multiply views of the qkv matrix in place.
func gemm(kern *kernel, x []float32, lda, rows, k int, p []float32, n int, y []float32, ldy int, bias []float32) {
	if rows == 0 || n == 0 {
		return
	}
	mr, nr, fn := kern.mr, kern.nr, kern.fn
	if k == 0 { // nothing to multiply: y = bias, or unchanged
		if bias != nil {
			for r := range rows {
				copy(y[r*ldy:][:n], bias[:n])
			}
		}
		return
	}
	// The kernel does no bounds checks: make sure here.
	_ = x[(rows-1)*lda+k-1]
	_ = y[(rows-1)*ldy+n-1]
	_ = p[k*n-1]
	if bias != nil {
		_ = bias[n-1]
	}
	var padA [maxMR * kc]float32
	var tmpC [maxMR * maxNR]float32
	for pc := 0; pc < k; pc += kc {
		kb := min(kc, k-pc)
		for ic := 0; ic < rows; ic += mc {
			mb := min(mc, rows-ic)
			full := mb / mr * mr
			rest := mb - full
			if rest > 0 { // the last rows go through a zero-padded strip
				clear(padA[:mr*kb])
				for r := range rest {
					copy(padA[r*kb:(r+1)*kb], x[(ic+full+r)*lda+pc:])
				}
			}
			for jr := 0; jr < n/nr; jr++ {
				bp := &p[jr*k*nr+pc*nr]
				var bb *float32 // the first k block sets y = product + bias
				if bias != nil && pc == 0 {
					bb = &bias[jr*nr]
				}
				for ir := 0; ir < full; ir += mr {
					fn(kb, &x[(ic+ir)*lda+pc], lda, bp, &y[(ic+ir)*ldy+jr*nr], ldy, bb)
				}
				if rest > 0 {
					clear(tmpC[:mr*nr])
					fn(kb, &padA[0], kb, bp, &tmpC[0], nr, bb)
					for r := range rest {
						yr := y[(ic+full+r)*ldy+jr*nr:][:nr]
						if bb != nil {
							copy(yr, tmpC[r*nr:(r+1)*nr])
							continue
						}
						for j, v := range tmpC[r*nr : (r+1)*nr] {
							yr[j] += v
						}
					}
				}
			}
		}
	}
}
