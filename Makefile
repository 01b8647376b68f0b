# The two commands of the README, and the pieces they are made of.
PYTHON ?= python3

.PHONY: uml-kernel uml-kernel-l4s-upstream install compare test lint test-rust test-python fuzz reproduce-quick reproduce bench bench-instructions ns3-deps validate-ns3 gallery validate-kernel-tables validate-kernel-grid validate-kernel-grid-resimulate l4s-rfc3168 l4s-rtt-fairness l4s-rate-step l4s-bakeoff

# Builds the Rust engine and installs the Python package with its test dependencies. The
# first build compiles about 100 crates in the release profile (fat LTO, one codegen unit):
# about 12 minutes on 2 cores. pip -v passes cargo's "Compiling ..." lines through as they
# come, so that wait is not silent (about 300 lines in all with pip's own, a few tens of KB
# of CI log); --quiet showed nothing at all until the end (issue 24).
install:
	@echo "aqmlab: building the Rust engine and installing the package; a first build takes about 12 minutes on 2 cores, cargo's progress follows"
	$(PYTHON) -m pip install --disable-pip-version-check -v ".[test]"

# The main job: every AQM on the default dumbbell, as one table.
compare: install
	aqmlab compare

# All tests, Rust and Python, after the lints.
test: install lint test-rust test-python

# Formatting and lints, warnings as errors (issue 14): rustfmt and clippy for the crates,
# ruff (the rules pinned in pyproject.toml) for the Python package, tests, benchmarks and
# validation scripts;
# mypy --strict on the package ([tool.mypy] in pyproject.toml), and stubtest: the extension's
# stub python/aqmlab/_core.pyi against the built extension.
lint:
	cargo fmt --all --check
	cargo clippy --all-targets -p aqmlab-core -p aqmlab-emulator -p aqmlab-py -- -D warnings
	$(PYTHON) -m ruff check python/aqmlab tests benchmarks validation
	$(PYTHON) -m ruff format --check python/aqmlab tests benchmarks validation
	$(PYTHON) -m mypy
	$(PYTHON) -m mypy.stubtest aqmlab._core

# cargo's test profile (optimized, debug assertions) is not the release profile pip built the
# extension with, so the engine and each test binary are compiled again, a few minutes of
# which cargo shows as a single "Compiling aqmlab-core" line when it is not on a terminal.
test-rust:
	@echo "aqmlab: building the engine and the Rust tests in cargo's test profile (not the release build pip made): about 8 minutes on 2 cores the first time, quiet while aqmlab-core compiles; then the tests run"
	cargo test -p aqmlab-core -p aqmlab-emulator --all-targets

test-python:
	$(PYTHON) -m pytest -q

# The scenario fuzz targets at length (CI runs them bounded: 256 proptest cases per target,
# 300 and 100 hypothesis examples): 50,000 Rust cases per target and 20,000 + 5,000 Python
# examples, about a minute on 2 cores once built.
fuzz: install
	PROPTEST_CASES=50000 cargo test -p aqmlab-core --test scenario_fuzz
	HYPOTHESIS_PROFILE=fuzz $(PYTHON) -m pytest -q tests/test_scenario_fuzz.py

# Every experiment of the five papers, reduced (about a minute on 2 cores), and in full.
reproduce-quick: install
	aqmlab reproduce all --quick --out results/reproduce-quick

reproduce: install
	aqmlab reproduce all

# The plots of docs/gallery.md, redrawn from short runs (about a minute on 2 cores).
gallery: install
	$(PYTHON) docs/gallery/make_gallery.py

# Whole-scenario speed (see BENCHMARKS.md) and the criterion micro-benchmarks.
bench:
	cargo run --release -p aqmlab-core --example run_scenario -- scenarios/bench/dumbbell_100flows_10mbps_red.toml 1 3
	cargo run --release -p aqmlab-core --example run_scenario -- scenarios/bench/dumbbell_1000flows_100mbps_red.toml 1 1
	cargo bench -p aqmlab-core --bench engine

# Instructions (valgrind) of the default dumbbell, the same with one [[events]] entry that
# changes nothing, and the 100-flow bench scenario (BENCHMARKS.md, issue 36 item 4): a run
# that uses no tap, event or probe pays nothing for them. Needs valgrind.
bench-instructions:
	cargo build --release -p aqmlab-core --example run_scenario
	sh benchmarks/count_instructions.sh $${CARGO_TARGET_DIR:-target}/release/examples/run_scenario \
		python/aqmlab/scenarios/default_dumbbell.toml \
		scenarios/bench/default_dumbbell_noop_event.toml \
		scenarios/bench/dumbbell_100flows_10mbps_red.toml

# The cross-check against ns-3 (validation/ns3/README.md): Debian's ns-3.37 and a compiler
# (not part of `make test`, whose ns-3 test is skipped without them), then a scenario run in
# both, side by side: make validate-ns3 SCENARIO=identical-dumbbell ARGS="--flows 100 --tcp as_is ns3".
ns3-deps:
	apt-get install -y libns3-dev pkg-config g++

