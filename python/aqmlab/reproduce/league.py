"""The AQM league: every AQM of the registry on every seed paper's main scenario.

One table per scenario (utilization, goodput, delay, p99 delay, loss, marks, Jain index, each
a mean over replications with a 95% Student-t confidence interval), an overall table of ranks,
delay-vs-goodput figures and a plain-words summary written from the numbers.

The runs go through :mod:`aqmlab.sweep` (one sweep per scenario, one point per AQM, a
resumable store per scenario under ``OUT/store/``); this module only builds the sweeps, a run
function that adds the league's metrics to the usual summary, and the report.

Rules (also in docs/league.md):

- Every AQM runs with its registry defaults. A default is replaced only when it is
  *meaningless for the buffer*: the AQM's operating point (RED's max_th, QVARED's max_th,
  DSRED's K_h, Orange's K, PI's q_ref, REM's b0) at or above the bottleneck's buffer, a level
  the queue cannot hold below overflow. Then ONE rule per family, from the algorithm's source,
  sets it (``BUFFER_RULES``); AQMs whose parameters are times or rates are never changed.
- ECN: only the NEWQUE scenario has ECN-capable TCP; there every AQM that supports ECN has
  ``ecn = true``. Everywhere else TCP is not ECN-capable (the QVARED scenario file's
  ``tcp.ecn = true`` is switched off) so that no AQM marks while the others drop.
- Sort criterion of a scenario table: AQMs with mean utilization >= 95% first, by mean delay
  (lowest first); then the others by utilization (highest first). The rank in that order is
  the AQM's rank in the scenario; the overall table averages the ranks.
"""

from __future__ import annotations

import copy
import datetime as _dt
import functools
import json
import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

SCENARIO_DIR = Path(__file__).parent / "scenarios"

#: Utilization (%) an AQM must reach to compete for "lowest delay".
UTILIZATION_FLOOR_PCT = 95.0

#: (column, label, summary key written by :func:`league_run`, scale to the column's unit)
METRICS: tuple[tuple[str, str, str, float], ...] = (
    ("utilization_pct", "Util %", "league.utilization", 100.0),
    ("goodput_mbps", "Goodput Mb/s", "league.goodput_bps", 1e-6),
    ("delay_ms", "Delay ms", "league.delay_ms", 1.0),
    ("p99_delay_ms", "p99 ms", "league.p99_delay_ms", 1.0),
    ("loss_pct", "Loss %", "league.loss_rate", 100.0),
    ("marks", "Marks", "league.marks", 1.0),
    ("jain", "Jain", "league.jain", 1.0),
)
METRIC_COLUMNS = tuple(m[0] for m in METRICS)
SUMMARY_KEYS = tuple(m[2] for m in METRICS) + ("league.fair_flows",)
#: Part of every store key: bump it when league_run's output changes.
LEAGUE_VERSION = "league2"


# ---------------------------------------------------------------------------- scenarios
@dataclass(frozen=True)
class LeagueScenario:
    """One column of the league: a paper's main scenario and how the league runs it."""

    id: str
    paper: str
    title: str
    choice: str  # which point of the paper, and why
    file: str | None = None  # relative to reproduce/scenarios
    base: Mapping[str, Any] | None = None  # inline scenario instead of a file (tests)
    ecn: bool = False  # ECN-capable TCP, ecn = true on every AQM that supports it
    exclude_groups: tuple[str, ...] = ()  # flow groups not counted in goodput and fairness
    overrides: Mapping[str, Any] = field(default_factory=dict)  # dotted path -> value, always
    quick: Mapping[str, Any] = field(default_factory=dict)  # dotted path -> value, --quick only

    def load(self, quick: bool = False, tcp: str | None = None) -> dict[str, Any]:
        """The scenario the league runs (before the AQM is put in); ``tcp`` names a TCP
        profile for every flow (:func:`aqmlab.scenario.with_tcp_profile`)."""
        import aqmlab
        from aqmlab.sweep import set_path

        if self.base is not None:
            s = aqmlab.load_scenario(copy.deepcopy(dict(self.base)))
        elif self.file is not None:
            s = aqmlab.load_scenario(SCENARIO_DIR / self.file)
        else:
            raise ValueError(f"league scenario {self.id!r} has neither file nor base")
        if tcp is not None:
            from aqmlab.scenario import with_tcp_profile

            s = with_tcp_profile(s, tcp)
        s.pop("sample_interval", None)  # no time series: not used, and they cost time
        s.setdefault("tcp", {})["ecn"] = bool(self.ecn)
        for path, value in {**self.overrides, **(self.quick if quick else {})}.items():
            set_path(s, path, copy.deepcopy(value), create=True)
        s["name"] = f"league-{self.id}"
        return s


