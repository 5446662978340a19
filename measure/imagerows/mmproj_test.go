package imagerows

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
)

// mmprojKVs is the common part of a vision mmproj file, as the llama.cpp
// converters write it.
func mmprojKVs(projectorKey, projector string, imageSize, patchSize uint32) []ggufwrite.KV {
	return []ggufwrite.KV{
		{Key: "general.architecture", Value: "clip"},
		{Key: "general.name", Value: "tiny test projector"},
		{Key: "clip.has_vision_encoder", Value: true},
		{Key: projectorKey, Value: projector},
		{Key: "clip.vision.image_size", Value: imageSize},
		{Key: "clip.vision.patch_size", Value: patchSize},
		{Key: "clip.vision.embedding_length", Value: uint32(64)},
		{Key: "clip.vision.feed_forward_length", Value: uint32(128)},
		{Key: "clip.vision.projection_dim", Value: uint32(64)},
		{Key: "clip.vision.block_count", Value: uint32(1)},
		{Key: "clip.vision.attention.head_count", Value: uint32(4)},
		{Key: "clip.vision.attention.layer_norm_epsilon", Value: float32(1e-6)},
		{Key: "clip.vision.image_mean", Value: []float32{0.48145467, 0.4578275, 0.40821072}},
		{Key: "clip.vision.image_std", Value: []float32{0.26862954, 0.26130258, 0.27577711}},
	}
}

// tinyTensor is a small F32 tensor with real data.
func tinyTensor(name string) ggufwrite.Tensor {
	return ggufwrite.Tensor{Name: name, Dims: []uint64{4}, Type: ggufwrite.F32, Data: ggufwrite.F32Bytes(0.1, 0.2, 0.3, 0.4)}
}

