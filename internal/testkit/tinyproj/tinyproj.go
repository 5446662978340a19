// Package tinyproj writes, at test time, tiny projector (mmproj) GGUFs that llama.cpp's
// multimodal library (mtmd, tools/mtmd/clip.cpp of the bound release) loads: for each
// configuration, the hyperparameters that decide how many embedding rows a picture costs,
// taken from the real models' conversions (patch and image size, merge, pixel or token
// limits, pinpoints, MiniCPM-V version, preprocessing sizes), and tiny random tensors with the
// names clip.cpp's load_tensors requires for the projector type. The vision tower has no
// blocks, so the files load in milliseconds and are only good for counting (mtmd_tokenize),
// not for encoding; Config.Layers adds a complete tiny tower to the projector types that
// Tower serves (the LLaVA "mlp" projector), which clip.cpp encodes.
//
// Every weight is a width×width F32 matrix and every bias a width vector, so that the
// projector's output width (clip_n_mmproj_embd, read from one of them) equals the text
// model's width whatever tensor the type reads it from.
package tinyproj

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/strata-eval/strata-eval/internal/testkit/ggufwrite"
)

// Config is one real projector configuration.
type Config struct {
	// Name identifies the configuration, e.g. "qwen3vl" or "smolvlm2".
	Name string
	// Projector is clip.projector_type.
	Projector string
	// ImageSize and PatchSize are clip.vision.image_size and clip.vision.patch_size.
	ImageSize, PatchSize int
	// KVs are the further keys of the type (merge, limits, preprocessing sizes, …).
	KVs []ggufwrite.KV
	// Tensors are the names clip.cpp requires for the type besides the vision tower.
	Tensors []string
	// Layers, when positive, adds a complete vision tower of that many blocks (see Tower),
	// so that clip.cpp encodes pictures and llama-server takes them; 0 writes none, and the
	// projector only counts (mtmd_tokenize).
	Layers int
}

// u32 is a uint32 key.
func u32(key string, v int) ggufwrite.KV { return ggufwrite.KV{Key: key, Value: uint32(v)} }

// Keys of clip.cpp (clip-impl.h) used by the configurations.
const (
	keyScaleFactor  = "clip.vision.projector.scale_factor"
	keySpatialMerge = "clip.vision.spatial_merge_size"
	keyMinPixels    = "clip.vision.image_min_pixels"
	keyMaxPixels    = "clip.vision.image_max_pixels"
	keyPreprocSize  = "clip.vision.preproc_image_size"
	keyPinpoints    = "clip.vision.image_grid_pinpoints"
	keyMiniCPM      = "clip.minicpmv_version"
	keyWAPattern    = "clip.vision.n_wa_pattern"
	keyHeadKV       = "clip.vision.attention.head_count_kv"
	keyWindowSize   = "clip.vision.window_size"
	keyWAMode       = "clip.vision.wa_pattern_mode"
	keyWALayers     = "clip.vision.wa_layer_indexes"
	keyMinTiles     = "clip.vision.preproc_min_tiles"
	keyMaxTiles     = "clip.vision.preproc_max_tiles"
	keyExpertsUsed  = "clip.vision.expert_used_count"
)

