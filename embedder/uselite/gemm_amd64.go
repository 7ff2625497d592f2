package uselite

import "golang.org/x/sys/cpu"

//go:noescape
func kern6x16(k int, a *float32, lda int, b *float32, c *float32, ldc int, bias *float32)

//go:noescape
func kern8x32(k int, a *float32, lda int, b *float32, c *float32, ldc int, bias *float32)

var (
	avx2Kernel   = &kernel{name: "avx2", mr: 6, nr: 16, fn: kern6x16}
	avx512Kernel = &kernel{name: "avx512", mr: 8, nr: 32, fn: kern8x32}
)

// kernels lists the micro-kernels this CPU (and OS) can run, best first.
func kernels() []*kernel {
	var ks []*kernel
	if cpu.X86.HasAVX512F {
		ks = append(ks, avx512Kernel)
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		ks = append(ks, avx2Kernel)
	}
	return ks
}
