//go:build amd64

#include "textflag.h"

// func plainRunAVX2(b []byte) (n int, escaped bool)
//
// Compares b 32 bytes at a time with '"' and '\\' and with the control
// characters (a byte x is one when min(x, 0x1f) == x, unsigned). At a backslash
// followed by one of "\\/bfnrt it skips the pair and goes on (escaped is then
// true); it stops at any other flagged byte (a quote, a control character, \u
// or an invalid escape), or when fewer than 32 bytes are left, and returns
// where it stopped.
TEXT ·plainRunAVX2(SB), NOSPLIT, $0-33
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	XORQ AX, AX
	XORL R8, R8
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
	VMOVDQU   (SI)(AX*1), Y3
	VPCMPEQB  Y3, Y0, Y4
	VPCMPEQB  Y3, Y1, Y5
	VPMINUB   Y3, Y2, Y6
	VPCMPEQB  Y3, Y6, Y6
	VPOR      Y4, Y5, Y4
	VPOR      Y4, Y6, Y4
	VPMOVMSKB Y4, DX
	TESTL     DX, DX
	JNZ       found
	ADDQ      $32, AX
	JMP       loop

found:
	BSFL    DX, DX
	ADDQ    DX, AX
	MOVBLZX (SI)(AX*1), DX
	CMPL    DX, $0x5c
	JNE     done
	LEAQ    1(AX), DX
	CMPQ    DX, CX
	JAE     done
	MOVBLZX (SI)(DX*1), DX
	CMPL    DX, $0x6e // n
	JEQ     simple
	CMPL    DX, $0x22 // "
	JEQ     simple
	CMPL    DX, $0x5c // backslash
	JEQ     simple
	CMPL    DX, $0x74 // t
	JEQ     simple
	CMPL    DX, $0x2f // /
	JEQ     simple
	CMPL    DX, $0x72 // r
	JEQ     simple
	CMPL    DX, $0x62 // b
	JEQ     simple
	CMPL    DX, $0x66 // f
	JEQ     simple
	JMP     done

simple:
	MOVL $1, R8
	ADDQ $2, AX
	JMP  loop

done:
	VZEROUPPER
	MOVQ AX, n+24(FP)
	MOVB R8, escaped+32(FP)
	RET
