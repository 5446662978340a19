package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/engine"
	"github.com/strata-eval/strata-eval/internal/testkit/llamaserver"
	"github.com/strata-eval/strata-eval/internal/testkit/testimages"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/internal/testkit/tinyproj"
	"github.com/strata-eval/strata-eval/measure/imagerows"
	"github.com/strata-eval/strata-eval/results"
)

// ownProcessEnv names the test a child test process runs (inOwnProcess).
const ownProcessEnv = "STRATA_EVAL_TEST_OWN_PROCESS"

// inOwnProcess runs the calling test alone in a child test process and says whether this is
// that child, where the test goes on. llama.cpp is loaded once per process, from one folder:
// the other llama tests of this package load the npm build, which has no libmtmd, so a test
// of the release's own libraries runs apart. The parent reports the child's outcome (its
// skip, its failure with its output) and logs its output.
func inOwnProcess(t *testing.T) bool {
	t.Helper()
	if os.Getenv(ownProcessEnv) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^"+t.Name()+"$", "-test.count=1", "-test.v", "-test.timeout=20m")
	cmd.Env = append(os.Environ(), ownProcessEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("%s in its own process: %v\n%s", t.Name(), err, tail(string(out), 12000))
	case strings.Contains(string(out), "--- SKIP: "+t.Name()+" "):
		t.Skipf("%s", tail(string(out), 2000))
	}
	t.Logf("%s in its own process:\n%s", t.Name(), tail(string(out), 12000))
	return false
}

// mtmdSetup returns the release's libraries (mtmdLibs) and the repository root, and whether
// the test goes on in this process (inOwnProcess).
func mtmdSetup(t *testing.T) (libs, root string, ok bool) {
	t.Helper()
	libs = mtmdLibs(t)
	if !inOwnProcess(t) {
		return "", "", false
	}
	root, err := tinymodel.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return libs, root, true
}

// mtmdLibs returns the folder of the release's shared libraries that `make llama-server`
// builds beside llama-server, libmtmd included, or skips.
func mtmdLibs(t *testing.T) string {
	t.Helper()
	dir := filepath.Dir(findLlamaServer(t))
	if _, err := os.Stat(filepath.Join(dir, "libmtmd.so")); err != nil {
		t.Skipf("skipping: no libmtmd.so beside llama-server in %s (`make llama-server` builds the release's shared libraries there)", dir)
	}
	return dir
}

// markerModel returns the tiny Qwen3 model whose vocabulary also holds the projectors' marker
// texts (one token each, as in the real models'), built with opts, or skips without the
// tokenizer.
func markerModel(t *testing.T, root string, opts tinymodel.Options) string {
	t.Helper()
	tok, err := tinymodel.FindTokenizer()
	if err != nil {
		t.Skipf("Qwen3 tokenizer absent: %v", err)
	}
	opts.ExtraTokens = tinyproj.Markers()
	model, err := tinymodel.EnsureQwen3(filepath.Join(root, ".cache", "tinymodel"), tok, opts)
	if err != nil {
		t.Fatal(err)
	}
	return model
}

// writeProjector writes the tiny projector of the named tinyproj configuration, with a vision
// tower of that many blocks (0: none, for counting only).
func writeProjector(t *testing.T, name string, layers int) string {
	t.Helper()
	c, ok := tinyproj.ByName(name)
	if !ok {
		t.Fatalf("no tiny projector configuration %q", name)
	}
	c.Layers = layers
	path := filepath.Join(t.TempDir(), fmt.Sprintf("%s-%d-blocks.gguf", name, layers))
	if err := tinyproj.Write(path, c, tinyproj.Width, 1); err != nil {
		t.Fatal(err)
	}
	return path
}

// mtmdEngineConfigs are the projectors the in-process engine is replayed with: markers fixed
// per picture (Qwen2.5-VL, Gemma 3), none (LLaVA 1.6's tiles), and markers that depend on the
// picture's size (MiniCPM-V's slices, SmolVLM's tile rows and columns, LFM2-VL's tiles).
var mtmdEngineConfigs = []string{"qwen2.5vl", "gemma3", "llava-1.6", "minicpm-v-2.6", "smolvlm2", "lfm2-vl"}

