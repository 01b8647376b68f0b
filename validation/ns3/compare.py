"""Runs an aqmlab dumbbell scenario in ns-3 (Debian's ns-3.37, `make ns3-deps`) and in aqmlab
for the same seeds, and prints the two side by side with the relative differences.

    python validation/ns3/compare.py SCENARIO [--seeds 3] [--flows N] [--aqm KIND]
        [--tcp as_is sack1 ns3] [--markdown] [--json FILE]

SCENARIO is a scenario file or a packaged scenario's name (`identical-dumbbell`). `--flows`
sets the number of senders; `--aqm` replaces the bottleneck's discipline (`droptail`, `red`,
`codel`, `pie`, `fq_codel`; the scenario's parameters are kept when the kind is the same,
else the kind's defaults apply); `--limit` its limit in packets. `--tcp` chooses the aqmlab
runs shown beside ns-3: `as_is` (the scenario's TCP), `sack1` (ns-2's Sack1:
`recovery = "ns2"`, `variant = "sack"`), `ns3` (`profile = "ns3"` with the settings ns-3 is
given, SETTINGS below, taken from the scenario); `--ablate` adds the `ns3` profile with each
of its options set back to the RFC default, one at a time.

ns-3 always runs its own TCP (TcpSocketBase with TcpPrrRecovery, NewReno or CUBIC) with the
scenario's settings: SACK, timestamps, delayed ACK count and timeout, initial window, initial
ssthresh, min RTO, segment size, receiver's window, duplicate-ACK threshold, limited transmit,
PRR's bound, CUBIC's C, beta and fast convergence. Scenario settings that ns-3 cannot express
are refused, one line naming the field; the TCP choices aqmlab makes and ns-3 makes its own
way (RTT sampling, RTO backoff, recovery details) are what the comparison is about, and are
not translated. The differences of packaging that remain are printed as notes.

The ns-3 program (dumbbell.cc) is built on first use into validation/ns3/build/ (not
tracked), and rebuilt when its source changes; its results are cached there too, keyed by
the program's source and its arguments (`--no-cache` runs it again).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import copy
import hashlib
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "dumbbell.cc"
BUILD = HERE / "build"
NS3_MODULES = ["core", "network", "internet", "point-to-point", "applications", "traffic-control"]

#: Bytes ns-3 adds to a TCP payload on a point-to-point link: IPv4 20, TCP 20, PPP 2; the
#: timestamps option adds 12 (10, padded to a multiple of 4).
NS3_HEADER_BYTES = 42
NS3_TIMESTAMP_BYTES = 12

#: The TCP fields ns-3 is given (`tcp_args`): the scenario's settings, as opposed to the
#: choices a TCP makes. The `ns3` variant keeps them under the profile, so that it and ns-3
#: run with the same settings and differ only in those choices.
SETTINGS = (
    "packet_size",
    "header_size",
    "ack_size",
    "window",
    "window_init",
    "ssthresh_init",
    "min_rto",
    "initial_rto",
    "delayed_ack",
    "delayed_ack_timeout",
    "timestamps",
    "dupack_threshold",
    "limited_transmit",
    "prr_bound",
    "congestion_control",
    "cubic",
    "ecn",
)

#: The aqmlab runs `--tcp` can ask for.
TCP_VARIANTS = ("as_is", "sack1", "ns3")

#: The `ns3` profile's options and their RFC defaults: `--ablate` runs the profile with each
#: set back, one at a time ("ns3 w/o handshake").
NS3_OPTIONS = {
    "ssthresh_base": "flight_size",
    "rtt_sampling": "timed_packet",
    "rto_estimator": "rfc6298",
    "dupacks_after_timeout": "counted",
    "partial_ack_timer": "every",
    "handshake": "none",
}

METRICS = [
    ("utilization", "utilization", "{:.4f}"),
    ("drop_rate", "drop rate", "{:.4f}"),
    ("mean_queue_packets", "mean queue (pkts)", "{:.2f}"),
    ("jain_index", "Jain index", "{:.3f}"),
    ("goodput_mbps", "goodput/flow (Mb/s)", "{:.4f}"),
    ("timeouts", "RTOs/flow", "{:.2f}"),
    ("fast_recoveries", "fast recoveries/flow", "{:.2f}"),
    ("retransmissions", "retx/flow", "{:.1f}"),
    ("mean_rtt_ms", "mean RTT sample (ms)", "{:.0f}"),
]


class Untranslatable(ValueError):
    """A scenario field ns-3 (or this translation) cannot express; str() names the field."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")


