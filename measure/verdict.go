package measure

import (
	"fmt"

	gguf "github.com/gpustack/gguf-parser-go"
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
	arch, ok, err := rowsKVString(kvs, "general.architecture")
	if err != nil {
		return 0, fmt.Errorf("read model %s: %w", modelGGUF, err)
	}
	if !ok || arch == "" {
		return 0, fmt.Errorf("read model %s: no general.architecture key", modelGGUF)
	}
	key := arch + ".context_length"
	n, ok, err := rowsKVInt(kvs, key)
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

// rowsKVString reads a string key; ok is false when the key is absent.
func rowsKVString(kvs gguf.GGUFMetadataKVs, key string) (string, bool, error) {
	kv, found := kvs.Get(key)
	if !found {
		return "", false, nil
	}
	if kv.ValueType != gguf.GGUFMetadataValueTypeString {
		return "", false, fmt.Errorf("key %s holds a %v, want a string", key, kv.ValueType)
	}
	return kv.ValueString(), true, nil
}

// rowsKVInt reads an integer key of any integer type; ok is false when the key is
// absent. Values outside 0..2^31−1 are an error (every key read here is a size,
// a count or a version).
func rowsKVInt(kvs gguf.GGUFMetadataKVs, key string) (int, bool, error) {
	kv, found := kvs.Get(key)
	if !found {
		return 0, false, nil
	}
	var v int64
	switch kv.ValueType {
	case gguf.GGUFMetadataValueTypeUint8:
		v = int64(kv.ValueUint8())
	case gguf.GGUFMetadataValueTypeInt8:
		v = int64(kv.ValueInt8())
	case gguf.GGUFMetadataValueTypeUint16:
		v = int64(kv.ValueUint16())
	case gguf.GGUFMetadataValueTypeInt16:
		v = int64(kv.ValueInt16())
	case gguf.GGUFMetadataValueTypeUint32:
		v = int64(kv.ValueUint32())
	case gguf.GGUFMetadataValueTypeInt32:
		v = int64(kv.ValueInt32())
	case gguf.GGUFMetadataValueTypeUint64:
		u := kv.ValueUint64()
		if u > 1<<31-1 {
			return 0, false, fmt.Errorf("key %s is %d, out of range", key, u)
		}
		v = int64(u)
	case gguf.GGUFMetadataValueTypeInt64:
		v = kv.ValueInt64()
	default:
		return 0, false, fmt.Errorf("key %s holds a %v, want an integer", key, kv.ValueType)
	}
	if v < 0 || v > 1<<31-1 {
		return 0, false, fmt.Errorf("key %s is %d, out of range", key, v)
	}
	return int(v), true, nil
}
