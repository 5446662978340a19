#!/bin/sh
# llama-libs.sh [CACHE]: puts the prebuilt llama.cpp release v0.5.0 libraries that
# github.com/hybridgroup/yzma v1.28.0 loads under CACHE/llama-libs/<package> (CACHE defaults to
# .cache at the repository root, which git ignores). They come from the npm package
# @node-llama-cpp/linux-x64@3.22.1 (CPU, about 11 MB packed), or with LLAMA_LIBS_VARIANT=cuda
# from @node-llama-cpp/linux-x64-cuda@3.22.1 (NVIDIA GPUs, about 190 MB unpacked). The package
# names its libraries libllama.v0.5.0.so and libggml.v0.5.0.so; yzma opens libllama.so and
# libggml.so, so the script adds those names as symbolic links.
#
# Idempotent: does nothing when the folder already holds libllama.so. Needs npm and the npm
# registry. Prints the folder; point strata-eval at it with --llama-lib DIR or YZMA_LIB=DIR.
set -eu
version=3.22.1
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:-$root/.cache}
case "$cache" in /*) ;; *) cache="$root/$cache" ;; esac
variant=${LLAMA_LIBS_VARIANT:-cpu}
case "$variant" in
cpu) pkg=linux-x64 ;;
cuda) pkg=linux-x64-cuda ;;
*)
	echo "llama-libs: LLAMA_LIBS_VARIANT=$variant: want cpu or cuda" >&2
	exit 2
	;;
esac
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
	echo "llama-libs: the npm packages hold Linux x86-64 libraries; on $(uname -s)-$(uname -m) build llama.cpp v0.5.0 yourself and use --llama-lib DIR" >&2
	exit 0
fi
dest="$cache/llama-libs/$pkg"
if [ -e "$dest/libllama.so" ]; then
	echo "$dest"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "@node-llama-cpp/$pkg@$version" >/dev/null)
tar xzf "$tmp/node-llama-cpp-$pkg-$version.tgz" -C "$tmp"
bins="$tmp/package/bins"
if [ ! -d "$bins" ]; then
	echo "llama-libs: @node-llama-cpp/$pkg@$version has no bins/ folder" >&2
	exit 1
fi
mkdir -p "$dest.partial"
# Every shared library of the package except the Node.js addon and its helper library,
# which yzma does not need.
find "$bins" -type f \( -name '*.so' -o -name '*.so.*' -o -name '_nlcBuildMetadata.json' \) \
	! -name 'libllama-common.so' -exec cp {} "$dest.partial/" \;
cd "$dest.partial"
for f in lib*.v*.so; do
	[ -e "$f" ] || continue
	ln -sf "$f" "${f%%.v*}.so"
done
if [ ! -e libllama.so ] || [ ! -e libggml.so ] || [ ! -e libggml-base.so ]; then
	echo "llama-libs: @node-llama-cpp/$pkg@$version lacks libllama, libggml or libggml-base" >&2
	exit 1
fi
cd "$root"
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "$dest"
