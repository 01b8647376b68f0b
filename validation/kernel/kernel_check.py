"""What the kernel checks of one mechanism share (netem_check.py, dualpi2_check.py): run a
scenario in the reference kernel and the simulator, print the table, keep the comparison."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aqmlab.emulation.validate_kernel import validate_kernel


def run_and_record(scenario: dict[str, Any], seeds: list[int], cpu: int, out: Path) -> None:
    """``validate_kernel`` on ``seeds`` with the guest on host CPU ``cpu``; each metric's
    simulated and kernel mean printed, the whole comparison written to ``out`` (JSON)."""
    v = validate_kernel(scenario, seeds, cpu=cpu)
    for r in v.rows():
        print(f"{r['where']:10} {r['metric']:18} sim {r['simulated']:10.4g} kernel {r['kernel']:10.4g}")
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(v.to_dict(), indent=1, default=str) + "\n")
