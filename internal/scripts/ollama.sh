#!/bin/sh
# ollama.sh: builds Ollama v0.17.4 (the release the live Ollama test is written against) from its
# own Go module through the Go module proxy, into a cache outside the work tree shared by every
# checkout:
#   ${STRATA_EVAL_CACHE:-$HOME/.cache/strata-eval}/ollama/v0.17.4/bin/ollama
# Go module archives leave out every folder named vendor/, so the C++ headers Ollama's own copy of
# llama.cpp includes (nlohmann/json_fwd.hpp, miniaudio/miniaudio.h) are missing from the module;
# they come from the vendor/ folder of the llama.cpp release node-llama-cpp@3.22.1 binds (the
# source `make llama-server` builds), through CGO_CPPFLAGS and CGO_CXXFLAGS.
#
# Idempotent: prints the binary's path and does nothing else when it is already there.
# Needs Go, a C/C++ compiler, npm and git. About 5-10 minutes on 2 cores, a 57 MB binary.
set -eu
version=v0.17.4
llama=3.22.1
cache=${STRATA_EVAL_CACHE:-$HOME/.cache/strata-eval}
dest="$cache/ollama/$version"
bin="$dest/bin/ollama"

say() { echo "ollama: $*" >&2; }

if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$dest"
headers="$dest/llama-vendor"
if [ ! -e "$headers/nlohmann/json_fwd.hpp" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	say "the C++ headers from the llama.cpp release of node-llama-cpp@$llama"
	(cd "$tmp" && npm pack --silent "node-llama-cpp@$llama" >/dev/null)
	tar xzf "$tmp/node-llama-cpp-$llama.tgz" -C "$tmp" package/llama/gitRelease.bundle
	git clone -q --no-checkout "$tmp/package/llama/gitRelease.bundle" "$tmp/src"
	git -C "$tmp/src" checkout -q HEAD -- vendor
	rm -rf "$headers"
	mv "$tmp/src/vendor" "$headers"
fi
say "building $version from the Go module proxy (5-10 minutes on 2 cores)"
mkdir -p "$dest/bin.partial"
GOFLAGS=-mod=mod GOBIN="$dest/bin.partial" CGO_ENABLED=1 \
	CGO_CPPFLAGS="-I$headers" CGO_CXXFLAGS="-I$headers" \
	go install "github.com/ollama/ollama@$version" >"$dest/build.log" 2>&1 || {
	tail -n 30 "$dest/build.log" >&2
	exit 1
}
rm -rf "$dest/bin"
mv "$dest/bin.partial" "$dest/bin"
echo "$bin"
