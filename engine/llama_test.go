package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/internal/testkit/tinymodel"
	"github.com/strata-eval/strata-eval/measure/imagerows"
)

// testLlamaLibs returns the llama.cpp library folder for tests ($YZMA_LIB, else what
// `make llama-libs` fetched), or skips the test when there is none.
func testLlamaLibs(tb testing.TB) string {
	tb.Helper()
	if dir := os.Getenv(LlamaLibEnv); dir != "" {
		found, err := FindLlamaLibs(dir)
		if err != nil {
			tb.Skipf("skipping the llama.cpp tests: %v", err)
		}
		return found
	}
	root, err := tinymodel.RepoRoot()
	if err != nil {
		tb.Skipf("llama.cpp libraries: %v", err)
	}
	for _, d := range llamaLibDefaults {
		dir := filepath.Join(root, d)
		if _, err := os.Stat(filepath.Join(dir, "libllama.so")); err == nil {
			return dir
		}
	}
	tb.Skipf("llama.cpp libraries not found under %s/.cache/llama-libs: run `make llama-libs` (make test-deps does) or set %s", root, LlamaLibEnv)
	return ""
}

// testTinyModel returns the tiny random-weight qwen3 model (written once into .cache), or
// skips the test when the Qwen3 tokenizer has not been fetched.
func testTinyModel(tb testing.TB) string {
	tb.Helper()
	tok, err := tinymodel.FindTokenizer()
	if err != nil {
		tb.Skip(err.Error())
	}
	root, err := tinymodel.RepoRoot()
	if err != nil {
		tb.Fatal(err)
	}
	path, err := tinymodel.EnsureQwen3(filepath.Join(root, ".cache", "tinymodel"), tok, tinymodel.Options{})
	if err != nil {
		tb.Fatalf("tiny model: %v", err)
	}
	return path
}

var (
	testLlamaOnce sync.Once
	testLlamaEng  *Llama
	testLlamaErr  error
)

// testLlama returns the package's shared in-process engine over the tiny model (one load
// for every test), or skips the test when the libraries or the tokenizer are missing.
func testLlama(tb testing.TB) *Llama {
	tb.Helper()
	libs := testLlamaLibs(tb)
	model := testTinyModel(tb)
	testLlamaOnce.Do(func() {
		testLlamaEng, testLlamaErr = NewLlama(LlamaConfig{Model: model, LibDir: libs, MaxTokens: 8, BatchSize: 64, Threads: 2})
	})
	if testLlamaErr != nil {
		tb.Fatalf("NewLlama: %v", testLlamaErr)
	}
	return testLlamaEng
}

