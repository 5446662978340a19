package imagerows

// Configuring an image-row family from an mmproj GGUF (docs/pipeline.md §10.3).

import (
	"errors"
	"fmt"
	"path/filepath"

	gguf "github.com/gpustack/gguf-parser-go"
	"github.com/strata-eval/strata-eval/internal/ggufmeta"
)

// mmproj GGUF keys read by LoadProjector (the tensors a projector type looks for are named in
// its family file).
const (
	keyProjectorType       = "clip.projector_type"
	keyVisionProjectorType = "clip.vision.projector_type"
	keyHasVisionEncoder    = "clip.has_vision_encoder"
	keyImageSize           = "clip.vision.image_size"
	keyPatchSize           = "clip.vision.patch_size"
	keySpatialMerge        = "clip.vision.spatial_merge_size"
	keyScaleFactor         = "clip.vision.projector.scale_factor"
	keyMinPixels           = "clip.vision.image_min_pixels"
	keyMaxPixels           = "clip.vision.image_max_pixels"
	keyPreprocImageSize    = "clip.vision.preproc_image_size"
	keyPreprocMinTiles     = "clip.vision.preproc_min_tiles"
	keyPreprocMaxTiles     = "clip.vision.preproc_max_tiles"
	keyGridPinpoints       = "clip.vision.image_grid_pinpoints"
	keyMiniCPMVersion      = "clip.minicpmv_version"
	keyMiniCPMQueryNum     = "clip.minicpmv_query_num"
	keyQuerySide           = "clip.vision.projector.query_side"
	keyWindowSide          = "clip.vision.projector.window_side"
)

// maxProjectorParam bounds sizes read from a GGUF, so a corrupt file cannot ask
// for absurd grids.
const maxProjectorParam = 1 << 16

// projectorDefaults are llama.cpp's built-in token limits (set_limit_image_tokens)
// and default merge factors per projector type.
type projectorDefaults struct {
	minTokens, maxTokens int
	merge                int
	mergeKey             string // spatial_merge_size or projector.scale_factor
}

// projectorFile is what the hooks of a projector type's entry read of an mmproj GGUF: the
// integer parameters present (by key) and whether a tensor is there.
type projectorFile struct {
	ints      map[string]int
	hasTensor func(name string) bool
}

// LoadProjector configures an image-row family from an mmproj GGUF: the projector
// type (clip.projector_type, else clip.vision.projector_type), the sizes and
// limits of docs/pipeline.md §10.3, and what the type's own entry reads (tensor-name
// checks such as v.token_embd.img_break, adapter.boi, mm.3.weight). Only the header is read.
func LoadProjector(path string) (Family, error) {
	f, err := gguf.ParseGGUFFile(path, gguf.UseMMap())
	if err != nil {
		return Family{}, fmt.Errorf("read mmproj %s: %w", path, err)
	}
	fam, err := projectorFromGGUF(f, filepath.Base(path))
	if err != nil {
		return Family{}, fmt.Errorf("read mmproj %s: %w", path, err)
	}
	return fam, nil
}

// projectorFromGGUF builds the family from a parsed GGUF.
func projectorFromGGUF(f *gguf.GGUFFile, fileName string) (Family, error) {
	kvs := f.Header.MetadataKV
	projector, err := ggufProjectorType(f)
	if err != nil {
		return Family{}, err
	}
	ints, err := ggufProjectorInts(kvs)
	if err != nil {
		return Family{}, err
	}
	file := projectorFile{ints: ints, hasTensor: func(name string) bool {
		_, found := f.TensorInfos.Get(name)
		return found
	}}
	projector = countedAs(projector, file)
	pinpoints, err := ggufPinpoints(kvs)
	if err != nil {
		return Family{}, err
	}

	def := defaultsForProjector(projector)
	fam := Family{
		Name:           "mmproj/" + projector + " (" + fileName + ")",
		Rule:           RuleLlamaCpp,
		Projector:      projector,
		ImageSize:      ints[keyImageSize],
		PatchSize:      ints[keyPatchSize],
		Merge:          def.merge,
		MinTokens:      def.minTokens,
		MaxTokens:      def.maxTokens,
		LongestEdge:    ints[keyPreprocImageSize],
		MinTiles:       ints[keyPreprocMinTiles],
		MaxTiles:       ints[keyPreprocMaxTiles],
		Pinpoints:      pinpoints,
		MiniCPMVersion: ints[keyMiniCPMVersion],
		QueryNum:       ints[keyMiniCPMQueryNum],
		QuerySide:      ints[keyQuerySide],
		WindowSide:     ints[keyWindowSide],
		Note:           "configured from " + fileName,
	}
	if def.mergeKey != "" {
		if v, ok := ints[def.mergeKey]; ok && v > 0 {
			fam.Merge = v
		}
	}
	if readsGGUFPixelLimits(projector) {
		fam.MinPixels, fam.MaxPixels = ints[keyMinPixels], ints[keyMaxPixels]
		if fam.MinPixels > 0 && fam.MaxPixels > 0 && fam.MaxPixels < fam.MinPixels {
			return Family{}, fmt.Errorf("%s (%d) is less than %s (%d); llama.cpp refuses the file",
				keyMaxPixels, fam.MaxPixels, keyMinPixels, fam.MinPixels)
		}
	}
	if err := configureFromFile(&fam, file); err != nil {
		return Family{}, err
	}
	// Price a probe picture so that a projector this package cannot model, or one
	// missing a required key, fails here rather than at the first picture.
	if _, err := ImageRows(fam, 640, 480, RowOptions{}); err != nil {
		if errors.Is(err, ErrUnsupportedProjector) {
			return Family{}, fmt.Errorf("projector type %q: %w", projector, ErrUnsupportedProjector)
		}
		return Family{}, fmt.Errorf("projector type %q: %w", projector, err)
	}
	return fam, nil
}

