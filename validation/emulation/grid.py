"""The simulator (linux profile) against the kernel (aqmlab emulate) on path.toml, for the
AQMs and flow counts of docs/validation.md (issue 26). Run as root on a quiet machine:

    python validation/emulation/grid.py [--flows 1 10 50] [--aqms droptail red ...] [--seeds 1]
        [--duration 30s] [--out validation/emulation/results]

Writes one JSON per cell (resumable: a cell with a file is not run again) and prints the
Markdown table of docs/validation.md. BBR cells are emulated only (the simulator has no BBR).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from aqmlab.emulation.validate import validate_emulation
from aqmlab.scenario import load_scenario

HERE = Path(__file__).parent
AQMS = ("droptail", "red", "pie", "codel", "fq_codel", "dsred")
METRICS = ("utilization", "drop_rate", "mean_queue", "mean_delay", "jain_index")


def cell(aqm: str, flows: int, cc: str, seeds: int, duration: str, out: Path) -> dict[str, Any]:
    path = out / f"{aqm}-{flows}-{cc}.json"
    if path.exists():
        return dict(json.loads(path.read_text()))
    s = load_scenario(HERE / "path.toml")
    s["topology"]["senders"] = flows
    s["topology"]["bottleneck"]["queue"]["aqm"] = aqm
    v = validate_emulation(s, range(1, seeds + 1), duration=duration, congestion_control=cc)
    d = v.to_dict() | {"aqm": aqm, "flows": flows}
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(d, indent=1))
    return d


def fmt(x: float, digits: int = 3) -> str:
    return "-" if not math.isfinite(x) else f"{x:.{digits}g}"


def rel(x: float) -> str:
    return "" if not math.isfinite(x) else f"{100 * x:+.0f} %"


def table(cells: list[dict[str, Any]]) -> str:
    head = "| AQM | flows | cc | " + " | ".join(f"{m} sim / emu (diff)" for m in METRICS) + " | lag p99 us |"
    lines = [head, "|" + "---|" * (4 + len(METRICS))]
    for c in cells:
        rows = {r["metric"]: r for r in c["rows"]}
        parts = [
            f"{fmt(rows[m]['simulated'])} / {fmt(rows[m]['emulated'])} {rel(rows[m]['relative_difference'])}"
            for m in METRICS
        ]
        valid = "" if c["lag"]["all_valid"] else " (invalid)"
        lines.append(
            f"| {c['aqm']} | {c['flows']} | {c['congestion_control']} | "
            + " | ".join(parts)
            + f" | {c['lag']['departure_lag_p99_us']:.0f}{valid} |"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--aqms", nargs="+", default=list(AQMS))
    p.add_argument("--flows", nargs="+", type=int, default=[1, 10, 50])
    p.add_argument("--bbr-flows", type=int, default=10)
    p.add_argument("--seeds", type=int, default=1)
    p.add_argument("--duration", default="30s")
    p.add_argument("--out", type=Path, default=HERE / "results")
    a = p.parse_args()
    cells = []
    for aqm in a.aqms:
        for n in a.flows:
            cells.append(cell(aqm, n, "cubic", a.seeds, a.duration, a.out))
            print(table(cells[-1:]).splitlines()[-1], flush=True)
        if a.bbr_flows:
            cells.append(cell(aqm, a.bbr_flows, "bbr", a.seeds, a.duration, a.out))
            print(table(cells[-1:]).splitlines()[-1], flush=True)
    print()
    print(table(cells))


if __name__ == "__main__":
    main()
