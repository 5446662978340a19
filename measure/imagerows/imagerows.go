// Package imagerows counts image rows: how many prompt tokens one picture costs a
// vision-language model, per model family and, from a projector file, as llama.cpp's multimodal
// library counts them (docs/pipeline.md §10).
package imagerows

// The llama.cpp families reproduce mtmd's preprocessing (tools/mtmd/mtmd-image.cpp)
// and clip_n_output_tokens in the same 32-bit float arithmetic, with the same
// built-in token limits, so their counts are exact ("tokenizer" source); the mtmd
// oracle (rows_oracle_test.go, make rows-oracle) holds them to the release's libmtmd. The
// Hugging Face Qwen rules reproduce transformers' smart_resize in float64 with
// banker's rounding. The hosted API rules (OpenAI, Anthropic, Gemini) evaluate
// the providers' published formulas and are labelled "estimate".
// Every rule is described in docs/pipeline.md §10.

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/strata-eval/strata-eval/internal/suggest"
)

// Sources of an image-row count, as in the product spec's "source of each count".
const (
	// SourceTokenizer marks a count computed here exactly as the server computes it.
	SourceTokenizer = "tokenizer"
	// SourceEstimate marks a count from a published formula that the provider may not follow exactly.
	SourceEstimate = "estimate"
	// SourceMtmd marks a count that llama.cpp's multimodal library (libmtmd) made itself, in
	// this process.
	SourceMtmd = "mtmd"
)

// MaxImageSide is the largest width or height ImageRows accepts. It keeps every
// intermediate product far inside int64 and float32's exact-integer range is
// not relied upon beyond what llama.cpp itself does.
const MaxImageSide = 1 << 24

// MaxTokenLimit is the largest --image-min-tokens / --image-max-tokens value accepted.
const MaxTokenLimit = 1 << 24

// ErrPictureRefused is wrapped by errors for pictures the modelled preprocessor
// itself refuses (Hugging Face Qwen: aspect ratio above 200; qwen-vl-utils: a
// side shrunk to zero), as opposed to invalid input.
var ErrPictureRefused = errors.New("the reference preprocessor refuses this picture")

// ErrUnsupportedProjector is returned for projector types whose preprocessing is not modelled.
var ErrUnsupportedProjector = errors.New("projector type not supported for image-row counting")

// Rule names the algorithm a Family uses.
type Rule string

// The algorithms.
const (
	// RuleLlamaCpp is llama.cpp's mtmd of the bound release (v0.5.0) unless the family's
	// fields select an earlier behaviour; the formula is chosen by Family.Projector.
	RuleLlamaCpp Rule = "llama.cpp"
	// RuleLlamaCppLegacyQwen is Qwen2/2.5-VL in llama.cpp before b6915: longest side scaled to
	// 1024 px, each side rounded up to a multiple of 2·patch.
	RuleLlamaCppLegacyQwen Rule = "llama.cpp<b6915-qwen"
	// RuleHFQwen is transformers' Qwen2-VL smart_resize (float64, round half to even,
	// error for an aspect ratio above 200).
	RuleHFQwen Rule = "transformers-qwen"
	// RuleQwenVLUtils is qwen-vl-utils' smart_resize (first rounding clamped to ≥ factor,
	// the shrink branch not clamped).
	RuleQwenVLUtils Rule = "qwen-vl-utils"
	// RuleOpenAITile is OpenAI's 512-px tile rule (base + tiles·tile).
	RuleOpenAITile Rule = "openai-tile"
	// RuleOpenAIPatch is OpenAI's 32-px patch rule (capped patches × multiplier).
	RuleOpenAIPatch Rule = "openai-patch"
	// RuleAnthropicPatch is Claude's 28-px patch rule ⌈W/28⌉·⌈H/28⌉ after the resize of its
	// resolution tier.
	RuleAnthropicPatch Rule = "anthropic-patch28"
	// RuleAnthropicArea is Claude's older estimate ⌈W·H/750⌉ after the standard tier's resize.
	RuleAnthropicArea Rule = "anthropic-area750"
	// RuleGeminiTiles is the Gemini 2.0 wording: ≤ 384 px both sides 258, else 768-px tiles of 258.
	RuleGeminiTiles Rule = "gemini-tiles"
	// RuleGeminiVertex is the Vertex AI Gemini 1.5 crop-unit rule.
	RuleGeminiVertex Rule = "gemini-vertex"
	// RuleFixedCost is a constant cost per picture (Gemini media_resolution caps).
	RuleFixedCost Rule = "fixed-cost"
)