# --- reading the scenario -------------------------------------------------------------------


def load(scenario: str) -> dict[str, Any]:
    from aqmlab.scenario import load_scenario, packaged_scenario_path, packaged_scenarios

    if scenario in packaged_scenarios():
        return load_scenario(packaged_scenario_path(scenario))
    return load_scenario(scenario)


def with_changes(scenario: Mapping[str, Any], flows: int | None, aqm: str | None, limit: int | None) -> dict[str, Any]:
    """The scenario with `--flows`, `--aqm` and `--limit` applied."""
    s: dict[str, Any] = copy.deepcopy(dict(scenario))
    topo: dict[str, Any] = s.get("topology", {})
    if flows is not None:
        topo["senders"] = flows
        if "receivers" in topo:
            topo["receivers"] = flows
    queue = topo.get("bottleneck", {}).setdefault("queue", {})
    if aqm is not None:
        old = queue.get("aqm", "droptail")
        old_kind = old if isinstance(old, str) else old.get("kind")
        if old_kind != aqm:
            queue["aqm"] = aqm
    if limit is not None:
        queue["limit"] = limit
    return s


def seconds(text: Any, path: str) -> float:
    """A duration as aqmlab reads it ("100ms", "1s", a number of seconds)."""
    if isinstance(text, bool):
        raise Untranslatable(path, f"expected a duration, got {text!r}")
    if isinstance(text, (int, float)):
        return float(text)
    t = str(text).strip()
    for suffix, scale in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0)):
        if t.endswith(suffix):
            return float(t[: -len(suffix)]) * scale
    return float(t)


def rate_bps(text: Any, path: str) -> int:
    """A rate as aqmlab reads it ("10Mbps", "100Mb/s", a number of b/s)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return int(text)
    t = str(text).strip().replace("/s", "ps")
    for suffix, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3), ("kbps", 1e3), ("bps", 1.0)):
        if t.endswith(suffix):
            return int(round(float(t[: -len(suffix)]) * scale))
    raise Untranslatable(path, f"cannot read the rate {text!r}")


def aqm_defaults(kind: str) -> dict[str, str]:
    """The discipline's parameter defaults, as aqmlab documents them (`aqmlab.aqms()`)."""
    from aqmlab import _core

    for info in _core.aqms():
        if info["name"] == kind:
            return {p["name"]: p["default"] for p in info["params"]}
    raise Untranslatable("topology.bottleneck.queue.aqm", f"unknown discipline {kind!r}")


def one_or_many(v: Any, n: int) -> list[Any]:
    """aqmlab's one-or-many fields: one value for all, or a list cycled over the hosts."""
    items = v if isinstance(v, list) else [v]
    return [items[i % len(items)] for i in range(n)]


def start_times(flow: Mapping[str, Any], n: int, seed: int) -> list[int]:
    """Start times (ns) of the n flows for `seed`: fixed times as given; `uniform = [a, b]`
    drawn here (aqmlab draws its own from its streams: the two runs are independent
    replications of the same distribution, as two simulators' runs are)."""
    spec = flow.get("start", "0s")
    if isinstance(spec, Mapping):
        lo, hi = (seconds(x, "flows[0].start.uniform") for x in spec["uniform"])
        rng = random.Random(seed)
        return [int(rng.uniform(lo, hi) * 1e9) for _ in range(n)]
    return [int(seconds(x, "flows[0].start") * 1e9) for x in one_or_many(spec, n)]


