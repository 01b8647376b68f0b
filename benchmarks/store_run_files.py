"""What one run costs the results store: writing a run file and reading it back, as the
store does it (Arrow IPC) and as it did before 2026-11-25 (Parquet).

    python benchmarks/store_run_files.py [--runs 2000]

A run file holds one row: the run's metadata, its scenario as JSON and its metrics (here the
34 metrics of a Hybrid RED reproduction run). Prints, per format, the median of 5 rounds of
the mean time per run of ``ResultStore.write_run`` (serialize, atomic write with fsync, index)
and of ``ResultStore.read_runs`` on a cold cache (BENCHMARKS.md, "Results store").
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from aqmlab.sweep.atomic_file import sha256_hex, write_atomic
from aqmlab.sweep.store import ResultStore, RunRecord, _index_entry


def _record(i: int) -> RunRecord:
    return RunRecord(
        key=f"{i:064x}",
        point_id="p",
        point={"queue.aqm.theta": 1.0, "queue.aqm.xi": 1.25},
        replication=i,
        seed=1000 + i,
        status="ok",
        engine_version="bench",
        scenario_id="s",
        scenario_json='{"topology":' + "x" * 2400 + "}",
        run_time_s=0.05,
        metrics={f"metric_{j}": j * 0.5 for j in range(34)},
    )


def _write_parquet_run(store: ResultStore, record: RunRecord) -> None:
    """``write_run`` as it was before 2026-11-25: a Parquet run file."""
    target = store.run_file(record.key).with_suffix(".parquet")
    target.parent.mkdir(parents=True, exist_ok=True)
    sink = pa.BufferOutputStream()
    pq.write_table(record.to_table(), sink)
    data = sink.getvalue().to_pybytes()
    write_atomic(target, data)
    store.db.put_runs([_index_entry(record.meta_row(), sha256_hex(data), len(data))])


def _round(root: Path, runs: int, legacy: bool) -> tuple[float, float]:
    shutil.rmtree(root, ignore_errors=True)
    store = ResultStore(root)
    records = [_record(i) for i in range(runs)]
    t = time.perf_counter()
    for r in records:
        if legacy:
            _write_parquet_run(store, r)
        else:
            store.write_run(r)
    write = (time.perf_counter() - t) / runs
    t = time.perf_counter()
    df = store.read_runs()  # the store reads Parquet run files of older stores too
    read = (time.perf_counter() - t) / runs
    assert len(df) == runs
    return write, read


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=2000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, legacy in (("arrow ipc", False), ("parquet", True)):
            rounds = [_round(Path(tmp) / name.replace(" ", "_"), args.runs, legacy) for _ in range(5)]
            write = statistics.median(r[0] for r in rounds) * 1e3
            read = statistics.median(r[1] for r in rounds) * 1e3
            print(f"{name:10s} write_run {write:.3f} ms/run  read_runs {read:.3f} ms/run  ({args.runs} runs)")


if __name__ == "__main__":
    main()