// PixelSize is a width × height in pixels (or, for Rows.Grid, columns × rows).
type PixelSize struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// String formats the size as "W×H".
func (s PixelSize) String() string { return fmt.Sprintf("%d×%d", s.Width, s.Height) }

// Family is one model family's picture-cost rule with its parameters. The named
// families come from FamilyByName; LoadProjector configures one from an mmproj
// GGUF. Zero-valued parameters take the projector's llama.cpp defaults.
type Family struct {
	// Name identifies the family, e.g. "llamacpp/qwen2.5vl" or "openai/gpt-4o-high".
	Name string `json:"name"`
	// Rule selects the algorithm.
	Rule Rule `json:"rule"`
	// Projector is llama.cpp's clip.projector_type (RuleLlamaCpp families).
	Projector string `json:"projector,omitempty"`

	// ImageSize is clip.vision.image_size (S): the fixed size, slice or tile size.
	ImageSize int `json:"image_size,omitempty"`
	// PatchSize is clip.vision.patch_size (p).
	PatchSize int `json:"patch_size,omitempty"`
	// Merge is the per-side merge / pooling factor (m): clip.vision.spatial_merge_size or
	// clip.vision.projector.scale_factor depending on the projector.
	Merge int `json:"merge,omitempty"`

	// MinTokens and MaxTokens are the projector's built-in token limits
	// (llama.cpp set_limit_image_tokens); RowOptions override them.
	MinTokens int `json:"min_tokens,omitempty"`
	MaxTokens int `json:"max_tokens,omitempty"`
	// MinPixels and MaxPixels are pixel limits: read from the GGUF for the projectors that
	// use them (PaddleOCR, dots.ocr, Phi-4, EXAONE 4.5, MiMo-VL, optionally Kimi-K2.5 and
	// HunyuanVL), or the processor's limits for the Hugging Face rules.
	MinPixels int `json:"min_pixels,omitempty"`
	MaxPixels int `json:"max_pixels,omitempty"`

	// LongestEdge is clip.vision.preproc_image_size (Idefics3/SmolVLM, LightOnOCR).
	LongestEdge int `json:"longest_edge,omitempty"`
	// MinTiles and MaxTiles bound InternVL's tile grid (clip.vision.preproc_{min,max}_tiles).
	MinTiles int `json:"min_tiles,omitempty"`
	MaxTiles int `json:"max_tiles,omitempty"`
	// Pinpoints are LLaVA-1.6's candidate resolutions (clip.vision.image_grid_pinpoints).
	Pinpoints []PixelSize `json:"pinpoints,omitempty"`
	// MiniCPMVersion is clip.minicpmv_version (0 means 2).
	MiniCPMVersion int `json:"minicpmv_version,omitempty"`
	// QueryNum is clip.minicpmv_query_num (0: 96 for version 2, 64 otherwise).
	QueryNum int `json:"query_num,omitempty"`
	// QuerySide and WindowSide are Granite 4 vision's clip.vision.projector.query_side and
	// window_side (each window of window_side² patches gives query_side² rows).
	QuerySide  int `json:"query_side,omitempty"`
	WindowSide int `json:"window_side,omitempty"`
	// ImageBreak is set when the projector has the v.token_embd.img_break tensor (Pixtral rows).
	ImageBreak bool `json:"image_break,omitempty"`
	// ExtraRows are embedding rows added per image by the projector itself
	// (BOI/EOI embeddings of GLM-Edge and CogVLM).
	ExtraRows int `json:"extra_rows,omitempty"`
	// LFM2NoTiling models llama.cpp before b7980, when LFM2-VL had no tiling.
	LFM2NoTiling bool `json:"lfm2_no_tiling,omitempty"`
	// LFM2NoThumbnailMarker models llama.cpp b7980…b9585, which did not emit
	// <|img_thumbnail|> before an untiled LFM2 picture (with LFM2SideThreshold).
	LFM2NoThumbnailMarker bool `json:"lfm2_no_thumbnail_marker,omitempty"`
	// LFM2SideThreshold models llama.cpp b7980 to master of 2026-08, which tiled an LFM2
	// picture when a side exceeded 1024 px (the bound release compares the aligned area
	// with twice the maximum pixels).
	LFM2SideThreshold bool `json:"lfm2_side_threshold,omitempty"`

	// BaseTokens and TileTokens are OpenAI's tile-rule constants; BaseTokens alone is
	// detail=low, and the constant of RuleFixedCost.
	BaseTokens int `json:"base_tokens,omitempty"`
	TileTokens int `json:"tile_tokens,omitempty"`
	// ShortSide is OpenAI's tile-rule shortest-side target (768; 512 for GPT Image 1).
	ShortSide int `json:"short_side,omitempty"`
	// SquareExtraTokens and OtherExtraTokens are added to OpenAI's tile count for a square
	// picture and for any other (GPT Image 1 with high input fidelity).
	SquareExtraTokens int `json:"square_extra_tokens,omitempty"`
	OtherExtraTokens  int `json:"other_extra_tokens,omitempty"`
	// Multiplier scales OpenAI patch counts (1.62 for gpt-4.1-mini, …); the product is
	// rounded up.
	Multiplier float64 `json:"multiplier,omitempty"`
	// PatchCap is OpenAI's patch budget (0: none).
	PatchCap int `json:"patch_cap,omitempty"`
	// MaxLongEdge is the longest side a hosted API keeps (OpenAI's pixel-dimension limit,
	// Claude's edge limit); MaxPictureTokens is Claude's visual-token limit.
	MaxLongEdge      int `json:"max_long_edge,omitempty"`
	MaxPictureTokens int `json:"max_picture_tokens,omitempty"`

	// Note says what the rule is.
	Note string `json:"note,omitempty"`
	// Page is the provider page a hosted rule follows, with the version of the page.
	Page string `json:"page,omitempty"`
}

