//go:build !amd64

package uselite

// kernels: no assembly kernel off amd64; products go through gonum.
func kernels() []*kernel { return nil }
