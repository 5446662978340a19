#!/usr/bin/env bash
# bench-agent-session: for each coding agent's format, generate one session file (default
# 1 GiB: turns with screenshots, a compaction every 8 turns, two huge lines carrying a 100 MB
# PNG's base64 in a tool's text, as many as carry the bytes for Cline, which records no
# compaction; gencorpus.AgentSession) into a temporary folder and replay it
# offline (--out written, as a real run): wall time, MB/s, CPU time and peak RSS. Limit: peak
# RSS ≤ SCALE_MAX_RSS_MB (512); a miss is reported, and fails the target only with SCALE_ENFORCE=1.
#   usage: bench-agent-session.sh BIN   env: AGENT_BYTES AGENT_HUGE_BYTES AGENT_HUGE_LINES AGENT_FORMATS SCALE_JOBS SCALE_TMP
set -euo pipefail
bin="${1:?usage: bench-agent-session.sh BIN}"
size="${AGENT_BYTES:-1073741824}"
huge="${AGENT_HUGE_BYTES:-100000000}"
formats="${AGENT_FORMATS:-claude-code codex gemini-cli opencode cline}"
lines="${AGENT_HUGE_LINES:-0}"
jobs="${SCALE_JOBS:-2}"
max_rss_mb="${SCALE_MAX_RSS_MB:-512}"
tmp="$(mktemp -d "${SCALE_TMP:-${TMPDIR:-/tmp}}/strata-agent.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

source "$(dirname "$0")/scale-lib.sh"
stamp
go build -o "$tmp/agentsession" ./internal/testkit/gencorpus/cmd/agentsession
status=0
for f in $formats; do
  file="$("$tmp/agentsession" -format "$f" -out "$tmp/$f" -bytes "$size" -huge-lines "$lines" -huge-bytes "$huge")"
  bytes="$(stat -c %s "$file")"
  longest="$(LC_ALL=C wc -L <"$file")"
  rm -rf "$tmp/out"
  rc=0
  /usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$bin" replay -j "$jobs" --no-timings --format csv --out "$tmp/out" "$file" >/dev/null 2>"$tmp/stderr" || rc=$?
  read -r wall rss_kb user sys <"$tmp/time"
  cases="$(wc -l <"$tmp/out/cases.jsonl")"
  mbps="$(awk -v b="$bytes" -v w="$wall" 'BEGIN{printf "%.1f", b/1e6/w}')"
  cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.1f", u+s}')"
  rss_mb=$((rss_kb / 1024))
  verdict=ok
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then verdict="exit $rc: $(tail -3 "$tmp/stderr")"; fi
  if [ "$rss_mb" -gt "$max_rss_mb" ]; then verdict="peak RSS over ${max_rss_mb} MB"; fi
  printf -- '%s -j %s: %s bytes (longest line %s), %s cases in %s s = %s MB/s, CPU %s s, peak RSS %s MB, exit %s (%s)\n' \
    "$f" "$jobs" "$bytes" "$longest" "$cases" "$wall" "$mbps" "$cpu" "$rss_mb" "$rc" "$verdict"
  [ "$verdict" = ok ] || status=1
  rm -rf "$tmp/$f"
done
if [ "${SCALE_ENFORCE:-0}" = 1 ]; then exit $status; fi
