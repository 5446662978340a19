# scale-lib: what the scale scripts (bench-scale, bench-ab, scale-same) share; sourced, not run.

# stamp prints the time and the load average: on a shared machine a binary's speed moves with them.
stamp() {
  echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
}

# build_base REF DIR builds strata-eval at the git ref REF (from `git archive`) as DIR/base-bin.
build_base() {
  echo "== building $1"
  mkdir -p "$2/src"
  git archive "$1" | tar -x -C "$2/src"
  (cd "$2/src" && go build -o "$2/base-bin" ./cmd/strata-eval)
}

# gen_corpus BYTES SEED DIR generates a corpus of about BYTES bytes into DIR.
gen_corpus() {
  echo "== generating $1 bytes (seed $2) in $3"
  go run ./internal/testkit/gencorpus/cmd/gencorpus -out "$3" -bytes "$1" -seed "$2" >/dev/null
}
