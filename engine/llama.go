package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"image"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	gguf "github.com/gpustack/gguf-parser-go"
	"github.com/hybridgroup/yzma/pkg/llama"
	"github.com/hybridgroup/yzma/pkg/mtmd"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/measure/imagerows"
	"github.com/strata-eval/strata-eval/measure/prompt"
)

// GPU layer settings of LlamaConfig.GPULayers besides a positive count.
const (
	// AllGPULayers (the zero value) offloads every layer when a GPU backend is loaded.
	AllGPULayers = 0
	// NoGPULayers keeps every layer on the CPU.
	NoGPULayers = -1
)

// Defaults of LlamaConfig.
const (
	DefaultLlamaMaxTokens   = 256  // tokens generated per answer
	DefaultLlamaContextSize = 8192 // context cells, capped at the model's training context
	DefaultLlamaBatchSize   = 512  // tokens per decode call
)

// LlamaConfig configures the in-process llama.cpp engine. Only Model is required.
type LlamaConfig struct {
	// Model is the GGUF model file.
	Model string
	// LibDir is the folder holding libllama.so, libggml.so, libggml-base.so (and the backend
	// plugins libggml-cpu-*.so, libggml-cuda.so, and libmtmd.so when present). Empty: see
	// FindLlamaLibs ($YZMA_LIB, then the folders `make llama-libs` fills, beside the
	// executable, in the module folder, the user cache or the working directory).
	LibDir string
	// GPULayers is how many layers go to the GPU: AllGPULayers (0, the default) puts every
	// layer there when the libraries carry a GPU backend, NoGPULayers (-1) none, n > 0 that
	// many. ParseGPULayers reads the --gpu-layers flag.
	GPULayers int
	// MaxTokens limits each answer when Answer is given no limit (default 256).
	MaxTokens int
	// ContextSize is the context of the llama.cpp context (default 8192, capped at the
	// model's training context).
	ContextSize int
	// BatchSize is the number of tokens per decode call (n_batch = n_ubatch; default 512).
	// Small vocabularies' tests use 64 to keep the compute buffer small.
	BatchSize int
	// Threads is the number of CPU threads (0: llama.cpp's choice of performance cores).
	Threads int
	// MMProj is the multimodal projector GGUF. Pictures go through llama.cpp's multimodal
	// library when the libraries have libmtmd.so; otherwise the projector's metadata decides
	// the image rows by the estimator.
	MMProj string
	// Template overrides the model's own chat template (tokenizer.chat_template): a built-in
	// name (prompt.TemplateNames) or a file (prompt.TemplateFromSpec). Empty: the model's
	// template, or Qwen's ChatML when the model has none.
	Template string
	// TemplateDate is the date the template writes as today's (zero: prompt.DefaultTemplateDate).
	TemplateDate time.Time
	// Vision names the image-row family used by the estimator when there is no MMProj
	// (default imagerows.DefaultFamily); Rows are the image token limits.
	Vision string
	Rows   imagerows.RowOptions
}

// ParseGPULayers reads a --gpu-layers value: "all", "auto" or "" (every layer on the GPU when
// there is one), "none" or "0" (CPU only), a positive count, or -1 (llama.cpp's "all").
func ParseGPULayers(s string) (int, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "all", "auto", "-1":
		return AllGPULayers, nil
	case "none", "0", "cpu":
		return NoGPULayers, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("--gpu-layers %q: want all, none or a layer count", s)
	}
	return n, nil
}

// LlamaInfo describes what runs the engine's cases.
type LlamaInfo struct {
	Model       string        `json:"model"`
	Description string        `json:"description"` // llama.cpp's model description (arch, size, type)
	LibDir      string        `json:"lib_dir"`
	Release     string        `json:"release"` // the llama.cpp release the bindings target
	Backend     string        `json:"backend"` // the backend that runs the layers: CPU, CUDA, …
	Device      string        `json:"device"`  // the device that runs them: its hardware description
	GPULayers   int           `json:"gpu_layers"`
	Layers      int           `json:"layers"`
	Context     int           `json:"context"`
	TrainCtx    int           `json:"train_context"`
	Template    string        `json:"template"`
	Devices     []LlamaDevice `json:"devices"`
	// Multimodal says whether pictures go through llama.cpp's multimodal library; when not,
	// MultimodalNote says why and image rows are counted by the estimator ("estimate").
	Multimodal     bool   `json:"multimodal"`
	MultimodalNote string `json:"multimodal_note,omitempty"`
	Vision         string `json:"vision"` // the estimator's family when not Multimodal
}

