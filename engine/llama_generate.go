package engine

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/hybridgroup/yzma/pkg/llama"
	"github.com/hybridgroup/yzma/pkg/mtmd"

	"github.com/strata-eval/strata-eval/corpora"
	"github.com/strata-eval/strata-eval/measure/imagerows"
)

// LlamaGeneration is one greedy generation with what llama.cpp measured.
type LlamaGeneration struct {
	Answer
	// Tokens are the generated token ids (the end-of-generation token left out).
	Tokens []int `json:"tokens"`
	// PromptEval and Generation are wall-clock times of evaluating the prompt and of
	// generating; the rates are tokens per second of each.
	PromptEval            time.Duration `json:"prompt_eval"`
	Generation            time.Duration `json:"generation"`
	PromptTokensPerSecond float64       `json:"prompt_tokens_per_second"`
	TokensPerSecond       float64       `json:"tokens_per_second"`
	// Backend and Device ran the evaluation (LlamaInfo.Backend, LlamaInfo.Device).
	Backend string `json:"backend"`
	Device  string `json:"device"`
	// PicturesDropped counts pictures the model did not see: without the multimodal library
	// the prompt holds the text only.
	PicturesDropped int `json:"pictures_dropped,omitempty"`
}

// Answer answers the request greedily with up to LlamaConfig.MaxTokens tokens. Request.Verbatim
// is ignored: the messages are rendered with the chat template either way. A prompt that
// does not fit the context is refused with a *RefusedError, as llama-server refuses it.
func (l *Llama) Answer(ctx context.Context, req Request) (Answer, error) {
	g, err := l.Generate(ctx, req, 0)
	if err != nil {
		return Answer{}, err
	}
	return g.Answer, nil
}

