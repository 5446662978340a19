package imagerows

// The oracle of image rows: llama.cpp's own multimodal library (libmtmd, built with the bound
// release by `make llama-server`) counts every picture size and token setting for a tiny
// projector of each configuration (internal/testkit/tinyproj), and LoadProjector + ImageRows — what
// `strata-eval rows --mmproj` runs — must give the same embedding rows and marker tokens in
// every cell. `make rows-oracle` runs it and prints the table of docs/count-and-rows.md.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/hybridgroup/yzma/pkg/llama"
	"github.com/hybridgroup/yzma/pkg/mtmd"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
	"github.com/strata-eval/strata-eval/internal/testkit/llamaserver"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/internal/testkit/tinyproj"
)

// oracleRelease is the llama.cpp release whose libmtmd the oracle loads.
const oracleRelease = "v0.5.0"

// oracleTableEnv names a file the oracle writes its table to (make rows-oracle).
const oracleTableEnv = "ROWS_ORACLE_TABLE"

// oracleSizes are the picture sizes of the grid plus seeded random ones.
func oracleSizes() []PixelSize {
	sizes := []PixelSize{{1, 1}, {28, 28}, {64, 64}, {336, 336}, {1280, 800}, {800, 1280}, {1920, 1080},
		{1568, 1568}, {800, 3000}, {10000, 100}, {100, 10000}, {4096, 4096}}
	rng := rand.New(rand.NewPCG(20, 26))
	for len(sizes) < 24 {
		side := func() int { return 1 + int(float64(5000)*rng.Float64()*rng.Float64()) }
		sizes = append(sizes, PixelSize{side(), side()})
	}
	return sizes
}

// oracleWithPixels are the sizes also counted with real pixels (at the default setting), to
// show that mtmd counts a placeholder bitmap as it counts a picture.
var oracleWithPixels = map[PixelSize]bool{{64, 64}: true, {1280, 800}: true, {800, 1280}: true}

// oracleSettings are the --image-min-tokens / --image-max-tokens settings tried on every
// projector (the types without token limits must ignore them, as mtmd does).
var oracleSettings = []RowOptions{{}, {MaxTokens: 200}, {MinTokens: 256}, {MinTokens: 1024}, {MinTokens: 100, MaxTokens: 2000}, {MinTokens: 2000, MaxTokens: 1000}}

// oracleLibEnv names a folder holding the release's libllama, libggml* and libmtmd, instead of
// the one `make llama-server` fills.
const oracleLibEnv = "STRATA_EVAL_MTMD_LIB"

// oracleRuntime loads the release's libraries and the tiny text model, or skips.
func oracleRuntime(t *testing.T) oracleModels {
	t.Helper()
	dir := os.Getenv(oracleLibEnv)
	if dir == "" {
		dir = filepath.Dir(llamaserver.Find(t, oracleRelease))
	}
	if _, err := os.Stat(filepath.Join(dir, "libmtmd.so")); err != nil {
		t.Skipf("skipping the mtmd oracle: no libmtmd.so in %s (run `make llama-server`, which builds the release's shared libraries beside llama-server, or set $%s)", dir, oracleLibEnv)
	}
	tokenizer, err := tinymodel.FindTokenizer()
	if err != nil {
		t.Skip(err.Error())
	}
	if err := llama.Load(dir); err != nil {
		t.Fatalf("load llama.cpp from %s: %v", dir, err)
	}
	if err := mtmd.Load(dir); err != nil {
		t.Fatalf("load libmtmd from %s: %v", dir, err)
	}
	if os.Getenv("ROWS_ORACLE_LOG") == "" {
		llama.LogSet(llama.LogSilent())
	}
	mtmd.LogSet(mtmdLog.callback())
	llama.Init()
	vocab, err := tinymodel.ReadVocabulary(tokenizer)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	load := func(name string, opts tinymodel.Options) llama.Model {
		opts.ExtraTokens = tinyproj.Markers()
		kvs, tensors, err := tinymodel.Qwen3(vocab, opts)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(tmp, name+".gguf")
		if err := ggufwrite.WriteFile(path, kvs, tensors); err != nil {
			t.Fatal(err)
		}
		mp := llama.ModelDefaultParams()
		mp.NGpuLayers = 0
		model, err := llama.ModelLoadFromFile(path, mp)
		if err != nil {
			t.Fatalf("load the tiny text model %s: %v", name, err)
		}
		t.Cleanup(func() { _ = llama.ModelFree(model) })
		return model
	}
	return oracleModels{plain: load("qwen3", tinymodel.Options{}), mrope: load("qwen3vl", tinymodel.Options{MRoPE: true})}
}