def translate(scenario: Mapping[str, Any], seed: int) -> tuple[list[str], list[str]]:
    """The ns-3 program's arguments for `scenario` and `seed`, and notes on what the two runs
    still do differently; Untranslatable names the first field ns-3 cannot express."""
    from aqmlab.scenario import resolved_tcp, validate_scenario

    s = validate_scenario(scenario)
    notes: list[str] = []
    topo = s["topology"]
    if topo.get("kind") != "dumbbell":
        raise Untranslatable("topology.kind", "only dumbbell scenarios are translated")
    n = int(topo["senders"])
    if topo.get("receivers", n) != n:
        raise Untranslatable("topology.receivers", "one receiver per sender is translated")
    btl = topo["bottleneck"]
    if float(btl.get("loss", 0)) != 0:
        raise Untranslatable("topology.bottleneck.loss", "random link loss is not translated")
    if btl.get("reverse_queue") is not None:
        raise Untranslatable("topology.bottleneck.reverse_queue", "only the default reverse queue is translated")
    args = [f"--flows={n}", f"--btlRate={rate_bps(btl['rate'], 'topology.bottleneck.rate')}"]
    args.append(f"--btlDelay={round(seconds(btl.get('delay', 0), 'topology.bottleneck.delay') * 1e9)}")
    args += queue_args(btl.get("queue", {}))

    access = topo["access"]
    rx_access = topo.get("receiver_access") or access
    for prefix, a, path in (("access", access, "topology.access"), ("rxAccess", rx_access, "topology.receiver_access")):
        rates = [rate_bps(r, f"{path}.rate") for r in one_or_many(a["rate"], n)]
        delays = [round(seconds(d, f"{path}.delay") * 1e9) for d in one_or_many(a.get("delay", 0), n)]
        args.append(f"--{prefix}Rates={','.join(map(str, rates))}")
        args.append(f"--{prefix}Delays={','.join(map(str, delays))}")
        q = a.get("queue", {"limit": 1000})
        aqm = q.get("aqm", "droptail")
        if (aqm if isinstance(aqm, str) else aqm.get("kind")) != "droptail":
            raise Untranslatable(f"{path}.queue.aqm", "only DropTail access queues are translated")
        args.append(f"--{prefix}Limit={packets(q.get('limit', 1000), f'{path}.queue.limit')}")

    flows = s.get("flows", [])
    if len(flows) != 1:
        raise Untranslatable("flows", "one [[flows]] entry (from the senders to the receivers) is translated")
    f = flows[0]
    if f.get("kind") != "tcp":
        raise Untranslatable("flows[0].kind", "only TCP flows are translated")
    if f.get("from") != "senders" or f.get("to") != "receivers":
        raise Untranslatable("flows[0].from", 'flows from "senders" to "receivers" are translated')
    for field in ("size", "stop"):
        if f.get(field) is not None:
            raise Untranslatable(f"flows[0].{field}", "only bulk flows that run to the end are translated")
    if int(f.get("count", 1)) != 1:
        raise Untranslatable("flows[0].count", "one flow per sender is translated")
    args.append(f"--starts={','.join(map(str, start_times(f, n, seed)))}")
    tcp = resolved_tcp(s)[0]
    assert tcp is not None
    args += tcp_args(tcp, topo, notes)

    duration = seconds(s.get("duration", "100s"), "duration")
    warmup = seconds(s.get("warmup", "0s"), "warmup")
    args += [f"--duration={round(duration * 1e9)}", f"--warmup={round(warmup * 1e9)}", f"--run={seed}"]
    return args, notes


def packets(limit: Any, path: str) -> int:
    if isinstance(limit, int) and not isinstance(limit, bool):
        return limit
    t = str(limit).strip()
    for suffix in ("packets", "pkts", "p"):
        if t.endswith(suffix) and t[: -len(suffix)].strip().isdigit():
            return int(t[: -len(suffix)])
    raise Untranslatable(path, "only packet limits are translated")