// Generate answers the request greedily with up to maxTokens tokens (LlamaConfig.MaxTokens
// when maxTokens <= 0), stopping at the model's end-of-generation tokens or at the end of
// the context. The cache of the previous request is cleared first, so equal requests give
// equal answers.
func (l *Llama) Generate(ctx context.Context, req Request, maxTokens int) (LlamaGeneration, error) {
	if err := ctx.Err(); err != nil {
		return LlamaGeneration{}, err
	}
	if maxTokens <= 0 {
		maxTokens = l.maxToks
	}
	pieces, err := l.renderPieces(req.Messages, req.Tools)
	if err != nil {
		return LlamaGeneration{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.model == 0 {
		return LlamaGeneration{}, fmt.Errorf("llama engine: closed")
	}
	g := LlamaGeneration{Backend: l.info.Backend, Device: l.info.Device}
	g.Model = filepath.Base(l.info.Model)
	mem, err := llama.GetMemory(l.lctx)
	if err != nil {
		return g, fmt.Errorf("llama engine: %w", err)
	}
	if err := llama.MemoryClear(mem, true); err != nil {
		return g, fmt.Errorf("llama engine: %w", err)
	}
	llama.SamplerReset(l.sampler)

	start := time.Now()
	promptTokens, err := l.evalPrompt(ctx, &g, pieces)
	if err != nil {
		return g, err
	}
	g.PromptEval = time.Since(start)
	g.PromptTokens = promptTokens

	start = time.Now()
	if err := l.sample(ctx, &g, min(maxTokens, l.nCtx-promptTokens)); err != nil {
		return g, err
	}
	g.Generation = time.Since(start)
	g.CompletionTokens = len(g.Tokens)
	g.setRates()
	return g, nil
}

// evalPrompt evaluates the rendered prompt (pieces) and returns its length in tokens: with its
// pictures through the multimodal library when it is loaded, else its text alone (g counts
// the pictures dropped). A prompt that does not fit the context is refused.
func (l *Llama) evalPrompt(ctx context.Context, g *LlamaGeneration, pieces []promptPiece) (int, error) {
	var promptTokens int
	var err error
	if l.mctx != 0 && hasPicture(pieces) {
		if l.noTower != "" {
			return 0, fmt.Errorf("llama engine: %s", l.noTower)
		}
		promptTokens, err = l.evalMtmd(pieces)
	} else {
		var tokens []llama.Token
		for i, p := range pieces {
			if p.image != nil {
				g.PicturesDropped++
				continue
			}
			tokens = append(tokens, l.tokenize(p.text, i == 0)...)
		}
		promptTokens = len(tokens)
		if promptTokens == 0 {
			return 0, fmt.Errorf("llama engine: the rendered prompt is empty")
		}
		if promptTokens >= l.nCtx {
			return 0, l.refusal(promptTokens)
		}
		err = l.decode(ctx, tokens)
	}
	if err != nil {
		if _, ok := AsRefused(err); ok {
			return 0, err
		}
		return 0, fmt.Errorf("llama engine: evaluate the prompt of %d tokens: %w", promptTokens, err)
	}
	return promptTokens, nil
}

// sample generates up to limit tokens greedily after the evaluated prompt, into g's Tokens,
// Text and FinishReason ("stop" at an end-of-generation token, else "length").
func (l *Llama) sample(ctx context.Context, g *LlamaGeneration, limit int) error {
	var text []byte
	buf := make([]byte, 256)
	g.FinishReason = "length"
	for len(g.Tokens) < limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		tok := llama.SamplerSample(l.sampler, l.lctx, -1)
		if tok == llama.TokenNull {
			return fmt.Errorf("llama engine: sampling failed after %d tokens (llama.cpp: %s)", len(g.Tokens), l.rt.logs.tail(4))
		}
		if llama.VocabIsEOG(l.vocab, tok) {
			g.FinishReason = "stop"
			break
		}
		g.Tokens = append(g.Tokens, int(tok))
		n := llama.TokenToPiece(l.vocab, tok, buf, 0, false)
		if n < 0 {
			buf = make([]byte, -n)
			n = llama.TokenToPiece(l.vocab, tok, buf, 0, false)
		}
		if n > 0 {
			text = append(text, buf[:n]...)
		}
		if len(g.Tokens) == limit {
			break
		}
		if err := l.decode(ctx, []llama.Token{tok}); err != nil {
			return fmt.Errorf("llama engine: generate token %d: %w", len(g.Tokens), err)
		}
	}
	g.Text = strings.ToValidUTF8(string(text), "\uFFFD")
	return nil
}

// setRates sets the tokens per second of the prompt's evaluation and of the generation, and the
// Timings, from the counts and times.
func (g *LlamaGeneration) setRates() {
	if s := g.PromptEval.Seconds(); s > 0 {
		g.PromptTokensPerSecond = float64(g.PromptTokens) / s
	}
	if s := g.Generation.Seconds(); s > 0 && g.CompletionTokens > 0 {
		g.TokensPerSecond = float64(g.CompletionTokens) / s
	}
	g.Timings = &Timings{
		PromptN: g.PromptTokens, PromptMS: float64(g.PromptEval.Microseconds()) / 1000,
		PredictedN: g.CompletionTokens, PredictedMS: float64(g.Generation.Microseconds()) / 1000,
	}
}

// refusal is llama-server's answer to a prompt longer than the context.
func (l *Llama) refusal(promptTokens int) error {
	return &RefusedError{
		Status:       400,
		Message:      fmt.Sprintf("the request exceeds the available context size, try increasing it (prompt %d tokens, context %d)", promptTokens, l.nCtx),
		PromptTokens: promptTokens,
		Context:      l.nCtx,
	}
}

// decode evaluates tokens in calls of at most nBatch tokens (a single call with more aborts
// the whole process in llama.cpp). The caller holds l.mu.
func (l *Llama) decode(ctx context.Context, tokens []llama.Token) error {
	for i := 0; i < len(tokens); i += l.nBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk := tokens[i:min(i+l.nBatch, len(tokens))]
		rc, err := llama.Decode(l.lctx, llama.BatchGetOne(chunk))
		runtime.KeepAlive(chunk)
		if err != nil {
			return err
		}
		if rc != 0 {
			return fmt.Errorf("llama_decode returned %d at token %d (llama.cpp: %s)", rc, i, l.rt.logs.tail(4))
		}
	}
	return nil
}