// mtmdLog keeps what mtmd (clip.cpp) logs, so that the oracle can read why it refused a
// projector; ROWS_ORACLE_LOG=1 also copies it to stderr.
var mtmdLog oracleLog

// oracleLog is a log callback's text, cut by take.
type oracleLog struct {
	mu   sync.Mutex
	text strings.Builder
	cb   uintptr
}

// callback returns the C log callback (made once: purego callbacks are never freed).
func (l *oracleLog) callback() uintptr {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cb == 0 {
		echo := os.Getenv("ROWS_ORACLE_LOG") != ""
		l.cb = purego.NewCallback(func(level int32, text *byte, _ unsafe.Pointer) uintptr {
			var b []byte
			for p := text; p != nil && *p != 0 && len(b) < 1<<16; p = (*byte)(unsafe.Add(unsafe.Pointer(p), 1)) {
				b = append(b, *p)
			}
			l.mu.Lock()
			l.text.Write(b)
			l.mu.Unlock()
			if echo {
				os.Stderr.Write(b)
			}
			return 0
		})
	}
	return l.cb
}

// take returns the text logged since the last take.
func (l *oracleLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.text.String()
	l.text.Reset()
	return s
}

// mtmdRefusal is clip.cpp's reason for refusing pixel limits.
var mtmdRefusal = regexp.MustCompile(`image_max_pixels \(-?\d+\) is less than image_min_pixels \(-?\d+\)`)

// oracleModels are the tiny text models mtmd is initialised with: Qwen3 (normal RoPE) and the
// same weights as Qwen3-VL (interleaved M-RoPE), which the projectors of M-RoPE models need
// (mtmd lays HunyuanVL's rows out by the grid only then, and aborts otherwise).
type oracleModels struct{ plain, mrope llama.Model }

// forProjector is the text model of the real models of a projector type.
func (m oracleModels) forProjector(projector string) llama.Model {
	switch projector {
	case "qwen2vl_merger", "qwen2.5vl_merger", "qwen3vl_merger", "glm4v", "hunyuanvl":
		return m.mrope
	}
	return m.plain
}

// mtmdCount is what mtmd counts for one picture: the image chunks' tokens and the text
// tokens around them (the prompt is the media marker alone).
type mtmdCount struct{ rows, markers int }

// countThroughMtmd tokenizes the media marker with a bitmap of size: a placeholder (mtmd's
// way of counting without pixels), or with pixels a grey picture that mtmd really resizes.
func countThroughMtmd(ctx mtmd.Context, size PixelSize, pixels bool) (mtmdCount, error) {
	var data []byte
	var ptr uintptr
	if pixels {
		data = make([]byte, size.Width*size.Height*3)
		for i := range data {
			data[i] = byte(i * 7)
		}
		ptr = uintptr(unsafe.Pointer(&data[0]))
	}
	bm := mtmd.BitmapInit(uint32(size.Width), uint32(size.Height), ptr)
	runtime.KeepAlive(data) // mtmd_bitmap_init copies the pixels
	if bm == 0 {
		return mtmdCount{}, errors.New("mtmd_bitmap_init failed")
	}
	defer mtmd.BitmapFree(bm)
	chunks := mtmd.InputChunksInit()
	defer mtmd.InputChunksFree(chunks)
	if rc := mtmd.Tokenize(ctx, chunks, mtmd.NewInputText(mtmd.DefaultMarker(), false, true), []mtmd.Bitmap{bm}); rc != 0 {
		return mtmdCount{}, fmt.Errorf("mtmd_tokenize returned %d", rc)
	}
	var c mtmdCount
	for i := uint64(0); i < mtmd.InputChunksSize(chunks); i++ {
		chunk := mtmd.InputChunksGet(chunks, i)
		n := int(mtmd.InputChunkGetNTokens(chunk))
		if mtmd.InputChunkGetType(chunk) == mtmd.InputChunkTypeText {
			c.markers += n
		} else {
			c.rows += n
		}
	}
	return c, nil
}

// oracleRow is one configuration's line of the table.
type oracleRow struct {
	config, projector    string
	settings, sizes      int
	equal, cells         int
	refusedBoth, refused int
}

