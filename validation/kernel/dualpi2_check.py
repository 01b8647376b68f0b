"""Issue 38: aqmlab's DualPI2 (crates/aqmlab-core/src/aqm/dualpi2.rs) against Linux 7.3's
sch_dualpi2 in the second reference kernel (`make uml-kernel-l4s-upstream`), through
``validate_kernel`` (docs/kernel-reference.md, "DualPI2 in validate-kernel").

    python validation/kernel/dualpi2_check.py CELL CPU      # results in dualpi2_check/CELL.json

Cells (every one 25 s measured after 5 s, seeds 1 to 3, 1500-byte packets, access links of
100 Mb/s at 1 and 2 ms, the bottleneck's 8 ms: about 20 ms of base RTT, starts uniform in
[0, 1] s; DualPI2 at Linux's defaults unless named):
- ``coexist``: two DCTCP flows sending ECT(1) (the L queue) and two CUBIC flows without ECN (the
  Classic queue), 20 Mb/s: the coupling, the step, PI2's squared drops.
- ``classic_ecn``: four CUBIC flows with ECN (ECT(0): the Classic queue, marked with p_C), 20 Mb/s.
- ``l_only_10m``: four DCTCP flows sending ECT(1) at 10 Mb/s, where a 1500-byte packet's 1.2 ms
  is above the 1 ms step: every L packet behind another is marked.
- ``l_only_10m_qlen2``: the same with ``min_qlen_step = 2`` (the step only for packets that found
  two or more in the L queue; upstream's TCA_DUALPI2_MIN_QLEN_STEP).
- ``coexist_accecn``: ``coexist`` with the DCTCP flows on Accurate ECN (``ecn_feedback =
  "accecn"``; in the kernel tcp_ecn = 3 at both ends: Linux 7.3's AccECN).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from kernel_check import run_and_record

HERE = Path(__file__).resolve().parent
PACKET = {"packet_size": 1448, "header_size": 52}
DCTCP_L = {"profile": "dctcp", "ecn_codepoint": "ect1", **PACKET}
DCTCP_L_ACCECN = {**DCTCP_L, "ecn_feedback": "accecn"}
CUBIC = {"profile": "linux", **PACKET}
CUBIC_ECN = {"profile": "linux", "ecn": True, **PACKET}


def flows(*groups: tuple[str, dict[str, Any], int]) -> list[dict[str, Any]]:
    out, first = [], 0
    for name, tcp, n in groups:
        hosts = list(range(first, first + n))
        out.append(
            {
                "kind": "tcp",
                "from": [f"s{i}" for i in hosts],
                "to": [f"d{i}" for i in hosts],
                "group": name,
                "start": {"uniform": ["0s", "1s"]},
                "tcp": tcp,
            }
        )
        first += n
    return out


CELLS: dict[str, tuple[str, dict[str, Any], list[dict[str, Any]]]] = {
    "coexist": ("20Mbps", {"kind": "dualpi2"}, flows(("dctcp", DCTCP_L, 2), ("cubic", CUBIC, 2))),
    "coexist_accecn": ("20Mbps", {"kind": "dualpi2"}, flows(("dctcp", DCTCP_L_ACCECN, 2), ("cubic", CUBIC, 2))),
    "classic_ecn": ("20Mbps", {"kind": "dualpi2"}, flows(("cubic", CUBIC_ECN, 4))),
    "l_only_10m": ("10Mbps", {"kind": "dualpi2"}, flows(("dctcp", DCTCP_L, 4))),
    "l_only_10m_qlen2": ("10Mbps", {"kind": "dualpi2", "min_qlen_step": 2}, flows(("dctcp", DCTCP_L, 4))),
}


def scenario(cell: str) -> dict[str, Any]:
    rate, aqm, fl = CELLS[cell]
    return {
        "name": f"dualpi2-{cell}",
        "duration": "25s",
        "warmup": "5s",
        "topology": {
            "kind": "dumbbell",
            "senders": 4,
            "bottleneck": {"rate": rate, "delay": "8ms", "queue": {"limit": 1000, "aqm": aqm}},
            "access": {"rate": "100Mbps", "delay": ["1ms", "2ms"]},
        },
        "flows": fl,
    }


def main(argv: list[str]) -> int:
    cell, cpu = argv[0], int(argv[1]) if len(argv) > 1 else 0
    run_and_record(scenario(cell), [1, 2, 3], cpu, HERE / "dualpi2_check" / f"{cell}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
