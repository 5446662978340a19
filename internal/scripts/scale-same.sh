#!/usr/bin/env bash
# scale-same: the counts of a generated corpus (default 200 MB) are the same through two builds.
# It builds BASE (a git ref, default main) from `git archive` into a temporary folder, replays the
# corpus offline with BIN and with the base build (writing --out as a real run does), and
# compares the CSV on stdout and results.csv byte for byte, and the pictures' sha256, width and
# height in cases.jsonl, in order (the rest of cases.jsonl and results.json carry timings).
# Exit 0 when all are identical, 1 when any differs.
#   usage: scale-same.sh BIN [BASE]      env: SCALE_BYTES SCALE_SEED SCALE_JOBS SCALE_TMP
set -euo pipefail
bin="${1:?usage: scale-same.sh BIN [BASE]}"
base="${2:-main}"
size="${SCALE_BYTES:-200000000}"
seed="${SCALE_SEED:-1}"
jobs="${SCALE_JOBS:-2}"
tmp="$(mktemp -d "${SCALE_TMP:-${TMPDIR:-/tmp}}/strata-same.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

source "$(dirname "$0")/scale-lib.sh"
stamp
build_base "$base" "$tmp"
gen_corpus "$size" "$seed" "$tmp/corpus"

status=0
for side in base new; do
  b="$bin"
  [ "$side" = base ] && b="$tmp/base-bin"
  echo "== replaying with $side ($b), -j $jobs"
  "$b" replay -j "$jobs" --format csv --out "$tmp/out-$side" "$tmp/corpus" >"$tmp/$side.csv"
  grep -o '"sha256":"[0-9a-f]*"\|"width":[0-9]*\|"height":[0-9]*' "$tmp/out-$side/cases.jsonl" >"$tmp/$side.pictures" || true
done
for f in stdout:base.csv:new.csv results.csv:out-base/results.csv:out-new/results.csv pictures:base.pictures:new.pictures; do
  IFS=: read -r name a b <<<"$f"
  if cmp -s "$tmp/$a" "$tmp/$b"; then
    printf '%s: identical (%s lines, sha256 %s)\n' "$name" "$(wc -l <"$tmp/$a")" "$(sha256sum "$tmp/$a" | cut -c1-16)"
  else
    printf '%s: DIFFERENT\n' "$name"
    diff <(head -c 2000000 "$tmp/$a") <(head -c 2000000 "$tmp/$b") | head -20 || true
    status=1
  fi
done
exit $status
