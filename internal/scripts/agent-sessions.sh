#!/bin/sh
# agent-sessions.sh [CACHE]: makes the real session files of corpora/testdata/agents. It installs
# each coding agent from npm at a pinned version under CACHE/agents/<package>@<version> (CACHE
# defaults to .cache at the repository root), then runs internal/testkit/agentsim once per case: the agent,
# offline, against agentsim's scripted model server and MCP server. Each case folder is replaced
# with the agent's session files (home paths rewritten to /home/user), the request bodies the
# server received, the agent's stdout and case.json. Needs npm and the npm registry; not part of
# `make test` (the outputs are committed).
set -eu
claude_version=2.1.337
codex_version=0.171.0
gemini_version=0.61.0
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:-$root/.cache}
case "$cache" in /*) ;; *) cache="$root/$cache" ;; esac
out="$root/corpora/testdata/agents"

# install PACKAGE VERSION: npm-installs PACKAGE@VERSION into its own folder (once) and prints it.
install() {
	dir="$cache/agents/$(echo "$1" | tr / +)@$2"
	if [ ! -e "$dir/.installed" ]; then
		mkdir -p "$dir"
		npm install --silent --no-audit --no-fund --prefix "$dir" "$1@$2" >&2
		touch "$dir/.installed"
	fi
	echo "$dir"
}

claude_dir=$(install @anthropic-ai/claude-code "$claude_version")
claude="$claude_dir/node_modules/.bin/claude"
# npm may skip the package's postinstall, which puts the native binary in place of bin/claude.exe.
"$claude" --version >/dev/null 2>&1 || (cd "$claude_dir/node_modules/@anthropic-ai/claude-code" && node install.cjs >&2)
codex="$(install @openai/codex "$codex_version")/node_modules/.bin/codex"
gemini="$(install @google/gemini-cli "$gemini_version")/node_modules/.bin/gemini"

sim="$cache/agents/agentsim"
(cd "$root" && go build -o "$sim" ./internal/testkit/agentsim)
# name agent extra-flags...: one case.
run() {
	name=$1
	shift
	echo "== $name" >&2
	"$sim" run -out "$out/$name" "$@"
}
run claude-code -agent claude-code -bin "$claude"
# A screenshot of 150 kB: its base64 text is over what Claude Code lets an MCP result put in
# the conversation, so Claude Code saves it under the session's tool-results/ folder.
run claude-code-spill -agent claude-code -bin "$claude" -shot-bytes 150000
# The model hands the screenshot to a sub-agent (Claude Code's Agent tool): the sub-agent's
# requests go to their own file, <session>/subagents/agent-*.jsonl.
run claude-code-subagent -agent claude-code -bin "$claude" -subagent
# A screenshot and a picture file 2560 pixels wide, over the 2000 Claude Code sends: it sends
# both resized, keeps the screenshot's original under the session's tool-results/ folder and
# records the file's original dimensions only.
run claude-code-resize -agent claude-code -bin "$claude" -shot-width 2560 -shot-bytes 22000 -file-width 2560
run codex -agent codex -bin "$codex"
run gemini-cli -agent gemini -bin "$gemini"
. "$root/internal/scripts/agent-sessions-opencode.sh"
sh "$root/internal/scripts/agent-sessions-cline.sh" "$cache" "$sim"