SCENARIOS: tuple[LeagueScenario, ...] = (
    LeagueScenario(
        id="orange",
        paper="Orange (Catalkaya & Sis)",
        file="orange/sec5_table2.toml",
        title="Orange sec. 5 / Table 2: 60 heterogeneous-RTT Reno flows (RTT 50/100/200 ms), 10 Mb/s, buffer 120",
        choice="The paper's only TCP experiment (Tables 2-3), as the scenario file has it: 100 s, first 20 s discarded.",
        quick={"duration": "30s", "warmup": "6s"},
    ),
    LeagueScenario(
        id="newque",
        paper="NEWQUE (Santhi & Natarajan)",
        file="newque/dumbbell.toml",
        title="NEWQUE dumbbell: 200 ECN Reno flows, 10 Mb/s 100 ms, buffer 300",
        choice=(
            "The scenario file's base point, 200 flows with a 300-packet buffer: the one point shared by "
            "both of the paper's dumbbell series (flows 50..300 at buffer 300, buffer 150..400 at 200 flows). "
            "ECN on, as in the paper."
        ),
        ecn=True,
        quick={"duration": "30s"},
    ),
    LeagueScenario(
        id="hybrid_red",
        paper="Hybrid RED (Haider & Harris)",
        file="hybrid_red/topology2.toml",
        title="Hybrid RED topology 2: 1.5 Mb/s 20 ms, buffer 50, reverse flow, 20 flows join at 25 s",
        choice=(
            "Topology 2, the paper's dynamic scenario (two forward flows, a reverse flow whose data meets the "
            "forward ACKs, 20 late flows from 25 s), 50 s. The reverse flow is left out of goodput and fairness: "
            "it does not cross the bottleneck's forward queue."
        ),
        exclude_groups=("reverse",),
        # 50 s runs take a few hundredths of a second, and the late flows start at 25 s: no shortening.
    ),
    LeagueScenario(
        id="qvared",
        paper="QVARED (Seol & Lee)",
        file="qvared/dumbbell.toml",
        title="QVARED dumbbell: 80 Reno sources, 10 Mb/s 2 ms, buffer 160",
        choice=(
            "The scenario file's base point, 80 sources: the heaviest load of Figs 6-7 (1..80 sources) and the "
            "point of Fig. 8. TCP without ECN here (the file's tcp.ecn is switched off; ECN only in NEWQUE)."
        ),
        quick={"duration": "30s"},
    ),
    LeagueScenario(
        id="dsred",
        paper="DSRED (Zheng & Atiquzzaman)",
        file="dsred/heavy_load.toml",
        title="DSRED heavy load: 3 servers, 2619 transfers of 50 kB (load 1.1), 10 Mb/s 5 ms, buffer 200",
        choice=(
            "Heavy load, the paper's main case (Tables 2-3 lead with it): offered load 1.1 of the bottleneck. "
            "Fairness is over the transfer rates (50 kB / completion time) of completed transfers."
        ),
        # Same offered load in 30 s: 873 transfers per server in 99 s -> 256 in 29 s.
        quick={"duration": "30s", "flows.0.count": 256, "flows.0.start": {"uniform": ["0s", "29s"]}},
    ),
)
SCENARIO_IDS = tuple(s.id for s in SCENARIOS)


# ---------------------------------------------------------------------------- units
_TIME = re.compile(r"^\s*([0-9.eE+-]+)\s*(ns|us|ms|s|min)?\s*$")
_TIME_SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, None: 1.0}
_RATE = re.compile(r"^\s*([0-9.eE+-]+)\s*([kKmMgG]?)(bps|b/s)?\s*$")
_RATE_SCALE = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9}


def seconds(value: Any) -> float:
    """A scenario time ("6.5ms", "100s", 2.5) in seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = _TIME.match(str(value))
    if not m:
        raise ValueError(f"not a time: {value!r}")
    return float(m.group(1)) * _TIME_SCALE[m.group(2)]


def bits_per_second(value: Any) -> float:
    """A scenario rate ("10Mbps", "1.5Mbps", 1e7) in bit/s."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = _RATE.match(str(value))
    if not m:
        raise ValueError(f"not a rate: {value!r}")
    return float(m.group(1)) * _RATE_SCALE[m.group(2)]


# ---------------------------------------------------------------------------- bottleneck
def bottleneck_link_path(scenario: Mapping[str, Any]) -> str:
    """Dotted path of the bottleneck link (dumbbell: topology.bottleneck; graph: the link named
    "bottleneck", else the only monitored link)."""
    topo = scenario.get("topology", {})
    if topo.get("kind") != "graph":
        return "topology.bottleneck"
    links = topo.get("links", [])
    for i, lk in enumerate(links):
        if lk.get("name") == "bottleneck":
            return f"topology.links.{i}"
    monitored = [i for i, lk in enumerate(links) if lk.get("monitor")]
    if len(monitored) == 1:
        return f"topology.links.{monitored[0]}"
    raise ValueError("no bottleneck: name a graph link 'bottleneck'")


def bottleneck_link(scenario: Mapping[str, Any]) -> dict[str, Any]:
    from aqmlab.sweep import get_path

    return get_path(scenario, bottleneck_link_path(scenario))


# ---------------------------------------------------------------------------- AQM configs
@dataclass(frozen=True)
class AqmInfo:
    name: str
    ecn: bool
    defaults: Mapping[str, str]


def registry(names: Sequence[str] | None = None) -> list[AqmInfo]:
    """The built-in AQMs that build with their defaults (all of them, unless ``names``)."""
    import aqmlab

    df = aqmlab.aqms()
    df = df[df["builtin"] & df["implemented"]]
    infos = [
        AqmInfo(str(r["name"]), bool(r["ecn"]), {p["name"]: str(p["default"]) for p in (r["params"] or [])})
        for _, r in df.iterrows()
    ]
    if names:
        known = {a.name: a for a in infos}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"unknown AQM {unknown[0]!r}; known: {', '.join(known)}")
        infos = [known[n] for n in dict.fromkeys(names)]
    return infos


def _red_default_max_th(defaults: Mapping[str, str], rate_bps: float) -> float:
    """max_th of the RED family with the registry's formula defaults:
    min_th = max(5, target_delay * ptc / 2), max_th = 3 min_th, ptc = rate / (8 mean_pkt_size)."""
    ptc = rate_bps / (8.0 * float(defaults.get("mean_pkt_size", "500")))
    min_th = max(5.0, seconds(defaults.get("target_delay", "5ms")) * ptc / 2.0)
    return 3.0 * min_th