// ggufProjectorType checks that f is an mmproj (clip) file with a vision encoder and returns
// its projector type as the file names it (countedAs then names the type it is counted as).
func ggufProjectorType(f *gguf.GGUFFile) (string, error) {
	kvs := f.Header.MetadataKV
	if arch, ok, err := ggufmeta.OptionalString(kvs, "general.architecture"); err != nil {
		return "", err
	} else if ok && arch != "clip" {
		return "", fmt.Errorf("general.architecture is %q, not an mmproj (clip) file", arch)
	}
	if kv, ok := kvs.Get(keyHasVisionEncoder); ok {
		if kv.ValueType != gguf.GGUFMetadataValueTypeBool {
			return "", fmt.Errorf("key %s holds a %v, want a bool", keyHasVisionEncoder, kv.ValueType)
		}
		if !kv.ValueBool() {
			return "", fmt.Errorf("%s is false: the projector has no vision encoder", keyHasVisionEncoder)
		}
	}
	projector, ok, err := ggufmeta.OptionalString(kvs, keyProjectorType)
	if err != nil {
		return "", err
	}
	if !ok || projector == "" {
		if projector, ok, err = ggufmeta.OptionalString(kvs, keyVisionProjectorType); err != nil {
			return "", err
		}
	}
	if !ok || projector == "" {
		return "", fmt.Errorf("no %s or %s key", keyProjectorType, keyVisionProjectorType)
	}
	return projector, nil
}

// ggufProjectorInts reads the integer parameters of a projector that are present, each
// bounded (the pixel limits and the MiniCPM version excepted).
func ggufProjectorInts(kvs gguf.GGUFMetadataKVs) (map[string]int, error) {
	ints := map[string]int{}
	for _, key := range []string{
		keyImageSize, keyPatchSize, keySpatialMerge, keyScaleFactor, keyMinPixels, keyMaxPixels,
		keyPreprocImageSize, keyPreprocMinTiles, keyPreprocMaxTiles, keyMiniCPMVersion, keyMiniCPMQueryNum,
		keyQuerySide, keyWindowSide,
	} {
		v, found, err := ggufmeta.OptionalInt(kvs, key)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		if key != keyMinPixels && key != keyMaxPixels && key != keyMiniCPMVersion && v > maxProjectorParam {
			return nil, fmt.Errorf("key %s is %d, above %d", key, v, maxProjectorParam)
		}
		ints[key] = v
	}
	return ints, nil
}

// ggufPinpoints reads clip.vision.image_grid_pinpoints: flattened (width, height)
// pairs of any integer type.
func ggufPinpoints(kvs gguf.GGUFMetadataKVs) ([]PixelSize, error) {
	kv, found := kvs.Get(keyGridPinpoints)
	if !found {
		return nil, nil
	}
	if kv.ValueType != gguf.GGUFMetadataValueTypeArray {
		return nil, fmt.Errorf("key %s holds a %v, want an integer array", keyGridPinpoints, kv.ValueType)
	}
	arr := kv.ValueArray()
	var values []int64
	switch arr.Type {
	case gguf.GGUFMetadataValueTypeInt32:
		for _, v := range arr.ValuesInt32() {
			values = append(values, int64(v))
		}
	case gguf.GGUFMetadataValueTypeUint32:
		for _, v := range arr.ValuesUint32() {
			values = append(values, int64(v))
		}
	default:
		// llama.cpp reads the array's data as int32 whatever its type.
		return nil, fmt.Errorf("key %s holds %v elements, want 32-bit integers", keyGridPinpoints, arr.Type)
	}
	if len(values)%2 != 0 {
		return nil, fmt.Errorf("key %s has %d values, want (width, height) pairs", keyGridPinpoints, len(values))
	}
	if len(values) > 2*256 {
		return nil, fmt.Errorf("key %s has %d pairs, more than 256", keyGridPinpoints, len(values)/2)
	}
	out := make([]PixelSize, 0, len(values)/2)
	for i := 0; i < len(values); i += 2 {
		w, h := values[i], values[i+1]
		if w <= 0 || h <= 0 || w > maxProjectorParam || h > maxProjectorParam {
			return nil, fmt.Errorf("key %s pair %d is %d×%d, out of range", keyGridPinpoints, i/2, w, h)
		}
		out = append(out, PixelSize{int(w), int(h)})
	}
	return out, nil
}
