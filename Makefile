# strata-eval — the two commands: `make run` (replay the embedded sample corpus) and `make test`.
GO        ?= go
BIN       := bin/strata-eval
CACHE     := .cache
FUZZTIME  ?= 10s
BENCHTIME ?= 1s
COUNT     ?= 1

.PHONY: all build run test test-deps llama-libs unit ci-replay bench bench-scale scale-same fuzz lint generate clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/strata-eval

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
