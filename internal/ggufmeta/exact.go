package ggufmeta

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// ExactStrings reads an array of strings of a GGUF file's metadata byte for byte. The parser
// behind Parse trims white space off every string it reads, which turns a token made of
// spaces or newlines (GPT-NeoX's runs of spaces, Gemma's newlines) into another or an empty
// one. ok is false when the key is absent.
func ExactStrings(path, key string) (out []string, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	r := &ggufReader{r: bufio.NewReaderSize(f, 1<<16)}
	magic := r.u32()
	version := r.u32()
	r.u64() // tensors
	n := r.u64()
	if r.err == nil && (magic != 0x46554747 || version < 2) {
		return nil, false, fmt.Errorf("read %s: not a GGUF file of version 2 or later", path)
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		k := r.str()
		typ := r.u32()
		if k != key {
			r.skip(typ)
			continue
		}
		if typ != ggufArray || r.u32() != ggufString {
			return nil, false, fmt.Errorf("read %s: key %s is not an array of strings", path, key)
		}
		count := r.u64()
		if count > 1<<26 {
			return nil, false, fmt.Errorf("read %s: key %s has an implausible %d entries", path, key, count)
		}
		out = make([]string, 0, count)
		for j := uint64(0); j < count && r.err == nil; j++ {
			out = append(out, r.str())
		}
		if r.err != nil {
			return nil, false, fmt.Errorf("read %s at key %s: %w", path, key, r.err)
		}
		return out, true, nil
	}
	if r.err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, r.err)
	}
	return nil, false, nil
}

// GGUF value types.
const (
	ggufString = 8
	ggufArray  = 9
)

// ggufFixedSize is the size of each fixed-size GGUF value type (0 for string and array).
var ggufFixedSize = [13]int{1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8}

// ggufReader reads little-endian GGUF values, keeping the first error.
type ggufReader struct {
	r   *bufio.Reader
	err error
	buf [8]byte
}

func (g *ggufReader) read(n int) []byte {
	if g.err != nil {
		return g.buf[:n]
	}
	if _, err := io.ReadFull(g.r, g.buf[:n]); err != nil {
		g.err = err
	}
	return g.buf[:n]
}

func (g *ggufReader) u32() uint32 { return binary.LittleEndian.Uint32(g.read(4)) }
func (g *ggufReader) u64() uint64 { return binary.LittleEndian.Uint64(g.read(8)) }

func (g *ggufReader) str() string {
	n := g.u64()
	if g.err != nil {
		return ""
	}
	if n > 1<<30 {
		g.err = fmt.Errorf("string of %d bytes", n)
		return ""
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(g.r, b); err != nil {
		g.err = err
	}
	return string(b)
}

// skip reads past one value of type typ.
func (g *ggufReader) skip(typ uint32) {
	switch {
	case g.err != nil:
	case typ == ggufString:
		n := g.u64()
		g.discard(n)
	case typ == ggufArray:
		elem, n := g.u32(), g.u64()
		if elem < uint32(len(ggufFixedSize)) && ggufFixedSize[elem] > 0 {
			g.discard(n * uint64(ggufFixedSize[elem]))
			return
		}
		for i := uint64(0); i < n && g.err == nil; i++ {
			g.skip(elem)
		}
	case typ < uint32(len(ggufFixedSize)):
		g.discard(uint64(ggufFixedSize[typ]))
	default:
		g.err = fmt.Errorf("unknown value type %d", typ)
	}
}

func (g *ggufReader) discard(n uint64) {
	if g.err != nil {
		return
	}
	if n > 1<<40 {
		g.err = errors.New("implausible value size")
		return
	}
	if _, err := g.r.Discard(int(n)); err != nil {
		g.err = err
	}
}
