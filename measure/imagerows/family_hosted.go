package imagerows

// Hosted APIs: OpenAI's 32-px patch rule and 512-px tile rule, Claude's 28-px patch rule
// (and its older W·H/750 estimate), Gemini's documented amounts. Each family names the
// provider page it follows (Family.Page); the text of those pages and their worked examples
// are quoted in testdata/hosted. All are estimates of what the provider bills.
// docs/pipeline.md §10.2.

import (
	"fmt"
	"math"
)

// The provider pages the hosted families follow, with the version of each.
const (
	pageOpenAI   = "developers.openai.com/api/docs/guides/images-vision (gpt-5.6 version)"
	pageOpenAI55 = "developers.openai.com/api/docs/guides/images-vision (gpt-5.5 version)"
	pageClaude   = "platform.claude.com/docs/en/build-with-claude/vision and …/vision-coordinates (Opus 4.8 version)"
	pageClaude46 = "docs.claude.com/en/docs/build-with-claude/vision (Opus 4.6 version)"
	pageGemini2  = "ai.google.dev/gemini-api/docs/tokens (Gemini 2.0 version)"
	pageGemini3  = "ai.google.dev/gemini-api/docs/media-resolution (Gemini 3 version)"
	pageVertex   = "Vertex AI image requirements for Gemini 1.5, quoted in BerriAI/litellm#3269"
)

// patchLevel is one detail level of an OpenAI patch model: the pixel-dimension limit the
// picture is first fitted to and the patch budget (0: none).
type patchLevel struct {
	detail  string
	maxSide int
	budget  int
}

// openAIPatchModel is an OpenAI patch model: its multiplier and detail levels. A model
// whose levels all size alike has one level, named by the model alone.
type openAIPatchModel struct {
	name   string // family name
	also   string // other model ids with the same rule
	mult   float64
	levels []patchLevel
	auto   string // the detail level auto and an omitted detail use
	page   string
}

// openAIPatchModels are OpenAI's patch models: multiplier, pixel-dimension limit, patch
// budget and detail levels per model, in one table. The deprecated models are not in the
// newest page's sizing table; their limits are those of the gpt-5.5 version.
var openAIPatchModels = []openAIPatchModel{
	{name: "openai/gpt-5.6", also: "gpt-5.6-sol, gpt-5.6-terra, gpt-5.6-luna", mult: 1.2, auto: "original", page: pageOpenAI,
		levels: []patchLevel{{"low", 512, 0}, {"high", 2048, 2500}, {"original", 65535, 0}}},
	{name: "openai/gpt-5.5", mult: 1.2, auto: "original", page: pageOpenAI,
		levels: []patchLevel{{"low", 512, 0}, {"high", 2048, 2500}, {"original", 6000, 10000}}},
	{name: "openai/gpt-5.4", also: "gpt-5.4-mini, gpt-5.4-nano", mult: 1.2, auto: "high", page: pageOpenAI,
		levels: []patchLevel{{"low", 2048, 6144}, {"high", 2048, 2500}, {"original", 6000, 10000}}},
	{name: "openai/gpt-5.2", mult: 1.2, page: pageOpenAI, levels: []patchLevel{{"", 2048, 6144}}},
	{name: "openai/gpt-4.1-mini", mult: 1.62, page: pageOpenAI, levels: []patchLevel{{"", 2048, 6144}}},
	{name: "openai/gpt-5-mini", mult: 1.2, page: pageOpenAI, levels: []patchLevel{{"", 2048, 1536}}},
	{name: "openai/gpt-5-nano", mult: 1.5, page: pageOpenAI, levels: []patchLevel{{"", 2048, 1536}}},
	{name: "openai/gpt-4.1-nano", mult: 2.46, page: pageOpenAI, levels: []patchLevel{{"", 2048, 1536}}},
	{name: "openai/o4-mini", mult: 1.72, page: pageOpenAI, levels: []patchLevel{{"", 2048, 1536}}},
	{name: "openai/patch32-before-multiplier", mult: 1, page: pageOpenAI, levels: []patchLevel{{"", 2048, 1536}}},
	// The gpt-5.5 version's multipliers and budgets, superseded.
	{name: "openai-guide-gpt-5.5/gpt-5.4-mini", mult: 1.62, page: pageOpenAI55, levels: []patchLevel{{"", 2048, 1536}}},
	{name: "openai-guide-gpt-5.5/gpt-5.4-nano", mult: 2.46, page: pageOpenAI55, levels: []patchLevel{{"", 2048, 1536}}},
	{name: "openai-guide-gpt-5.5/gpt-5-mini", mult: 1.62, page: pageOpenAI55, levels: []patchLevel{{"", 2048, 1536}}},
	{name: "openai-guide-gpt-5.5/gpt-5-nano", mult: 2.46, page: pageOpenAI55, levels: []patchLevel{{"", 2048, 1536}}},
	{name: "openai-guide-gpt-5.5/gpt-4.1-mini", mult: 1.62, page: pageOpenAI55, levels: []patchLevel{{"", 2048, 1536}}},
}

