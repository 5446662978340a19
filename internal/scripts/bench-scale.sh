#!/usr/bin/env bash
# bench-scale: generate a synthetic corpus (default 1 GiB) into a temporary folder, replay it
# offline with -j 1 and -j 2 (writing --out as a real run does) and report wall time, throughput,
# CPU time (user + sys, in all and per GB: the figure that holds on a shared machine) and peak
# RSS. Limits: peak RSS ≤ SCALE_MAX_RSS_MB (512), throughput ≥ SCALE_MIN_MBPS (100); a miss is
# reported, and fails the target only with SCALE_ENFORCE=1.
#   usage: bench-scale.sh BIN      env: SCALE_BYTES SCALE_SEED SCALE_JOBS SCALE_TMP
set -euo pipefail
bin="${1:?usage: bench-scale.sh BIN}"
size="${SCALE_BYTES:-1073741824}"
seed="${SCALE_SEED:-1}"
jobs="${SCALE_JOBS:-1 2}"
max_rss_mb="${SCALE_MAX_RSS_MB:-512}"
min_mbps="${SCALE_MIN_MBPS:-100}"
tmp="$(mktemp -d "${SCALE_TMP:-${TMPDIR:-/tmp}}/strata-scale.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

source "$(dirname "$0")/scale-lib.sh"
stamp
gen_corpus "$size" "$seed" "$tmp/corpus"
bytes="$(find "$tmp/corpus" -type f -printf '%s\n' | awk '{s += $1} END {print s}')"

status=0
for j in $jobs; do
  rm -rf "$tmp/out"
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$bin" replay -j "$j" --format csv --out "$tmp/out" "$tmp/corpus" >/dev/null
    read -r wall rss_kb user sys <"$tmp/time"
    cpu="$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.1f", u+s}')"
    cpu_gb="$(awk -v u="$user" -v s="$sys" -v b="$bytes" 'BEGIN{printf "%.2f", (u+s)/(b/1e9)}')"
  else
    start="$(date +%s.%N)"
    "$bin" replay -j "$j" --format csv --out "$tmp/out" "$tmp/corpus" >/dev/null
    wall="$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.2f", e-s}')"
    rss_kb=0
    cpu="?"
    cpu_gb="?"
  fi
  cases="$(wc -l <"$tmp/out/cases.jsonl")"
  mbps="$(awk -v b="$bytes" -v w="$wall" 'BEGIN{printf "%.1f", b/1e6/w}')"
  rss_mb=$((rss_kb / 1024))
  misses=()
  if [ "$rss_kb" -gt 0 ] && [ "$rss_mb" -gt "$max_rss_mb" ]; then misses+=("peak RSS over ${max_rss_mb} MB"); fi
  if awk -v m="$mbps" -v l="$min_mbps" 'BEGIN{exit !(m < l)}'; then misses+=("throughput under ${min_mbps} MB/s"); fi
  verdict=ok
  if [ "${#misses[@]}" -gt 0 ]; then verdict="$(IFS=';'; echo "${misses[*]}")"; fi
  # CPU time (user + sys) is the steady figure on a shared machine; wall time follows the load.
  printf -- '-j %s: %s bytes, %s cases in %s s = %s MB/s, CPU %s s (%s s/GB), peak RSS %s MB (%s)\n' "$j" "$bytes" "$cases" "$wall" "$mbps" "$cpu" "$cpu_gb" "$rss_mb" "$verdict"
  [ "$verdict" = ok ] || status=1
done
if [ "${SCALE_ENFORCE:-0}" = 1 ]; then exit $status; fi
