"""The reference tables of issue 37 (docs/validation.md, "The simulator against the Linux
kernel's own TCP and qdiscs"): one dumbbell per cell, run by ``aqmlab validate-kernel``'s
Python API (simulated and in the reference kernel, Linux 6.1 under User-Mode Linux), and the
table of every cell.

    python validation/kernel/reference_grid.py --out DIR            # the reduced grid
    python validation/kernel/reference_grid.py --full --out DIR     # the issue's grid
    make validate-kernel-tables                                     # the reduced grid, into
                                                                    # validation/kernel/tables

Each cell: a dumbbell of N long-lived TCP flows from N senders to N receivers, bottleneck rate
R, base RTT T (access links 1 ms each way at 10 R, the bottleneck's one-way delay T/2 - 2 ms),
starts uniform in [0, 1] s; the bottleneck's buffer is max(1 BDP, 100) packets of 1040 bytes
(the simulator's packet: 1000 payload + 40 headers), the qdisc's own limit where it has one
below that. The qdiscs' parameters are aqmlab's defaults except where Linux's default differs
and the kernel carries the parameter (set to Linux's here, so that both sides run the same
qdisc): PIE's ``decay = "linux"`` (aqmlab's default is RFC 8033's) and, with ECN, its
``accu_prob_reset = "linux"`` (aqmlab's default is RFC 8033's); CoDel's and FQ-CoDel's
``inv_sqrt = "linux"`` (the kernel's fixed-point Newton steps; aqmlab's default is RFC 8289's
exact reciprocal) and ``clock_at_start = "1s"`` (the guest's clock when its flows start:
CoDel's first drop_next, 0, is "recent" for 1.6 s after boot); COBALT's ``queue_empty = "never"`` (cake flowblind never finds its one
flow empty, so BLUE's p never falls; aqmlab's default is ns-3's, on every idle link); PIE's
and FQ-PIE's
``t_update = "20ms"``, the kernel's 15 ms default as it runs in jiffies at the guest's HZ 100;
BBR's ``segmentation_offload = "none"`` (the guest's veths have ``gso_max_segs 1``, so its
kernel sends one segment per skb; the bbr profile's default is Linux's TSO autosizing); the
device's MTU (1054
with the Ethernet header) as ``mtu`` of pie, codel, fq_codel, fq_pie and cobalt and as fq_codel's
and fq_pie's ``quantum`` (Linux's default quantum is the device's MTU with its header; aqmlab's
is 1514). RED: Linux has no gentle mode, so ``gentle = false``; Linux spreads its signals as
p_b / (1 - count p_b), so ``wait = false`` (aqmlab's default ``wait = true`` is ns-2's
p_b / (2 - count p_b)); under the htb class Linux's RED never starts an idle period, so
``idle_decay = false``; Linux decides on the average alone where ns-2 spares a queue of at most
one packet, so ``short_queue_exempt = false``; thresholds as iproute2 sets them
when none are given (max = limit / 4, min = max / 3), ``max_p`` and ``w_q`` aqmlab's (0.1 and
0.002, which runs as 2^-9). ``step_marking``: K = 20 packets (aqmlab's default), on the
average red keeps with tc's least weight, ``average_weight = 0.5``.

Two seeds per cell (1 and 2); ``--duration`` (default 25 s) with ``--warmup`` (default 5 s):
20 s measured. Every finished cell is appended to ``DIR/cells.jsonl`` at once (``--resume``
skips the cells already there without an error, and runs the failed ones again), and at the
end ``DIR/cells.csv``, ``DIR/cells.json`` and ``DIR/table.md`` are written from it. A cell that fails (a refusal, the guest's error) is
recorded with its error and the grid goes on.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import platform
import statistics
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import findings  # validation/kernel/findings.py, beside this script

PACKET = 1040  # bytes on the wire per data packet: the simulator's default (1000 + 40)
ETH = 14
SEEDS = (1, 2)
LINUX_AQMS = ("droptail", "red", "pie", "codel", "fq_codel", "fq_pie", "cobalt")
# the kernel's qdisc for each (validate-kernel's mapping, docs/kernel-reference.md)
KERNEL_QDISC = {
    "droptail": "pfifo",
    "red": "red",
    "pie": "pie",
    "codel": "codel",
    "fq_codel": "fq_codel",
    "fq_pie": "fq_pie",
    "cobalt": "cake (COBALT: flowblind, unlimited)",
    "step_marking": "red (min = max = K, probability 1, ecn)",
    "fq_codel_ce": "fq_codel ce_threshold",
    "pie_ecn": "pie ecn",
}
# The aims: |sim - kernel| / kernel on these metrics.
AIMS = {
    "linux": (0.10, ("utilization", "drop_rate", "mark_rate", "mean_queue")),
    "dctcp": (0.15, ("mark_rate", "mean_queue", "dctcp_alpha")),
    "bbr": (0.10, ("utilization", "drop_rate", "mean_queue")),
}
METRICS = (
    "utilization",
    "drop_rate",
    "mark_rate",
    "mean_queue",
    "goodput",
    "mean_rtt",
    "retransmissions",
    "dctcp_alpha",
)


@dataclass(frozen=True)
class Cell:
    profile: str  # linux, dctcp, bbr
    cc: str  # the kernel's (and the simulator's) congestion control
    aqm: str  # aqmlab's AQM (or fq_codel_ce / pie_ecn: see aqm_table)
    flows: int
    rate_mbps: float
    rtt_ms: float

    @property
    def name(self) -> str:
        return f"{self.profile}-{self.cc}-{self.aqm}-{self.flows}f-{self.rate_mbps:g}M-{self.rtt_ms:g}ms"


def reduced_grid() -> list[Cell]:
    """What docs/validation.md shows today: the linux profile (CUBIC) through the seven qdiscs
    at 1, 4 and 16 flows, 10 Mb/s, 40 ms; DCTCP through a step and BBR through pfifo at 4 flows;
    then the seven qdiscs at 100 Mb/s with 4 flows; DCTCP through PIE with ECN, BBR through
    fq_codel and Reno through the seven qdiscs, at 4 flows and 10 Mb/s."""
    cells = [Cell("linux", "cubic", a, n, 10, 40) for n in (1, 4, 16) for a in LINUX_AQMS]
    cells.append(Cell("dctcp", "dctcp", "step_marking", 4, 10, 40))
    cells.append(Cell("bbr", "bbr", "droptail", 4, 10, 40))
    cells += [Cell("linux", "cubic", a, 4, 100, 40) for a in LINUX_AQMS]
    cells.append(Cell("dctcp", "dctcp", "pie_ecn", 4, 10, 40))
    cells.append(Cell("bbr", "bbr", "fq_codel", 4, 10, 40))
    cells += [Cell("linux", "reno", a, 4, 10, 40) for a in LINUX_AQMS]
    return cells


def full_grid() -> list[Cell]:
    """The issue's grid: the linux profile with CUBIC and Reno through the seven qdiscs at 1, 4,
    16 and 64 flows, 10 and 100 Mb/s and 1 Gb/s, two RTTs (10 and 40 ms); DCTCP through a RED
    step, fq_codel's ce_threshold and PIE with ECN; BBR through pfifo and fq_codel."""
    cells = []
    for rtt in (10, 40):
        for rate in (10, 100, 1000):
            for n in (1, 4, 16, 64):
                cells += [Cell("linux", cc, a, n, rate, rtt) for cc in ("cubic", "reno") for a in LINUX_AQMS]
                cells += [Cell("dctcp", "dctcp", a, n, rate, rtt) for a in ("step_marking", "fq_codel_ce", "pie_ecn")]
                cells += [Cell("bbr", "bbr", a, n, rate, rtt) for a in ("droptail", "fq_codel")]
    return cells