// TestLiveLlamaEngineMtmd replays the sample corpus and the real recordings with `--engine
// llama --llama-lib <the release's libraries> --mmproj tiny.gguf` for several projector types:
// every arm that hands the model a picture is counted through libmtmd (rows source tokenizer,
// not the estimator), and its prompt and image rows equal the computed ones (`rows --mmproj`),
// server − computed = 0. Then each picture of those arms, alone and all together in one
// request, is counted by the engine: each picture's rows and markers equal `rows --mmproj`'s
// for its size, whatever pictures share its prompt. Skipped without the built libraries.
func TestLiveLlamaEngineMtmd(t *testing.T) {
	libs, root, ok := mtmdSetup(t)
	if !ok {
		return
	}
	model := markerModel(t, root, tinymodel.Options{})
	totalArms, totalPictures := 0, 0
	for _, name := range mtmdEngineConfigs {
		t.Run(name, func(t *testing.T) {
			proj := writeProjector(t, name, 0)
			fam, err := imagerows.LoadProjector(proj)
			if err != nil {
				t.Fatal(err)
			}
			var sizes [][2]int
			arms := 0
			for _, corpus := range liveCorpora(root) {
				r := liveRun(t, "llama", append([]string{"--engine", "llama", "--model", model, "--llama-lib", libs, "--gpu-layers", "none",
					"--mmproj", proj, "--tokenizer", model, "--turns", "all"}, corpus.paths...))
				if !strings.Contains(r.Config.Server, "llama.cpp") || strings.Contains(r.Config.Server, "pictures:") {
					t.Errorf("%s: the report says %q: want llama.cpp with its multimodal library", corpus.name, r.Config.Server)
				}
				for _, c := range r.Cases {
					for _, a := range c.Arms {
						seen := seenSizes(a)
						if len(seen) == 0 {
							continue
						}
						arms++
						sizes = append(sizes, seen...)
						checkMtmdArm(t, armKey(root, c.ID, a.Arm), a)
					}
				}
			}
			if arms == 0 {
				t.Fatal("no arm handed the model a picture")
			}
			l, err := engine.NewLlama(engine.LlamaConfig{Model: model, LibDir: libs, MMProj: proj, GPULayers: engine.NoGPULayers, BatchSize: 64, Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			checkMtmdPictures(t, l, fam, sizes)
			t.Logf("%s: %d arms with pictures, server − computed 0 on each; %d pictures, rows and markers = rows --mmproj on each, alone and together",
				name, arms, len(sizes))
			totalArms += arms
			totalPictures += len(sizes)
		})
	}
	t.Logf("%d projector types: %d arms with pictures, %d pictures through libmtmd", len(mtmdEngineConfigs), totalArms, totalPictures)
}

// seenSizes are the sizes of the pictures an arm hands the model (as the agent sent them).
func seenSizes(a results.ArmCase) [][2]int {
	var out [][2]int
	for _, p := range a.Pictures {
		if !p.SeenByModel {
			continue
		}
		w, h := p.Width, p.Height
		if p.Resized != nil {
			w, h = p.Resized.ToWidth, p.Resized.ToHeight
		}
		out = append(out, [2]int{w, h})
	}
	return out
}

// checkMtmdArm checks one arm with pictures replayed by the llama engine with libmtmd: its
// rows come from mtmd, and equal the computed count and the pictures' rows.
func checkMtmdArm(t *testing.T, key string, a results.ArmCase) {
	t.Helper()
	rows := 0
	for _, p := range a.Pictures {
		if p.SeenByModel {
			rows += p.PromptRows()
		}
	}
	switch {
	case a.RowsSource != results.SourceMtmd:
		t.Errorf("%s: rows source %q, want %q (libmtmd)", key, a.RowsSource, results.SourceMtmd)
	case a.Computed == nil || a.CountDiff == nil:
		t.Errorf("%s: no computed count beside llama.cpp's", key)
	case *a.CountDiff != 0 || a.ImageRows != a.Computed.ImageRows:
		t.Errorf("%s: llama.cpp %d tokens (%d image rows), computed %d (%d): %+d", key, a.PromptTokens, a.ImageRows,
			a.Computed.PromptTokens, a.Computed.ImageRows, *a.CountDiff)
	case a.ImageRows != rows:
		t.Errorf("%s: %d image rows, its pictures' rows add up to %d", key, a.ImageRows, rows)
	}
}

// checkMtmdPictures counts pictures of the given sizes through the engine, each alone and all
// in one request: each picture's rows and markers are the same either way and equal
// `rows --mmproj`'s (imagerows.ImageRows of the projector's family).
func checkMtmdPictures(t *testing.T, l *engine.Llama, fam imagerows.Family, sizes [][2]int) {
	t.Helper()
	ctx := context.Background()
	request := func(sizes [][2]int) []corpora.Message {
		parts := []corpora.Part{{Kind: corpora.PartText, Text: "Compare these pictures."}}
		for i, s := range sizes {
			parts = append(parts, corpora.Part{Kind: corpora.PartImage, Image: &corpora.Image{Width: s[0], Height: s[1], Data: []byte{1}}},
				corpora.Part{Kind: corpora.PartText, Text: fmt.Sprintf("That was picture %d.", i+1)})
		}
		return []corpora.Message{{Role: corpora.RoleUser, Parts: parts}}
	}
	together, err := l.Count(ctx, request(sizes), nil)
	if err != nil {
		t.Fatalf("%d pictures in one request: %v", len(sizes), err)
	}
	if len(together.Images) != len(sizes) || together.RowsSource != results.SourceMtmd {
		t.Fatalf("%d pictures in one request: %d counted, rows source %q", len(sizes), len(together.Images), together.RowsSource)
	}
	for i, s := range sizes {
		alone, err := l.Count(ctx, request(sizes[i:i+1]), nil)
		if err != nil {
			t.Fatalf("picture %d×%d: %v", s[0], s[1], err)
		}
		want, err := imagerows.ImageRows(fam, s[0], s[1], imagerows.RowOptions{})
		if err != nil {
			t.Fatalf("rows --mmproj of %d×%d: %v", s[0], s[1], err)
		}
		a, b := alone.Images[0].Rows, together.Images[i].Rows
		if a.Rows != want.Rows || a.Markers != want.Markers || b.Rows != want.Rows || b.Markers != want.Markers {
			t.Errorf("picture %d (%d×%d): mtmd alone %d rows + %d markers, among %d pictures %d + %d; rows --mmproj %d + %d",
				i, s[0], s[1], a.Rows, a.Markers, len(sizes), b.Rows, b.Markers, want.Rows, want.Markers)
		}
	}
}

// TestLiveLlamaEngineHunyuanVL: llama.cpp lays HunyuanVL's rows out on an M-RoPE grid and
// aborts the process (GGML_ASSERT in mtmd_tokenize) when the text model has other positions;
// the llama engine refuses that pairing with one error naming both files, before any picture,
// and counts HunyuanVL's pictures as `rows --mmproj` does with an M-RoPE model (Qwen3-VL's).
// Skipped without the built libraries.
func TestLiveLlamaEngineHunyuanVL(t *testing.T) {
	libs, root, ok := mtmdSetup(t)
	if !ok {
		return
	}
	proj := writeProjector(t, "hunyuanocr", 0)
	plain := markerModel(t, root, tinymodel.Options{})
	code, out, errOut := runCLI(t, "replay", "--engine", "llama", "--model", plain, "--llama-lib", libs, "--gpu-layers", "none",
		"--mmproj", proj, "--tokenizer", plain, "--format", "csv", filepath.Join(root, "corpora", "samples", "openai-chat-tiny-png.json"))
	if code == ExitOK || !strings.Contains(errOut, "(hunyuanvl) lays pictures out on an M-RoPE grid") || !strings.Contains(errOut, filepath.Base(plain)) || !strings.Contains(errOut, "NeoX RoPE") {
		t.Errorf("HunyuanVL with a model of NeoX RoPE: exit %d, stderr %q, stdout %q: want one error naming the pairing", code, errOut, out)
	}
	if n := strings.Count(strings.TrimSpace(errOut), "\n"); n > 0 {
		t.Errorf("the refusal takes %d lines:\n%s", n+1, errOut)
	}
	t.Logf("exit %d: %s", code, strings.TrimSpace(errOut))

	mrope := markerModel(t, root, tinymodel.Options{MRoPE: true})
	l, err := engine.NewLlama(engine.LlamaConfig{Model: mrope, LibDir: libs, MMProj: proj, GPULayers: engine.NoGPULayers, BatchSize: 64, Threads: 2})
	if err != nil {
		t.Fatalf("HunyuanVL with Qwen3-VL's M-RoPE: %v", err)
	}
	defer l.Close()
	fam, err := imagerows.LoadProjector(proj)
	if err != nil {
		t.Fatal(err)
	}
	checkMtmdPictures(t, l, fam, [][2]int{{640, 480}, {64, 64}, {1920, 1080}, {800, 3000}})
}

// encoderProjector writes the tiny LLaVA 1.5 projector with a complete vision tower of two
// blocks (tinyproj.Tower), which clip.cpp encodes: llama-server takes pictures with it.
func encoderProjector(t *testing.T) string { return writeProjector(t, "llava-1.5", 2) }

// serverSamples are the sample corpus's files that llama-server can read every picture of:
// it decodes WebP only through an ffmpeg it launches, so without one on PATH the WebP sample
// is left out (said in the log).
func serverSamples(t *testing.T, root string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "corpora", "samples", "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("sample corpus: %v (%d files)", err, len(paths))
	}
	_, noFFmpeg := exec.LookPath("ffmpeg")
	var out []string
	for _, p := range paths {
		if _, err := corpora.DetectFile(p); err != nil {
			continue // the expectations sidecar
		}
		if noFFmpeg != nil && strings.Contains(filepath.Base(p), "webp") {
			t.Logf("%s left out: llama-server decodes WebP through ffmpeg, which is not on PATH", filepath.Base(p))
			continue
		}
		out = append(out, p)
	}
	return out
}

// TestLiveLlamaServerPictures replays the sample corpus and the real recordings against a
// real llama-server of the bound release serving the tiny Qwen3 model with a tiny LLaVA
// projector whose vision tower it encodes (`--mmproj`), with the http engine and `--mmproj`
// the same file: on every arm, those that hand the model pictures included, the server's
// prompt tokens equal the computed ones (server − computed = 0), counted both ways the http
// engine asks llama-server: input_tokens (its count of the prompt, pictures through
// mtmd_tokenize) and usage (a one-token completion, which encodes every picture). Skipped
// without the binary or the tokenizer.
func TestLiveLlamaServerPictures(t *testing.T) {
	bin, root, model := liveSetup(t, tinymodel.Options{})
	proj := encoderProjector(t)
	url := llamaserver.Start(t, bin, model, "--threads", "2", "--parallel", "2", "--mmproj", proj)
	paths := map[string][]string{"sample": serverSamples(t, root)}
	for _, c := range liveCorpora(root) {
		if c.paths != nil {
			paths[c.name] = c.paths
		}
	}
	for _, method := range []string{engine.CountInputTokens, engine.CountUsage} {
		t.Run(method, func(t *testing.T) {
			arms := 0
			for _, name := range []string{"sample", "real"} {
				r := liveRun(t, "http", append(liveHTTPArgs(url), append([]string{"--count-method", method, "--tokenizer", model, "--mmproj", proj, "--turns", "all"}, paths[name]...)...))
				arms += checkServerPictures(t, root, name+" corpus, count method "+method, r)
			}
			if arms == 0 {
				t.Error("no arm with pictures counted by llama-server")
			}
		})
	}
}

// checkServerPictures checks a replay against llama-server with a projector: no case failed,
// every arm the server counted has server − computed = 0, and the arms that hand the model
// pictures were counted by the server (not refused for their pictures). It logs the figures
// and returns how many arms with pictures the server counted.
func checkServerPictures(t *testing.T, root, what string, r *results.Report) int {
	t.Helper()
	counted, arms, pictures, refused := 0, 0, 0, 0
	for _, c := range r.Cases {
		if c.Error != "" {
			t.Errorf("case %s failed: %s", c.ID, c.Error)
		}
		for _, a := range c.Arms {
			key := armKey(root, c.ID, a.Arm)
			seen := len(seenSizes(a))
			switch {
			case a.RefusedBy == "server" && seen == 0:
				refused++ // longer than the context: llama-server refuses it, the verdict says so
				continue
			case a.CountDiff == nil || a.TextSource != results.SourceServer:
				t.Errorf("%s (%d pictures): no server count (%s)", key, seen, a.Verdict)
				continue
			case *a.CountDiff != 0:
				t.Errorf("%s (%d pictures): server %d, computed %d: %+d", key, seen, a.PromptTokens, a.Computed.PromptTokens, *a.CountDiff)
			}
			counted++
			if seen > 0 {
				arms++
				pictures += seen
			}
		}
	}
	t.Logf("%s: %d arm requests counted by llama-server, server − computed 0 on each; %d of them with %d pictures; %d refused as longer than its context",
		what, counted, arms, pictures, refused)
	return arms
}

// TestLiveLlamaEngineAnswersFromPictures: with the release's libraries and a projector whose
// vision tower clip.cpp encodes, the llama engine answers a request holding a PNG and a WebP
// (which mtmd decodes only through ffmpeg: decoded here when it cannot) with the tiny model,
// the same tokens each time, its prompt the size it counts; a projector without a tower,
// made for counting, counts the same request and refuses to answer it with one clear error
// (mtmd would crash encoding it). Skipped without the built libraries.
func TestLiveLlamaEngineAnswersFromPictures(t *testing.T) {
	libs, root, ok := mtmdSetup(t)
	if !ok {
		return
	}
	model := markerModel(t, root, tinymodel.Options{})
	msgs := []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{
		{Kind: corpora.PartText, Text: "What differs between these two screenshots?"},
		{Kind: corpora.PartImage, Image: &corpora.Image{Data: testimages.PNG(640, 400, 1)}},
		{Kind: corpora.PartImage, Image: &corpora.Image{Data: testimages.WebP(300, 500, 2)}},
	}}}
	req := engine.Request{Messages: msgs}
	ctx := context.Background()
	for _, tc := range []struct {
		name, proj string
		answers    bool
	}{{"tower", encoderProjector(t), true}, {"counting only", writeProjector(t, "llava-1.5", 0), false}} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := engine.NewLlama(engine.LlamaConfig{Model: model, LibDir: libs, MMProj: tc.proj, GPULayers: engine.NoGPULayers, BatchSize: 64, Threads: 2, MaxTokens: 6})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			count, err := l.Count(ctx, msgs, nil)
			if err != nil || count.RowsSource != results.SourceMtmd || count.ImageRows != 2*576 {
				t.Fatalf("count %+v, %v: want two pictures of 576 rows through mtmd", count, err)
			}
			a, err := l.Generate(ctx, req, 0)
			if !tc.answers {
				if err == nil || !strings.Contains(err.Error(), "no vision tower") || !strings.Contains(err.Error(), filepath.Base(tc.proj)) {
					t.Errorf("answer with a projector without a tower: %v, want the refusal naming it", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := l.Generate(ctx, req, 0)
			if err != nil {
				t.Fatal(err)
			}
			if a.PromptTokens != count.PromptTokens || a.PicturesDropped != 0 || len(a.Tokens) == 0 || fmt.Sprint(a.Tokens) != fmt.Sprint(b.Tokens) {
				t.Errorf("answers %v (prompt %d, %d pictures dropped) and %v: want the same tokens over the counted prompt of %d",
					a.Tokens, a.PromptTokens, a.PicturesDropped, b.Tokens, count.PromptTokens)
			}
			t.Logf("answer from two pictures: %q (tokens %v), prompt %d tokens, %.0f tokens/s of prompt", a.Text, a.Tokens, a.PromptTokens, a.PromptTokensPerSecond)
		})
	}
}
