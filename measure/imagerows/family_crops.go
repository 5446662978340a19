package imagerows

// Projectors configured from an mmproj GGUF only, each with its own preprocessor in mtmd
// (tools/mtmd/mtmd-image.cpp): Step3-VL (step3vl: an overview plus 504-px windows),
// DeepSeek-OCR 1 and 2 (deepseekocr, deepseekocr2: a 1024-px global view plus a grid of
// tiles), DeepSeek-V4 vision (deepseek4v: one picture in a block of rows with newlines and
// sentinels), Granite 4 vision (granite4_vision: LLaVA-NeXT anyres) and Muse Glimmer
// (muse-glimmer: a patch grid under a token cap). docs/pipeline.md §10.2.

import (
	"fmt"
	"math"
)

// Step3-VL constants of mtmd_image_preprocessor_step3vl.
const (
	step3vlLongestEdge     = 3024
	step3vlCropSize        = 504
	step3vlSmallAspect     = float32(1.5)
	step3vlWideAspect      = float32(4.0)
	step3vlRoundThreshold  = float32(0.2)
	deepseekOCRGlobalSize  = 1024
	deepseekOCRPatch       = 16
	deepseek4vMaxTokens    = 384
	deepseek4vMaxWHRatio   = 8
	deepseek4vLeadPadBlock = 4
)

