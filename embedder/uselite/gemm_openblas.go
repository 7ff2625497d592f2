//go:build cgo && openblas

package uselite

import "github.com/membench/membench/embedder/uselite/openblas"

// With -tags openblas the dense layers go through OpenBLAS: to measure the
// assembly kernels against a tuned BLAS here, and for users who have it.
// Pure Go stays the default build.
func init() {
	openblas.SetThreads(1) // Embed already runs one batch per core
	buildKernels = append(buildKernels, &kernel{name: "openblas-" + openblas.Core(), whole: openblas.MulAdd})
}
