"""What the league runs: the seed papers' main scenarios x the registry's AQMs. Nothing runs here.

- :data:`SCENARIOS`: one scenario per paper, why that one, and how ``--quick`` shortens it.
- Each AQM's configuration in each scenario (:func:`aqm_config`): the registry defaults; a
  default is replaced only when it is *meaningless for the buffer*: the AQM's operating point
  (RED's max_th, QVARED's max_th, DSRED's K_h, Orange's K, PI's q_ref, REM's b0) at or above
  the bottleneck's buffer, a level the queue cannot hold below overflow. Then ONE rule per
  family, from the algorithm's source, sets it (:data:`BUFFER_RULES`); AQMs whose parameters
  are times or rates are never changed.
- ECN: only the NEWQUE scenario has ECN-capable TCP; there every AQM that supports ECN has
  ``ecn = true``. Everywhere else TCP is not ECN-capable (the QVARED scenario file's
  ``tcp.ecn = true`` is switched off) so that no AQM marks while the others drop. Under an
  ECN-capable TCP profile (``--tcp dctcp`` or ``prague``) every scenario has ECN and every
  AQM that supports it marks.
- :data:`METRICS`: what every run records (the summary keys :func:`.run.league_run` writes).
- :func:`plan`: the grid, one :class:`LeaguePlan` per scenario, each of which is one
  :class:`aqmlab.sweep.Sweep` (one point per AQM).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..cli_options import seconds
from ..reproduce import SCENARIOS as SCENARIO_DIR  # the papers' scenario files

if TYPE_CHECKING:
    from ..sweep import Sweep

# ---------------------------------------------------------------------------- metrics
#: (column, label, summary key written by :func:`.run.league_run`, scale to the column's unit)
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
#: Each metric's physical range, in the league's units. A Student-t interval over a few
#: replications of a value near a bound reaches past it (a Jain index of 0.998 ± 0.004 over 2
#: replications, utilization 99.9 ± 0.3 %): the league clips its intervals to the range
#: (issue 35; docs/league.md, "Statistics").
METRIC_BOUNDS: Mapping[str, tuple[float, float]] = {
    "utilization_pct": (0.0, 100.0),
    "goodput_mbps": (0.0, math.inf),
    "delay_ms": (0.0, math.inf),
    "p99_delay_ms": (0.0, math.inf),
    "loss_pct": (0.0, 100.0),
    "marks": (0.0, math.inf),
    "jain": (0.0, 1.0),
}
SUMMARY_KEYS = tuple(m[2] for m in METRICS) + ("league.fair_flows",)


# ---------------------------------------------------------------------------- scenarios
@dataclass(frozen=True)
class LeagueScenario:
    """One column of the league: a paper's main scenario and how the league runs it."""

    id: str
    paper: str
    title: str
    choice: str  # which point of the paper, and why
    file: str | None = None  # relative to SCENARIO_DIR (reproduce/scenarios)
    base: Mapping[str, Any] | None = None  # inline scenario instead of a file (tests)
    ecn: bool = False  # ECN-capable TCP, ecn = true on every AQM that supports it
    exclude_groups: tuple[str, ...] = ()  # flow groups not counted in goodput and fairness
    overrides: Mapping[str, Any] = field(default_factory=dict)  # dotted path -> value, always
    quick: Mapping[str, Any] = field(default_factory=dict)  # dotted path -> value, --quick only

    def heading(self, tcp: str | None = None) -> str:
        """The title with the sender the league runs: the paper's own TCP (Reno in ns-2), or
        the congestion control of ``tcp``'s profile (issue 35: `--tcp bbr` was headed "Reno")."""
        return self.title.replace("{sender}", sender_name(tcp))

    def uses_ecn(self, tcp: str | None = None) -> bool:
        """ECN-capable TCP in this scenario: the paper's own choice, or always under a TCP
        profile that is ECN-capable (DCTCP and Prague need it: every AQM that can then marks)."""
        from aqmlab.scenario import tcp_profile_sends_ecn

        return bool(self.ecn) or (tcp is not None and tcp_profile_sends_ecn(tcp))

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
        s.setdefault("tcp", {})["ecn"] = self.uses_ecn(tcp)
        for path, value in {**self.overrides, **(self.quick if quick else {})}.items():
            set_path(s, path, copy.deepcopy(value), create=True)
        s["name"] = f"league-{self.id}"
        return s


