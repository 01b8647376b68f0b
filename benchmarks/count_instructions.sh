#!/bin/sh
# Instructions (valgrind's Ir) of whole runs of the run_scenario example, one line per
# scenario: the measure BENCHMARKS.md's "costs nothing when unused" sections compare, since
# wall time on a shared machine is noisier than the differences.
#
#   benchmarks/count_instructions.sh BINARY SCENARIO...
#
# BINARY is a release build of `cargo build --release -p aqmlab-core --example run_scenario`
# (target/release/examples/run_scenario, or under $CARGO_TARGET_DIR); each scenario runs once
# with seed 1. `make bench-instructions` builds it and runs the scenarios of issue 36, item 4.
set -eu
bin=$1
shift
for scenario in "$@"; do
    out=$(mktemp)
    if valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$bin" "$scenario" 1 1 >/dev/null 2>"$out"; then
        ir=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$out")
    else
        # A build that does not know the scenario's format (an older commit) says why.
        ir="failed: $(grep -v -e '^==' -e '^--' "$out" | head -n 1)"
    fi
    rm -f "$out"
    printf '%s\t%s\n' "$ir" "$scenario"
done