// Tensor name groups of clip.cpp's load_tensors.
var (
	mlp02     = []string{"mm.0.weight", "mm.0.bias", "mm.2.weight", "mm.2.bias"}
	mlp12     = []string{"mm.1.weight", "mm.1.bias", "mm.2.weight", "mm.2.bias"}
	inputNorm = []string{"mm.input_norm.weight", "mm.input_norm.bias"}
	resampler = []string{
		"resampler.pos_embed_k", "resampler.query", "resampler.proj.weight", "resampler.kv.weight",
		"resampler.attn.q.weight", "resampler.attn.k.weight", "resampler.attn.v.weight",
		"resampler.attn.q.bias", "resampler.attn.k.bias", "resampler.attn.v.bias",
		"resampler.attn.out.weight", "resampler.attn.out.bias",
		"resampler.ln_q.weight", "resampler.ln_q.bias", "resampler.ln_kv.weight", "resampler.ln_kv.bias",
		"resampler.ln_post.weight", "resampler.ln_post.bias",
	}
	vitMerger = []string{
		"v.vit_merger.ln1.weight", "v.vit_merger.ln1.bias",
		"v.vit_merger.attn_q.weight", "v.vit_merger.attn_k.weight", "v.vit_merger.attn_v.weight", "v.vit_merger.attn_out.weight",
		"v.vit_merger.ds_ln.weight", "v.vit_merger.ds_ln.bias", "v.vit_merger.ds_ffn_up.weight", "v.vit_merger.ds_ffn_down.weight",
	}
	ldp = func() []string {
		out := []string{"mm.model.mlp.1.weight", "mm.model.mlp.1.bias", "mm.model.mlp.3.weight", "mm.model.mlp.3.bias"}
		for b := 1; b <= 2; b++ {
			for _, s := range []string{"0.0.weight", "0.1.weight", "0.1.bias", "1.fc1.weight", "1.fc1.bias", "1.fc2.weight", "1.fc2.bias", "2.0.weight", "2.1.weight", "2.1.bias"} {
				i := strings.IndexByte(s, '.')
				out = append(out, fmt.Sprintf("mm.model.mb_block.%d.block.%s.%s", b, s[:i], s[i+1:]))
			}
		}
		return out
	}()
)