def limit_packets(cell: Cell) -> int:
    bdp = cell.rate_mbps * 1e6 * cell.rtt_ms / 1e3 / 8 / PACKET
    return max(100, math.ceil(bdp))


# PIE's and FQ-PIE's update interval as the guest's kernel runs it: their 15 ms default counts
# in jiffies at UML's HZ 100, 20 ms (kernel_qdiscs._tupdate_note); both sides run 20 ms.
KERNEL_TUPDATE = "20ms"


# CoDel as the reference kernel runs it: Linux's reciprocal, its clock 1 s after boot
KERNEL_CODEL = {"inv_sqrt": "linux", "clock_at_start": "1s"}


def aqm_table(cell: Cell) -> dict[str, Any]:
    """The bottleneck's AQM as written in the scenario (see the module's docstring)."""
    mtu = PACKET + ETH
    limit = limit_packets(cell)
    if cell.aqm == "droptail":
        return {"kind": "droptail"}
    if cell.aqm == "red":
        mx = limit / 4
        return {
            "kind": "red",
            "gentle": False,
            "wait": False,
            "idle_decay": False,
            "short_queue_exempt": False,
            "min_th": mx / 3,
            "max_th": mx,
            "max_p": 0.1,
            "w_q": 0.002,
        }
    if cell.aqm in ("pie", "pie_ecn"):
        pie: dict[str, Any] = {"kind": "pie", "decay": "linux", "mtu": mtu, "t_update": KERNEL_TUPDATE}
        if cell.aqm == "pie_ecn":
            pie |= {"ecn": True, "accu_prob_reset": "linux"}
        return pie
    if cell.aqm == "codel":
        return {"kind": "codel", "mtu": mtu, **KERNEL_CODEL}
    if cell.aqm in ("fq_codel", "fq_codel_ce"):
        t: dict[str, Any] = {"kind": "fq_codel", "mtu": mtu, "quantum": mtu, **KERNEL_CODEL}
        if cell.aqm == "fq_codel_ce":
            t["ce_threshold"] = "1ms"
        return t
    if cell.aqm == "fq_pie":
        return {"kind": "fq_pie", "mtu": mtu, "quantum": mtu, "t_update": KERNEL_TUPDATE}
    if cell.aqm == "cobalt":
        return {"kind": "cobalt", "mtu": mtu, "queue_empty": "never"}
    if cell.aqm == "step_marking":
        return {"kind": "step_marking", "k_packets": 20, "average_weight": 0.5}
    raise ValueError(f"unknown AQM {cell.aqm!r}")


