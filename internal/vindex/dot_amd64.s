#include "textflag.h"

// func dotBlocksAVX512(q *float64, dim int, blocks *float32, nb int, out *float64)
//
// For each of nb blocks (dim rows of 16 float32 lanes, one cache line a
// row), out[lane] = the sum over j of q[j]*float64(block[j][lane]), the
// product rounded and then added, in j order: Dot's arithmetic, eight
// vectors per instruction. The two halves of a row are two independent add
// chains reading one sequential stream.
TEXT ·dotBlocksAVX512(SB), NOSPLIT, $0-40
	MOVQ q+0(FP), SI
	MOVQ dim+8(FP), CX
	MOVQ blocks+16(FP), DI
	MOVQ nb+24(FP), BX
	MOVQ out+32(FP), DX
	TESTQ BX, BX
	JEQ   done
	TESTQ CX, CX
	JEQ   done

block:
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	MOVQ   SI, R9
	MOVQ   CX, R11

row:
	VBROADCASTSD (R9), Z2
	VCVTPS2PD    (DI), Z3
	VCVTPS2PD    32(DI), Z4
	VMULPD       Z2, Z3, Z3
	VMULPD       Z2, Z4, Z4
	VADDPD       Z3, Z0, Z0
	VADDPD       Z4, Z1, Z1
	ADDQ         $8, R9
	ADDQ         $64, DI
	DECQ         R11
	JNZ          row

	VMOVUPD Z0, (DX)
	VMOVUPD Z1, 64(DX)
	ADDQ    $128, DX
	DECQ    BX
	JNZ     block

done:
	VZEROUPPER
	RET

// func sumAVX512(p *float32, n int) float32
//
// The bandwidth probe for benchmarks: the sum of n floats (n a multiple of
// 64) with four independent vector accumulators, so the adds never wait and
// the time is what the memory system needs to deliver the bytes.
TEXT ·sumAVX512(SB), NOSPLIT, $0-20
	MOVQ   p+0(FP), SI
	MOVQ   n+8(FP), CX
	SHRQ   $6, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	TESTQ  CX, CX
	JEQ    sumdone

sumloop:
	VADDPS (SI), Z0, Z0
	VADDPS 64(SI), Z1, Z1
	VADDPS 128(SI), Z2, Z2
	VADDPS 192(SI), Z3, Z3
	ADDQ   $256, SI
	DECQ   CX
	JNZ    sumloop

sumdone:
	VADDPS       Z1, Z0, Z0
	VADDPS       Z3, Z2, Z2
	VADDPS       Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	MOVSS        X0, ret+16(FP)
	VZEROUPPER
	RET