// Llama counts and answers requests with llama.cpp in this process: the model's chat
// template (rendered by measure's Jinja), llama.cpp's tokenizer, and greedy generation.
// It is safe for concurrent use; calls are served one at a time.
type Llama struct {
	mu       sync.Mutex
	rt       *llamaRuntimeState
	model    llama.Model
	vocab    llama.Vocab
	lctx     llama.Context
	sampler  llama.Sampler
	mctx     mtmd.Context
	template prompt.Template
	family   imagerows.Family
	rows     imagerows.RowOptions
	bosText  string
	addBOS   bool
	nCtx     int
	nBatch   int
	maxToks  int
	nulTok   *llama.Token
	specials []string // control and user-defined token texts, longest first (no lstrip ones)
	counts   map[[sha256.Size]byte]int
	markers  map[[2]int]int // mtmd's marker tokens of a picture, by its size
	// noTower says why the projector cannot encode pictures (it has no vision blocks: made
	// for counting), "" when it can.
	noTower string
	info    LlamaInfo
}

// NewLlama loads the llama.cpp libraries (once per process; see FindLlamaLibs for where they
// are looked for), the GGUF model cfg.Model with every layer on the GPU when there is one
// (cfg.GPULayers overrides), a context of cfg.ContextSize, and the projector cfg.MMProj when
// libmtmd.so is there. Close releases the model.
//
// The libraries are only opened here, so a binary that never builds this engine runs without
// them. The error names what is missing and how to get it (`make llama-libs`).
func NewLlama(cfg LlamaConfig) (*Llama, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("llama engine: no model (--model FILE.gguf)")
	}
	if _, err := os.Stat(cfg.Model); err != nil {
		return nil, fmt.Errorf("llama engine: model: %w", err)
	}
	dir, err := FindLlamaLibs(cfg.LibDir)
	if err != nil {
		return nil, err
	}
	rt, err := loadLlama(dir)
	if err != nil {
		return nil, err
	}
	l := &Llama{rt: rt, rows: cfg.Rows, maxToks: cfg.MaxTokens}
	if l.maxToks <= 0 {
		l.maxToks = DefaultLlamaMaxTokens
	}
	ok := false
	defer func() {
		if !ok {
			l.Close()
		}
	}()

	gpu, hasGPU := rt.gpu()
	mp, err := llamaModelParams(cfg.GPULayers, hasGPU)
	if err != nil {
		return nil, err
	}
	l.model, err = llama.ModelLoadFromFile(cfg.Model, mp)
	if err != nil {
		return nil, fmt.Errorf("llama engine: load %s: %v (llama.cpp: %s)", cfg.Model, err, rt.logs.tail(6))
	}
	l.vocab = llama.ModelGetVocab(l.model)
	if err := l.newContext(cfg); err != nil {
		return nil, err
	}
	l.addBOS = llama.VocabGetAddBOS(l.vocab)
	if bos := llama.VocabBOS(l.vocab); bos != llama.TokenNull {
		l.bosText = llama.VocabGetText(l.vocab, bos)
	}
	l.specials = specialTexts(l.vocab)
	l.counts = map[[sha256.Size]byte]int{}
	l.markers = map[[2]int]int{}
	if err := l.loadTemplate(cfg); err != nil {
		return nil, err
	}
	l.template = prompt.WithTemplateDate(l.template, cfg.TemplateDate)

	l.info = LlamaInfo{
		Model: cfg.Model, Description: llama.ModelDesc(l.model), LibDir: dir, Release: LlamaRelease,
		Layers: int(llama.ModelNLayer(l.model)), Context: l.nCtx, TrainCtx: int(llama.ModelNCtxTrain(l.model)),
		Template: l.template.Name(), Devices: append([]LlamaDevice(nil), rt.devices...),
	}
	if hasGPU && mp.NGpuLayers > 0 {
		l.info.Backend, l.info.Device, l.info.GPULayers = gpu.Backend, gpu.Description, min(int(mp.NGpuLayers), l.info.Layers)
	} else {
		cpu := rt.cpu()
		l.info.Backend, l.info.Device = cpu.Backend, cpu.Description
	}
	if err := l.loadVision(cfg); err != nil {
		return nil, err
	}
	ok = true
	return l, nil
}