// mtmdChunks tokenizes the pieces with llama.cpp's multimodal library: text parts with
// special tokens parsed, pictures as bitmaps. When only counting, a picture is a placeholder
// bitmap of its size (what mtmd counts for it does not depend on its pixels, and needs no
// decoder: WebP, which mtmd decodes only through an ffmpeg it launches, counts all the same);
// to evaluate, mtmd decodes the bytes itself, and a picture it cannot decode is decoded here.
// The caller frees the chunks and holds l.mu.
func (l *Llama) mtmdChunks(pieces []promptPiece, placeholder bool) (mtmd.InputChunks, func(), error) {
	var parts []*mtmd.InputPart
	var bitmaps []mtmd.Bitmap
	free := func() {
		for _, b := range bitmaps {
			mtmd.BitmapFree(b)
		}
	}
	picture := 0
	for i, p := range pieces {
		if p.image == nil {
			text := p.text
			if i == 0 && l.addBOS {
				text = strings.TrimPrefix(text, l.bosText)
			}
			parts = append(parts, mtmd.NewInputTextPart(mtmd.NewInputText(text, false, true)))
			continue
		}
		bm, err := l.bitmap(p.image, placeholder)
		if err != nil {
			free()
			return 0, nil, fmt.Errorf("picture %d: %w", picture, err)
		}
		mtmd.BitmapSetId(bm, strconv.Itoa(picture))
		bitmaps = append(bitmaps, bm)
		parts = append(parts, mtmd.NewInputBitmapPart(bm))
		picture++
	}
	chunks := mtmd.InputChunksInit()
	rc := mtmd.TokenizeFromParts(l.mctx, chunks, parts, l.addBOS)
	runtime.KeepAlive(pieces)
	if rc != 0 {
		mtmd.InputChunksFree(chunks)
		free()
		return 0, nil, fmt.Errorf("mtmd tokenize returned %d (llama.cpp: %s)", rc, l.rt.logs.tail(3))
	}
	return chunks, func() { mtmd.InputChunksFree(chunks); free() }, nil
}

// bitmap makes mtmd's bitmap of a picture: a placeholder of its size, or its pixels. The
// caller frees it and holds l.mu.
func (l *Llama) bitmap(img *corpora.Image, placeholder bool) (mtmd.Bitmap, error) {
	if placeholder {
		w, h, err := pictureSize(img)
		if err != nil {
			return 0, err
		}
		if bm := mtmd.BitmapInit(uint32(w), uint32(h), 0); bm != 0 {
			return bm, nil
		}
		return 0, fmt.Errorf("mtmd cannot make a bitmap of %d×%d", w, h)
	}
	if len(img.Data) == 0 {
		return 0, fmt.Errorf("no bytes")
	}
	w := mtmd.BitmapInitFromBuf(l.mctx, &img.Data[0], uint64(len(img.Data)), false, mtmd.InitOptDefault())
	if w.Bitmap != 0 {
		return w.Bitmap, nil
	}
	why := l.rt.logs.tail(2)
	rgb, width, height, err := decodeRGB(img.Data)
	if err != nil {
		return 0, fmt.Errorf("neither llama.cpp (%s) nor Go can decode it: %w", why, err)
	}
	bm := mtmd.BitmapInit(uint32(width), uint32(height), uintptr(unsafe.Pointer(&rgb[0])))
	runtime.KeepAlive(rgb) // mtmd_bitmap_init copies the pixels
	if bm == 0 {
		return 0, fmt.Errorf("mtmd cannot make a bitmap of %d×%d", width, height)
	}
	return bm, nil
}

// decodeRGB decodes a picture into packed 8-bit RGB rows, mtmd's bitmap layout, with
// alpha dropped as stb_image drops it.
func decodeRGB(data []byte) ([]byte, int, int, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, 0, 0, err
	}
	b := img.Bounds()
	if b.Empty() {
		return nil, 0, 0, fmt.Errorf("empty picture")
	}
	rgb := make([]byte, 0, b.Dx()*b.Dy()*3)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			rgb = append(rgb, c.R, c.G, c.B)
		}
	}
	return rgb, b.Dx(), b.Dy(), nil
}

// countPicturesMtmd counts the pictures with the multimodal library: each picture's rows are
// the tokens of its image chunks, its markers the text tokens mtmd puts around a picture of
// its size alone (pictures of different sizes get different markers: tiles, slices, rows);
// what the whole prompt's text chunks hold beyond c.TextTokens and those markers (tokens
// merged across a marker's edge) goes to the last picture, so that the pictures add up to
// mtmd's prompt. The caller holds l.mu.
func (l *Llama) countPicturesMtmd(pieces []promptPiece, c *Count) error {
	chunks, release, err := l.mtmdChunks(pieces, true)
	if err != nil {
		return fmt.Errorf("llama engine: %w", err)
	}
	defer release()
	var sizes [][2]int
	for _, p := range pieces {
		if p.image != nil {
			w, h, err := pictureSize(p.image)
			if err != nil {
				return err
			}
			sizes = append(sizes, [2]int{w, h})
		}
	}
	rows := make([]int, len(sizes))
	textTokens := 0
	for i := uint64(0); i < mtmd.InputChunksSize(chunks); i++ {
		chunk := mtmd.InputChunksGet(chunks, i)
		n := int(mtmd.InputChunkGetNTokens(chunk))
		if mtmd.InputChunkGetType(chunk) == mtmd.InputChunkTypeText {
			textTokens += n
			continue
		}
		k, err := strconv.Atoi(mtmd.InputChunkGetId(chunk))
		if err != nil || k < 0 || k >= len(rows) {
			return fmt.Errorf("llama engine: mtmd returned an image chunk of unknown picture %q", mtmd.InputChunkGetId(chunk))
		}
		rows[k] += n
	}
	markers := make([]int, len(sizes))
	for k, s := range sizes {
		if markers[k], err = l.markersOf(s[0], s[1]); err != nil {
			return fmt.Errorf("llama engine: picture %d: %w", k, err)
		}
	}
	addMtmdPictures(c, sizes, rows, markers, textTokens)
	return nil
}

