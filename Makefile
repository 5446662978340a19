# strata-eval — the two commands: `make run` (replay the embedded sample corpus) and `make test`.
GO        ?= go
BIN       := bin/strata-eval
CACHE     := .cache
FUZZTIME  ?= 10s
BENCHTIME ?= 1s
COUNT     ?= 1

.PHONY: all build run test test-deps llama-libs llama-server test-llama-server ollama test-ollama unit ci-replay bench bench-scale bench-ab scale-same bench-hugeline fuzz lint generate clean

all: build

# The commit and its date for `strata-eval version` when the build records no VCS stamp.
LDFLAGS := -X github.com/strata-eval/strata-eval/cmd/cli.Commit=$(shell git rev-parse HEAD 2>/dev/null) \
	-X github.com/strata-eval/strata-eval/cmd/cli.BuildDate=$(shell git log -1 --format=%cI 2>/dev/null)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/strata-eval

## run: replay the embedded sample corpus offline and print the before/after tables.
run:
	$(GO) run ./cmd/strata-eval replay

## test: everything CI runs: test data, lint, unit tests, the self-check of the sample corpus.
test: test-deps lint unit ci-replay

test-deps:
	@bash internal/scripts/test-deps.sh $(CACHE)
	@sh internal/scripts/llama-libs.sh $(CACHE) >/dev/null

## llama-libs: prebuilt llama.cpp v0.5.0 libraries for --engine llama (npm @node-llama-cpp/linux-x64@3.22.1,
## about 11 MB; LLAMA_LIBS_VARIANT=cuda for the CUDA build) into $(CACHE)/llama-libs/.
llama-libs:
	@sh internal/scripts/llama-libs.sh $(CACHE)

## llama-server: builds llama.cpp's llama-server (the release node-llama-cpp@3.22.1 binds, from the
## source that npm package ships; CPU, 10-40 min on 2 cores) into
## $$HOME/.cache/strata-eval/llama-server/<release>/bin/. Not part of `make test` (docs/decisions.md).
llama-server:
	@sh internal/scripts/llama-server.sh

## test-llama-server: builds llama-server when absent, then replays the corpora against it
## with the http, offline and llama engines (the end-to-end test that `make test` skips without it).
test-llama-server: test-deps llama-server
	$(GO) test -count=1 -timeout 30m -run 'TestLiveLlamaServer' -v ./cmd/cli/

## ollama: builds Ollama v0.17.4 from its Go module (the Go module proxy) with the C++ headers of the
## llama.cpp release above (5-10 min on 2 cores) into $$HOME/.cache/strata-eval/ollama/v0.17.4/bin/.
## Not part of `make test`.
ollama:
	@sh internal/scripts/ollama.sh

## test-ollama: builds Ollama when absent, then compares its prompt counts with ours (the live tests
## that `make test` skips without it).
test-ollama: test-deps ollama
	$(GO) test -count=1 -timeout 30m -run 'Ollama' -v ./measure/ ./cmd/cli/

unit:
	$(GO) test -count=1 -timeout 20m ./...

## ci-replay: replay the sample corpus and hold its figures to the committed budgets.
ci-replay: build
	@bash internal/scripts/ci-replay.sh $(BIN)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) -count=$(COUNT) ./...

## bench-scale: replay a generated 1 GiB corpus with -j 1 and -j 2: wall time, MB/s, peak RSS.
bench-scale: build
	@bash internal/scripts/bench-scale.sh $(BIN)

## scale-same: the CSV of a generated 200 MB corpus is byte-identical through this build and BASE (default main).
BASE ?= main
scale-same: build
	@bash internal/scripts/scale-same.sh $(BIN) $(BASE)

## bench-ab: a generated 1 GiB corpus replayed with this build and BASE (default main) alternately,
## AB_ROUNDS (5) times each: CPU, wall and peak RSS of every run, the means and the difference.
bench-ab: build
	@bash internal/scripts/bench-ab.sh $(BIN) $(BASE)

## bench-hugeline: peak RSS and time of replaying one JSON line of 49 MB (a 37 MB PNG in one MCP
## result) and of 1.04 GB (a 780 MB PNG), then the same pictures as base64 in an OpenAI chat
## request log's tool text, generated in a temporary folder (BenchmarkHugeLine).
bench-hugeline:
	$(GO) test -run='^$$' -bench='^BenchmarkHugeLine$$' -benchtime=1x -count=$(COUNT) ./cmd/cli
	HUGELINE_PICTURE_BYTES=780000000 $(GO) test -run='^$$' -bench='^BenchmarkHugeLine$$' -benchtime=1x -count=$(COUNT) -timeout 30m ./cmd/cli
	HUGELINE_FORMAT=openai-chat $(GO) test -run='^$$' -bench='^BenchmarkHugeLine$$' -benchtime=1x -count=$(COUNT) ./cmd/cli
	HUGELINE_FORMAT=openai-chat HUGELINE_PICTURE_BYTES=780000000 $(GO) test -run='^$$' -bench='^BenchmarkHugeLine$$' -benchtime=1x -count=$(COUNT) -timeout 30m ./cmd/cli

fuzz:
	FUZZTIME=$(FUZZTIME) bash internal/scripts/fuzz-all.sh

lint:
	$(GO) vet ./...
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

generate:
	$(GO) generate ./...

clean:
	rm -rf bin $(CACHE)
