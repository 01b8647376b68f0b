"""The reading of each difference over the aims in the issue-37 grid (reference_grid.py).

The issue asks, for every difference over its aim, for the mechanism found or "not found" and
what was ruled out. Those readings are written once, in ``findings.toml`` beside this file
(each names the cells it covers by profile, congestion control, qdisc, rate, RTT, flows and
metric), and two readings are computed from a cell's own record, because they are about the
measurement rather than the model:

- ``few-signals``: the smaller side saw fewer than ``FEW_SIGNALS`` drops (or marks) in its
  window, all seeds together; a count of n has a relative standard deviation near
  1/sqrt(n), more than 14 % below 50, so such a difference says little either way.
- ``few-cycles``: a queue or utilization difference where the smaller side saw fewer than
  ``FEW_CYCLES`` drops and marks in all (all seeds) and the sender is loss- or mark-driven (not
  BBR): the window holds a few sawtooth cycles at most, and where their ends fall in it moves
  the averages.
- ``kernel-seeds``: the kernel's seeds differ from each other by more (relative to their mean)
  than the two sides do: the difference is within the kernel's own run-to-run spread.

A curated mechanism or transient takes precedence, then the computed readings, then a curated
"not found" (which thereby covers only what the statistics do not). A metric over
its aim with no reading is reported as ``unread`` (tests/test_kernel_grid_findings.py fails on
it for the committed tables).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomllib

FINDINGS_TOML = Path(__file__).with_name("findings.toml")
KINDS = ("mechanism", "mechanism, residual", "not found", "transient")
MATCH_KEYS = ("profile", "cc", "aqm", "rate_mbps", "rtt_ms", "flows", "metrics")
FEW_SIGNALS = 50
FEW_CYCLES = 20
# The bottleneck's packet on the wire in the grid (reference_grid.PACKET)
PACKET_BYTES = 1040


@dataclass(frozen=True)
class Finding:
    id: str
    kind: str
    text: str
    match: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)

    def covers(self, cell: Mapping[str, Any], metric: str) -> bool:
        for key, allowed in self.match.items():
            value = metric if key == "metrics" else cell[key]
            if value not in allowed:
                return False
        return True


def load(path: Path = FINDINGS_TOML) -> list[Finding]:
    """The curated readings, checked: a malformed entry is an error naming it and the field."""
    doc = tomllib.loads(path.read_text())
    out = []
    for i, f in enumerate(doc.get("finding", [])):
        where = f"{path.name}: finding {i + 1} ({f.get('id', 'no id')})"
        unknown = set(f) - {"id", "kind", "text", *MATCH_KEYS}
        if unknown:
            raise ValueError(f"{where}: unknown field(s) {sorted(unknown)}")
        for key in ("id", "kind", "text"):
            if not isinstance(f.get(key), str) or not f[key].strip():
                raise ValueError(f"{where}: {key} must be a non-empty string")
        if f["kind"] not in KINDS:
            raise ValueError(f"{where}: kind must be one of {KINDS}, got {f['kind']!r}")
        match = {}
        for key in MATCH_KEYS:
            if key in f:
                if not isinstance(f[key], list) or not f[key]:
                    raise ValueError(f"{where}: {key} must be a non-empty list")
                match[key] = tuple(f[key])
        out.append(Finding(f["id"], f["kind"], f["text"].strip(), match))
    ids = [f.id for f in out]
    if len(ids) != len(set(ids)):
        raise ValueError(f"{path.name}: duplicate ids {sorted({i for i in ids if ids.count(i) > 1})}")
    return out


def _signals(rec: Mapping[str, Any], side: str, metric: str) -> float | None:
    """Drops or marks the ``side`` ("kernel" or "simulated") counted in its windows, all seeds
    together, from its rate per arrival and the bottleneck's departures."""
    if metric not in ("drop_rate", "mark_rate"):
        return None
    c = rec["cell"]
    window = float(rec["duration_s"]) - float(rec["warmup_s"])
    runs = [r["metrics"] for r in rec.get("kernel_runs", [])] if side == "kernel" else rec.get("simulated", [])
    total = 0.0
    for m in runs:
        util = float(m.get("bottleneck.utilization", 0.0))
        rate = float(m.get(f"bottleneck.{metric}", 0.0))
        departures = util * c["rate_mbps"] * 1e6 * window / 8 / PACKET_BYTES
        total += rate * departures / max(1e-12, 1 - rate) if rate < 1 else math.inf
    return total


def _kernel_seed_spread(rec: Mapping[str, Any], metric: str) -> float | None:
    vals = [float(r["metrics"].get(f"bottleneck.{metric}", math.nan)) for r in rec.get("kernel_runs", [])]
    vals = [v for v in vals if not math.isnan(v)]
    if len(vals) < 2:
        return None
    mean = sum(vals) / len(vals)
    return (max(vals) - min(vals)) / mean if mean else None


def reading(rec: Mapping[str, Any], metric: str, rel: float | None, findings: list[Finding]) -> str:
    """The id of the reading of ``metric``'s difference ``rel`` in the cell ``rec``."""
    cell = rec["cell"]
    for f in findings:
        if f.kind != "not found" and f.covers(cell, metric):
            return f.id
    counts = [_signals(rec, side, metric) for side in ("kernel", "simulated")]
    if all(n is not None for n in counts) and min(n for n in counts if n is not None) < FEW_SIGNALS:
        return "few-signals"
    # BBR's queue follows its gain cycle, not its losses: no sawtooth to count
    if metric in ("mean_queue", "utilization") and cell["profile"] != "bbr":
        signals = [
            sum(_signals(rec, side, m) or 0.0 for m in ("drop_rate", "mark_rate")) for side in ("kernel", "simulated")
        ]
        if min(signals) < FEW_CYCLES:
            return "few-cycles"
    spread = _kernel_seed_spread(rec, metric)
    if spread is not None and rel is not None and spread >= abs(rel):
        return "kernel-seeds"
    for f in findings:
        if f.covers(cell, metric):
            return f.id
    return "unread"


COMPUTED = {
    "few-signals": (
        "statistics",
        f"fewer than {FEW_SIGNALS} drops or marks in the window on the smaller side (all seeds): "
        "a count's relative spread is about 1/sqrt(n), over 14 %",
    ),
    "few-cycles": (
        "statistics",
        f"a queue or utilization difference with fewer than {FEW_CYCLES} drops and marks in the window on the "
        "smaller side (all seeds): a few sawtooth cycles at most, whose ends in the window move the averages",
    ),
    "kernel-seeds": ("statistics", "the kernel's own seeds differ by more than the two sides do"),
}
