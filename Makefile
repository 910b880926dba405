# lnsim developer targets. `make test` is what CI runs (.ci/run).
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
# `python -m lnsim` is the `lnsim` command; it works even when pip's script folder is not on PATH.
LNSIM ?= $(PYTHON) -m lnsim

.PHONY: quickstart install test bench lint

# Builds the Rust core (release) into an editable install, runs experiment A of the InfiniBand
# CC study and writes its figures into results/zeru_a/.
quickstart: install
	$(LNSIM) run scenarios/ibcc/zeru_a.toml
	$(LNSIM) plot results/zeru_a

install:
	$(PIP) install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'

# Rust tests, then Python tests; fails if either fails. pytest's summary line is printed last.
test: install
	@status=0; \
	cargo test --release -p lnsim || status=1; \
	$(PYTHON) -m pytest -q python/tests || status=1; \
	exit $$status

bench: install
	$(LNSIM) bench

lint:
	cargo fmt --all --check
	cargo clippy --workspace -- -D warnings