def tcp_table(cell: Cell) -> dict[str, Any]:
    """The profile and its congestion control; a paced sender (BBR) sends one segment per skb,
    as the guest's kernel does (its veths' gso_max_segs 1 caps tcp_tso_segs)."""
    t: dict[str, Any] = {"profile": cell.profile, "congestion_control": cell.cc}
    if cell.cc == "bbr":
        t["segmentation_offload"] = "none"
    return t


def scenario(cell: Cell, duration_s: float, warmup_s: float) -> dict[str, Any]:
    """The cell's scenario, as a TOML file would give it."""
    one_way_ms = cell.rtt_ms / 2
    access_ms = 1.0
    return {
        "name": f"kernel-grid-{cell.name}",
        "duration": f"{duration_s:g}s",
        "warmup": f"{warmup_s:g}s",
        "topology": {
            "kind": "dumbbell",
            "senders": cell.flows,
            "bottleneck": {
                "rate": f"{cell.rate_mbps:g}Mbps",
                "delay": f"{one_way_ms - 2 * access_ms:g}ms",
                "queue": {"limit": limit_packets(cell), "aqm": aqm_table(cell)},
            },
            "access": {"rate": f"{10 * cell.rate_mbps:g}Mbps", "delay": f"{access_ms:g}ms"},
        },
        "tcp": tcp_table(cell),
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers", "start": {"uniform": ["0s", "1s"]}}],
    }


def run_cell(
    cell: Cell, duration_s: float, warmup_s: float, seeds: Iterable[int], simulate: bool = True, cpu: int = 0
) -> dict[str, Any]:
    from aqmlab.emulation.validate_kernel import validate_kernel

    out: dict[str, Any] = {"cell": asdict(cell), "name": cell.name, "limit_packets": limit_packets(cell)}
    t0 = time.monotonic()
    try:
        v = validate_kernel(scenario(cell, duration_s, warmup_s), list(seeds), simulate=simulate, cpu=cpu)
        _record(out, v)
    except Exception as e:  # noqa: BLE001 - a failed cell is recorded, the grid goes on
        out.update(error=f"{type(e).__name__}: {e}")
    out["wall_s"] = round(time.monotonic() - t0, 2)
    return out


def resimulate_cell(rec: dict[str, Any]) -> dict[str, Any]:
    """The record with its simulated side run again by the simulator as it is now, beside the
    kernel runs it holds (the same duration, warm-up and seeds)."""
    from aqmlab.emulation.validate_kernel import against_recorded_kernel

    cell = Cell(**rec["cell"])
    out = {k: v for k, v in rec.items() if k not in ("rows", "simulated")}
    try:
        v = against_recorded_kernel(scenario(cell, rec["duration_s"], rec["warmup_s"]), rec["kernel_runs"])
        _record(out, v)
    except Exception as e:  # noqa: BLE001 - a failed cell is recorded, the grid goes on
        out.update(error=f"{type(e).__name__}: {e}")
    return out


