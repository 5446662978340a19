#!/bin/sh
# llama-server.sh: builds the llama-server binary of the llama.cpp release that node-llama-cpp@3.22.1
# binds (the release whose libraries llama-libs.sh fetches for --engine llama), from the source that
# npm package ships (llama/gitRelease.bundle, a git bundle of the release), with the patch the
# package applies (llama/patches). CPU only, no web UI download, no OpenSSL, no tests.
#
# The same build makes the release's shared libraries (libllama, libggml*, and libmtmd, the
# multimodal library that the npm build of the libraries lacks), put beside llama-server in bin/
# with an $ORIGIN run path: `--engine llama --llama-lib <that bin/>` counts pictures through mtmd.
#
# The result goes into a cache outside the work tree, shared by every checkout:
#   ${STRATA_EVAL_CACHE:-$HOME/.cache/strata-eval}/llama-server/<release>/bin/llama-server
# The source and build folders stay next to it until the build succeeds, so a second run after an
# interruption goes on where it stopped; then only bin/ and the logs are kept (about 15 MB instead
# of 350 MB, for a CI cache), unless LLAMA_SERVER_KEEP_BUILD=1.
#
# Idempotent: prints the binary's path and does nothing else when it is already there.
# Needs npm and the npm registry, git, a C++ compiler, make and cmake (installed from Debian with
# apt-get when absent and we are root). Takes 10-40 minutes on 2 cores; LLAMA_SERVER_JOBS sets the
# parallel jobs (default 2).
set -eu
version=3.22.1
jobs=${LLAMA_SERVER_JOBS:-2}
cache=${STRATA_EVAL_CACHE:-$HOME/.cache/strata-eval}/llama-server

say() { echo "llama-server: $*" >&2; }

mkdir -p "$cache"
# the release the package binds, recorded by an earlier run: nothing to fetch when it is built
known="$cache/node-llama-cpp-$version.release"
if [ -s "$known" ] && [ -x "$cache/$(cat "$known")/bin/llama-server" ]; then
	echo "$cache/$(cat "$known")/bin/llama-server"
	exit 0
fi
pkgdir="$cache/node-llama-cpp-$version"
if [ ! -e "$pkgdir/package/llama/gitRelease.bundle" ]; then
	rm -rf "$pkgdir.partial"
	mkdir -p "$pkgdir.partial"
	(cd "$pkgdir.partial" && npm pack --silent "node-llama-cpp@$version" >/dev/null)
	tar xzf "$pkgdir.partial/node-llama-cpp-$version.tgz" -C "$pkgdir.partial" package/llama
	rm -f "$pkgdir.partial/node-llama-cpp-$version.tgz"
	rm -rf "$pkgdir"
	mv "$pkgdir.partial" "$pkgdir"
fi
llama="$pkgdir/package/llama"
# The release tag the package binds, e.g. "v0.5.0" (the same name llama-libs.sh installs).
release=$(sed -n 's/.*"release"[^"]*"\([^"]*\)".*/\1/p' "$llama/binariesGithubRelease.json")
case "$release" in
"" | */* | *..*)
	say "no release name in $llama/binariesGithubRelease.json"
	exit 1
	;;
esac
echo "$release" >"$known"
dest="$cache/$release"
bin="$dest/bin/llama-server"
if [ -x "$bin" ]; then
	rm -rf "$pkgdir"
	echo "$bin"
	exit 0
fi

if ! command -v cmake >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		say "installing cmake from Debian"
		apt-get install -y -q cmake >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q cmake >/dev/null; }
	else
		say "cmake is missing: install it (apt-get install cmake) and run again"
		exit 1
	fi
fi

src="$dest/src"
if [ ! -e "$src/CMakeLists.txt" ]; then
	rm -rf "$src"
	git clone -q "$llama/gitRelease.bundle" "$src"
	for patch in "$llama"/patches/*.diff; do
		[ -e "$patch" ] || continue
		if git -C "$src" apply --check "$patch" 2>/dev/null; then
			git -C "$src" apply "$patch"
			say "applied $(basename "$patch")"
		else
			say "$(basename "$patch") does not apply (already in the release?): skipped"
		fi
	done
fi

build="$dest/build"
say "building $release in $build with $jobs jobs (10-40 minutes on 2 cores)"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
	-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON '-DCMAKE_INSTALL_RPATH=$ORIGIN' \
	-DGGML_NATIVE=OFF -DGGML_CUDA=OFF -DGGML_VULKAN=OFF -DGGML_METAL=OFF \
	-DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF \
	-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
	-DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON >"$dest/configure.log" 2>&1 || {
	tail -n 30 "$dest/configure.log" >&2
	exit 1
}
cmake --build "$build" -j "$jobs" --target llama-server llama mtmd >"$dest/build.log" 2>&1 || {
	tail -n 30 "$dest/build.log" >&2
	exit 1
}
mkdir -p "$dest/bin.partial"
cp "$build/bin/llama-server" "$dest/bin.partial/llama-server"
# the shared libraries, with the names yzma opens (libllama.so, libggml.so, libmtmd.so, ...)
for lib in "$build"/bin/lib*.so*; do
	[ -e "$lib" ] || continue
	cp -P "$lib" "$dest/bin.partial/"
done
rm -rf "$dest/bin"
mv "$dest/bin.partial" "$dest/bin"
echo "$release" >"$dest/bin/RELEASE"
if [ "${LLAMA_SERVER_KEEP_BUILD:-0}" != 1 ]; then
	rm -rf "$src" "$build" "$pkgdir"
fi
echo "$bin"
