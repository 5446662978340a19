package imagerows

// Qwen2-VL, Qwen2.5-VL, Qwen3-VL: llama.cpp (current and before b6915) and the
// Hugging Face references (transformers, qwen-vl-utils). docs/pipeline.md §10.2.

import (
	"fmt"
	"math"
)

// qwenFamilies are the named Qwen-VL families.
func qwenFamilies() []Family {
	llama := func(name, projector string, patch int) Family {
		return Family{
			Name: name, Rule: RuleLlamaCpp, Projector: projector,
			PatchSize: patch, Merge: 2, MinTokens: 8, MaxTokens: 4096,
			Note: "llama.cpp mtmd smart_resize (float32), tok-limits 8..4096, <|vision_start|> <|vision_end|>",
		}
	}
	legacy := func(name, projector string) Family {
		return Family{
			Name: name, Rule: RuleLlamaCppLegacyQwen, Projector: projector,
			PatchSize: 14, Merge: 2, LongestEdge: 1024,
			Note: "llama.cpp before b6915: longest side scaled to 1024, sides rounded up to 28",
		}
	}
	hf := func(name string, rule Rule, patch, minPx, maxPx int, note string) Family {
		return Family{
			Name: name, Rule: rule, PatchSize: patch, Merge: 2,
			MinPixels: minPx, MaxPixels: maxPx, Note: note,
		}
	}
	return []Family{
		llama("llamacpp/qwen2vl", "qwen2vl_merger", 14),
		llama("llamacpp/qwen2.5vl", "qwen2.5vl_merger", 14),
		llama("llamacpp/qwen3vl", "qwen3vl_merger", 16),
		legacy("llamacpp-pre-b6915/qwen2vl", "qwen2vl_merger"),
		legacy("llamacpp-pre-b6915/qwen2.5vl", "qwen2.5vl_merger"),
		hf("hf/qwen2vl", RuleHFQwen, 14, 3136, 12845056, "transformers smart_resize with the model's preprocessor_config.json"),
		hf("hf/qwen2.5vl", RuleHFQwen, 14, 3136, 12845056, "transformers smart_resize with the model's preprocessor_config.json"),
		hf("hf/qwen2vl-classdefault", RuleHFQwen, 14, 3136, 1003520, "transformers Qwen2VLImageProcessor class defaults (no config)"),
		hf("hf/qwen3vl", RuleHFQwen, 16, 65536, 16777216, "transformers smart_resize with Qwen3-VL preprocessor_config.json"),
		hf("qwen-vl-utils/qwen2.5vl", RuleQwenVLUtils, 14, 4*28*28, 16384*28*28, "qwen-vl-utils defaults (4..16384 tokens)"),
		hf("qwen-vl-utils/qwen3vl", RuleQwenVLUtils, 16, 4*32*32, 16384*32*32, "qwen-vl-utils defaults (4..16384 tokens)"),
	}
}

// qwenLikeRows is llama.cpp's Qwen2/2.5/3-VL path: (P1) with f = p·m and tok-limits
// (default 8..4096), rows (W'/2p)·(H'/2p) (the code hard-codes the 2), plus
// <|vision_start|> and <|vision_end|>.
func qwenLikeRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	return mergerRows(f, in, opts, 8, 4096)
}

// mergerRows is the shared (P1) + (W'/2p)·(H'/2p) + 2 markers computation of the
// Qwen-VL and GLM-4V projectors, with the given default token limits.
func mergerRows(f Family, in PixelSize, opts RowOptions, defMin, defMax int) (Rows, error) {
	p := f.PatchSize
	m := paramOrDefault(f.Merge, 2)
	if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	unit := p * m
	minPx, maxPx := tokenPixelLimits(unit, paramOrDefault(f.MinTokens, defMin), paramOrDefault(f.MaxTokens, defMax), opts)
	size := llamaSmartResize(in, unit, minPx, maxPx)
	rows := (size.Width / (2 * p)) * (size.Height / (2 * p))
	return Rows{Rows: rows, Markers: 2, Resized: size, Source: SourceTokenizer}, nil
}