def _record(out: dict[str, Any], v: Any) -> None:
    d = v.to_dict()
    out.update({k: d[k] for k in ("qdisc", "notes", "seeds", "duration_s", "warmup_s", "rows", "kernel_runs")})
    out.update(simulated=v.simulated, error=None)


def _values(rec: dict[str, Any]) -> dict[str, tuple[float | None, float | None, float | None]]:
    vals: dict[str, tuple[float | None, float | None, float | None]] = {}
    for r in rec.get("rows") or []:
        if r["where"] == "bottleneck" or r["metric"] not in vals:
            vals[r["metric"]] = (r["simulated"], r["kernel"], r["relative_difference"])
    return vals


def over_aim_metrics(rec: dict[str, Any]) -> list[tuple[str, float | None]]:
    """The metrics whose relative difference is over the profile's aim (or undefined with one
    side nonzero: 0 against something), with that difference."""
    tol, names = AIMS[rec["cell"]["profile"]]
    out: list[tuple[str, float | None]] = []
    for name, (sim, ker, rel) in _values(rec).items():
        if name not in names:
            continue
        if rel is None:
            if (sim or 0) != 0 and (ker or 0) == 0:
                out.append((name, None))
        elif abs(rel) > tol:
            out.append((name, rel))
    return out


def over_aims(rec: dict[str, Any]) -> list[str]:
    return [f"{n} (kernel 0)" if rel is None else f"{n} {rel * 100:+.1f} %" for n, rel in over_aim_metrics(rec)]


def readings(rec: dict[str, Any], found: list[findings.Finding]) -> list[tuple[str, str]]:
    """(metric, reading id) for each metric over its aim (findings.py)."""
    return [(n, findings.reading(rec, n, rel, found)) for n, rel in over_aim_metrics(rec)]


def _fmt(x: float | None, metric: str) -> str:
    if x is None:
        return "-"
    if metric in ("drop_rate", "mark_rate"):
        return "0" if x == 0 else f"{x:.3g}"
    if metric == "utilization":
        return f"{x:.3f}"
    if metric == "retransmissions":
        return f"{x:.0f}"
    return f"{x:.2f}"


def _pct(x: float | None) -> str:
    return "" if x is None else f"{x * 100:+.1f} %"


def markdown(records: list[dict[str, Any]]) -> str:
    cols = ("utilization", "drop_rate", "mark_rate", "mean_queue", "goodput", "mean_rtt")
    found = findings.load()
    head = (
        "| cell | qdisc (kernel) | "
        + " | ".join(f"{c} sim / kernel / diff" for c in cols)
        + " | over the aim | reading (findings.md) |"
    )
    lines = [head, "|" + "---|" * (len(cols) + 4)]
    for rec in records:
        c = rec["cell"]
        label = (
            f"{c['profile']} {c['cc']}, {c['flows']} flow{'s' if c['flows'] > 1 else ''}, {c['rate_mbps']:g} Mb/s, "
            f"{c['rtt_ms']:g} ms"
        )
        if rec.get("seeds"):
            label += f" ({len(rec['seeds'])} seed{'s' if len(rec['seeds']) > 1 else ''}, "
            label += f"{float(rec['duration_s']) - float(rec['warmup_s']):g} s)"
        qd = KERNEL_QDISC.get(c["aqm"], c["aqm"])
        if rec.get("error"):
            lines.append(f"| {label} | {qd} | " + " | ".join("-" for _ in cols) + f" | failed: {rec['error']} | |")
            continue
        vals = _values(rec)
        cells = []
        for m in cols:
            sim, ker, rel = vals.get(m, (None, None, None))
            cells.append(f"{_fmt(sim, m)} / {_fmt(ker, m)} / {_pct(rel) or '-'}")
        read = "; ".join(f"{m}: {r}" for m, r in readings(rec, found))
        lines.append(f"| {label} | {qd} | " + " | ".join(cells) + f" | {'; '.join(over_aims(rec)) or 'no'} | {read} |")
    return "\n".join(lines) + "\n"


