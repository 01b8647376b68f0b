"""The readings of the issue-37 kernel grid (validation/kernel/findings.py, findings.toml):
well-formed, applied in their order, and covering every difference over the aims in the
committed tables."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

KERNEL_DIR = Path(__file__).resolve().parents[1] / "validation" / "kernel"


def _load(name: str) -> ModuleType:
    if str(KERNEL_DIR) not in sys.path:
        sys.path.insert(0, str(KERNEL_DIR))
    spec = importlib.util.spec_from_file_location(name, KERNEL_DIR / f"{name}.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


findings = _load("findings")
grid = _load("reference_grid")


def record(aqm: str, drop_k: list[float], drop_s: float, *, flows: int = 4, util: float = 1.0) -> dict[str, Any]:
    """A 10 Mb/s, 10 ms cell with 20 s measured per seed, the kernel's seeds' drop rates
    ``drop_k``, the simulation's ``drop_s`` (each seed)."""
    kernel = [
        {"seed": i + 1, "metrics": {"bottleneck.utilization": util, "bottleneck.drop_rate": d}}
        for i, d in enumerate(drop_k)
    ]
    sim = [{"bottleneck.utilization": util, "bottleneck.drop_rate": drop_s} for _ in drop_k]
    mean_k = sum(drop_k) / len(drop_k)
    return {
        "name": f"linux-cubic-{aqm}-{flows}f-10M-10ms",
        "cell": {"profile": "linux", "cc": "cubic", "aqm": aqm, "flows": flows, "rate_mbps": 10, "rtt_ms": 10},
        "duration_s": 25.0,
        "warmup_s": 5.0,
        "kernel_runs": kernel,
        "simulated": sim,
        "rows": [
            {
                "where": "bottleneck",
                "metric": "drop_rate",
                "simulated": drop_s,
                "kernel": mean_k,
                "relative_difference": (drop_s - mean_k) / mean_k,
            },
        ],  # fmt: skip
    }


def test_the_committed_readings_are_well_formed() -> None:
    found = findings.load()
    assert found, "findings.toml holds no reading"
    assert all(f.kind in findings.KINDS for f in found)


def test_a_malformed_reading_names_itself_and_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "f.toml"
    bad.write_text('[[finding]]\nid = "x"\nkind = "guess"\ntext = "t"\n')
    with pytest.raises(ValueError, match=r"finding 1 \(x\): kind"):
        findings.load(bad)
    bad.write_text('[[finding]]\nid = "x"\nkind = "not found"\ntext = "t"\nrtt = [10]\n')
    with pytest.raises(ValueError, match="unknown field"):
        findings.load(bad)


def test_mechanisms_then_statistics_then_not_found(tmp_path: Path) -> None:
    toml = tmp_path / "f.toml"
    toml.write_text(
        '[[finding]]\nid = "red-mech"\nkind = "mechanism"\naqm = ["red"]\ntext = "t"\n'
        '[[finding]]\nid = "pie-nf"\nkind = "not found"\naqm = ["pie"]\ntext = "t"\n'
    )
    found = findings.load(toml)
    # 10 Mb/s, 20 s: 24,038 departures per seed. 0.1 % drops: 24 per seed, 48 in all < 50.
    few = record("red", [0.001, 0.001], 0.0013)
    assert findings.reading(few, "drop_rate", 0.3, found) == "red-mech"
    few_pie = record("pie", [0.001, 0.001], 0.0013)
    assert findings.reading(few_pie, "drop_rate", 0.3, found) == "few-signals"
    # 1 % drops: 480 in all; the kernel's seeds 0.008 and 0.012 differ by 40 % of their mean.
    spread = record("codel", [0.008, 0.012], 0.013)
    assert findings.reading(spread, "drop_rate", 0.3, found) == "kernel-seeds"
    many_pie = record("pie", [0.01, 0.0101], 0.013)
    assert findings.reading(many_pie, "drop_rate", 0.3, found) == "pie-nf"
    many_codel = record("codel", [0.01, 0.0101], 0.013)
    assert findings.reading(many_codel, "drop_rate", 0.3, found) == "unread"


def test_every_difference_over_the_aims_in_the_committed_grid_has_a_reading() -> None:
    cells = json.loads((KERNEL_DIR / "tables_full" / "cells.json").read_text())["cells"]
    found = findings.load()
    unread = [
        f"{rec['name']} ({metric})"
        for rec in cells
        if not rec.get("error")
        for metric, rid in grid.readings(rec, found)
        if rid == "unread"
    ]
    assert not unread, f"{len(unread)} over-aim metrics without a reading in findings.toml: {unread[:10]}"
