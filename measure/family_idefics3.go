package measure

// Idefics3, SmolVLM, SmolVLM2 (projector idefics3): the picture is scaled (up or
// down) so its long side is preproc_image_size, rounded up to whole S×S tiles
// (P2), plus an S×S overview. docs/pipeline.md §10.1 (P2), §10.2.

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

// idefics3Rows computes the tiles and the overview, each (S/p)²/m² rows. Markers:
// per tile <fake_token_around_image> <row_r_col_c>, "\n" after every tile row but
// the last, then "\n\n" <fake_token_around_image> <global-img> before the overview
// and <fake_token_around_image> after it: 2·R·C + (R−1) + 4.
func idefics3Rows(f Family, in PixelSize) (Rows, error) {
	s, p := f.ImageSize, f.PatchSize
	m := paramOrDefault(f.Merge, 1)
	edge := f.LongestEdge
	if err := requirePositiveParams(rowParam{"image_size", s}, rowParam{"patch_size", p}, rowParam{"preproc_image_size", edge}); err != nil {
		return Rows{}, err
	}
	refined := longestEdgeFit(in, s, edge)
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
