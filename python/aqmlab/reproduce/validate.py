"""Checks the reproduction data without the Rust parser: python -m aqmlab.reproduce.validate.

Scenario files: top-level and nested field names against crates/aqmlab-core/src/scenario/
schema.rs and transport/tcp/config.rs (deny_unknown_fields there), required fields, links'
node names, flow end points. Paper files: required keys, scenario files exist, every
paper_values row names a known configuration (or an analytic/text source).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parent
TOP = {"name", "duration", "warmup", "seed", "sample_interval", "sample_flows", "topology", "tcp", "flows", "events"}
QUEUE = {"limit", "aqm"}
LINK = {"rate", "delay", "loss", "loss_direction", "queue", "reverse_queue", "netem", "reverse_netem"}
GLINK = LINK | {"from", "to", "duplex", "name", "monitor"}
ACCESS = {"rate", "delay", "queue", "netem", "reverse_netem"}
DUMBBELL = {"kind", "senders", "receivers", "bottleneck", "access", "receiver_access"}
GRAPH = {"kind", "nodes", "links"}
TCP = {
    "variant",
    "ecn",
    "packet_size",
    "header_size",
    "ack_size",
    "window",
    "window_init",
    "ssthresh_init",
    "min_rto",
    "max_rto",
    "initial_rto",
    "tick",
    "max_backoff",
    "dupack_threshold",
    "delayed_ack",
    "delayed_ack_timeout",
    "max_burst",
    "limited_transmit",
    "partial_ack_timer",
    "overhead",
    # the profiles and the controllers' tables (transport/tcp/config.rs; the full list is the Rust
    # parser's, which tests/test_reproduce_spec.py runs on every job's scenario)
    "profile",
    "congestion_control",
    "ecn_codepoint",
    "prague",
}
COMMON = {"kind", "from", "to", "count", "start", "stop", "group"}
TCPFLOW = COMMON | {"size", "tcp"}
UDPFLOW = COMMON | {"rate", "packets_per_second", "packet_size", "sizes", "on_time", "off_time"}


def unknown(d: Mapping[str, Any], allowed: set[str], where: str, errs: list[str]) -> None:
    for k in d:
        if k not in allowed:
            errs.append(f"{where}: unknown field '{k}'")


def check_queue(q: Mapping[str, Any] | None, where: str, errs: list[str]) -> None:
    if q is None:
        return
    unknown(q, QUEUE, where, errs)
    a = q.get("aqm")
    if isinstance(a, dict) and "kind" not in a:
        errs.append(f"{where}.aqm: missing kind")


def check_scenario(path: Path) -> list[str]:
    errs: list[str] = []
    d = tomllib.loads(path.read_text())
    unknown(d, TOP, "", errs)
    for k in ("duration", "topology", "flows"):
        if k not in d:
            errs.append(f"missing {k}")
    if errs:
        return errs
    t = d["topology"]
    nodes: set[str] = set()
    if t.get("kind") == "dumbbell":
        unknown(t, DUMBBELL, "topology", errs)
        unknown(t["bottleneck"], LINK, "topology.bottleneck", errs)
        check_queue(t["bottleneck"].get("queue"), "topology.bottleneck.queue", errs)
        for a in ("access", "receiver_access"):
            if a in t:
                unknown(t[a], ACCESS, f"topology.{a}", errs)
        n, m = t["senders"], t.get("receivers", t["senders"])
        nodes = {f"s{i}" for i in range(n)} | {f"d{i}" for i in range(m)} | {"r0", "r1", "senders", "receivers"}
    elif t.get("kind") == "graph":
        unknown(t, GRAPH, "topology", errs)
        nodes = set(t["nodes"])
        if len(nodes) != len(t["nodes"]):
            errs.append("topology.nodes: duplicates")
        names = []
        for i, link in enumerate(t["links"]):
            unknown(link, GLINK, f"topology.links[{i}]", errs)
            for e in ("from", "to"):
                if link[e] not in nodes:
                    errs.append(f"topology.links[{i}].{e}: unknown node {link[e]}")
            check_queue(link.get("queue"), f"topology.links[{i}].queue", errs)
            names.append(link.get("name", f"{link['from']}->{link['to']}"))
        if len(set(names)) != len(names):
            errs.append("topology.links: duplicate names")
    else:
        errs.append("topology.kind must be dumbbell or graph")
    unknown(d.get("tcp", {}), TCP, "tcp", errs)
    if not d["flows"]:
        errs.append("flows: empty")
    for i, f in enumerate(d["flows"]):
        k = f.get("kind")
        unknown(f, TCPFLOW if k == "tcp" else UDPFLOW, f"flows[{i}]", errs)
        if k == "tcp":
            unknown(f.get("tcp", {}), TCP, f"flows[{i}].tcp", errs)
        for e in ("from", "to"):
            v = f[e] if isinstance(f[e], list) else [f[e]]
            for x in v:
                if x not in nodes:
                    errs.append(f"flows[{i}].{e}: unknown node {x}")
    return errs


def check_paper(path: Path) -> list[str]:
    errs: list[str] = []
    d = tomllib.loads(path.read_text())
    for k in ("id", "title", "citation", "simulator"):
        if k not in d.get("paper", {}):
            errs.append(f"paper.{k} missing")
    for eid, e in d.get("experiments", {}).items():
        for k in ("title", "source", "scenarios", "metrics", "replications_paper"):
            if k not in e:
                errs.append(f"experiments.{eid}: missing {k}")
        for s in e.get("scenarios", []):
            if not (ROOT / "scenarios" / s).is_file():
                errs.append(f"experiments.{eid}: no scenario file {s}")
        if e.get("scenarios") and "configurations" not in e and "derived_from" not in e:
            errs.append(f"experiments.{eid}: no configurations")
        cfgs = {c["name"] for c in e.get("configurations", [])}
        for c in e.get("configurations", []):
            if "aqm" not in c:
                errs.append(f"experiments.{eid}.configurations[{c['name']}]: no aqm")
        for i, r in enumerate(e.get("paper_values", [])):
            c = r.get("config")
            if c is not None and c not in cfgs and not r.get("analytic"):
                errs.append(f"experiments.{eid}.paper_values[{i}]: unknown config {c}")
    return errs


def main() -> int:
    bad = 0
    for p in sorted((ROOT / "scenarios").rglob("*.toml")):
        e = check_scenario(p)
        bad += bool(e)
        print(("FAIL " if e else "ok   ") + str(p.relative_to(ROOT)), *e, sep="\n    " if e else "")
    for p in sorted((ROOT / "papers").glob("*.toml")):
        e = check_paper(p)
        bad += bool(e)
        print(("FAIL " if e else "ok   ") + str(p.relative_to(ROOT)), *e, sep="\n    " if e else "")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