// RowOptions are per-server settings that change picture costs.
type RowOptions struct {
	// MinTokens is llama-server's --image-min-tokens (0: the projector's default).
	MinTokens int
	// MaxTokens is llama-server's --image-max-tokens (0: the projector's default).
	MaxTokens int
	// Position is where the picture sits in the prompt: the tokens before it, text and earlier
	// pictures, as mtmd has placed them when it reaches the picture (the BOS the vocabulary
	// adds comes after, so it is not counted). Only a family whose rows depend on it reads it
	// (PositionPeriod); 0 is a picture at the start.
	Position int
}

// Rows is the cost of one picture.
type Rows struct {
	// Rows are the embedding rows the picture occupies: one KV-cache cell and one
	// prompt position of the token count each (M-RoPE position ids may repeat, but
	// every row still fills the context).
	Rows int `json:"rows"`
	// Markers are the text tokens added around and between the embeddings
	// (<|vision_start|>, slice separators, [IMG_END], …); each is one token.
	Markers int `json:"markers"`
	// Total is Rows + Markers: how much the prompt grows.
	Total int `json:"total"`
	// Resized is the size the preprocessor resizes the picture to (for tiled models
	// the refined image the tiles are cut from; for fixed-size models S×S).
	Resized PixelSize `json:"resized"`
	// Overview is the overview / thumbnail size of tiled models (zero otherwise).
	Overview PixelSize `json:"overview,omitempty"`
	// Tiles is the number of tiles or slices besides the overview (0 when untiled).
	Tiles int `json:"tiles,omitempty"`
	// Grid is the tile grid: Width columns × Height rows (zero when untiled).
	Grid PixelSize `json:"grid,omitempty"`
	// Source is SourceTokenizer or SourceEstimate (SourceMtmd where libmtmd counted it).
	Source string `json:"source"`
}

