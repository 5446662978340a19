package imagerows

// Gemma 3 (fixed 896 px, 256 rows), Gemma 3n (fixed 768 px, 256 rows) and
// Gemma 4 (dynamic: tok-limits 70..1120 in the bound release, 40..280 from b9493 to
// master of 2026-08, 252..280 from b8637 to b9492).
// docs/pipeline.md §10.2.

import "fmt"

// gemmaFamilies are the named Gemma families.
func gemmaFamilies() []Family {
	gemma4 := func(name string, minTokens, maxTokens int, note string) Family {
		return Family{
			Name: name, Rule: RuleLlamaCpp, Projector: "gemma4v",
			PatchSize: 16, Merge: 3, MinTokens: minTokens, MaxTokens: maxTokens, Note: note,
		}
	}
	return []Family{
		{
			Name: "llamacpp/gemma3", Rule: RuleLlamaCpp, Projector: "gemma3",
			ImageSize: 896, PatchSize: 14, Merge: 4,
			Note: "fixed 896×896, (S/p)²/m² = 256 rows, <start_of_image> <end_of_image>",
		},
		{
			Name: "llamacpp/gemma3n", Rule: RuleLlamaCpp, Projector: "gemma3nv",
			ImageSize: 768, PatchSize: 3,
			Note: "fixed 768×768, S/p = 256 rows (the converter stores p = 768/256), <start_of_image> <end_of_image>",
		},
		gemma4("llamacpp/gemma4", 70, 1120, "(P1) f = p·m = 48, tok-limits 70..1120, <|image> <image|>"),
		gemma4("llamacpp-b9493..2026-08/gemma4", 40, 280, "llama.cpp b9493 to master of 2026-08: tok-limits 40..280"),
		gemma4("llamacpp-b8637..b9492/gemma4", 252, 280, "llama.cpp b8637..b9492: tok-limits 252..280"),
	}
}

// gemmaRows computes the Gemma projectors' cost; every variant adds two markers.
func gemmaRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	p := f.PatchSize
	switch f.Projector {
	case "gemma3":
		s := f.ImageSize
		m := paramOrDefault(f.Merge, 4)
		if err := requirePositiveParams(rowParam{"image_size", s}, rowParam{"patch_size", p}); err != nil {
			return Rows{}, err
		}
		side := s / p
		rows := side * side / (m * m)
		return Rows{Rows: rows, Markers: 2, Resized: PixelSize{s, s}, Source: SourceTokenizer}, nil
	case "gemma3nv":
		s := f.ImageSize
		if err := requirePositiveParams(rowParam{"image_size", s}, rowParam{"patch_size", p}); err != nil {
			return Rows{}, err
		}
		return Rows{Rows: s / p, Markers: 2, Resized: PixelSize{s, s}, Source: SourceTokenizer}, nil
	case "gemma4v", "gemma4uv":
		m := paramOrDefault(f.Merge, 3)
		if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
			return Rows{}, err
		}
		unit := p * m
		minPx, maxPx := tokenPixelLimits(unit, paramOrDefault(f.MinTokens, 70), paramOrDefault(f.MaxTokens, 1120), opts)
		size := llamaSmartResize(in, unit, minPx, maxPx)
		rows := (size.Width / unit) * (size.Height / unit)
		return Rows{Rows: rows, Markers: 2, Resized: size, Source: SourceTokenizer}, nil
	default:
		return Rows{}, fmt.Errorf("%w: %q", ErrUnsupportedProjector, f.Projector)
	}
}
