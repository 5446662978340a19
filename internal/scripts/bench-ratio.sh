#!/usr/bin/env bash
# bench-ratio: time `strata-eval bench scan` and the plain Python lift of the source document
# (ref_lift.py bench) on the same four texts (a 2 MB picture message, 2 MB of base64 that is no
# picture, 2 MB and 20 KB of English in JSON) in one run, and print per class how many times
# faster the scan is. The Go side writes the texts (bench scan --write-payloads) and the Python
# side reads those very files. ROUNDS rounds alternate the two sides; the ratio is of the best
# times (Go: the fastest run of --count runs; Python: the fastest of its repeats).
#   usage: bench-ratio.sh BIN REF_LIFT      env: RATIO_ROUNDS (3) RATIO_COUNT (5) RATIO_REPEATS (20)
set -euo pipefail
bin="${1:?usage: bench-ratio.sh BIN REF_LIFT}"
ref="${2:?usage: bench-ratio.sh BIN REF_LIFT}"
rounds="${RATIO_ROUNDS:-3}"
count="${RATIO_COUNT:-5}"
repeats="${RATIO_REPEATS:-20}"
if [ ! -f "$ref" ]; then
  echo "bench-ratio: skipped: no Python lift at $ref (set REF_LIFT=path/to/ref_lift.py)" >&2
  exit 0
fi
command -v python3 >/dev/null || { echo "bench-ratio: skipped: no python3 on PATH" >&2; exit 0; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/strata-ratio.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

for r in $(seq "$rounds"); do
  "$bin" bench scan --count "$count" --write-payloads "$tmp/texts" --json >"$tmp/go-$r.json"
  for name in $(python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(open(sys.argv[1]))["payloads"]))' "$tmp/go-$r.json"); do
    printf '%s %s %s\n' "$r" "$name" "$(python3 "$ref" bench "$tmp/texts/$name.txt" "$repeats")" >>"$tmp/python"
  done
done

python3 - "$tmp" "$rounds" <<'PY'
import json, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
py = {}
for line in open(f"{tmp}/python"):
    r, name, ms = line.split()
    py.setdefault(name, []).append(float(ms) * 1e3)
go, rows = {}, []
for r in range(1, rounds + 1):
    for p in json.load(open(f"{tmp}/go-{r}.json"))["payloads"]:
        go.setdefault(p["name"], []).append(p["scan"]["min_ns_per_op"] / 1e3)
        if r == 1:
            rows.append((p["class"], p["name"], p["bytes"]))
print(f"{'class':<7} {'payload':<12} {'bytes':>10} {'Go µs':>9} {'Go GB/s':>8} {'Python µs':>10} {'ratio':>8}  ratio per round")
for cls, name, size in rows:
    g, p = min(go[name]), min(py[name])
    per = " ".join(f"{b / a:,.1f}" for a, b in zip(go[name], py[name]))
    print(f"{cls:<7} {name:<12} {size:>10,} {g:>9,.2f} {size / g / 1e3:>8.2f} {p:>10,.0f} {p / g:>7,.1f}×  {per}")
print(f"best of {rounds} round(s); Go: fastest of its runs (bench scan --count); Python: fastest of its repeats (ref_lift.py bench)")
PY
