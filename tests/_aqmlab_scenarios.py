"""Small UDP scenarios shared by the API, CLI and custom-AQM tests (TCP may send nothing yet)."""

from __future__ import annotations

import copy
from typing import Any

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

UDP_TOML = """
name = "udp-toml"
duration = "10s"
warmup = "1s"
[topology]
kind = "dumbbell"
senders = 2
bottleneck = { rate = "1Mbps", delay = "10ms", queue = { limit = 20, aqm = "red" } }
access = { rate = "100Mbps", delay = "1ms" }
[[flows]]
kind = "poisson"
from = "senders"
to = "receivers"
packets_per_second = 70
"""

LONG_TOML = """
name = "long"
duration = "100000s"
[topology]
kind = "dumbbell"
senders = 2
bottleneck = { rate = "100Mbps", delay = "10ms", queue = { limit = 100, aqm = "red" } }
access = { rate = "1Gbps", delay = "1ms" }
[[flows]]
kind = "cbr"
from = "senders"
to = "receivers"
rate = "60Mbps"
"""


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
