"""The metric registry: each paper metric name -> a function of one run's stored summary.

A metric function takes ``(row, link)``: ``row`` is a mapping of summary keys (the stored
run, including the ``x.*`` keys of :mod:`.runfn`), ``link`` the reported link (the
experiment's first ``report_links`` entry). It returns a float (NaN if unavailable).
Register more with :func:`register`. Names are the ``metrics[].name`` of the paper files;
a metric without a function here is reported as "not computed".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

MetricFn = Callable[[Mapping[str, Any], str], float]
REGISTRY: dict[str, MetricFn] = {}
DESCRIPTIONS: dict[str, str] = {}


def register(name: str, description: str) -> Callable[[MetricFn], MetricFn]:
    def deco(fn: MetricFn) -> MetricFn:
        REGISTRY[name] = fn
        DESCRIPTIONS[name] = description
        return fn

    return deco


def _g(row: Mapping[str, Any], key: str) -> float:
    v = row.get(key, math.nan)
    try:
        f = float(v)
    except (TypeError, ValueError):
        return math.nan
    return f


def _q(row: Mapping[str, Any], link: str, col: str) -> float:
    return _g(row, f"queue.{link}.{col}")


@register("throughput_kbps", "sum of flow goodput (payload) / 1000")
def throughput_kbps(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "flows.goodput_bps.sum") / 1000.0


@register("delay_ms", "mean end-to-end delay of delivered packets, weighted by packets (x.flows.delay_ms)")
def delay_ms(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "x.flows.delay_ms")


@register("queue_pkts", "time-average number of waiting packets at the link (queue.<link>.mean_queue_packets)")
@register("mean_queue_pkts", "time-average number of waiting packets at the link (excludes the one in transmission)")
def queue_pkts(row: Mapping[str, Any], link: str) -> float:
    """One metric under the two names the paper files use."""
    return _q(row, link, "mean_queue_packets")


@register("mean_in_system_pkts", "waiting + in transmission (mean_queue_packets + utilization)")
def mean_in_system_pkts(row: Mapping[str, Any], link: str) -> float:
    return _q(row, link, "mean_queue_packets") + _q(row, link, "utilization")


@register("sent_packets", "packets sent by all flows (sum)")
def sent_packets(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "x.flows.packets_sent")


@register("arrived_router", "packets arriving at the link's queue")
def arrived_router(row: Mapping[str, Any], link: str) -> float:
    return _q(row, link, "arrivals")


@register("arrived_destination", "packets received by all flows (sum)")
def arrived_destination(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "x.flows.packets_received")


@register("normalized_throughput", "packets received / packets sent (incl. retransmissions), all flows")
def normalized_throughput(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "x.flows.normalized_throughput")


@register(
    "queueing_delay_ms",
    "mean sojourn at the link's queue: arrival until the last bit is sent (queue.<link>.mean_delay_ms)",
)
def queueing_delay_ms(row: Mapping[str, Any], link: str) -> float:
    return _q(row, link, "mean_delay_ms")


@register("queueing_delay_s", "mean sojourn at the link's queue, seconds")
def queueing_delay_s(row: Mapping[str, Any], link: str) -> float:
    return _q(row, link, "mean_delay_ms") / 1000.0


@register("drop_rate_pps", "drops at the link / measured seconds")
def drop_rate_pps(row: Mapping[str, Any], link: str) -> float:
    return _g(row, f"x.queue.{link}.drop_rate_pps")


@register("loss_pct", "drops / (arrivals + backlog at the start of the window) at the link x 100")
def loss_pct(row: Mapping[str, Any], link: str) -> float:
    return 100.0 * _q(row, link, "loss_rate")


@register("utilization_pct", "link busy fraction x 100")
def utilization_pct(row: Mapping[str, Any], link: str) -> float:
    return 100.0 * _q(row, link, "utilization")


@register("dropped_packets", "drops at the link")
def dropped_packets(row: Mapping[str, Any], link: str) -> float:
    return _q(row, link, "drops")


@register("marked_packets", "ECN marks at the link")
def marked_packets(row: Mapping[str, Any], link: str) -> float:
    return _q(row, link, "marks")


def compute(name: str, row: Mapping[str, Any], link: str) -> float:
    fn = REGISTRY.get(name)
    if fn is None:
        return math.nan
    try:
        return float(fn(row, link))
    except (TypeError, ValueError, ZeroDivisionError):
        return math.nan


def known(name: str) -> bool:
    return name in REGISTRY


# --------------------------------------------------------------------------- NEWQUE, Hybrid RED, QVARED
# (paper-specific metrics of the repro3 reproductions; the run functions that produce the x.*
# keys used here live in companions/qvared.py)


@register("throughput_pps", "packets received by all flows / measured seconds (QVARED eq. 3; warm-up 0 = whole run)")
def throughput_pps(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "x.flows.packets_received") / _g(row, "x.measured_s")


@register("goodput_mbps", "sum of flow goodput (payload) in Mb/s")
def goodput_mbps(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "flows.goodput_bps.sum") / 1e6


@register(
    "bias",
    "QVARED's Fig. 9 ratio: the bursty flow's goodput / the equal share of the total goodput "
    "('actual rate / fair rate'; x.bias from companions.qvared.run_with_bias; 1 = fair, higher is better)",
)
def bias(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "x.bias")


@register(
    "bias_fj",
    "Floyd & Jacobson 1993's bias: bursty flow's share of (drops + marks) / its share of delivered "
    "packets (x.bias_fj; 1 = unbiased, lower is better; NaN without congestion signals)",
)
def bias_fj(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "x.bias_fj")


# --------------------------------------------------------------------------- L4S coexistence
# (heistp/l4s-tests: two flows in groups ``flow1`` and ``flow2``; docs/validation.md, "L4S
# coexistence")


@register(
    "dss1_mbps",
    "flow 1's goodput in the measurement window, Mb/s (group.flow1.goodput_bps): what the receiver got per "
    "second, standing for l4s-tests' D_SS, the mean of the delivery-rate samples, which also count "
    "retransmissions",
)
def dss1_mbps(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "group.flow1.goodput_bps") / 1e6


@register("dss2_mbps", "flow 2's goodput in the measurement window, Mb/s (group.flow2.goodput_bps)")
def dss2_mbps(row: Mapping[str, Any], link: str) -> float:
    return _g(row, "group.flow2.goodput_bps") / 1e6


@register(
    "jain",
    "Jain's index of the two flows' goodputs in one run, (a + b)^2 / (2 (a^2 + b^2)) as l4s-tests' "
    "steady_state.go jains (there: of the two D_SS; here the mean over runs of each run's index)",
)
def jain(row: Mapping[str, Any], link: str) -> float:
    a, b = dss1_mbps(row, link), dss2_mbps(row, link)
    return (a + b) ** 2 / (2 * (a * a + b * b)) if a > 0 or b > 0 else math.nan


@register("share1", "flow 1's share of the two flows' goodput, dss1 / (dss1 + dss2)")
def share1(row: Mapping[str, Any], link: str) -> float:
    a, b = dss1_mbps(row, link), dss2_mbps(row, link)
    return a / (a + b) if a + b > 0 else math.nan


def register_key(name: str, key: str, description: str) -> None:
    """A metric that is one stored key of a run function of its own (``x.``...)."""
    register(name, f"{description} ({key})")(lambda row, link: _g(row, key))


# Scenario 2's rate step (companions/l4s_tests.py run_rate_step)
register_key("tcp_rtt_before_ms", "x.srtt_before_ms", "median srtt of the flow over the 10 s before the step")
register_key(
    "max_tcp_rtt_ms", "x.max_srtt_after_ms", "the largest srtt sample of the flow after the step (every 50 ms)"
)
register_key("spike_s", "x.spike_s", "from the step to the last srtt sample above 1.5 x the median before it")
register_key(
    "utilization_before",
    "x.utilization_before",
    "the flow's bytes received over the 10 s before the step x 8 / (10 s x link rate), at most 1 "
    "(a packet finishing just inside the window counts whole)",
)
register_key(
    "utilization_after",
    "x.utilization_after",
    "the flow's bytes received from 10 to 30 s after the step x 8 / (20 s x the new rate), at most 1",
)


# --------------------------------------------------------------------------- the SCE/L4S bakeoff
# (companions/sce_l4s_bakeoff.py: flow 1 starts at 0 s, flow 2 at 10 s; the names are the
# transcription's statements' metrics)


register_key(
    "convergence_time",
    "x.convergence_s",
    "from flow 2's start until the two flows' 1 s goodputs stay within 1.5x for 5 s (n/a: never within the run)",
)
register_key("tcp_rtt_increase", "x.srtt_increase_ms", "a single flow's median srtt over 20-60 s above its least")
register_key(
    "tcp_rtt_spike",
    "x.spike2_ms",
    "the joining flow's srtt spike: flow 2's largest srtt after it starts above its least (the README's "
    "spike is CUBIC's slow start after Prague's exit, the second flow)",
)
register_key("tcp_rtt_spike_duration", "x.spike2_s", "the width of flow 2's spike at half its height")
register_key(
    "flow1_rtt_spike", "x.spike1_ms", "flow 1's srtt spike after flow 2 starts: its largest srtt then above its least"
)
register_key("goodput1_mbps", "x.goodput1_mbps", "flow 1's goodput over 10-60 s, Mb/s")
register_key("goodput2_mbps", "x.goodput2_mbps", "flow 2's goodput over 10-60 s, Mb/s")
register_key(
    "throughput_ratio",
    "x.ratio_2_to_1",
    "flow 2's goodput over flow 1's, 10-60 s (the cell stated is CUBIC then Prague: Prague / CUBIC)",
)
register_key(
    "mean_throughput_ratio",
    "x.ratio_2_to_1",
    "the same ratio (the README states it twice for one cell: ~7.5x and ~7.7x)",
)
