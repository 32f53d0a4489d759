//go:build amd64

#include "textflag.h"

// simpleEscapes marks the bytes that make a two-byte escape after a backslash:
// " \ / b f n r t.
DATA ·simpleEscapes+0x22(SB)/1, $1
DATA ·simpleEscapes+0x2f(SB)/1, $1
DATA ·simpleEscapes+0x5c(SB)/1, $1
DATA ·simpleEscapes+0x62(SB)/1, $1
DATA ·simpleEscapes+0x66(SB)/1, $1
DATA ·simpleEscapes+0x6e(SB)/1, $1
DATA ·simpleEscapes+0x72(SB)/1, $1
DATA ·simpleEscapes+0x74(SB)/1, $1
GLOBL ·simpleEscapes(SB), RODATA|NOPTR, $256

// Vectors of 32 bytes for the \u escapes: the letter u and the bounds of the hex
// digits ('0'-'9', and 'a'-'f' once a byte is or'ed with 0x20).
#define VECTOR32(name, bytes) \
	DATA name+0(SB)/8, $bytes; \
	DATA name+8(SB)/8, $bytes; \
	DATA name+16(SB)/8, $bytes; \
	DATA name+24(SB)/8, $bytes; \
	GLOBL name(SB), RODATA|NOPTR, $32

VECTOR32(·vecU, 0x7575757575757575)
VECTOR32(·vec0, 0x3030303030303030)
VECTOR32(·vec9, 0x3939393939393939)
VECTOR32(·vecLowA, 0x6161616161616161)
VECTOR32(·vecLowF, 0x6666666666666666)
VECTOR32(·vec20, 0x2020202020202020)

// BROADCAST fills the vector y (x its lower half) with the byte b.
#define BROADCAST(b, x, y) MOVL b, DX; MOVQ DX, x; VPBROADCASTB x, y

// LETTERS sets in Y5 the bytes of src that are one of / b f n r t (Y7-Y12).
#define LETTERS(src) \
	VPCMPEQB src, Y7, Y5; \
	VPCMPEQB src, Y8, Y6; \
	VPOR     Y5, Y6, Y5; \
	VPCMPEQB src, Y9, Y6; \
	VPOR     Y5, Y6, Y5; \
	VPCMPEQB src, Y10, Y6; \
	VPOR     Y5, Y6, Y5; \
	VPCMPEQB src, Y11, Y6; \
	VPOR     Y5, Y6, Y5; \
	VPCMPEQB src, Y12, Y6; \
	VPOR     Y5, Y6, Y5

// HEXDIGITS sets in Y5 the bytes of src that are hex digits: '0'-'9', or
// 'a'-'f' once or'ed with 0x20 (Y6 and Y13 are scratch).
#define HEXDIGITS(src) \
	VPMAXUB  ·vec0(SB), src, Y5; \
	VPMINUB  ·vec9(SB), Y5, Y5; \
	VPCMPEQB src, Y5, Y5; \
	VPOR     ·vec20(SB), src, Y6; \
	VPMAXUB  ·vecLowA(SB), Y6, Y13; \
	VPMINUB  ·vecLowF(SB), Y13, Y13; \
	VPCMPEQB Y6, Y13, Y13; \
	VPOR     Y5, Y13, Y5

// func plainRunAVX2(b []byte) (n int, escaped bool)
//
// Compares b 32 bytes at a time with '"' and '\\' and with the control
// characters (a byte x is one when min(x, 0x1f) == x, unsigned), and stops at
// the first flagged byte that is not a backslash (a quote, a control
// character), or when fewer than 32 bytes are left, and returns where it
// stopped; escaped says it went over an escape.
//
// At a backslash with 64 bytes or more left, it reads the 64 bytes from there
// as masks, one bit a byte (escapes): the backslashes, quotes, control
// characters, the letters of the two-byte escapes, and the u's followed by
// four hex digits. Which bytes an escape
// begins and which it ends (its letter) follow from the backslashes' mask by
// simdjson's carry trick: a run of backslashes is a run of escapes of
// backslashes, and the last one escapes the byte after the run when the run is
// odd. Where no quote outside an escape, no control character, no invalid
// escape (a \u without its four hex digits in the 64 bytes among them) and no
// escape left open at the 64th byte lies in them, it goes on 64 bytes further, in the plain loop;
// otherwise it stops at the first such byte (at the backslash of an escape that
// needs a look), so that the caller reads it itself. A string dense in escapes
// (log text: an escaped newline or quote every few dozen bytes) is then read 64
// bytes at a time instead of an escape at a time. With fewer than 64 bytes left,
// a two-byte escape is skipped alone.
TEXT ·plainRunAVX2(SB), NOSPLIT, $0-33
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), CX
	XORQ AX, AX
	XORL R8, R8
	BROADCAST($0x22, X0, Y0) // "
	BROADCAST($0x5c, X1, Y1) // backslash
	BROADCAST($0x1f, X2, Y2) // the last control character
	BROADCAST($0x2f, X7, Y7) // /
	BROADCAST($0x62, X8, Y8) // b
	BROADCAST($0x66, X9, Y9) // f
	BROADCAST($0x6e, X10, Y10) // n
	BROADCAST($0x72, X11, Y11) // r
	BROADCAST($0x74, X12, Y12) // t
	LEAQ ·simpleEscapes(SB), R9

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
	LEAQ    64(AX), DX
	CMPQ    DX, CX
	JBE     escapes
	LEAQ    1(AX), DX
	CMPQ    DX, CX
	JAE     done
	MOVBLZX (SI)(DX*1), DX
	MOVBLZX (R9)(DX*1), DX // simpleEscapes
	TESTL   DX, DX
	JZ      done
	MOVL    $1, R8
	ADDQ    $2, AX
	JMP     loop

