#!/usr/bin/env bash
# Regenerates every expected figure that the sample corpus ripples into, so that adding a sample
# is one command: the corpus itself (internal/testkit/gensamples), the exact figures of budgets.yaml, the
# golden files of cmd/cli, the budget examples of docs/budgets.md and `budget check --help`, and
# the console blocks of README.md and docs/. Review the diff it prints.
set -euo pipefail
go="${GO:-go}"
echo "== the sample corpus (go generate ./corpora/)"
"$go" generate ./corpora/
# TestBudgetCheckGolden rewrites budgets.yaml before TestBudgetExamplesShowTheBudgetsFile (later
# in the same file) copies its figures into docs/budgets.md and budget check --help.
echo "== budgets.yaml, the golden files, the budget examples of docs/budgets.md and --help (go test ./cmd/cli -update)"
"$go" test -count=1 ./cmd/cli -run '^(Test[A-Za-z]*Golden|TestBudgetExamplesShowTheBudgetsFile)$' -update
echo "== the console blocks of README.md and docs/ (STRATA_EVAL_UPDATE_DOCS=1)"
STRATA_EVAL_UPDATE_DOCS=1 "$go" test -count=1 ./cmd/cli -run '^TestREADMECommands$'
echo "== what changed"
git diff --stat -- budgets.yaml README.md docs cmd/cli/testdata corpora/samples
