package imagerows

// Idefics3, SmolVLM, SmolVLM2 (projector idefics3): the picture is scaled (up or
// down) so its long side is preproc_image_size and cut into whole S×S tiles, plus an
// S×S overview. docs/pipeline.md §10.2.

import "fmt"

// idefics3Families are the named Idefics3/SmolVLM families.
func idefics3Families() []Family {
	return []Family{
		{
			Name: "llamacpp/idefics3-smolvlm2", Rule: RuleLlamaCpp, Projector: "idefics3",
			ImageSize: 512, PatchSize: 16, Merge: 4, LongestEdge: 2048,
			Note: "SmolVLM2 256M/500M/2.2B: S = 512, p = 16, m = 4 (64 rows per tile), longest edge 2048",
		},
		{
			Name: "llamacpp/smolvlm-2b", Rule: RuleLlamaCpp, Projector: "idefics3",
			ImageSize: 384, PatchSize: 14, Merge: 3, LongestEdge: 1536,
			Note: "SmolVLM-2B: S = 384, p = 14, m = 3 (81 rows per tile); longest edge 4·S assumed",
		},
		{
			Name: "llamacpp/idefics3-8b", Rule: RuleLlamaCpp, Projector: "idefics3",
			ImageSize: 364, PatchSize: 14, Merge: 2, LongestEdge: 1456,
			Note: "Idefics3-8B: S = 364, p = 14, m = 2 (169 rows per tile); longest edge 4·S assumed",
		},
	}
}

// idefics3Rows is mtmd_image_preprocessor_idefics3: the tiles and the S×S overview, each
// (S/p)²/m² rows. With a longest edge (preproc_image_size) and no token limits, the
// Hugging Face resize: the long side becomes the edge, the other edge/aspect truncated and
// made even, then whole S×S tiles; otherwise calc_size_preserved_ratio aligned to S with the
// token limits' pixels. Markers: per tile <fake_token_around_image> <row_r_col_c>, "\n"
// after every tile row but the last, then "\n\n" <fake_token_around_image> <global-img>
// before the overview and <fake_token_around_image> after it: 2·R·C + (R−1) + 4.
func idefics3Rows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	s, p := f.ImageSize, f.PatchSize
	m := paramOrDefault(f.Merge, 1)
	if err := requirePositiveParams(rowParam{"image_size", s}, rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	minPx, maxPx, err := mtmdPixelLimits(f, opts)
	if err != nil {
		return Rows{}, err
	}
	var refined PixelSize
	if edge := f.LongestEdge; edge > 0 && minPx <= 0 && maxPx <= 0 {
		aspect := float64(in.Width) / float64(in.Height)
		var resized PixelSize
		if in.Width >= in.Height {
			resized = PixelSize{edge, clampSide(int64(float64(edge) / aspect))}
			resized.Height += resized.Height % 2
		} else {
			resized = PixelSize{clampSide(int64(float64(edge) * aspect)), edge}
			resized.Width += resized.Width % 2
		}
		if resized.Width <= 0 || resized.Height <= 0 {
			return Rows{}, fmt.Errorf("%w: mtmd resizes it to %v, which it cannot resample", ErrPictureRefused, resized)
		}
		refined = PixelSize{int(rowsCeilDiv(int64(resized.Width), int64(s))) * s, int(rowsCeilDiv(int64(resized.Height), int64(s))) * s}
	} else {
		refined = calcSizePreservedRatio(in, s, max(0, minPx), max(0, maxPx), f.LongestEdge)
	}
	perImage := func(sz PixelSize) int { return (sz.Width / p) * (sz.Height / p) / (m * m) }
	overview := PixelSize{s, s}
	rows := perImage(overview)
	cols := int(rowsCeilDiv(int64(refined.Width), int64(s)))
	gridRows := int(rowsCeilDiv(int64(refined.Height), int64(s)))
	tiles := forEachTile(refined, s, func(size PixelSize, count int) { rows += count * perImage(size) })
	markers := 2*tiles + (gridRows - 1) + 4
	return Rows{
		Rows: rows, Markers: markers, Resized: refined, Overview: overview,
		Tiles: tiles, Grid: PixelSize{cols, gridRows}, Source: SourceTokenizer,
	}, nil
}