escapes:
	VMOVDQU (SI)(AX*1), Y3
	VMOVDQU 32(SI)(AX*1), Y4

	// R10: backslashes.
	VPCMPEQB  Y3, Y1, Y5
	VPMOVMSKB Y5, R10
	VPCMPEQB  Y4, Y1, Y5
	VPMOVMSKB Y5, DX
	SHLQ      $32, DX
	ORQ       DX, R10

	// R11: quotes.
	VPCMPEQB  Y3, Y0, Y5
	VPMOVMSKB Y5, R11
	VPCMPEQB  Y4, Y0, Y5
	VPMOVMSKB Y5, DX
	SHLQ      $32, DX
	ORQ       DX, R11

	// R12: control characters.
	VPMINUB   Y3, Y2, Y5
	VPCMPEQB  Y3, Y5, Y5
	VPMOVMSKB Y5, R12
	VPMINUB   Y4, Y2, Y5
	VPCMPEQB  Y4, Y5, Y5
	VPMOVMSKB Y5, DX
	SHLQ      $32, DX
	ORQ       DX, R12

	// R13: the letters of the two-byte escapes (" and \ are in R10 and R11).
	LETTERS(Y3)
	VPMOVMSKB Y5, R13
	LETTERS(Y4)
	VPMOVMSKB Y5, DX
	SHLQ      $32, DX
	ORQ       DX, R13
	ORQ       R10, R13
	ORQ       R11, R13

	// R14: the letters u.
	VPCMPEQB  ·vecU(SB), Y3, Y5
	VPMOVMSKB Y5, R14
	VPCMPEQB  ·vecU(SB), Y4, Y5
	VPMOVMSKB Y5, DX
	SHLQ      $32, DX
	ORQ       DX, R14

	// BX: escape starts and letters, ((backslashes<<1 | odd bits) - backslashes) ^ odd bits
	// (the first byte is a backslash no escape holds: nothing carries in).
	MOVQ $0xAAAAAAAAAAAAAAAA, DI
	MOVQ R10, BX
	SHLQ $1, BX
	ORQ  DI, BX
	SUBQ R10, BX
	XORQ DI, BX

	// DX: the escaped bytes (letters); BX: the backslashes that begin an escape.
	MOVQ BX, DX
	XORQ R10, DX
	ANDQ R10, BX

	// R11: where to stop: a quote no escape holds, a control character (then
	// below: the backslash of an escape that is not valid, a backslash at the
	// last byte that begins an escape).
	MOVQ DX, DI
	NOTQ DI
	ANDQ DI, R11
	ORQ  R12, R11

	// The \u escapes, when there are any: valid with four hex digits after the u
	// (DI, R12: the hex digits), and then taken into R13.
	ANDQ DX, R14
	JZ   validity
	HEXDIGITS(Y3)
	VPMOVMSKB Y5, DI
	HEXDIGITS(Y4)
	VPMOVMSKB Y5, R12
	SHLQ      $32, R12
	ORQ       R12, DI
	SHRQ      $1, DI
	ANDQ      DI, R14
	SHRQ      $1, DI
	ANDQ      DI, R14
	SHRQ      $1, DI
	ANDQ      DI, R14
	SHRQ      $1, DI
	ANDQ      DI, R14
	ORQ       R14, R13

validity:
	NOTQ R13
	ANDQ DX, R13
	SHRQ $1, R13
	ORQ  R13, R11
	SHRQ $63, BX
	SHLQ $63, BX
	ORQ  BX, R11
	TESTQ R11, R11
	JNZ   escstop
	MOVL  $1, R8
	ADDQ  $64, AX
	JMP   loop

escstop:
	BSFQ  R11, R11
	TESTQ R11, R11
	JZ    done // the backslash itself: an escape to look at
	MOVL  $1, R8
	ADDQ  R11, AX

done:
	VZEROUPPER
	MOVQ AX, n+24(FP)
	MOVB R8, escaped+32(FP)
	RET
