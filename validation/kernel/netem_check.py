"""Issue 38: a link's netem stage (crates/aqmlab-core/src/link/netem.rs) against the kernel's
netem, through ``validate_kernel`` (docs/readings.md, "Bursty links: netem's jitter and slots").

    python validation/kernel/netem_check.py base|slots|jitter CPU     # results in netem_check/

Four CUBIC flows (linux profile), 10 Mb/s FQ-CoDel with the kernel's readings, access links of
100 Mb/s at 1 and 3 ms, starts uniform in [0, 1] s, 20 s measured after 5 s, seeds 1 and 2;
``slots``: netem ``slot 800us 5ms packets 16`` on every access link, both directions;
``jitter``: 2 ms of uniform jitter, in order, the same; ``base``: neither.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from kernel_check import run_and_record

HERE = Path(__file__).resolve().parent
SLOT = {"min_delay": "800us", "max_delay": "5ms", "packets": 16}
NETEM: dict[str, dict[str, Any]] = {"base": {}, "slots": {"slot": SLOT}, "jitter": {"jitter": "2ms", "reorder": False}}


def scenario(which: str) -> dict[str, Any]:
    access: dict[str, Any] = {"rate": "100Mbps", "delay": ["1ms", "3ms"]}
    if NETEM[which]:
        access["netem"] = access["reverse_netem"] = NETEM[which]
    aqm = {"kind": "fq_codel", "inv_sqrt": "linux", "clock_at_start": "1s", "mtu": 1054, "quantum": 1054}
    return {
        "name": f"netem-{which}",
        "duration": "25s",
        "warmup": "5s",
        "topology": {
            "kind": "dumbbell",
            "senders": 4,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 100, "aqm": aqm}},
            "access": access,
        },
        "tcp": {"profile": "linux"},
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers", "start": {"uniform": ["0s", "1s"]}}],
    }


def main(argv: list[str]) -> int:
    which, cpu = argv[0], int(argv[1]) if len(argv) > 1 else 0
    run_and_record(scenario(which), [1, 2], cpu, HERE / "netem_check" / f"{which}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