// TestRowsOracle compares LoadProjector + ImageRows with mtmd on every configuration, picture
// size and token setting.
func TestRowsOracle(t *testing.T) {
	models := oracleRuntime(t)
	dir := t.TempDir()
	sizes := oracleSizes()
	var table []oracleRow
	for _, cfg := range tinyproj.Configs() {
		path := filepath.Join(dir, cfg.Name+".gguf")
		if err := tinyproj.Write(path, cfg, tinyproj.Width, 1); err != nil {
			t.Fatal(err)
		}
		row := oracleRow{config: cfg.Name, projector: cfg.Projector, settings: len(oracleSettings), sizes: len(sizes)}
		fam, famErr := LoadProjector(path)
		for _, opts := range oracleSettings {
			p := mtmd.ContextParamsDefault()
			p.UseGPU, p.Warmup, p.Threads = false, false, 1
			p.ImageMinTokens, p.ImageMaxTokens = int32(opts.MinTokens), int32(opts.MaxTokens)
			mtmdLog.take()
			ctx, mtmdErr := mtmd.InitFromFile(path, models.forProjector(cfg.Projector), p)
			if mtmdErr != nil {
				mtmdErr = fmt.Errorf("%w: %s", mtmdErr, mtmdRefusal.FindString(mtmdLog.take()))
			}
			var goErr error
			if famErr != nil {
				goErr = famErr
			} else {
				goErr = checkTokenLimits(fam, opts)
			}
			if mtmdErr != nil || goErr != nil {
				row.cells++
				row.refused++
				reason := mtmdRefusal.FindString(fmt.Sprint(mtmdErr))
				switch {
				case mtmdErr != nil && goErr != nil && (reason == "" || !strings.Contains(goErr.Error(), reason)):
					t.Errorf("%s %+v: mtmd refuses: %v; rows --mmproj refuses for another reason: %v", cfg.Name, opts, mtmdErr, goErr)
				case mtmdErr != nil && goErr != nil:
					row.equal++
					row.refusedBoth++
				default:
					t.Errorf("%s %+v: mtmd loads: %v; rows --mmproj: %v", cfg.Name, opts, mtmdErr, goErr)
				}
				if ctx != 0 {
					_ = mtmd.Free(ctx)
				}
				continue
			}
			for _, size := range sizes {
				row.cells++
				want, err := countThroughMtmd(ctx, size, false)
				if opts == (RowOptions{}) && oracleWithPixels[size] && err == nil {
					// the placeholder counts as a picture with pixels does
					if real, rerr := countThroughMtmd(ctx, size, true); rerr != nil || real != want {
						t.Errorf("%s %v: mtmd counts %+v (%v) with pixels, %+v as a placeholder", cfg.Name, size, real, rerr, want)
					}
				}
				got, gerr := ImageRows(fam, size.Width, size.Height, opts)
				switch {
				case err != nil && gerr != nil:
					row.equal++
				case err != nil || gerr != nil:
					t.Errorf("%s %v %+v: mtmd %+v (%v), rows --mmproj %+v (%v)", cfg.Name, size, opts, want, err, got, gerr)
				case got.Rows == want.rows && got.Markers == want.markers:
					row.equal++
				default:
					t.Errorf("%s %v %+v: mtmd rows %d + markers %d, rows --mmproj %d + %d (resized %v, tiles %d)",
						cfg.Name, size, opts, want.rows, want.markers, got.Rows, got.Markers, got.Resized, got.Tiles)
				}
			}
			_ = mtmd.Free(ctx)
		}
		table = append(table, row)
	}
	writeOracleTable(t, table, len(sizes))
}