def queue_args(queue: Mapping[str, Any]) -> list[str]:
    path = "topology.bottleneck.queue"
    limit = packets(queue.get("limit", 50), f"{path}.limit")
    aqm = queue.get("aqm", "droptail")
    kind = aqm if isinstance(aqm, str) else aqm.get("kind")
    given = {} if isinstance(aqm, str) else {k: v for k, v in aqm.items() if k != "kind"}
    p = {**aqm_defaults(kind), **given} if kind != "droptail" else {}
    ap = f"{path}.aqm"

    def unchanged(name: str, default: Any) -> None:
        if str(p.get(name, default)).lower() != str(default).lower():
            raise Untranslatable(f"{ap}.{name}", f"only {default} is translated (ns-3 has no such setting)")

    def ns(name: str) -> int:
        """The duration parameter ``name`` in whole nanoseconds."""
        return round(seconds(p[name], f"{ap}.{name}") * 1e9)

    args = [f"--queue={kind}", f"--limit={limit}"]
    if kind == "droptail":
        return args
    if kind == "red":
        for name in ("min_th", "max_th"):
            if name not in given:
                raise Untranslatable(f"{ap}.{name}", "set it: aqmlab's automatic thresholds are not translated")
        try:
            w_q = float(p["w_q"])
        except ValueError:
            raise Untranslatable(f"{ap}.w_q", "give a number: the automatic weights are not translated") from None
        unchanged("bytes", "false")
        unchanged("ecn", "false")
        return args + [
            f"--redMinTh={float(p['min_th'])}",
            f"--redMaxTh={float(p['max_th'])}",
            f"--redQw={w_q}",
            f"--redMaxP={float(p['max_p'])}",
            f"--redGentle={str(p['gentle']).lower()}",
            f"--redWait={str(p['wait']).lower()}",
            f"--redMeanPktSize={int(p['mean_pkt_size'])}",
        ]
    if kind == "codel":
        unchanged("ecn", "false")
        return args + [
            f"--aqmTarget={ns('target')}",
            f"--aqmInterval={ns('interval')}",
            f"--codelMinBytes={int(p['mtu'])}",
        ]
    if kind == "pie":
        unchanged("ecn", "false")
        return args + [
            f"--aqmTarget={ns('target')}",
            f"--pieTupdate={ns('t_update')}",
            f"--pieA={float(p['alpha'])}",
            f"--pieB={float(p['beta'])}",
            f"--pieMaxBurst={ns('max_burst')}",
            f"--pieDqThreshold={int(p['dq_threshold'])}",
            f"--pieDequeueRateEstimator={'true' if p['delay_estimator'] == 'rate' else 'false'}",
        ]
    if kind == "fq_codel":
        unchanged("perturbation", "0")
        return [
            "--queue=fq_codel",
            f"--limit={min(limit, int(p['limit']))}",
            f"--aqmTarget={ns('target')}",
            f"--aqmInterval={ns('interval')}",
            f"--fqFlows={int(p['flows'])}",
            f"--fqDropBatch={int(p['drop_batch'])}",
            f"--fqQuantum={int(p['quantum'])}",
        ]
    raise Untranslatable(f"{ap}.kind", f"{kind!r} is not translated (droptail, red, codel, pie, fq_codel are)")


