"""The SCE/L4S "bakeoff" (heistp/sce-l4s-bakeoff), its L4S side re-run beside what its README
states: the six scenarios but the fourth (an ECT(1) mangler, which aqmlab cannot express: a
middlebox rewriting TOS bytes), each with one-flow and two-flow runs at 0, 10 and 80 ms of added
RTT.

    python validation/l4s/bakeoff.py --out DIR          # 105 runs, seed 1

The source (``python/aqmlab/reproduce/papers/published/sce_l4s_bakeoff.toml`` and ``.md``, every statement with its README line
at 5b25a9d): a chain client - M1 - M2 - M3 - M4 - server; each scenario shapes some middleboxes
(htb on both interfaces, so both directions) with a qdisc, and one box adds the RTT with netem
on its ingress, both directions (``delay rtt/2``). 60 s runs; two-flow runs start flow 2 at
10 s. No tables: the README states a few numbers read off its plots ("~", "about"), which are
what is compared. Its L4S kernel: the tag ``testing/5-11-2019`` (Linux 5.3-rc3), Prague of 2019
(Reno's increase, DCTCP's decrease, alpha from 0 without a first-mark rule, no RTT
independence: ``tcp.prague`` ``rtt_scaling = "none"``, ``alpha_start = "zero"``, ``ai_unit =
"packet"``, ``window_rounding = "floor"``); CUBIC with ECN (``tcp_ecn = 3`` on both ends);
DCTCP (the dctcp profile).

Here: each box's egress is one directed link (10 Gb/s and a 1000-packet drop-tail where the
source shapes nothing; the VMs' base RTT is not recorded, so the 0 ms runs have none); the
netem box's two incoming links carry rtt/2 each. Scenario 5's and 6's ``pfifo_fast`` hold
1000 packets (the device's txqueuelen, not recorded).

Measured per run, from 100 ms samples (the source's step): each flow's goodput over 10-60 s and
their ratio; flow 1's srtt spike after flow 2 starts (height above its median srtt over 5-10 s,
and the width at half that height); the convergence time (from 10 s until the two flows' 1 s
goodputs stay within 1.5x of each other for 5 s); a single flow's median srtt over 20-60 s
above its least.
"""

from __future__ import annotations

import json
import statistics
import sys
from typing import Any

import aqmlab
import tomllib
from aqmlab.reproduce import PAPERS
from l4s_tests_common import DUALPI2_2020, TCP_PACKET, parse_args

PUBLISHED = PAPERS / "published" / "sce_l4s_bakeoff.toml"

PRAGUE_2019 = {"rtt_scaling": "none", "alpha_start": "zero", "ai_unit": "packet", "window_rounding": "floor"}
FQ_CODEL = {"kind": "fq_codel", "inv_sqrt": "linux"}
BOXES = ["m1", "m2", "m3", "m4"]

# Per scenario: each shaped box's (rate, aqm, limit) on both its interfaces, and the netem box.
SCENARIOS: dict[int, tuple[dict[str, tuple[str, Any, int]], str]] = {
    1: ({"m3": ("50Mbps", DUALPI2_2020, 10000)}, "m3"),
    2: ({"m2": ("50Mbps", FQ_CODEL, 10240), "m3": ("10Gbps", DUALPI2_2020, 10000)}, "m2"),
    3: ({"m2": ("50Mbps", {**FQ_CODEL, "flows": 1}, 10240), "m3": ("10Gbps", DUALPI2_2020, 10000)}, "m2"),
    5: (
        {
            "m1": ("100Mbps", DUALPI2_2020, 10000),
            "m2": ("50Mbps", "droptail", 1000),
            "m4": ("47.5Mbps", FQ_CODEL, 10240),
        },
        "m2",
    ),
    6: ({"m3": ("52.5Mbps", "droptail", 1000), "m4": ("50Mbps", FQ_CODEL, 10240)}, "m1"),
}
BOTTLENECK_MBPS = {1: 50.0, 2: 50.0, 3: 50.0, 5: 47.5, 6: 50.0}


def topology(scenario: int, rtt_ms: int) -> dict[str, Any]:
    shaped, netem_box = SCENARIOS[scenario]
    chain = ["c", *BOXES, "s"]
    links = []
    for left, right in zip(chain, chain[1:], strict=False):
        for a, b in ((left, right), (right, left)):
            rate, aqm, limit = shaped.get(a, ("10Gbps", "droptail", 1000))
            delay = rtt_ms / 2 if b == netem_box else 0.0
            links.append(
                {
                    "from": a,
                    "to": b,
                    "duplex": False,
                    "name": f"{a}->{b}",
                    "rate": rate,
                    "delay": f"{delay:g}ms",
                    "queue": {"limit": limit, "aqm": aqm},
                    "monitor": a in shaped,
                }
            )
    return {"kind": "graph", "nodes": chain, "links": links}


