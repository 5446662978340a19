// Package ggufwrite writes small GGUF v3 files: metadata key/values of every
// GGUF value type and F32/F16 tensors with their data, aligned as GGUF
// requires. It exists for tests (tiny mmproj projectors, vocab-only and
// random-weight models), not for converting real models.
//
// Layout written (all little-endian): magic "GGUF", version 3 (u32), tensor
// count (u64), key/value count (u64), the key/values, the tensor infos, zero
// padding up to the alignment, then each tensor's data padded to the alignment.
// The alignment is 32 bytes unless a "general.alignment" key (u32, a power of
// two) says otherwise.
package ggufwrite

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Version is the GGUF format version this package writes.
const Version = 3

// DefaultAlignment is the data alignment used when no "general.alignment" key is given.
const DefaultAlignment = 32

// AlignmentKey is the metadata key that overrides the data alignment.
const AlignmentKey = "general.alignment"

// ValueType is a GGUF metadata value type code.
type ValueType uint32

// GGUF metadata value type codes.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// TensorType is a ggml tensor element type. Only the unquantised float types are supported.
type TensorType uint32

// Supported ggml tensor types.
const (
	F32 TensorType = 0
	F16 TensorType = 1
)

// elementSize is the number of bytes per element of a supported tensor type.
func (t TensorType) elementSize() (int, error) {
	switch t {
	case F32:
		return 4, nil
	case F16:
		return 2, nil
	default:
		return 0, fmt.Errorf("tensor type %d is not supported (only F32 = 0 and F16 = 1)", uint32(t))
	}
}

// KV is one metadata key/value. Value is a Go scalar (uint8, int8, uint16,
// int16, uint32, int32, float32, bool, string, uint64, int64, float64) or a
// slice of one of those types; a slice is written as a GGUF array.
type KV struct {
	Key   string
	Value any
}

// Tensor is one tensor: its name, its dimensions in ggml order (ne0 first), its
// element type and its raw little-endian data, which must hold exactly the
// product of Dims elements of Type.
type Tensor struct {
	Name string
	Dims []uint64
	Type TensorType
	Data []byte
}

// WriteFile writes a GGUF v3 file at path (created or truncated).
func WriteFile(path string, kvs []KV, tensors []Tensor) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	if err := Write(f, kvs, tensors); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Write writes a GGUF v3 stream to w. It validates every key/value and tensor
// before writing anything, so a bad argument leaves w untouched.
func Write(w io.Writer, kvs []KV, tensors []Tensor) error {
	alignment, err := alignmentOf(kvs)
	if err != nil {
		return err
	}
	for i, kv := range kvs {
		if kv.Key == "" {
			return fmt.Errorf("key/value %d: empty key", i)
		}
		if _, err := valueTypeOf(kv.Value); err != nil {
			return fmt.Errorf("key %q: %w", kv.Key, err)
		}
	}
	offsets := make([]uint64, len(tensors))
	var next uint64
	for i, t := range tensors {
		size, err := checkTensor(t)
		if err != nil {
			return fmt.Errorf("tensor %d (%q): %w", i, t.Name, err)
		}
		offsets[i] = next
		next += padTo(size, alignment)
	}

	cw := &countingWriter{w: bufio.NewWriterSize(w, 1<<20)}
	cw.raw([]byte("GGUF"))
	cw.u32(Version)
	cw.u64(uint64(len(tensors)))
	cw.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		cw.str(kv.Key)
		cw.value(kv.Value)
	}
	for i, t := range tensors {
		cw.str(t.Name)
		cw.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			cw.u64(d)
		}
		cw.u32(uint32(t.Type))
		cw.u64(offsets[i])
	}
	cw.pad(alignment)
	for _, t := range tensors {
		cw.raw(t.Data)
		cw.pad(alignment)
	}
	if cw.err != nil {
		return cw.err
	}
	if err := cw.w.Flush(); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	return nil
}

// alignmentOf returns the data alignment the key/values ask for.
func alignmentOf(kvs []KV) (uint64, error) {
	for _, kv := range kvs {
		if kv.Key != AlignmentKey {
			continue
		}
		a, ok := kv.Value.(uint32)
		if !ok {
			return 0, fmt.Errorf("key %q must be a uint32, got %T", AlignmentKey, kv.Value)
		}
		if a == 0 || a&(a-1) != 0 {
			return 0, fmt.Errorf("key %q is %d, but the alignment must be a power of two", AlignmentKey, a)
		}
		return uint64(a), nil
	}
	return DefaultAlignment, nil
}

// checkTensor validates a tensor and returns its data size in bytes.
func checkTensor(t Tensor) (uint64, error) {
	if t.Name == "" {
		return 0, errors.New("empty name")
	}
	if len(t.Dims) == 0 || len(t.Dims) > 4 {
		return 0, fmt.Errorf("%d dimensions, want 1 to 4", len(t.Dims))
	}
	elemSize, err := t.Type.elementSize()
	if err != nil {
		return 0, err
	}
	elements := uint64(1)
	for _, d := range t.Dims {
		if d == 0 {
			return 0, errors.New("a dimension is 0")
		}
		if elements > math.MaxUint64/d {
			return 0, errors.New("dimensions overflow")
		}
		elements *= d
	}
	if elements > uint64(math.MaxInt64)/uint64(elemSize) {
		return 0, errors.New("dimensions overflow")
	}
	want := elements * uint64(elemSize)
	if uint64(len(t.Data)) != want {
		return 0, fmt.Errorf("data holds %d bytes, dimensions need %d", len(t.Data), want)
	}
	return want, nil
}

// padTo rounds n up to a multiple of alignment.
func padTo(n, alignment uint64) uint64 {
	return (n + alignment - 1) / alignment * alignment
}