// step3vlRows: the picture is padded square when tiny and very long, scaled so its long side
// is at most preproc_image_size (3024), then cut into windows (504 px, or the short side for
// a small long picture) resized to 504; the S×S overview comes last. Rows (S/(p·m))² for the
// overview and (504/(p·m))² per window; markers <im_start> <im_end> around the overview,
// <patch_start> <patch_end> around each window and <patch_newline> between window rows.
func step3vlRows(f Family, in PixelSize) (Rows, error) {
	s, p := f.ImageSize, f.PatchSize
	m := paramOrDefault(f.Merge, 4)
	if err := requirePositiveParams(rowParam{"image_size", s}, rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	unit := p * m
	prepared := in
	aspect := float32(in.Width) / float32(in.Height)
	if min(in.Width, in.Height) < 32 && (aspect > step3vlWideAspect || aspect < 1/step3vlWideAspect) {
		side := max(in.Width, in.Height)
		prepared = PixelSize{side, side}
	}
	if long := max(prepared.Width, prepared.Height); long > paramOrDefault(f.LongestEdge, step3vlLongestEdge) {
		scale := float32(paramOrDefault(f.LongestEdge, step3vlLongestEdge)) / float32(long)
		prepared = PixelSize{
			clampSide(max(1, f32Floor(float32(float32(prepared.Width)*scale)))),
			clampSide(max(1, f32Floor(float32(float32(prepared.Height)*scale)))),
		}
	}
	overviewRows := (s / unit) * (s / unit)
	longer, shorter := max(prepared.Width, prepared.Height), min(prepared.Width, prepared.Height)
	window := step3vlCropSize
	if ratio := float32(longer) / float32(shorter); longer <= s {
		window = 0
		if ratio > step3vlSmallAspect {
			window = shorter
		}
	} else if ratio > step3vlWideAspect {
		window = min(shorter, step3vlCropSize)
	}
	if window <= 0 {
		return Rows{Rows: overviewRows, Markers: 2, Resized: PixelSize{s, s}, Source: SourceTokenizer}, nil
	}
	extent := func(length int) int {
		ratio := float32(length) / float32(window)
		if ratio < 1 {
			return length
		}
		fl := float32(math.Floor(float64(ratio)))
		n := int(fl)
		if ratio-fl > step3vlRoundThreshold {
			n++
		}
		return window * n
	}
	count := func(length int) int {
		if length <= window {
			return 1
		}
		return int(f32Ceil(float32(float32(length-window)/float32(window)) + 1))
	}
	refined := PixelSize{extent(prepared.Width), extent(prepared.Height)}
	grid := PixelSize{count(refined.Width), count(refined.Height)}
	tiles := grid.Width * grid.Height
	perWindow := (step3vlCropSize / unit) * (step3vlCropSize / unit)
	return Rows{
		Rows: overviewRows + tiles*perWindow, Markers: 2 + 2*tiles + (grid.Height - 1),
		Resized: refined, Overview: PixelSize{s, s}, Tiles: tiles, Grid: grid, Source: SourceTokenizer,
	}, nil
}

// deepseekOCR1Rows counts DeepSeek-OCR (deepseekocr) with deepseekOCRRows.
func deepseekOCR1Rows(f Family, in PixelSize) (Rows, error) { return deepseekOCRRows(f, in, true) }

// deepseekOCR2Rows counts DeepSeek-OCR 2 (deepseekocr2) with deepseekOCRRows.
func deepseekOCR2Rows(f Family, in PixelSize) (Rows, error) { return deepseekOCRRows(f, in, false) }

// deepseekOCRRows: a 1024-px global view (padded) and, when a side exceeds the tile size
// (640 for OCR 1, 768 for OCR 2), a grid of tiles with the aspect closest to the picture's
// among min_tiles..max_tiles tiles (2..9, 2..6 unless the GGUF says otherwise). OCR 1: the
// global view 16·17 + 1 rows (a newline per row and a view separator), each tile row fused
// into one picture of (10·columns + 1)·10 rows; OCR 2: 256 + 1 and 144 per tile. One "\n".
func deepseekOCRRows(f Family, in PixelSize, v1 bool) (Rows, error) {
	tile, minTiles, maxTiles := 768, 2, 6
	if v1 {
		tile, maxTiles = 640, 9
	}
	if f.MinTiles > 0 {
		minTiles = f.MinTiles
	}
	if f.MaxTiles > 0 {
		maxTiles = f.MaxTiles
	}
	perSide := deepseekOCRGlobalSize / deepseekOCRPatch / 4 // 16 rows of the global view
	global := perSide*perSide + 1
	if v1 {
		global = perSide*(perSide+1) + 1
	}
	overview := PixelSize{deepseekOCRGlobalSize, deepseekOCRGlobalSize}
	if in.Width <= tile && in.Height <= tile {
		return Rows{Rows: global, Markers: 1, Resized: overview, Source: SourceTokenizer}, nil
	}
	grid := closestAspectGrid(in, tile, minTiles, maxTiles)
	tileSide := tile / (deepseekOCRPatch * 4)
	var rows int
	if v1 {
		rows = grid.Height * (tileSide*grid.Width + 1) * tileSide
	} else {
		rows = grid.Width * grid.Height * tileSide * tileSide
	}
	return Rows{
		Rows: global + rows, Markers: 1, Resized: PixelSize{tile * grid.Width, tile * grid.Height}, Overview: overview,
		Tiles: grid.Width * grid.Height, Grid: grid, Source: SourceTokenizer,
	}, nil
}

// deepseek4vRows: the picture (width capped at 8× its height, grown to the minimum pixels)
// is aligned to the patch and shrunk by DeepSeek's resize solver until its token block fits
// max tokens − 3 (384, or --image-max-tokens, at least 16); the block has rows of ⌈w/(p·r)⌉
// tokens plus a newline, an even row count, trailing pads, a start and an end sentinel, and
// 0..3 lead pads that align the block's start sentinel to a block of 4 prompt positions:
// 3 − position mod 4, the position being the tokens before the picture (RowOptions.Position;
// 0, the most pads, by default). No marker tokens.
func deepseek4vRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	p := f.PatchSize
	r := f.Merge
	if err := requirePositiveParams(rowParam{"patch_size", p}, rowParam{"projector.scale_factor", r}); err != nil {
		return Rows{}, err
	}
	area := int64(p) * int64(p) * int64(r) * int64(r)
	maxTokens := deepseek4vMaxTokens
	if opts.MaxTokens > 0 {
		maxTokens = max(opts.MaxTokens, 16)
	}
	minPx := int64(f.MinPixels)
	if opts.MinTokens > 0 {
		minPx = int64(opts.MinTokens) * area
	}
	minPx = min(minPx, int64(maxTokens)*area)
	w, h := int64(in.Width), int64(in.Height)
	if w > h*deepseek4vMaxWHRatio {
		w = h * deepseek4vMaxWHRatio
	}
	if minPx > 0 && w*h < minPx {
		up := math.Sqrt(float64(minPx) / (float64(w) * float64(h)))
		w, h = int64(float64(w)*up), int64(float64(h)*up)
	}
	pp, rr := int64(p), int64(r)
	bestW, bestH := rowsCeilDiv(w, pp)*pp, rowsCeilDiv(h, pp)*pp
	tokens := func(bw, bh int64) int64 {
		return deepseek4vBlock(rowsCeilDiv(bw/pp, rr), rowsCeilDiv(bh/pp, rr), 0)
	}
	limit := int64(maxTokens) - (deepseek4vLeadPadBlock - 1)
	for budget := limit; tokens(bestW, bestH) > limit && budget > 2; budget-- {
		bestW, bestH = deepseek4vSolve(h, w, pp, rr, budget)
	}
	leadPad := int64(deepseek4vLeadPadBlock - 1 - opts.Position%deepseek4vLeadPadBlock)
	rows := deepseek4vBlock(rowsCeilDiv(bestW, pp*rr), rowsCeilDiv(bestH, pp*rr), leadPad)
	return Rows{Rows: int(rows), Resized: PixelSize{clampSide(bestW), clampSide(bestH)}, Source: SourceTokenizer}, nil
}

