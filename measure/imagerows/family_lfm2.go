package imagerows

// LFM2-VL / LFM2.5-VL (projector lfm2): 512-px tiles for pictures whose aligned area
// exceeds twice the maximum pixels (P5) plus a smart-resized thumbnail (P1, f = 32,
// tok-limits 64..256). docs/pipeline.md §10.1 (P5), §10.2.

import (
	"math"
	"sort"
)

// LFM2 tiling constants of llama.cpp's mtmd_image_preprocessor_lfm2.
const (
	lfm2TileSize  = 512
	lfm2Tolerance = 2.0
	lfm2MinTiles  = 2
	lfm2MaxTiles  = 10
)

// lfm2Families are the named LFM2-VL families, one per llama.cpp behaviour.
func lfm2Families() []Family {
	base := func(name, note string) Family {
		return Family{
			Name: name, Rule: RuleLlamaCpp, Projector: "lfm2",
			PatchSize: 16, Merge: 2, MinTokens: 64, MaxTokens: 256, Note: note,
		}
	}
	current := base("llamacpp/lfm2-vl", "tiles of 256 rows + thumbnail when the aligned area exceeds 2·max pixels; an untiled picture has no <|img_thumbnail|>")
	master := base("llamacpp-2026-08/lfm2-vl", "master of 2026-08: tiles when a side exceeds 1024 px; <|img_thumbnail|> also before an untiled picture")
	master.LFM2SideThreshold = true
	mid := base("llamacpp-b7980..b9585/lfm2-vl", "b7980..b9585: tiles when a side exceeds 1024 px, no <|img_thumbnail|> before an untiled picture")
	mid.LFM2SideThreshold, mid.LFM2NoThumbnailMarker = true, true
	old := base("llamacpp-pre-b7980/lfm2-vl", "before b7980: one smart-resized picture, no tiling")
	old.LFM2NoTiling, old.LFM2NoThumbnailMarker = true, true
	return []Family{current, master, mid, old}
}

// targetRatios lists the grids with minTiles..maxTiles tiles ordered by area (generation
// order within an area), as LFM2's and DeepSeek-OCR's get_target_ratios.
func targetRatios(minTiles, maxTiles int) []PixelSize {
	var ratios []PixelSize
	seen := map[PixelSize]bool{}
	for n := minTiles; n <= maxTiles; n++ {
		for w := 1; w <= n; w++ {
			for h := 1; h <= n; h++ {
				g := PixelSize{w, h}
				if a := w * h; a >= minTiles && a <= maxTiles && !seen[g] {
					seen[g] = true
					ratios = append(ratios, g)
				}
			}
		}
	}
	sort.SliceStable(ratios, func(i, j int) bool {
		return ratios[i].Width*ratios[i].Height < ratios[j].Width*ratios[j].Height
	})
	return ratios
}

// closestAspectGrid is find_closest_aspect_ratio over targetRatios: the grid with the
// closest aspect; on an exact tie a later (larger) grid replaces the current one when the
// picture's area exceeds half the grid's pixel area.
func closestAspectGrid(in PixelSize, tile, minTiles, maxTiles int) PixelSize {
	aspect := float32(in.Width) / float32(in.Height)
	area := float32(int64(in.Width) * int64(in.Height))
	best := PixelSize{1, 1}
	bestDiff := float32(math.MaxFloat32)
	for _, r := range targetRatios(minTiles, maxTiles) {
		diff := float32(math.Abs(float64(aspect - float32(r.Width)/float32(r.Height))))
		if diff < bestDiff {
			bestDiff, best = diff, r
		} else if diff == bestDiff {
			target := float32(tile * tile * r.Width * r.Height)
			if area > float32(0.5*target) {
				best = r
			}
		}
	}
	return best
}

// lfm2Grid is LFM2's grid: 512-px tiles, 2..10 of them.
func lfm2Grid(in PixelSize) PixelSize {
	return closestAspectGrid(in, lfm2TileSize, lfm2MinTiles, lfm2MaxTiles)
}

// lfm2Rows computes LFM2-VL's cost. Markers: <|image_start|> <|image_end|>; with
// tiles one <|img_row_r_col_c|> per tile and <|img_thumbnail|> before the thumbnail.
// An untiled picture has no <|img_thumbnail|> in the bound release; the 2026-08 master
// family (LFM2SideThreshold without LFM2NoThumbnailMarker) adds it.
func lfm2Rows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	p := f.PatchSize
	m := paramOrDefault(f.Merge, 2)
	if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	unit := p * m
	u := int64(unit)
	minPx, maxPx := tokenPixelLimits(unit, paramOrDefault(f.MinTokens, 64), paramOrDefault(f.MaxTokens, 256), opts)
	thumb := llamaSmartResize(in, unit, minPx, maxPx)
	thumbRows := int(rowsCeilDiv(int64(thumb.Width), u) * rowsCeilDiv(int64(thumb.Height), u))
	if f.LFM2NoTiling || !lfm2ShouldTile(f, in, maxPx) {
		markers := 2
		if f.LFM2SideThreshold && !f.LFM2NoThumbnailMarker {
			markers = 3
		}
		return Rows{Rows: thumbRows, Markers: markers, Resized: thumb, Source: SourceTokenizer}, nil
	}
	grid := lfm2Grid(in)
	tiles := grid.Width * grid.Height
	perTile := int(rowsCeilDiv(lfm2TileSize, u) * rowsCeilDiv(lfm2TileSize, u))
	return Rows{
		Rows: tiles*perTile + thumbRows, Markers: 2 + tiles + 1,
		Resized: PixelSize{lfm2TileSize * grid.Width, lfm2TileSize * grid.Height}, Overview: thumb,
		Tiles: tiles, Grid: grid, Source: SourceTokenizer,
	}, nil
}

// lfm2ShouldTile is mtmd_image_preprocessor_lfm2::should_tile: each side rounded to p·m
// (half to even, in double) and kept at least p; tiles when that area exceeds twice the
// maximum pixels. LFM2SideThreshold families tile when a side exceeds 1024 px instead.
func lfm2ShouldTile(f Family, in PixelSize, maxPx int64) bool {
	if f.LFM2SideThreshold {
		limit := float32(lfm2TileSize * lfm2Tolerance)
		return float32(in.Width) > limit || float32(in.Height) > limit
	}
	align := float64(f.PatchSize * paramOrDefault(f.Merge, 2))
	roundBy := func(side int) float64 {
		return math.RoundToEven(float64(float32(side))/align) * align
	}
	h := max(float64(f.PatchSize), roundBy(in.Height))
	w := max(float64(f.PatchSize), roundBy(in.Width))
	return h*w > float64(maxPx)*lfm2Tolerance
}
