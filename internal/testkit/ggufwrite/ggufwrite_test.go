package ggufwrite

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	gguf "github.com/gpustack/gguf-parser-go"
)

// allTypesKVs holds one key/value of every scalar type and every array type.
func allTypesKVs() []KV {
	return []KV{
		{"general.architecture", "llama"},
		{"general.name", "tiny ✓ test"},
		{"test.u8", uint8(200)},
		{"test.i8", int8(-100)},
		{"test.u16", uint16(60000)},
		{"test.i16", int16(-30000)},
		{"test.u32", uint32(4000000000)},
		{"test.i32", int32(-2000000000)},
		{"test.f32", float32(0.48145467)},
		{"test.bool", true},
		{"test.u64", uint64(1) << 60},
		{"test.i64", int64(-1) << 60},
		{"test.f64", math.Pi},
		{"llama.context_length", uint32(4096)},
		{"test.arr.u8", []uint8{1, 2, 255}},
		{"test.arr.i8", []int8{-1, 0, 1}},
		{"test.arr.u16", []uint16{1, 65535}},
		{"test.arr.i16", []int16{-32768, 32767}},
		{"test.arr.u32", []uint32{7, 8, 9}},
		{"test.arr.i32", []int32{336, 672, 672, 336, -5}},
		{"test.arr.f32", []float32{0.48145467, 0.4578275, 0.40821072}},
		{"test.arr.bool", []bool{true, false, true}},
		{"test.arr.str", []string{"<|vision_start|>", "", "a b", "日本"}},
		{"test.arr.u64", []uint64{0, math.MaxUint64}},
		{"test.arr.i64", []int64{math.MinInt64, 3}},
		{"test.arr.f64", []float64{1.5, -2.25}},
		{"test.arr.empty", []string{}},
	}
}

func writeTemp(t *testing.T, kvs []KV, tensors []Tensor) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.gguf")
	if err := WriteFile(path, kvs, tensors); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	return path
}

func TestRoundTripMetadata(t *testing.T) {
	path := writeTemp(t, allTypesKVs(), nil)
	f, err := gguf.ParseGGUFFile(path, gguf.UseMMap())
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if f.Header.Version != gguf.GGUFVersionV3 {
		t.Errorf("version = %v, want 3", f.Header.Version)
	}
	if got := f.Header.MetadataKVCount; got != uint64(len(allTypesKVs())) {
		t.Errorf("kv count = %d, want %d", got, len(allTypesKVs()))
	}
	kv := f.Header.MetadataKV
	get := func(key string) gguf.GGUFMetadataKV {
		t.Helper()
		v, ok := kv.Get(key)
		if !ok {
			t.Fatalf("key %q missing", key)
		}
		return v
	}
	scalars := []struct {
		key  string
		typ  gguf.GGUFMetadataValueType
		want any
		got  func(gguf.GGUFMetadataKV) any
	}{
		{"general.name", gguf.GGUFMetadataValueTypeString, "tiny ✓ test", func(v gguf.GGUFMetadataKV) any { return v.ValueString() }},
		{"test.u8", gguf.GGUFMetadataValueTypeUint8, uint8(200), func(v gguf.GGUFMetadataKV) any { return v.ValueUint8() }},
		{"test.i8", gguf.GGUFMetadataValueTypeInt8, int8(-100), func(v gguf.GGUFMetadataKV) any { return v.ValueInt8() }},
		{"test.u16", gguf.GGUFMetadataValueTypeUint16, uint16(60000), func(v gguf.GGUFMetadataKV) any { return v.ValueUint16() }},
		{"test.i16", gguf.GGUFMetadataValueTypeInt16, int16(-30000), func(v gguf.GGUFMetadataKV) any { return v.ValueInt16() }},
		{"test.u32", gguf.GGUFMetadataValueTypeUint32, uint32(4000000000), func(v gguf.GGUFMetadataKV) any { return v.ValueUint32() }},
		{"test.i32", gguf.GGUFMetadataValueTypeInt32, int32(-2000000000), func(v gguf.GGUFMetadataKV) any { return v.ValueInt32() }},
		{"test.f32", gguf.GGUFMetadataValueTypeFloat32, float32(0.48145467), func(v gguf.GGUFMetadataKV) any { return v.ValueFloat32() }},
		{"test.bool", gguf.GGUFMetadataValueTypeBool, true, func(v gguf.GGUFMetadataKV) any { return v.ValueBool() }},
		{"test.u64", gguf.GGUFMetadataValueTypeUint64, uint64(1) << 60, func(v gguf.GGUFMetadataKV) any { return v.ValueUint64() }},
		{"test.i64", gguf.GGUFMetadataValueTypeInt64, int64(-1) << 60, func(v gguf.GGUFMetadataKV) any { return v.ValueInt64() }},
		{"test.f64", gguf.GGUFMetadataValueTypeFloat64, math.Pi, func(v gguf.GGUFMetadataKV) any { return v.ValueFloat64() }},
	}
	for _, s := range scalars {
		v := get(s.key)
		if v.ValueType != s.typ {
			t.Errorf("%s: type %v, want %v", s.key, v.ValueType, s.typ)
			continue
		}
		if got := s.got(v); got != s.want {
			t.Errorf("%s = %v, want %v", s.key, got, s.want)
		}
	}
	arrays := []struct {
		key  string
		elem gguf.GGUFMetadataValueType
		want any
		got  func(gguf.GGUFMetadataKVArrayValue) any
	}{
		{"test.arr.u8", gguf.GGUFMetadataValueTypeUint8, []uint8{1, 2, 255}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesUint8() }},
		{"test.arr.i8", gguf.GGUFMetadataValueTypeInt8, []int8{-1, 0, 1}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesInt8() }},
		{"test.arr.u16", gguf.GGUFMetadataValueTypeUint16, []uint16{1, 65535}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesUint16() }},
		{"test.arr.i16", gguf.GGUFMetadataValueTypeInt16, []int16{-32768, 32767}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesInt16() }},
		{"test.arr.u32", gguf.GGUFMetadataValueTypeUint32, []uint32{7, 8, 9}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesUint32() }},
		{"test.arr.i32", gguf.GGUFMetadataValueTypeInt32, []int32{336, 672, 672, 336, -5}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesInt32() }},
		{"test.arr.f32", gguf.GGUFMetadataValueTypeFloat32, []float32{0.48145467, 0.4578275, 0.40821072}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesFloat32() }},
		{"test.arr.bool", gguf.GGUFMetadataValueTypeBool, []bool{true, false, true}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesBool() }},
		{"test.arr.str", gguf.GGUFMetadataValueTypeString, []string{"<|vision_start|>", "", "a b", "日本"}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesString() }},
		{"test.arr.u64", gguf.GGUFMetadataValueTypeUint64, []uint64{0, math.MaxUint64}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesUint64() }},
		{"test.arr.i64", gguf.GGUFMetadataValueTypeInt64, []int64{math.MinInt64, 3}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesInt64() }},
		{"test.arr.f64", gguf.GGUFMetadataValueTypeFloat64, []float64{1.5, -2.25}, func(a gguf.GGUFMetadataKVArrayValue) any { return a.ValuesFloat64() }},
	}
	for _, a := range arrays {
		v := get(a.key)
		if v.ValueType != gguf.GGUFMetadataValueTypeArray {
			t.Errorf("%s: type %v, want array", a.key, v.ValueType)
			continue
		}
		arr := v.ValueArray()
		if arr.Type != a.elem {
			t.Errorf("%s: element type %v, want %v", a.key, arr.Type, a.elem)
			continue
		}
		if got := a.got(arr); !reflect.DeepEqual(got, a.want) {
			t.Errorf("%s = %v, want %v", a.key, got, a.want)
		}
	}
	if arr := get("test.arr.empty").ValueArray(); arr.Len != 0 || arr.Type != gguf.GGUFMetadataValueTypeString {
		t.Errorf("empty array: len %d type %v", arr.Len, arr.Type)
	}
	if arch := f.Architecture(); arch.MaximumContextLength != 4096 {
		t.Errorf("context length = %d, want 4096", arch.MaximumContextLength)
	}
}

