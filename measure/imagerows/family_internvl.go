package imagerows

// InternVL 2.5/3/3.5 (projector internvl): (P4) over all a·S × b·S grids with
// min_tiles ≤ a·b ≤ max_tiles, slices first and the overview last, 256 rows per
// tile, <img> … </img>. docs/pipeline.md §10.1 (P4), §10.2.

// internVLFamilies are the named InternVL families.
func internVLFamilies() []Family {
	return []Family{{
		Name: "llamacpp/internvl", Rule: RuleLlamaCpp, Projector: "internvl",
		ImageSize: 448, PatchSize: 14, Merge: 2, MinTiles: 1, MaxTiles: 12,
		Note: "(P4) S = 448, tiles 1..12 (llama.cpp's max-effective-resolution choice, not InternVL's Python rule), 256 rows per tile",
	}}
}

// internVLTileDefaults configures an internvl mmproj: tiles 1..12 unless the GGUF's
// preproc_min_tiles / preproc_max_tiles say otherwise.
func internVLTileDefaults(fam *Family, _ projectorFile) error {
	fam.MinTiles, fam.MaxTiles = paramOrDefault(fam.MinTiles, 1), paramOrDefault(fam.MaxTiles, 12)
	return nil
}

// internVLCandidates lists the tile grids in llama.cpp's order: width multiplier
// ascending, then height multiplier ascending.
func internVLCandidates(slice, minTiles, maxTiles int) []PixelSize {
	var out []PixelSize
	for a := 1; a <= maxTiles; a++ {
		for b := 1; b <= maxTiles; b++ {
			if n := a * b; n >= minTiles && n <= maxTiles {
				out = append(out, PixelSize{a * slice, b * slice})
			}
		}
	}
	return out
}

// internVLRows computes InternVL's cost.
func internVLRows(f Family, in PixelSize) (Rows, error) {
	s, p := paramOrDefault(f.ImageSize, 448), f.PatchSize
	m := paramOrDefault(f.Merge, 2)
	minTiles, maxTiles := paramOrDefault(f.MinTiles, 1), paramOrDefault(f.MaxTiles, 12)
	if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	return tiledFixedRows(in, s, (s/p)*(s/p)/(m*m), 2, internVLCandidates(s, minTiles, maxTiles))
}

// tiledFixedRows is the llava-uhd pinpoint path where every tile and the overview
// cost the same rows (InternVL, Llama 4), plus constant markers.
func tiledFixedRows(in PixelSize, slice, perTile, markers int, candidates []PixelSize) (Rows, error) {
	overview := PixelSize{slice, slice}
	if in.Width <= slice && in.Height <= slice {
		return Rows{Rows: perTile, Markers: markers, Resized: overview, Source: SourceTokenizer}, nil
	}
	refined := selectBestResolution(in, candidates)
	tiles := forEachTile(refined, slice, func(PixelSize, int) {})
	return Rows{
		Rows: perTile * (tiles + 1), Markers: markers, Resized: refined, Overview: overview,
		Tiles: tiles, Grid: PixelSize{refined.Width / slice, refined.Height / slice}, Source: SourceTokenizer,
	}, nil
}