def tcp_args(tcp: Mapping[str, Any], topo: Mapping[str, Any], notes: list[str]) -> list[str]:
    """ns-3's TCP settings from aqmlab's resolved TcpConfig."""
    path = "flows[0].tcp"
    if tcp["ecn"]:
        raise Untranslatable(f"{path}.ecn", "ECN is not translated")
    if tcp["hystart"]["enabled"]:
        raise Untranslatable(f"{path}.hystart.enabled", "ns-3.37 has no HyStart++ (RFC 9406)")
    if tcp["rack_tlp"]["enabled"]:
        raise Untranslatable(f"{path}.rack_tlp.enabled", "ns-3.37 has no RACK-TLP")
    if tcp["max_burst"] != 0:
        raise Untranslatable(f"{path}.max_burst", "ns-3 has no burst limit")
    if seconds(tcp["overhead"], f"{path}.overhead") != 0:
        raise Untranslatable(f"{path}.overhead", "ns-3 has no random send delay")
    sack = tcp["variant"] == "sack" or tcp["recovery"] == "rfc6675"
    if not sack:
        notes.append(
            "SACK is off: ns-3.37's TCP without SACK retransmits far more than with it (the packaged "
            "default dumbbell, seed 1: 1146 retransmissions per flow against 125, drop rate 0.108 "
            "against 0.029), a difference of ns-3's, not of the scenario"
        )
    size = int(tcp["packet_size"])
    wire = NS3_HEADER_BYTES + (NS3_TIMESTAMP_BYTES if tcp["timestamps"] else 0)
    if int(tcp["header_size"]) != wire:
        notes.append(
            f"tcp.header_size is {tcp['header_size']} bytes; ns-3's data packets carry {wire} "
            "(IPv4 20 + TCP 20 + PPP 2" + (" + timestamps 12)" if tcp["timestamps"] else ")")
        )
    window = int(tcp["window"]) * size
    # The send buffer need only exceed the largest window a flow can use, which is bounded by
    # the path's capacity (rate x round trip + the bottleneck's buffer): twice that covers
    # slow start's overshoot. A larger one costs ns-3 memory (a buffer item per segment
    # written, for each of up to thousands of flows) and changes nothing.
    btl = topo["bottleneck"]
    rate = rate_bps(btl["rate"], "topology.bottleneck.rate")
    access = max(seconds(d, "topology.access.delay") for d in one_or_many(topo["access"].get("delay", 0), 1))
    rtt = 2 * (seconds(btl.get("delay", 0), "topology.bottleneck.delay") + 2 * access)
    limit = packets(btl.get("queue", {}).get("limit", 50), "topology.bottleneck.queue.limit")
    capacity = int(rate * rtt / 8 + limit * (size + wire))
    snd_buf = min(window, max(131072, 2 * capacity))
    max_rto = seconds(tcp["max_rto"], f"{path}.max_rto")
    if max_rto != 60:
        notes.append(f"tcp.max_rto is {max_rto:g} s; ns-3's backed-off RTO stops at 60 s (TcpSocketBase::ReTxTimeout)")
    if tcp["dsack"]:
        notes.append("tcp.dsack: ns-3's receiver sends no D-SACK blocks")
    cc = {"reno": "newreno", "cubic": "cubic"}[tcp["congestion_control"]]
    ssthresh = tcp["ssthresh_init"] if tcp["ssthresh_init"] is not None else tcp["window"]
    return [
        f"--cc={cc}",
        f"--sack={'true' if sack else 'false'}",
        f"--timestamps={'true' if tcp['timestamps'] else 'false'}",
        f"--delAckCount={2 if tcp['delayed_ack'] else 1}",
        f"--delAckTimeout={round(seconds(tcp['delayed_ack_timeout'], path) * 1e9)}",
        f"--initialCwnd={tcp['window_init']}",
        f"--initialSsthresh={min(int(ssthresh) * size, 2**32 - 1)}",
        f"--minRto={round(seconds(tcp['min_rto'], path) * 1e9)}",
        f"--connTimeout={round(seconds(tcp['initial_rto'], path) * 1e9)}",
        f"--segSize={size}",
        f"--rcvBuf={window}",
        f"--sndBuf={snd_buf}",
        f"--dupThresh={tcp['dupack_threshold']}",
        f"--limitedTransmit={'true' if tcp['limited_transmit'] else 'false'}",
        f"--prrBound={str(tcp['prr_bound']).upper()}",
        f"--cubicBeta={tcp['cubic']['beta']}",
        f"--cubicC={tcp['cubic']['c']}",
        f"--cubicFastConvergence={'true' if tcp['cubic']['fast_convergence'] else 'false'}",
    ]


