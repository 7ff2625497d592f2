//go:build cgo && openblas

// Needs Debian's libopenblas-dev. A package of its own because Go does not
// allow cgo and Go assembly in one package.
package openblas

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
extern void openblas_set_num_threads(int);
extern char* openblas_get_corename(void);
*/
import "C"

// Core is the kernel family OpenBLAS chose for this CPU (OPENBLAS_CORETYPE
// overrides it).
func Core() string { return C.GoString(C.openblas_get_corename()) }

// SetThreads sets OpenBLAS's thread count.
func SetThreads(n int) { C.openblas_set_num_threads(C.int(n)) }

// MulAdd sets y (rows x n) += x (rows x k) . w, all row-major float32.
func MulAdd(x []float32, rows, k int, w []float32, n int, y []float32) {
	if rows == 0 || k == 0 || n == 0 {
		return
	}
	_, _, _ = x[rows*k-1], w[k*n-1], y[rows*n-1]
	C.cblas_sgemm(C.CblasRowMajor, C.CblasNoTrans, C.CblasNoTrans, C.blasint(rows), C.blasint(n), C.blasint(k),
		1, (*C.float)(&x[0]), C.blasint(k), (*C.float)(&w[0]), C.blasint(n), 1, (*C.float)(&y[0]), C.blasint(n))
}
