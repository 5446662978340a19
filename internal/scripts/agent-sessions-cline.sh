#!/bin/sh
# agent-sessions-cline.sh CACHE SIM: makes the real session files of corpora/testdata/agents/cline
# with agentsim (built at SIM by agent-sessions.sh): it installs Cline's CLI from npm at a pinned
# version under CACHE/agents/cline@<version> and runs it once, offline. Called by agent-sessions.sh.
set -eu
cline_version=3.0.65
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=$1
sim=$2
dir="$cache/agents/cline@$cline_version"
if [ ! -e "$dir/.installed" ]; then
	mkdir -p "$dir"
	npm install --silent --no-audit --no-fund --prefix "$dir" "cline@$cline_version" >&2
	touch "$dir/.installed"
fi
echo "== cline" >&2
"$sim" run -out "$root/corpora/testdata/agents/cline" -agent cline -bin "$dir/node_modules/.bin/cline"
