//go:build amd64 && !purego

#include "textflag.h"

// The bounds of the classes, each broadcast to 32 bytes: a byte is in a range when it is
// greater (signed: bytes from 0x80 are negative, so in none) than the byte before the range
// and less than the byte after it; '+' and '/' are the bytes that bit 2 set makes '/'.
DATA b64Bounds<>+0(SB)/1, $0x40 // 'A'-1
DATA b64Bounds<>+1(SB)/1, $0x5b // 'Z'+1
DATA b64Bounds<>+2(SB)/1, $0x60 // 'a'-1
DATA b64Bounds<>+3(SB)/1, $0x7b // 'z'+1
DATA b64Bounds<>+4(SB)/1, $0x2f // '0'-1, and '/'
DATA b64Bounds<>+5(SB)/1, $0x3a // '9'+1
DATA b64Bounds<>+6(SB)/1, $0x04 // bit 2
GLOBL b64Bounds<>(SB), RODATA|NOPTR, $8

// CLASSES sets the 32-bit class masks of the 32 bytes in y (t1–t3: scratch) in the registers
// up, lo, dg, pu.
#define CLASSES(y, t1, t2, t3, up, lo, dg, pu) \
	VPCMPGTB  Y8, y, t1 \
	VPCMPGTB  y, Y9, t2 \
	VPAND     t1, t2, t1 \
	VPMOVMSKB t1, up \
	VPCMPGTB  Y10, y, t1 \
	VPCMPGTB  y, Y11, t2 \
	VPAND     t1, t2, t1 \
	VPMOVMSKB t1, lo \
	VPCMPGTB  Y12, y, t1 \
	VPCMPGTB  y, Y13, t2 \
	VPAND     t1, t2, t1 \
	VPMOVMSKB t1, dg \
	VPOR      Y14, y, t3 \
	VPCMPEQB  Y12, t3, t3 \
	VPMOVMSKB t3, pu

// func b64ClassAVX2(p unsafe.Pointer, out *[4]uint64)
TEXT ·b64ClassAVX2(SB), NOSPLIT, $0-16
	MOVQ         p+0(FP), SI
	MOVQ         out+8(FP), DI
	VPBROADCASTB b64Bounds<>+0(SB), Y8
	VPBROADCASTB b64Bounds<>+1(SB), Y9
	VPBROADCASTB b64Bounds<>+2(SB), Y10
	VPBROADCASTB b64Bounds<>+3(SB), Y11
	VPBROADCASTB b64Bounds<>+4(SB), Y12
	VPBROADCASTB b64Bounds<>+5(SB), Y13
	VPBROADCASTB b64Bounds<>+6(SB), Y14
	VMOVDQU      (SI), Y0
	VMOVDQU      32(SI), Y1
	CLASSES(Y0, Y2, Y3, Y4, AX, BX, CX, DX)
	CLASSES(Y1, Y5, Y6, Y7, R8, R9, R10, R11)
	SHLQ         $32, R8
	ORQ          R8, AX
	SHLQ         $32, R9
	ORQ          R9, BX
	SHLQ         $32, R10
	ORQ          R10, CX
	SHLQ         $32, R11
	ORQ          R11, DX
	MOVQ         AX, 0(DI)
	MOVQ         BX, 8(DI)
	MOVQ         CX, 16(DI)
	MOVQ         DX, 24(DI)
	VZEROUPPER
	RET
