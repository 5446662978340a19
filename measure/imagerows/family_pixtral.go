package imagerows

// Pixtral-12B, Mistral Small 3.1/3.2 (projector pixtral) and LightOnOCR: one
// [IMG_BREAK] row per image row except the last, then [IMG_END]. docs/pipeline.md §10.2.

// pixtralFamilies are the named Pixtral-style families.
func pixtralFamilies() []Family {
	return []Family{
		{
			Name: "llamacpp/pixtral-12b", Rule: RuleLlamaCpp, Projector: "pixtral",
			PatchSize: 16, Merge: 1, MinTokens: 8, MaxTokens: 1024, ImageBreak: true,
			Note: "(P1) f = 16, tok-limits 8..1024, rows nx·ny + (ny−1) [IMG_BREAK], then [IMG_END]",
		},
		{
			Name: "llamacpp/mistral-small-3.1", Rule: RuleLlamaCpp, Projector: "pixtral",
			PatchSize: 14, Merge: 2, MinTokens: 8, MaxTokens: 1024, ImageBreak: true,
			Note: "(P1) f = 28, tok-limits 8..1024, rows nx·ny + (ny−1) [IMG_BREAK], then [IMG_END]",
		},
	}
}

// tensorImageBreak is the embedding of [IMG_BREAK], which a pixtral file may carry.
const tensorImageBreak = "v.token_embd.img_break"

// pixtralImageBreak configures a pixtral mmproj: rows get [IMG_BREAK] when the file has its
// embedding.
func pixtralImageBreak(fam *Family, file projectorFile) error {
	fam.ImageBreak = file.hasTensor(tensorImageBreak)
	return nil
}

// pixtralRows: (P1) with f = p·m (m default 1) and tok-limits 8..1024, plus one [IMG_END]
// marker.
func pixtralRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	unit, err := pixtralUnit(f)
	if err != nil {
		return Rows{}, err
	}
	minPx, maxPx := tokenPixelLimits(unit, paramOrDefault(f.MinTokens, 8), paramOrDefault(f.MaxTokens, 1024), opts)
	return pixtralGridRows(f, llamaSmartResize(in, unit, minPx, maxPx), unit, 1), nil
}

// lightOnOCRRows: (P2) with a = p·m (m default 1) and L = preproc_image_size (default S),
// then the pixel limits of --image-min-tokens / --image-max-tokens when given, and
// <|im_start|> <|im_end|>.
func lightOnOCRRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	unit, err := pixtralUnit(f)
	if err != nil {
		return Rows{}, err
	}
	edge := paramOrDefault(f.LongestEdge, f.ImageSize)
	if err := requirePositiveParams(rowParam{"preproc_image_size", edge}); err != nil {
		return Rows{}, err
	}
	minPx, maxPx, err := mtmdPixelLimits(f, opts)
	if err != nil {
		return Rows{}, err
	}
	return pixtralGridRows(f, calcSizePreservedRatio(in, unit, max(0, minPx), max(0, maxPx), edge), unit, 2), nil
}

// pixtralUnit is p·m (m default 1): the side of one patch.
func pixtralUnit(f Family) (int, error) {
	if err := requirePositiveParams(rowParam{"patch_size", f.PatchSize}); err != nil {
		return 0, err
	}
	return f.PatchSize * paramOrDefault(f.Merge, 1), nil
}

// pixtralGridRows counts a resized picture's patches of unit pixels, with one [IMG_BREAK] per
// patch row but the last when f has ImageBreak.
func pixtralGridRows(f Family, size PixelSize, unit, markers int) Rows {
	nx, ny := size.Width/unit, size.Height/unit
	rows := nx * ny
	if f.ImageBreak && ny > 0 {
		rows += ny - 1
	}
	return Rows{Rows: rows, Markers: markers, Resized: size, Source: SourceTokenizer}
}