// ImageRows returns the prompt cost of one width×height picture under family f.
// An error means the size or the family's parameters are invalid, or that the
// reference implementation itself refuses the picture (Hugging Face Qwen:
// aspect ratio above 200).
func ImageRows(f Family, width, height int, opts RowOptions) (Rows, error) {
	if width <= 0 || height <= 0 {
		return Rows{}, fmt.Errorf("image rows for %s: invalid picture size %d×%d", f.Name, width, height)
	}
	if width > MaxImageSide || height > MaxImageSide {
		return Rows{}, fmt.Errorf("image rows for %s: picture size %d×%d exceeds %d px per side", f.Name, width, height, MaxImageSide)
	}
	if err := CheckRowOptions(f, opts); err != nil {
		return Rows{}, err
	}
	var (
		r   Rows
		err error
	)
	in := PixelSize{width, height}
	switch f.Rule {
	case RuleLlamaCpp:
		r, err = llamaCppRows(f, in, opts)
	case RuleLlamaCppLegacyQwen:
		r, err = legacyQwenRows(f, in)
	case RuleHFQwen, RuleQwenVLUtils:
		r, err = hfQwenRows(f, in, opts)
	case RuleOpenAITile:
		r, err = openAITileRows(f, in)
	case RuleOpenAIPatch:
		r, err = openAIPatchRows(f, in)
	case RuleAnthropicPatch, RuleAnthropicArea:
		r, err = anthropicRows(f, in)
	case RuleGeminiTiles, RuleGeminiVertex, RuleFixedCost:
		r, err = geminiRows(f, in)
	default:
		err = fmt.Errorf("unknown rule %q", f.Rule)
	}
	if err != nil {
		return Rows{}, fmt.Errorf("image rows for %s (%d×%d): %w", f.Name, width, height, err)
	}
	if r.Rows <= 0 {
		return Rows{}, fmt.Errorf("image rows for %s (%d×%d): computed %d rows; the family's parameters are inconsistent", f.Name, width, height, r.Rows)
	}
	r.Total = r.Rows + r.Markers
	return r, nil
}

// llamaCppRows counts with the rows function of the projector type, as clip.cpp dispatches.
func llamaCppRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	if f.Projector == "" {
		return Rows{}, errors.New("no projector type")
	}
	t, ok := projectorTypes[f.Projector]
	if !ok {
		return Rows{}, fmt.Errorf("%w: %q", ErrUnsupportedProjector, f.Projector)
	}
	return t.rows(f, in, opts)
}

// FamilyByName returns a built-in family. Names are matched case-insensitively;
// "qwen25vl" is accepted for "qwen2.5vl".
func FamilyByName(name string) (Family, error) {
	want := normalizeFamilyName(name)
	for _, f := range builtinFamilies() {
		if normalizeFamilyName(f.Name) == want {
			return f, nil
		}
	}
	return Family{}, &UnknownFamilyError{Name: name}
}

// UnknownFamilyError is a family name that no built-in family has; its message names the
// closest few, not all of them (there are over a hundred).
type UnknownFamilyError struct{ Name string }

func (e *UnknownFamilyError) Error() string {
	return fmt.Sprintf("unknown image-row family %q%s", e.Name, suggest.DidYouMean(e.Name, Families()))
}

// Families lists the names of the built-in families, sorted.
func Families() []string {
	fams := builtinFamilies()
	names := make([]string, len(fams))
	for i, f := range fams {
		names[i] = f.Name
	}
	sort.Strings(names)
	return names
}

// normalizeFamilyName folds case and the "qwen25" spelling.
func normalizeFamilyName(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	return strings.ReplaceAll(n, "qwen25", "qwen2.5")
}