#: How a heading names a congestion control.
_SENDER_NAMES = {"reno": "Reno", "cubic": "CUBIC", "bbr": "BBR", "dctcp": "DCTCP", "prague": "Prague"}


def sender_name(tcp: str | None) -> str:
    """The sender of TCP profile ``tcp`` in words ("BBR"); the papers' TCP for None: the ns-2
    Reno of every league scenario."""
    if tcp is None:
        return "Reno"
    from aqmlab import _core

    cc = str(_core.tcp_profiles().get(tcp, {}).get("congestion_control", tcp))
    return _SENDER_NAMES.get(cc, cc)


SCENARIOS: tuple[LeagueScenario, ...] = (
    LeagueScenario(
        id="orange",
        paper="Orange (Catalkaya & Sis)",
        file="orange/sec5_table2.toml",
        title="Orange sec. 5 / Table 2: 60 heterogeneous-RTT {sender} flows (RTT 50/100/200 ms), 10 Mb/s, buffer 120",
        choice="The paper's only TCP experiment (Tables 2-3), as the scenario file has it: 100 s, first 20 s discarded.",
        quick={"duration": "30s", "warmup": "6s"},
    ),
    LeagueScenario(
        id="newque",
        paper="NEWQUE (Santhi & Natarajan)",
        file="newque/dumbbell.toml",
        title="NEWQUE dumbbell: 200 ECN {sender} flows, 10 Mb/s 100 ms, buffer 300",
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
        title="QVARED dumbbell: 80 {sender} sources, 10 Mb/s 2 ms, buffer 160",
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
_RATE = re.compile(r"^\s*([0-9.eE+-]+)\s*([kKmMgG]?)(bps|b/s)?\s*$")
_RATE_SCALE = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9}


def _in_base_unit(value: Any, pattern: re.Pattern[str], scale: Mapping[Any, float], what: str) -> float:
    """A bare number as it is, or the number and unit ``pattern`` reads scaled by ``scale``;
    ``what`` names the quantity in the error."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    m = pattern.match(str(value))
    if not m:
        raise ValueError(f"not a {what}: {value!r}")
    return float(m.group(1)) * scale[m.group(2)]


def bits_per_second(value: Any) -> float:
    """A scenario rate ("10Mbps", "1.5Mbps", 1e7) in bit/s."""
    return _in_base_unit(value, _RATE, _RATE_SCALE, "rate")


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

    link: dict[str, Any] = get_path(scenario, bottleneck_link_path(scenario))
    return link


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


# ---------------------------------------------------------------------------- sweeps
@dataclass
class LeaguePlan:
    """One scenario of the grid: the scenario as the league runs it, where its AQM table
    goes, and each AQM's (table, note); :meth:`sweep` is the sweep that runs them all."""

    spec: LeagueScenario
    scenario: dict[str, Any]
    aqm_path: str
    configs: dict[str, tuple[dict[str, Any], str]]  # AQM name -> (table, note)

    def sweep(self, replications: int, master_seed: int) -> Sweep:
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
        configs = {a.name: aqm_config(a, s, spec.uses_ecn(tcp)) for a in infos}
        plans.append(LeaguePlan(spec, s, path, configs))
    return plans


def resolve_scenarios(scenarios: Sequence[LeagueScenario] | Sequence[str] | None) -> list[LeagueScenario]:
    """The league's scenarios named by id (or given), all of them when none is."""
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
