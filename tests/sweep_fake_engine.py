"""A fake, fast, deterministic stand-in for ``aqmlab.run(scenario, seed).summary``.

Sweep tests must not depend on the Rust engine.  This module is imported by
worker processes by name (``"sweep_fake_engine:run"``), so the tests directory
must be on their ``sys.path``: pytest puts it on the driver's path and forked
workers inherit it; subprocess tests set ``PYTHONPATH``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np

#: Runs of ``run_failing`` raise for this max_th.
FAIL_MAX_TH = 13
#: Runs of ``run_killer`` kill their worker process for this max_th.
KILL_MAX_TH = 13


def base_scenario() -> dict[str, Any]:
    """A small scenario with the shape of the engine's schema."""
    return {
        "duration_s": 10.0,
        "sleep_s": 0.0,
        "topology": {"senders": 4, "rtt_ms": [20, 40]},
        "bottleneck": {
            "rate_mbps": 10.0,
            "queue": {"limit_packets": 100, "aqm": {"type": "red", "min_th": 2, "max_th": 5, "timer_ms": 10}},
        },
        "flows": [{"kind": "tcp", "count": 2}, {"kind": "udp", "count": 1}],
    }


def run(scenario: dict, seed: int) -> dict[str, Any]:
    """Metrics are a deterministic function of (scenario, seed)."""
    rng = np.random.default_rng(seed)
    aqm = scenario["bottleneck"]["queue"]["aqm"]
    max_th = float(aqm["max_th"])
    timer = float(aqm.get("timer_ms", 10))
    senders = scenario["topology"]["senders"]
    flows = sum(f["count"] for f in scenario["flows"])
    return {
        "queue.bottleneck.mean_queue_packets": 0.6 * max_th + 0.01 * timer + rng.normal(0.0, 1.0),
        "flows.goodput_bps.mean": 1e6 * scenario["bottleneck"]["rate_mbps"] / flows * (1 - 0.01 * rng.random()),
        "jain_index": 1.0 - 0.05 * rng.random() / senders,
        "events": int(1000 * scenario["duration_s"]) + int(rng.integers(0, 100)),
        "aqm": str(aqm["type"]),  # a non-numeric summary value
        "stable": bool(max_th > 3),
    }


def run_failing(scenario: dict, seed: int) -> dict[str, Any]:
    """Like :func:`run` but raises for one max_th, as an unstable AQM might."""
    max_th = scenario["bottleneck"]["queue"]["aqm"]["max_th"]
    if max_th == FAIL_MAX_TH:
        raise ValueError(f"queue diverged at max_th={max_th}")
    return run(scenario, seed)


def run_slow(scenario: dict, seed: int) -> dict[str, Any]:
    """Like :func:`run` but sleeps ``scenario["sleep_s"]`` first."""
    time.sleep(float(scenario.get("sleep_s", 0.05)))
    return run(scenario, seed)


def run_killer(scenario: dict, seed: int) -> dict[str, Any]:
    """Like :func:`run_slow` but SIGKILLs its own process for one max_th."""
    if scenario["bottleneck"]["queue"]["aqm"]["max_th"] == KILL_MAX_TH:
        os.kill(os.getpid(), signal.SIGKILL)
    return run_slow(scenario, seed)


def run_exit(scenario: dict, seed: int) -> dict[str, Any]:
    """Calls sys.exit, which must be recorded as a failure, not end the driver."""
    raise SystemExit(3)


def run_bad_return(scenario: dict, seed: int) -> Any:
    """Returns something that is not a summary mapping."""
    return [1, 2, 3]


def run_logged(scenario: dict, seed: int) -> dict[str, Any]:
    """Like :func:`run_slow`, appending ``max_th:seed`` to the file named by ``FAKE_RUN_LOG``
    (one atomic append per run), so a test can count how often each job ran."""
    out = run_slow(scenario, seed)
    line = f"{scenario['bottleneck']['queue']['aqm']['max_th']}:{seed}\n".encode()
    fd = os.open(os.environ["FAKE_RUN_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
    return out


def ctrl_c_once_stored(proc: subprocess.Popen[str], store_dir: Path, runs: int, poll_s: float) -> None:
    """Waits (up to 120 s, while ``proc`` runs) until the store in ``store_dir`` holds ``runs``
    run files, then sends SIGINT to ``proc``'s process group, as Ctrl-C in a terminal does
    (driver and workers)."""
    from aqmlab.sweep import ResultStore

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if store_dir.exists() and len(ResultStore(store_dir).run_files()) >= runs:
            break
        time.sleep(poll_s)
    os.killpg(proc.pid, signal.SIGINT)