// valueTypeOf returns the GGUF type code of a supported Go value.
func valueTypeOf(v any) (ValueType, error) {
	switch v.(type) {
	case uint8:
		return TypeUint8, nil
	case int8:
		return TypeInt8, nil
	case uint16:
		return TypeUint16, nil
	case int16:
		return TypeInt16, nil
	case uint32:
		return TypeUint32, nil
	case int32:
		return TypeInt32, nil
	case float32:
		return TypeFloat32, nil
	case bool:
		return TypeBool, nil
	case string:
		return TypeString, nil
	case uint64:
		return TypeUint64, nil
	case int64:
		return TypeInt64, nil
	case float64:
		return TypeFloat64, nil
	case []uint8, []int8, []uint16, []int16, []uint32, []int32, []float32, []bool, []string,
		[]uint64, []int64, []float64:
		return TypeArray, nil
	default:
		return 0, fmt.Errorf("unsupported value type %T", v)
	}
}

// countingWriter writes little-endian GGUF primitives, remembers the first
// error and counts the bytes written (for padding).
type countingWriter struct {
	w   *bufio.Writer
	n   uint64
	err error
	buf [8]byte
}

func (c *countingWriter) raw(p []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(p)
	c.n += uint64(n)
	if err != nil {
		c.err = fmt.Errorf("write at byte %d: %w", c.n, err)
	}
}

func (c *countingWriter) u8(v uint8) { c.raw([]byte{v}) }

func (c *countingWriter) u16(v uint16) {
	binary.LittleEndian.PutUint16(c.buf[:2], v)
	c.raw(c.buf[:2])
}

func (c *countingWriter) u32(v uint32) {
	binary.LittleEndian.PutUint32(c.buf[:4], v)
	c.raw(c.buf[:4])
}

func (c *countingWriter) u64(v uint64) {
	binary.LittleEndian.PutUint64(c.buf[:8], v)
	c.raw(c.buf[:8])
}

func (c *countingWriter) str(s string) {
	c.u64(uint64(len(s)))
	c.raw([]byte(s))
}

func (c *countingWriter) boolean(b bool) {
	if b {
		c.u8(1)
	} else {
		c.u8(0)
	}
}

func (c *countingWriter) pad(alignment uint64) {
	if rem := c.n % alignment; rem != 0 {
		c.raw(make([]byte, alignment-rem))
	}
}

// value writes a type code and the value; the type was validated before.
func (c *countingWriter) value(v any) {
	t, _ := valueTypeOf(v)
	c.u32(uint32(t))
	switch x := v.(type) {
	case uint8:
		c.u8(x)
	case int8:
		c.u8(uint8(x))
	case uint16:
		c.u16(x)
	case int16:
		c.u16(uint16(x))
	case uint32:
		c.u32(x)
	case int32:
		c.u32(uint32(x))
	case float32:
		c.u32(math.Float32bits(x))
	case bool:
		c.boolean(x)
	case string:
		c.str(x)
	case uint64:
		c.u64(x)
	case int64:
		c.u64(uint64(x))
	case float64:
		c.u64(math.Float64bits(x))
	case []uint8:
		writeArray(c, TypeUint8, x, c.u8)
	case []int8:
		writeArray(c, TypeInt8, x, func(e int8) { c.u8(uint8(e)) })
	case []uint16:
		writeArray(c, TypeUint16, x, c.u16)
	case []int16:
		writeArray(c, TypeInt16, x, func(e int16) { c.u16(uint16(e)) })
	case []uint32:
		writeArray(c, TypeUint32, x, c.u32)
	case []int32:
		writeArray(c, TypeInt32, x, func(e int32) { c.u32(uint32(e)) })
	case []float32:
		writeArray(c, TypeFloat32, x, func(e float32) { c.u32(math.Float32bits(e)) })
	case []bool:
		writeArray(c, TypeBool, x, c.boolean)
	case []string:
		writeArray(c, TypeString, x, c.str)
	case []uint64:
		writeArray(c, TypeUint64, x, c.u64)
	case []int64:
		writeArray(c, TypeInt64, x, func(e int64) { c.u64(uint64(e)) })
	case []float64:
		writeArray(c, TypeFloat64, x, func(e float64) { c.u64(math.Float64bits(e)) })
	}
}

// writeArray writes an array body: element type, count, elements.
func writeArray[E any](c *countingWriter, elem ValueType, values []E, put func(E)) {
	c.u32(uint32(elem))
	c.u64(uint64(len(values)))
	for _, v := range values {
		put(v)
	}
}

// F32Bytes packs float32 values as little-endian bytes, the data of an F32 tensor.
func F32Bytes(values ...float32) []byte {
	out := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
	}
	return out
}

// F16Bytes converts float32 values to IEEE half precision (round to nearest
// even) and packs them as little-endian bytes, the data of an F16 tensor.
func F16Bytes(values ...float32) []byte {
	out := make([]byte, 2*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint16(out[2*i:], Float16Bits(v))
	}
	return out
}

// Float16Bits returns the IEEE 754 half-precision encoding of f, rounded to
// nearest even; out-of-range values become ±Inf and NaN stays NaN.
func Float16Bits(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>16) & 0x8000
	exp := int((bits >> 23) & 0xff)
	mant := bits & 0x7fffff

	if exp == 0xff { // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f { // overflow
		return sign | 0x7c00
	}
	if e <= 0 { // subnormal half or zero
		if e < -10 {
			return sign
		}
		m := mant | 0x800000 // implicit leading one
		shift := uint32(14 - e)
		half := m >> shift
		rem := m & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++ // may carry into the exponent, which is the correct rounding (up to Inf)
	}
	return sign | uint16(half)
}
