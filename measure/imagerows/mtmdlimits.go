package imagerows

// The pixel limits mtmd's clip.cpp derives for a projector from its built-in token limits,
// the GGUF's pixel keys and --image-min-tokens / --image-max-tokens, and the settings it
// refuses to load with (docs/pipeline.md §10.1).

import (
	"errors"
	"fmt"
	"math"
)

// errInvertedLimits marks token limits llama.cpp refuses to load with.
var errInvertedLimits = errors.New("llama.cpp refuses these limits")

// unsetPixels is clip.cpp's value of image_min_pixels / image_max_pixels when nothing sets them.
const unsetPixels = -1

// limitKind is how a projector type sets its pixel limits in clip.cpp.
type limitKind int

const (
	// limitsByTokens: token limits where the family has any, else none (the table's default).
	limitsByTokens limitKind = iota
	// limitsNone: no pixel limits (fixed size, tiles by pinpoints, …); the options are ignored.
	limitsNone
	// limitsTokens: set_limit_image_tokens(min, max), the options replacing either bound.
	limitsTokens
	// limitsCustomOnly: set_limit_image_tokens() without defaults: only the options set limits.
	limitsCustomOnly
	// limitsFile: the GGUF's clip.vision.image_min_pixels / image_max_pixels; options ignored.
	limitsFile
	// limitsTokensThenFile: token limits, then each GGUF pixel key present replaces one (HunyuanVL).
	limitsTokensThenFile
	// limitsFileElseTokens: the GGUF's pixel keys when it has both, else token limits (Kimi-K2.5).
	limitsFileElseTokens
)

// projectorLimitKind returns how clip.cpp sets the pixel limits of f's projector.
func projectorLimitKind(f Family) limitKind {
	switch kind := projectorTypes[f.Projector].limits; kind {
	case limitsByTokens:
		if f.MinTokens > 0 || f.MaxTokens > 0 {
			return limitsTokens
		}
		return limitsNone
	case limitsFileElseTokens:
		if f.MinPixels > 0 && f.MaxPixels > 0 {
			return limitsFile
		}
		return limitsTokens
	default:
		return kind
	}
}

// projectorUnit is patch_size·n_merge, the side of one output token in pixels.
func projectorUnit(f Family) int {
	m := f.Merge
	if m <= 0 {
		m = max(defaultsForProjector(f.Projector).merge, 1)
	}
	return f.PatchSize * m
}

// mtmdPixelLimits returns clip.cpp's image_min_pixels and image_max_pixels for family f
// under opts (unsetPixels where nothing sets one), or an error for a product that does not
// fit llama.cpp's 32-bit int.
func mtmdPixelLimits(f Family, opts RowOptions) (minPx, maxPx int64, err error) {
	area := int64(projectorUnit(f)) * int64(projectorUnit(f))
	tokens := func(custom, def int) (int64, error) {
		v := int64(def)
		if custom > 0 {
			v = int64(custom)
		}
		if v <= 0 {
			return unsetPixels, nil
		}
		if px := v * area; px <= math.MaxInt32 {
			return px, nil
		}
		return 0, fmt.Errorf("%d image tokens of %d×%d px exceed llama.cpp's 32-bit pixel limit", v, projectorUnit(f), projectorUnit(f))
	}
	switch projectorLimitKind(f) {
	case limitsTokens, limitsTokensThenFile:
		if minPx, err = tokens(opts.MinTokens, f.MinTokens); err != nil {
			return 0, 0, err
		}
		if maxPx, err = tokens(opts.MaxTokens, f.MaxTokens); err != nil {
			return 0, 0, err
		}
		if projectorLimitKind(f) == limitsTokensThenFile {
			if f.MinPixels > 0 {
				minPx = int64(f.MinPixels)
			}
			if f.MaxPixels > 0 {
				maxPx = int64(f.MaxPixels)
			}
		}
	case limitsCustomOnly:
		if minPx, err = tokens(opts.MinTokens, 0); err != nil {
			return 0, 0, err
		}
		if maxPx, err = tokens(opts.MaxTokens, 0); err != nil {
			return 0, 0, err
		}
	case limitsFile:
		minPx, maxPx = int64(f.MinPixels), int64(f.MaxPixels)
	default:
		minPx, maxPx = unsetPixels, unsetPixels
	}
	return minPx, maxPx, nil
}

// checkTokenLimits refuses what mtmd refuses to load with: pixel limits whose maximum is
// below the minimum ("image_max_pixels (…) is less than image_min_pixels (…)"), which an
// --image-min-tokens alone gives for the projectors without built-in limits.
func checkTokenLimits(f Family, opts RowOptions) error {
	if f.Rule != RuleLlamaCpp {
		return nil
	}
	lo, hi, err := mtmdPixelLimits(f, opts)
	if err != nil {
		return fmt.Errorf("%w: %w", errInvertedLimits, err)
	}
	if hi < lo {
		return fmt.Errorf("%w: mtmd does not load the %s projector with these token limits: image_max_pixels (%d) is less than image_min_pixels (%d)",
			errInvertedLimits, f.Projector, hi, lo)
	}
	return nil
}

// CheckRowOptions returns the error ImageRows gives for every picture of family f under opts
// when llama.cpp refuses to load f's projector with those token limits, nil otherwise, so
// that an engine can refuse the settings before measuring anything, as llama-server refuses
// to start.
func CheckRowOptions(f Family, opts RowOptions) error {
	if opts.MinTokens < 0 || opts.MaxTokens < 0 || opts.MinTokens > MaxTokenLimit || opts.MaxTokens > MaxTokenLimit {
		return fmt.Errorf("image rows for %s: token limits %d..%d out of range 0..%d", f.Name, opts.MinTokens, opts.MaxTokens, MaxTokenLimit)
	}
	if opts.Position < 0 {
		return fmt.Errorf("image rows for %s: prompt position %d is negative", f.Name, opts.Position)
	}
	if err := checkTokenLimits(f, opts); err != nil {
		return fmt.Errorf("image rows for %s: %w", f.Name, err)
	}
	return nil
}