def _num(defaults: Mapping[str, str], key: str) -> float:
    return float(defaults[key])


#: family -> (AQMs, the operating point that must lie below the buffer, the rule's text,
#:            function(defaults, buffer, rate) -> replacement parameters)
BUFFER_RULES: dict[str, tuple[tuple[str, ...], Callable[..., float], str, Callable[..., dict[str, float]]]] = {
    "red": (
        ("red", "ared", "lpf_oda", "hybrid_red"),
        lambda d, rate: _red_default_max_th(d, rate),
        (
            "RED family: max_th = 3 min_th (the registry's own rule, Floyd) with the gentle region ending at "
            "the buffer (2 max_th = buffer): min_th = buffer/6, max_th = buffer/2"
        ),
        lambda d, buf, rate: {"min_th": buf / 6.0, "max_th": buf / 2.0},
    ),
    "qvared": (
        ("qvared",),
        lambda d, rate: _num(d, "max_th"),
        (
            "QVARED: thresholds scaled with their 20:50:80 ratio to buffer = 2 max_th (the rule the QVARED "
            "scenario uses for the paper's missing buffer)"
        ),
        lambda d, buf, rate: {k: _num(d, k) * buf / (2.0 * _num(d, "max_th")) for k in ("min_th", "med_th", "max_th")},
    ),
    "dsred": (
        ("dsred",),
        lambda d, rate: _num(d, "k_h"),
        "DSRED: K_l and K_h scaled with the buffer from the paper's K_h = 20 at buffer 200 (K_m stays the midpoint)",
        lambda d, buf, rate: {k: _num(d, k) * buf / 200.0 for k in ("k_l", "k_h")},
    ),
    "orange": (
        ("orange",),
        lambda d, rate: _num(d, "threshold"),
        "Orange: K scaled from the paper's K = 10 at buffer 120",
        lambda d, buf, rate: {"threshold": max(1, round(_num(d, "threshold") * buf / 120.0))},
    ),
    "pi": (
        ("pi",),
        lambda d, rate: _num(d, "q_ref"),
        "PI: q_ref = buffer/4 (Hollot et al. 2001 simulate q_ref = 200 with an 800-packet buffer)",
        lambda d, buf, rate: {"q_ref": buf / 4.0},
    ),
    "rem": (
        ("rem",),
        lambda d, rate: _num(d, "b0"),
        "REM: b0 = buffer/4 (the PI rule: the target backlog a quarter of the buffer)",
        lambda d, buf, rate: {"b0": buf / 4.0},
    ),
}


def aqm_config(aqm: AqmInfo, scenario: Mapping[str, Any], ecn: bool) -> tuple[dict[str, Any], str]:
    """The AQM table the league uses for ``aqm`` in ``scenario`` and a note ("" when the
    registry defaults are used unchanged, apart from ECN)."""
    link = bottleneck_link(scenario)
    queue = link.get("queue", {})
    buffer = float(queue.get("limit", math.inf))
    rate = bits_per_second(link.get("rate", 0))
    table: dict[str, Any] = {"kind": aqm.name}
    note = ""
    for members, operating_point, text, rule in BUFFER_RULES.values():
        if aqm.name in members and operating_point(aqm.defaults, rate) >= buffer:
            params = {
                k: (round(v, 3) if isinstance(v, float) else v) for k, v in rule(aqm.defaults, buffer, rate).items()
            }
            table.update(params)
            note = f"scaled to buffer {buffer:g}: " + ", ".join(f"{k}={v:g}" for k, v in params.items()) + f" ({text})"
            break
    if ecn and aqm.ecn:
        table["ecn"] = True
    return table, note


# ---------------------------------------------------------------------------- run function
def _jain(xs: Sequence[float]) -> float:
    xs = [x for x in xs if math.isfinite(x)]
    if not xs:
        return math.nan
    s, s2 = sum(xs), sum(x * x for x in xs)
    return (s * s) / (len(xs) * s2) if s2 > 0 else math.nan


def fair_rates(scenario: Mapping[str, Any], flows: pd.DataFrame, exclude_groups: Sequence[str] = ()) -> list[float]:
    """Per-flow rates (bit/s) for the fairness index.

    Long-lived flows: goodput over the time the flow was active in the measurement window (a
    flow that starts at 25 s of a 50 s run is not "unfair" for having half the bytes); the
    start of each flow is its entry's ``start`` (cycled over the entry's flows in flow-table
    order); a random ``uniform`` start counts as the window's beginning. Finite transfers:
    delivered bits / completion time, completed transfers only.
    """
    duration = seconds(scenario.get("duration", 0))
    warmup = seconds(scenario.get("warmup", 0))
    span = max(duration - warmup, 1e-12)
    entries = scenario.get("flows", [])
    groups = [e.get("group") for e in entries]
    keep = flows[~flows["group"].isin(list(exclude_groups))] if "group" in flows else flows
    if any(g is None for g in groups) or len(set(groups)) != len(groups):
        # Flow rows cannot be matched to entries: plain goodputs.
        return [float(x) for x in keep["goodput_bps"]]
    rates: list[float] = []
    for entry in entries:
        g = entry["group"]
        if g in exclude_groups:
            continue
        rows = flows[flows["group"] == g]
        start = entry.get("start", 0)
        stop = seconds(entry["stop"]) if "stop" in entry else duration
        finite = "size" in entry
        for k, (goodput, done) in enumerate(zip(rows["goodput_bps"], rows["completion_time_s"], strict=True)):
            bits = float(goodput) * span
            if finite:
                if math.isfinite(done) and done > 0:
                    rates.append(bits / float(done))
                continue
            if isinstance(start, list):
                t0 = seconds(start[k % len(start)])
            elif isinstance(start, Mapping):
                t0 = 0.0
            else:
                t0 = seconds(start)
            active = min(stop, duration) - max(t0, warmup)
            if active > 0:
                rates.append(bits / active)
    return rates


