//go:build amd64 && !purego

#include "textflag.h"

// Nibble tables of the base64 alphabet test (A–Z a–z 0–9 + /): a byte is outside the alphabet
// exactly when alphaLo[its low nibble] AND alphaHi[its high nibble] is not zero. alphaHi gives
// each high nibble a class bit (2x, 3x, 4x/6x, 5x/7x, the rest); alphaLo sets, for each low
// nibble, the classes in which that low nibble is not a base64 character.
DATA alphaLo<>+0(SB)/8, $0x1111111111111115
DATA alphaLo<>+8(SB)/8, $0x1A1B1B1B1A131111
DATA alphaLo<>+16(SB)/8, $0x1111111111111115
DATA alphaLo<>+24(SB)/8, $0x1A1B1B1B1A131111
GLOBL alphaLo<>(SB), RODATA|NOPTR, $32

DATA alphaHi<>+0(SB)/8, $0x0804080402011010
DATA alphaHi<>+8(SB)/8, $0x1010101010101010
DATA alphaHi<>+16(SB)/8, $0x0804080402011010
DATA alphaHi<>+24(SB)/8, $0x1010101010101010
GLOBL alphaHi<>(SB), RODATA|NOPTR, $32

DATA nibbleMask<>+0(SB)/8, $0x0F0F0F0F0F0F0F0F
DATA nibbleMask<>+8(SB)/8, $0x0F0F0F0F0F0F0F0F
DATA nibbleMask<>+16(SB)/8, $0x0F0F0F0F0F0F0F0F
DATA nibbleMask<>+24(SB)/8, $0x0F0F0F0F0F0F0F0F
GLOBL nibbleMask<>(SB), RODATA|NOPTR, $32

// NOTALPHA leaves in y a non-zero byte for every byte of y outside the alphabet (t: scratch).
#define NOTALPHA(y, t) \
	VPSRLD  $4, y, t \
	VPAND   Y15, t, t \
	VPAND   Y15, y, y \
	VPSHUFB t, Y14, t \
	VPSHUFB y, Y13, y \
	VPAND   t, y, y

// func alphaPrefixAVX2(s string) int
TEXT ·alphaPrefixAVX2(SB), NOSPLIT, $0-24
	MOVQ    s_base+0(FP), SI
	MOVQ    s_len+8(FP), CX
	XORQ    AX, AX
	VMOVDQU alphaLo<>(SB), Y13
	VMOVDQU alphaHi<>(SB), Y14
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
	NOTALPHA(Y0, Y4)
	NOTALPHA(Y1, Y5)
	NOTALPHA(Y2, Y6)
	NOTALPHA(Y3, Y7)
	VPOR    Y0, Y1, Y0
	VPOR    Y2, Y3, Y2
	VPOR    Y0, Y2, Y0
	VPTEST  Y0, Y0
	JNZ     loop32 // the other byte is in these 128: find it 32 at a time
	MOVQ    DX, AX
	JMP     loop128

loop32:
	LEAQ      32(AX), DX
	CMPQ      DX, CX
	JA        done
	VMOVDQU   (SI)(AX*1), Y0
	NOTALPHA(Y0, Y4)
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
	MOVQ    AX, ret+16(FP)
	RET
