# Everyday commands. `make help` lists them.
PYTHON ?= python3

.PHONY: help install test test-rust test-py bench schema reproduce

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

install: ## Build the engine and install dcsim with what the tests need
	$(PYTHON) -m pip install ".[test]"

test: test-rust test-py ## Run every Rust and Python test

test-rust: ## Rust tests of the engine and bindings
	cargo test --workspace --release

test-py: ## Python tests (against the installed dcsim: run `make install` after changes)
	$(PYTHON) -m pytest -q

bench: ## Engine speed on a fixed scenario
	cargo run --release -p dcsim --example bench

schema: ## Regenerate schema/scenario.schema.json from the engine's types
	$(PYTHON) -m dcsim schema > schema/scenario.schema.json.tmp
	mv schema/scenario.schema.json.tmp schema/scenario.schema.json

reproduce: ## Run the quick paper suite and write dcsim-results/index.html
	$(PYTHON) -m dcsim reproduce
