package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/hybridgroup/yzma/pkg/llama"
	"github.com/hybridgroup/yzma/pkg/mtmd"
)

// LlamaRelease is the llama.cpp release the bindings (github.com/hybridgroup/yzma v1.28.0)
// are written against; libraries of another release fail to load on missing symbols.
const LlamaRelease = "v0.5.0"

// LlamaLibsPackage is the npm package holding prebuilt CPU libraries of LlamaRelease for Linux
// x86-64; LlamaLibsCUDAPackage holds the CUDA build of the same release.
const (
	LlamaLibsPackage     = "@node-llama-cpp/linux-x64@3.22.1"
	LlamaLibsCUDAPackage = "@node-llama-cpp/linux-x64-cuda@3.22.1"
)

// LlamaLibEnv is the environment variable naming the library folder (yzma's own convention).
const LlamaLibEnv = "YZMA_LIB"

// llamaLibDefaults are the folders `make llama-libs` fills, relative to a folder holding a
// .cache (the repository root), tried in order when neither --llama-lib nor YZMA_LIB names one.
var llamaLibDefaults = []string{".cache/llama-libs/linux-x64-cuda", ".cache/llama-libs/linux-x64"}

// llamaLibPlace is a folder that may hold the libraries, with where it comes from (for errors).
type llamaLibPlace struct{ dir, from string }

// llamaLibPlaces are the folders tried when neither --llama-lib nor YZMA_LIB names one, in
// order: beside the executable (exe/llama-libs/<pkg>, and exe/../.cache/llama-libs/<pkg> for
// `make build`'s bin/strata-eval), the module's own folder (the source tree of a clone or `go
// run`, the module cache of `go install`: where this file was compiled from, when the build
// kept the path), the user cache folder ($XDG_CACHE_HOME/strata-eval/llama-libs/<pkg>), and
// the working directory. An empty exe, module or cache skips that place.
func llamaLibPlaces(exe, module, cache string) []llamaLibPlace {
	var out []llamaLibPlace
	add := func(base, from string, rels ...string) {
		if base == "" {
			return
		}
		for _, rel := range rels {
			out = append(out, llamaLibPlace{filepath.Join(base, rel), from})
		}
	}
	pkgs := make([]string, len(llamaLibDefaults))
	for i, d := range llamaLibDefaults {
		pkgs[i] = strings.TrimPrefix(d, ".cache/")
	}
	if exe != "" {
		add(filepath.Dir(exe), "beside the executable", pkgs...)
		add(filepath.Dir(filepath.Dir(exe)), "beside the executable", llamaLibDefaults...)
	}
	add(module, "the module folder", llamaLibDefaults...)
	if cache != "" {
		add(filepath.Join(cache, "strata-eval"), "the user cache", pkgs...)
	}
	add(".", "the working directory", llamaLibDefaults...)
	return out
}

// moduleDir is the root of the module this file was compiled from, when the build recorded an
// absolute path (not with -trimpath) and the folder still exists; "" otherwise.
func moduleDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	root := filepath.Dir(filepath.Dir(file)) // engine/llama_lib.go → the module root
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return ""
	}
	return root
}

// llamaRequiredLibs are the files llama.Load opens.
var llamaRequiredLibs = []string{"libllama.so", "libggml.so", "libggml-base.so"}

// ErrLlamaLibsMissing is wrapped by the error of FindLlamaLibs and NewLlama when no folder
// holds the llama.cpp libraries.
var ErrLlamaLibsMissing = errors.New("llama.cpp libraries not found")

// FindLlamaLibs returns the folder holding the llama.cpp libraries: dir when given, else
// $YZMA_LIB, else the first of llamaLibPlaces that holds libllama.so (beside the executable,
// the module folder, the user cache, the working directory: where `make llama-libs` puts
// them). The error names what is missing and how to get it.
func FindLlamaLibs(dir string) (string, error) {
	exe, _ := os.Executable()
	cache, _ := os.UserCacheDir()
	return findLlamaLibs(dir, llamaLibPlaces(exe, moduleDir(), cache))
}

