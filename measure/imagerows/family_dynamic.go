package imagerows

// Other dynamic-resolution llama.cpp projectors built on (P1): MiMo-VL, EXAONE 4.5,
// MiniMax-M3, Youtu-VL, PaddleOCR-VL, dots.ocr, dots3-note, Phi-4-multimodal, HunyuanOCR.
// They have no worked table to test against, so no named family: they are
// configured from an mmproj GGUF (LoadProjector), most of them needing the GGUF's
// pixel limits. docs/pipeline.md §10.2.

import "fmt"

// dynamicFamilies has no named entries (see the file comment).
func dynamicFamilies() []Family { return nil }

// ggufPixelLimits returns the family's GGUF pixel limits or an error naming the keys.
func ggufPixelLimits(f Family) (int64, int64, error) {
	if f.MinPixels <= 0 || f.MaxPixels <= 0 {
		return 0, 0, fmt.Errorf("projector %s needs clip.vision.image_min_pixels and clip.vision.image_max_pixels (got %d, %d)",
			f.Projector, f.MinPixels, f.MaxPixels)
	}
	return int64(f.MinPixels), int64(f.MaxPixels), nil
}

// dynamicRows computes the projectors of this file.
func dynamicRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	p := f.PatchSize
	if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	m := paramOrDefault(f.Merge, 2)
	var (
		size    PixelSize
		rows    int
		markers = 2
	)
	switch f.Projector {
	case "mimovl", "exaone4_5":
		minPx, maxPx, err := ggufPixelLimits(f)
		if err != nil {
			return Rows{}, err
		}
		size = llamaSmartResize(in, p*m, minPx, maxPx)
		rows = (size.Width / (2 * p)) * (size.Height / (2 * p))
	case "minimax_m3":
		minPx, maxPx := tokenPixelLimits(p*m, paramOrDefault(f.MinTokens, 8), paramOrDefault(f.MaxTokens, 576), opts)
		size = llamaSmartResize(in, p*m, minPx, maxPx)
		rows = (size.Width / (2 * p)) * (size.Height / (2 * p))
	case "youtuvl":
		_, maxPx := tokenPixelLimits(p*m, paramOrDefault(f.MinTokens, 1), paramOrDefault(f.MaxTokens, 62500), opts)
		size = youtuVLResize(in, p, m, maxPx)
		rows = (size.Width / (2 * p)) * (size.Height / (2 * p))
	case "paddleocr":
		minPx, maxPx, err := ggufPixelLimits(f)
		if err != nil {
			return Rows{}, err
		}
		size = llamaSmartResize(in, 2*p, minPx, maxPx)
		rows = int(rowsCeilDiv(int64(size.Width/p)*int64(size.Height/p), 4))
	case "dots_ocr", "dots3note_v":
		if f.Merge <= 0 {
			return Rows{}, fmt.Errorf("projector %s needs %s", f.Projector, defaultsForProjector(f.Projector).mergeKey)
		}
		minPx, maxPx, err := ggufPixelLimits(f)
		if err != nil {
			return Rows{}, err
		}
		size = llamaSmartResize(in, p*f.Merge, minPx, maxPx)
		rows = int(rowsCeilDiv(int64(size.Width/p)*int64(size.Height/p), int64(f.Merge*f.Merge)))
	case "phi4":
		minPx, maxPx, err := ggufPixelLimits(f)
		if err != nil {
			return Rows{}, err
		}
		size = llamaSmartResize(in, p, minPx, maxPx)
		rows = (size.Width / p) * (size.Height / p)
		markers = 0
	case "hunyuanvl":
		// tok-limits 256..16384 (or the options), each replaced by a GGUF pixel key present.
		hf := f
		hf.MinTokens, hf.MaxTokens = paramOrDefault(f.MinTokens, 256), paramOrDefault(f.MaxTokens, 16384)
		minPx, maxPx, err := mtmdPixelLimits(hf, opts)
		if err != nil {
			return Rows{}, err
		}
		size = llamaSmartResize(in, p*m, minPx, maxPx)
		ow, oh := size.Width/p/m, size.Height/p/m
		rows = (ow+1)*oh + 2
	default:
		return Rows{}, fmt.Errorf("%w: %q", ErrUnsupportedProjector, f.Projector)
	}
	return Rows{Rows: rows, Markers: markers, Resized: size, Source: SourceTokenizer}, nil
}

// youtuVLResize is Youtu-VL's search: scale 1.0, 0.98, 0.96, … (float32) until the
// patch count fits max_px/p²; each side is ⌈s·side/2p⌉·2p, at least 2p (no padding).
func youtuVLResize(in PixelSize, p, m int, maxPx int64) PixelSize {
	align := int64(p * m)
	maxPatches := maxPx / int64(p*p)
	side := func(scale float32, n int) int64 {
		scaled := float32(float32(n) * scale)
		return max(align, f32Ceil(scaled/float32(align))*align)
	}
	scale := float32(1.0)
	var w, h int64
	for scale > 0 {
		h = side(scale, in.Height)
		w = side(scale, in.Width)
		if (h/int64(p))*(w/int64(p)) <= maxPatches {
			break
		}
		scale -= 0.02
	}
	return PixelSize{clampSide(w), clampSide(h)}
}