# --- building and running ns-3 --------------------------------------------------------------


def ns3_installed() -> str | None:
    """None if the ns-3 library and a compiler are here, else why not."""
    if shutil.which("g++") is None:
        return "g++ is not installed (make ns3-deps)"
    if shutil.which("pkg-config") is None:
        return "pkg-config is not installed (make ns3-deps)"
    r = subprocess.run(["pkg-config", "--exists", *[f"ns3-{m}" for m in NS3_MODULES]], check=False)
    if r.returncode != 0:
        return "the ns-3 library is not installed (make ns3-deps: Debian's libns3-dev)"
    return None


def compile_flags() -> list[str]:
    """pkg-config's flags for the modules, without what Debian's .pc files get wrong: a
    `-I/usr;` and absolute paths to libraries that are not installed (libgsl.so); the ns-3
    libraries bring their own dependencies."""
    out = subprocess.run(
        ["pkg-config", "--cflags", "--libs", *[f"ns3-{m}" for m in NS3_MODULES]],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    keep = []
    for flag in out:
        if ";" in flag or "python" in flag:
            continue
        if flag.startswith("/") and not Path(flag).exists():
            continue
        if flag not in keep or not flag.startswith("-l"):
            keep.append(flag)
    return keep


def source_digest() -> str:
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]


def binary(log: Callable[[str], None] = print) -> Path:
    """The ns-3 program, built if it is missing or its source changed (about a minute)."""
    BUILD.mkdir(exist_ok=True)
    exe = BUILD / f"dumbbell-{source_digest()}"
    if exe.exists():
        return exe
    why = ns3_installed()
    if why:
        raise RuntimeError(why)
    log(f"building {exe.relative_to(HERE.parent.parent)} (about a minute) ...")
    tmp = exe.with_suffix(".tmp")
    cmd = ["g++", "-O2", "-std=c++17", str(SOURCE), "-o", str(tmp), *compile_flags()]
    subprocess.run(cmd, check=True)
    tmp.rename(exe)
    return exe