// legacyQwenRows is Qwen2/2.5-VL in llama.cpp before b6915: scale so the longest
// side is LongestEdge (up or down, float32), truncate, round each side up to a
// multiple of 2p (CLIP_ALIGN). A side that truncates to 0 is kept at one unit
// here (the old code would have produced an empty image).
func legacyQwenRows(f Family, in PixelSize) (Rows, error) {
	p := f.PatchSize
	if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	unit := int64(2 * p)
	edge := float32(paramOrDefault(f.LongestEdge, 1024))
	scale := min(edge/float32(in.Width), edge/float32(in.Height))
	align := func(side int) int {
		t := f32Trunc(float32(float32(side) * scale))
		return clampSide(max(unit, rowsCeilDiv(t, unit)*unit))
	}
	size := PixelSize{align(in.Width), align(in.Height)}
	rows := (size.Width / int(unit)) * (size.Height / int(unit))
	return Rows{Rows: rows, Markers: 2, Resized: size, Source: SourceTokenizer}, nil
}

// errAspectRatio is the Hugging Face processors' refusal of very long pictures.
var errAspectRatio = fmt.Errorf("%w: absolute aspect ratio must be smaller than 200 (ValueError)", ErrPictureRefused)

// hfQwenRows is the Hugging Face smart_resize (transformers RuleHFQwen, or
// qwen-vl-utils RuleQwenVLUtils) in float64 with round-half-to-even.
// RowOptions, when set, replace the pixel limits by tokens·f² (the processors'
// min_pixels / max_pixels arguments).
func hfQwenRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	p := f.PatchSize
	m := paramOrDefault(f.Merge, 2)
	if err := requirePositiveParams(rowParam{"patch_size", p}, rowParam{"min_pixels", f.MinPixels}, rowParam{"max_pixels", f.MaxPixels}); err != nil {
		return Rows{}, err
	}
	factor := float64(p * m)
	minPx, maxPx := float64(f.MinPixels), float64(f.MaxPixels)
	if opts.MinTokens > 0 {
		minPx = float64(opts.MinTokens) * factor * factor
	}
	if opts.MaxTokens > 0 {
		maxPx = float64(opts.MaxTokens) * factor * factor
	}
	w, h := float64(in.Width), float64(in.Height)
	if max(w, h)/min(w, h) > 200 {
		return Rows{}, fmt.Errorf("%w: %d×%d", errAspectRatio, in.Width, in.Height)
	}
	utils := f.Rule == RuleQwenVLUtils
	hBar := math.RoundToEven(h/factor) * factor
	wBar := math.RoundToEven(w/factor) * factor
	if utils {
		hBar, wBar = max(factor, hBar), max(factor, wBar)
	}
	if hBar*wBar > maxPx {
		beta := math.Sqrt(h * w / maxPx)
		hBar = math.Floor(h/beta/factor) * factor
		wBar = math.Floor(w/beta/factor) * factor
		if !utils {
			hBar, wBar = max(factor, hBar), max(factor, wBar)
		}
	} else if hBar*wBar < minPx {
		beta := math.Sqrt(minPx / (h * w))
		hBar = math.Ceil(h*beta/factor) * factor
		wBar = math.Ceil(w*beta/factor) * factor
	}
	size := PixelSize{clampSide(clampToInt64(wBar)), clampSide(clampToInt64(hBar))}
	if size.Width <= 0 || size.Height <= 0 {
		return Rows{}, fmt.Errorf("%w: resized to an empty %v", ErrPictureRefused, size)
	}
	unit := p * m
	rows := (size.Width / unit) * (size.Height / unit)
	return Rows{Rows: rows, Markers: 2, Resized: size, Source: SourceTokenizer}, nil
}
