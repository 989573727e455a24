# The two commands: `make bench` and `make test`. Both install what is missing
# (Debian packages, a Python virtual environment), build what changed, and are
# quick when nothing did.
SHELL := /bin/bash
VENV  := .venv
PY    := $(VENV)/bin/python
CB    := $(VENV)/bin/cipherbench
BUILD := build

.PHONY: bench test lint deps system-deps engine runners vectors tools fidelity noise sanitize compilers clean

bench: engine runners vectors
	@status=0; $(CB) verify || status=$$?; \
	$(CB) run --profile quick || exit $$?; \
	exit $$status

# Two workers, one test file each at a time (files share fixtures and built variants); the
# fifteen slowest tests are listed at the end, for keeping the suite under 20 minutes
test: engine runners vectors lint
	$(PY) -m pytest -q -n 2 --dist loadfile --durations=15

# The orchestrator's static checks: ruff (pyflakes, style, import order, bugbear) and mypy
# (strict for the run pipeline, the store and the analysis layer; pyproject.toml).
lint: deps
	$(VENV)/bin/ruff check cipherbench tests scripts/sanitize benchmarks/fidelity benchmarks/candidates benchmarks/placement.py benchmarks/tools benchmarks/ab benchmarks/mutation benchmarks/noise benchmarks/peers.py benchmarks/repeat.py
	$(VENV)/bin/mypy

deps: system-deps $(VENV)/.installed

system-deps:
	@scripts/install-system-deps

$(VENV)/.installed: pyproject.toml | system-deps
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test,vectors,fleet]'
	touch $@

engine: deps
	@mkdir -p $(BUILD)
	@cmake -S engine -B $(BUILD)/engine -G Ninja -DCMAKE_BUILD_TYPE=Release -Wno-dev >$(BUILD)/engine-configure.log 2>&1 \
	  || { cat $(BUILD)/engine-configure.log; exit 1; }
	@grep -h "adapter .*:" $(BUILD)/engine-configure.log | sed 's/^-- /  /' || true
	cmake --build $(BUILD)/engine

runners: deps
	@scripts/build-runners

# Known-answer corpora fetched rather than installed by pip: Project Wycheproof, pinned in
# cipherbench/kat/corpus_wycheproof.py, through the Go module proxy into go's module cache; the
# path goes to build/wycheproof.json. Never fails the build: without go, or when the download
# fails, that file says why and verify reports the corpus missing.
vectors: deps
	@$(PY) -m cipherbench.kat.corpus_wycheproof install

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
# memory-bandwidth hog (benchmarks/noise; stress-ng from packages.txt)
noise: engine runners vectors
	$(PY) benchmarks/noise

# The compilers x flags study's quick matrix (registry/builds.toml): build the variants,
# verify each with all its known answers, time the correct ones beside the ordinary build.
# MATRIX=full for seed 001's 36 combinations.
MATRIX ?= quick
compilers: engine
	$(CB) builds run --matrix $(MATRIX)

clean:
	rm -rf $(BUILD) $(VENV)
