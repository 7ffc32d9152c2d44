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

run: $(STAMP)
	$(BIN)/acesim rules list
	$(BIN)/acesim show start --rules european
	$(BIN)/acesim moves --rules european --position start --dice 6-3

bench: $(STAMP)
	$(BIN)/acesim bench moves

clean:
	rm -rf $(VENV) .pytest_cache
