# The two commands: `make bench` and `make test`. Both install what is missing
# (Debian packages, a Python virtual environment), build what changed, and are
# quick when nothing did. Each step says how long it took (scripts/step), and the
# command its total at the end.
SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python
CB    := $(VENV)/bin/cipherbench
BUILD := build
#: When make started (read as it reads this file), for the total at the end
START := $(shell date +%s.%N)
STEP  := scripts/step
#: What a fresh clone would build again and again, kept outside it by the content it was made
#: from, so that a second clone's `make test` or `make bench` (CI clones afresh every time)
#: reuses it: ccache's objects of the engine (keyed by the preprocessed sources, the compiler
#: and its flags), cargo's target folder of the Rust runner's dependencies (cargo's own
#: fingerprints) and the runner's binary (keyed by its crate's files and the toolchain:
#: runners/rust/build.sh), mypy's cache (each module's by the hash of its source). Each checks
#: its own key, so a changed source, compiler or flag is built again.
CACHE_HOME := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/cipherbench
#: A fresh machine (none of the default path's packages but Debian's Essential ones: a bare
#: Debian 12, scripts/install-system-deps --fresh), judged once, when the first make starts, and
#: passed to the sub-makes: its packages are unpacked without dpkg's sync of every file
#: (--force-unsafe-io, what container images set for every install). A crash during that install loses only the install, on a machine that held nothing else.
ifndef CB_FRESH_MACHINE
CB_FRESH_MACHINE := $(shell scripts/install-system-deps --fresh >/dev/null 2>&1 && echo yes || echo no)
export CB_FRESH_MACHINE
endif
APT_IO := $(if $(filter yes,$(CB_FRESH_MACHINE)),--unsafe-io)
#: packages.txt's sections the tests use (the axes' packages, installed on an axis's first use
#: otherwise): make test installs them, so no test goes without
TEST_AXES := builds env arch fleet test

.PHONY: bench test test-deps lint lint-checks venv engine-build deps engine-deps longest-runner-deps runner-deps system-deps engine runners runners-ready vectors tools fidelity noise sanitize compilers clean

# As many make jobs as CPUs, and two more: the venv's downloads, the engine's compile, the runners'
# packages and the runners that need none of them (Rust) go side by side (each compile itself
# uses every CPU: Ninja, cargo)
JOBS  := $(shell echo $$(( $$(nproc) + 2 )))
#: A sub-make that builds its goals side by side, each goal's output printed whole when it ends
SIDE_BY_SIDE := $(MAKE) --no-print-directory -j$(JOBS) --output-sync=target

# The answer first, the whole gate after (cipherbench/cli/bench.py): the quick profile's pairs
# through every check of the gate, timed, the answer printed; then every other pair verified.
bench:
	@$(SIDE_BY_SIDE) engine runners-ready runners vectors
	@status=0; $(CB) bench --since $(START) || status=$$?; \
	$(STEP) --since $(START) "make bench"; exit $$status

# Two workers, each taking one test at a time, or a module's tests together where they share a
# fixture made once for the module (xdist groups), the units that took longest last time first
# (tests/conftest.py, longest_first); the fifteen slowest tests are listed at the end, for
# keeping the suite under 10 minutes
test:
	@$(SIDE_BY_SIDE) engine runners-ready runners vectors lint test-deps
	@status=0; $(STEP) "the tests" $(PY) -m pytest -q -n 2 --dist loadgroup --no-loadscope-reorder --durations=15 || status=$$?; \
	$(STEP) --since $(START) "make test"; exit $$status

test-deps: runner-deps
	@$(STEP) "the axes' Debian packages the tests use" scripts/install-system-deps $(APT_IO) --since $(START) $(TEST_AXES:%=--axis %)

# The orchestrator's static checks: ruff (pyflakes, style, import order, bugbear) and mypy
# (strict for the run pipeline, the store and the analysis layer; pyproject.toml).
lint: $(VENV)/.installed
	@$(STEP) "lint" $(MAKE) -s --no-print-directory lint-checks

lint-checks: export MYPY_CACHE_DIR := $(CACHE_HOME)/mypy
lint-checks: export RUFF_CACHE_DIR := $(CACHE_HOME)/ruff
lint-checks:
	$(VENV)/bin/ruff check cipherbench tests scripts/sanitize benchmarks/fidelity benchmarks/candidates benchmarks/placement.py benchmarks/tools benchmarks/ab benchmarks/mutation benchmarks/noise benchmarks/peers.py benchmarks/repeat.py
	$(VENV)/bin/mypy

deps: system-deps $(VENV)/.installed