def league_run(scenario: dict, seed: int, exclude_groups: Sequence[str] = ()) -> dict[str, Any]:
    """The sweep's run function: ``aqmlab.run(...).summary`` plus the league's metrics
    (``league.*``: bottleneck utilization, delay, p99, loss, marks; goodput and Jain index of
    the counted flows)."""
    import aqmlab
    from aqmlab.scenario import bottleneck_name

    r = aqmlab.run(scenario, seed=seed)
    qname = bottleneck_name(scenario)
    # The run's summary without the other queues (400 access queues in NEWQUE: 8000 columns
    # per stored run that the league never reads).
    out: dict[str, Any] = {
        k: v for k, v in r.summary.items() if not k.startswith("queue.") or k.startswith(f"queue.{qname}.")
    }
    q = r.queue(qname)
    flows = r.flows
    counted = flows[~flows["group"].isin(list(exclude_groups))] if len(flows) else flows
    rates = fair_rates(scenario, flows, exclude_groups) if len(flows) else []
    out.update(
        {
            "league.utilization": float(q["utilization"]),
            "league.delay_ms": float(q["mean_delay_ms"]),
            "league.p99_delay_ms": float(q["p99_delay_ms"]),
            "league.loss_rate": float(q["loss_rate"]),
            "league.marks": float(q["marks"]),
            "league.goodput_bps": float(counted["goodput_bps"].sum()) if len(counted) else math.nan,
            "league.jain": _jain(rates),
            "league.fair_flows": len(rates),
        }
    )
    return out


# ---------------------------------------------------------------------------- sweeps
@dataclass
class LeaguePlan:
    spec: LeagueScenario
    scenario: dict[str, Any]
    aqm_path: str
    configs: dict[str, tuple[dict[str, Any], str]]  # AQM name -> (table, note)

    def sweep(self, replications: int, master_seed: int):  # -> aqmlab.sweep.Sweep
        from aqmlab.sweep import Sweep

        # One zip group (name, AQM table): whole tables as values replace the base's AQM table
        # (explicit points would be merged into it key by key).
        names = [f"league-{self.spec.id}-{name}" for name in self.configs]
        tables = [table for table, _ in self.configs.values()]
        return Sweep(
            base=self.scenario,
            zip={"name": names, self.aqm_path: tables},
            replications=replications,
            master_seed=master_seed,
            metrics=list(SUMMARY_KEYS),
            name=f"league-{self.spec.id}",
            cost="duration",
        )

    def scenario_for(self, aqm: str) -> dict[str, Any]:
        from aqmlab.sweep import set_path

        s = copy.deepcopy(self.scenario)
        set_path(s, self.aqm_path, copy.deepcopy(self.configs[aqm][0]))
        s["name"] = f"league-{self.spec.id}-{aqm}"
        return s


def smoke_scenario(scenario: Mapping[str, Any], duration_s: float = 0.1) -> dict[str, Any]:
    """A copy of ``scenario`` that lasts ``duration_s`` (every flow starts at 0): enough to
    build every queue and AQM and move some packets, for build checks."""
    s = copy.deepcopy(dict(scenario))
    s["duration"] = float(duration_s)
    s["warmup"] = 0.0
    for f in s.get("flows", []):
        f["start"] = "0s"
        f.pop("stop", None)
    return s


def plan(
    scenarios: Sequence[LeagueScenario] = SCENARIOS,
    aqms: Sequence[str] | None = None,
    quick: bool = False,
    tcp: str | None = None,
) -> list[LeaguePlan]:
    """Scenario x AQM configurations of the league (nothing runs)."""
    infos = registry(aqms)
    plans = []
    for spec in scenarios:
        s = spec.load(quick, tcp)
        path = bottleneck_link_path(s) + ".queue.aqm"
        configs = {a.name: aqm_config(a, s, spec.ecn) for a in infos}
        plans.append(LeaguePlan(spec, s, path, configs))
    return plans


