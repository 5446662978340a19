package imagerows

// GLM-4.1V / 4.5V / 4.6V (projector glm4v): the Qwen-VL arithmetic with
// <|begin_of_image|> and <|end_of_image|>. docs/pipeline.md §10.2.

// glm4vFamilies are the named GLM-4V families.
func glm4vFamilies() []Family {
	return []Family{{
		Name: "llamacpp/glm4v", Rule: RuleLlamaCpp, Projector: "glm4v",
		PatchSize: 14, Merge: 2, MinTokens: 8, MaxTokens: 4096,
		Note: "llama.cpp (P1) f = p·m, tok-limits 8..4096, <|begin_of_image|> <|end_of_image|>",
	}}
}

// glm4vRows is llama.cpp's GLM-4V path: (P1) with f = p·m (m default 2),
// tok-limits 8..4096, rows (W'/2p)·(H'/2p), two markers.
func glm4vRows(f Family, in PixelSize, opts RowOptions) (Rows, error) {
	return mergerRows(f, in, opts, 8, 4096)
}
