package imagerows

// Kimi-VL (projector kimivl) and Kimi-K2.5 / GLM-5.2-V (projector kimik25).
// docs/pipeline.md §10.2.

// kimiFamilies are the named Kimi families.
func kimiFamilies() []Family {
	return []Family{
		{
			Name: "llamacpp/kimi-vl", Rule: RuleLlamaCpp, Projector: "kimivl",
			PatchSize: 14, Merge: 2, MinTokens: 8, MaxTokens: 1024,
			Note: "(P1) f = p·m = 28, tok-limits 8..1024, <|media_start|> <|media_end|>",
		},
		{
			Name: "llamacpp/kimi-k2.5", Rule: RuleLlamaCpp, Projector: "kimik25",
			PatchSize: 14, Merge: 2, MinTokens: 2, MaxTokens: 4096,
			Note: "(P1) f = p·m, GGUF pixel limits when both present, else tok-limits 2..4096",
		},
	}
}

// kimiRows: (P1) with f = p·m, rows ⌈W'/f⌉·⌈H'/f⌉, two markers. The pixel limits are the
// GGUF's where the type reads them and the file has both (kimik25), else the token limits
// (the type's built-in ones by default: kimivl 8..1024, kimik25 2..4096).
func kimiRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	p := f.PatchSize
	m := paramOrDefault(f.Merge, 2)
	if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	unit := p * m
	var minPx, maxPx int64
	if projectorLimitKind(f) == limitsFile {
		minPx, maxPx = int64(f.MinPixels), int64(f.MaxPixels)
	} else {
		def := defaultsForProjector(f.Projector)
		minPx, maxPx = tokenPixelLimits(unit, paramOrDefault(f.MinTokens, def.minTokens), paramOrDefault(f.MaxTokens, def.maxTokens), opts)
	}
	size := llamaSmartResize(in, unit, minPx, maxPx)
	u := int64(unit)
	rows := rowsCeilDiv(int64(size.Width), u) * rowsCeilDiv(int64(size.Height), u)
	return Rows{Rows: int(rows), Markers: 2, Resized: size, Source: SourceTokenizer}, nil
}