// openAITileModels are OpenAI's tile models (base and tile tokens); gpt-4.5,
// gpt-5-chat-latest and computer-use-preview are no longer on the newest page.
var openAITileModels = []struct {
	name, also       string
	base, tile, side int
	page             string
}{
	{"openai/gpt-5.1", "", 70, 140, 768, pageOpenAI},
	{"openai/gpt-5", "", 70, 140, 768, pageOpenAI},
	{"openai/gpt-4o", "", 85, 170, 768, pageOpenAI},
	{"openai/gpt-4.1", "", 85, 170, 768, pageOpenAI},
	{"openai/gpt-4o-mini", "", 2833, 5667, 768, pageOpenAI},
	{"openai/o1-o3", "o1, o1-pro, o3", 75, 150, 768, pageOpenAI},
	{"openai/gpt-4.5", "", 85, 170, 768, pageOpenAI55},
	{"openai/gpt-5-chat-latest", "", 70, 140, 768, pageOpenAI55},
	{"openai/computer-use-preview", "", 65, 129, 768, pageOpenAI55},
}

// hostedFamilies are the named hosted-API families.
func hostedFamilies() []Family {
	var out []Family
	for _, m := range openAIPatchModels {
		also := ""
		if m.also != "" {
			also = " (also " + m.also + ")"
		}
		for _, l := range m.levels {
			f := Family{Name: m.name, Rule: RuleOpenAIPatch, Multiplier: m.mult, MaxLongEdge: l.maxSide,
				PatchCap: l.budget, Page: m.page}
			budget := "no patch budget"
			if l.budget > 0 {
				budget = fmt.Sprintf("%d-patch budget", l.budget)
			}
			detail := "low, high and auto alike"
			if l.detail != "" {
				f.Name += "-" + l.detail
				detail = "detail=" + l.detail
				if l.detail == m.auto {
					detail += " (and auto)"
				}
			}
			f.Note = fmt.Sprintf("%s%s: fit %d px, 32-px patches, %s, × %g rounded up", detail, also, l.maxSide, budget, m.mult)
			out = append(out, f)
		}
	}
	for _, m := range openAITileModels {
		note := fmt.Sprintf("%d + %d·tiles", m.base, m.tile)
		if m.also != "" {
			note = m.also + ": " + note
		}
		out = append(out,
			Family{Name: m.name + "-high", Rule: RuleOpenAITile, BaseTokens: m.base, TileTokens: m.tile, ShortSide: m.side, Page: m.page,
				Note: note + ": detail=high and auto, fit 2048, short side 768 (other side rounded down), 512-px tiles"},
			Family{Name: m.name + "-low", Rule: RuleOpenAITile, BaseTokens: m.base, Page: m.page,
				Note: note + ": detail=low, base cost only"})
	}
	out = append(out,
		Family{Name: "openai/gpt-image-1", Rule: RuleOpenAITile, BaseTokens: 65, TileTokens: 129, ShortSide: 512, Page: pageOpenAI,
			Note: "GPT Image 1 input, low input fidelity: 65 + 129·tiles with a 512-px short side"},
		Family{Name: "openai/gpt-image-1-high-fidelity", Rule: RuleOpenAITile, BaseTokens: 65, TileTokens: 129, ShortSide: 512,
			SquareExtraTokens: 4160, OtherExtraTokens: 6240, Page: pageOpenAI,
			Note: "GPT Image 1 input, high input fidelity: 65 + 129·tiles, + 4160 for a square picture, + 6240 otherwise"},
		Family{Name: "anthropic/patch28-no-resize", Rule: RuleAnthropicPatch, Page: pageClaude,
			Note: "⌈W/28⌉·⌈H/28⌉ of the picture as sent (no resize applied)"},
		Family{Name: "anthropic/opus-4.7-class", Rule: RuleAnthropicPatch, MaxLongEdge: 2576, MaxPictureTokens: 4784, Page: pageClaude,
			Note: "high-resolution tier (Claude 4.7 and later: Opus 4.7, 4.8, 5, 5.5, Sonnet 5, 5.5, Haiku 5.5, Fable 5, Mythos 5): the reference resize to 2576 px and 4784 tokens, then ⌈W/28⌉·⌈H/28⌉"},
		Family{Name: "anthropic/claude-legacy", Rule: RuleAnthropicPatch, MaxLongEdge: 1568, MaxPictureTokens: 1568, Page: pageClaude,
			Note: "standard tier (every other model): the reference resize to 1568 px and 1568 tokens, then ⌈W/28⌉·⌈H/28⌉"},
		Family{Name: "anthropic/legacy-area750", Rule: RuleAnthropicArea, MaxLongEdge: 1568, MaxPictureTokens: 1568, Page: pageClaude46,
			Note: "older estimate: ⌈W·H/750⌉ after the standard tier's resize (which keeps the page's largest unresized sizes)"},
		Family{Name: "gemini/2.0-tiles", Rule: RuleGeminiTiles, BaseTokens: 258, Page: pageGemini2,
			Note: "≤ 384 px both sides: 258; else ⌈W/768⌉·⌈H/768⌉·258 (naive reading of the tiling text)"},
		Family{Name: "gemini/1.5-vertex", Rule: RuleGeminiVertex, BaseTokens: 258, Page: pageVertex,
			Note: "crop unit clamp(⌊min(W,H)/1.5⌋, 256, 768), 258 per crop"},
	)
	for _, c := range []struct {
		name   string
		tokens int
		page   string
	}{
		{"gemini/2.x-media-low", 64, pageGemini2}, {"gemini/2.x-media-medium", 256, pageGemini2}, {"gemini/2.x-media-high", 256, pageGemini2},
		{"gemini/3-low", 280, pageGemini3}, {"gemini/3-medium", 560, pageGemini3}, {"gemini/3-high", 1120, pageGemini3},
		{"gemini/3-ultra-high", 2240, pageGemini3},
	} {
		out = append(out, Family{Name: c.name, Rule: RuleFixedCost, BaseTokens: c.tokens, Page: c.page,
			Note: "media_resolution amount per picture (an upper bound)"})
	}
	return out
}

