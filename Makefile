# repcap: `make book` (the main job) and `make test`. Both create .venv if missing and install
# everything from the package registries; a torch already in .venv (e.g. your CUDA build) is kept.
PYTHON  ?= python3
VENV    ?= .venv
PROFILE ?= quick
SCALE   ?= full
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.repcap-installed
MATHJAX := django-static-mathjax==3.2.2.1

.PHONY: all install book html pdf test test-unit lint fingerprint-coverage bench clean distclean paper-gpu

all: book

$(STAMP): pyproject.toml requirements/constraints.txt requirements/torch.txt requirements/triton.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c "import torch" 2>/dev/null || $(BIN)/python -m pip install -q -r requirements/torch.txt
	@# triton: the fused kernels' tests run it under its interpreter on the CPU; a CUDA torch's own triton is kept
	@# (not an extra: its pin would fight the one a CUDA torch carries); no wheel for the platform: those tests skip
	@$(BIN)/python -c "import triton" 2>/dev/null || $(BIN)/python -m pip install -q -r requirements/triton.txt \
	  || echo "triton not installed (no wheel here?): the fused-kernel tests will skip"
	$(BIN)/python -m pip install -q -c requirements/constraints.txt -e ".[models,book,cluster,dev]"
	$(BIN)/python -m pip install -q --no-deps $(MATHJAX)
	@touch $@

install: $(STAMP)

## book: run every chapter under PROFILE (default quick) and build _build/html/index.html
book: $(STAMP)
	$(BIN)/repcap models install --profile $(PROFILE)
	@for d in data/runs/*/; do test -f "$$d/bundle.json" || continue; \
	  echo "$(BIN)/repcap bundle import $$d"; $(BIN)/repcap bundle import "$$d" || exit 1; done
	$(BIN)/repcap book --profile $(PROFILE)

## paper-gpu: the GPU-feasible parts of the paper profile as a bundle in OUT, hours on one H200 (Yoder's
## runs about 2 min, Liu's Fig. 3 map 5, the main sweep 30, Guha's grid the rest): only batches that
## the cost model expects to end within BUDGET seconds start (default 420; BUDGET= for no limit); a
## re-run resumes where it stopped (finished points are cached); SCALE=smoke runs it in seconds on a
## CPU.  On a bare GPU image with no .venv, tools/gpu_session.sh runs it with the CUDA tests and the
## benchmarks
## OUT, SCALE and BUDGET reach repcap as they were typed, through the environment: make does not
## expand a $ in them (OUT=pg$HOME is the folder pg$HOME) and the shell does not read their quotes
paper-gpu: export REPCAP_PG_OUT := $(value OUT)
paper-gpu: export REPCAP_PG_SCALE := $(value SCALE)
paper-gpu: export REPCAP_PG_BUDGET := $(if $(filter undefined,$(origin BUDGET)),420,$(value BUDGET))
paper-gpu: $(STAMP)
	@test -n "$$REPCAP_PG_OUT" || { echo "make paper-gpu: give OUT=<bundle folder>, e.g. OUT=data/runs/paper-gpu" >&2; exit 2; }
	$(BIN)/repcap bundle compute paper-gpu --out "$$REPCAP_PG_OUT" --scale "$$REPCAP_PG_SCALE" $${REPCAP_PG_BUDGET:+--budget "$$REPCAP_PG_BUDGET"}

## html: rebuild the HTML from the chapters already executed
html: $(STAMP)
	$(BIN)/repcap book --html-only

## pdf: the whole book as one PDF (_build/pdf/book.pdf), from the chapters already executed (run
## `make book` first): Jupyter Book's singlehtml build printed by headless Chromium (apt-get install
## chromium); without Chromium it says so in one line
pdf: $(STAMP)
	@$(BIN)/python -m repcap.book.build pdf

## lint: ruff (lint and format check), mypy over src/ and the layers contract (import-linter), as make test runs them
lint: $(STAMP)
	$(BIN)/ruff check src tests notebooks benchmarks tools
	$(BIN)/ruff format --check src tests benchmarks tools notebooks
	$(BIN)/mypy
	$(BIN)/lint-imports

## test: lint and type checks, unit tests, a smoke-profile run of every chapter and a smoke book build,
## then the fingerprint suite again under coverage (about a minute more)
test: lint
	$(BIN)/python -m pytest -q
	$(MAKE) --no-print-directory fingerprint-coverage

## fingerprint-coverage: the fingerprint suite (tests/fingerprints) under coverage.py, and each engine's
## share of lines it runs, failing under FP_MIN percent (engines as in tests/fingerprints/harness.py;
## packing/cost.py, a time estimate, is left out in pyproject.toml).  Numba's JIT is off for it, so that
## the tiled pass's kernel runs as Python and is traced; the suite holds its values to the tables
## there too (the tolerances cover that path: tools/fingerprints.py --spread).
FP_MIN     ?= 95
FP_ENGINES := cosine:*/repcap/engines/cosine/* toy:*/repcap/engines/toy/* packing:*/repcap/engines/packing/* \
              survey:*/repcap/engines/survey.py,*/repcap/engines/layers/* geometry:*/repcap/engines/random_geometry.py
fingerprint-coverage: $(STAMP)
	@mkdir -p .cache && rm -f .cache/.coverage
	NUMBA_DISABLE_JIT=1 $(BIN)/coverage run -m pytest -q -p no:cacheprovider tests/fingerprints
	@$(BIN)/coverage report --skip-covered
	@set -f; fail=0; for e in $(FP_ENGINES); do \
	  pct=$$($(BIN)/coverage report --include="$${e#*:}" --format=total --precision=1); \
	  ok=$$(awk -v p="$$pct" -v m="$(FP_MIN)" 'BEGIN { print (p + 0 >= m + 0) }'); \
	  printf '%-9s %5s%% of lines%s\n' "$${e%%:*}" "$$pct" "$$([ "$$ok" = 1 ] || echo " -- under $(FP_MIN)%")"; \
	  [ "$$ok" = 1 ] || fail=1; \
	done; exit $$fail

test-unit: $(STAMP)
	$(BIN)/python -m pytest -q tests/unit

## bench: the side-by-side benchmarks (ratios, not absolute times); see README
bench: $(STAMP)
	for b in benchmarks/*.py; do echo "== $$b"; $(BIN)/python $$b --quick || exit 1; done

clean:
	rm -rf _build book/generated

distclean: clean
	rm -rf $(VENV) .cache