def findings_markdown(records: list[dict[str, Any]]) -> str:
    """Each reading with the over-aim metrics it covers (cells and metrics), in the order of
    findings.toml, then the computed ones and the metrics left unread."""
    found = findings.load()
    covered: dict[str, list[str]] = {}
    for rec in records:
        if rec.get("error"):
            continue
        for metric, rid in readings(rec, found):
            covered.setdefault(rid, []).append(f"{rec['name']} ({metric})")
    lines = ["| reading | kind | over-aim metrics it covers | what was found or ruled out |", "|---|---|---|---|"]
    texts = {f.id: (f.kind, f.text) for f in found} | findings.COMPUTED
    for rid in [f.id for f in found] + list(findings.COMPUTED) + ["unread"]:
        if rid not in covered:
            continue
        kind, text = texts.get(rid, ("none", "no reading written"))
        cells = covered[rid]
        lines.append(f"| {rid} | {kind} | {len(cells)}: {', '.join(cells)} | {' '.join(text.split())} |")
    return "\n".join(lines) + "\n"


def summary(records: list[dict[str, Any]]) -> str:
    """One row per (profile, congestion control, AQM, rate, RTT) over the flow counts: the
    cells within the profile's aims, and per aimed metric the median relative difference and
    the largest in size (the cells' own rows are in table.md)."""
    groups: dict[tuple[str, str, str, float, float], list[dict[str, Any]]] = {}
    for rec in records:
        c = rec["cell"]
        groups.setdefault((c["profile"], c["cc"], c["aqm"], c["rate_mbps"], c["rtt_ms"]), []).append(rec)
    lines = [
        "| profile, cc | qdisc (kernel) | rate, RTT | flows | within the aims | "
        "median (largest) difference per aimed metric |",
        "|---|---|---|---|---|---|",
    ]
    for (profile, cc, aqm, rate, rtt), recs in groups.items():
        ok = [r for r in recs if not r.get("error") and not over_aims(r)]
        failed = [r for r in recs if r.get("error")]
        per_metric = []
        for m in AIMS[profile][1]:
            rels = [
                v[2] for r in recs if not r.get("error") for k, v in _values(r).items() if k == m and v[2] is not None
            ]
            if rels:
                worst = max(rels, key=abs)
                per_metric.append(f"{m} {statistics.median(rels) * 100:+.1f} % ({worst * 100:+.1f} %)")
        flows = ", ".join(str(r["cell"]["flows"]) for r in recs)
        within = f"{len(ok)} of {len(recs)}" + (f" ({len(failed)} failed)" if failed else "")
        lines.append(
            f"| {profile} {cc} | {KERNEL_QDISC.get(aqm, aqm)} | {rate:g} Mb/s, {rtt:g} ms | {flows} | {within} | "
            + "; ".join(per_metric)
            + " |"
        )
    return "\n".join(lines) + "\n"


