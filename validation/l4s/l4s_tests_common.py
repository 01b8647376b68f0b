"""What the re-runs of heistp/l4s-tests share: the published transcription, the TCP Prague the
source's lab kernel ran, its packets, and its metrics (python/aqmlab/reproduce/papers/published/l4s_tests.md).

The lab kernel: L4STeam/linux b256daedc767 (Aug 2020), tcp_prague.c v0.5 with its module
defaults (the harness sets only ``net.ipv4.tcp_ecn = 3`` on both ends): no RTT independence
(``prague_rtt_scaling`` 0, target 15 ms, 100 rounds), alpha starting at 1, the increase one packet
per round trip on ``snd_cwnd``, the window moving by whole packets, classic ECN detection off
(``prague_ecn_fallback`` 0). docs/readings.md, "TCP Prague's versions".
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import aqmlab
import tomllib
from aqmlab.reproduce import PAPERS

PUBLISHED = PAPERS / "published" / "l4s_tests.toml"

# 1500-byte packets: 1448 payload and 52 bytes of headers (TCP timestamps on, Linux's default).
PACKET = 1500
TCP_PACKET = {"packet_size": PACKET - 52, "header_size": 52}

V05_PRAGUE: dict[str, Any] = {
    "rtt_scaling": "none",
    "rtt_target": "15ms",
    "rtt_transition": 100,
    "alpha_start": "one",
    "ai_unit": "packet",
    "window_rounding": "floor",
    "classic_ecn": "off",
}

# sch_dualpi2 as the L4S team's module of 2019-2020 runs it (L4STeam/linux net/sched/sch_dualpi2.c,
# as read at 29c297fd79dd; the sources' exact commits are not in the code index):
# `dualpi2_qdisc_enqueue` sets `apply_step = qdisc_qlen(q->l_queue) > 1` ("Only apply the step if
# a queue is building up"), the step marking only packets that found two or more in the L queue:
# aqmlab's `min_qlen_step = 2` (upstream Linux's `min_qlen_step` defaults to 0, aqmlab's too).
# Its other defaults (`dualpi2_reset_default`) are aqmlab's.
DUALPI2_2020: dict[str, Any] = {"kind": "dualpi2", "min_qlen_step": 2}

# The Prague readings every re-run shows: the source's, and its classic ECN fallback on.
READINGS = {"v0.5 (published kernel)": "off", "v0.5 with classic_ecn = fallback": "fallback"}


def published_cells(scenario: str) -> list[dict[str, Any]]:
    """The transcribed table rows of one scenario (``s1_rtt_fairness``, ``s6_rfc3168_aqms``)."""
    data = tomllib.loads(PUBLISHED.read_text())
    return [c for c in data["cell"] if c.get("scenario") == scenario and c.get("kind") == "table"]


# flent starts its flows together ("t = 0"), a few milliseconds apart as its processes start:
# here uniform over the first 10 ms, so that a seed draws which flow is first (in a FIFO that
# decides the split; with all starts at 0 every seed gave the same run).
START = {"uniform": ["0s", "10ms"]}


def published_text_cells(scenario: str) -> list[dict[str, Any]]:
    """The numbers a scenario's README text states (``kind = "text"`` rows, with their quotes)."""
    data = tomllib.loads(PUBLISHED.read_text())
    return [c for c in data["cell"] if c.get("scenario") == scenario and c.get("kind") == "text"]


def tcp_flow(i: int, cc: str, classic_ecn: str, group: str) -> dict[str, Any]:
    """Flow ``i`` (host s<i> to d<i>): ``prague`` (v0.5), or ``cubic`` / ``reno`` with or without
    ECN (``cubic-noecn``: the source bleached its ECN bits at the middlebox, so the AQM drops)."""
    if cc == "prague":
        tcp = {**TCP_PACKET, "profile": "prague", "prague": {**V05_PRAGUE, "classic_ecn": classic_ecn}}
    else:
        name, _, ecn = cc.partition("-")
        tcp = {**TCP_PACKET, "profile": "linux", "congestion_control": name, "ecn": ecn != "noecn"}
    return {"kind": "tcp", "from": f"s{i}", "to": f"d{i}", "group": group, "start": START, "tcp": tcp}


def jain(a: float, b: float) -> float:
    """Jain's index of two rates, as steady_state.go's ``jains``."""
    return (a + b) ** 2 / (2 * (a * a + b * b)) if a or b else float("nan")


def ratio(a: float, b: float) -> str:
    """steady_state.go's ratio: ``%.0f:1`` of a / b, or ``1:%.0f``."""
    if b <= 0 or a <= 0:
        return "inf" if a > b else "0"
    return f"{a / b:.0f}:1" if a > b else f"1:{b / a:.0f}"


def parse_args(doc: str | None, argv: list[str] | None) -> argparse.Namespace:
    """A re-run's command line: ``--out DIR``, ``--seeds N`` (3), ``--only TEXT`` (the cells whose
    qdisc contains it)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--only", default="", help="run the cells whose qdisc contains this")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    return args


def two_flow_dss(
    scenario: dict[str, Any], groups: tuple[str, str], capacity_mbps: float, seeds: list[int]
) -> dict[str, Any]:
    """Both flows' D_SS (goodput in the measurement window, Mb/s), the mean over ``seeds``, their
    Jain index, and the range of flow 1's share over the seeds."""
    d1, d2, share = [], [], []
    for seed in seeds:
        g = aqmlab.run(scenario, seed=seed).flows.set_index("group")["goodput_bps"] / 1e6
        assert 0 <= g.sum() <= capacity_mbps, f"goodput {g.sum()} above the {capacity_mbps} Mb/s bottleneck"
        d1.append(float(g[groups[0]]))
        d2.append(float(g[groups[1]]))
        share.append(d1[-1] / (d1[-1] + d2[-1]))
    a, b = sum(d1) / len(d1), sum(d2) / len(d2)
    return {"dss1_mbps": a, "dss2_mbps": b, "jain": jain(a, b), "share1": [min(share), max(share)]}