// HostedPages lists the provider pages the hosted families follow, each with the names of
// its families, in the order of the registry.
func HostedPages() []HostedPage {
	var out []HostedPage
	at := map[string]int{}
	for _, f := range builtinFamilies() {
		if f.Page == "" {
			continue
		}
		i, ok := at[f.Page]
		if !ok {
			i = len(out)
			at[f.Page] = i
			out = append(out, HostedPage{Page: f.Page})
		}
		out[i].Families = append(out[i].Families, f.Name)
	}
	return out
}

// HostedPage is a provider page and the families that follow it.
type HostedPage struct {
	Page     string
	Families []string
}

// floorPx is ⌊x⌋ of a scaled side, tolerant of float noise just below a whole pixel, and at
// least one pixel.
func floorPx(x float64) int64 { return max(1, clampToInt64(math.Floor(x+1e-6))) }

// fitLongSide scales w×h down (never up) so neither side exceeds limit, rounding each side
// down to whole pixels.
func fitLongSide(w, h int64, limit int) (int64, int64) {
	if limit <= 0 || max(w, h) <= int64(limit) {
		return w, h
	}
	s := float64(limit) / float64(max(w, h))
	return floorPx(float64(w) * s), floorPx(float64(h) * s)
}

// openAITileRows: detail=low costs BaseTokens; detail=high fits the picture in
// 2048×2048, scales a short side above ShortSide down to it (the other side rounded down),
// and costs BaseTokens + TileTokens·⌈W'/512⌉·⌈H'/512⌉, plus the high-fidelity extra.
func openAITileRows(f Family, in PixelSize) (Rows, error) {
	if err := requirePositiveParams(rowParam{"base_tokens", f.BaseTokens}); err != nil {
		return Rows{}, err
	}
	if f.TileTokens <= 0 {
		return Rows{Rows: f.BaseTokens, Resized: in, Source: SourceEstimate}, nil
	}
	short := int64(paramOrDefault(f.ShortSide, 768))
	w, h := fitLongSide(int64(in.Width), int64(in.Height), 2048)
	if m := min(w, h); m > short {
		s := float64(short) / float64(m)
		if w < h {
			w, h = short, floorPx(float64(h)*s)
		} else {
			w, h = floorPx(float64(w)*s), short
		}
	}
	cols, rows := rowsCeilDiv(w, 512), rowsCeilDiv(h, 512)
	tokens := f.BaseTokens + f.TileTokens*int(cols*rows)
	if in.Width == in.Height {
		tokens += f.SquareExtraTokens
	} else {
		tokens += f.OtherExtraTokens
	}
	return Rows{
		Rows: tokens, Resized: PixelSize{clampSide(w), clampSide(h)},
		Tiles: int(cols * rows), Grid: PixelSize{int(cols), int(rows)}, Source: SourceEstimate,
	}, nil
}