// llamaModelParams are the model parameters of a GPULayers setting: every layer on the GPU
// when there is one (AllGPULayers), none (NoGPULayers, or no GPU), or that many.
func llamaModelParams(gpuLayers int, hasGPU bool) (llama.ModelParams, error) {
	mp := llama.ModelDefaultParams()
	switch {
	case !hasGPU || gpuLayers == NoGPULayers:
		mp.NGpuLayers = 0
	case gpuLayers == AllGPULayers:
		mp.NGpuLayers = 999 // llama.cpp caps it at the layer count (+ the output layer)
	case gpuLayers > 0:
		mp.NGpuLayers = int32(min(gpuLayers, 999))
	default:
		return mp, fmt.Errorf("llama engine: gpu layers %d: want AllGPULayers, NoGPULayers or a count", gpuLayers)
	}
	return mp, nil
}

// newContext makes the llama.cpp context of the loaded model (cfg.ContextSize cells, capped at
// the training context; cfg.BatchSize tokens per decode; one sequence) and the greedy sampler.
func (l *Llama) newContext(cfg LlamaConfig) error {
	l.nCtx = cfg.ContextSize
	if l.nCtx <= 0 {
		l.nCtx = DefaultLlamaContextSize
	}
	if trainCtx := int(llama.ModelNCtxTrain(l.model)); trainCtx > 0 && l.nCtx > trainCtx {
		l.nCtx = trainCtx
	}
	l.nBatch = cfg.BatchSize
	if l.nBatch <= 0 {
		l.nBatch = DefaultLlamaBatchSize
	}
	cp := llama.ContextDefaultParams()
	cp.NCtx = uint32(l.nCtx)
	cp.NBatch = uint32(l.nBatch)
	cp.NUbatch = uint32(l.nBatch)
	cp.NSeqMax = 1
	if cfg.Threads > 0 {
		cp.NThreads, cp.NThreadsBatch = int32(cfg.Threads), int32(cfg.Threads)
	}
	var err error
	l.lctx, err = llama.InitFromModel(l.model, cp)
	if err != nil {
		return fmt.Errorf("llama engine: context of %d for %s: %v (llama.cpp: %s)", l.nCtx, cfg.Model, err, l.rt.logs.tail(6))
	}
	l.sampler = llama.SamplerChainInit(llama.SamplerChainDefaultParams())
	llama.SamplerChainAdd(l.sampler, llama.SamplerInitGreedy())
	return nil
}

// loadTemplate picks the chat template: cfg.Template, else the model's own, else Qwen's.
func (l *Llama) loadTemplate(cfg LlamaConfig) error {
	eos := ""
	if e := llama.VocabEOS(l.vocab); e != llama.TokenNull {
		eos = llama.VocabGetText(l.vocab, e)
	}
	if cfg.Template != "" {
		// a template file gets the model's BOS and EOS, as llama-server hands them
		t, err := prompt.TemplateFromSpecTokens(cfg.Template, l.bosText, eos)
		if err != nil {
			return fmt.Errorf("llama engine: %w", err)
		}
		l.template = t
		return nil
	}
	if src := llama.ModelChatTemplate(l.model, ""); src != "" {
		t, err := prompt.NewJinjaTemplate(cfg.Model, src, l.bosText, eos)
		if err != nil {
			return fmt.Errorf("llama engine: chat template of %s: %w", cfg.Model, err)
		}
		l.template = t
		return nil
	}
	t, err := prompt.TemplateByName(DefaultTemplate)
	if err != nil {
		return fmt.Errorf("llama engine: %w", err)
	}
	l.template = t
	return nil
}

