package imagerows

// Hosted APIs: OpenAI's 512-px tile rule and 32-px patch rule, Claude's 28-px
// patch rule (and its older W·H/750 estimate), Gemini's documented amounts. All
// are estimates of what the provider bills. docs/pipeline.md §10.2.

import (
	"fmt"
	"math"
)

// hostedFamilies are the named hosted-API families.
func hostedFamilies() []Family {
	var out []Family
	tile := func(name string, base, perTile int, note string) {
		out = append(out,
			Family{Name: name + "-high", Rule: RuleOpenAITile, BaseTokens: base, TileTokens: perTile, ShortSide: 768,
				Note: note + ": detail=high, fit 2048, short side 768, 512-px tiles"},
			Family{Name: name + "-low", Rule: RuleOpenAITile, BaseTokens: base,
				Note: note + ": detail=low, base cost only"})
	}
	tile("openai/gpt-4o", 85, 170, "85 + 170·tiles")
	tile("openai/gpt-4.1", 85, 170, "85 + 170·tiles")
	tile("openai/gpt-4.5", 85, 170, "85 + 170·tiles")
	tile("openai/gpt-5", 70, 140, "70 + 140·tiles")
	tile("openai/gpt-5-chat-latest", 70, 140, "70 + 140·tiles")
	tile("openai/gpt-4o-mini", 2833, 5667, "2833 + 5667·tiles")
	tile("openai/o1-o3", 75, 150, "o1, o1-pro, o3: 75 + 150·tiles")
	tile("openai/computer-use-preview", 65, 129, "65 + 129·tiles")
	out = append(out, Family{
		Name: "openai/gpt-image-1", Rule: RuleOpenAITile, BaseTokens: 65, TileTokens: 129, ShortSide: 512,
		Note: "GPT Image 1 input, low fidelity: 65 + 129·tiles with a 512-px short side",
	})
	patch := func(name string, multiplier float64) {
		out = append(out, Family{
			Name: name, Rule: RuleOpenAIPatch, PatchCap: 1536, Multiplier: multiplier,
			Note: fmt.Sprintf("32-px patches capped at 1536, × %.2f rounded to nearest (rounding undocumented)", multiplier),
		})
	}
	patch("openai/patch32-before-multiplier", 1)
	patch("openai/gpt-4.1-mini", 1.62)
	patch("openai/gpt-5-mini", 1.62)
	patch("openai/gpt-4.1-nano", 2.46)
	patch("openai/gpt-5-nano", 2.46)
	patch("openai/o4-mini", 1.72)
	out = append(out,
		Family{Name: "anthropic/patch28-no-resize", Rule: RuleAnthropicPatch,
			Note: "⌈W/28⌉·⌈H/28⌉ for a picture within the model's native maximum (no downscale applied)"},
		Family{Name: "anthropic/opus-4.7-class", Rule: RuleAnthropicPatch, MaxLongEdge: 2576, MaxPictureTokens: 4784,
			Note: "⌈W/28⌉·⌈H/28⌉ after fitting the long edge to 2576 px and 4784 tokens (maxima unverified)"},
		Family{Name: "anthropic/claude-legacy", Rule: RuleAnthropicPatch, MaxLongEdge: 1568, MaxPixels: 1092 * 1092,
			Note: "≤ 4.6-class models: ⌈W/28⌉·⌈H/28⌉ after fitting 1568 px and 1092² px (resize rule unverified)"},
		Family{Name: "anthropic/legacy-area750", Rule: RuleAnthropicArea, MaxLongEdge: 1568, MaxPixels: 1092 * 1092,
			Note: "older docs: W·H/750 after fitting 1568 px and 1092² px"},
		Family{Name: "gemini/2.0-tiles", Rule: RuleGeminiTiles, BaseTokens: 258,
			Note: "≤ 384 px both sides: 258; else ⌈W/768⌉·⌈H/768⌉·258 (naive reading of the Gemini 2.0 text)"},
		Family{Name: "gemini/1.5-vertex", Rule: RuleGeminiVertex, BaseTokens: 258,
			Note: "Vertex AI Gemini 1.5: crop unit clamp(⌊min(W,H)/1.5⌋, 256, 768), 258 per crop"},
	)
	for _, c := range []struct {
		name   string
		tokens int
	}{
		{"gemini/2.x-media-low", 64}, {"gemini/2.x-media-medium", 256}, {"gemini/2.x-media-high", 256},
		{"gemini/3-low", 280}, {"gemini/3-medium", 560}, {"gemini/3-high", 1120}, {"gemini/3-ultra-high", 2240},
	} {
		out = append(out, Family{Name: c.name, Rule: RuleFixedCost, BaseTokens: c.tokens,
			Note: "media_resolution amount per picture (an upper bound; Gemini 3 numbers unverified)"})
	}
	return out
}

// ceilUnits is ⌈x/unit⌉ for a float side, tolerant of float noise just above a
// whole number of units (the providers do not say how they round resized sides).
func ceilUnits(x, unit float64) int64 {
	return clampToInt64(math.Ceil(x/unit - 1e-9))
}

