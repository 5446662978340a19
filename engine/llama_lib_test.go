package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
)

// TestLlamaLibPlaces: the places tried, in order, are beside the executable (bin/ of `make
// build` too), the module folder, the user cache and the working directory.
func TestLlamaLibPlaces(t *testing.T) {
	got := llamaLibPlaces("/opt/se/bin/strata-eval", "/src/strata-eval", "/home/u/.cache")
	want := []string{
		"/opt/se/bin/llama-libs/linux-x64-cuda", "/opt/se/bin/llama-libs/linux-x64",
		"/opt/se/.cache/llama-libs/linux-x64-cuda", "/opt/se/.cache/llama-libs/linux-x64",
		"/src/strata-eval/.cache/llama-libs/linux-x64-cuda", "/src/strata-eval/.cache/llama-libs/linux-x64",
		"/home/u/.cache/strata-eval/llama-libs/linux-x64-cuda", "/home/u/.cache/strata-eval/llama-libs/linux-x64",
		".cache/llama-libs/linux-x64-cuda", ".cache/llama-libs/linux-x64",
	}
	if len(got) != len(want) {
		t.Fatalf("%d places, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].dir != want[i] {
			t.Errorf("place %d: %s, want %s", i, got[i].dir, want[i])
		}
	}
	if n := len(llamaLibPlaces("", "", "")); n != 2 {
		t.Errorf("with no executable, module or cache: %d places, want the working directory's 2", n)
	}
}

// TestFindLlamaLibsOutsideTheWorkingDirectory: from a working directory that holds no .cache,
// the libraries `make llama-libs` fetched are found in the module folder, and libraries put in
// the user cache folder are found there.
func TestFindLlamaLibsOutsideTheWorkingDirectory(t *testing.T) {
	root, err := tinymodel.RepoRoot()
	if err != nil {
		t.Skip(err)
	}
	real := filepath.Join(root, ".cache", "llama-libs", "linux-x64")
	if _, err := os.Stat(filepath.Join(real, "libllama.so")); err != nil {
		t.Skipf("no llama.cpp libraries in %s: run `make llama-libs`", real)
	}
	t.Setenv(LlamaLibEnv, "")
	t.Chdir(t.TempDir())
	found, err := FindLlamaLibs("")
	if err != nil {
		t.Fatalf("from another working directory: %v", err)
	}
	if want, _ := filepath.EvalSymlinks(filepath.Join(root, ".cache", "llama-libs")); filepath.Dir(mustEval(t, found)) != want {
		t.Errorf("found %s, want the module folder's %s", found, real)
	}

	// the user cache: a folder of links to the real libraries
	cache := t.TempDir()
	dir := filepath.Join(cache, "strata-eval", "llama-libs", "linux-x64")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range llamaRequiredLibs {
		if err := os.Symlink(filepath.Join(real, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := findLlamaLibs("", llamaLibPlaces("", "", cache))
	if err != nil || got != dir {
		t.Errorf("from the user cache: %s, %v; want %s", got, err, dir)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	e, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
