package blake3x

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zeebo/blake3"
)

// hashers names the hashers under test: the portable tree always, the AVX-512 kernel where
// the CPU has it, and New.
func hashers(t testing.TB) map[string]func() hash.Hash {
	hs := map[string]func() hash.Hash{
		"portable": func() hash.Hash { return newHasher(false) },
		"New":      New,
	}
	if hasAVX512 {
		hs["avx512"] = func() hash.Hash { return newHasher(true) }
	} else {
		t.Log("no AVX-512 kernel in this build or on this CPU: testing the portable tree and New only")
	}
	return hs
}

// writeSplit writes data to h in pieces of random lengths (up to about twice maxPiece, some
// empty) drawn from rng.
func writeSplit(h hash.Hash, data []byte, rng *rand.Rand, maxPiece int) {
	for len(data) > 0 {
		n := min(len(data), rng.IntN(2*maxPiece+1))
		if rng.IntN(8) == 0 {
			n = 0
		}
		if k, err := h.Write(data[:n]); k != n || err != nil {
			panic(fmt.Sprintf("Write(%d bytes) = %d, %v", n, k, err))
		}
		data = data[n:]
	}
}

// vectorInput is the input of the official test vectors: byte i is i mod 251.
func vectorInput(n int) []byte {
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i % 251)
	}
	return data
}

