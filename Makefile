# The README's two set-up commands: `make sample` (the main job on the bundled offline sample)
# and `make test`. Each creates .venv on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: sample test bench clean-venv

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

sample: $(STAMP)
	$(BIN)/casefile sync --offline
	$(BIN)/casefile rules ingest tests/fixtures/rules/cr_case_excerpt.txt
	$(BIN)/casefile status

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

clean-venv:
	rm -rf $(VENV)

# The benchmark on SYNTHETIC data (bench/README.md): `make bench` runs scales 1, 2 and 4;
# `make bench SCALE=0.05` runs one scale. Not part of `make test`. The project's modules are
# compiled to bytecode first, as an installed casefile's are: where Python is told to write no
# bytecode (PYTHONDONTWRITEBYTECODE), each measured process would compile them again.
bench: $(STAMP)
	$(BIN)/python -m compileall -q pipeline bench
	$(BIN)/python -m bench.run $(if $(SCALE),--scale $(SCALE)) $(BENCH_ARGS)
