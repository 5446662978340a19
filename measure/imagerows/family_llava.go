package imagerows

// Fixed-size projectors: LLaVA-1.5 (mlp), LLaVA-1.6 (mlp with pinpoints, P4),
// MobileVLM (ldp, ldpv2), GLM-Edge (adapter), CogVLM, Janus-Pro, Reka Yasa (yasa2),
// Nemotron Nano VL. docs/pipeline.md §10.1 (P4), §10.2.

import "fmt"

// llava16Pinpoints are the pinpoints of the common LLaVA-1.6 (Mistral/Vicuna) mmproj files.
func llava16Pinpoints() []PixelSize {
	return []PixelSize{{336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}}
}

// llavaFamilies are the named LLaVA families.
func llavaFamilies() []Family {
	return []Family{
		{
			Name: "llamacpp/llava-1.5", Rule: RuleLlamaCpp, Projector: "mlp",
			ImageSize: 336, PatchSize: 14,
			Note: "fixed 336×336, (S/p)² = 576 rows, no markers",
		},
		{
			Name: "llamacpp/llava-1.6", Rule: RuleLlamaCpp, Projector: "mlp",
			ImageSize: 336, PatchSize: 14, Pinpoints: llava16Pinpoints(),
			Note: "pinpoints 336x672,672x336,672x672,1008x336,336x1008 (P4): 576 per slice and for the overview, no markers",
		},
	}
}

// Tensors a LLaVA-style file may carry: GLM-Edge's BOI/EOI embeddings, an MLP's third layer.
const (
	tensorAdapterBOI = "adapter.boi"
	tensorMLP3       = "mm.3.weight"
)

// llavaMLPNorm counts an mlp file with a third layer as mlp_norm.
func llavaMLPNorm(file projectorFile) string {
	if file.hasTensor(tensorMLP3) {
		return "mlp_norm"
	}
	return ""
}

// adapterBOIEOI configures a GLM-Edge (adapter) mmproj: its BOI and EOI embeddings, when the
// file has them, are two more rows per picture.
func adapterBOIEOI(fam *Family, file projectorFile) error {
	if file.hasTensor(tensorAdapterBOI) {
		fam.ExtraRows = 2
	}
	return nil
}

// slicingProjectors are the fixed-size projectors that switch to pinpoint slicing
// when clip.vision.image_grid_pinpoints is present.
func slicingProjector(projector string) bool {
	switch projector {
	case "mlp", "mlp_norm", "ldp", "ldpv2", "cogvlm", "janus_pro", "adapter":
		return true
	}
	return false
}

// llavaRows computes the fixed-size projectors, with (P4) slicing when pinpoints are set.
func llavaRows(f Family, in PixelSize) (Rows, error) {
	s, p := f.ImageSize, f.PatchSize
	if err := requirePositiveParams(rowParam{"image_size", s}, rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	var perImage func(PixelSize) int
	markers := 0
	switch f.Projector {
	case "mlp", "mlp_norm", "janus_pro":
		perImage = func(sz PixelSize) int { return (sz.Width / p) * (sz.Height / p) }
	case "ldp", "ldpv2":
		perImage = func(sz PixelSize) int { return (sz.Width / p) * (sz.Height / p) / 4 }
	case "adapter":
		perImage = func(sz PixelSize) int { return (sz.Width/p)*(sz.Height/p)/4 + f.ExtraRows }
	case "cogvlm":
		perImage = func(sz PixelSize) int { return (sz.Width/p)*(sz.Height/p) + 2 }
	case "yasa2":
		perImage = func(PixelSize) int { return 64 }
		markers = 2
	case "nemotron_v2_vl":
		m := paramOrDefault(f.Merge, 2)
		perImage = func(sz PixelSize) int { return (sz.Width / p) * (sz.Height / p) / (m * m) }
	default:
		return Rows{}, fmt.Errorf("%w: %q", ErrUnsupportedProjector, f.Projector)
	}
	overview := PixelSize{s, s}
	if len(f.Pinpoints) == 0 || !slicingProjector(f.Projector) || (in.Width <= s && in.Height <= s) {
		return Rows{Rows: perImage(overview), Markers: markers, Resized: overview, Source: SourceTokenizer}, nil
	}
	refined := selectBestResolution(in, f.Pinpoints)
	rows := perImage(overview)
	tiles := forEachTile(refined, s, func(size PixelSize, count int) { rows += count * perImage(size) })
	return Rows{
		Rows: rows, Markers: markers, Resized: refined, Overview: overview,
		Tiles: tiles, Grid: PixelSize{refined.Width / s, refined.Height / s}, Source: SourceTokenizer,
	}, nil
}