// TestVectors holds every hasher to BLAKE3's official test vectors (test_vectors.json of the
// BLAKE3 repository, lengths 0 to 102400; the first 32 bytes of each extended hash), the input
// written whole and in random splits.
func TestVectors(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "test_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		Cases []struct {
			InputLen int    `json:"input_len"`
			Hash     string `json:"hash"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &vectors); err != nil {
		t.Fatalf("test_vectors.json: %v", err)
	}
	if len(vectors.Cases) < 30 {
		t.Fatalf("test_vectors.json holds %d cases, want the official 35", len(vectors.Cases))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for name, newHash := range hashers(t) {
		for _, c := range vectors.Cases {
			want := c.Hash[:64]
			data := vectorInput(c.InputLen)
			h := newHash()
			h.Write(data)
			if got := hex.EncodeToString(h.Sum(nil)); got != want {
				t.Errorf("%s, %d bytes whole: %s, want %s", name, c.InputLen, got, want)
			}
			for _, maxPiece := range []int{1, 100, 3000, 40000} {
				if maxPiece == 1 && c.InputLen > 20000 {
					continue
				}
				h.Reset()
				writeSplit(h, data, rng, maxPiece)
				if got := hex.EncodeToString(h.Sum(nil)); got != want {
					t.Errorf("%s, %d bytes in pieces of up to %d: %s, want %s", name, c.InputLen, 2*maxPiece, got, want)
				}
			}
		}
	}
}

// randomLength draws a length up to a few MiB, often next to a boundary of the tree: a block,
// a chunk, a batch of 16 chunks, 64 KiB, a level of joins.
func randomLength(rng *rand.Rand) int {
	edges := []int{64, 1024, 16 << 10, 32 << 10, 64 << 10, 512 << 10, 1 << 20, 4 << 20}
	if rng.IntN(2) == 0 {
		return rng.IntN(3 << 20)
	}
	return max(0, edges[rng.IntN(len(edges))]*(1+rng.IntN(3))+rng.IntN(5)-2)
}

// TestAgainstZeebo compares every hasher with github.com/zeebo/blake3 on random inputs of
// random lengths up to a few MiB, written in random splits, with Sum taken along the way (it
// must not disturb what follows) and Reset between inputs.
func TestAgainstZeebo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rounds := 24
	if testing.Short() {
		rounds = 6
	}
	for name, newHash := range hashers(t) {
		h := newHash()
		for range rounds {
			data := make([]byte, randomLength(rng))
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			h.Reset()
			ref := blake3.New()
			rest := data
			for len(rest) > 0 {
				n := min(len(rest), rng.IntN(len(data)/3+2))
				writeSplit(h, rest[:n], rng, []int{1, 700, 20000, 70000}[rng.IntN(4)])
				ref.Write(rest[:n])
				rest = rest[n:]
				if got, want := h.Sum(nil), ref.Sum(nil); !bytes.Equal(got, want) {
					t.Fatalf("%s after %d of %d bytes: %x, want %x", name, len(data)-len(rest), len(data), got, want)
				}
			}
			if got, want := h.Sum([]byte("x")), ref.Sum([]byte("x")); !bytes.Equal(got, want) {
				t.Fatalf("%s, %d bytes: %x, want %x", name, len(data), got, want)
			}
		}
	}
}

// TestLongInput crosses the top vector level (16 MiB), where the CVs go to the stack, and
// sums at lengths where the tree is full and just past it.
func TestLongInput(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes 70 MiB")
	}
	piece := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range piece {
		piece[i] = byte(rng.Uint32())
	}
	for name, newHash := range hashers(t) {
		if name == "portable" {
			continue // the same tree as the kernel's, at a tenth of the speed
		}
		h, ref := newHash(), blake3.New()
		for i := 1; i <= 1120; i++ {
			h.Write(piece)
			ref.Write(piece)
			if i%256 == 0 || i == 1 {
				if got, want := h.Sum(nil), ref.Sum(nil); !bytes.Equal(got, want) {
					t.Fatalf("%s after %d KiB: %x, want %x", name, 64*i, got, want)
				}
			}
		}
		h.Write(piece[:1])
		ref.Write(piece[:1])
		if got, want := h.Sum(nil), ref.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("%s after 70 MiB and a byte: %x, want %x", name, got, want)
		}
	}
}

// TestWriteDoesNotAllocate: writing, whole batches or pieces, allocates nothing.
func TestWriteDoesNotAllocate(t *testing.T) {
	data := make([]byte, 100<<10)
	for name, newHash := range hashers(t) {
		if name == "New" {
			continue
		}
		h := newHash()
		if n := testing.AllocsPerRun(20, func() {
			h.Write(data)
			h.Write(data[:777])
		}); n != 0 {
			t.Errorf("%s: %v allocations per run of writes", name, n)
		}
	}
}

// TestSizes: a hash.Hash of BLAKE3-256 with 64-byte blocks, as zeebo's.
func TestSizes(t *testing.T) {
	for name, newHash := range hashers(t) {
		if h := newHash(); h.Size() != 32 || h.BlockSize() != 64 {
			t.Errorf("%s: Size %d, BlockSize %d", name, h.Size(), h.BlockSize())
		}
	}
}

// FuzzBLAKE3x compares every hasher with zeebo/blake3 on an input of length n (up to 1 MiB)
// made from seed, written in pieces drawn from splits.
func FuzzBLAKE3x(f *testing.F) {
	f.Add([]byte{}, uint32(0), uint64(0))
	f.Add([]byte("a"), uint32(1), uint64(1))
	f.Add([]byte("abc"), uint32(1024), uint64(7))
	f.Add([]byte("the quick brown fox"), uint32(1025), uint64(9))
	f.Add([]byte{0, 1, 2, 3}, uint32(16<<10), uint64(11))
	f.Add([]byte{255}, uint32(16<<10+1), uint64(13))
	f.Add([]byte("xyz"), uint32(32<<10-1), uint64(17))
	f.Add([]byte("batch"), uint32(64<<10), uint64(19))
	f.Add([]byte("levels"), uint32(513<<10+3), uint64(23))
	f.Fuzz(func(t *testing.T, seed []byte, n uint32, splits uint64) {
		data := make([]byte, n%(1<<20+1))
		for i := range data {
			if len(seed) > 0 {
				data[i] = seed[i%len(seed)] ^ byte(i/len(seed))
			}
		}
		want := blake3.Sum256(data)
		for name, newHash := range hashers(t) {
			rng := rand.New(rand.NewPCG(splits, uint64(len(data))))
			h := newHash()
			writeSplit(h, data, rng, 1+int(splits%50000))
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("%s, %d bytes: %x, want %x", name, len(data), got, want)
			}
		}
	})
}

// BenchmarkBLAKE3x hashes 64 MiB in writes of 64 KiB (how the inputs are read) with this
// package's hasher and with zeebo/blake3's.
func BenchmarkBLAKE3x(b *testing.B) {
	piece := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range piece {
		piece[i] = byte(rng.Uint32())
	}
	const total = 64 << 20
	run := func(b *testing.B, newHash func() hash.Hash) {
		b.SetBytes(total)
		b.ReportAllocs()
		var sum []byte
		for b.Loop() {
			h := newHash()
			for range total / len(piece) {
				h.Write(piece)
			}
			sum = h.Sum(sum[:0])
		}
	}
	b.Run("blake3x", func(b *testing.B) { run(b, New) })
	b.Run("zeebo", func(b *testing.B) { run(b, func() hash.Hash { return blake3.New() }) })
}

// TestKernelIsGenerated: kernel_amd64.s is what gen_kernel.go writes today.
func TestKernelIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	goTool := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Skip("no go tool to run gen_kernel.go")
		}
	}
	out := filepath.Join(t.TempDir(), "kernel_amd64.s")
	if msg, err := exec.Command(goTool, "run", "gen_kernel.go", "-out", out).CombinedOutput(); err != nil {
		t.Fatalf("go run gen_kernel.go: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("kernel_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("kernel_amd64.s differs from what gen_kernel.go writes: run go generate ./internal/blake3x")
	}
}