// openAITileRows: detail=low costs BaseTokens; detail=high fits the picture in
// 2048×2048, scales the short side down to ShortSide, and costs
// BaseTokens + TileTokens·⌈W'/512⌉·⌈H'/512⌉.
func openAITileRows(f Family, in PixelSize) (Rows, error) {
	if err := requirePositiveParams(rowParam{"base_tokens", f.BaseTokens}); err != nil {
		return Rows{}, err
	}
	if f.TileTokens <= 0 {
		return Rows{Rows: f.BaseTokens, Resized: in, Source: SourceEstimate}, nil
	}
	short := float64(paramOrDefault(f.ShortSide, 768))
	w, h := float64(in.Width), float64(in.Height)
	if w > 2048 || h > 2048 {
		s := min(2048/w, 2048/h)
		w, h = w*s, h*s
	}
	if m := min(w, h); m > short {
		s := short / m
		w, h = w*s, h*s
	}
	tiles := ceilUnits(w, 512) * ceilUnits(h, 512)
	return Rows{
		Rows:    f.BaseTokens + f.TileTokens*int(tiles),
		Resized: PixelSize{int(math.Round(w)), int(math.Round(h))},
		Tiles:   int(tiles), Grid: PixelSize{int(ceilUnits(w, 512)), int(ceilUnits(h, 512))},
		Source: SourceEstimate,
	}, nil
}

// openAIPatchRows: ⌈W/32⌉·⌈H/32⌉ patches; above the cap the picture is scaled so
// whole patches fit, then capped; the count is multiplied by Multiplier and
// rounded to the nearest token.
func openAIPatchRows(f Family, in PixelSize) (Rows, error) {
	capN := int64(paramOrDefault(f.PatchCap, 1536))
	mult := f.Multiplier
	if mult <= 0 {
		mult = 1
	}
	w, h := float64(in.Width), float64(in.Height)
	patches := ceilUnits(w, 32) * ceilUnits(h, 32)
	resized := in
	if patches > capN {
		r := math.Sqrt(32 * 32 * float64(capN) / (w * h))
		wr, hr := w*r/32, h*r/32
		r *= min(math.Floor(wr)/wr, math.Floor(hr)/hr)
		w, h = w*r, h*r
		patches = min(ceilUnits(w, 32)*ceilUnits(h, 32), capN)
		resized = PixelSize{int(math.Round(w)), int(math.Round(h))}
	}
	tokens := max(1, int(math.Round(float64(patches)*mult)))
	return Rows{Rows: tokens, Resized: resized, Source: SourceEstimate}, nil
}

// anthropicFit returns the largest aspect-preserving size (whole pixels) within the
// family's long-edge, pixel and token limits.
func anthropicFit(f Family, in PixelSize, cost func(PixelSize) int64) PixelSize {
	w, h := float64(in.Width), float64(in.Height)
	s := 1.0
	if f.MaxLongEdge > 0 && max(w, h) > float64(f.MaxLongEdge) {
		s = float64(f.MaxLongEdge) / max(w, h)
	}
	if f.MaxPixels > 0 && w*h*s*s > float64(f.MaxPixels) {
		s = math.Sqrt(float64(f.MaxPixels) / (w * h))
	}
	size := func(s float64) PixelSize {
		return PixelSize{max(1, int(math.Floor(w*s+1e-9))), max(1, int(math.Floor(h*s+1e-9)))}
	}
	out := size(s)
	if f.MaxPictureTokens <= 0 || cost(out) <= int64(f.MaxPictureTokens) {
		return out
	}
	// Shrink the long edge (binary search) until the token budget holds.
	long := max(out.Width, out.Height)
	lo, hi := 1, long
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if cost(size(s*float64(mid)/float64(long))) <= int64(f.MaxPictureTokens) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return size(s * float64(lo) / float64(long))
}

// anthropicRows: ⌈W'/28⌉·⌈H'/28⌉ (RuleAnthropicPatch) or W'·H'/750 rounded, at
// least 1 (RuleAnthropicArea), after the family's downscale.
func anthropicRows(f Family, in PixelSize) (Rows, error) {
	patches := func(s PixelSize) int64 { return rowsCeilDiv(int64(s.Width), 28) * rowsCeilDiv(int64(s.Height), 28) }
	size := anthropicFit(f, in, patches)
	var tokens int64
	if f.Rule == RuleAnthropicArea {
		tokens = max(1, clampToInt64(math.Round(float64(size.Width)*float64(size.Height)/750)))
	} else {
		tokens = patches(size)
	}
	return Rows{Rows: int(tokens), Resized: size, Source: SourceEstimate}, nil
}

// geminiRows: RuleGeminiTiles, RuleGeminiVertex and RuleFixedCost.
func geminiRows(f Family, in PixelSize) (Rows, error) {
	per := f.BaseTokens
	if err := requirePositiveParams(rowParam{"base_tokens", per}); err != nil {
		return Rows{}, err
	}
	if f.Rule == RuleFixedCost {
		return Rows{Rows: per, Resized: in, Source: SourceEstimate}, nil
	}
	w, h := int64(in.Width), int64(in.Height)
	if w <= 384 && h <= 384 {
		return Rows{Rows: per, Resized: in, Tiles: 1, Grid: PixelSize{1, 1}, Source: SourceEstimate}, nil
	}
	unit := int64(768)
	if f.Rule == RuleGeminiVertex {
		unit = min(max(clampToInt64(math.Floor(float64(min(w, h))/1.5)), 256), 768)
	}
	cols, rows := rowsCeilDiv(w, unit), rowsCeilDiv(h, unit)
	tiles := cols * rows
	return Rows{
		Rows: int(tiles) * per, Resized: in, Tiles: int(tiles), Grid: PixelSize{int(cols), int(rows)},
		Source: SourceEstimate,
	}, nil
}
