package imagerows

// MiniCPM-V (projector resampler: Llama3-V 2.5, V 2.6, o 2.6, V 4.0, V 4.5, o 4.5)
// and MiniCPM-V 4.6 (projector minicpmv4_6): llava-uhd slicing without pinpoints
// (P3). docs/pipeline.md §10.1 (P3), §10.2.

import (
	"fmt"
	"math"
)

// miniCPMFamilies are the named MiniCPM-V families.
func miniCPMFamilies() []Family {
	resampler := func(name string, version, query int) Family {
		return Family{
			Name: name, Rule: RuleLlamaCpp, Projector: "resampler",
			ImageSize: 448, PatchSize: 14, MiniCPMVersion: version, QueryNum: query,
			Note: fmt.Sprintf("(P3) slicing, S = 448, %d rows per overview and per slice", query),
		}
	}
	return []Family{
		resampler("llamacpp/minicpm-v-2.5", 2, 96),
		resampler("llamacpp/minicpm-v-2.6", 3, 64),
		resampler("llamacpp/minicpm-o-2.6", 4, 64),
		resampler("llamacpp/minicpm-v-4.0", 5, 64),
		resampler("llamacpp/minicpm-v-4.5", 6, 64),
		resampler("llamacpp/minicpm-o-4.5", 100045, 64),
		{
			Name: "llamacpp/minicpm-v-4.6", Rule: RuleLlamaCpp, Projector: "minicpmv4_6",
			ImageSize: 448, PatchSize: 14, Merge: 4,
			Note: "(P3) variant aligned to p·m, rows (W'/p)·(H'/p)/m² per image (no worked table: approximate)",
		},
	}
}

// miniCPMMaxSlices is llava-uhd's max_slice_nums.
const miniCPMMaxSlices = 9

// miniCPMBestGrid is llava_uhd::get_best_grid: among the factorisations of
// multiple−1, multiple, multiple+1 (without 1 and anything above 9 slices), the
// grid whose log aspect is closest to the picture's; first one wins ties.
func miniCPMBestGrid(in PixelSize, slice int) PixelSize {
	logRatio := float32(math.Log(float64(float32(in.Width) / float32(in.Height))))
	ratio := float32(float32(in.Width)*float32(in.Height)) / float32(slice*slice)
	multiple := int(min(math.Ceil(float64(ratio)), miniCPMMaxSlices))
	best := PixelSize{1, 1}
	minErr := float32(math.Inf(1))
	for _, n := range []int{multiple - 1, multiple, multiple + 1} {
		if n == 1 || n > miniCPMMaxSlices {
			continue
		}
		for cols := 1; cols <= n; cols++ {
			if n%cols != 0 {
				continue
			}
			grid := PixelSize{cols, n / cols}
			e := float32(math.Abs(float64(logRatio) - math.Log(float64(grid.Width)/float64(grid.Height))))
			if e < minErr {
				best, minErr = grid, e
			}
		}
	}
	return best
}

// miniCPMEnsureDivide is llava_uhd::ensure_divide: the nearest multiple of unit, at least unit.
func miniCPMEnsureDivide(length, unit int) int {
	return clampSide(max(f32RoundAway(float32(length)/float32(unit))*int64(unit), int64(unit)))
}

// miniCPMBestResize is llava_uhd::get_best_resize: scale to the slice area when
// larger (or always with allowUpscale), keeping the aspect ratio, then snap each
// side with ensure_divide.
func miniCPMBestResize(in PixelSize, slice, unit int, allowUpscale bool) PixelSize {
	w, h := in.Width, in.Height
	if int64(w)*int64(h) > int64(slice)*int64(slice) || allowUpscale {
		r := float32(w) / float32(h)
		h = clampSide(f32Trunc(float32(slice) / f32Sqrt(r)))
		w = clampSide(f32Trunc(float32(float32(h) * r)))
	}
	return PixelSize{miniCPMEnsureDivide(w, unit), miniCPMEnsureDivide(h, unit)}
}

// miniCPMRows computes MiniCPM-V (resampler): the overview plus a grid of slices when the
// picture is larger than S on either side, the resampler's query count each. Markers (v3+):
// <image></image> around the overview, <slice></slice> around each slice, "\n" between slice
// rows; version 2 wraps the slices once in <slice>…</slice> and each in <image></image>.
func miniCPMRows(f Family, in PixelSize) (Rows, error) { return miniCPMSliceRows(f, in, false) }

// miniCPMV46Rows computes MiniCPM-V 4.6 (minicpmv4_6): slices aligned to p·m, each
// (W'/p)·(H'/p)/m² rows; with m = 2 a picture within S² pixels is one resized overview.
func miniCPMV46Rows(f Family, in PixelSize) (Rows, error) { return miniCPMSliceRows(f, in, true) }

// miniCPMSliceRows is llava-uhd's slicing of miniCPMRows, merged as in 4.6 when v46 is set.
func miniCPMSliceRows(f Family, in PixelSize, v46 bool) (Rows, error) {
	s := paramOrDefault(f.ImageSize, 448)
	p := f.PatchSize
	version := paramOrDefault(f.MiniCPMVersion, 2)
	if err := requirePositiveParams(rowParam{"patch_size", p}); err != nil {
		return Rows{}, err
	}
	unit := p
	m := 1
	if v46 {
		m = paramOrDefault(f.Merge, 4)
		unit = p * m
	}
	query := f.QueryNum
	if query <= 0 {
		// clip.cpp's fallback for files without clip.minicpmv_query_num.
		switch version {
		case 3, 4, 5, 6, 100045:
			query = 64
		default:
			query = 96
		}
	}
	perImage := func(sz PixelSize) int {
		if v46 {
			return (sz.Width / p) * (sz.Height / p) / (m * m)
		}
		return query
	}
	if v46 && m == 2 && float32(float32(in.Width)*float32(in.Height))/float32(s*s) <= 1 {
		// mtmd_image_preprocessor_minicpmv: a picture within S² pixels is one overview,
		// resized (up or down) to the slice area.
		overview := miniCPMBestResize(in, s, unit, true)
		return Rows{Rows: perImage(overview), Markers: 2, Resized: overview, Source: SourceTokenizer}, nil
	}
	if in.Width <= s && in.Height <= s {
		overview := PixelSize{s, s}
		return Rows{Rows: perImage(overview), Markers: 2, Resized: overview, Source: SourceTokenizer}, nil
	}
	overview := miniCPMBestResize(in, s, unit, false)
	grid := miniCPMBestGrid(in, s)
	// get_refine_size: snap the picture to the grid, size one cell like an overview, tile it.
	refineW := miniCPMEnsureDivide(in.Width, grid.Width)
	refineH := miniCPMEnsureDivide(in.Height, grid.Height)
	cell := miniCPMBestResize(PixelSize{refineW / grid.Width, refineH / grid.Height}, s, unit, true)
	refined := PixelSize{cell.Width * grid.Width, cell.Height * grid.Height}
	tiles := grid.Width * grid.Height
	rows := perImage(overview) + tiles*perImage(cell)
	markers := 2 + 2*tiles + (grid.Height - 1)
	if version == 2 && !v46 {
		markers += 2 // the outer <slice> … </slice>
	}
	return Rows{
		Rows: rows, Markers: markers, Resized: refined, Overview: overview,
		Tiles: tiles, Grid: grid, Source: SourceTokenizer,
	}, nil
}
