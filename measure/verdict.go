// Package measure decides whether a request fits a model's context window and reads the
// context length of a model file. Its subpackages measure one thing each: tokenize counts text
// tokens, prompt renders a request with the model's chat template and counts its text,
// imagerows counts the prompt tokens a picture costs, score checks a model's answer.
package measure

import (
	"fmt"

	gguf "github.com/gpustack/gguf-parser-go"
	"github.com/strata-eval/strata-eval/internal/ggufmeta"
)

// Verdict says whether a prompt of promptTokens fits a context window of
// contextSize tokens, with the message the report shows.
//
// "Leaves no room to answer" means promptTokens >= contextSize: the model must be
// able to generate at least one token after the prompt, so a prompt that fills the
// window exactly is refused too (llama-server refuses n_prompt >= n_ctx the same
// way). The refusal reads exactly
//
//	request exceeds the context window: prompt (N tokens) leaves no room to answer in the context (C); requests are never truncated
//
// with N and C as plain integers, as in the source document's example
// "prompt (1491022 tokens) … in the context (262144)". A fitting prompt gets
// "fits: prompt (N tokens) leaves R tokens to answer in the context (C)". A
// contextSize of zero or less means the window is unknown: the prompt is reported
// as fitting, with a message that says it was not checked.
func Verdict(promptTokens, contextSize int) (fits bool, message string) {
	if contextSize <= 0 {
		return true, fmt.Sprintf("context window unknown: prompt (%d tokens) not checked", promptTokens)
	}
	if promptTokens >= contextSize {
		return false, fmt.Sprintf("request exceeds the context window: prompt (%d tokens) leaves no room to answer in the context (%d); requests are never truncated",
			promptTokens, contextSize)
	}
	room := contextSize - promptTokens
	unit := "tokens"
	if room == 1 {
		unit = "token"
	}
	return true, fmt.Sprintf("fits: prompt (%d tokens) leaves %d %s to answer in the context (%d)",
		promptTokens, room, unit, contextSize)
}

// ContextLength reads a model GGUF's trained context window, the metadata key
// "<general.architecture>.context_length".
func ContextLength(modelGGUF string) (int, error) {
	f, err := gguf.ParseGGUFFile(modelGGUF, gguf.UseMMap(), gguf.SkipLargeMetadata())
	if err != nil {
		return 0, fmt.Errorf("read model %s: %w", modelGGUF, err)
	}
	kvs := f.Header.MetadataKV
	arch, ok, err := ggufmeta.OptionalString(kvs, "general.architecture")
	if err != nil {
		return 0, fmt.Errorf("read model %s: %w", modelGGUF, err)
	}
	if !ok || arch == "" {
		return 0, fmt.Errorf("read model %s: no general.architecture key", modelGGUF)
	}
	key := arch + ".context_length"
	n, ok, err := ggufmeta.OptionalInt(kvs, key)
	if err != nil {
		return 0, fmt.Errorf("read model %s: %w", modelGGUF, err)
	}
	if !ok {
		return 0, fmt.Errorf("read model %s: no %s key", modelGGUF, key)
	}
	if n <= 0 {
		return 0, fmt.Errorf("read model %s: %s is %d", modelGGUF, key, n)
	}
	return n, nil
}
