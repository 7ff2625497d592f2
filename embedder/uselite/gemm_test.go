package uselite

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// allKernels is every kernel this machine runs plus nil (gonum).
func allKernels() []*kernel { return append(append(buildKernels, kernels()...), nil) }

func kernelName(k *kernel) string {
	if k == nil {
		return "gonum"
	}
	return k.name
}

// Each kernel's product equals a float64 reference, for the model's shapes,
// row counts that leave every remainder of the row strip, depths that are
// not a multiple of the k block, and widths that no kernel packs.
func TestMatrixMulAddMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shapes := [][3]int{ // rows, k, n
		{1, 256, 512}, {5, 256, 768}, {35, 512, 1536}, {97, 1536, 512}, {200, 300, 64},
		{7, 1, 32}, {13, 257, 96}, {96, 512, 512}, {103, 40, 48}, {3, 64, 20},
	}
	for _, kern := range allKernels() {
		for _, sh := range shapes {
			rows, k, n := sh[0], sh[1], sh[2]
			x, w, y := make([]float32, rows*k), make([]float32, k*n), make([]float32, rows*n)
			for _, s := range [][]float32{x, w, y} {
				for i := range s {
					s[i] = r.Float32() - 0.5
				}
			}
			want := make([]float64, len(y))
			for i := range rows {
				for j := range n {
					s := float64(y[i*n+j])
					for p := range k {
						s += float64(x[i*k+p]) * float64(w[p*n+j])
					}
					want[i*n+j] = s
				}
			}
			m := newMatrix(w, k, n, kern)
			bias := append([]float32(nil), y[:n]...) // dense: y = x.w + bias, whatever y held
			wantDense := make([]float64, len(y))
			for i := range rows {
				for j := range n {
					wantDense[i*n+j] = want[i*n+j] - float64(y[i*n+j]) + float64(bias[j])
				}
			}
			m.mulAdd(x, rows, y)
			for i := range y {
				if d := math.Abs(float64(y[i]) - want[i]); d > 1e-5*float64(k) {
					t.Fatalf("%s rows=%d k=%d n=%d: element %d = %v, want %v", kernelName(kern), rows, k, n, i, y[i], want[i])
				}
			}
			for i := range y {
				y[i] = float32(i%3) * 1e6 // must be ignored
			}
			m.dense(x, rows, y, bias)
			for i := range y {
				if d := math.Abs(float64(y[i]) - wantDense[i]); d > 1e-5*float64(k) {
					t.Fatalf("%s dense rows=%d k=%d n=%d: element %d = %v, want %v", kernelName(kern), rows, k, n, i, y[i], wantDense[i])
				}
			}
		}
	}
}

// Every kernel gives vectors equal to the golden file (cosine >= 0.99999),
// batched and one at a time.
func TestEveryKernelMatchesGolden(t *testing.T) {
	g := loadGolden(t)
	dir := DefaultDir(os.Getenv("MEMBENCH_HOME")) // where CI installs it
	if !Installed(dir) {
		t.Skipf("USE-lite model not installed in %s; run: bash scripts/setup-embeddings.sh", dir)
	}
	for _, kern := range allKernels() {
		m, err := load(dir, kern)
		if err != nil {
			t.Fatal(err)
		}
		m.MaxBatchTokens = 64 // several batches, so packing and remainders vary
		batch, err := m.Embed(context.Background(), g.Sentences)
		if err != nil {
			t.Fatal(err)
		}
		minCos := 2.0
		for i, s := range g.Sentences {
			single, err := m.Embed(context.Background(), []string{s})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range [][]float32{batch[i], single[0]} {
				c := cosine(v, g.Embeddings[i])
				minCos = min(minCos, c)
				if c < 0.99999 {
					t.Errorf("%s: sentence %d: cosine %.7f < 0.99999", kernelName(kern), i, c)
				}
			}
		}
		t.Logf("%s: min cosine to golden %.9f", kernelName(kern), minCos)
	}
}

// BenchmarkGemm is the kernels' rate on the model's largest product shape
// (one forward pass of 512 tokens through an FFN matrix), on one core: the
// matmul bound the encoder is measured against.
func BenchmarkGemm(b *testing.B) {
	rows, k, n := 512, 512, 1536
	x, w, y := make([]float32, rows*k), make([]float32, k*n), make([]float32, rows*n)
	for i := range x {
		x[i] = float32(i%7) - 3
	}
	for _, kern := range allKernels() {
		m := newMatrix(w, k, n, kern)
		b.Run(fmt.Sprint(kernelName(kern)), func(b *testing.B) {
			cpu0 := cpuSeconds()
			for b.Loop() {
				m.mulAdd(x, rows, y)
			}
			flops := float64(2*rows*k*n) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			// One goroutine: per CPU-second is the rate of a core of one's own.
			b.ReportMetric(flops/(cpuSeconds()-cpu0)/1e9, "GFLOP/cpu-s")
		})
	}
}