SCENARIO ?= identical-dumbbell
validate-ns3:
	$(PYTHON) validation/ns3/compare.py $(SCENARIO) $(ARGS)

# Optional: the reference kernel, User-Mode Linux built from Debian's linux-source-6.1 with
# kernel/uml/config.fragment and its patches (issue 37, docs/kernel-reference.md). Installs the
# source and the build tools with apt-get (root or sudo), builds into
# ~/.cache/aqmlab/uml/<key>/linux once: about 7 minutes (6 of CPU) on 2 cores; again, a no-op.
# tests/test_uml_kernel.py boots it, and skips when it is not built (as in CI).
uml-kernel:
	kernel/uml/build.sh

# The second reference kernel: the same steps from Debian's linux-source-7.3 (upstream Linux
# with DualPI2 and Accurate ECN; TCP Prague is not upstream) plus config.l4s-upstream.fragment,
# cached apart as ~/.cache/aqmlab/uml/latest-l4s-upstream (docs/kernel-reference.md). About
# 24 minutes (494 s of CPU) on 2 cores shared with other work.
uml-kernel-l4s-upstream:
	kernel/uml/build.sh --source l4s-upstream

# The reference tables of docs/validation.md (issue 37): each cell simulated and run in the
# reference kernel (make uml-kernel first; without it this says so and exits 2). The reduced
# grid (39 cells, 2 seeds, 20 s measured: about 13 minutes on 2 cores); ARGS="--full" for the
# issue's whole grid, ARGS="--resume" to go on after an interruption.
TABLES ?= validation/kernel/tables
validate-kernel-tables:
	$(PYTHON) validation/kernel/reference_grid.py --out $(TABLES) $(ARGS)

# The issue's grid, in two stages: the kernel's side of every cell once (hours: about 1 min a
# cell at 10 and 100 Mb/s, 2 at 1 Gb/s; ARGS to choose, e.g. ARGS="--only=-100M- --seeds 1
# --duration 15"), then the simulated side beside the recorded kernel runs, again whenever the
# simulator changes (minutes). docs/validation.md says which cells, seeds and windows ran.
FULL_TABLES ?= validation/kernel/tables_full
validate-kernel-grid:
	$(PYTHON) validation/kernel/reference_grid.py --full --kernel-only --resume --out $(FULL_TABLES) $(ARGS)
validate-kernel-grid-resimulate:
	$(PYTHON) validation/kernel/reference_grid.py --full --resimulate --out $(FULL_TABLES)

# Issue 38: heistp/l4s-tests beside its published tables (`aqmlab reproduce l4s-tests`, data in
# python/aqmlab/reproduce/papers/l4s_tests.toml), two Prague readings, 3 seeds: Scenario 6 (RFC
# 3168 AQMs, 48 points, about a minute), Scenario 1 (RTT fairness, 288 points, about 15 minutes on
# 2 cores), Scenario 2 (a rate step, clean and bursty, 64 points, a minute); and the SCE/L4S
# bakeoff's L4S side (`aqmlab reproduce sce-l4s-bakeoff`, 105 points, 3 seeds, two minutes). The tables are copied to validation/l4s/results.
# docs/validation.md, "L4S coexistence"; REPRODUCTION.md, "L4S".
L4S_RESULTS ?= validation/l4s/results
L4S_RUNS ?= results/reproduce/l4s_tests
l4s-rfc3168:
	aqmlab reproduce l4s-tests s6_rfc3168_aqms --out $(L4S_RUNS) $(ARGS)
	cp $(L4S_RUNS)/s6_rfc3168_aqms/table.md $(L4S_RESULTS)/l4s_tests_s6_rfc3168_aqms.md
l4s-rtt-fairness:
	aqmlab reproduce l4s-tests s1_rtt_fairness --out $(L4S_RUNS) $(ARGS)
	cp $(L4S_RUNS)/s1_rtt_fairness/table.md $(L4S_RESULTS)/l4s_tests_s1_rtt_fairness.md
l4s-rate-step:
	aqmlab reproduce l4s-tests s2_rate_step --out $(L4S_RUNS) $(ARGS)
	cp $(L4S_RUNS)/s2_rate_step/table.md $(L4S_RESULTS)/l4s_tests_s2_rate_step.md
l4s-bakeoff:
	aqmlab reproduce sce-l4s-bakeoff --out results/reproduce/sce_l4s_bakeoff $(ARGS)
	cp results/reproduce/sce_l4s_bakeoff/l4s_side/table.md $(L4S_RESULTS)/sce_l4s_bakeoff_l4s_side.md
	cp results/reproduce/sce_l4s_bakeoff/l4s_side_mangler/table.md $(L4S_RESULTS)/sce_l4s_bakeoff_l4s_side_mangler.md
