//go:build amd64 && !purego

#include "textflag.h"

DATA nibbleMask<>+0(SB)/8, $0x0F0F0F0F0F0F0F0F
DATA nibbleMask<>+8(SB)/8, $0x0F0F0F0F0F0F0F0F
DATA nibbleMask<>+16(SB)/8, $0x0F0F0F0F0F0F0F0F
DATA nibbleMask<>+24(SB)/8, $0x0F0F0F0F0F0F0F0F
GLOBL nibbleMask<>(SB), RODATA|NOPTR, $32

// INCLASS leaves in y a non-zero byte for every byte of y in the class (Y13: lo table, Y14:
// hi table, Y15: nibble mask; t: scratch).
#define INCLASS(y, t) \
	VPSRLD  $4, y, t \
	VPAND   Y15, t, t \
	VPAND   Y15, y, y \
	VPSHUFB t, Y14, t \
	VPSHUFB y, Y13, y \
	VPAND   t, y, y

// func prefix(p unsafe.Pointer, n int, c *Class) int
TEXT ·prefix(SB), NOSPLIT, $0-32
	MOVQ    p+0(FP), SI
	MOVQ    n+8(FP), CX
	MOVQ    c+16(FP), R8
	XORQ    AX, AX
	VMOVDQU 0(R8), Y13
	VMOVDQU 32(R8), Y14
	VMOVDQU nibbleMask<>(SB), Y15
	VPXOR   Y12, Y12, Y12

loop128:
	LEAQ    128(AX), DX
	CMPQ    DX, CX
	JA      loop32
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	VMOVDQU 64(SI)(AX*1), Y2
	VMOVDQU 96(SI)(AX*1), Y3
	INCLASS(Y0, Y4)
	INCLASS(Y1, Y5)
	INCLASS(Y2, Y6)
	INCLASS(Y3, Y7)
	VPOR    Y0, Y1, Y0
	VPOR    Y2, Y3, Y2
	VPOR    Y0, Y2, Y0
	VPTEST  Y0, Y0
	JNZ     loop32 // a byte of the class is in these 128: find it 32 at a time
	MOVQ    DX, AX
	JMP     loop128

loop32:
	LEAQ      32(AX), DX
	CMPQ      DX, CX
	JA        done
	VMOVDQU   (SI)(AX*1), Y0
	INCLASS(Y0, Y4)
	VPCMPEQB  Y12, Y0, Y0
	VPMOVMSKB Y0, BX
	NOTL      BX
	TESTL     BX, BX
	JNZ       found
	MOVQ      DX, AX
	JMP       loop32

found:
	BSFL    BX, BX
	ADDQ    BX, AX

done:
	VZEROUPPER
	MOVQ    AX, ret+24(FP)
	RET

// windowMul holds the multipliers of WindowHash: the low half's, the high half's.
DATA windowMul<>+0(SB)/4, $0x9E3779B1
DATA windowMul<>+4(SB)/4, $0x85EBCA77
GLOBL windowMul<>(SB), RODATA|NOPTR, $8

// WINDOWS leaves in Y8 the lanes of the 8 positions off+k, off+k+4, …, off+k+28 (k a
// constant) whose window hash has no bit set from the shift in X13 up, all ones in each; Y14
// and Y15 hold the multipliers, Y12 zero.
#define WINDOWS(k) \
	VMOVDQU k(SI)(AX*1), Y0 \
	VMOVDQU k+4(SI)(AX*1), Y1 \
	VPMULLD Y14, Y0, Y0 \
	VPMULLD Y15, Y1, Y1 \
	VPADDD  Y0, Y1, Y0 \
	VPSRLD  X13, Y0, Y0 \
	VPCMPEQD Y12, Y0, Y0 \
	VPOR    Y0, Y8, Y8

// func windowBlock(p unsafe.Pointer, n int, shift uint64) int
TEXT ·windowBlock(SB), NOSPLIT, $0-32
	MOVQ    p+0(FP), SI
	MOVQ    n+8(FP), CX
	VMOVQ   shift+16(FP), X13
	VPBROADCASTD windowMul<>+0(SB), Y14
	VPBROADCASTD windowMul<>+4(SB), Y15
	VPXOR   Y12, Y12, Y12
	XORQ    AX, AX

wloop:
	CMPQ    AX, CX
	JAE     wdone
	VPXOR   Y8, Y8, Y8
	WINDOWS(0)
	WINDOWS(1)
	WINDOWS(2)
	WINDOWS(3)
	VPTEST  Y8, Y8
	JNZ     wdone
	ADDQ    $32, AX
	JMP     wloop

wdone:
	VZEROUPPER
	MOVQ    AX, ret+24(FP)
	RET