func TestRoundTripTensors(t *testing.T) {
	for _, alignment := range []uint32{0, 32, 64} {
		kvs := []KV{{"general.architecture", "llama"}}
		want := uint64(DefaultAlignment)
		if alignment != 0 {
			kvs = append(kvs, KV{AlignmentKey, alignment})
			want = uint64(alignment)
		}
		tensors := []Tensor{
			{Name: "a.weight", Dims: []uint64{3}, Type: F32, Data: F32Bytes(1, -2, 3.5)},
			{Name: "b.weight", Dims: []uint64{5, 2}, Type: F16, Data: F16Bytes(0, 1, -1, 0.5, 65504, 1e-7, 2, 3, 4, 5)},
			{Name: "c.weight", Dims: []uint64{1, 1, 1, 9}, Type: F32, Data: F32Bytes(1, 2, 3, 4, 5, 6, 7, 8, 9)},
		}
		path := writeTemp(t, kvs, tensors)
		f, err := gguf.ParseGGUFFile(path, gguf.UseMMap())
		if err != nil {
			t.Fatalf("alignment %d: parse: %v", alignment, err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.TensorDataStartOffset%int64(want) != 0 {
			t.Errorf("alignment %d: data starts at %d, not aligned to %d", alignment, f.TensorDataStartOffset, want)
		}
		if len(raw)%int(want) != 0 {
			t.Errorf("alignment %d: file size %d not a multiple of %d", alignment, len(raw), want)
		}
		if len(f.TensorInfos) != len(tensors) {
			t.Fatalf("alignment %d: %d tensor infos, want %d", alignment, len(f.TensorInfos), len(tensors))
		}
		for i, ti := range f.TensorInfos {
			src := tensors[i]
			if ti.Name != src.Name || !reflect.DeepEqual(ti.Dimensions, src.Dims) || uint32(ti.Type) != uint32(src.Type) {
				t.Errorf("tensor %d: got %s %v type %v, want %s %v type %d", i, ti.Name, ti.Dimensions, ti.Type, src.Name, src.Dims, src.Type)
			}
			if ti.Offset%want != 0 {
				t.Errorf("tensor %s: offset %d not aligned to %d", ti.Name, ti.Offset, want)
			}
			start := uint64(f.TensorDataStartOffset) + ti.Offset
			if got := raw[start : start+uint64(len(src.Data))]; !bytes.Equal(got, src.Data) {
				t.Errorf("tensor %s: data differs", ti.Name)
			}
		}
	}
}

func TestFloat16Bits(t *testing.T) {
	cases := []struct {
		in   float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.5, 0x3800},
		{65504, 0x7bff}, // largest half
		{65520, 0x7c00}, // rounds up to Inf
		{1e6, 0x7c00},   // overflow
		{float32(math.Inf(-1)), 0xfc00},
		{5.960464477539063e-08, 0x0001}, // smallest subnormal
		{6.103515625e-05, 0x0400},       // smallest normal
		{1.0009765625, 0x3c01},          // 1 + 2^-10
		{1.00048828125, 0x3c00},         // halfway, ties to even (down)
		{1.00146484375, 0x3c02},         // halfway, ties to even (up)
		{2.9802322e-08, 0x0000},         // half of the smallest subnormal: ties to even (zero)
	}
	for _, c := range cases {
		if got := Float16Bits(c.in); got != c.want {
			t.Errorf("Float16Bits(%g) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
	if got := Float16Bits(float32(math.NaN())); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Errorf("NaN -> %#04x, want a NaN", got)
	}
	if got := binary.LittleEndian.Uint16(F16Bytes(1)); got != 0x3c00 {
		t.Errorf("F16Bytes(1) = %#04x", got)
	}
}

func TestWriteRejectsBadInput(t *testing.T) {
	cases := []struct {
		name    string
		kvs     []KV
		tensors []Tensor
		want    string
	}{
		{"unsupported type", []KV{{"k", 3}}, nil, "unsupported value type int"},
		{"nested array", []KV{{"k", [][]int32{{1}}}}, nil, "unsupported value type"},
		{"empty key", []KV{{"", uint32(1)}}, nil, "empty key"},
		{"bad alignment", []KV{{AlignmentKey, uint32(24)}}, nil, "power of two"},
		{"alignment type", []KV{{AlignmentKey, uint64(32)}}, nil, "must be a uint32"},
		{"short data", nil, []Tensor{{Name: "t", Dims: []uint64{4}, Type: F32, Data: F32Bytes(1)}}, "data holds 4 bytes, dimensions need 16"},
		{"quantised", nil, []Tensor{{Name: "t", Dims: []uint64{32}, Type: 2, Data: make([]byte, 18)}}, "not supported"},
		{"no dims", nil, []Tensor{{Name: "t", Type: F32}}, "0 dimensions"},
		{"zero dim", nil, []Tensor{{Name: "t", Dims: []uint64{0}, Type: F32}}, "a dimension is 0"},
		{"overflow", nil, []Tensor{{Name: "t", Dims: []uint64{1 << 40, 1 << 40}, Type: F32}}, "overflow"},
		{"no name", nil, []Tensor{{Dims: []uint64{1}, Type: F32, Data: F32Bytes(1)}}, "empty name"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		err := Write(&buf, c.kvs, c.tensors)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want containing %q", c.name, err, c.want)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: %d bytes written despite the error", c.name, buf.Len())
		}
	}
}

// failingWriter fails after n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, os.ErrClosed
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWritePropagatesWriterError(t *testing.T) {
	err := Write(&failingWriter{n: 10}, allTypesKVs(), nil)
	if err == nil || !strings.Contains(err.Error(), "file already closed") {
		t.Fatalf("err = %v, want the writer's error", err)
	}
}

func TestHeaderBytes(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, []KV{{"a", uint8(7)}}, nil); err != nil {
		t.Fatal(err)
	}
	want := []byte{'G', 'G', 'U', 'F', 3, 0, 0, 0}
	want = append(want, 0, 0, 0, 0, 0, 0, 0, 0) // tensors
	want = append(want, 1, 0, 0, 0, 0, 0, 0, 0) // kvs
	want = append(want, 1, 0, 0, 0, 0, 0, 0, 0, 'a')
	want = append(want, 0, 0, 0, 0, 7) // type u8, value
	for len(want)%32 != 0 {
		want = append(want, 0)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("bytes = %v\nwant    %v", buf.Bytes(), want)
	}
}

func BenchmarkWriteVocab(b *testing.B) {
	tokens := make([]string, 50000)
	for i := range tokens {
		tokens[i] = "token" + strings.Repeat("x", i%13)
	}
	kvs := []KV{{"general.architecture", "llama"}, {"tokenizer.ggml.tokens", tokens}}
	var size int
	for _, s := range tokens {
		size += 8 + len(s)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(discardWriter{}, kvs, nil); err != nil {
			b.Fatal(err)
		}
	}
}

type discardWriter struct{}

func (discardWriter) Write(p []byte) (int, error) { return len(p), nil }
