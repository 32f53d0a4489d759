//go:build amd64

#include "textflag.h"

// func plainRunAVX2(b []byte) int
//
// Compares b 32 bytes at a time with '"' and '\\' and with the control
// characters (a byte x is one when min(x, 0x1f) == x, unsigned), and returns
// the offset of the first byte that is any of them, or, when none is, the bytes
// of b in whole blocks of 32.
TEXT ·plainRunAVX2(SB), NOSPLIT, $0-32
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	XORQ AX, AX
	MOVL $0x22, DX
	MOVQ DX, X0
	VPBROADCASTB X0, Y0
	MOVL $0x5c, DX
	MOVQ DX, X1
	VPBROADCASTB X1, Y1
	MOVL $0x1f, DX
	MOVQ DX, X2
	VPBROADCASTB X2, Y2

loop:
	LEAQ 32(AX), DX
	CMPQ DX, CX
	JA   done
	VMOVDQU (SI)(AX*1), Y3
	VPCMPEQB Y3, Y0, Y4
	VPCMPEQB Y3, Y1, Y5
	VPMINUB  Y3, Y2, Y6
	VPCMPEQB Y3, Y6, Y6
	VPOR     Y4, Y5, Y4
	VPOR     Y4, Y6, Y4
	VPMOVMSKB Y4, DX
	TESTL DX, DX
	JNZ   found
	ADDQ  $32, AX
	JMP   loop

found:
	BSFL DX, DX
	ADDQ DX, AX

done:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET
