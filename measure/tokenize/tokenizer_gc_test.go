package tokenize

import (
	"reflect"
	"runtime"
	"runtime/metrics"
	"testing"
)

// BenchmarkGC times one garbage collection cycle with nothing loaded and with the o200k
// tokenizer loaded: the tokenizer lives for the whole of a replay, and every cycle marks
// whatever in its tables holds pointers. gc-cpu-ns/op is the CPU time the runtime counts
// for the collector per cycle (less moved by other processes than the wall time).
func BenchmarkGC(b *testing.B) {
	b.Run("nothing", func(b *testing.B) { benchmarkGC(b, nil) })
	b.Run("o200k", func(b *testing.B) {
		tok, err := loadTiktoken("o200k_base")
		if err != nil {
			b.Fatal(err)
		}
		tok.Count("warm the lazily built tables: aGVsbG8gd29ybGQ=")
		benchmarkGC(b, tok)
	})
}

func benchmarkGC(b *testing.B, live any) {
	sample := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	runtime.GC()
	metrics.Read(sample)
	before := sample[0].Value.Float64()
	for b.Loop() {
		runtime.GC()
	}
	metrics.Read(sample)
	b.ReportMetric((sample[0].Value.Float64()-before)*1e9/float64(b.N), "gc-cpu-ns/op")
	runtime.KeepAlive(live)
}

// TestTokenizerHoldsFewPointers counts the pointers the garbage collector finds in a loaded
// tokenizer (every pointer, string, slice, map entry and interface reachable from it): tables
// of one pointer per token would make every collection cycle of a replay mark hundreds of
// thousands of them.
func TestTokenizerHoldsFewPointers(t *testing.T) {
	const limit = 2000
	loaders := map[string]func(testing.TB) *BPETokenizer{
		"o200k_base":  func(tb testing.TB) *BPETokenizer { return ourTiktoken(tb, "o200k_base") },
		"cl100k_base": func(tb testing.TB) *BPETokenizer { return ourTiktoken(tb, "cl100k_base") },
		"qwen3":       qwen3,
	}
	for name, load := range loaders {
		t.Run(name, func(t *testing.T) {
			tok := load(t)
			tok.Count("warm the lazily built tables: aGVsbG8gd29ybGQ= and some prose")
			n := countPointers(reflect.ValueOf(tok), map[uintptr]bool{})
			t.Logf("%s: %d pointers", name, n)
			if n > limit {
				t.Errorf("%s: the tokenizer holds %d pointers, want at most %d", name, n, limit)
			}
		})
	}
}

// countPointers returns the number of pointer words reachable from v, following each pointer
// once (seen holds the addresses followed). Functions, channels and unsafe pointers count
// one each and are not followed.
func countPointers(v reflect.Value, seen map[uintptr]bool) int {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		if seen[v.Pointer()] {
			return 1
		}
		seen[v.Pointer()] = true
		return 1 + countPointers(v.Elem(), seen)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return 1 + countPointers(v.Elem(), seen)
	case reflect.String:
		if v.Len() == 0 {
			return 0
		}
		return 1
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		if seen[v.Pointer()] && v.Len() > 0 {
			return 1
		}
		seen[v.Pointer()] = true
		return 1 + countElemPointers(v, seen)
	case reflect.Array:
		return countElemPointers(v, seen)
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += countPointers(v.Field(i), seen)
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		n := 1
		for it := v.MapRange(); it.Next(); {
			n += countPointers(it.Key(), seen) + countPointers(it.Value(), seen)
		}
		return n
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if v.IsNil() {
			return 0
		}
		return 1
	}
	return 0
}

// countElemPointers is countPointers of every element of a slice or array.
func countElemPointers(v reflect.Value, seen map[uintptr]bool) int {
	n := 0
	if holdsPointers(v.Type().Elem()) {
		for i := range v.Len() {
			n += countPointers(v.Index(i), seen)
		}
	}
	return n
}

// holdsPointers says whether values of type t contain pointer words.
func holdsPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.String, reflect.Slice, reflect.Map,
		reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && holdsPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// TestTablesMatchVocabulary holds the tables built from a vocabulary to it: every token is in
// the list once and found by the index with its id, the decoder gives each id its bytes (a
// special's where the id is one), ids that are no token do not decode, and spans one byte off
// a long token (the last byte changed, one byte more, one less) are found exactly when the
// vocabulary has them.
func TestTablesMatchVocabulary(t *testing.T) {
	for _, name := range []string{"o200k_base", "cl100k_base"} {
		enc, _ := tiktokenEncodings(name)
		vocab, err := readTiktokenRanks(enc.file)
		if err != nil {
			t.Fatal(err)
		}
		tok := ourTiktoken(t, name)
		e := tok.engine
		if got := len(e.vocab.ids); got != len(vocab) {
			t.Fatalf("%s: the list holds %d tokens, the vocabulary %d", name, got, len(vocab))
		}
		for text, id := range e.vocab.all() {
			if want, ok := vocab[text]; !ok || want != id {
				t.Fatalf("%s: the list has %q as %d, the vocabulary as %d (%v)", name, text, id, want, ok)
			}
		}
		longs := 0
		for range e.index.long.tokens() {
			longs++
		}
		wantLongs := 0
		for text, id := range vocab {
			if len(text) > maxShortToken {
				wantLongs++
			}
			got, ok := uint32(0), false
			if len(text) == 1 {
				got, ok = e.byteID[text[0]], e.byteOK[text[0]]
			} else {
				got, ok = e.index.lookup(text)
			}
			if !ok || got != id {
				t.Fatalf("%s: the index finds %q as %d (%v), want %d", name, text, got, ok, id)
			}
			if dec, err := tok.Decode([]int{int(id)}); err != nil || string(dec) != text {
				t.Fatalf("%s: Decode(%d) = %q, %v; want %q", name, id, dec, err, text)
			}
			if len(text) <= maxShortToken {
				continue
			}
			for _, near := range []string{text[:len(text)-1] + string(text[len(text)-1]^1), text + "e", text[:len(text)-1]} {
				want, inVocab := vocab[near]
				if got, ok := e.index.lookup(near); ok != inVocab || got != want {
					t.Fatalf("%s: the index finds %q as %d (%v), the vocabulary has %d (%v)", name, near, got, ok, want, inVocab)
				}
			}
		}
		if longs != wantLongs {
			t.Errorf("%s: the long index holds %d tokens, want %d", name, longs, wantLongs)
		}
		for text, id := range enc.specials {
			if dec, err := tok.Decode([]int{int(id)}); err != nil || string(dec) != text {
				t.Errorf("%s: Decode(%d) = %q, %v; want the special %q", name, id, dec, err, text)
			}
		}
		used := map[uint32]bool{}
		for _, id := range vocab {
			used[id] = true
		}
		for _, id := range enc.specials {
			used[id] = true
		}
		for _, id := range []int{-1, len(tok.decoder.spans), len(tok.decoder.spans) + 1000} {
			if _, err := tok.Decode([]int{id}); err == nil {
				t.Errorf("%s: Decode(%d) gives no error", name, id)
			}
		}
		for id := range tok.decoder.spans {
			if _, err := tok.Decode([]int{id}); (err == nil) != used[uint32(id)] {
				t.Errorf("%s: Decode(%d) errs %v, but the id is a token: %v", name, id, err, used[uint32(id)])
			}
		}
	}
}