# The Debian packages of the default path in three parts, one apt at a time: the core's and the
# adapters' (the engine's build and the venv need only those), then the longest runner's build's
# (a fresh machine's Rust toolchain: that build starts beside the engine's compile), then the
# other runners', which install while those two compile. apt's lists are updated by the first
# of them alone (--since: the steps after it find them updated since make started).
system-deps: engine-deps longest-runner-deps runner-deps

engine-deps:
	@$(STEP) "Debian packages: the core's and the adapters'" scripts/install-system-deps $(APT_IO) --since $(START) --engine

longest-runner-deps: engine-deps
	@$(STEP) "Debian packages: the longest runner build's" scripts/install-system-deps $(APT_IO) --since $(START) --longest-runner

runner-deps: longest-runner-deps
	@$(STEP) "Debian packages: the runners'" scripts/install-system-deps $(APT_IO) --since $(START) --runners

$(VENV)/.installed: pyproject.toml | engine-deps
	@$(STEP) "Python environment" $(MAKE) -s --no-print-directory venv

# uv (PyPI) installs what pip would, the same versions, in a quarter of the time and CPU: 16 s
# against 62 s from empty caches on the developers' host, seconds the engine's compile shares
venv:
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q uv==0.13.9
	$(VENV)/bin/uv pip install -q --python $(VENV)/bin/python --upgrade pip -e '.[test,vectors,fleet]'
	touch $(VENV)/.installed

# The engine's and the runners' builds run the system's python3 (cipherbench.registry and
# .manifest: the standard library only), so they need the Debian packages alone, not the venv.
engine: engine-deps
	@$(STEP) "engine" $(MAKE) -s --no-print-directory engine-build

# Compiled through ccache (packages.txt) when it is installed: a fresh clone's 2 to 3 minutes of
# compiling are its cache's hits. CCACHE_BASEDIR makes the clone's absolute paths relative, so
# two clones' same sources hash alike (the engine's sources use no __FILE__; Release has no -g).
engine-build: export CCACHE_DIR := $(CACHE_HOME)/ccache
engine-build: export CCACHE_BASEDIR := $(CURDIR)
engine-build:
	@mkdir -p $(BUILD)
	@cmake -S engine -B $(BUILD)/engine -G Ninja -DCMAKE_BUILD_TYPE=Release -Wno-dev \
	  $$(command -v ccache >/dev/null && echo -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache) \
	  >$(BUILD)/engine-configure.log 2>&1 \
	  || { cat $(BUILD)/engine-configure.log; exit 1; }
	@grep -h "adapter .*:" $(BUILD)/engine-configure.log | sed 's/^-- /  /' || true
	cmake --build $(BUILD)/engine

# The runners whose Debian packages are in once the core's and the longest runner's are (a
# fresh machine's Rust, the longest build, and Python) build beside the engine, while the
# others' packages install; then the rest. Each runner once: what the first call built since
# make started, or is building, the second skips (scripts/build-runners).
runners: runner-deps
	@$(STEP) "runners" scripts/build-runners --since $(START)

runners-ready: longest-runner-deps
	@$(STEP) "runners that need only the core's packages" scripts/build-runners --ready --since $(START)

# Known-answer corpora fetched rather than installed by pip: Project Wycheproof, pinned in
# cipherbench/kat/corpora/wycheproof.py, through the Go module proxy into go's module cache; the
# path goes to build/wycheproof.json. Never fails the build: without go, or when the download
# fails, that file says why and verify reports the corpus missing. After the runners' packages:
# a fresh machine's go is the Go runner's golang-go.
vectors: $(VENV)/.installed runner-deps
	@$(STEP) "vectors" $(PY) -m cipherbench.kat.corpora wycheproof install

# The library benchmark programs fidelity compares with (botan, bench-slope, nettle-benchmark,
# mbedTLS's and wolfCrypt's benchmark), built from Debian source packages into build/tools.
tools: deps
	-@benchmarks/tools/build.sh $(BUILD)/tools

# The engine built with ASan, LSan and UBSan in build/engine-asan, and `cipherbench verify`
# over its implementations run through it; fails on any sanitizer report (scripts/sanitize).
sanitize: deps vectors
	$(PY) scripts/sanitize

fidelity: engine tools
	$(PY) benchmarks/fidelity

# The quick profile's repeatability quiet, under a time-sliced CPU hog and under a
# memory-bandwidth hog (benchmarks/noise; stress-ng, packages.txt's [noise], installed here)
noise: engine runners vectors
	@scripts/install-system-deps --axis noise
	$(PY) benchmarks/noise

# The compilers x flags study's quick matrix (registry/builds.toml): build the variants,
# verify each with all its known answers, time the correct ones beside the ordinary build.
# MATRIX=full for seed 001's 36 combinations.
MATRIX ?= quick
compilers: deps engine
	$(CB) builds run --matrix $(MATRIX)

clean:
	rm -rf $(BUILD) $(VENV)