// writeMMProj writes an mmproj GGUF into dir and returns its path.
func writeMMProj(t *testing.T, name string, kvs []ggufwrite.KV, tensorNames ...string) string {
	t.Helper()
	tensors := []ggufwrite.Tensor{tinyTensor("v.patch_embd.weight")}
	for _, n := range tensorNames {
		tensors = append(tensors, tinyTensor(n))
	}
	path := filepath.Join(t.TempDir(), name+".gguf")
	if err := ggufwrite.WriteFile(path, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadProjector(t *testing.T) {
	type probe struct {
		width, height, total int
	}
	u32 := func(v uint32) any { return v }
	cases := []struct {
		name    string
		kvs     []ggufwrite.KV
		tensors []string
		// want are the parameters LoadProjector must pick.
		want Family
		// sameAs names a built-in family that must price pictures identically.
		sameAs string
		probes []probe
	}{
		{
			name:   "qwen2.5-vl (no spatial_merge_size: default 2)",
			kvs:    mmprojKVs("clip.projector_type", "qwen2.5vl_merger", 560, 14),
			want:   Family{Projector: "qwen2.5vl_merger", ImageSize: 560, PatchSize: 14, Merge: 2, MinTokens: 8, MaxTokens: 4096},
			sameAs: "llamacpp/qwen2.5vl",
			probes: []probe{{640, 360, 301}, {4320, 2432, 4082}, {1, 1, 11}},
		},
		{
			name:   "qwen2.5-omni (qwen2.5o means qwen2.5vl_merger)",
			kvs:    mmprojKVs("clip.projector_type", "qwen2.5o", 560, 14),
			want:   Family{Projector: "qwen2.5vl_merger", ImageSize: 560, PatchSize: 14, Merge: 2, MinTokens: 8, MaxTokens: 4096},
			sameAs: "llamacpp/qwen2.5vl",
		},
		{
			name: "qwen3-vl",
			kvs: append(mmprojKVs("clip.projector_type", "qwen3vl_merger", 768, 16),
				ggufwrite.KV{Key: "clip.vision.spatial_merge_size", Value: u32(2)}),
			want:   Family{Projector: "qwen3vl_merger", ImageSize: 768, PatchSize: 16, Merge: 2, MinTokens: 8, MaxTokens: 4096},
			sameAs: "llamacpp/qwen3vl",
			probes: []probe{{640, 360, 222}, {10000, 10, 315}},
		},
		{
			name: "glm-4.1v",
			kvs: append(mmprojKVs("clip.projector_type", "glm4v", 336, 14),
				ggufwrite.KV{Key: "clip.vision.spatial_merge_size", Value: u32(2)},
				ggufwrite.KV{Key: "clip.vision.image_min_pixels", Value: u32(1)}), // ignored: tok-limits win
			want:   Family{Projector: "glm4v", ImageSize: 336, PatchSize: 14, Merge: 2, MinTokens: 8, MaxTokens: 4096},
			sameAs: "llamacpp/glm4v",
			probes: []probe{{1920, 1080, 2693}},
		},
		{
			name:    "pixtral-12b (img_break tensor, no merge)",
			kvs:     mmprojKVs("clip.projector_type", "pixtral", 1024, 16),
			tensors: []string{"v.token_embd.img_break"},
			want:    Family{Projector: "pixtral", ImageSize: 1024, PatchSize: 16, Merge: 1, MinTokens: 8, MaxTokens: 1024, ImageBreak: true},
			sameAs:  "llamacpp/pixtral-12b",
			probes:  []probe{{640, 360, 943}},
		},
		{
			name: "pixtral without img_break",
			kvs:  mmprojKVs("clip.projector_type", "pixtral", 1024, 16),
			want: Family{Projector: "pixtral", ImageSize: 1024, PatchSize: 16, Merge: 1, MinTokens: 8, MaxTokens: 1024},
			// 40·23 rows, no [IMG_BREAK] rows, + [IMG_END]
			probes: []probe{{640, 360, 921}},
		},
		{
			name: "mistral-small-3.1",
			kvs: append(mmprojKVs("clip.projector_type", "pixtral", 1540, 14),
				ggufwrite.KV{Key: "clip.vision.spatial_merge_size", Value: u32(2)}),
			tensors: []string{"v.token_embd.img_break"},
			want:    Family{Projector: "pixtral", ImageSize: 1540, PatchSize: 14, Merge: 2, MinTokens: 8, MaxTokens: 1024, ImageBreak: true},
			sameAs:  "llamacpp/mistral-small-3.1",
			probes:  []probe{{640, 360, 312}},
		},
		{
			name:   "gemma3 (scale_factor absent: 4)",
			kvs:    mmprojKVs("clip.projector_type", "gemma3", 896, 14),
			want:   Family{Projector: "gemma3", ImageSize: 896, PatchSize: 14, Merge: 4},
			sameAs: "llamacpp/gemma3",
			probes: []probe{{640, 360, 258}},
		},
		{
			name:   "gemma3n (clip.vision.projector_type only)",
			kvs:    mmprojKVs("clip.vision.projector_type", "gemma3nv", 768, 3),
			want:   Family{Projector: "gemma3nv", ImageSize: 768, PatchSize: 3},
			sameAs: "llamacpp/gemma3n",
			probes: []probe{{1920, 1080, 258}},
		},
		{
			name:   "gemma4 (scale_factor absent: 3)",
			kvs:    mmprojKVs("clip.vision.projector_type", "gemma4v", 224, 16),
			want:   Family{Projector: "gemma4v", ImageSize: 224, PatchSize: 16, Merge: 3, MinTokens: 70, MaxTokens: 1120},
			sameAs: "llamacpp/gemma4",
			probes: []probe{{640, 360, 106}, {10000, 10, 210}},
		},
		{
			name:   "kimi-vl",
			kvs:    append(mmprojKVs("clip.projector_type", "kimivl", 448, 14), ggufwrite.KV{Key: "clip.vision.projector.scale_factor", Value: u32(2)}),
			want:   Family{Projector: "kimivl", ImageSize: 448, PatchSize: 14, Merge: 2, MinTokens: 8, MaxTokens: 1024},
			sameAs: "llamacpp/kimi-vl",
			probes: []probe{{4320, 2432, 1010}},
		},
		{
			name:   "llava-1.5",
			kvs:    mmprojKVs("clip.projector_type", "mlp", 336, 14),
			want:   Family{Projector: "mlp", ImageSize: 336, PatchSize: 14},
			sameAs: "llamacpp/llava-1.5",
			probes: []probe{{640, 360, 576}},
		},
		{
			name:    "llava with mm.3.weight is MLP_NORM, same count",
			kvs:     mmprojKVs("clip.projector_type", "mlp", 336, 14),
			tensors: []string{"mm.3.weight"},
			want:    Family{Projector: "mlp_norm", ImageSize: 336, PatchSize: 14},
			sameAs:  "llamacpp/llava-1.5",
		},
		{
			name: "llava-1.6 (pinpoints)",
			kvs: append(mmprojKVs("clip.projector_type", "mlp", 336, 14),
				ggufwrite.KV{Key: "clip.vision.image_grid_pinpoints", Value: []int32{336, 672, 672, 336, 672, 672, 1008, 336, 336, 1008}}),
			want:   Family{Projector: "mlp", ImageSize: 336, PatchSize: 14, Pinpoints: llava16Pinpoints()},
			sameAs: "llamacpp/llava-1.6",
			probes: []probe{{640, 360, 2880}, {10000, 10, 2304}},
		},
		{
			name:    "glm-edge (adapter with BOI/EOI tensors)",
			kvs:     mmprojKVs("clip.projector_type", "adapter", 672, 14),
			tensors: []string{"adapter.boi", "adapter.eoi"},
			want:    Family{Projector: "adapter", ImageSize: 672, PatchSize: 14, ExtraRows: 2},
			probes:  []probe{{640, 360, 578}},
		},
		{
			name: "minicpm-v-2.6",
			kvs: append(mmprojKVs("clip.projector_type", "resampler", 448, 14),
				ggufwrite.KV{Key: "clip.minicpmv_version", Value: int32(3)},
				ggufwrite.KV{Key: "clip.minicpmv_query_num", Value: u32(64)}),
			want:   Family{Projector: "resampler", ImageSize: 448, PatchSize: 14, MiniCPMVersion: 3, QueryNum: 64},
			sameAs: "llamacpp/minicpm-v-2.6",
			probes: []probe{{640, 360, 198}, {4320, 2432, 595}},
		},
		{
			name: "minicpm-llama3-v-2.5 (version 2, no query key: 96)",
			kvs: append(mmprojKVs("clip.projector_type", "resampler", 448, 14),
				ggufwrite.KV{Key: "clip.minicpmv_version", Value: int32(2)}),
			want:   Family{Projector: "resampler", ImageSize: 448, PatchSize: 14, MiniCPMVersion: 2},
			probes: []probe{{640, 360, 296}, {4320, 2432, 885}},
		},
		{
			name: "minicpm-v 4.0 (version 5, no query key: 64)",
			kvs: append(mmprojKVs("clip.projector_type", "resampler", 448, 14),
				ggufwrite.KV{Key: "clip.minicpmv_version", Value: int32(5)}),
			want:   Family{Projector: "resampler", ImageSize: 448, PatchSize: 14, MiniCPMVersion: 5},
			sameAs: "llamacpp/minicpm-v-4.0",
			probes: []probe{{640, 360, 198}},
		},
		{
			name: "internvl (tile keys absent: 1..12)",
			kvs: append(mmprojKVs("clip.projector_type", "internvl", 448, 14),
				ggufwrite.KV{Key: "clip.vision.projector.scale_factor", Value: u32(2)}),
			want:   Family{Projector: "internvl", ImageSize: 448, PatchSize: 14, Merge: 2, MinTiles: 1, MaxTiles: 12},
			sameAs: "llamacpp/internvl",
			probes: []probe{{4320, 2432, 3330}},
		},
		{
			name: "internvl with 6 tiles at most",
			kvs: append(mmprojKVs("clip.projector_type", "internvl", 448, 14),
				ggufwrite.KV{Key: "clip.vision.projector.scale_factor", Value: u32(2)},
				ggufwrite.KV{Key: "clip.vision.preproc_min_tiles", Value: u32(1)},
				ggufwrite.KV{Key: "clip.vision.preproc_max_tiles", Value: u32(6)}),
			want: Family{Projector: "internvl", ImageSize: 448, PatchSize: 14, Merge: 2, MinTiles: 1, MaxTiles: 6},
			// 3×2 tiles + overview = 7·256 rows
			probes: []probe{{4320, 2432, 1794}},
		},
		{
			name: "llama4",
			kvs: append(mmprojKVs("clip.projector_type", "llama4", 336, 14),
				ggufwrite.KV{Key: "clip.vision.projector.scale_factor", Value: u32(2)}),
			want:   Family{Projector: "llama4", ImageSize: 336, PatchSize: 14, Merge: 2},
			sameAs: "llamacpp/llama4",
			probes: []probe{{640, 360, 722}},
		},
		{
			name: "smolvlm2",
			kvs: append(mmprojKVs("clip.projector_type", "idefics3", 512, 16),
				ggufwrite.KV{Key: "clip.vision.projector.scale_factor", Value: u32(4)},
				ggufwrite.KV{Key: "clip.vision.preproc_image_size", Value: u32(2048)}),
			want:   Family{Projector: "idefics3", ImageSize: 512, PatchSize: 16, Merge: 4, LongestEdge: 2048},
			sameAs: "llamacpp/idefics3-smolvlm2",
			probes: []probe{{640, 360, 862}, {1, 1, 1127}},
		},
		{
			name: "lfm2-vl",
			kvs: append(mmprojKVs("clip.projector_type", "lfm2", 256, 16),
				ggufwrite.KV{Key: "clip.vision.projector.scale_factor", Value: u32(2)}),
			want:   Family{Projector: "lfm2", ImageSize: 256, PatchSize: 16, Merge: 2, MinTokens: 64, MaxTokens: 256},
			sameAs: "llamacpp/lfm2-vl",
			probes: []probe{{1920, 1080, 2311}, {640, 360, 222}},
		},
		{
			name: "paddleocr-vl (pixel limits from the GGUF)",
			kvs: append(mmprojKVs("clip.projector_type", "paddleocr", 384, 14),
				ggufwrite.KV{Key: "clip.vision.image_min_pixels", Value: u32(147384)},
				ggufwrite.KV{Key: "clip.vision.image_max_pixels", Value: u32(2822400)}),
			want: Family{Projector: "paddleocr", ImageSize: 384, PatchSize: 14, MinPixels: 147384, MaxPixels: 2822400},
			// 640×360 → 644×364 (46·26 patches) → ⌈1196/4⌉ = 299 rows + 2
			probes: []probe{{640, 360, 301}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeMMProj(t, "mmproj", tc.kvs, tc.tensors...)
			fam, err := LoadProjector(path)
			if err != nil {
				t.Fatalf("LoadProjector: %v", err)
			}
			if fam.Rule != RuleLlamaCpp || !strings.HasPrefix(fam.Name, "mmproj/"+tc.want.Projector) {
				t.Errorf("rule %q name %q", fam.Rule, fam.Name)
			}
			got := Family{
				Projector: fam.Projector, ImageSize: fam.ImageSize, PatchSize: fam.PatchSize, Merge: fam.Merge,
				MinTokens: fam.MinTokens, MaxTokens: fam.MaxTokens, MinPixels: fam.MinPixels, MaxPixels: fam.MaxPixels,
				LongestEdge: fam.LongestEdge, MinTiles: fam.MinTiles, MaxTiles: fam.MaxTiles, Pinpoints: fam.Pinpoints,
				MiniCPMVersion: fam.MiniCPMVersion, QueryNum: fam.QueryNum, ImageBreak: fam.ImageBreak, ExtraRows: fam.ExtraRows,
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parameters\n got %+v\nwant %+v", got, tc.want)
			}
			for _, p := range tc.probes {
				r, err := ImageRows(fam, p.width, p.height, RowOptions{})
				if err != nil || r.Total != p.total {
					t.Errorf("%dx%d: total %d (%+v, %v), want %d", p.width, p.height, r.Total, r, err, p.total)
				}
			}
			if tc.sameAs != "" {
				named, err := FamilyByName(tc.sameAs)
				if err != nil {
					t.Fatal(err)
				}
				for _, sz := range [][2]int{{640, 360}, {160, 120}, {4320, 2432}, {1920, 1080}, {1, 1}, {28, 28}, {10000, 10}, {777, 1333}} {
					a, errA := ImageRows(fam, sz[0], sz[1], RowOptions{})
					b, errB := ImageRows(named, sz[0], sz[1], RowOptions{})
					a.Source, b.Source = "", ""
					if errA != nil || errB != nil || a != b {
						t.Errorf("%dx%d: mmproj %+v (%v) differs from %s %+v (%v)", sz[0], sz[1], a, errA, tc.sameAs, b, errB)
					}
				}
			}
		})
	}
}

func TestLoadProjectorErrors(t *testing.T) {
	cases := []struct {
		name    string
		kvs     []ggufwrite.KV
		tensors []string
		want    string
		is      error
	}{
		{
			name: "a text model",
			kvs:  []ggufwrite.KV{{Key: "general.architecture", Value: "qwen3"}, {Key: "qwen3.context_length", Value: uint32(4096)}},
			want: `general.architecture is "qwen3", not an mmproj`,
		},
		{
			name: "no projector type",
			kvs:  []ggufwrite.KV{{Key: "general.architecture", Value: "clip"}},
			want: "declares no type",
		},
		{
			name: "audio-only projector",
			kvs: []ggufwrite.KV{{Key: "general.architecture", Value: "clip"}, {Key: "clip.has_vision_encoder", Value: false},
				{Key: "clip.audio.projector_type", Value: "ultravox"}},
			want: "no vision encoder",
		},
		{
			name: "unsupported projector",
			kvs:  mmprojKVs("clip.projector_type", "qwen2a", 728, 14),
			want: `projector type "qwen2a"`,
			is:   ErrUnsupportedProjector,
		},
		{
			name: "paddleocr without pixel limits",
			kvs:  mmprojKVs("clip.projector_type", "paddleocr", 384, 14),
			want: "needs clip.vision.image_min_pixels",
		},
		{
			name: "odd pinpoints",
			kvs: append(mmprojKVs("clip.projector_type", "mlp", 336, 14),
				ggufwrite.KV{Key: "clip.vision.image_grid_pinpoints", Value: []int32{336, 672, 672}}),
			want: "(width, height) pairs",
		},
		{
			name: "string pinpoints",
			kvs: append(mmprojKVs("clip.projector_type", "mlp", 336, 14),
				ggufwrite.KV{Key: "clip.vision.image_grid_pinpoints", Value: []string{"336x672"}}),
			want: "want 32-bit integers",
		},
		{
			name: "int64 pinpoints (llama.cpp would misread them)",
			kvs: append(mmprojKVs("clip.projector_type", "mlp", 336, 14),
				ggufwrite.KV{Key: "clip.vision.image_grid_pinpoints", Value: []int64{336, 672}}),
			want: "want 32-bit integers",
		},
		{
			name: "pixel limits inverted",
			kvs: append(mmprojKVs("clip.projector_type", "phi4", 448, 14),
				ggufwrite.KV{Key: "clip.vision.image_min_pixels", Value: uint32(1000000)},
				ggufwrite.KV{Key: "clip.vision.image_max_pixels", Value: uint32(1000)}),
			want: "is less than clip.vision.image_min_pixels",
		},
		{
			name: "version as a string",
			kvs: append(mmprojKVs("clip.projector_type", "resampler", 448, 14),
				ggufwrite.KV{Key: "clip.minicpmv_version", Value: "3"}),
			want: "clip.minicpmv_version holds a String, want an integer",
		},
		{
			name: "absurd tile count",
			kvs: append(mmprojKVs("clip.projector_type", "internvl", 448, 14),
				ggufwrite.KV{Key: "clip.vision.preproc_max_tiles", Value: uint32(1 << 20)}),
			want: "above 65536",
		},
		{
			name: "projector type of the wrong type",
			kvs: []ggufwrite.KV{{Key: "general.architecture", Value: "clip"}, {Key: "clip.projector_type", Value: uint32(3)},
				{Key: "clip.vision.projector_type", Value: "mlp"}},
			want: "clip.projector_type holds a Uint32, want a string",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeMMProj(t, "bad", tc.kvs, tc.tensors...)
			_, err := LoadProjector(path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want one naming %s and containing %q", err, path, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want errors.Is %v", err, tc.is)
			}
		})
	}
	missing := filepath.Join(t.TempDir(), "nope.gguf")
	if _, err := LoadProjector(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: err = %v", err)
	}
	garbage := filepath.Join(t.TempDir(), "garbage.gguf")
	if err := os.WriteFile(garbage, []byte("not a gguf file at all, just text"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProjector(garbage); err == nil || !strings.Contains(err.Error(), garbage) {
		t.Errorf("garbage file: err = %v", err)
	}
}
