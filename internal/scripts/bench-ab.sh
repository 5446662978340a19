#!/usr/bin/env bash
# bench-ab: replay a generated corpus (default 1 GiB) with BIN and with BASE (a git ref, default
# main, built from `git archive`) alternately, ROUNDS times each, and print each run's CPU time
# (user + sys), wall time and peak RSS, then the means and the difference. On a shared machine
# whose speed moves from one hour to the next, two builds are only compared this way: run by
# run, in the same minutes.
#   usage: bench-ab.sh BIN [BASE]      env: AB_ROUNDS (5) SCALE_BYTES SCALE_SEED SCALE_JOBS (2) SCALE_TMP
set -euo pipefail
bin="${1:?usage: bench-ab.sh BIN [BASE]}"
base="${2:-main}"
rounds="${AB_ROUNDS:-5}"
size="${SCALE_BYTES:-1073741824}"
seed="${SCALE_SEED:-1}"
jobs="${SCALE_JOBS:-2}"
tmp="$(mktemp -d "${SCALE_TMP:-${TMPDIR:-/tmp}}/strata-ab.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench-ab needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }

source "$(dirname "$0")/scale-lib.sh"
stamp
build_base "$base" "$tmp"
gen_corpus "$size" "$seed" "$tmp/corpus"
bytes="$(find "$tmp/corpus" -type f -printf '%s\n' | awk '{s += $1} END {print s}')"

for r in $(seq "$rounds"); do
  for side in base new; do
    b="$bin"
    [ "$side" = base ] && b="$tmp/base-bin"
    rm -rf "$tmp/out"
    /usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$b" replay -j "$jobs" --format csv --out "$tmp/out" "$tmp/corpus" >/dev/null
    read -r wall rss_kb user sys <"$tmp/time"
    printf '%s %s %s %s\n' "$side" "$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')" "$wall" "$((rss_kb / 1024))" >>"$tmp/runs"
    printf 'round %d %-4s CPU %5.2f s  wall %5.2f s  peak RSS %d MB\n' "$r" "$side" "$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}')" "$wall" "$((rss_kb / 1024))"
  done
done
awk -v b="$bytes" '
  { cpu[$1] += $2; wall[$1] += $3; n[$1]++ }
  END {
    for (s in n) printf "%-4s mean: CPU %.2f s, wall %.2f s = %.1f MB/s\n", s, cpu[s]/n[s], wall[s]/n[s], b/1e6/(wall[s]/n[s])
    printf "new against base: CPU %+.1f%%, wall %+.1f%%\n", 100*(cpu["new"]/n["new"]/(cpu["base"]/n["base"])-1), 100*(wall["new"]/n["new"]/(wall["base"]/n["base"])-1)
  }' "$tmp/runs"