// openAIPatchRows: the picture fitted to MaxLongEdge, ⌈W/32⌉·⌈H/32⌉ patches; above the
// patch budget the picture is shrunk so whole patches fit (the page's adjusted shrink factor,
// sides rounded down); the count times Multiplier, rounded up.
func openAIPatchRows(f Family, in PixelSize) (Rows, error) {
	mult := int64(math.Round(f.Multiplier * 100)) // hundredths: the multipliers have two decimals
	if mult <= 0 {
		mult = 100
	}
	w, h := fitLongSide(int64(in.Width), int64(in.Height), f.MaxLongEdge)
	patches := rowsCeilDiv(w, 32) * rowsCeilDiv(h, 32)
	if budget := int64(f.PatchCap); budget > 0 && patches > budget {
		fw, fh := float64(w), float64(h)
		shrink := math.Sqrt(32 * 32 * float64(budget) / (fw * fh))
		cw, ch := fw*shrink/32, fh*shrink/32
		adjusted := shrink * min(math.Floor(cw)/cw, math.Floor(ch)/ch)
		w, h = floorPx(fw*adjusted), floorPx(fh*adjusted)
		patches = min(rowsCeilDiv(w, 32)*rowsCeilDiv(h, 32), budget)
	}
	tokens := (patches*mult + 99) / 100
	return Rows{Rows: int(tokens), Resized: PixelSize{clampSide(w), clampSide(h)}, Source: SourceEstimate}, nil
}

// claudePatches is Claude's visual-token count ⌈W/28⌉·⌈H/28⌉.
func claudePatches(w, h int64) int64 { return rowsCeilDiv(w, 28) * rowsCeilDiv(h, 28) }

// claudeResize is the size Claude resizes a picture to before padding, as the
// vision-coordinates page's reference implementation gives it: the picture kept when its
// sides padded to 28 px are within maxEdge and its patches within maxTokens; else the
// largest long side (binary search) whose aspect-preserving short side, rounded half to
// even, fits. A limit of 0 is off.
func claudeResize(w, h int64, maxEdge, maxTokens int) (int64, int64) {
	fits := func(w, h int64) bool {
		edgeOK := maxEdge <= 0 || (rowsCeilDiv(w, 28)*28 <= int64(maxEdge) && rowsCeilDiv(h, 28)*28 <= int64(maxEdge))
		return edgeOK && (maxTokens <= 0 || claudePatches(w, h) <= int64(maxTokens))
	}
	if fits(w, h) {
		return w, h
	}
	if h > w {
		rh, rw := claudeResize(h, w, maxEdge, maxTokens)
		return rw, rh
	}
	aspect := float64(w) / float64(h)
	short := func(long int64) int64 { return max(1, clampToInt64(math.RoundToEven(float64(long)/aspect))) }
	lo, hi := int64(1), w // lo fits, hi does not
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if fits(mid, short(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, short(lo)
}

// anthropicRows: ⌈W'/28⌉·⌈H'/28⌉ (RuleAnthropicPatch) or ⌈W'·H'/750⌉ (RuleAnthropicArea)
// after the tier's resize.
func anthropicRows(f Family, in PixelSize) (Rows, error) {
	w, h := claudeResize(int64(in.Width), int64(in.Height), f.MaxLongEdge, f.MaxPictureTokens)
	tokens := claudePatches(w, h)
	if f.Rule == RuleAnthropicArea {
		tokens = rowsCeilDiv(w*h, 750)
	}
	return Rows{Rows: int(tokens), Resized: PixelSize{clampSide(w), clampSide(h)}, Source: SourceEstimate}, nil
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
