# Everything a fresh machine needs goes through these targets.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.install-stamp

.PHONY: install test run bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest -q tests

# The main job: every preset, expert against expert, on common dice (about a
# minute on two cores); records and summaries land in results/presets.
run: $(STAMP)
	$(BIN)/acesim simulate --rules european,american,navy,backgammon --games 20000 \
		--strategy expert --vs expert --seed 42 --out results/presets --force

bench: $(STAMP)
	$(BIN)/acesim bench moves --markdown
	$(BIN)/acesim bench games --markdown
	$(BIN)/acesim bench simulate --rules european --strategy expert --games 100000

clean:
	rm -rf $(VENV) .pytest_cache
