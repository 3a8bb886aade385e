# Everyday commands. `make help` lists them.
PYTHON ?= python3

.PHONY: help install lock test test-tools test-lint test-rust test-msrv test-py bench bench-compare scaling bench-htsim bench-micro bench-py bench-sweep fuzz schema screenshot docs validation reproduce

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

install: ## Build the engine and install dcsim with what the tests need (pinned versions)
	$(PYTHON) -m pip install ".[test]" -c constraints.txt

lock: ## Re-pin constraints.txt to what pip resolves today for .[test]
	$(PYTHON) scripts/lock.py

test: test-tools test-lint test-rust test-msrv test-py ## Run every Rust and Python test, and the linters

test-tools: ## Install the programs the tests drive (Debian's chromium, chromium-driver, tshark) if missing
	./scripts/install-test-tools.sh

test-rust: ## Rust tests of the engine and bindings, optimised (as released, less link-time optimisation) and with overflow checks
	cargo test --workspace --profile release-test
	cargo test -p dcsim

test-lint: ## clippy and rustdoc with warnings as errors, ruff (lint and format) and mypy on the Python package
	cargo clippy --workspace --all-targets --release -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
	cargo fmt --all --check
	$(PYTHON) -m ruff check python tests
	$(PYTHON) -m ruff format --check python tests
	$(PYTHON) -m mypy

test-msrv: ## The declared minimum Rust builds the engine and bindings, and 1.88 the tests (rustup installs both)
	./scripts/check-msrv.sh

test-py: ## Python tests (against the installed dcsim: run `make install` after changes)
	$(PYTHON) -m pytest -q

bench: ## Speed and memory on fixed scenarios, engine and dcsim.run, then the quick paper suite's wall and CPU time: build/bench/bench.json
	cargo run --release -p dcsim --example bench -- --out build/bench
	$(PYTHON) benchmarks/bench.py build/bench

bench-compare: ## Two bench runs side by side: make bench-compare OLD=a/bench.json NEW=b/bench.json
	$(PYTHON) benchmarks/bench.py --compare $(OLD) $(NEW)

scaling: ## Wall time and memory against simulated time, hosts and flows; plots in docs/performance
	cargo build --release -p dcsim --example bench
	$(PYTHON) benchmarks/scaling.py --out build/scaling --docs docs/performance

HTSIM_GIT ?=
bench-htsim: ## dcsim beside htsim 841d9e7 in CPU time (A B B A): 20 flows and the k=12 fat-tree; HTSIM_GIT=a clone, or GitHub
	cargo build --release -p dcsim --example bench
	benchmarks/htsim/build.sh $(HTSIM_GIT)
	$(PYTHON) benchmarks/htsim/compare.py --ack-every-segment

bench-micro: ## Criterion micro-benchmarks of the calendar, a port and the sender's ACK processing
	cargo bench -p dcsim

bench-py: ## What Python adds to a run: engine time beside dcsim.run + every table (build/bench-py.json)
	$(PYTHON) benchmarks/run_overhead.py

bench-sweep: ## Sweep throughput: 200 small runs, local processes vs a Dask LocalCluster
	$(PYTHON) benchmarks/sweep_bench.py

FUZZ_SECONDS ?= 300
fuzz: ## cargo fuzz (libFuzzer, nightly Rust) on each target for FUZZ_SECONDS (300); grows fuzz/corpus (not committed), re-minimises fuzz/minimised
	./scripts/fuzz.sh $(FUZZ_SECONDS)

schema: ## Regenerate schema/scenario.schema.json from the engine's types
	$(PYTHON) -m dcsim schema > schema/scenario.schema.json.tmp
	mv schema/scenario.schema.json.tmp schema/scenario.schema.json

screenshot: ## Redraw docs/report-screenshot.png: the top of the quick suite's report, in headless Chromium
	$(PYTHON) -m dcsim reproduce --out build/screenshot -q
	chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,900 \
		--screenshot=docs/report-screenshot.png file://$(CURDIR)/build/screenshot/index.html

docs: ## Regenerate docs/scenario-reference.md and docs/stacks.md from the engine
	$(PYTHON) -m dcsim.docgen scenario-reference > docs/scenario-reference.md.tmp
	mv docs/scenario-reference.md.tmp docs/scenario-reference.md
	$(PYTHON) -m dcsim.docgen stacks > docs/stacks.md.tmp
	mv docs/stacks.md.tmp docs/stacks.md

LEDGER = tests/python/data/claim_outcomes.json
validation: ## Run the quick suite into build/validation; regenerate the claim ledger (reasons kept) and docs/validation.md
	$(PYTHON) -m dcsim reproduce --out build/validation --quiet || true
	$(PYTHON) -m dcsim.docgen outcomes build/validation $(LEDGER) > $(LEDGER).tmp
	mv $(LEDGER).tmp $(LEDGER)
	$(PYTHON) -m dcsim.docgen validation build/validation $(LEDGER) > docs/validation.md.tmp
	mv docs/validation.md.tmp docs/validation.md

reproduce: ## Run the quick paper suite and write dcsim-results/index.html
	$(PYTHON) -m dcsim reproduce
