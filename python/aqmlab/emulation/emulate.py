"""Runs a scenario with real Linux TCP through aqmlab's own network code (issue 26).

One network namespace per host (every node where a flow starts or ends), each joined to the
router by a TUN device; the router (Rust, ``_core.EmulationRouter``, on its own thread) is the
scenario's network: its links with their rates, delays and queue disciplines, the very code a
simulation runs. Each host runs :mod:`aqmlab.emulation.host_agent`, the kernel's TCP (or UDP)
for the flows it sends and receives. The result has the tables of a simulation's result: the
router measures the queues and counts each flow's packets as the simulator does; the hosts add
what only the ends see (the goodput the application read, the kernel's RTT and counters).

Everything this creates (namespaces, devices, processes) is removed on every way out: the end
of the run, an error, Ctrl-C, SIGTERM; a set left by a killed run is removed by the next.
"""

from __future__ import annotations

import collections
import json
import math
import os
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from ..cli_options import microseconds_in_range
from ..errors import scenario_error
from ..result import Result
from ..scenario import ScenarioLike, load_scenario, resolve_seed, to_json
from . import DEFAULT_MAX_LAG_US, DEFAULT_SPIN_US
from .netns import EmulationError, EmulationUnavailable, HostNamespaces, preflight, remove_stale

__all__ = ["DEFAULT_MAX_LAG_US", "DEFAULT_SPIN_US", "EmulationError", "EmulationUnavailable", "emulate"]

READY_TIMEOUT_S = 60.0
# Time 0 comes this long after every host said it is ready: the router's thread and the
# agents' clocks need no more.
START_LEAD_S = 0.2
REPORT_TIMEOUT_S = 15.0

ProgressFn = Callable[[float], "bool | None"]


def _device_prefix() -> str:
    # "aqm" + pid + "h" + host index fits an interface name (15 bytes) up to 10,000 hosts.
    return f"aqm{os.getpid()}h"


def flow_hosts(plan: Mapping[str, Any]) -> list[tuple[int, int]]:
    """Each flow's (sending host, receiving host), as indices into the plan's hosts."""
    index = {h["address"]: i for i, h in enumerate(plan["hosts"])}
    return [(index[f["src_address"]], index[f["dst_address"]]) for f in plan["flows"]]


def _host_sysctls(plan: Mapping[str, Any], ends: list[tuple[int, int]]) -> dict[int, dict[str, int]]:
    """Per host: IPv6 off (no router solicitations on the wire), and ECN requested by a host
    whose flows ask for it. tcp_ecn is per namespace, so a host whose flows differ cannot be
    emulated; Linux's default (2) answers an ECN request without making one, which is what a
    receiver needs."""
    ecn: dict[int, dict[bool, set[str]]] = {}
    for f, (src, _) in zip(plan["flows"], ends, strict=True):
        if f["kind"] == "tcp":
            ecn.setdefault(src, {}).setdefault(bool(f["ecn"]), set()).add(str(f.get("group", "")))
    out: dict[int, dict[str, int]] = {}
    for i in range(len(plan["hosts"])):
        s = {"net.ipv6.conf.all.disable_ipv6": 1, "net.ipv6.conf.default.disable_ipv6": 1}
        wanted = set(ecn.get(i, {}))
        if len(wanted) > 1:
            # The scenario asks what one host cannot do: invalid input (exit 2), not a failed run.
            groups = ecn[i]
            raise scenario_error(
                "flows",
                f"host {plan['hosts'][i]['node']} sends flows with ECN ({', '.join(sorted(groups[True]))}) and "
                f"without ({', '.join(sorted(groups[False]))}); the kernel's tcp_ecn is one setting per host "
                "(network namespace): send them from different hosts",
            )
        if wanted == {True}:
            s["net.ipv4.tcp_ecn"] = 1
        out[i] = s
    return out


def _agent_specs(
    plan: Mapping[str, Any], ends: list[tuple[int, int]], seed: int, congestion_control: str | None
) -> dict[int, dict[str, Any]]:
    specs = {
        i: {
            "t0_ns": None,
            "duration_s": plan["duration_s"],
            "warmup_s": plan["warmup_s"],
            "sample_interval_s": plan["sample_interval_s"],
            "seed": seed,
            "receivers": [],
            "senders": [],
        }
        for i in range(len(plan["hosts"]))
    }
    for f, (src, dst) in zip(plan["flows"], ends, strict=True):
        flow = {k: v for k, v in f.items() if k not in ("group", "src", "dst", "ecn")}
        if f["kind"] == "tcp" and congestion_control is not None:
            flow["congestion_control"] = congestion_control
        specs[dst]["receivers"].append(flow)
        specs[src]["senders"].append(flow)
    return specs


