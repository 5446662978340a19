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

// pixtralRows: pixtral uses (P1) with f = p·m (m default 1) and tok-limits 8..1024
// plus one [IMG_END] marker; lightonocr uses (P2) with a = p·m and
// L = preproc_image_size (default S), then the pixel limits of --image-min-tokens /
// --image-max-tokens when given, and <|im_start|> <|im_end|>.
func pixtralRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	p := f.PatchSize
	m := paramOrDefault(f.Merge, 1)
	if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	unit := p * m
	var (
		size    PixelSize
		markers int
	)
	if f.Projector == "lightonocr" {
		edge := paramOrDefault(f.LongestEdge, f.ImageSize)
		if err := requirePositiveParams(rowParam{"preproc_image_size", edge}); err != nil {
			return Rows{}, err
		}
		minPx, maxPx, err := mtmdPixelLimits(f, opts)
		if err != nil {
			return Rows{}, err
		}
		size = calcSizePreservedRatio(in, unit, max(0, minPx), max(0, maxPx), edge)
		markers = 2
	} else {
		minPx, maxPx := tokenPixelLimits(unit, paramOrDefault(f.MinTokens, 8), paramOrDefault(f.MaxTokens, 1024), opts)
		size = llamaSmartResize(in, unit, minPx, maxPx)
		markers = 1
	}
	nx, ny := size.Width/unit, size.Height/unit
	rows := nx * ny
	if f.ImageBreak && ny > 0 {
		rows += ny - 1
	}
	return Rows{Rows: rows, Markers: markers, Resized: size, Source: SourceTokenizer}, nil
}
