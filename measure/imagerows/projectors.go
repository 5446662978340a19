package imagerows

// The projector types of llama.cpp's clip.cpp that this package counts, in one table: a new
// type is one entry here and its rows function (with its test). What a type does is in its
// entry or its family file; internal/archtest fails on its name compared anywhere else.

// projectorType is what clip.cpp does for one projector type.
type projectorType struct {
	// defaults are its built-in token limits and merge factor (set_limit_image_tokens, the
	// default n_merge).
	defaults projectorDefaults
	// limits is how its pixel limits are set; limitsByTokens (the zero value) where clip.cpp
	// derives them from the token limits alone.
	limits limitKind
	// rows counts one picture.
	rows func(Family, PixelSize, RowOptions) (Rows, error)
	// countAs, when set, names the type an mmproj file of this type is counted as, given the
	// file ("" keeps the type).
	countAs func(projectorFile) string
	// configure, when set, reads what the type takes from an mmproj file besides the keys
	// every type reads (LoadProjector runs it once those are set).
	configure func(*Family, projectorFile) error
	// needsMRoPE is set when mtmd lays the type's rows out on an M-RoPE grid and asserts that
	// the text model uses M-RoPE positions (GGML_ASSERT in mtmd_tokenize).
	needsMRoPE bool
	// positionPeriod, when set, says the type's rows depend on the picture's prompt position
	// (RowOptions.Position) and repeat every positionPeriod positions.
	positionPeriod int
}

// projectorTypes maps each projector type name (clip.projector_type) to what clip.cpp does for
// it. It is filled by init because rows functions read the defaults back through it.
var projectorTypes map[string]projectorType

func init() {
	qwen := projectorDefaults{8, 4096, 2, keySpatialMerge}
	spatial2 := projectorDefaults{0, 0, 2, keySpatialMerge}
	scale2 := projectorDefaults{0, 0, 2, keyScaleFactor}
	fixed := func(rows func(Family, PixelSize) (Rows, error)) func(Family, PixelSize, RowOptions) (Rows, error) {
		return func(f Family, in PixelSize, _ RowOptions) (Rows, error) { return rows(f, in) }
	}
	llava := projectorType{rows: fixed(llavaRows)}
	projectorTypes = map[string]projectorType{
		// Qwen-VL and GLM-4V: dynamic resolution in merged patches.
		"qwen2vl_merger":   {defaults: qwen, rows: qwenLikeRows},
		"qwen2.5vl_merger": {defaults: qwen, rows: qwenLikeRows},
		"qwen3vl_merger":   {defaults: qwen, rows: qwenLikeRows},
		"qwen2.5o":         {rows: qwenLikeRows, countAs: func(projectorFile) string { return "qwen2.5vl_merger" }}, // the Omni file's vision part
		"glm4v":            {defaults: qwen, rows: glm4vRows},
		// Dynamic resolution with a family's own rounding (family_dynamic.go).
		"mimovl":      {defaults: spatial2, limits: limitsFile, rows: dynamicRows},
		"exaone4_5":   {defaults: spatial2, limits: limitsFile, rows: dynamicRows},
		"minimax_m3":  {defaults: projectorDefaults{8, 576, 2, keySpatialMerge}, rows: dynamicRows},
		"youtuvl":     {defaults: projectorDefaults{1, 62500, 2, keySpatialMerge}, rows: dynamicRows},
		"paddleocr":   {limits: limitsFile, rows: dynamicRows},
		"dots_ocr":    {defaults: projectorDefaults{0, 0, 0, keyScaleFactor}, limits: limitsFile, rows: dynamicRows},
		"dots3note_v": {defaults: projectorDefaults{0, 0, 0, keySpatialMerge}, limits: limitsFile, rows: dynamicRows},
		"phi4":        {limits: limitsFile, rows: dynamicRows},
		"hunyuanvl":   {defaults: projectorDefaults{256, 16384, 2, keySpatialMerge}, limits: limitsTokensThenFile, rows: dynamicRows, needsMRoPE: true},
		// Gemma: a fixed grid pooled to a fixed count, or (Gemma 4) a token budget.
		"gemma3":   {defaults: projectorDefaults{0, 0, 4, keyScaleFactor}, rows: gemmaRows},
		"gemma3nv": {rows: gemmaRows},
		"gemma4v":  {defaults: projectorDefaults{70, 1120, 3, keyScaleFactor}, rows: gemmaRows},
		"gemma4uv": {defaults: projectorDefaults{70, 1120, 3, keyScaleFactor}, rows: gemmaRows},
		// Pixtral: patches with a break token per row.
		"pixtral":    {defaults: projectorDefaults{8, 1024, 1, keySpatialMerge}, rows: pixtralRows, configure: pixtralImageBreak},
		"lightonocr": {defaults: projectorDefaults{0, 0, 1, keySpatialMerge}, limits: limitsCustomOnly, rows: lightOnOCRRows},
		// Kimi-VL.
		"kimivl":  {defaults: projectorDefaults{8, 1024, 2, keyScaleFactor}, rows: kimiRows},
		"kimik25": {defaults: projectorDefaults{2, 4096, 2, keyScaleFactor}, limits: limitsFileElseTokens, rows: kimiRows},
		// LLaVA-style: a fixed grid, some with pinpoint tiles (family_llava.go).
		"mlp":            {rows: fixed(llavaRows), countAs: llavaMLPNorm},
		"mlp_norm":       llava,
		"ldp":            llava,
		"ldpv2":          llava,
		"adapter":        {rows: fixed(llavaRows), configure: adapterBOIEOI},
		"cogvlm":         llava,
		"janus_pro":      llava,
		"yasa2":          llava,
		"nemotron_v2_vl": {defaults: scale2, rows: fixed(llavaRows)},
		// MiniCPM-V: slices of a resampler's fixed query count.
		"resampler":   {rows: fixed(miniCPMRows)},
		"minicpmv4_6": {defaults: projectorDefaults{0, 0, 4, keyScaleFactor}, rows: fixed(miniCPMV46Rows)},
		// Tiled: InternVL, Llama 4, Idefics3/SmolVLM, LFM2-VL.
		"internvl": {defaults: scale2, rows: fixed(internVLRows), configure: internVLTileDefaults},
		"llama4":   {defaults: scale2, rows: fixed(llama4Rows)},
		"idefics3": {defaults: scale2, limits: limitsCustomOnly, rows: idefics3Rows},
		"lfm2":     {defaults: projectorDefaults{64, 256, 2, keyScaleFactor}, rows: lfm2Rows},
		// Crops and windows (family_crops.go).
		"step3vl":         {defaults: projectorDefaults{0, 0, 4, keyScaleFactor}, rows: fixed(step3vlRows)},
		"deepseekocr":     {rows: fixed(deepseekOCR1Rows)},
		"deepseekocr2":    {rows: fixed(deepseekOCR2Rows)},
		"deepseek4v":      {defaults: projectorDefaults{0, 0, 0, keyScaleFactor}, limits: limitsNone, rows: deepseek4vRows, configure: deepseek4vMinPixels, positionPeriod: deepseek4vLeadPadBlock},
		"granite4_vision": {rows: fixed(graniteRows)},
		"muse-glimmer":    {defaults: projectorDefaults{1, 4096, 2, keySpatialMerge}, rows: museGlimmerRows},
	}
}

