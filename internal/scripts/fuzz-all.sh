#!/usr/bin/env bash
# Runs every go test -fuzz target of the module for FUZZTIME each (default 10s).
set -euo pipefail
fuzztime="${FUZZTIME:-10s}"
status=0
while IFS= read -r file; do
  pkg="./$(dirname "$file")"
  for target in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(f \*testing\.F\)' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+).*/\1/'); do
    echo "== $pkg $target ($fuzztime)"
    if ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg"; then
      status=1
    fi
  done
done < <(grep -rlE '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' --include='*_test.go' . | sort)
exit $status
