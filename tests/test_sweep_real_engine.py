"""Sweeps through the real engine (the other sweep tests use a fake run function): the same
numbers serially, on a process pool and on a Dask LocalCluster, and a crashing point recorded
without losing the others."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from aqmlab.sweep import ResultStore, Sweep, run_sweep

BASE = {
    "name": "sweep-real",
    "duration": "4s",
    "warmup": "1s",
    "topology": {
        "kind": "dumbbell",
        "senders": 4,
        "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": {"limit": 50, "aqm": {"kind": "red", "max_p": 0.1}}},
        "access": {"rate": "100Mbps", "delay": ["1ms", "4ms"]},
    },
    "tcp": {"variant": "newreno", "window": 64},
    "flows": [{"kind": "tcp", "from": "senders", "to": "receivers", "start": {"uniform": ["0s", "0.5s"]}}],
}
METRICS = ["queue.bottleneck.mean_queue_packets", "queue.bottleneck.drops", "flows.goodput_bps.mean", "jain_index"]


def sweep() -> Sweep:
    return Sweep(
        base=BASE,
        grid={"topology.bottleneck.queue.aqm.max_p": [0.05, 0.2]},
        replications=3,
        master_seed=11,
        metrics=METRICS,
    )


def table(report) -> pd.DataFrame:
    return report.table().sort_values(list(report.table().columns[:2])).reset_index(drop=True)


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    return table(run_sweep(sweep(), tmp_path_factory.mktemp("serial"), backend="serial"))


def test_serial_sweep_of_real_runs_has_every_point_and_metric(serial):
    assert len(serial) == 2 * len(METRICS)
    assert (serial["n"] == 3).all()
    # replications differ (seeds differ), so the spread of the mean queue is not zero
    q = serial[serial.metric == "queue.bottleneck.mean_queue_packets"]
    assert (q["std"] > 0).all()


@pytest.mark.parametrize("backend", ["process", "dask"])
def test_parallel_backends_give_identical_numbers(serial, tmp_path, backend):
    kwargs = (
        {"cluster_kwargs": {"n_workers": 2, "processes": True, "threads_per_worker": 1}} if backend == "dask" else {}
    )
    got = table(run_sweep(sweep(), tmp_path, backend=backend, workers=2, **kwargs))
    pd.testing.assert_frame_equal(got, serial)


def test_a_failing_point_is_recorded_and_the_others_finish(tmp_path):
    # min_th > max_th is rejected by the engine: that point fails, the valid one completes.
    base = {
        **BASE,
        "topology": {
            **BASE["topology"],
            "bottleneck": {
                **BASE["topology"]["bottleneck"],
                "queue": {"limit": 50, "aqm": {"kind": "red", "min_th": 5, "max_th": 15}},
            },
        },
    }
    s = Sweep(
        base=base,
        grid={"topology.bottleneck.queue.aqm.min_th": [5, 30]},
        replications=2,
        master_seed=3,
        metrics=METRICS,
    )
    report = run_sweep(s, tmp_path, backend="serial")
    runs = ResultStore(tmp_path).runs()
    assert sorted(runs.status.value_counts().items()) == [("failed", 2), ("ok", 2)]
    errors = runs[runs.status == "failed"].error.tolist()
    assert all("max_th" in e for e in errors), errors
    assert not report.complete
    ok = runs[runs.status == "ok"]
    assert all(math.isfinite(v) for v in ok["queue.bottleneck.mean_queue_packets"])