// builtinFamilies assembles the registry from the family groups. It builds a
// fresh slice each call, so callers may modify what they get.
func builtinFamilies() []Family {
	var all []Family
	for _, group := range [][]Family{
		qwenFamilies(), glm4vFamilies(), gemmaFamilies(), pixtralFamilies(), kimiFamilies(),
		llavaFamilies(), miniCPMFamilies(), internVLFamilies(), llama4Families(),
		idefics3Families(), lfm2Families(), dynamicFamilies(), hostedFamilies(),
	} {
		all = append(all, group...)
	}
	return all
}

// ---- shared parameter helpers ----

// orDefault returns v, or def when v is zero or negative.
func paramOrDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// tokenPixelLimits is llama.cpp's set_limit_image_tokens: the pixel limits for a
// token range with unit = patch·merge, the CLI overrides taking precedence.
// (llama.cpp refuses to load a projector whose resulting maximum is below the
// minimum; ImageRows checks that through checkTokenLimits.)
func tokenPixelLimits(unit, minTokens, maxTokens int, opts RowOptions) (minPx, maxPx int64) {
	minTokens, maxTokens = effectiveTokenLimits(minTokens, maxTokens, opts)
	area := int64(unit) * int64(unit)
	return int64(minTokens) * area, int64(maxTokens) * area
}

// effectiveTokenLimits applies the CLI overrides to a projector's token limits.
func effectiveTokenLimits(minTokens, maxTokens int, opts RowOptions) (int, int) {
	if opts.MinTokens > 0 {
		minTokens = opts.MinTokens
	}
	if opts.MaxTokens > 0 {
		maxTokens = opts.MaxTokens
	}
	return minTokens, maxTokens
}

// rowParam is a named family parameter, for validation messages.
type rowParam struct {
	name  string
	value int
}

// requirePositiveParams returns an error naming the first parameter that is not positive.
func requirePositiveParams(params ...rowParam) error {
	for _, p := range params {
		if p.value <= 0 {
			return fmt.Errorf("parameter %s is %d, must be positive", p.name, p.value)
		}
	}
	return nil
}

// ---- (P1) llama.cpp smart_resize in float32 ----

// f32RoundAway is C's std::round on a float: half away from zero.
func f32RoundAway(x float32) int64 { return clampToInt64(math.Round(float64(x))) }

// f32Floor is static_cast<int>(std::floor(x)).
func f32Floor(x float32) int64 { return clampToInt64(math.Floor(float64(x))) }

// f32Ceil is static_cast<int>(std::ceil(x)).
func f32Ceil(x float32) int64 { return clampToInt64(math.Ceil(float64(x))) }

// f32Sqrt is sqrtf: the double square root rounded to float equals the float one.
func f32Sqrt(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// clampToInt64 converts a float64 integer value to int64 without overflow.
func clampToInt64(x float64) int64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= 1<<62:
		return 1 << 62
	case x <= -(1 << 62):
		return -(1 << 62)
	}
	return int64(x)
}

// llamaSmartResize is img_tool::calc_size_preserved_ratio(size, align, min_px, max_px)
// (spec P1): round each side to the alignment (half away from zero, at least one
// unit), then shrink (floor) or grow (ceil) by one common factor when the area is
// outside [minPx, maxPx]. All arithmetic in float32 as llama.cpp does.
func llamaSmartResize(in PixelSize, align int, minPx, maxPx int64) PixelSize {
	return calcSizePreservedRatio(in, align, minPx, maxPx, 0)
}