// loadVision sets up pictures: the projector through mtmd when the libraries have it, else
// the estimator's family (imagerows.ChooseFamily: the projector's metadata, cfg.Vision or the
// default family; the default for imagerows.RecordedVision, since the model loaded here is
// one local model whatever a recording names: the offline counts it is compared with follow
// each recording's model).
func (l *Llama) loadVision(cfg LlamaConfig) error {
	var err error
	l.family, err = imagerows.ChooseFamily(cfg.MMProj, cfg.Vision)
	if err != nil {
		return fmt.Errorf("llama engine: %w", err)
	}
	if err := imagerows.CheckRowOptions(l.family, cfg.Rows); err != nil {
		return fmt.Errorf("llama engine: %w", err)
	}
	l.info.Vision = l.family.Name
	switch {
	case cfg.MMProj == "":
		l.info.MultimodalNote = "no --mmproj: image rows by the estimator"
	case !l.rt.mtmd:
		l.info.MultimodalNote = l.rt.mtmdWhy + ": image rows by the estimator"
	default:
		p := mtmd.ContextParamsDefault()
		p.ImageMinTokens, p.ImageMaxTokens = int32(cfg.Rows.MinTokens), int32(cfg.Rows.MaxTokens)
		// no warmup encode: it only sizes the compute buffers (the first picture does that),
		// and it runs the vision tower, which a projector made for counting may lack
		p.Warmup = false
		p.UseGPU = l.info.GPULayers > 0
		if cfg.Threads > 0 {
			p.Threads = int32(cfg.Threads)
		}
		l.mctx, err = mtmd.InitFromFile(cfg.MMProj, l.model, p)
		if err != nil {
			return fmt.Errorf("llama engine: projector %s: %v (llama.cpp: %s)", cfg.MMProj, err, l.rt.logs.tail(6))
		}
		if l.family.NeedsMRoPE() && !mtmd.DecodeUseMRope(l.mctx) {
			// asserted in mtmd_tokenize, which would kill the process on the first picture
			return fmt.Errorf("llama engine: projector %s (%s) lays pictures out on an M-RoPE grid, which llama.cpp %s takes only with a text model of M-RoPE positions; %s uses %s RoPE",
				cfg.MMProj, l.family.Projector, LlamaRelease, cfg.Model, ropeName(llama.ModelRopeType(l.model)))
		}
		l.info.Multimodal = true
		if n, err := visionBlocks(cfg.MMProj); err == nil && n == 0 {
			l.noTower = fmt.Sprintf("projector %s has no vision tower (clip.vision.block_count 0): it counts pictures but cannot encode them", cfg.MMProj)
		}
	}
	return nil
}

// visionBlocks reads a projector's clip.vision.block_count.
func visionBlocks(path string) (int, error) {
	f, err := gguf.ParseGGUFFile(path, gguf.UseMMap())
	if err != nil {
		return 0, err
	}
	kv, ok := f.Header.MetadataKV.Get("clip.vision.block_count")
	if !ok {
		return 0, fmt.Errorf("%s: no clip.vision.block_count", path)
	}
	switch kv.ValueType {
	case gguf.GGUFMetadataValueTypeUint32:
		return int(kv.ValueUint32()), nil
	case gguf.GGUFMetadataValueTypeInt32:
		return int(kv.ValueInt32()), nil
	}
	return 0, fmt.Errorf("%s: clip.vision.block_count of type %v", path, kv.ValueType)
}

// ropeName names a llama.cpp RoPE type (llama_rope_type) for errors.
func ropeName(t llama.RopeScalingType) string {
	switch int(t) {
	case -1:
		return "no"
	case 0:
		return "normal"
	case 2:
		return "NeoX"
	case 8:
		return "M-RoPE"
	case 24:
		return "vision"
	case 40:
		return "interleaved M-RoPE"
	}
	return fmt.Sprintf("type %d", int(t))
}

// Name identifies the engine in reports.
func (l *Llama) Name() string { return "llama" }

// Info describes the model, libraries, backend and device of the engine.
func (l *Llama) Info() LlamaInfo {
	info := l.info
	info.Devices = append([]LlamaDevice(nil), info.Devices...)
	return info
}