// addMtmdPictures adds to c the pictures mtmd counted: rows[k] the tokens of picture k's image
// chunks, markers[k] the text tokens mtmd puts around it alone, textTokens all the text tokens
// of mtmd's chunks; what those hold beyond c.TextTokens and the markers goes to the last
// picture. The counts are libmtmd's own (source mtmd).
func addMtmdPictures(c *Count, sizes [][2]int, rows, markers []int, textTokens int) {
	rest := textTokens - c.TextTokens
	for _, m := range markers {
		rest -= m
	}
	markers[len(markers)-1] = max(markers[len(markers)-1]+rest, 0)
	for k, s := range sizes {
		r := ImageCount{Width: s[0], Height: s[1]}
		r.Rows.Rows, r.Rows.Markers, r.Rows.Total, r.Rows.Source = rows[k], markers[k], rows[k]+markers[k], imagerows.SourceMtmd
		c.Images = append(c.Images, r)
		c.ImageRows += r.Rows.Total
	}
	c.RowsSource = imagerows.SourceMtmd
}

// markersOf is the number of text tokens mtmd puts around a picture of w×h alone (its media
// marker with nothing else), cached by size. The caller holds l.mu.
func (l *Llama) markersOf(w, h int) (int, error) {
	key := [2]int{w, h}
	if n, ok := l.markers[key]; ok {
		return n, nil
	}
	bm := mtmd.BitmapInit(uint32(w), uint32(h), 0)
	if bm == 0 {
		return 0, fmt.Errorf("mtmd cannot make a bitmap of %d×%d", w, h)
	}
	defer mtmd.BitmapFree(bm)
	chunks := mtmd.InputChunksInit()
	defer mtmd.InputChunksFree(chunks)
	if rc := mtmd.Tokenize(l.mctx, chunks, mtmd.NewInputText(mtmd.GetMarker(l.mctx), false, true), []mtmd.Bitmap{bm}); rc != 0 {
		return 0, fmt.Errorf("mtmd tokenize of a %d×%d picture returned %d (llama.cpp: %s)", w, h, rc, l.rt.logs.tail(3))
	}
	n := 0
	for i := uint64(0); i < mtmd.InputChunksSize(chunks); i++ {
		if chunk := mtmd.InputChunksGet(chunks, i); mtmd.InputChunkGetType(chunk) == mtmd.InputChunkTypeText {
			n += int(mtmd.InputChunkGetNTokens(chunk))
		}
	}
	if len(l.markers) >= maxCachedFragments {
		clear(l.markers)
	}
	l.markers[key] = n
	return n, nil
}

// evalMtmd evaluates a prompt with pictures through the multimodal library and returns its
// size in tokens. The caller holds l.mu.
func (l *Llama) evalMtmd(pieces []promptPiece) (int, error) {
	chunks, release, err := l.mtmdChunks(pieces, false)
	if err != nil {
		return 0, err
	}
	defer release()
	n := 0
	for i := uint64(0); i < mtmd.InputChunksSize(chunks); i++ {
		n += int(mtmd.InputChunkGetNTokens(mtmd.InputChunksGet(chunks, i)))
	}
	if n >= l.nCtx {
		return n, l.refusal(n)
	}
	var past llama.Pos
	if rc := mtmd.HelperEvalChunks(l.mctx, l.lctx, chunks, 0, 0, int32(l.nBatch), true, &past); rc != 0 {
		return n, fmt.Errorf("mtmd evaluation returned %d (llama.cpp: %s)", rc, l.rt.logs.tail(4))
	}
	return n, nil
}
