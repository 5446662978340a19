#!/usr/bin/env bash
# Replays the embedded sample corpus with the built binary and checks the committed budgets.
set -euo pipefail
bin="${1:-bin/strata-eval}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$bin" replay --out "$out" --format markdown > "$out/stdout.md"
echo "replayed the sample corpus: $(grep -c '^### case' "$out/stdout.md") cases"
if "$bin" budget --help >/dev/null 2>&1 && [ -f budgets.yaml ]; then
  "$bin" budget check --budgets budgets.yaml "$out/results.json"
fi