// deepseek4vMinPixels configures a deepseek4v mmproj: its minimum pixels are the GGUF's
// clip.vision.image_min_pixels, which it must have.
func deepseek4vMinPixels(fam *Family, file projectorFile) error {
	v, ok := file.ints[keyMinPixels]
	if !ok {
		return fmt.Errorf("projector %s needs %s", fam.Projector, keyMinPixels)
	}
	fam.MinPixels = v
	return nil
}

// deepseek4vBlock is dsv4_get_block_layout(...).n_out.
func deepseek4vBlock(nW, nH, leadPad int64) int64 {
	rows := nH + nH%2
	rowLen := nW + 1
	padLast := (rows / 2 * rowLen) % 2 * 2
	return leadPad + 1 + rows*rowLen + padLast + 1
}

// deepseek4vSolve is solve_resize_ratio: the largest size, in whole patches, whose token
// block fits maxTokens (in double, as mtmd).
func deepseek4vSolve(height, width, p, r, maxTokens int64) (bestW, bestH int64) {
	ratio := float64(height) / float64(width)
	maxWf := math.Sqrt(float64(maxTokens-2)/ratio+0.25) - 0.5
	maxHf := maxWf * ratio
	switch {
	case maxWf < 1:
		maxH := (maxTokens - 2) / 2
		if maxH%2 == 1 {
			maxH--
		}
		return p * r, maxH * p * r
	case maxHf < 2:
		maxW := max((maxTokens-2)/2-1, 2)
		return maxW * p * r, 2 * p * r
	}
	maxW := int64(math.Floor(maxWf))
	maxH := int64(math.Floor(maxHf))
	if maxH%2 == 1 {
		maxH--
	}
	beta := min(float64(maxW*p*r)/float64(width), float64(maxH*p*r)/float64(height))
	return int64(math.Floor(float64(width)*beta/float64(p))) * p, int64(math.Floor(float64(height)*beta/float64(p))) * p
}

