"""Small UDP scenarios shared by the API, CLI and custom-AQM tests (TCP may send nothing yet)."""

from __future__ import annotations

import copy
from typing import Any

from aqmlab.toml_writer import dumps

UDP_DUMBBELL: dict[str, Any] = {
    "name": "udp-dumbbell",
    "duration": "20s",
    "warmup": "2s",
    "sample_interval": "1s",
    "topology": {
        "kind": "dumbbell",
        "senders": 2,
        "bottleneck": {"rate": "1Mbps", "delay": "10ms", "queue": {"limit": 20, "aqm": "red"}},
        "access": {"rate": "100Mbps", "delay": "1ms"},
    },
    "flows": [{"kind": "poisson", "from": "senders", "to": "receivers", "packets_per_second": 70}],
}


def tcp_dumbbell(
    duration: str,
    senders: int,
    bottleneck: dict[str, Any],
    *,
    access: dict[str, Any] | None = None,
    flows: list[dict[str, Any]] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    """A dumbbell of `senders` hosts through `bottleneck` and access links `access` (100 Mb/s,
    1 ms) to as many receivers for `duration`, carrying `flows` (one TCP flow per sender to
    the receivers), with the other top-level `fields` (warmup, tcp, events, ...)."""
    return {
        "duration": duration,
        **fields,
        "topology": {
            "kind": "dumbbell",
            "senders": senders,
            "bottleneck": bottleneck,
            "access": access or {"rate": "100Mbps", "delay": "1ms"},
        },
        "flows": flows or [{"kind": "tcp", "from": "senders", "to": "receivers"}],
    }


def scenario(**edits: Any) -> dict[str, Any]:
    """A deep copy of UDP_DUMBBELL with dotted-path edits, e.g. ``**{"topology.senders": 3}``."""
    s = copy.deepcopy(UDP_DUMBBELL)
    for path, value in edits.items():
        node = s
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        if isinstance(node, list):
            node[int(keys[-1])] = value
        else:
            node[keys[-1]] = value
    return s


def _toml(s: dict[str, Any], drop: tuple[str, ...]) -> str:
    """``s`` as the text of a TOML file (aqmlab.toml_writer), without its top-level fields ``drop``."""
    return dumps({k: v for k, v in s.items() if k not in drop})


#: UDP_DUMBBELL as a TOML file: named "udp-toml", 10 s with a 1 s warm-up, not sampled.
UDP_TOML = _toml(scenario(name="udp-toml", duration="10s", warmup="1s"), drop=("sample_interval",))

#: A run that takes hours as a TOML file: UDP_DUMBBELL's network at 100 Mb/s (100 packets of
#: RED, 1 Gb/s access links) under one 60 Mb/s CBR flow for 100,000 s, no warm-up.
LONG_TOML = _toml(
    scenario(
        **{
            "name": "long",
            "duration": "100000s",
            "topology.bottleneck.rate": "100Mbps",
            "topology.bottleneck.queue.limit": 100,
            "topology.access.rate": "1Gbps",
            "flows": [{"kind": "cbr", "from": "senders", "to": "receivers", "rate": "60Mbps"}],
        }
    ),
    drop=("warmup", "sample_interval"),
)

# Bad inputs: (description, edits, field the error must name)
BAD_INPUTS = [
    ("negative rate", {"topology.bottleneck.rate": "-10Mbps"}, "topology.bottleneck.rate"),
    (
        "min_th > max_th",
        {"topology.bottleneck.queue.aqm": {"kind": "red", "min_th": 20, "max_th": 5}},
        "topology.bottleneck.queue.aqm.max_th",
    ),
    ("unknown AQM", {"topology.bottleneck.queue.aqm": "no_such_aqm"}, "topology.bottleneck.queue.aqm"),
    ("unknown field", {"topology.bottleneck.colour": "red"}, "topology.bottleneck.colour"),
    ("unparsable unit", {"topology.bottleneck.delay": "10 parsecs"}, "topology.bottleneck.delay"),
    (
        "tcp partial_ack_timer unknown",
        {"flows.0": {"kind": "tcp", "from": "senders", "to": "receivers", "tcp": {"partial_ack_timer": "never"}}},
        "flows[0].tcp.partial_ack_timer",
    ),
    (
        "tcp partial_ack_timer for reno",
        {
            "flows.0": {
                "kind": "tcp",
                "from": "senders",
                "to": "receivers",
                "tcp": {"variant": "reno", "partial_ack_timer": "first"},
            }
        },
        "flows[0].tcp.partial_ack_timer",
    ),
    (
        "tcp negative overhead",
        {"flows.0": {"kind": "tcp", "from": "senders", "to": "receivers", "tcp": {"overhead": "-1ms"}}},
        "flows[0].tcp.overhead",
    ),
    (
        "tcp limited_transmit not a bool",
        {"flows.0": {"kind": "tcp", "from": "senders", "to": "receivers", "tcp": {"limited_transmit": 1}}},
        "flows[0].tcp.limited_transmit",
    ),
]