// calcSizePreservedRatio is mtmd's img_tool::calc_size_preserved_ratio with all its
// options: with longestEdge > 0 the picture is first scaled so its long side is
// longestEdge and each side rounded up to the alignment (P2), else each side is rounded
// to the alignment (P1); then the area is brought inside [minPx, maxPx] (a limit of 0 or
// less is off). Float32 as in llama.cpp.
func calcSizePreservedRatio(in PixelSize, align int, minPx, maxPx int64, longestEdge int) PixelSize {
	a := int64(align)
	af := float32(align)
	w, h := int64(in.Width), int64(in.Height)
	var wBar, hBar int64
	if longestEdge > 0 {
		le := float32(longestEdge)
		scale := min(le/float32(w), le/float32(h))
		wBar = f32Ceil(float32(float32(w)*scale)/af) * a
		hBar = f32Ceil(float32(float32(h)*scale)/af) * a
	} else {
		hBar = max(a, f32RoundAway(float32(h)/af)*a)
		wBar = max(a, f32RoundAway(float32(w)/af)*a)
	}
	if maxPx > 0 && hBar*wBar > maxPx {
		beta := f32Sqrt(float32(w*h) / float32(maxPx))
		hBar = max(a, f32Floor(float32(h)/beta/af)*a)
		wBar = max(a, f32Floor(float32(w)/beta/af)*a)
	} else if minPx > 0 && hBar*wBar < minPx {
		beta := f32Sqrt(float32(minPx) / float32(w*h))
		hBar = f32Ceil(float32(float32(h)*beta)/af) * a
		wBar = f32Ceil(float32(float32(w)*beta)/af) * a
	}
	return PixelSize{clampSide(wBar), clampSide(hBar)}
}

// clampSide keeps a computed side within what ImageRows can report safely.
func clampSide(v int64) int {
	const limit = 1 << 40
	if v > limit {
		return limit
	}
	if v < 0 {
		return 0
	}
	return int(v)
}

// ---- (P4) best resolution among candidates (LLaVA-NeXT rule) ----

// selectBestResolution is llava_uhd::select_best_resolution: the candidate keeping
// the most effective pixels, ties broken by the least waste, first one winning.
func selectBestResolution(in PixelSize, candidates []PixelSize) PixelSize {
	var best PixelSize
	minWasted := int64(math.MaxInt64)
	maxEffective := int64(0)
	orig := int64(in.Width) * int64(in.Height)
	for _, c := range candidates {
		scale := min(float32(c.Width)/float32(in.Width), float32(c.Height)/float32(in.Height))
		tw := f32Trunc(float32(float32(in.Width) * scale))
		th := f32Trunc(float32(float32(in.Height) * scale))
		effective := min(tw*th, orig)
		wasted := int64(c.Width)*int64(c.Height) - effective
		if effective > maxEffective || (effective == maxEffective && wasted < minWasted) {
			maxEffective, minWasted, best = effective, wasted, c
		}
	}
	return best
}

// f32Trunc is static_cast<int>(x) for a non-negative float.
func f32Trunc(x float32) int64 { return clampToInt64(math.Trunc(float64(x))) }

// forEachTile visits the tiles llava-uhd cuts from a refined image: S×S tiles
// left to right, top to bottom, the last column and row possibly narrower. Equal
// tiles are visited once with their count, so the cost does not depend on the
// number of tiles. It returns the tile count.
func forEachTile(refined PixelSize, slice int, visit func(size PixelSize, count int)) int {
	if refined.Width <= 0 || refined.Height <= 0 || slice <= 0 {
		return 0
	}
	cols := int(rowsCeilDiv(int64(refined.Width), int64(slice)))
	rows := int(rowsCeilDiv(int64(refined.Height), int64(slice)))
	lastW := refined.Width - (cols-1)*slice
	lastH := refined.Height - (rows-1)*slice
	for _, c := range []struct {
		size  PixelSize
		count int
	}{
		{PixelSize{slice, slice}, (cols - 1) * (rows - 1)},
		{PixelSize{lastW, slice}, rows - 1},
		{PixelSize{slice, lastH}, cols - 1},
		{PixelSize{lastW, lastH}, 1},
	} {
		if c.count > 0 {
			visit(c.size, c.count)
		}
	}
	return cols * rows
}

// rowsCeilDiv is ⌈a/b⌉ for positive b.
func rowsCeilDiv(a, b int64) int64 { return (a + b - 1) / b }