def flow(cc: str, group: str, start: str) -> dict[str, Any]:
    tcp: dict[str, Any] = {**TCP_PACKET}
    if cc == "prague":
        tcp.update(profile="prague", prague=PRAGUE_2019)
    elif cc == "dctcp":
        tcp.update(profile="dctcp")
    else:
        tcp.update(profile="linux", congestion_control="cubic", ecn=True)
    return {"kind": "tcp", "from": "c", "to": "s", "group": group, "start": start, "tcp": tcp}


def scenario_for(cell: dict[str, Any]) -> dict[str, Any]:
    ccas = cell["ccas"]
    flows = [flow(ccas[0], "flow1", "0s")]
    if len(ccas) > 1:
        flows.append(flow(ccas[1], "flow2", "10s"))
    return {
        "name": cell["id"],
        "duration": "60s",
        "sample_interval": "100ms",
        "topology": topology(cell["scenario"], cell["rtt_ms"]),
        "flows": flows,
    }


def series(ts: Any, source: str, variable: str) -> Any:
    f = ts[(ts["source"] == source) & (ts["variable"] == variable)]
    return f.set_index("time_s")["value"]


def measure(r: Any, two: bool, capacity_mbps: float) -> dict[str, Any]:
    ts = r.timeseries
    srtt1 = series(ts, "flow0", "srtt_ms")
    out: dict[str, Any] = {}
    if not two:
        out["srtt_increase_ms"] = float(statistics.median(srtt1[srtt1.index >= 20]) - srtt1[srtt1 > 0].min())
        return out
    got = [series(ts, f"flow{i}", "bytes_received") for i in (0, 1)]
    mean = [float((g.asof(60) - g.asof(10)) * 8 / 50 / 1e6) for g in got]
    assert sum(mean) <= capacity_mbps * 1.001, mean
    out["goodput_mbps"] = mean
    out["ratio_2_to_1"] = mean[1] / mean[0] if mean[0] > 0 else float("inf")
    spikes = []
    for i in (0, 1):
        srtt = series(ts, f"flow{i}", "srtt_ms")
        least = float(srtt[srtt > 0].min())
        after = srtt[srtt.index >= 10]
        rise = float(after.max()) - least
        above = after[after > least + rise / 2]
        spikes.append((rise, float(above.index.max() - above.index.min()) if len(above) else 0.0))
    out["spikes"] = spikes
    bins = [g.reindex([t / 10 for t in range(100, 601, 10)], method="ffill").diff().iloc[1:] for g in got]
    ratios = [(b / a if a > 0 else float("inf")) for a, b in zip(bins[0], bins[1], strict=True)]
    fair = [2 / 3 <= x <= 1.5 for x in ratios]
    out["convergence_s"] = next((float(i) for i in range(len(fair) - 4) if all(fair[i : i + 5])), None)
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(__doc__, argv)
    data = tomllib.loads(PUBLISHED.read_text())
    cells = [c for c in data["cell"] if c["side"] == "l4s" and c["scenario"] in SCENARIOS]
    rows = []
    for c in cells:
        r = aqmlab.run(scenario_for(c), seed=1)
        row = {"id": c["id"], "scenario": c["scenario"], "ccas": c["ccas"], "rtt_ms": c["rtt_ms"]}
        row.update(measure(r, len(c["ccas"]) > 1, BOTTLENECK_MBPS[c["scenario"]]))
        row["stated"] = [
            {k: s.get(k) for k in ("metric", "value", "unit", "quote", "readme_line")}
            for s in c.get("stated", [])
            if s.get("value") is not None
        ]
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "stated"}), flush=True)
    (args.out / "bakeoff.json").write_text(json.dumps(rows, indent=1) + "\n")
    (args.out / "bakeoff.md").write_text(table(rows))
    return 0


def table(rows: list[dict[str, Any]]) -> str:
    out = [
        "| scenario | flows | added RTT | goodput 10-60 s (Mb/s) | srtt spikes, flow 1 / flow 2 (ms for s) | convergence (s) | "
        "one flow's srtt rise (ms) | the README states |\n",
        "|---|---|---|---|---|---|---|---|\n",
    ]
    for r in rows:
        good = " / ".join(f"{g:.2f}" for g in r.get("goodput_mbps", []))
        spike = " / ".join(f"{h:.0f} for {d:.1f}" for h, d in r.get("spikes", []))
        conv = (
            "" if "goodput_mbps" not in r else ("> 46" if r["convergence_s"] is None else f"{r['convergence_s']:.0f}")
        )
        rise = f"{r['srtt_increase_ms']:.1f}" if "srtt_increase_ms" in r else ""
        said = "; ".join(f"{s['metric']} {s['value']} {s['unit'] or ''} (l. {s['readme_line']})" for s in r["stated"])
        out.append(
            f"| {r['scenario']} | {' vs '.join(r['ccas'])} | {r['rtt_ms']} | {good} | {spike} | {conv} | {rise} | {said} |\n"
        )
    return "".join(out)


if __name__ == "__main__":
    sys.exit(main())
