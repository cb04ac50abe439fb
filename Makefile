# authbench — build, test and generate.
# `make test` is what CI runs (.ci/run): it installs what it needs first.

GO        ?= go
# The thin front (cli/front): exec, score (over a root) and --version itself, every other
# command by exec of the full CLI, found next to it.
BIN       := bin/authbench
FULL_BIN  := bin/authbench-full
# The small sandbox-init program, found next to $(BIN) (sandbox.InitProgram).
INIT_BIN  := bin/authbench-sandbox-init
PKGS      := ./...
APT_PKGS  := strace time clang llvm bpftool libbpf-dev gcc make git python3 bubblewrap hyperfine runc buildah debootstrap chromium docker-registry jq slurm-wlm munge
export GOFLAGS := -buildvcs=false
# A static binary: it is bind-mounted into task rootfs, and libcap's psx
# (Landlock on all threads) only works without cgo inside a PID namespace.
export CGO_ENABLED := 0

.PHONY: cross all build install demo bench-bench test deps generate lint vet fmt-check fuzz bench bench-score bench-trace bench-seccomp bench-exec test-escape test-race test-slurm test-harnesses bench-env bench-oracle bench-netproxy record-agreement clean

all: build

build:
	$(GO) build -o $(BIN) ./cli/authbench
	$(GO) build -o $(FULL_BIN) ./cli/authbench-full
	$(GO) build -o $(INIT_BIN) ./cli/authbench-sandbox-init

# deps installs the Debian packages the tests use (root, apt) and Go modules.
deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	$(GO) mod download

test: deps lint build test-escape
	$(GO) test -count=1 -timeout 25m $(PKGS)
	$(MAKE) test-race
	$(MAKE) test-slurm SLURM_OUT=$$(mktemp -d /tmp/authbench-slurm.XXXXXX)

# test-escape runs the sandbox escape suite and the daemon's trust-boundary
# checks (root, Landlock ABI >= 6) and prints one line per technique and a
# summary: blocked, detected or escaped; held or broken.
test-escape:
	@GO=$(GO) bash scripts/test-escape.sh

# test-harnesses runs every installed harness's end-to-end test (the
# default run has pi and OpenClaw): the published OpenClaw pin, Qwen Code,
# opencode, Claude Code and Codex too (AUTHBENCH_TEST_HARNESSES=claude-code,codex
# selects some). Their layers are npm installs, built once into the test
# cache (about 4 minutes each on a fresh machine; Claude Code's and
# Codex's, ~500 MB each, about a minute here).
test-harnesses: build
	AUTHBENCH_TEST_HARNESSES=all CI=$(CI) $(GO) test -count=1 -timeout 60m -run '^TestInstalled' -v ./taskrun

# test-race runs, under the race detector, the tests of the packages
# that need neither root nor task images (the rest start containers, load
# BPF or mount); `make test` ends with it (about 2 minutes; -race needs
# cgo, hence gcc in APT_PKGS).
RACE_PKGS := ./agent/... ./audit ./internal/capped ./internal/lifecycle ./internal/safefile ./internal/spawn ./tasks ./policy ./report \
	./runapi ./trial ./tracer/trace ./netproxy/netpolicy
test-race:
	CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 20m $(RACE_PKGS)

# test-slurm runs the bench as a Slurm array job on this machine (slurm-wlm
# and munge from Debian, started as plain processes), cancels and resumes a
# shard, merges the shards (authbench bench merge) into
# $(SLURM_OUT)/merged/results.db and fails unless every verdict equals a
# one-machine bench's of the same tasks; $(SLURM_OUT) keeps the array
# tasks' logs (root; about 3 minutes with the task images built).
SLURM_OUT ?= /tmp/authbench-slurm
test-slurm: build
	bash scripts/test-slurm.sh $(SLURM_OUT)

lint: vet fmt-check cross