// graniteRows: LLaVA-NeXT anyres: the best pinpoint resolution, cut into S×S tiles stacked
// under the S×S overview; each tile gives (query_side·(S/p)/window_side)² rows, the overview
// that many, and the unpadded tile grid one newline per row; one "\n" marker.
func graniteRows(f Family, in PixelSize) (Rows, error) {
	s, p := f.ImageSize, f.PatchSize
	if err := requirePositiveParams(rowParam{"image_size", s}, rowParam{"patch_size", p},
		rowParam{"projector.query_side", f.QuerySide}, rowParam{"projector.window_side", f.WindowSide}); err != nil {
		return Rows{}, err
	}
	if len(f.Pinpoints) == 0 {
		return Rows{}, fmt.Errorf("projector granite4_vision needs clip.vision.image_grid_pinpoints")
	}
	outSide := f.QuerySide * ((s / p) / f.WindowSide)
	refined := selectBestResolution(in, f.Pinpoints)
	grid := PixelSize{refined.Width / s, refined.Height / s}
	rows := outSide * outSide
	if grid.Width > 0 && grid.Height > 0 {
		w, h := anyresUnpad(grid.Width*outSide, grid.Height*outSide, in.Width, in.Height)
		rows += h * (w + 1)
	}
	return Rows{
		Rows: rows, Markers: 1, Resized: refined, Overview: PixelSize{s, s},
		Tiles: grid.Width * grid.Height, Grid: grid, Source: SourceTokenizer,
	}, nil
}

// anyresUnpad is clip_anyres_unpad: the part of a cur_w×cur_h grid the picture covers.
func anyresUnpad(curW, curH, origW, origH int) (w, h int) {
	w, h = curW, curH
	if float32(origW)/float32(origH) > float32(curW)/float32(curH) {
		newH := int(math.Floor(float64(origH)*float64(curW)/float64(origW) + 1e-7))
		h = curH - 2*((curH-newH)/2)
	} else {
		newW := int(math.Floor(float64(origW)*float64(curH)/float64(origH) + 1e-7))
		w = curW - 2*((curW-newW)/2)
	}
	return w, h
}

// museGlimmerRows: transformers' get_aspect_ratio_preserving_size: the patch grid (f = p·m)
// closest to the picture's aspect with at most max tokens (tok-limits 1..4096), rows
// (W'/2p)·(H'/2p), <|image_start|> <|image_end|>.
func museGlimmerRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	p := f.PatchSize
	m := paramOrDefault(f.Merge, 2)
	if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	unit := p * m
	_, maxPx := tokenPixelLimits(unit, paramOrDefault(f.MinTokens, 1), paramOrDefault(f.MaxTokens, 4096), opts)
	maxTokens := maxPx / int64(unit*unit)
	nph := float64(in.Height) / float64(unit)
	npw := float64(in.Width) / float64(unit)
	ratio := npw / nph
	if nph*npw > float64(maxTokens) {
		nph = math.Sqrt(float64(maxTokens) / ratio)
		npw = nph * ratio
	}
	target := float64(in.Height) / float64(in.Width)
	bestH, bestW := int64(-1), int64(-1)
	bestD := 0.0
	for _, h := range []int64{int64(math.Floor(nph)), int64(math.Ceil(nph))} {
		for _, w := range []int64{int64(math.Floor(npw)), int64(math.Ceil(npw))} {
			if h < 1 || w < 1 || h*w > maxTokens {
				continue
			}
			d := math.Abs(float64(h)/float64(w) - target)
			if bestH < 0 || d < bestD || (d == bestD && h*w > bestH*bestW) {
				bestH, bestW, bestD = h, w, d
			}
		}
	}
	if bestH < 0 {
		bestH, bestW = max(1, int64(math.Round(nph))), max(1, int64(math.Round(npw)))
	}
	size := PixelSize{clampSide(bestW * int64(unit)), clampSide(bestH * int64(unit))}
	rows := (size.Width / (2 * p)) * (size.Height / (2 * p))
	return Rows{Rows: rows, Markers: 2, Resized: size, Source: SourceTokenizer}, nil
}