// joined concatenates name groups.
func joined(groups ...[]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// Configs lists the configurations, at least one per vision projector type the bound
// release counts, and one per real variant where the type has several (Idefics3 and the
// SmolVLMs, the MiniCPM-V versions, LLaVA with and without pinpoints, projectors with and
// without optional pixel keys).
func Configs() []Config {
	return []Config{
		{Name: "llava-1.5", Projector: "mlp", ImageSize: 336, PatchSize: 14, Tensors: mlp02},
		{Name: "llava-1.6", Projector: "mlp", ImageSize: 336, PatchSize: 14, Tensors: mlp02,
			KVs: []ggufwrite.KV{{Key: keyPinpoints, Value: []int32{336, 672, 672, 336, 672, 672, 1008, 336, 336, 1008}}}},
		{Name: "llava-yi", Projector: "mlp", ImageSize: 336, PatchSize: 14,
			Tensors: []string{"mm.0.weight", "mm.0.bias", "mm.1.weight", "mm.1.bias", "mm.3.weight", "mm.3.bias", "mm.4.weight", "mm.4.bias"}},
		{Name: "mobilevlm", Projector: "ldp", ImageSize: 336, PatchSize: 14, Tensors: ldp},
		{Name: "mobilevlm-v2", Projector: "ldpv2", ImageSize: 336, PatchSize: 14,
			Tensors: []string{"mm.model.mlp.0.weight", "mm.model.mlp.0.bias", "mm.model.mlp.2.weight", "mm.model.mlp.2.bias", "mm.model.peg.0.weight", "mm.model.peg.0.bias"}},
		{Name: "minicpm-v-2.5", Projector: "resampler", ImageSize: 448, PatchSize: 14, Tensors: resampler,
			KVs: []ggufwrite.KV{{Key: keyMiniCPM, Value: int32(2)}}},
		{Name: "minicpm-v-2.6", Projector: "resampler", ImageSize: 448, PatchSize: 14, Tensors: resampler,
			KVs: []ggufwrite.KV{{Key: keyMiniCPM, Value: int32(3)}}},
		{Name: "minicpm-o-2.6", Projector: "resampler", ImageSize: 448, PatchSize: 14, Tensors: resampler,
			KVs: []ggufwrite.KV{{Key: keyMiniCPM, Value: int32(4)}}},
		{Name: "minicpm-v-4.0", Projector: "resampler", ImageSize: 448, PatchSize: 14, Tensors: resampler,
			KVs: []ggufwrite.KV{{Key: keyMiniCPM, Value: int32(5)}}},
		{Name: "minicpm-v-4.5", Projector: "resampler", ImageSize: 448, PatchSize: 14, Tensors: resampler,
			KVs: []ggufwrite.KV{{Key: keyMiniCPM, Value: int32(6)}}},
		{Name: "minicpm-o-4.5", Projector: "resampler", ImageSize: 448, PatchSize: 14, Tensors: resampler,
			KVs: []ggufwrite.KV{{Key: keyMiniCPM, Value: int32(100045)}}},
		{Name: "minicpm-v-4.6", Projector: "minicpmv4_6", ImageSize: 448, PatchSize: 14,
			Tensors: joined(vitMerger, []string{"mm.input_norm.weight", "mm.up.weight", "mm.down.weight"})},
		{Name: "minicpm-v-4.6-merge2", Projector: "minicpmv4_6", ImageSize: 448, PatchSize: 14,
			KVs:     []ggufwrite.KV{u32(keyScaleFactor, 2)},
			Tensors: []string{"mm.input_norm.weight", "mm.up.weight", "mm.down.weight"}},
		{Name: "glm-edge", Projector: "adapter", ImageSize: 672, PatchSize: 14,
			Tensors: []string{"adapter.conv.weight", "adapter.conv.bias", "adapter.linear.linear.weight",
				"adapter.linear.norm1.weight", "adapter.linear.norm1.bias", "adapter.linear.dense_h_to_4h.weight",
				"adapter.linear.gate.weight", "adapter.linear.dense_4h_to_h.weight", "adapter.boi", "adapter.eoi"}},
		{Name: "qwen2vl", Projector: "qwen2vl_merger", ImageSize: 560, PatchSize: 14, Tensors: mlp02},
		{Name: "qwen2.5vl", Projector: "qwen2.5vl_merger", ImageSize: 560, PatchSize: 14, Tensors: mlp02,
			KVs: []ggufwrite.KV{u32(keySpatialMerge, 2), u32(keyWAPattern, 8)}},
		{Name: "qwen2.5-omni", Projector: "qwen2.5o", ImageSize: 560, PatchSize: 14, Tensors: mlp02,
			KVs: []ggufwrite.KV{u32(keySpatialMerge, 2), u32(keyWAPattern, 8)}},
		{Name: "qwen3vl", Projector: "qwen3vl_merger", ImageSize: 768, PatchSize: 16, Tensors: mlp02,
			KVs: []ggufwrite.KV{u32(keySpatialMerge, 2)}},
		{Name: "gemma3", Projector: "gemma3", ImageSize: 896, PatchSize: 14,
			Tensors: []string{"mm.input_projection.weight", "mm.soft_emb_norm.weight"}},
		{Name: "gemma3n", Projector: "gemma3nv", ImageSize: 768, PatchSize: 3,
			Tensors: []string{"mm.input_projection.weight", "mm.soft_emb_norm.weight"}},
		{Name: "gemma4", Projector: "gemma4v", ImageSize: 224, PatchSize: 16,
			Tensors: []string{"mm.input_projection.weight"}},
		{Name: "gemma4-unified", Projector: "gemma4uv", ImageSize: 224, PatchSize: 16,
			Tensors: []string{"mm.input_projection.weight", "v.patch_norm.1.weight", "v.patch_norm.1.bias",
				"v.patch_norm.2.weight", "v.patch_norm.2.bias", "v.patch_norm.3.weight", "v.patch_norm.3.bias"}},
		{Name: "smolvlm2", Projector: "idefics3", ImageSize: 512, PatchSize: 16, Tensors: []string{"mm.model.fc.weight"},
			KVs: []ggufwrite.KV{u32(keyScaleFactor, 4), u32(keyPreprocSize, 2048)}},
		{Name: "smolvlm-2b", Projector: "idefics3", ImageSize: 384, PatchSize: 14, Tensors: []string{"mm.model.fc.weight"},
			KVs: []ggufwrite.KV{u32(keyScaleFactor, 3), u32(keyPreprocSize, 1536)}},
		{Name: "idefics3-8b", Projector: "idefics3", ImageSize: 364, PatchSize: 14, Tensors: []string{"mm.model.fc.weight"},
			KVs: []ggufwrite.KV{u32(keyScaleFactor, 2), u32(keyPreprocSize, 1456)}},
		{Name: "smolvlm2-no-preproc-size", Projector: "idefics3", ImageSize: 512, PatchSize: 16, Tensors: []string{"mm.model.fc.weight"},
			KVs: []ggufwrite.KV{u32(keyScaleFactor, 4)}},
		{Name: "pixtral-12b", Projector: "pixtral", ImageSize: 1024, PatchSize: 16,
			Tensors: []string{"mm.1.weight", "mm.2.weight", "v.token_embd.img_break"}},
		{Name: "mistral-small-3.1", Projector: "pixtral", ImageSize: 1540, PatchSize: 14,
			KVs:     []ggufwrite.KV{u32(keySpatialMerge, 2)},
			Tensors: []string{"mm.1.weight", "mm.2.weight", "v.token_embd.img_break", "mm.patch_merger.weight"}},
		{Name: "lightonocr", Projector: "lightonocr", ImageSize: 1540, PatchSize: 14,
			KVs:     []ggufwrite.KV{u32(keySpatialMerge, 2)},
			Tensors: []string{"mm.1.weight", "mm.2.weight"}},
		{Name: "internvl3", Projector: "internvl", ImageSize: 448, PatchSize: 14,
			KVs:     []ggufwrite.KV{u32(keyScaleFactor, 2)},
			Tensors: []string{"mm.model.mlp.0.weight", "mm.model.mlp.0.bias", "mm.model.mlp.1.weight", "mm.model.mlp.1.bias", "mm.model.mlp.3.weight", "mm.model.mlp.3.bias"}},
		{Name: "internvl3.5-tiles", Projector: "internvl", ImageSize: 448, PatchSize: 14,
			KVs:     []ggufwrite.KV{u32(keyScaleFactor, 2), u32(keyMinTiles, 1), u32(keyMaxTiles, 6)},
			Tensors: []string{"mm.model.mlp.0.weight", "mm.model.mlp.0.bias", "mm.model.mlp.1.weight", "mm.model.mlp.1.bias", "mm.model.mlp.3.weight", "mm.model.mlp.3.bias"}},
		{Name: "nemotron-nano-vl", Projector: "nemotron_v2_vl", ImageSize: 512, PatchSize: 16,
			KVs:     []ggufwrite.KV{u32(keyScaleFactor, 2)},
			Tensors: []string{"mm.model.mlp.0.weight", "mm.model.mlp.1.weight", "mm.model.mlp.3.weight"}},
		{Name: "llama4", Projector: "llama4", ImageSize: 336, PatchSize: 14,
			KVs:     []ggufwrite.KV{u32(keyScaleFactor, 2)},
			Tensors: []string{"mm.model.fc.weight", "mm.model.mlp.1.weight", "mm.model.mlp.2.weight"}},
		{Name: "lfm2-vl", Projector: "lfm2", ImageSize: 256, PatchSize: 16, Tensors: mlp12,
			KVs: []ggufwrite.KV{u32(keyScaleFactor, 2)}},
		{Name: "kimi-vl", Projector: "kimivl", ImageSize: 448, PatchSize: 14, Tensors: joined(inputNorm, mlp12),
			KVs: []ggufwrite.KV{u32(keyScaleFactor, 2)}},
		{Name: "kimi-k2.5", Projector: "kimik25", ImageSize: 448, PatchSize: 14, Tensors: joined(inputNorm, mlp12),
			KVs: []ggufwrite.KV{u32(keyScaleFactor, 2)}},
		{Name: "kimi-k2.5-pixels", Projector: "kimik25", ImageSize: 448, PatchSize: 14, Tensors: joined(inputNorm, mlp12),
			KVs: []ggufwrite.KV{u32(keyScaleFactor, 2), u32(keyMinPixels, 3136), u32(keyMaxPixels, 1605632)}},
		{Name: "paddleocr-vl", Projector: "paddleocr", ImageSize: 384, PatchSize: 14, Tensors: joined(inputNorm, mlp12),
			KVs: []ggufwrite.KV{u32(keyMinPixels, 147384), u32(keyMaxPixels, 2822400)}},
		{Name: "yasa", Projector: "yasa2", ImageSize: 512, PatchSize: 16,
			Tensors: []string{"v.patch_embd.weight", "mm.0.weight", "mm.2.weight"}},
		{Name: "cogvlm", Projector: "cogvlm", ImageSize: 490, PatchSize: 14,
			Tensors: []string{"mm.model.fc.weight", "mm.post_fc_norm.weight", "mm.post_fc_norm.bias", "mm.up.weight", "mm.gate.weight", "mm.down.weight", "v.boi", "v.eoi"}},
		{Name: "janus-pro", Projector: "janus_pro", ImageSize: 384, PatchSize: 16,
			Tensors: []string{"mm.0.weight", "mm.0.bias", "mm.1.weight", "mm.1.bias"}},
		{Name: "phi4-mm", Projector: "phi4", ImageSize: 448, PatchSize: 14, Tensors: mlp02,
			KVs: []ggufwrite.KV{u32(keyMinPixels, 50176), u32(keyMaxPixels, 1003520)}},
		{Name: "dots.ocr", Projector: "dots_ocr", ImageSize: 1024, PatchSize: 14,
			Tensors: joined(mlp02, inputNorm, []string{"mm.post_norm.weight"}),
			KVs:     []ggufwrite.KV{u32(keyScaleFactor, 2), u32(keyMinPixels, 3136), u32(keyMaxPixels, 11289600)}},
		{Name: "dots3-note", Projector: "dots3note_v", ImageSize: 1024, PatchSize: 14,
			Tensors: joined(mlp02, inputNorm, []string{"mm.post_norm.weight"}),
			KVs: []ggufwrite.KV{u32(keySpatialMerge, 2), u32(keyMinPixels, 3136), u32(keyMaxPixels, 11289600),
				u32(keyExpertsUsed, 2)}},
		{Name: "glm-4.1v", Projector: "glm4v", ImageSize: 336, PatchSize: 14,
			KVs: []ggufwrite.KV{u32(keySpatialMerge, 2)},
			Tensors: []string{"mm.model.fc.weight", "mm.up.weight", "mm.gate.weight", "mm.down.weight",
				"mm.post_norm.weight", "mm.patch_merger.weight", "mm.patch_merger.bias"}},
		{Name: "hunyuanocr", Projector: "hunyuanvl", ImageSize: 512, PatchSize: 16, Tensors: hunyuan,
			KVs: []ggufwrite.KV{u32(keySpatialMerge, 2)}},
		{Name: "hunyuanocr-pixels", Projector: "hunyuanvl", ImageSize: 512, PatchSize: 16, Tensors: hunyuan,
			KVs: []ggufwrite.KV{u32(keySpatialMerge, 2), u32(keyMinPixels, 262144), u32(keyMaxPixels, 4194304)}},
		{Name: "exaone-4.5", Projector: "exaone4_5", ImageSize: 560, PatchSize: 14, Tensors: mlp02,
			KVs: []ggufwrite.KV{u32(keySpatialMerge, 2), u32(keyHeadKV, 1), u32(keyMinPixels, 3136), u32(keyMaxPixels, 3211264)}},
		{Name: "mimo-vl", Projector: "mimovl", ImageSize: 560, PatchSize: 14,
			Tensors: []string{"mm.0.weight", "mm.2.weight"},
			KVs: []ggufwrite.KV{u32(keySpatialMerge, 2), u32(keyHeadKV, 1), u32(keyWindowSize, 64),
				{Key: keyWAMode, Value: []int32{}}, u32(keyMinPixels, 3136), u32(keyMaxPixels, 3211264)}},
		{Name: "minimax-m3", Projector: "minimax_m3", ImageSize: 672, PatchSize: 14,
			KVs:     []ggufwrite.KV{u32(keySpatialMerge, 2)},
			Tensors: joined(mlp12, []string{"mm.merger.fc1.weight", "mm.merger.fc1.bias", "mm.merger.fc2.weight", "mm.merger.fc2.bias"})},
		{Name: "step3-vl", Projector: "step3vl", ImageSize: 728, PatchSize: 14,
			Tensors: []string{"mm.0.weight", "mm.1.weight", "mm.model.fc.weight"}},
		{Name: "muse-glimmer", Projector: "muse-glimmer", ImageSize: 512, PatchSize: 16,
			KVs:     []ggufwrite.KV{u32(keySpatialMerge, 2)},
			Tensors: []string{"mm.0.weight", "mm.1.weight", "mm.2.weight"}},
		{Name: "deepseek-v4-vision", Projector: "deepseek4v", ImageSize: 448, PatchSize: 14,
			KVs: []ggufwrite.KV{u32(keyScaleFactor, 2), u32(keyMinPixels, 50176)},
			Tensors: joined(mlp12, []string{"v.image_newline", "v.token_embd.img_start", "v.token_embd.img_end",
				"v.token_embd.img_pad"})},
		{Name: "deepseek-ocr", Projector: "deepseekocr", ImageSize: 1024, PatchSize: 16, Tensors: deepseekOCR, KVs: sam},
		{Name: "deepseek-ocr-2", Projector: "deepseekocr2", ImageSize: 1024, PatchSize: 16, Tensors: deepseekOCR,
			KVs: append([]ggufwrite.KV{u32(keyHeadKV, 1)}, sam...)},
		{Name: "granite-4-vision", Projector: "granite4_vision", ImageSize: 384, PatchSize: 16, Tensors: granite,
			KVs: []ggufwrite.KV{
				{Key: "clip.vision.feature_layer", Value: []int32{0}},
				{Key: "clip.vision.projector.spatial_offsets", Value: []int32{0}},
				u32("clip.vision.projector.query_side", 4), u32("clip.vision.projector.window_side", 8),
				{Key: keyPinpoints, Value: []int32{384, 768, 768, 384, 768, 768, 1152, 384, 384, 1152, 1152, 768, 768, 1152, 1152, 1152}},
			}},
		{Name: "youtu-vl", Projector: "youtuvl", ImageSize: 560, PatchSize: 16,
			KVs:     []ggufwrite.KV{u32(keySpatialMerge, 2), u32(keyWindowSize, 112), {Key: keyWALayers, Value: []int32{}}},
			Tensors: joined([]string{"mm.input_norm.weight"}, mlp02)},
	}
}

// Markers are the marker texts mtmd puts around and between the embeddings of the projector
// types of Configs, for the tiny text model's vocabulary (tinymodel.Options.ExtraTokens), so
// that each counts one token, as in the real models' vocabularies (the Qwen3 vocabulary has
// <|vision_start|>, <|vision_end|>, <|im_start|>, <|im_end|>, "\n" and "\n\n" already).
func Markers() []string {
	out := []string{
		"<image>", "</image>", "<slice>", "</slice>", "<fake_token_around_image>", "<global-img>",
		"<|img_thumbnail|>", "<|image>", "<image|>", "[IMG_END]", "<|image_start|>", "<|image_end|>",
		"<img>", "</img>", "<|media_start|>", "<|media_end|>", "<|media_begin|>", "<|begin_of_image|>", "<|end_of_image|>",
		"<|IMAGE_START|>", "<|IMAGE_END|>", "<vision>", "</vision>", "<|img|>", "<|endofimg|>",
		"<start_of_image>", "<end_of_image>", "<｜hy_place▁holder▁no▁100｜>", "<｜hy_place▁holder▁no▁101｜>",
		"]<]start of image[>[", "]<]end of image[>[",
	}
	for r := 1; r <= 24; r++ {
		for c := 1; c <= 24; c++ {
			out = append(out, fmt.Sprintf("<row_%d_col_%d>", r, c), fmt.Sprintf("<|img_row_%d_col_%d|>", r, c))
		}
	}
	return out
}

// sam are DeepSeek-OCR's SAM keys (no SAM blocks).
var sam = []ggufwrite.KV{u32("clip.vision.sam.block_count", 0), u32("clip.vision.sam.head_count", 1),
	u32("clip.vision.sam.embedding_length", Width), u32(keyWindowSize, 14)}

// deepseekOCR are DeepSeek-OCR's tensors besides the SAM blocks.
var deepseekOCR = []string{"v.sam.pos_embd.weight", "v.sam.patch_embd.weight", "v.sam.patch_embd.bias",
	"v.sam.neck.0.weight", "v.sam.neck.1.bias", "v.sam.neck.1.weight", "v.sam.neck.2.weight", "v.sam.neck.3.bias",
	"v.sam.neck.3.weight", "v.sam.net_2.weight", "v.sam.net_3.weight", "v.view_seperator", "mm.model.fc.weight", "mm.model.fc.bias"}

// granite are Granite 4 vision's tensors of one projector block.
var granite = func() []string {
	out := []string{"v.image_newline", "v.proj_blk.0.img_pos", "v.proj_blk.0.query"}
	for _, n := range []string{"linear", "norm", "post_norm", "self_attn_q", "self_attn_k", "self_attn_v", "self_attn_out",
		"self_attn_norm", "cross_attn_q", "cross_attn_k", "cross_attn_v", "cross_attn_out", "cross_attn_norm",
		"ffn_up", "ffn_down", "ffn_norm"} {
		out = append(out, "v.proj_blk.0."+n+".weight", "v.proj_blk.0."+n+".bias")
	}
	return out
}()

// hunyuan are HunyuanVL's tensors.
var hunyuan = joined(mlp02, []string{"mm.model.fc.weight", "mm.model.fc.bias", "mm.pre_norm.weight",
	"mm.post_norm.weight", "mm.image_begin", "mm.image_end", "v.image_newline"})

// Width is the projector output width the configurations are written with by default: the
// tiny text model's (internal/testkit/tinymodel).
const Width = 64

// Write writes configuration c as an mmproj GGUF whose output width is width, with tensors
// drawn from seed.
func Write(path string, c Config, width int, seed uint64) error {
	kvs, tensors, err := Build(c, width, seed)
	if err != nil {
		return err
	}
	return ggufwrite.WriteFile(path, kvs, tensors)
}

// Build returns the metadata and tensors of configuration c.
func Build(c Config, width int, seed uint64) ([]ggufwrite.KV, []ggufwrite.Tensor, error) {
	if c.Projector == "" || c.ImageSize <= 0 || c.PatchSize <= 0 || width <= 0 {
		return nil, nil, fmt.Errorf("tiny projector %q: projector type, image size, patch size and width must be set", c.Name)
	}
	kvs := []ggufwrite.KV{
		{Key: "general.architecture", Value: "clip"},
		{Key: "general.name", Value: "strata-eval tiny projector " + c.Name + " (random weights)"},
		{Key: "clip.has_vision_encoder", Value: true},
		{Key: "clip.projector_type", Value: c.Projector},
		u32("clip.vision.image_size", c.ImageSize),
		u32("clip.vision.patch_size", c.PatchSize),
		u32("clip.vision.embedding_length", width),
		u32("clip.vision.feed_forward_length", width),
		u32("clip.vision.projection_dim", width),
		u32("clip.vision.block_count", c.Layers),
		u32("clip.vision.attention.head_count", 1),
		{Key: "clip.vision.attention.layer_norm_epsilon", Value: float32(1e-6)},
		{Key: "clip.vision.image_mean", Value: []float32{0.5, 0.5, 0.5}},
		{Key: "clip.vision.image_std", Value: []float32{0.5, 0.5, 0.5}},
	}
	kvs = append(kvs, c.KVs...)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	values := func(n int) []byte {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64()) * 0.02
		}
		return ggufwrite.F32Bytes(v...)
	}
	ones := func(n int) []byte {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1
		}
		return ggufwrite.F32Bytes(v...)
	}
	tensors := make([]ggufwrite.Tensor, 0, len(c.Tensors))
	seen := map[string]bool{}
	add := func(name string, dims ...uint64) error {
		if seen[name] {
			return fmt.Errorf("tiny projector %q: tensor %s listed twice", c.Name, name)
		}
		seen[name] = true
		n := uint64(1)
		for _, d := range dims {
			n *= d
		}
		data := values(int(n))
		if isNorm(name) && strings.HasSuffix(name, ".weight") {
			data = ones(int(n)) // a norm's scale: 1, as a trained one roughly is
		}
		tensors = append(tensors, ggufwrite.Tensor{Name: name, Dims: dims, Type: ggufwrite.F32, Data: data})
		return nil
	}
	w := uint64(width)
	for _, name := range c.Tensors {
		dims := []uint64{w, w}
		if strings.HasSuffix(name, ".bias") {
			dims = []uint64{w}
		}
		if err := add(name, dims...); err != nil {
			return nil, nil, err
		}
	}
	if c.Layers > 0 {
		tower, err := Tower(c, width)
		if err != nil {
			return nil, nil, err
		}
		for _, t := range tower {
			if err := add(t.Name, t.Dims...); err != nil {
				return nil, nil, err
			}
		}
	}
	return kvs, tensors, nil
}