# cross builds every package for arm64, riscv64 and s390x too (the tracer's
# generated loaders exist for each, little- and big-endian; the sandbox's
# syscall tables for amd64 and arm64, see docs/security.md).
cross:
	GOARCH=arm64 $(GO) build ./...
	GOARCH=riscv64 $(GO) build ./...
	GOARCH=s390x $(GO) build ./...

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

# bench-generate: a cmd: generation without a model (0 and 20 inspection
# calls), medians, next to the floor of a bare runc container.
.PHONY: bench-generate
bench-generate:
	$(GO) test -count=1 -timeout 20m ./taskrun -run '^$$' -bench '^BenchmarkExploreOverhead$$' -benchtime 15x
	$(GO) test -count=1 -timeout 20m ./env -run '^$$' -bench '^BenchmarkRunSetup$$' -benchtime 15x

# bench-hostile runs the model loop, each case in a child process of its
# own, against hostile endpoints (120k tool calls in one answer, sparse
# streamed indexes, a 16 MiB stream, an endless stream, 10 000 turns,
# malformed UTF-8) and prints the child's peak RSS and trajectory.json size
# per case (bounds: 300 MB, 32 MiB).
.PHONY: bench-hostile
bench-hostile:
	$(GO) test -count=1 -timeout 20m ./agent -run '^TestEscapeDaemonHostileModels$$' -v 2>&1 | grep -v -e '^=== RUN' -e '^    --- PASS'

# heuristic-scores prints the heuristic generator's static P/R/F1 per task
# and macro per axis over the whole built-in suite (images built when missing).
.PHONY: heuristic-scores
heuristic-scores:
	AUTHBENCH_SUITE_SCORES=1 $(GO) test -count=1 ./generate -run '^TestHeuristicSuiteScores$$' -v

# bench-score: `authbench score` over the host's /usr (read /usr, write
# /tmp, execute /usr/bin) against `find` over the same roots, interleaved:
# medians of wall time and peak RSS and their ratio (targets <= 1.5x find,
# <= 40 MiB); then the scorer's Go benchmarks.
bench-score: build
	AUTHBENCH_BENCH_SCORE=1 AUTHBENCH_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -run '^TestScoreVersusFind$$' -v ./cli
	$(GO) test ./policy -run '^$$' -bench . -benchmem

