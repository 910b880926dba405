# lnsim developer targets. `make test` is what CI runs (.ci/run).
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
# `python -m lnsim` is the `lnsim` command; it works even when pip's script folder is not on PATH.
LNSIM ?= $(PYTHON) -m lnsim

.PHONY: quickstart install browser test bench lint

# Builds the Rust core (release) into an editable install, runs experiment A of the InfiniBand
# CC study and writes its figures into results/zeru_a/.
quickstart: install
	$(LNSIM) run scenarios/ibcc/zeru_a.toml
	$(LNSIM) plot results/zeru_a

install:
	$(PIP) install --quiet --disable-pip-version-check -c constraints.txt -e '.[test]'

# Debian's Chromium, for the test that opens `lnsim report` pages in a real headless browser.
# Installed with apt-get when missing and we are root; otherwise say how (the test then fails
# with the same advice, unless LNSIM_SKIP_BROWSER=1).
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing Debian's chromium (for the report test)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
		echo "warning: no chromium: the report browser test needs it (sudo apt-get install chromium)" >&2; \
	fi

# Rust tests (the `suite` profile of Cargo.toml: optimised, no LTO), the unit tests once more in
# the dev profile (debug assertions and overflow checks on: the models' invariants asserted in
# debug builds run), then Python tests on two processes (pytest-xdist; CI has two cores); fails if
# any fails. pytest's summary line is printed last.
test: install browser
	@status=0; \
	cargo test --profile suite -p lnsim || status=1; \
	cargo test -p lnsim --lib || status=1; \
	$(PYTHON) -m pytest -q -rs -n 2 python/tests || status=1; \
	exit $$status

bench: install
	$(LNSIM) bench

lint:
	cargo fmt --all --check
	cargo clippy --workspace -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p lnsim