// TowerTensor is a tensor of the vision tower: its name and its dimensions (ggml's order,
// the innermost first).
type TowerTensor struct {
	Name string
	Dims []uint64
}

// Tower lists the tensors of c's complete vision tower of c.Layers blocks at the given width
// (embedding, feed-forward and one attention head all of that width): CLIP's ViT as clip.cpp's
// LLaVA graph runs it, a patch embedding (a patch×patch convolution of the three colour
// channels), a class embedding, a position embedding for every patch and the class, a
// pre-norm, and per block the attention (q, k, v, out), two norms and the feed-forward (up,
// down), each with its bias. Only the "mlp" projector type is served: other types run other
// graphs.
func Tower(c Config, width int) ([]TowerTensor, error) {
	if c.Projector != "mlp" {
		return nil, fmt.Errorf("tiny projector %q: a vision tower is written for the mlp projector type only, not %s", c.Name, c.Projector)
	}
	if c.ImageSize%c.PatchSize != 0 {
		return nil, fmt.Errorf("tiny projector %q: image size %d is not a multiple of patch size %d", c.Name, c.ImageSize, c.PatchSize)
	}
	w, p := uint64(width), uint64(c.PatchSize)
	side := uint64(c.ImageSize / c.PatchSize)
	out := []TowerTensor{
		{"v.patch_embd.weight", []uint64{p, p, 3, w}},
		{"v.class_embd", []uint64{w}},
		{"v.position_embd.weight", []uint64{w, side*side + 1}},
		{"v.pre_ln.weight", []uint64{w}},
		{"v.pre_ln.bias", []uint64{w}},
	}
	for b := 0; b < c.Layers; b++ {
		for _, n := range []string{"attn_q", "attn_k", "attn_v", "attn_out", "ffn_up", "ffn_down"} {
			out = append(out, TowerTensor{fmt.Sprintf("v.blk.%d.%s.weight", b, n), []uint64{w, w}},
				TowerTensor{fmt.Sprintf("v.blk.%d.%s.bias", b, n), []uint64{w}})
		}
		for _, n := range []string{"ln1", "ln2"} {
			out = append(out, TowerTensor{fmt.Sprintf("v.blk.%d.%s.weight", b, n), []uint64{w}},
				TowerTensor{fmt.Sprintf("v.blk.%d.%s.bias", b, n), []uint64{w}})
		}
	}
	return out, nil
}

// isNorm says whether a tensor name is a normalisation's.
func isNorm(name string) bool {
	for _, n := range []string{"_ln.", ".ln1.", ".ln2.", "norm"} {
		if strings.Contains(name, n) {
			return true
		}
	}
	return false
}

// ByName returns the configuration of Configs named name.
func ByName(name string) (Config, bool) {
	for _, c := range Configs() {
		if c.Name == name {
			return c, true
		}
	}
	return Config{}, false
}

// WriteNamed writes the configuration of Configs named name as an mmproj GGUF of the default
// width into dir, and returns its path.
func WriteNamed(dir, name string) (string, error) {
	c, ok := ByName(name)
	if !ok {
		return "", fmt.Errorf("no tiny projector configuration %q", name)
	}
	path := filepath.Join(dir, name+".gguf")
	return path, Write(path, c, Width, 1)
}