def run_ns3(args: Sequence[str], cache: bool = True) -> dict[str, Any]:
    """One ns-3 run; its JSON output (cached by the program's source and the arguments)."""
    exe = binary()
    key = hashlib.sha256(json.dumps([source_digest(), list(args)]).encode()).hexdigest()[:24]
    cached = BUILD / "results" / f"{key}.json"
    if cache and cached.exists():
        result: dict[str, Any] = json.loads(cached.read_text())
        return result
    out = subprocess.run([str(exe), *args], check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    cached.parent.mkdir(exist_ok=True)
    cached.write_text(json.dumps(result))
    return result


def ns3_metrics(r: Mapping[str, Any]) -> dict[str, float]:
    flows = r["per_flow"]

    def mean(k: str) -> float:
        values = [f[k] for f in flows if f[k] is not None]
        return statistics.fmean(values) if values else math.nan

    return {
        "utilization": r["utilization"],
        "drop_rate": r["drop_rate"],
        "mean_queue_packets": r["mean_queue_packets"],
        "jain_index": r["jain_index"],
        "goodput_mbps": mean("goodput_bps") / 1e6,
        "timeouts": mean("timeouts"),
        "fast_recoveries": mean("fast_recoveries"),
        "retransmissions": mean("retransmissions"),
        "mean_rtt_ms": mean("mean_rtt_ms"),
    }


def aqmlab_metrics(scenario: Mapping[str, Any], seed: int) -> dict[str, float]:
    import aqmlab

    r = aqmlab.run(scenario, seed=seed)
    q = r.queue("bottleneck")
    f = r.flows
    return {
        "utilization": float(q["utilization"]),
        "drop_rate": float(q["loss_rate"]),
        "mean_queue_packets": float(q["mean_queue_packets"]),
        "jain_index": float(r.jain_index),
        "goodput_mbps": float(f["goodput_bps"].mean()) / 1e6,
        "timeouts": float(f["timeouts"].mean()),
        "fast_recoveries": float(f["fast_recoveries"].mean()),
        "retransmissions": float(f["retransmissions"].mean()),
        "mean_rtt_ms": float(f["mean_rtt_ms"].mean()),
    }


def aqmlab_variant(scenario: Mapping[str, Any], variant: str) -> dict[str, Any]:
    """The scenario with the TCP of `variant`: `as_is`; `sack1` (ns-2's Sack1 agent);
    `ns3` (the `ns3` profile under the scenario's SETTINGS; with CUBIC, ssthresh from cwnd
    as ns-3's TcpCubic::GetSsThresh takes it)."""
    from aqmlab.scenario import resolved_tcp

    s = copy.deepcopy(dict(scenario))
    if variant.startswith("ns3 w/o "):
        option = variant.removeprefix("ns3 w/o ")
        s = aqmlab_variant(s, "ns3")
        s["tcp"][option] = NS3_OPTIONS[option]
        return s
    if variant == "sack1":
        s.setdefault("tcp", {}).update(variant="sack", recovery="ns2")
    elif variant == "ns3":
        tcp = resolved_tcp(s)[0]
        assert tcp is not None
        s["tcp"] = {"profile": "ns3", **{k: tcp[k] for k in SETTINGS if tcp[k] is not None}}
        if tcp["congestion_control"] == "cubic":
            s["tcp"]["ssthresh_base"] = "cwnd"
        for f in s.get("flows", []):
            f.pop("tcp", None)
    elif variant != "as_is":
        raise ValueError(f"unknown TCP variant {variant!r}; known: {', '.join(TCP_VARIANTS)}")
    return s


# --- the comparison -------------------------------------------------------------------------


def compare(
    scenario: Mapping[str, Any], seeds: Sequence[int], variants: Sequence[str], cache: bool = True
) -> tuple[dict[str, list[dict[str, float]]], list[str]]:
    """Per seed, ns-3's metrics and each aqmlab variant's: {"ns-3": [...], variant: [...]}.
    ns-3 runs in a subprocess while aqmlab runs here, two at a time."""
    runs: dict[str, list[dict[str, float]]] = {"ns-3": [], **{v: [] for v in variants}}
    notes: list[str] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        for seed in seeds:
            args, notes = translate(scenario, seed)
            pending = pool.submit(run_ns3, args, cache)
            for v in variants:
                runs[v].append(aqmlab_metrics(aqmlab_variant(scenario, v), seed))
            runs["ns-3"].append(ns3_metrics(pending.result()))
    return runs, notes


def rel(x: float, ref: float) -> str:
    if ref == 0 or not math.isfinite(ref) or not math.isfinite(x):
        return "n/a" if x != ref else "+0%"
    return f"{(x - ref) / abs(ref) * 100:+.0f}%"


def table(runs: Mapping[str, list[dict[str, float]]], markdown: bool) -> str:
    means = {k: {m: statistics.fmean(r[m] for r in rs) for m, _, _ in METRICS} for k, rs in runs.items()}
    names = list(runs)
    head = ["metric", *names]
    rows = []
    for key, label, fmt in METRICS:
        ref = means["ns-3"][key]
        cells = [label, fmt.format(ref)]
        cells += [f"{fmt.format(means[n][key])} ({rel(means[n][key], ref)})" for n in names[1:]]
        rows.append(cells)
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in [head, *rows])


def kind_of(scenario: Mapping[str, Any]) -> str:
    aqm = scenario["topology"]["bottleneck"].get("queue", {}).get("aqm", "droptail")
    return str(aqm if isinstance(aqm, str) else aqm.get("kind"))