func TestParseGPULayers(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"", AllGPULayers, false},
		{"all", AllGPULayers, false},
		{"auto", AllGPULayers, false},
		{"-1", AllGPULayers, false},
		{"none", NoGPULayers, false},
		{"0", NoGPULayers, false},
		{"12", 12, false},
		{"-3", 0, true},
		{"many", 0, true},
	}
	for _, tc := range tests {
		got, err := ParseGPULayers(tc.in)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("ParseGPULayers(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestFindLlamaLibsErrors(t *testing.T) {
	empty := t.TempDir()
	partial := t.TempDir()
	if err := os.WriteFile(filepath.Join(partial, "libllama.so"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, dir, env string
		want           []string
	}{
		{"empty flag dir", empty, "", []string{"--llama-lib", empty, "libllama.so, libggml.so, libggml-base.so", "make llama-libs", LlamaLibsPackage}},
		{"partial dir", partial, "", []string{"lacks libggml.so, libggml-base.so"}},
		{"env", "", empty, []string{LlamaLibEnv + "=", empty}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(LlamaLibEnv, tc.env)
			_, err := FindLlamaLibs(tc.dir)
			if !errors.Is(err, ErrLlamaLibsMissing) {
				t.Fatalf("FindLlamaLibs(%q) error %v, want ErrLlamaLibsMissing", tc.dir, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// NewLlama reports the same error before touching any library.
	t.Setenv(LlamaLibEnv, "")
	model := filepath.Join(t.TempDir(), "m.gguf")
	if err := os.WriteFile(model, []byte("GGUF"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewLlama(LlamaConfig{Model: model, LibDir: empty}); !errors.Is(err, ErrLlamaLibsMissing) {
		t.Errorf("NewLlama with an empty library folder: %v", err)
	}
	if _, err := NewLlama(LlamaConfig{Model: filepath.Join(empty, "absent.gguf"), LibDir: empty}); err == nil || !strings.Contains(err.Error(), "absent.gguf") {
		t.Errorf("NewLlama with an absent model: %v", err)
	}
}

func TestLlamaInfo(t *testing.T) {
	l := testLlama(t)
	info := l.Info()
	if info.Layers != 2 || info.TrainCtx != 4096 || info.Context != 4096 {
		t.Errorf("layers %d, train context %d, context %d; want 2, 4096, 4096", info.Layers, info.TrainCtx, info.Context)
	}
	if info.Backend == "" || info.Device == "" || len(info.Devices) == 0 {
		t.Errorf("backend %q device %q devices %v: want them named", info.Backend, info.Device, info.Devices)
	}
	if info.Multimodal || info.MultimodalNote == "" || info.Vision != imagerows.DefaultFamily {
		t.Errorf("multimodal %v note %q vision %q: want the estimator, explained", info.Multimodal, info.MultimodalNote, info.Vision)
	}
	if !strings.HasSuffix(info.Template, ".gguf") {
		t.Errorf("template %q: want the model's own", info.Template)
	}
	if !strings.Contains(info.Description, "qwen3") {
		t.Errorf("description %q: want the qwen3 architecture", info.Description)
	}
	t.Logf("llama.cpp: %s on %s (%s), %d devices", info.Backend, info.Device, info.Description, len(info.Devices))
}

func TestNewLlamaRejectsBrokenModel(t *testing.T) {
	libs := testLlamaLibs(t)
	testLlama(t) // the libraries load once per process
	bad := filepath.Join(t.TempDir(), "broken.gguf")
	if err := os.WriteFile(bad, []byte("GGUF\x03\x00\x00\x00 not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewLlama(LlamaConfig{Model: bad, LibDir: libs})
	if err == nil || !strings.Contains(err.Error(), "broken.gguf") {
		t.Fatalf("NewLlama(broken) = %v, want an error naming the file", err)
	}
	if !strings.Contains(err.Error(), "llama.cpp:") {
		t.Errorf("error %q lacks llama.cpp's log", err)
	}
}

// qwen3RefCase is a reference encoding of measure/tokenize/testdata/tok/qwen3_ids.json.
type qwen3RefCase struct {
	Name string `json:"name"`
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

func TestLlamaTokenizerMatchesQwen3Reference(t *testing.T) {
	l := testLlama(t)
	data, err := os.ReadFile(filepath.Join("..", "measure", "tokenize", "testdata", "tok", "qwen3_ids.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []qwen3RefCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	checked := 0
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range cases {
		// llama.cpp applies no NFC normalisation (docs/pipeline.md §13.2), and cannot take NUL.
		if !norm.NFC.IsNormalString(c.Text) || strings.Contains(c.Text, "\x00") {
			continue
		}
		got := l.tokenize(c.Text, true)
		if len(got) != len(c.IDs) {
			t.Errorf("%s: llama.cpp gives %d tokens, the reference %d", c.Name, len(got), len(c.IDs))
			continue
		}
		for i := range got {
			if int(got[i]) != c.IDs[i] {
				t.Errorf("%s: token %d is %d, want %d", c.Name, i, got[i], c.IDs[i])
				break
			}
		}
		checked++
	}
	if checked < 40 {
		t.Errorf("checked %d cases, want ≥ 40", checked)
	}
}

// sampleRequests returns every request of the embedded sample corpus.
func sampleRequests(t *testing.T) []Request {
	t.Helper()
	var col corpora.Collector
	if err := corpora.ReadSamples(context.Background(), &col); err != nil {
		t.Fatal(err)
	}
	var out []Request
	for _, c := range col.Conversations {
		for _, r := range c.Requests() {
			out = append(out, Request{Messages: r.Messages, Tools: c.Tools})
		}
	}
	if len(out) < 10 {
		t.Fatalf("%d sample requests, want ≥ 10", len(out))
	}
	return out
}

func TestLlamaCountMatchesOffline(t *testing.T) {
	l := testLlama(t)
	tok, err := tinymodel.FindTokenizer()
	if err != nil {
		t.Skip(err.Error())
	}
	off, err := NewOffline(OfflineConfig{Tokenizer: tok, Template: l.Info().Model})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pictures := 0
	for i, req := range sampleRequests(t) {
		want, err := off.Count(ctx, req.Messages, req.Tools)
		if err != nil {
			t.Fatalf("request %d: offline: %v", i, err)
		}
		got, err := l.Count(ctx, req.Messages, req.Tools)
		if err != nil {
			t.Fatalf("request %d: llama: %v", i, err)
		}
		if got.TextTokens != want.TextTokens || got.ImageRows != want.ImageRows || got.PromptTokens != want.PromptTokens {
			t.Errorf("request %d: llama counts text %d + rows %d = %d, the project's tokenizer %d + %d = %d",
				i, got.TextTokens, got.ImageRows, got.PromptTokens, want.TextTokens, want.ImageRows, want.PromptTokens)
		}
		if len(got.Images) > 0 && got.RowsSource != "estimate" {
			t.Errorf("request %d: rows source %q, want estimate (no mtmd)", i, got.RowsSource)
		}
		pictures += len(got.Images)
	}
	if pictures == 0 {
		t.Error("no sample request carried a picture")
	}
}

func TestLlamaGenerateIsDeterministic(t *testing.T) {
	l := testLlama(t)
	ctx := context.Background()
	req := Request{Messages: []corpora.Message{
		{Role: corpora.RoleSystem, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "You are a terse assistant."}}},
		{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: strings.Repeat("Describe the screenshot of the build log, line by line. ", 12)}}},
	}}
	count, err := l.Count(ctx, req.Messages, nil)
	if err != nil {
		t.Fatal(err)
	}
	if count.PromptTokens <= 64 {
		t.Fatalf("prompt of %d tokens: want more than one batch of 64", count.PromptTokens)
	}
	first, err := l.Generate(ctx, req, 6)
	if err != nil {
		t.Fatal(err)
	}
	second, err := l.Generate(ctx, req, 6)
	if err != nil {
		t.Fatal(err)
	}
	if first.PromptTokens != count.PromptTokens {
		t.Errorf("generation evaluated %d prompt tokens, Count says %d", first.PromptTokens, count.PromptTokens)
	}
	if len(first.Tokens) == 0 && first.FinishReason != "stop" {
		t.Errorf("no tokens and finish %q", first.FinishReason)
	}
	if len(first.Tokens) > 6 || first.CompletionTokens != len(first.Tokens) {
		t.Errorf("%d tokens (completion %d), want ≤ 6", len(first.Tokens), first.CompletionTokens)
	}
	if strings.Join(strings.Fields(strings.Trim(jsonOf(first.Tokens), "[]")), "") != strings.Join(strings.Fields(strings.Trim(jsonOf(second.Tokens), "[]")), "") || first.Text != second.Text {
		t.Errorf("greedy generation differs: %v %q vs %v %q", first.Tokens, first.Text, second.Tokens, second.Text)
	}
	if first.Timings == nil || first.Timings.PromptN != first.PromptTokens || first.PromptEval <= 0 || first.PromptTokensPerSecond <= 0 {
		t.Errorf("timings %+v, prompt eval %v, %.0f tok/s: want them measured", first.Timings, first.PromptEval, first.PromptTokensPerSecond)
	}
	if first.Backend == "" || first.Device == "" {
		t.Errorf("backend %q device %q: want them named", first.Backend, first.Device)
	}
	t.Logf("prompt %d tokens in %v (%.0f tok/s); %d tokens in %v (%.0f tok/s): %v", first.PromptTokens, first.PromptEval,
		first.PromptTokensPerSecond, first.CompletionTokens, first.Generation, first.TokensPerSecond, first.Tokens)

	// Answer is Generate with the configured limit (8).
	ans, err := l.Answer(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if ans.PromptTokens != count.PromptTokens || ans.CompletionTokens > 8 || ans.Model == "" {
		t.Errorf("answer %+v", ans)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestLlamaRefusesPromptBeyondContext(t *testing.T) {
	l := testLlama(t)
	req := Request{Messages: []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: strings.Repeat("token ", 5000)}}}}}
	_, err := l.Answer(context.Background(), req)
	r, ok := AsRefused(err)
	if !ok {
		t.Fatalf("Answer of a 5000-token prompt in a 4096 context: %v, want a refusal", err)
	}
	if r.Context != 4096 || r.PromptTokens < 5000 {
		t.Errorf("refusal %+v", r)
	}
}

func TestLlamaPicturesWithoutMtmdAreDropped(t *testing.T) {
	l := testLlama(t)
	var col corpora.Collector
	if err := corpora.ReadSamples(context.Background(), &col); err != nil {
		t.Fatal(err)
	}
	for _, c := range col.Conversations {
		for _, r := range c.Requests() {
			cnt, err := l.Count(context.Background(), r.Messages, c.Tools)
			if err != nil || len(cnt.Images) == 0 || cnt.PromptTokens > 3000 {
				continue
			}
			g, err := l.Generate(context.Background(), Request{Messages: r.Messages, Tools: c.Tools}, 2)
			if err != nil {
				t.Fatal(err)
			}
			if g.PicturesDropped != len(cnt.Images) || g.PromptTokens != cnt.TextTokens {
				t.Errorf("%s: dropped %d of %d pictures, evaluated %d tokens for %d text tokens", r.ID(), g.PicturesDropped, len(cnt.Images), g.PromptTokens, cnt.TextTokens)
			}
			return
		}
	}
	t.Fatal("no small sample request with a picture")
}

func TestLlamaCountHonoursContext(t *testing.T) {
	l := testLlama(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msgs := []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "hi"}}}}
	if _, err := l.Count(ctx, msgs, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Count with a cancelled context: %v", err)
	}
	if _, err := l.Generate(ctx, Request{Messages: msgs}, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("Generate with a cancelled context: %v", err)
	}
	// NUL bytes, which llama.cpp's C API cannot take, count as one token each.
	got, err := l.Count(context.Background(), []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "a\x00b"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := l.Count(context.Background(), []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "a b"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.TextTokens != plain.TextTokens+1 {
		t.Errorf("a\\x00b counts %d tokens, a b %d: want one more", got.TextTokens, plain.TextTokens)
	}
}

func TestSpecialCuts(t *testing.T) {
	specials := []string{"</think>", "<|im_start|>", "<|im_end|>", "<think>"}
	tests := []struct {
		text string
		want []int
	}{
		{"plain text", nil},
		{"<|im_start|>user\nhi<|im_end|>\n", []int{19}},
		{"a<think>b</think>c", []int{1, 9}},
		{"<|im_end|><|im_end|>", []int{10}},
		{"x<|im_start", nil},
	}
	for _, tc := range tests {
		got := specialCuts(tc.text, specials)
		if jsonOf(got) != jsonOf(tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("specialCuts(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestLlamaCountCacheAgreesWithWholeText(t *testing.T) {
	l := testLlama(t)
	body := strings.Repeat("The build failed at step 3 of 7; see the log. ", 40)
	text := "<|im_start|>system\n" + body + "<|im_end|>\n<|im_start|>user\n" + body + "<think>\n\n</think>\n\n" + body + "<|im_end|>\n"
	l.mu.Lock()
	defer l.mu.Unlock()
	whole := len(l.tokenize(text, true))
	for round := 0; round < 2; round++ { // the second round is answered from the cache
		if got := l.countText(text, true); got != whole {
			t.Errorf("round %d: cut and cached count %d, whole-text tokenization %d", round, got, whole)
		}
	}
}

func TestLlamaGenerateRejectsEmptyPrompt(t *testing.T) {
	l := testLlama(t)
	empty := filepath.Join(t.TempDir(), "empty.jinja")
	if err := os.WriteFile(empty, []byte("{# renders nothing #}"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := NewLlama(LlamaConfig{Model: l.Info().Model, LibDir: l.Info().LibDir, Template: empty, BatchSize: 64, ContextSize: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	msgs := []corpora.Message{{Role: corpora.RoleUser, Parts: []corpora.Part{{Kind: corpora.PartText, Text: "hi"}}}}
	if _, err := other.Generate(context.Background(), Request{Messages: msgs}, 2); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Generate of an empty prompt: %v, want an error", err)
	}
	if info := other.Info(); info.Template != empty || info.Context != 512 {
		t.Errorf("template %q context %d, want %s and 512", info.Template, info.Context, empty)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Count(context.Background(), msgs, nil); err == nil {
		t.Error("Count after Close: no error")
	}
}

// TestMtmdPicturesAreLabelledMtmd: pictures that libmtmd counted in-process carry the rows
// source mtmd, per picture and for the request, and the text its chunks hold beyond the
// prompt's own and the markers goes to the last picture.
func TestMtmdPicturesAreLabelledMtmd(t *testing.T) {
	c := Count{TextTokens: 40, TextSource: "tokenizer"}
	addMtmdPictures(&c, [][2]int{{640, 480}, {32, 32}}, []int{300, 16}, []int{2, 2}, 45)
	if c.RowsSource != imagerows.SourceMtmd {
		t.Errorf("rows source %q, want %q", c.RowsSource, imagerows.SourceMtmd)
	}
	if len(c.Images) != 2 {
		t.Fatalf("%d pictures, want 2", len(c.Images))
	}
	for k, img := range c.Images {
		if img.Rows.Source != imagerows.SourceMtmd {
			t.Errorf("picture %d: rows source %q, want %q", k, img.Rows.Source, imagerows.SourceMtmd)
		}
	}
	if got := c.Images[1].Rows; got.Markers != 3 || got.Total != 19 || c.ImageRows != 302+19 {
		t.Errorf("last picture %+v, image rows %d: want 3 markers (one merged across an edge), 19 in all, 321 rows", got, c.ImageRows)
	}
}
