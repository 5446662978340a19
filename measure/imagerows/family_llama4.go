package imagerows

// Llama 4 Scout/Maverick (projector llama4): (P4) over the 3×3 grids except 1×1,
// slices first and the overview last, 144 rows per tile, <|image_start|> … <|image_end|>.
// docs/pipeline.md §10.1 (P4), §10.2.

// llama4Families are the named Llama 4 families.
func llama4Families() []Family {
	return []Family{{
		Name: "llamacpp/llama4", Rule: RuleLlamaCpp, Projector: "llama4",
		ImageSize: 336, PatchSize: 14, Merge: 2,
		Note: "(P4) S = 336, grids up to 3×3, 144 rows per tile; HF's tile separators are not inserted",
	}}
}

// llama4MaxGrid is the largest number of tiles per side.
const llama4MaxGrid = 3

// llama4Candidates lists x·S × y·S for x, y in 1..3 except 1×1, x outer.
func llama4Candidates(slice int) []PixelSize {
	var out []PixelSize
	for x := 1; x <= llama4MaxGrid; x++ {
		for y := 1; y <= llama4MaxGrid; y++ {
			if x == 1 && y == 1 {
				continue
			}
			out = append(out, PixelSize{x * slice, y * slice})
		}
	}
	return out
}

// llama4Rows computes Llama 4's cost.
func llama4Rows(f Family, in PixelSize) (Rows, error) {
	s, p := paramOrDefault(f.ImageSize, 336), f.PatchSize
	m := paramOrDefault(f.Merge, 2)
	if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	return tiledFixedRows(in, s, (s/p)*(s/p)/(m*m), 2, llama4Candidates(s))
}