// Family is the image-row family of the estimator.
func (l *Llama) Family() imagerows.Family { return l.family }

// Close frees the model, context and projector. The libraries stay loaded for the process.
func (l *Llama) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mctx != 0 {
		_ = mtmd.Free(l.mctx)
		l.mctx = 0
	}
	if l.sampler != 0 {
		llama.SamplerFree(l.sampler)
		l.sampler = 0
	}
	if l.lctx != 0 {
		_ = llama.Free(l.lctx)
		l.lctx = 0
	}
	if l.model != 0 {
		_ = llama.ModelFree(l.model)
		l.model, l.vocab = 0, 0
	}
	return nil
}

// promptPiece is a stretch of rendered prompt text, or one picture.
type promptPiece struct {
	text  string
	image *corpora.Image
}

// renderPieces renders the request and cuts it at the pictures.
func (l *Llama) renderPieces(msgs []corpora.Message, tools []corpora.ToolDef) ([]promptPiece, error) {
	if err := heldRun(Request{Messages: msgs}); err != nil {
		return nil, err
	}
	segs, err := l.template.Render(msgs, tools)
	if err != nil {
		return nil, fmt.Errorf("render with template %s: %w", l.template.Name(), err)
	}
	var pieces []promptPiece
	var b strings.Builder
	for _, s := range segs {
		if s.Image == nil {
			b.WriteString(s.Text)
			continue
		}
		if b.Len() > 0 {
			pieces = append(pieces, promptPiece{text: b.String()})
			b.Reset()
		}
		pieces = append(pieces, promptPiece{image: s.Image})
	}
	if b.Len() > 0 {
		pieces = append(pieces, promptPiece{text: b.String()})
	}
	return pieces, nil
}

// tokenize tokenizes prompt text the way llama-server does (special tokens parsed). The first
// piece of a prompt gets the vocabulary's BOS when it adds one, and a BOS the template
// already wrote is dropped so the prompt holds one. NUL bytes, which the C API cannot take,
// split the text and count as one token each (their byte token). The caller holds l.mu.
func (l *Llama) tokenize(text string, first bool) []llama.Token {
	addSpecial := false
	if first && l.addBOS {
		addSpecial = true
		if l.bosText != "" {
			text = strings.TrimPrefix(text, l.bosText)
		}
	}
	if !strings.Contains(text, "\x00") {
		return llama.Tokenize(l.vocab, text, addSpecial, true)
	}
	var out []llama.Token
	for i, part := range strings.Split(text, "\x00") {
		if i > 0 {
			out = append(out, l.nulToken())
		}
		if part != "" {
			out = append(out, llama.Tokenize(l.vocab, part, addSpecial && len(out) == 0, true)...)
		}
	}
	return out
}

// nulToken is the token of byte 0: U+0100 in GPT-2's byte alphabet, <0x00> in
// SentencePiece byte fallback; token 0 where the vocabulary has neither. The caller holds l.mu.
func (l *Llama) nulToken() llama.Token {
	if l.nulTok == nil {
		tok := llama.Token(0)
		n := min(int(llama.VocabNTokens(l.vocab)), 4096)
		for id := 0; id < n; id++ {
			if t := llama.VocabGetText(l.vocab, llama.Token(id)); t == "\u0100" || t == "<0x00>" {
				tok = llama.Token(id)
				break
			}
		}
		l.nulTok = &tok
	}
	return *l.nulTok
}

