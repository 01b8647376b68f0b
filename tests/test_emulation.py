"""`aqmlab emulate` end to end: real Linux CUBIC through aqmlab's router and RED (issue 26).

Skipped, with the reason, only where the machine cannot emulate (not root, no /dev/net/tun,
no iproute2, no cubic). Each run is real time: about 45 s for the file.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aqmlab
import pytest
from aqmlab.emulation.netns import EmulationUnavailable, preflight
from aqmlab.scenario import to_json


def _unavailable() -> str | None:
    try:
        preflight(["cubic"])
    except EmulationUnavailable as e:
        return str(e)
    return None


REASON = _unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"cannot emulate here: {REASON}")


def red_path(flows: int, duration: str = "10s", **tcp: Any) -> dict[str, Any]:
    """The issue's path: `flows` CUBIC flows through RED on 10 Mb/s, 20 ms."""
    return {
        "name": f"emulated-red-{flows}",
        "duration": duration,
        "warmup": "2s",
        "topology": {
            "kind": "dumbbell",
            "senders": flows,
            "bottleneck": {"rate": "10Mbps", "delay": "20ms", "queue": {"limit": 100, "aqm": "red"}},
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "tcp": {"profile": "linux", "congestion_control": "cubic", "packet_size": 1448, "header_size": 52, **tcp},
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}],
    }


def leftovers(pid: int) -> list[str]:
    """Namespaces and devices of the emulation run by process `pid` still on this machine."""
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    return re.findall(rf"aqmlab-{pid}-\d+", ns) + re.findall(rf"aqm{pid}h\d+", links)


def conserved_at_router(r: aqmlab.Result) -> None:
    for q in r.queues.itertuples():
        assert q.arrivals + q.backlog_at_start == q.departures + q.drops + q.backlog_at_end, q.queue


@pytest.mark.parametrize("flows", [2, 10])
def test_cubic_flows_fill_a_red_bottleneck(flows: int) -> None:
    from aqmlab.emulation.emulate import emulate

    r = emulate(red_path(flows))
    q = r.queue("bottleneck")
    print(
        f"\n{flows} CUBIC flows, RED 10 Mb/s 20 ms: utilization {q.utilization:.4f}, "
        f"drops {q.drops}, mean queue {q.mean_queue_packets:.1f}, lag {r.raw['emulation']}"
    )
    assert q.utilization >= 0.90
    assert r.conserved
    conserved_at_router(r)
    assert r.raw["emulation"]["packets_not_carried"] == 0
    assert r.raw["emulation"]["host_write_errors"] == 0
    # Every flow ran, and the goodput the receivers read fits in the bottleneck.
    assert (r.flows.goodput_bps > 0).all()
    assert r.flows.goodput_bps.sum() <= 10e6
    # The router's goodput (in order at the receiving hosts, as the simulator counts it) and
    # what the applications read differ only by receive buffers at the window's edges.
    assert r.flows.goodput_bps.sum() == pytest.approx(r.emulation["application_goodput_bps"], rel=0.03)
    assert leftovers(os.getpid()) == []


def test_an_emulation_and_a_simulation_have_the_same_tables() -> None:
    from aqmlab.emulation.emulate import emulate

    s = red_path(1, duration="4s")
    s["topology"]["senders"] = 1
    s["flows"].append({"kind": "cbr", "from": "s0", "to": "d0", "rate": "1Mbps", "packet_size": 1000})
    s["flows"].append({"kind": "tcp", "from": "s0", "to": "d0", "size": 200_000, "start": "1s"})
    emulated, simulated = emulate(s), aqmlab.run(s)
    for table in ("queues", "flows", "groups"):
        assert list(getattr(emulated, table).columns) == list(getattr(simulated, table).columns), table
    assert set(emulated.summary) - {"emulation"} >= set(simulated.summary) - {"emulation"}
    cbr, transfer = emulated.flows.iloc[1], emulated.flows.iloc[2]
    # 1 Mb/s of 1000-byte payloads (a kernel UDP datagram is the payload, 28 bytes more on the
    # wire), well under the bottleneck: all of it arrives.
    assert 0.95e6 <= cbr.goodput_bps <= 1.0e6 * 1.001
    assert transfer.completion_time_s > 0


def test_unavailable_congestion_control_is_one_clear_error(tmp_path: Path) -> None:
    available = Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()
    assert "vegas" not in available
    scenario = tmp_path / "s.json"
    scenario.write_text(to_json(red_path(1)))
    r = subprocess.run(
        [sys.executable, "-m", "aqmlab", "emulate", str(scenario), "--cc", "vegas"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "vegas" in lines[0] and "cubic" in lines[0], r.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_nothing_is_left_however_the_run_ends(sig: signal.Signals, tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text(to_json(red_path(2, duration="30s")))
    p = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", "emulate", str(scenario), "-q"], stderr=subprocess.PIPE, text=True
    )
    # Wait until its namespaces exist, so that the signal comes mid-run.
    deadline = time.monotonic() + 30
    while not leftovers(p.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert leftovers(p.pid), "the emulation never started"
    time.sleep(2)
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    if sig == signal.SIGKILL:
        # The devices went with the process; its namespaces are stale, for the next run.
        from aqmlab.emulation.netns import remove_stale

        assert all(x.startswith("aqmlab-") for x in leftovers(p.pid))
        remove_stale()
    else:
        assert p.returncode == (130 if sig == signal.SIGINT else 143), err
        assert err.strip().splitlines()[-1] in ("interrupted", "terminated"), err
    assert leftovers(p.pid) == []