def run_league(
    out: str | Path,
    *,
    replications: int | None = None,
    quick: bool = False,
    workers: int | None = 2,
    aqms: Sequence[str] | None = None,
    scenarios: Sequence[LeagueScenario] | Sequence[str] | None = None,
    master_seed: int = 20240601,
    progress: Callable[[str], None] | None = None,
    figures: bool = True,
    tcp: str | None = None,
) -> pd.DataFrame:
    """Runs the league (only missing runs: the stores under ``out/store`` are resumable) and
    writes league.md, league.csv, league.parquet and the figures to ``out``. Returns the tidy
    table. ``tcp`` names a TCP profile for every flow (default: each paper's own TCP)."""
    from aqmlab.sweep import engine_version, run_sweep

    if figures:
        from . import figures as _  # noqa: F401  (without matplotlib: fail now, not after the runs)

    specs = _resolve_scenarios(scenarios)
    reps = replications if replications is not None else (2 if quick else 5)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    plans = plan(specs, aqms, quick, tcp)
    frames = []
    failures: list[str] = []
    for p in plans:
        sweep = p.sweep(reps, master_seed)
        store = out / "store" / (p.spec.id + ("-quick" if quick else ""))
        t_s = time.perf_counter()
        report = run_sweep(
            sweep,
            store,
            workers=workers,
            backend="serial" if workers == 1 else "process",
            run_fn=functools.partial(league_run, exclude_groups=p.spec.exclude_groups),
            engine_version=f"{engine_version()}+{LEAGUE_VERSION}",
        )
        for f in report.failures:
            failures.append(f"{p.spec.id}: {f}")
        if progress:
            progress(
                f"{p.spec.id}: {report.ok} runs, {report.skipped_ok} reused, {report.failed} failed, "
                f"{time.perf_counter() - t_s:.1f} s"
            )
        frames.append(_tidy(p, report.table(list(SUMMARY_KEYS))))
    tidy = pd.concat(frames, ignore_index=True)
    elapsed = time.perf_counter() - t0
    tidy.to_csv(out / "league.csv", index=False)
    tidy.to_parquet(out / "league.parquet", index=False)
    wide = to_wide(tidy)
    figs = write_figures(wide, out) if figures else []
    meta = {
        "command": _command_line(out, reps, quick, workers, aqms, specs, tcp),
        "date": _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "run_time_s": elapsed,
        "replications": reps,
        "quick": quick,
        "tcp": tcp or "each paper's own (ns-2)",
        "workers": workers,
        "failures": failures,
        "figures": [f.name for f in figs],
    }
    (out / "league.md").write_text(render_markdown(wide, plans, meta), encoding="utf-8")
    (out / "league.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return tidy


def rerender(out: str | Path, scenarios: Sequence[LeagueScenario] | None = None) -> Path:
    """Rewrites ``out/league.md`` from ``league.parquet`` and ``league.json`` (no runs), keeping
    the command, date and run time of the run that produced them."""
    out = Path(out)
    tidy = pd.read_parquet(out / "league.parquet")
    meta = json.loads((out / "league.json").read_text(encoding="utf-8"))
    ids = list(dict.fromkeys(tidy["scenario"]))
    specs = [s for s in (scenarios or SCENARIOS) if s.id in ids]
    plans = plan(specs, list(dict.fromkeys(tidy["aqm"])), bool(meta.get("quick")))
    path = out / "league.md"
    path.write_text(render_markdown(to_wide(tidy), plans, meta), encoding="utf-8")
    return path


def _resolve_scenarios(scenarios: Sequence[LeagueScenario] | Sequence[str] | None) -> list[LeagueScenario]:
    if not scenarios:
        return list(SCENARIOS)
    by_id = {s.id: s for s in SCENARIOS}
    out = []
    for s in scenarios:
        if isinstance(s, LeagueScenario):
            out.append(s)
        elif s in by_id:
            out.append(by_id[s])
        else:
            raise ValueError(f"unknown league scenario {s!r}; known: {', '.join(by_id)}")
    return out


def _command_line(out, reps, quick, workers, aqms, specs, tcp=None) -> str:
    parts = ["aqmlab league", f"--out {out}"]
    if tcp:
        parts.append(f"--tcp {tcp}")
    if quick:
        parts.append("--quick")
    parts.append(f"--replications {reps}")
    parts.append(f"--workers {workers}")
    for a in aqms or []:
        parts.append(f"--aqm {a}")
    if [s.id for s in specs] != list(SCENARIO_IDS):
        parts += [f"--scenario {s.id}" for s in specs]
    return " ".join(parts)


def _tidy(p: LeaguePlan, table: pd.DataFrame) -> pd.DataFrame:
    """The sweep's aggregate (one row per point x summary key) -> league rows with units."""
    names = {f"league-{p.spec.id}-{a}": a for a in p.configs}
    by_key = {m[2]: m for m in METRICS}
    rows = []
    for _, r in table.iterrows():
        key = r["metric"]
        if key not in by_key:
            continue
        col, label, _, scale = by_key[key]
        aqm = names[r["name"]]
        table_, note = p.configs[aqm]
        row = {
            "scenario": p.spec.id,
            "paper": p.spec.paper,
            "aqm": aqm,
            "metric": col,
            "label": label,
            "params": json.dumps(table_, sort_keys=True),
            "adjustment": note,
        }
        for stat in ("mean", "std", "ci95_low", "ci95_high", "ci95_half_width"):
            row[stat] = float(r[stat]) * scale if pd.notna(r[stat]) else math.nan
        row["n"] = int(r["n"])
        rows.append(row)
    return pd.DataFrame(rows)


def to_wide(tidy: pd.DataFrame) -> pd.DataFrame:
    """One row per (scenario, aqm): ``<metric>``, ``<metric>_lo``, ``<metric>_hi``,
    ``<metric>_hw`` (the CI half width) and ``n``."""
    rows = []
    for (sc, aqm), g in tidy.groupby(["scenario", "aqm"], sort=False):
        row: dict[str, Any] = {
            "scenario": sc,
            "aqm": aqm,
            "adjustment": g["adjustment"].iloc[0],
            "n": int(g["n"].min()),
        }
        for _, r in g.iterrows():
            m = r["metric"]
            row[m] = r["mean"]
            row[m + "_lo"] = r["ci95_low"]
            row[m + "_hi"] = r["ci95_high"]
            row[m + "_hw"] = r["ci95_half_width"]
        rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- ranking & words
def _interval(row: Mapping[str, Any], metric: str) -> tuple[float, float]:
    lo, hi, m = row.get(metric + "_lo", math.nan), row.get(metric + "_hi", math.nan), row[metric]
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return (m, m)
    return (lo, hi)


def overlaps(a: Mapping[str, Any], b: Mapping[str, Any], metric: str) -> bool:
    """True when the 95% CIs of ``metric`` of rows a and b overlap (statistically tied)."""
    (a0, a1), (b0, b1) = _interval(a, metric), _interval(b, metric)
    return a0 <= b1 and b0 <= a1


def rank_scenario(df: pd.DataFrame, floor_pct: float = UTILIZATION_FLOOR_PCT) -> pd.DataFrame:
    """Rows of one scenario in league order: utilization >= floor by delay ascending, then the
    rest by utilization descending. Adds ``qualified`` and ``rank`` (1 = best)."""
    d = df.copy()
    d["qualified"] = d["utilization_pct"] >= floor_pct
    q = d[d["qualified"]].sort_values(["delay_ms", "aqm"])
    nq = d[~d["qualified"]].sort_values(["utilization_pct", "aqm"], ascending=[False, True])
    d = pd.concat([q, nq])
    d["rank"] = range(1, len(d) + 1)
    return d.reset_index(drop=True)


def _fmt(x: float, digits: int = 2) -> str:
    if not math.isfinite(x):
        return "n/a"
    return f"{x:.{digits}f}"


def _ci(row: Mapping[str, Any], metric: str, digits: int) -> str:
    lo, hi = row.get(metric + "_lo", math.nan), row.get(metric + "_hi", math.nan)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    return f" [{lo:.{digits}f}, {hi:.{digits}f}]"


def _names(xs: Sequence[str]) -> str:
    xs = list(xs)
    if len(xs) <= 1:
        return "".join(xs)
    return ", ".join(xs[:-1]) + " and " + xs[-1]


def scenario_sentences(df: pd.DataFrame, floor_pct: float = UTILIZATION_FLOOR_PCT) -> list[str]:
    """Plain-words findings for one scenario's rows (from the numbers only)."""
    d = rank_scenario(df, floor_pct)
    recs = d.to_dict("records")
    out: list[str] = []
    qual = [r for r in recs if r["qualified"]]
    if qual:
        w = qual[0]
        tied = [r["aqm"] for r in qual[1:] if overlaps(w, r, "delay_ms")]
        s = (
            f"Lowest delay at >= {floor_pct:g}% utilization: **{w['aqm']}**, {_fmt(w['delay_ms'])} ms"
            f"{_ci(w, 'delay_ms', 2)} at {_fmt(w['utilization_pct'], 1)}% utilization"
        )
        s += (
            f"; statistically tied with it (overlapping delay CIs): {_names(tied)}."
            if tied
            else "; no other AQM's delay CI overlaps its own."
        )
        out.append(s)
        n_out = len(recs) - len(qual)
        if n_out:
            out.append(
                f"{n_out} of {len(recs)} AQMs stay below {floor_pct:g}% utilization: "
                f"{_names([r['aqm'] for r in recs if not r['qualified']])}."
            )
    else:
        best = max(recs, key=lambda r: r["utilization_pct"])
        low = min(recs, key=lambda r: r["delay_ms"])
        out.append(
            f"No AQM reaches {floor_pct:g}% utilization; the highest is **{best['aqm']}** "
            f"({_fmt(best['utilization_pct'], 1)}%, delay {_fmt(best['delay_ms'])} ms); the lowest delay overall is "
            f"{low['aqm']} ({_fmt(low['delay_ms'])} ms at {_fmt(low['utilization_pct'], 1)}%)."
        )
    fair = [r for r in recs if math.isfinite(r["jain"])]
    if fair:
        f = max(fair, key=lambda r: r["jain"])
        tied = [r["aqm"] for r in fair if r is not f and overlaps(f, r, "jain")]
        s = f"Best fairness: **{f['aqm']}** (Jain {_fmt(f['jain'], 3)}{_ci(f, 'jain', 3)})"
        s += f", tied with {_names(tied)}." if tied else ", ahead of every other AQM beyond the CIs."
        out.append(s)
    lossy = max(recs, key=lambda r: r["loss_pct"] if math.isfinite(r["loss_pct"]) else -1)
    least = min(recs, key=lambda r: r["loss_pct"] if math.isfinite(r["loss_pct"]) else math.inf)
    slow = min(recs, key=lambda r: r["goodput_mbps"] if math.isfinite(r["goodput_mbps"]) else math.inf)
    out.append(
        f"Loses most: **{lossy['aqm']}** ({_fmt(lossy['loss_pct'])}% of arrivals dropped; least: {least['aqm']}, "
        f"{_fmt(least['loss_pct'])}%). Lowest goodput: {slow['aqm']} ({_fmt(slow['goodput_mbps'])} Mb/s)."
    )
    return out


def overall_ranks(wide: pd.DataFrame, floor_pct: float = UTILIZATION_FLOOR_PCT) -> pd.DataFrame:
    """One row per AQM: its rank in each scenario, the mean rank, and in how many scenarios it
    is the delay winner or tied with it."""
    ranks: dict[str, dict[str, Any]] = {}
    scen = list(dict.fromkeys(wide["scenario"]))
    for sc in scen:
        d = rank_scenario(wide[wide["scenario"] == sc], floor_pct)
        recs = d.to_dict("records")
        qual = [r for r in recs if r["qualified"]]
        top = {qual[0]["aqm"]} | {r["aqm"] for r in qual[1:] if overlaps(qual[0], r, "delay_ms")} if qual else set()
        for r in recs:
            e = ranks.setdefault(r["aqm"], {"aqm": r["aqm"], "top": 0, "qualified": 0})
            e[sc] = int(r["rank"])
            e["top"] += r["aqm"] in top
            e["qualified"] += bool(r["qualified"])
    df = pd.DataFrame(list(ranks.values()))
    df["mean_rank"] = df[scen].mean(axis=1)
    df["worst_rank"] = df[scen].max(axis=1)
    df = df.sort_values(["mean_rank", "worst_rank", "top", "aqm"], ascending=[True, True, False, True]).reset_index(
        drop=True
    )
    df["position"] = range(1, len(df) + 1)
    return df[["position", "aqm", *scen, "mean_rank", "worst_rank", "qualified", "top"]]


def overall_sentences(wide: pd.DataFrame, floor_pct: float = UTILIZATION_FLOOR_PCT) -> list[str]:
    o = overall_ranks(wide, floor_pct)
    scen = [c for c in o.columns if c not in ("position", "aqm", "mean_rank", "worst_rank", "qualified", "top")]
    n_sc, n_aqm = len(scen), len(o)
    third = max(1, math.ceil(n_aqm / 3))
    out = []
    best = o.iloc[0]
    out.append(
        f"Best mean rank: **{best['aqm']}** ({best['mean_rank']:.1f} over {n_sc} scenarios; worst rank {int(best['worst_rank'])})."
    )
    always = o[o["worst_rank"] <= third]["aqm"].tolist()
    if always:
        out.append(f"Consistently good (in the top third, rank <= {third}, in every scenario): {_names(always)}.")
    else:
        o2 = o.assign(k=(o[scen] <= third).sum(axis=1)).sort_values(["k", "mean_rank"], ascending=[False, True])
        k = int(o2["k"].iloc[0])
        names = o2[o2["k"] == k]["aqm"].tolist()
        out.append(
            f"No AQM is in the top third (rank <= {third}) of every scenario; the most consistent are "
            f"{_names(names)} (top third in {k} of {n_sc})."
        )
    tops = o[o["top"] > 0].sort_values(["top", "mean_rank"], ascending=[False, True])
    if len(tops):
        out.append(
            "Lowest delay at full utilization, or statistically tied with it: "
            + "; ".join(f"{r.aqm} in {r.top} of {n_sc}" for r in tops.itertuples())
            + "."
        )
    low_util = o[o["qualified"] < n_sc // 2 + 1]
    if len(low_util):
        out.append(
            f"Reach {floor_pct:g}% utilization in fewer than half of the scenarios: "
            + _names([f"{r.aqm} ({r.qualified} of {n_sc})" for r in low_util.itertuples()])
            + "."
        )
    worst = o.iloc[-1]
    out.append(f"Worst mean rank: {worst['aqm']} ({worst['mean_rank']:.1f}).")
    return out


# ---------------------------------------------------------------------------- report
def _cell(row: Mapping[str, Any], metric: str, digits: int) -> str:
    m, hw = row[metric], row.get(metric + "_hw", math.nan)
    if not math.isfinite(m):
        return "n/a"
    return f"{m:.{digits}f} ± {hw:.{digits}f}" if math.isfinite(hw) else f"{m:.{digits}f}"


_DIGITS = {
    "utilization_pct": 1,
    "goodput_mbps": 2,
    "delay_ms": 2,
    "p99_delay_ms": 1,
    "loss_pct": 2,
    "marks": 0,
    "jain": 3,
}


def scenario_table_md(df: pd.DataFrame, floor_pct: float = UTILIZATION_FLOOR_PCT) -> str:
    d = rank_scenario(df, floor_pct)
    head = ["#", "AQM"] + [m[1] for m in METRICS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in d.to_dict("records"):
        name = r["aqm"] + ("" if r["qualified"] else " ⁻") + (" *" if r.get("adjustment") else "")
        cells = [str(r["rank"]), name] + [_cell(r, m, _DIGITS[m]) for m in METRIC_COLUMNS]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_markdown(wide: pd.DataFrame, plans: Sequence[LeaguePlan], meta: Mapping[str, Any]) -> str:
    floor = UTILIZATION_FLOOR_PCT
    n = int(wide["n"].min()) if len(wide) else 0
    lines = [
        "# AQM league",
        "",
        f"- command: `{meta['command']}`",
        (
            f"- date: {meta['date']}; run time {meta['run_time_s']:.0f} s (workers: {meta['workers']}; "
            "runs already in the stores are reused, so a resumed league reports less)"
        ),
        (
            f"- {meta['replications']} replications per (scenario, AQM) (n = {n} successful for the scarcest); "
            f"{'QUICK mode: shortened runs (see docs/league.md)' if meta['quick'] else 'full-length runs'}"
        ),
        (
            "- every cell: mean ± half width of the 95% Student-t confidence interval over the replications "
            "(± 0 when every seed gives the same run: an AQM without a random element in a scenario with fixed start times)"
        ),
        (
            f"- order: AQMs with mean utilization >= {floor:g}% first, by mean delay (lowest first); then the "
            f"others (marked ⁻) by utilization (highest first). * = a parameter scaled to the buffer (notes below each table)"
        ),
        (
            "- Util: bottleneck busy fraction; Goodput: sum over the counted flows; Delay / p99: sojourn time in the "
            "bottleneck queue (wait + transmission); Loss: drops / (arrivals + backlog at the start) at the bottleneck; Marks: ECN marks there; "
            "Jain: over per-flow rates while active (see docs/league.md)"
        ),
    ]
    if meta.get("failures"):
        lines += ["", "**Failed runs:**", ""] + [f"- {f}" for f in meta["failures"]]
    lines += ["", "## Summary (generated from the numbers)", ""]
    for p in plans:
        df = wide[wide["scenario"] == p.spec.id]
        if not len(df):
            continue
        lines.append(f"**{p.spec.paper}** ({p.spec.id}):")
        lines += [f"- {s}" for s in scenario_sentences(df, floor)]
        lines.append("")
    if wide["scenario"].nunique() > 1:
        lines.append("**Across scenarios:**")
        lines += [f"- {s}" for s in overall_sentences(wide, floor)]
        lines.append("")
    lines += ["## Scenarios", ""]
    for p in plans:
        df = wide[wide["scenario"] == p.spec.id]
        if not len(df):
            continue
        lines += [f"### {p.spec.id}: {p.spec.title}", "", p.spec.choice, ""]
        lines.append(scenario_table_md(df, floor))
        notes = sorted({(a, note) for a, (_, note) in p.configs.items() if note})
        if notes:
            lines.append("")
            lines += [f"\\* {a}: {note}" for a, note in notes]
        fig = f"league_{p.spec.id}.png"
        if fig in meta.get("figures", []):
            lines += ["", f"![{p.spec.id}: delay vs goodput]({fig})"]
        lines.append("")
    if wide["scenario"].nunique() > 1:
        o = overall_ranks(wide, floor)
        scen = [c for c in o.columns if c not in ("position", "aqm", "mean_rank", "worst_rank", "qualified", "top")]
        lines += [
            "## Overall ranks",
            "",
            (
                "Rank of each AQM in each scenario's table; sorted by the mean rank "
                f"(ties: worst rank, then the best-delay count). `>= {floor:g}%`: scenarios where it reaches that utilization; `best-delay`: "
                "scenarios where it has the lowest delay there or is tied with it."
            ),
            "",
        ]
        head = ["#", "AQM", *scen, "mean rank", "worst", f">= {floor:g}%", "best-delay"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in o.to_dict("records"):
            cells = [
                str(r["position"]),
                r["aqm"],
                *[str(r[s]) for s in scen],
                f"{r['mean_rank']:.1f}",
                str(r["worst_rank"]),
                str(r["qualified"]),
                str(r["top"]),
            ]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def write_figures(wide: pd.DataFrame, out: Path) -> list[Path]:
    """A delay-vs-goodput scatter (with 95% CIs) per scenario, PNG and SVG."""
    from .figures import plt

    paths = []
    for sc, df in wide.groupby("scenario", sort=False):
        fig, ax = plt.subplots(figsize=(7, 5))
        for r in df.to_dict("records"):
            xerr = (
                [[r["delay_ms"] - r["delay_ms_lo"]], [r["delay_ms_hi"] - r["delay_ms"]]]
                if math.isfinite(r["delay_ms_hw"])
                else None
            )
            yerr = (
                [[r["goodput_mbps"] - r["goodput_mbps_lo"]], [r["goodput_mbps_hi"] - r["goodput_mbps"]]]
                if math.isfinite(r["goodput_mbps_hw"])
                else None
            )
            marker = "o" if r["utilization_pct"] >= UTILIZATION_FLOOR_PCT else "x"
            ax.errorbar(r["delay_ms"], r["goodput_mbps"], xerr=xerr, yerr=yerr, fmt=marker, capsize=2, ms=5)
            ax.annotate(
                r["aqm"], (r["delay_ms"], r["goodput_mbps"]), textcoords="offset points", xytext=(4, 3), fontsize=8
            )
        ax.set_xscale("log")
        ax.set_xlabel("mean sojourn delay at the bottleneck (ms, log scale)")
        ax.set_ylabel("total goodput (Mb/s)")
        ax.set_title(f"{sc}: delay vs goodput (o: util >= {UTILIZATION_FLOOR_PCT:g}%, x: below)")
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        for ext in ("png", "svg"):
            p = out / f"league_{sc}.{ext}"
            fig.savefig(p, dpi=120)
            paths.append(p)
        plt.close(fig)
    return paths


# ---------------------------------------------------------------------------- CLI entry
def league_command(
    out: str | Path = "results/league",
    replications: int | None = None,
    quick: bool = False,
    workers: int | None = 2,
    aqms: Sequence[str] | None = None,
    scenarios: Sequence[str] | None = None,
    tcp: str | None = None,
) -> int:
    """``aqmlab league``: runs the league, writes OUT/league.md (+ csv, parquet, figures),
    prints the summary. Returns an exit code: 0 ok, 1 some run failed, 2 bad input, 130 Ctrl-C."""
    import sys

    from aqmlab.errors import ScenarioError

    def say(msg: str) -> None:
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

    try:
        if replications is not None and replications < 1:
            raise ValueError(f"--replications must be >= 1, got {replications}")
        tidy = run_league(
            out,
            replications=replications,
            quick=quick,
            workers=workers,
            aqms=aqms,
            scenarios=scenarios,
            progress=say,
            tcp=tcp,
        )
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except (ScenarioError, ValueError) as e:
        say(f"error: {str(e).strip().splitlines()[0] if str(e).strip() else 'invalid input'}")
        return 2
    meta = json.loads((Path(out) / "league.json").read_text(encoding="utf-8"))
    md = (Path(out) / "league.md").read_text(encoding="utf-8")
    start = md.find("## Summary")
    end = md.find("## Scenarios")
    print(md[start:end].strip())
    print(f"\nwrote {Path(out) / 'league.md'} ({len(tidy)} rows; {meta['run_time_s']:.0f} s)")
    return 1 if meta["failures"] else 0