// defaultsForProjector returns the defaults of a projector type, as in clip.cpp (none for a
// type not in the table).
func defaultsForProjector(projector string) projectorDefaults {
	return projectorTypes[projector].defaults
}

// countedAs is the type an mmproj file of type projector is counted as (its entry's countAs).
func countedAs(projector string, file projectorFile) string {
	if as := projectorTypes[projector].countAs; as != nil {
		if t := as(file); t != "" {
			return t
		}
	}
	return projector
}

// configureFromFile runs the configure hook of fam's projector type, if it has one.
func configureFromFile(fam *Family, file projectorFile) error {
	if configure := projectorTypes[fam.Projector].configure; configure != nil {
		return configure(fam, file)
	}
	return nil
}

// NeedsMRoPE says whether llama.cpp's mtmd takes f's projector only with a text model of
// M-RoPE positions: it lays the rows out on an M-RoPE grid and asserts it (on the first
// picture, killing the process), so an engine refuses the pairing when it loads them.
func (f Family) NeedsMRoPE() bool {
	return f.Rule == RuleLlamaCpp && projectorTypes[f.Projector].needsMRoPE
}

// PositionPeriod says whether f's rows depend on where the picture sits in the prompt
// (RowOptions.Position): the period over which they repeat (deepseek4v: 4, its lead pads align
// the picture to a block of 4 positions), 0 when they do not depend on it.
func (f Family) PositionPeriod() int {
	if f.Rule != RuleLlamaCpp {
		return 0
	}
	return projectorTypes[f.Projector].positionPeriod
}

// readsGGUFPixelLimits says whether a projector type takes image_min/max_pixels from the GGUF.
func readsGGUFPixelLimits(projector string) bool {
	switch projectorTypes[projector].limits {
	case limitsFile, limitsFileElseTokens, limitsTokensThenFile:
		return true
	}
	return false
}