#: The columns of the one-row-per-run table (several `--flows` or `--aqm`).
ROW_METRICS = ["utilization", "drop_rate", "mean_queue_packets", "timeouts", "fast_recoveries", "retransmissions"]


def rows_table(
    results: Sequence[tuple[Mapping[str, Any], Mapping[str, list[dict[str, float]]]]], markdown: bool
) -> str:
    """One row per scenario and run: N, queue, TCP and the main metrics, the relative
    difference to ns-3 in brackets for utilization, drop rate and mean queue."""
    fmts = {k: f for k, _, f in METRICS}
    labels = {k: label for k, label, _ in METRICS}
    head = ["N", "queue", "TCP", *[labels[k] for k in ROW_METRICS]]
    rows = []
    for scenario, runs in results:
        means = {n: {m: statistics.fmean(r[m] for r in rs) for m in ROW_METRICS} for n, rs in runs.items()}
        for name, m in means.items():
            cells = [str(scenario["topology"]["senders"]), kind_of(scenario), name]
            for k in ROW_METRICS:
                cell = fmts[k].format(m[k])
                if name != "ns-3" and k in ROW_METRICS[:3]:
                    cell += f" ({rel(m[k], means['ns-3'][k])})"
                cells.append(cell)
            rows.append(cells)
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in [head, *rows])


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("scenario", help="a scenario file or a packaged scenario's name")
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..S (default 3)")
    ap.add_argument("--flows", type=int, nargs="+", help="number(s) of senders")
    ap.add_argument(
        "--aqm",
        nargs="+",
        choices=["droptail", "red", "codel", "pie", "fq_codel"],
        help="the bottleneck's discipline(s)",
    )
    ap.add_argument("--limit", type=int, help="the bottleneck's limit, packets")
    ap.add_argument("--tcp", nargs="+", default=["as_is"], choices=TCP_VARIANTS, help="aqmlab runs to show")
    ap.add_argument(
        "--ablate", action="store_true", help="also the ns3 profile with each of its options at the RFC default"
    )
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--json", type=Path, help="also write every run's metrics to this file")
    ap.add_argument("--no-cache", action="store_true", help="run ns-3 again even if its result is cached")
    a = ap.parse_args(argv)
    from aqmlab import ScenarioError

    try:
        base = load(a.scenario)
        scenarios = [with_changes(base, n, q, a.limit) for n in a.flows or [None] for q in a.aqm or [None]]
        for s in scenarios:
            translate(s, 1)
        binary(lambda m: print(m, file=sys.stderr))
    except OSError as e:
        print(f"cannot read the scenario: {e}", file=sys.stderr)
        return 2
    except (Untranslatable, ScenarioError) as e:
        print(f"cannot translate to ns-3: {e}", file=sys.stderr)
        return 2
    except (RuntimeError, subprocess.CalledProcessError) as e:
        print(f"cannot build the ns-3 program: {e}", file=sys.stderr)
        return 3
    results = []
    notes: list[str] = []
    variants = [*a.tcp, *([f"ns3 w/o {o}" for o in NS3_OPTIONS] if a.ablate else [])]
    for s in scenarios:
        runs, notes = compare(s, range(1, a.seeds + 1), variants, cache=not a.no_cache)
        results.append((s, runs))
    print(
        f"{a.scenario}, seeds 1..{a.seeds}: ns-3.37 and aqmlab, means over the seeds; relative "
        f"difference to ns-3 in brackets ({date.today().isoformat()})"
    )
    if len(results) == 1:
        s = results[0][0]
        print(f"N = {s['topology']['senders']}, {kind_of(s)}")
        print(table(results[0][1], a.markdown))
    else:
        print(rows_table(results, a.markdown))
    for n in notes:
        print(f"note: {n}")
    if a.json:
        a.json.write_text(json.dumps([{"scenario": s, "runs": r} for s, r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.fspath(HERE))
    sys.exit(main())