def _finite(v: Any) -> bool:
    return isinstance(v, int | float) and math.isfinite(v)


def _flow_reports(
    plan: Mapping[str, Any], ends: list[tuple[int, int]], reports: Mapping[int, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The hosts' measurements per flow, as the router's `finish` takes them: a transfer's
    completion at the receiver, the sender's RTT; the sender kernel's recovery counters when
    its host sends no other flow (they are per namespace). The goodput is the router's."""
    senders_per_host = collections.Counter(src for src, _ in ends)
    out = []
    for f, (src, dst) in zip(plan["flows"], ends, strict=True):
        fid = str(f["flow"])
        received = reports.get(dst, {}).get("flows", {}).get(fid, {})
        sent = reports.get(src, {}).get("flows", {}).get(fid, {})
        r: dict[str, Any] = {"flow": f["flow"]}
        if _finite(received.get("completed_at_s")):
            r["completed_at_s"] = received["completed_at_s"]
        n = int(sent.get("rtt_samples") or 0)
        if n and _finite(sent.get("mean_srtt_ms")):
            r["srtt_sum_ms"], r["srtt_samples"] = sent["mean_srtt_ms"] * n, n
        netstat = reports.get(src, {}).get("netstat", {})
        if f["kind"] == "tcp" and senders_per_host[src] == 1 and netstat:
            r["timeouts"] = int(netstat.get("TcpExt.TCPTimeouts", 0))
            r["fast_recoveries"] = int(netstat.get("TcpExt.TCPSackRecovery", 0)) + int(
                netstat.get("TcpExt.TCPRenoRecovery", 0)
            )
            r["tail_loss_probes"] = int(netstat.get("TcpExt.TCPLossProbes", 0))
            r["spurious_retransmissions"] = int(netstat.get("TcpExt.TCPDSACKRecv", 0))
        out.append(r)
    return out


def _wait_ready(procs: Mapping[int, Any], timeout: float) -> None:
    """Waits for every agent's ``ready`` line; an agent that exits or says anything else fails
    the run with its stderr."""
    sel = selectors.DefaultSelector()
    for i, p in procs.items():
        sel.register(p.stdout, selectors.EVENT_READ, i)
    waiting = set(procs)
    deadline = time.monotonic() + timeout
    try:
        while waiting:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EmulationError(f"hosts {sorted(waiting)} did not start within {timeout:g} s")
            for key, _ in sel.select(left):
                i = key.data
                line = key.fileobj.readline()  # type: ignore[union-attr]
                if line.strip() != b"ready":
                    err = procs[i].stderr.read().decode(errors="replace").strip() if procs[i].poll() is not None else ""
                    raise EmulationError(f"host agent {i} failed to start: {err or line!r}")
                sel.unregister(key.fileobj)
                waiting.discard(i)
    finally:
        sel.close()


def _set_up_hosts(
    hosts: HostNamespaces, plan: Mapping[str, Any], devices: list[str], sysctls: Mapping[int, Mapping[str, int]]
) -> None:
    """A namespace per host, its sysctls, the router's device moved in with the host's address."""
    for i, (h, dev) in enumerate(zip(plan["hosts"], devices, strict=True)):
        ns = hosts.add(i)
        for key, value in sysctls[i].items():
            hosts.set_sysctl(ns, key, value)
        hosts.move_device(dev, ns)
        hosts.configure_tun(ns, dev, h["address"], int(plan["mtu"]))


def _spawn_agents(
    hosts: HostNamespaces, specs: Mapping[int, Mapping[str, Any]], tmp: Path, cpus: set[int] | None
) -> dict[int, subprocess.Popen[bytes]]:
    """Each host's agent in its namespace (its spec and report in ``tmp``), on ``cpus`` if given."""
    procs = {}
    for i, spec in specs.items():
        spec_path = tmp / f"host{i}.json"
        spec_path.write_text(json.dumps(spec))
        argv = [sys.executable, "-m", "aqmlab.emulation.host_agent", str(spec_path), str(tmp / f"report{i}.json")]
        procs[i] = hosts.spawn(
            hosts.name(i), argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        if cpus is not None:
            os.sched_setaffinity(procs[i].pid, cpus)
    return procs


def _wait_for_end(router: Any, end_s: float, duration_s: float, progress: ProgressFn | None) -> None:
    """Until the router's thread ends (at the scenario's end), calling ``progress``; it returning
    False stops the run as Ctrl-C does."""
    while router.is_running():
        left = end_s - time.monotonic_ns() / 1e9
        if progress is not None and progress(min(1.0, max(0.0, 1 - left / duration_s))) is False:
            raise KeyboardInterrupt
        time.sleep(0.5 if left > 0.5 else 0.05)


def _read_reports(procs: Mapping[int, subprocess.Popen[bytes]], tmp: Path) -> dict[int, dict[str, Any]]:
    """Each agent's report, once it has exited (it does shortly after the scenario's end)."""
    reports = {}
    for i, p in procs.items():
        try:
            p.wait(timeout=REPORT_TIMEOUT_S)
        except subprocess.TimeoutExpired as e:
            raise EmulationError(f"host agent {i} did not finish within {REPORT_TIMEOUT_S:g} s") from e
        path = tmp / f"report{i}.json"
        if not path.exists():
            err = p.stderr.read().decode(errors="replace").strip() if p.stderr else ""
            raise EmulationError(f"host agent {i} wrote no report: {err}")
        reports[i] = json.loads(path.read_text())
    return reports


def refuse_what_is_not_emulated(s: Mapping[str, Any]) -> None:
    """What a simulation has that an emulation does not carry, refused with the field's path
    rather than ignored: the router writes no capture or trace (tcpdump on its TUN devices
    sees the real packets), the hosts' flows are the kernel's (an event cannot start or stop
    them), the latency probes have no host agent, and the hosts' sockets set no DSCP."""
    for field in ("capture", "trace"):
        if s.get(field):
            raise scenario_error(
                field, "not recorded in an emulation; capture the real packets with tcpdump on the router's devices"
            )
    for i, e in enumerate(s.get("events") or []):
        for field in ("start_flows", "stop_flows"):
            if isinstance(e, Mapping) and e.get(field) is not None:
                raise scenario_error(
                    f"events[{i}].{field}",
                    "an emulation's flows are the hosts' own: give them a start and stop instead",
                )
    for i, f in enumerate(s.get("flows") or []):
        if isinstance(f, Mapping) and f.get("kind") in ("ping", "tcp_rr"):
            raise scenario_error(f"flows[{i}].kind", f"{f['kind']!r} probes are not emulated (simulation only)")
        if isinstance(f, Mapping) and f.get("dscp"):
            raise scenario_error(f"flows[{i}].dscp", "the emulated hosts' sockets set no TOS (simulation only)")


def emulate(
    scenario: ScenarioLike,
    seed: int | None = None,
    *,
    duration: float | str | None = None,
    warmup: float | str | None = None,
    congestion_control: str | None = None,
    max_lag_us: float = DEFAULT_MAX_LAG_US,
    spin_us: float = DEFAULT_SPIN_US,
    router_cpu: int | Literal["auto"] | None = "auto",
    progress: ProgressFn | None = None,
) -> Result:
    """Runs ``scenario`` in real time with the hosts' Linux TCP (or UDP) through aqmlab's
    router, and returns a :class:`Result` with the tables of a simulation.

    ``duration`` and ``warmup`` replace the scenario's (seconds or "30s"); ``congestion_control`` makes
    every TCP flow use that kernel congestion control (any of
    /proc/sys/net/ipv4/tcp_available_congestion_control), instead of the scenario's
    ``tcp.congestion_control`` (reno or cubic). ``max_lag_us``: the bound on the router's
    departure-clock lag (99th percentile) above which the result is marked not valid
    (``Result.emulation["valid"]``, and a warning); ``spin_us``: how long before an event
    the router polls instead of sleeping; ``router_cpu``: pin the router thread to that CPU and
    the hosts' agents to the others (``"auto"``, the default: the last CPU this process may
    use, when it may use two or more; None: no pinning). Unpinned, the hosts' processes woken
    on the router's CPU delay it: 10 CUBIC flows through PIE gave a departure-lag p99 of
    1.4 ms, and 50 flows 2 ms; pinned, 30 us (BENCHMARKS.md). ``progress(fraction)`` is called about twice a second.

    Needs root, /dev/net/tun and iproute2 (:class:`EmulationUnavailable` otherwise, one line
    naming what is missing). Raises :class:`aqmlab.ScenarioError` for invalid input,
    :class:`EmulationError` when a host fails, KeyboardInterrupt on Ctrl-C; nothing is left
    behind in any case.
    """
    from .. import _core  # the extension: imported here, so that `import aqmlab.emulation` is cheap

    s = dict(load_scenario(scenario))
    refuse_what_is_not_emulated(s)
    for field, value in (("duration", duration), ("warmup", warmup)):
        if value is not None:
            s[field] = value if isinstance(value, str) else float(value)
    seed = resolve_seed(s, seed)
    # The options first, before the network is built and anything created on the machine.
    if not (max_lag_us > 0 and math.isfinite(max_lag_us)):
        raise ValueError(f"max_lag_us: {max_lag_us}, expected a positive number of microseconds")
    try:  # the router's own range (EmulationRouter.start); the check of --spin-us
        microseconds_in_range(spin_us, 1e6)
    except ValueError as e:
        raise ValueError(f"spin_us: {e}") from None
    scenario_json = to_json(s)
    # The network and its plan first, before anything is created on the machine.
    router = _core.EmulationRouter(scenario_json, seed, _device_prefix())
    plan = router.plan()
    if len(plan["hosts"]) > 10_000:
        raise EmulationError(f"topology: {len(plan['hosts'])} hosts; an emulation has at most 10,000")
    ccs = (
        {congestion_control}
        if congestion_control
        else {f["congestion_control"] for f in plan["flows"] if f["kind"] == "tcp"}
    )
    ends = flow_hosts(plan)
    sysctls = _host_sysctls(plan, ends)
    preflight(sorted(c for c in ccs if c))
    cpus = os.sched_getaffinity(0)
    if router_cpu == "auto":
        router_cpu = max(cpus) if len(cpus) > 1 else None
    others = None
    if router_cpu is not None:
        others = cpus - {router_cpu}
        if router_cpu not in cpus or not others:
            raise ValueError(f"router_cpu: {router_cpu} is not one of this process's CPUs, or the only one")
    specs = _agent_specs(plan, ends, seed, congestion_control)
    remove_stale()

    reports: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="aqmlab-emulate-") as tmp, HostNamespaces() as hosts:
        try:
            router.create_devices()
            _set_up_hosts(hosts, plan, router.devices(), sysctls)
            procs = _spawn_agents(hosts, specs, Path(tmp), others)
            _wait_ready(procs, READY_TIMEOUT_S)
            t0 = time.monotonic_ns() + int(START_LEAD_S * 1e9)
            router.start(t0, spin_us, router_cpu)
            for p in procs.values():
                assert p.stdin is not None
                p.stdin.write(f"go {t0}\n".encode())
                p.stdin.flush()
            _wait_for_end(router, t0 / 1e9 + float(plan["duration_s"]), float(plan["duration_s"]), progress)
            figures = router.stop(now=False)
            reports = _read_reports(procs, Path(tmp))
        finally:
            router.stop(now=True)
    errors = [f"host {plan['hosts'][i]['node']}: {e}" for i, r in reports.items() for e in r.get("errors", [])]
    if errors:
        raise EmulationError("; ".join(errors[:3]) + (f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""))
    if figures.get("error"):
        raise EmulationError(f"the router failed: {figures['error']}")
    series = []
    if s.get("sample_flows") and s.get("sample_interval") is not None:
        series = [x for r in reports.values() for x in r.get("series", []) if _finite(x.get("value"))]
    raw = router.finish(json.dumps(_flow_reports(plan, ends, reports)), json.dumps(series), float(max_lag_us))
    raw["emulation"]["host_write_errors"] = figures["host_write_errors"]
    # What the receiving applications read inside the window, beside the router's goodput (in
    # order at the receiving host, by sending time, as the simulator counts it): a cross-check
    # that differs by what sat in receive buffers at the window's edges.
    read = sum(
        int(x.get("goodput_bytes") or 0)
        for r in reports.values()
        for x in r.get("flows", {}).values()
        if x.get("role") == "receiver"
    )
    window_s = float(plan["duration_s"]) - float(plan["warmup_s"])
    raw["emulation"]["application_goodput_bps"] = read * 8 / window_s if window_s > 0 else math.nan
    result = Result(raw)
    if not raw["emulation"]["valid"]:
        from ..errors import warn_scenario

        warn_scenario("emulation", str(raw["emulation"]["invalid_reason"]), stacklevel=2)
    return result
