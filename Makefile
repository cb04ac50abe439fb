# authbench — build, test and generate.
# `make test` is what CI runs (.ci/run): it installs what it needs first.

GO        ?= go
BIN       := bin/authbench
PKGS      := ./...
APT_PKGS  := strace clang llvm bpftool libbpf-dev gcc make git python3 bubblewrap hyperfine
export GOFLAGS := -buildvcs=false

.PHONY: all build test deps generate lint vet fmt-check fuzz bench bench-score bench-trace clean

all: build

build:
	$(GO) build -o $(BIN) ./cli/authbench

# deps installs the Debian packages the tests use (root, apt) and Go modules.
deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	$(GO) mod download

test: deps lint build
	$(GO) test -count=1 -timeout 25m $(PKGS)

lint: vet fmt-check

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '_bpfe[lb]\.go$$')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# generate rebuilds the committed eBPF objects and Go loaders (needs clang).
generate:
	$(GO) generate ./bpf/...

# fuzz runs each fuzz target for FUZZTIME (default 60s).
FUZZTIME ?= 60s
fuzz:
	$(GO) test ./policy -run '^$$' -fuzz '^FuzzParsePolicy$$' -fuzztime $(FUZZTIME)
	$(GO) test ./policy -run '^$$' -fuzz '^FuzzParseSpec$$' -fuzztime $(FUZZTIME)
	$(GO) test ./policy -run '^$$' -fuzz '^FuzzMatch$$' -fuzztime $(FUZZTIME)

bench-score:
	$(GO) test ./policy -run '^$$' -bench . -benchmem

bench: bench-score

clean:
	rm -rf bin