def windows_and_seeds(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The measurement windows and seed sets the cells ran with (a grid run in stages mixes
    them: each cell's own are in its record)."""
    ran = [r for r in records if r.get("seeds")]
    return {
        "windows_s": sorted({f"{r['duration_s']:g} s, {r['warmup_s']:g} s warm-up" for r in ran}),
        "seed_sets": sorted({tuple(r["seeds"]) for r in ran}),
    }


def write_outputs(out: Path, records: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    meta = {k: v for k, v in meta.items() if k not in ("duration_s", "warmup_s", "seeds")}
    meta |= windows_and_seeds(records)
    (out / "cells.json").write_text(json.dumps({"meta": meta, "cells": records}, indent=1) + "\n")
    with (out / "cells.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["cell", "profile", "cc", "aqm", "flows", "rate_mbps", "rtt_ms", "limit_packets", "qdisc", "metric",
                    "simulated", "kernel", "relative_difference", "error"])  # fmt: skip
        for rec in records:
            c = rec["cell"]
            base = [rec["name"], c["profile"], c["cc"], c["aqm"], c["flows"], c["rate_mbps"], c["rtt_ms"],
                    rec["limit_packets"], rec.get("qdisc", "")]  # fmt: skip
            if rec.get("error"):
                w.writerow([*base, "", "", "", "", rec["error"]])
            for r in rec.get("rows") or []:
                w.writerow(
                    [*base, f"{r['where']}.{r['metric']}", r["simulated"], r["kernel"], r["relative_difference"], ""]
                )
    (out / "table.md").write_text(markdown(records))
    (out / "summary.md").write_text(summary(records))
    (out / "findings.md").write_text(findings_markdown(records))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="the issue's grid (default: the reduced grid)")
    ap.add_argument("--out", type=Path, help="directory for cells.jsonl/csv/json and table.md")
    ap.add_argument("--duration", type=float, default=25.0, help="seconds, warm-up included (default 25)")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds (default 5)")
    ap.add_argument("--seeds", type=int, default=len(SEEDS), help="seeds 1..N per cell (default 2)")
    ap.add_argument("--only", default="", help="run only the cells whose name contains this")
    ap.add_argument("--resume", action="store_true", help="skip the cells DIR/cells.jsonl has without an error")
    ap.add_argument(
        "--cpu", type=int, default=0, help="host CPU the guests are pinned to (two runners: two CPUs, two DIRs)"
    )
    ap.add_argument("--list", action="store_true", help="print the cells and exit")
    ap.add_argument("--tables-only", action="store_true", help="rewrite the tables from DIR/cells.jsonl, run nothing")
    ap.add_argument(
        "--kernel-only",
        action="store_true",
        help="run the kernel's side only (fill the simulated side later with --resimulate)",
    )
    ap.add_argument(
        "--resimulate",
        action="store_true",
        help="run the simulated side again beside the kernel runs DIR/cells.jsonl holds, boot nothing",
    )
    a = ap.parse_args(argv)

    cells = full_grid() if a.full else reduced_grid()
    cells = [c for c in cells if a.only in c.name]
    if a.list:
        for c in cells:
            print(c.name)
        return 0
    if a.out is None:
        ap.error("--out DIR is required")
    from aqmlab.emulation.uml_kernel import UmlKernelMissing, find_kernel

    if a.tables_only or a.resimulate:
        recs: dict[str, dict[str, Any]] = {}
        for line in (a.out / "cells.jsonl").read_text().splitlines():
            rec = json.loads(line)
            if rec["name"] not in recs or not rec.get("error"):
                recs[rec["name"]] = rec
        if a.resimulate:
            chosen = {c.name for c in cells}
            for name, rec in recs.items():
                if name in chosen and rec.get("kernel_runs"):
                    print(f"resimulating {name}", flush=True)
                    recs[name] = resimulate_cell(rec)
            with (a.out / "cells.jsonl").open("w") as f:
                f.writelines(json.dumps(r) + "\n" for r in recs.values())
        kept = [recs[c.name] for c in cells if c.name in recs]
        meta = json.loads((a.out / "cells.json").read_text())["meta"] if (a.out / "cells.json").exists() else {}
        meta["wall_s_cells"] = round(sum(float(r.get("wall_s", 0)) for r in kept), 1)
        if a.resimulate:
            meta["simulated_side"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        write_outputs(a.out, kept, meta)
        return 0
    try:
        find_kernel()
    except UmlKernelMissing as e:
        print(f"reference_grid: {e}", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    log = a.out / "cells.jsonl"
    done: dict[str, dict[str, Any]] = {}
    if a.resume and log.exists():
        for line in log.read_text().splitlines():
            rec = json.loads(line)
            if not rec.get("error"):
                done[rec["name"]] = rec
    elif log.exists():
        log.unlink()
    t0 = time.monotonic()
    for i, cell in enumerate(cells, 1):
        if cell.name in done:
            continue
        print(f"[{i}/{len(cells)}] {cell.name} ...", end=" ", flush=True)
        rec = run_cell(cell, a.duration, a.warmup, range(1, a.seeds + 1), simulate=not a.kernel_only, cpu=a.cpu)
        done[cell.name] = rec
        with log.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        verdict = "kernel side only" if a.kernel_only else ("; ".join(over_aims(rec)) or "within the aims")
        print(f"{rec['wall_s']:.1f} s", rec["error"] or verdict, flush=True)
    records = [done[c.name] for c in cells if c.name in done]
    meta = {
        "grid": "full" if a.full else "reduced",
        "duration_s": a.duration,
        "warmup_s": a.warmup,
        "seeds": list(range(1, a.seeds + 1)),
        "machine": f"{platform.node()} {platform.machine()} {platform.system()} {platform.release()}",
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "wall_s_this_invocation": round(time.monotonic() - t0, 1),
        "wall_s_cells": round(sum(float(r.get("wall_s", 0)) for r in records), 1),
    }
    write_outputs(a.out, records, meta)
    print(f"{len(records)} cells, {meta['wall_s_cells']} s of cell wall time; {a.out / 'table.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
