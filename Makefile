# Everything a fresh machine needs goes through these targets.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.install-stamp

.PHONY: install test run explore bench clean

# Installing also compiles the kernels into Numba's cache (acesim/runs/warmup.py), so that no command
# waits minutes for the compiler; again whenever a kernel source changed since (the cache is cold).
install: $(STAMP)
	@$(BIN)/python -m acesim.runs.warmup --if-cold

# uv resolves, downloads and unpacks in parallel and compiles the bytecode on every core, faster
# than pip (docs/performance-log.md).  The bytecode is written here because the processes of the
# suite import from it.  --native-tls: the machine's own
# certificates, which pip trusts too, rather than uv's bundled ones.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv
	$(BIN)/uv pip install --quiet --native-tls --python $(BIN)/python --compile-bytecode -e '.[test,dask]'
	touch $(STAMP)

# Two test processes, one test file each at a time: most of a cold run is Numba
# compiling, and a file's tests share their kernels (the cache on disk is shared).
TEST_WORKERS ?= 2
# The suite's kernels are compiled by LLVM at its first optimisation level, into a cache of their
# own: they give the same records as the commands' (scripts/records-digest) at about the same
# speed, and compile in less time (docs/performance-log.md).  The cache index does not record the
# level, so the two builds never share a folder.
TEST_ENV := NUMBA_OPT=1 NUMBA_CACHE_DIR=$(CURDIR)/$(VENV)/numba-test

test: $(STAMP)
	@$(TEST_ENV) $(BIN)/python -m acesim.runs.warmup --if-cold
	$(TEST_ENV) $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=20 tests

# The main job: the analysis report for the four presets, played on common dice by
# one player under all four (strategy best: a shipped network that plays every one
# of them, else expert), into results/report (HTML, Markdown, PNG charts, CSV tables).
run: install
	$(BIN)/acesim report --rules european,american,navy,backgammon --games 40000 \
		--equity-games 7000 --luck-games 600 --ladder-games 1200 --strategy best \
		--seed 42 --out results/report --force

# The house-rule landscape: 256 rule sets around the European preset (the four presets among them,
# every knob varied, a seeded random design), 4,000 games each on common dice by one player, into
# results/landscape (design, knob effects, charts, findings; docs/landscape.md).
explore: install
	$(BIN)/acesim explore --base european --rule-sets 256 --games 4000 --strategy best --seed 42 \
		--out results/landscape --force

bench: install
	$(BIN)/acesim bench moves --markdown
	$(BIN)/acesim bench games --markdown
	$(BIN)/acesim bench simulate --rules european --strategy expert --games 100000
	$(BIN)/acesim bench cluster --rules backgammon --strategy expert --games 40000 --workers 2

clean:
	rm -rf $(VENV) .pytest_cache
