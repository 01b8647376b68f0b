"""``aqmlab validate-emulation``: one scenario simulated (the ``linux`` TCP profile) and
emulated (the kernel's TCP through the same network code), side by side.

The two runs share everything but the TCP: the topology, the queue disciplines with their
parameters and random streams, the seeds, the measurement window. What differs is then the
model of Linux TCP against Linux itself (and the emulator's own lag, reported beside).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..result import Result
from ..scenario import ScenarioLike, load_scenario, resolve_seed

# (name in the table, unit, how to read it off a result)
Metric = tuple[str, str, Callable[[Result, str], float]]


def _queue(col: str) -> Callable[[Result, str], float]:
    return lambda r, q: float(r.queue(q)[col])


def _flows(col: str, how: str) -> Callable[[Result, str], float]:
    return lambda r, q: float(r.summary.get(f"flows.{col}.{how}", math.nan))


METRICS: tuple[Metric, ...] = (
    ("utilization", "fraction", _queue("utilization")),
    ("drop_rate", "fraction", _queue("loss_rate")),
    (
        "mark_rate",
        "marks per arrival",
        lambda r, q: float(r.queue(q)["marks"]) / max(1.0, float(r.queue(q)["arrivals"])),
    ),
    ("mean_queue", "packets", _queue("mean_queue_packets")),
    ("mean_delay", "ms", _queue("mean_delay_ms")),
    ("p99_delay", "ms", _queue("p99_delay_ms")),
    ("goodput", "Mb/s", lambda r, q: _flows("goodput_bps", "sum")(r, q) / 1e6),
    ("jain_index", "", lambda r, q: float(r.jain_index)),
    ("mean_rtt", "ms", _flows("mean_rtt_ms", "mean")),
    ("retransmissions", "packets", _flows("retransmissions", "sum")),
)

SIMULATED_CONGESTION_CONTROLS = ("reno", "cubic", "bbr")


def linux_profile(scenario: Mapping[str, Any], congestion_control: str | None) -> dict[str, Any]:
    """The scenario with the ``linux`` TCP profile under its own ``tcp`` fields (a profile the
    scenario names itself is kept), and ``congestion_control`` if given."""
    s = dict(scenario)
    tcp = dict(s.get("tcp", {}))
    tcp.setdefault("profile", "linux")
    if congestion_control is not None:
        tcp["congestion_control"] = congestion_control
    s["tcp"] = tcp
    return s


@dataclass
class EmulationValidation:
    """Both sides, per seed, and the table of means with relative differences."""

    scenario: str
    queue: str
    seeds: list[int]
    duration_s: float
    congestion_control: str | None
    simulated: list[Result] = field(default_factory=list)
    emulated: list[Result] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
        """One row per metric: simulated and emulated means over the seeds, and
        (simulated - emulated) / emulated (NaN where the emulated value is 0)."""
        out = []
        for name, unit, read in METRICS:
            sim = _mean(read(r, self.queue) for r in self.simulated)
            emu = _mean(read(r, self.queue) for r in self.emulated)
            rel = (sim - emu) / abs(emu) if emu and math.isfinite(emu) and math.isfinite(sim) else math.nan
            out.append({"metric": name, "unit": unit, "simulated": sim, "emulated": emu, "relative_difference": rel})
        return out

    def lag(self) -> dict[str, float]:
        """The emulator's departure lag over the emulated runs: the largest p50, p99, max (us),
        and whether every run was valid."""
        em = [r.raw["emulation"] for r in self.emulated]
        return {
            "departure_lag_p50_us": max(e["departure_lag_p50_us"] for e in em),
            "departure_lag_p99_us": max(e["departure_lag_p99_us"] for e in em),
            "departure_lag_max_us": max(e["departure_lag_max_us"] for e in em),
            "all_valid": all(e["valid"] for e in em),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "queue": self.queue,
            "seeds": self.seeds,
            "duration_s": self.duration_s,
            "congestion_control": self.congestion_control,
            "rows": self.rows(),
            "lag": self.lag(),
        }


def _mean(xs: Iterable[float]) -> float:
    v = [x for x in xs if math.isfinite(x)]
    return statistics.fmean(v) if v else math.nan


def scenario_and_seeds(
    scenario: ScenarioLike,
    seeds: Iterable[int] | None,
    duration: float | str | None,
    warmup: float | str | None,
) -> tuple[dict[str, Any], list[int]]:
    """A comparison's scenario with its window overridden where given, and its seeds (the
    scenario's own when ``seeds`` is None); validate-emulation's and validate-kernel's."""
    base = load_scenario(scenario)
    for name, value in (("duration", duration), ("warmup", warmup)):
        if value is not None:
            base[name] = value
    seed_list = list(seeds) if seeds is not None else [resolve_seed(base, None)]
    if not seed_list:
        raise ValueError("seeds: give at least one seed")
    return base, seed_list


def validate_emulation(
    scenario: ScenarioLike,
    seeds: Iterable[int] | None = None,
    *,
    duration: float | str | None = None,
    warmup: float | str | None = None,
    congestion_control: str | None = None,
    queue: str = "bottleneck",
    progress: Callable[[str], None] | None = None,
    **emulate_options: Any,
) -> EmulationValidation:
    """Simulates ``scenario`` with the ``linux`` profile and emulates it, once per seed (the
    scenario's seed when ``seeds`` is None). A congestion control the simulator does not model
    is emulated only: its simulated column is NaN (reno, cubic and, since issue 28, bbr are
    simulated; the scenario's ``tcp`` must then allow them, e.g. ``recovery = "rfc6675"`` for
    bbr, which the linux profile gives)."""
    from .. import api
    from .emulate import emulate

    base, seed_list = scenario_and_seeds(scenario, seeds, duration, warmup)
    simulate = congestion_control is None or congestion_control in SIMULATED_CONGESTION_CONTROLS
    sim_scenario = linux_profile(base, congestion_control)
    v = EmulationValidation(
        scenario=str(base.get("name", "")),
        queue=queue,
        seeds=seed_list,
        duration_s=0.0,
        congestion_control=congestion_control,
    )
    for seed in seed_list:
        if simulate:
            if progress:
                progress(f"simulating seed {seed}")
            v.simulated.append(api.run(sim_scenario, seed=seed))
            # a queue the scenario does not have is refused before the first emulation
            _check_queue(v.simulated[0], queue)
        if progress:
            progress(f"emulating seed {seed}")
        v.emulated.append(emulate(base, seed, congestion_control=congestion_control, **emulate_options))
        _check_queue(v.emulated[0], queue)
    v.duration_s = v.emulated[0].duration_s
    return v


def _check_queue(result: Result, queue: str) -> None:
    """ScenarioError naming ``--queue`` when ``result`` has no such queue (a queue's row exists
    once it saw traffic, so a run is the first place to know)."""
    from ..errors import scenario_error

    try:
        result.queue(queue)
    except KeyError as e:
        raise scenario_error("--queue", str(e).strip("'\"")) from None
