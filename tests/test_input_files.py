"""Issue 35, class G: the files a scenario reads (an event's mahimahi trace, a workload's CDF)
must be regular files of at most 64 MiB: a FIFO used to block with no error, and a file that
never ends was read until memory ran out."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

import aqmlab
import pytest
from _aqmlab_scenarios import tcp_dumbbell
from aqmlab.cli import app
from typer.testing import CliRunner


def with_trace(path: Path) -> dict[str, Any]:
    return tcp_dumbbell(
        "2s",
        1,
        {"rate": "10Mbps", "delay": "10ms"},
        flows=[{"kind": "tcp", "from": "s0", "to": "d0"}],
        events=[{"at": "1s", "link": "bottleneck", "rate": {"trace": str(path)}}],
    )


def refused_within(s: dict[str, Any], seconds: float) -> aqmlab.ScenarioError:
    """The scenario's error; fails (instead of hanging the suite) if it takes longer."""
    caught: list[BaseException] = []

    def attempt() -> None:
        try:
            aqmlab.run(s)
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            caught.append(e)

    t = threading.Thread(target=attempt, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"still reading after {seconds} s"
    assert len(caught) == 1 and isinstance(caught[0], aqmlab.ScenarioError), caught
    return caught[0]


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_a_fifo_trace_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    e = refused_within(with_trace(fifo), 10)
    assert e.path == "events[0].rate.trace"
    assert str(e) == f"events[0].rate.trace: '{fifo}': is a FIFO (named pipe), not a regular file"
    workload = with_trace(fifo)
    workload.pop("events")
    workload["flows"] = [
        {"kind": "workload", "from": "s0", "to": "d0", "rate": 10, "sizes": {"dist": "cdf", "file": str(fifo)}}
    ]
    e = refused_within(workload, 10)
    assert e.path == "flows[0].sizes.file" and "is a FIFO" in str(e)


def test_a_trace_above_64_mib_is_refused_with_a_one_line_error(tmp_path: Path) -> None:
    big = tmp_path / "endless.mahimahi"
    with big.open("wb") as f:
        f.truncate(200 << 20)  # sparse: no disk used
    p = tmp_path / "s.json"
    p.write_text(json.dumps(with_trace(big)))
    res = CliRunner().invoke(app, ["run", str(p)])
    assert res.exit_code == 2
    assert res.stderr.strip() == (
        f"error: events[0].rate.trace: '{big}': is larger than 64 MiB, the most an input file may have"
    )