// writeOracleTable logs the table and writes it to $ROWS_ORACLE_TABLE when set.
func writeOracleTable(t *testing.T, table []oracleRow, nSizes int) {
	sort.SliceStable(table, func(i, j int) bool { return table[i].projector < table[j].projector })
	var b strings.Builder
	fmt.Fprintf(&b, "| projector type | configuration | sizes × settings | refused by both | equal / cells |\n")
	fmt.Fprintf(&b, "| --- | --- | --- | --- | --- |\n")
	equal, cells := 0, 0
	for _, r := range table {
		fmt.Fprintf(&b, "| %s | %s | %d × %d | %d | %d / %d |\n", r.projector, r.config, r.sizes, r.settings, r.refusedBoth, r.equal, r.cells)
		equal += r.equal
		cells += r.cells
	}
	fmt.Fprintf(&b, "| all | %d configurations | %d sizes × %d settings | | %d / %d |\n", len(table), nSizes, len(oracleSettings), equal, cells)
	t.Log("\n" + b.String())
	if path := os.Getenv(oracleTableEnv); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// TestTinyProjectorsLoad: every tiny projector configuration of the oracle configures a family
// (no libraries needed), with the projector type and sizes it was written with.
func TestTinyProjectorsLoad(t *testing.T) {
	dir := t.TempDir()
	for _, cfg := range tinyproj.Configs() {
		path := filepath.Join(dir, cfg.Name+".gguf")
		if err := tinyproj.Write(path, cfg, tinyproj.Width, 1); err != nil {
			t.Fatal(err)
		}
		fam, err := LoadProjector(path)
		if err != nil {
			t.Errorf("%s: %v", cfg.Name, err)
			continue
		}
		// clip.cpp reads the Omni file's vision part as Qwen2.5-VL and an mlp with mm.3 as mlp_norm.
		renamed := map[string]string{"qwen2.5o": "qwen2.5vl_merger", "mlp": "mlp_norm"}
		sameType := fam.Projector == cfg.Projector || fam.Projector == renamed[cfg.Projector]
		if !sameType || fam.PatchSize != cfg.PatchSize || fam.ImageSize != cfg.ImageSize {
			t.Errorf("%s: family %s p=%d S=%d, want %s p=%d S=%d", cfg.Name, fam.Projector, fam.PatchSize, fam.ImageSize,
				cfg.Projector, cfg.PatchSize, cfg.ImageSize)
		}
	}
}

// namedFamilyConfigs maps each llamacpp/ family to the oracle's configuration of the same model.
var namedFamilyConfigs = map[string]string{
	"llamacpp/gemma3": "gemma3", "llamacpp/gemma3n": "gemma3n", "llamacpp/gemma4": "gemma4",
	"llamacpp/glm4v": "glm-4.1v", "llamacpp/idefics3-8b": "idefics3-8b", "llamacpp/idefics3-smolvlm2": "smolvlm2",
	"llamacpp/smolvlm-2b": "smolvlm-2b", "llamacpp/internvl": "internvl3", "llamacpp/kimi-k2.5": "kimi-k2.5",
	"llamacpp/kimi-vl": "kimi-vl", "llamacpp/lfm2-vl": "lfm2-vl", "llamacpp/llama4": "llama4",
	"llamacpp/llava-1.5": "llava-1.5", "llamacpp/llava-1.6": "llava-1.6", "llamacpp/minicpm-v-2.5": "minicpm-v-2.5",
	"llamacpp/minicpm-v-2.6": "minicpm-v-2.6", "llamacpp/minicpm-o-2.6": "minicpm-o-2.6",
	"llamacpp/minicpm-v-4.0": "minicpm-v-4.0", "llamacpp/minicpm-v-4.5": "minicpm-v-4.5",
	"llamacpp/minicpm-o-4.5": "minicpm-o-4.5", "llamacpp/minicpm-v-4.6": "minicpm-v-4.6",
	"llamacpp/mistral-small-3.1": "mistral-small-3.1", "llamacpp/pixtral-12b": "pixtral-12b",
	"llamacpp/qwen2vl": "qwen2vl", "llamacpp/qwen2.5vl": "qwen2.5vl", "llamacpp/qwen3vl": "qwen3vl",
}

// TestNamedFamiliesAreOracleConfigs: every llamacpp/ family counts as LoadProjector of the
// oracle's configuration of its model on every size and setting of the oracle, so the
// oracle's table holds for the named families too.
func TestNamedFamiliesAreOracleConfigs(t *testing.T) {
	configs := map[string]tinyproj.Config{}
	for _, c := range tinyproj.Configs() {
		configs[c.Name] = c
	}
	dir := t.TempDir()
	for _, name := range Families() {
		if !strings.HasPrefix(name, "llamacpp/") {
			continue
		}
		cfgName, ok := namedFamilyConfigs[name]
		if !ok {
			t.Errorf("%s has no oracle configuration", name)
			continue
		}
		path := filepath.Join(dir, cfgName+".gguf")
		if err := tinyproj.Write(path, configs[cfgName], tinyproj.Width, 1); err != nil {
			t.Fatal(err)
		}
		fromFile, err := LoadProjector(path)
		if err != nil {
			t.Fatal(err)
		}
		named := mustFamily(t, name)
		for _, opts := range oracleSettings {
			for _, size := range oracleSizes() {
				a, errA := ImageRows(named, size.Width, size.Height, opts)
				b, errB := ImageRows(fromFile, size.Width, size.Height, opts)
				if (errA != nil) != (errB != nil) || a.Rows != b.Rows || a.Markers != b.Markers {
					t.Errorf("%s %v %+v: %d+%d (%v), its projector %d+%d (%v)", name, size, opts, a.Rows, a.Markers, errA, b.Rows, b.Markers, errB)
				}
			}
		}
	}
}