# bench-versus measures this tree against an earlier commit (BASE, a git
# revision) in one run: exec embedded and through each one's own daemon,
# score over /usr, and the policy package's Go benchmarks (benchstat),
# with each ratio current/base (root).
BASE ?= HEAD~1
.PHONY: bench-versus
bench-versus: build
	@base=$$(mktemp -d /tmp/authbench-base.XXXXXX); trap 'git worktree remove --force '"$$base"' 2>/dev/null; rm -rf '"$$base" EXIT; \
	git worktree add --detach -q $$base $(BASE) && $(MAKE) -C $$base build >/dev/null && \
	AUTHBENCH_BASE_BIN=$$base/$(BIN) AUTHBENCH_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 20m -run '^TestVersusBase$$' -v ./cli && \
	(cd $$base && $(GO) test ./policy -run '^$$' -bench . -benchmem -count 6) > $$base/policy-base.txt && \
	$(GO) test ./policy -run '^$$' -bench . -benchmem -count 6 > $$base/policy-current.txt && \
	$(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da $$base/policy-base.txt $$base/policy-current.txt

# bench-trace compares untraced runs, `authbench trace` (embedded and
# through a daemon it starts), `strace -f` and the floor of the tracer's
# hook (an empty program on sys_exit), side by side, with where the CPU
# goes (the traced tree, the daemon, the client, the BPF programs, the
# reader), then the reader's CPU per event (root; about ten minutes,
# more on a loaded machine; scripts/bench-trace.py --only a runs one
# workload).
bench-trace: build
	$(GO) build -o bin/benchtrace ./scripts/benchtrace
	python3 scripts/bench-trace.py --authbench $(BIN) --benchtrace bin/benchtrace
	$(GO) test ./tracer -run '^$$' -bench ReaderCPUPerEvent -benchtime 500000x -count 3

# bench-seccomp reads a 20k-file tree under sandbox-init with no filter,
# an allow-all filter, main's old and the current default filter
# (interleaved, medians; target: default filter <= +0.5 %).
bench-seccomp:
	$(GO) test -count=1 -timeout 20m ./sandbox -run '^$$' -bench '^BenchmarkSeccompReadTree$$' -benchtime 1x

# bench-exec: /usr/bin/true bare, under bwrap, `authbench --version`, and
# `authbench exec --policy P -- /usr/bin/true` embedded and through a
# socket daemon, with hyperfine in one run (medians of 60), each against
# its target (--version <= 3 ms over true; exec <= bwrap's added cost +
# 4 ms; the daemon <= 4 ms over embedded); then the overhead of reading
# a 20k-file tree confined (<= 3%).
bench-exec: build
	AUTHBENCH_BENCH_EXEC=1 AUTHBENCH_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 20m \
		-run '^(TestExecLatency|TestReadTreeOverhead)$$' -v ./cli

# bench-netproxy: a model-like call (2 KiB request, 1 KiB JSON answer) to a
# loopback server, direct from the host and through a run's egress proxy
# from inside its network namespace, interleaved, medians side by side:
# kept-alive and a new connection per call (target: overhead <= 2 ms).
bench-netproxy:
	AUTHBENCH_BENCH_NETPROXY=1 $(GO) test -count=1 -timeout 10m ./netproxy -run '^TestProxyOverheadPerModelCall$$' -v \
		-bench '^BenchmarkModelCall$$' -benchtime 2000x

# bench-oracle times, on a fixture task, one plain task run, record +
# verify, and verify --minimize of a 20-entry spec, and prints each as a
# ratio to the plain run (root, runc, buildah, the eBPF tracer).
bench-oracle:
	$(GO) test -count=1 -timeout 30m ./oracle -run '^$$' -bench '^BenchmarkOracle$$' -benchtime 1x

# record-agreement records every task of the built-in suite (and the task
# dirs in TASKS) with `authbench oracle agreement` (root, embedded; record,
# verify and repairs) and prints per-axis precision/recall/F1 of each recorded
# spec against the curated one, and the macro average over tasks (target:
# F1 >= 0.90 on every axis). RA_FLAGS adds flags (e.g. --images-dir DIR).
TASKS    ?=
RA_FLAGS ?=
record-agreement: build
	$(BIN) oracle agreement --socket "" tasks/suite $(TASKS) $(RA_FLAGS)

# bench-env times the task environments (root, runc, buildah, debootstrap):
# run setup (rootfs ready -> command exec inside runc; target <= 300 ms) as a
# median of 50 runs; all the task images of tasks/suite built on the built
# base, BUILD_JOBS at a time (suite-s: wall time, target <= 300 s on 2
# cores; image-s-median: one image; load1-*: the machine's load); then base
# and task image builds from scratch, 3 each (about 15 minutes in all).
# Medians are the *-median / *-ms metrics.
BUILD_JOBS ?= 2
bench-env:
	$(GO) test -count=1 -timeout 10m ./env -run '^$$' -bench '^BenchmarkRunSetup$$' -benchtime 50x
	AUTHBENCH_BENCH_BUILD=1 AUTHBENCH_BUILD_JOBS=$(BUILD_JOBS) $(GO) test -count=1 -timeout 60m ./env -run '^$$' \
		-bench '^BenchmarkSuiteBuild$$' -benchtime 1x
	AUTHBENCH_BENCH_BUILD=1 $(GO) test -count=1 -timeout 60m ./env -run '^$$' \
		-bench '^(BenchmarkBaseBuild|BenchmarkTaskBuild)$$' -benchtime 3x

# suite-verify replays every task of the built-in suite with `authbench oracle
# verify` (the oracle under its spec; for sensitive tasks the shortcut too,
# which must be denied), SUITE_JOBS at a time; one line per task, the log of
# each failure, exit 1 if any fails. Long (it builds every suite image on a
# fresh machine): not part of `make test`. SUITE_FLAGS go to each verify,
# e.g. SUITE_FLAGS="--images-dir /var/cache/authbench-test/images".
SUITE_DIR   ?= tasks/suite
SUITE_JOBS  ?= 2
SUITE_FLAGS ?=
.PHONY: suite-verify
suite-verify: build
	@logs=$$(mktemp -d); start=$$(date +%s); \
	find $(SUITE_DIR) -mindepth 2 -maxdepth 2 -name task.toml -printf '%h\n' | sort | \
	xargs -P $(SUITE_JOBS) -I{} sh -c 'n=$$(basename {}); \
		if $(BIN) oracle verify {} $(SUITE_FLAGS) > '"$$logs"'/$$n.log 2>&1; \
		then echo "ok   $$n"; else echo "FAIL $$n"; touch '"$$logs"'/$$n.failed; fi'; \
	failed=$$(ls $$logs | sed -n 's/\.failed$$//p'); \
	for n in $$failed; do echo "--- $$n"; cat $$logs/$$n.log; done; \
	echo "suite-verify: $$(ls $$logs/*.log | wc -l) task(s), $$(echo $$failed | wc -w) failed, $$(( $$(date +%s) - start ))s"; \
	rm -rf $$logs; [ -z "$$failed" ]

# demo is the main job (root): the benchmark on the built-in suite
# (tasks/suite; the fixture tasks until it exists) with the policy sources
# unconstrained, spec, trace and gen:heuristic and the oracle agent, embedded, into a
# fresh out dir (DEMO_OUT); then the report (DEMO_OUT/report.md and
# report.html) and Table 1 on the terminal. DEMO_FLAGS adds bench flags
# (e.g. --images-dir DIR to reuse an image cache).
DEMO_OUT   ?= /tmp/authbench-demo
DEMO_FLAGS ?=
DEMO_PKGS  := runc buildah debootstrap
DEMO_TASKS := $(if $(wildcard tasks/suite),tasks/suite,tasks/testdata/fixtures)
DEMO_MAP   := $(if $(wildcard tasks/suite),,--base-map python=authbench-base)
demo: build
	@missing=""; for p in $(DEMO_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	rm -rf $(DEMO_OUT)
	$(BIN) bench --socket "" --tasks $(DEMO_TASKS) --sources unconstrained,spec,trace,gen:heuristic --agent oracle \
		$(DEMO_MAP) --out $(DEMO_OUT) $(DEMO_FLAGS)
	$(BIN) report $(DEMO_OUT) --format md --out $(DEMO_OUT)/report.md
	$(BIN) report $(DEMO_OUT) --format html --out $(DEMO_OUT)/report.html
	@echo; echo "Table 1 ($(DEMO_TASKS); report: $(DEMO_OUT)/report.md, $(DEMO_OUT)/report.html)"; echo
	$(BIN) report $(DEMO_OUT) --format text

# bench-bench: the bench's own cost per run (bench wall time minus the
# agent's and the verifiers' time), median over a few runs of a fixture
# task under the spec policy (root; target <= 150 ms).
bench-bench:
	$(GO) test -count=1 -timeout 20m ./bench -run '^$$' -bench '^BenchmarkRunOverhead$$' -benchtime 1x

bench: bench-score

# install puts the binary, the systemd unit and the API doc in place
# (PREFIX=/usr/local); `systemctl enable --now authbench` starts the daemon.
PREFIX  ?= /usr/local
DESTDIR ?=
install: build
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/authbench
	install -D -m 0755 $(FULL_BIN) $(DESTDIR)$(PREFIX)/bin/authbench-full
	install -D -m 0755 $(INIT_BIN) $(DESTDIR)$(PREFIX)/bin/authbench-sandbox-init
	install -D -m 0644 deploy/authbench.service $(DESTDIR)/etc/systemd/system/authbench.service
	install -D -m 0644 docs/api.md $(DESTDIR)$(PREFIX)/share/doc/authbench/api.md
	getent group authbench >/dev/null || groupadd --system authbench

clean:
	rm -rf bin