// Count renders the messages with the chat template and counts the prompt with llama.cpp's
// tokenizer; pictures are counted by mtmd when it is loaded, else by the estimator.
func (l *Llama) Count(ctx context.Context, msgs []corpora.Message, tools []corpora.ToolDef) (Count, error) {
	if err := ctx.Err(); err != nil {
		return Count{}, err
	}
	pieces, err := l.renderPieces(msgs, tools)
	if err != nil {
		return Count{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.model == 0 {
		return Count{}, fmt.Errorf("llama engine: closed")
	}
	c := Count{TextSource: "tokenizer"}
	for i, p := range pieces {
		if p.image == nil {
			c.TextTokens += l.countText(p.text, i == 0)
		}
	}
	if l.mctx != 0 && hasPicture(pieces) {
		if err := l.countPicturesMtmd(pieces, &c); err != nil {
			return Count{}, err
		}
	} else {
		for _, p := range pieces {
			if p.image == nil {
				continue
			}
			w, h, err := pictureSize(p.image)
			if err != nil {
				return Count{}, err
			}
			rows, err := imagerows.ImageRows(l.family, w, h, l.rows)
			if err != nil {
				return Count{}, err
			}
			rows.Source = "estimate"
			c.Images = append(c.Images, ImageCount{Width: w, Height: h, Rows: rows})
			c.ImageRows += rows.Total
			c.RowsSource = "estimate"
		}
	}
	c.PromptTokens = c.TextTokens + c.ImageRows
	return c, nil
}

func hasPicture(pieces []promptPiece) bool {
	for _, p := range pieces {
		if p.image != nil {
			return true
		}
	}
	return false
}

// pictureSize returns a picture's pixel size, decoding the header when the model lacks it.
func pictureSize(img *corpora.Image) (int, int, error) {
	if img.Width > 0 && img.Height > 0 {
		return img.Width, img.Height, nil
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		return 0, 0, fmt.Errorf("picture size: %w", err)
	}
	return cfg.Width, cfg.Height, nil
}

// specialTexts returns the texts of the vocabulary's control and user-defined tokens that
// llama.cpp recognises in prompt text, longest first, leaving out those that strip the
// whitespace before them.
func specialTexts(vocab llama.Vocab) []string {
	var out []string
	for id := int32(0); id < llama.VocabNTokens(vocab); id++ {
		attr := llama.VocabGetAttr(vocab, llama.Token(id))
		if attr&(llama.TokenAttrControl|llama.TokenAttrUserDef) == 0 || attr&llama.TokenAttrLstrip != 0 {
			continue
		}
		if t := llama.VocabGetText(vocab, llama.Token(id)); t != "" {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// specialCuts returns the starts of the special-token occurrences in text, chosen longest
// first without overlap, as llama.cpp partitions a prompt before tokenizing it.
func specialCuts(text string, specials []string) []int {
	type span struct{ start, end int }
	var taken []span
	overlaps := func(a, b int) bool {
		for _, s := range taken {
			if a < s.end && s.start < b {
				return true
			}
		}
		return false
	}
	for _, sp := range specials {
		for from := 0; from < len(text); {
			i := strings.Index(text[from:], sp)
			if i < 0 {
				break
			}
			i += from
			if !overlaps(i, i+len(sp)) {
				taken = append(taken, span{i, i + len(sp)})
			}
			from = i + len(sp)
		}
	}
	cuts := make([]int, 0, len(taken))
	for _, s := range taken {
		if s.start > 0 {
			cuts = append(cuts, s.start)
		}
	}
	sort.Ints(cuts)
	return cuts
}

// Limits of the count cache: fragments shorter than minCachedFragment are tokenized
// directly; the cache is emptied when it holds maxCachedFragments.
const (
	minCachedFragment  = 256
	maxCachedFragments = 1 << 18
)

// countText counts the tokens of prompt text. The text is cut before each special token, which
// llama.cpp never merges with its neighbours, so a conversation's history, re-sent with every
// request, is tokenized once: fragment counts are cached by their SHA-256. The caller holds l.mu.
func (l *Llama) countText(text string, first bool) int {
	n, start := 0, 0
	cuts := append(specialCuts(text, l.specials), len(text))
	for _, end := range cuts {
		frag := text[start:end]
		isFirst := first && start == 0
		start = end
		if len(frag) < minCachedFragment {
			n += len(l.tokenize(frag, isFirst))
			continue
		}
		key := sha256.Sum256([]byte(frag))
		if isFirst {
			key[0] ^= 1 // the first fragment may get a BOS
		}
		if c, ok := l.counts[key]; ok {
			n += c
			continue
		}
		c := len(l.tokenize(frag, isFirst))
		if len(l.counts) >= maxCachedFragments {
			clear(l.counts)
		}
		l.counts[key] = c
		n += c
	}
	return n
}