// findLlamaLibs is FindLlamaLibs over the given places.
func findLlamaLibs(dir string, places []llamaLibPlace) (string, error) {
	how := fmt.Sprintf("run `make llama-libs` (npm %s; LLAMA_LIBS_VARIANT=cuda for %s), or point --llama-lib DIR or %s at a folder holding libllama.so, libggml.so and libggml-base.so of llama.cpp %s",
		LlamaLibsPackage, LlamaLibsCUDAPackage, LlamaLibEnv, LlamaRelease)
	check := func(d, from string) (string, error) {
		var missing []string
		for _, name := range llamaRequiredLibs {
			if _, err := os.Stat(filepath.Join(d, name)); err != nil {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return "", fmt.Errorf("%w: %s %s lacks %s: %s", ErrLlamaLibsMissing, from, d, strings.Join(missing, ", "), how)
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", fmt.Errorf("llama.cpp libraries: %w", err)
		}
		return abs, nil
	}
	if dir != "" {
		return check(dir, "--llama-lib")
	}
	if env := os.Getenv(LlamaLibEnv); env != "" {
		return check(env, LlamaLibEnv+"=")
	}
	var tried []string
	for _, p := range places {
		if _, err := os.Stat(filepath.Join(p.dir, "libllama.so")); err == nil {
			return check(p.dir, "folder ("+p.from+")")
		}
		tried = append(tried, p.dir)
	}
	return "", fmt.Errorf("%w (no --llama-lib, no %s, nothing in %s): %s", ErrLlamaLibsMissing, LlamaLibEnv, strings.Join(tried, ", "), how)
}

// LlamaDevice is one compute device llama.cpp found.
type LlamaDevice struct {
	Backend     string `json:"backend"`     // the ggml backend: CPU, CUDA, Vulkan, …
	Name        string `json:"name"`        // the device name: CPU, CUDA0, …
	Description string `json:"description"` // the hardware: the CPU model, the GPU model
	Type        string `json:"type"`        // CPU, GPU, IGPU, ACCEL
}

// llamaRuntime is the process-wide state of the loaded libraries. llama.cpp and the yzma
// bindings keep their function table and backend registry per process, so one folder is
// loaded once and shared by every Llama engine.
type llamaRuntimeState struct {
	mu      sync.Mutex
	dir     string
	err     error
	loaded  bool
	mtmd    bool   // libmtmd.so loaded
	mtmdWhy string // why not, when not
	devices []LlamaDevice
	logs    logRing
}

var llamaRuntime llamaRuntimeState

// loadLlama loads the libraries of dir (once per process) and initialises the backends.
func loadLlama(dir string) (*llamaRuntimeState, error) {
	rt := &llamaRuntime
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.loaded {
		if rt.dir != dir {
			return nil, fmt.Errorf("llama.cpp is already loaded from %s in this process; cannot load %s too", rt.dir, dir)
		}
		return rt, nil
	}
	if rt.err != nil {
		return nil, rt.err
	}
	if err := llama.Load(dir); err != nil {
		rt.err = fmt.Errorf("load llama.cpp from %s (want release %s, e.g. npm %s): %w", dir, LlamaRelease, LlamaLibsPackage, err)
		return nil, rt.err
	}
	llama.LogSet(logCallback())
	llama.Init()
	if _, err := os.Stat(filepath.Join(dir, "libmtmd.so")); err != nil {
		rt.mtmdWhy = fmt.Sprintf("no libmtmd.so in %s (the npm build of llama.cpp ships without the multimodal library)", dir)
	} else if err := mtmd.Load(dir); err != nil {
		rt.mtmdWhy = fmt.Sprintf("libmtmd.so in %s does not load: %v", dir, err)
	} else {
		rt.mtmd = true
		mtmd.LogSet(logCallback())
	}
	for i := uint64(0); i < llama.GGMLBackendDeviceCount(); i++ {
		dev := llama.GGMLBackendDeviceGet(i)
		if dev == 0 {
			continue
		}
		rt.devices = append(rt.devices, LlamaDevice{
			Backend:     llama.GGMLBackendRegName(llama.GGMLBackendDeviceBackendReg(dev)),
			Name:        llama.GGMLBackendDeviceName(dev),
			Description: llama.GGMLBackendDeviceDescription(dev),
			Type:        llama.GGMLBackendDevType(dev).String(),
		})
	}
	rt.dir, rt.loaded = dir, true
	return rt, nil
}

// gpu returns the first GPU device, if any.
func (rt *llamaRuntimeState) gpu() (LlamaDevice, bool) {
	for _, d := range rt.devices {
		if d.Type == "GPU" || d.Type == "IGPU" {
			return d, true
		}
	}
	return LlamaDevice{}, false
}

// cpu returns the CPU device (a placeholder when no CPU backend was found).
func (rt *llamaRuntimeState) cpu() LlamaDevice {
	for _, d := range rt.devices {
		if d.Type == "CPU" {
			return d
		}
	}
	return LlamaDevice{Backend: "CPU", Name: "CPU", Description: "no CPU backend library (libggml-cpu-*.so) loaded", Type: "CPU"}
}

// logRing keeps the last lines llama.cpp logged, to explain failures ("failed to load
// model" says nothing by itself).
type logRing struct {
	mu    sync.Mutex
	lines []string
	part  strings.Builder
}

const logRingLines = 64

func (r *logRing) add(text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.part.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		return
	}
	r.lines = append(r.lines, strings.Split(strings.TrimRight(r.part.String(), "\n"), "\n")...)
	r.part.Reset()
	if over := len(r.lines) - logRingLines; over > 0 {
		r.lines = append(r.lines[:0], r.lines[over:]...)
	}
}

// tail returns the last n lines, joined.
func (r *logRing) tail(n int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	lines := r.lines
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

var (
	logCallbackOnce sync.Once
	logCallbackPtr  uintptr
)

// logCallback returns the C callback that routes llama.cpp's log into llamaRuntime.logs
// (purego allows a bounded number of callbacks per process, so it is made once).
func logCallback() uintptr {
	logCallbackOnce.Do(func() {
		logCallbackPtr = purego.NewCallback(func(level int32, text *byte, _ unsafe.Pointer) uintptr {
			llamaRuntime.logs.add(cString(text, 1<<16))
			return 0
		})
	})
	return logCallbackPtr
}

// cString copies a NUL-terminated C string of at most limit bytes.
func cString(p *byte, limit int) string {
	if p == nil {
		return ""
	}
	var b []byte
	for i := 0; i < limit; i++ {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}
