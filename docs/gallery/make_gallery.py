"""Draws docs/gallery/*.png, the plots docs/gallery.md shows, from short runs: `make gallery`
(or `python docs/gallery/make_gallery.py`). Under a minute on 2 cores; each PNG < 100 KB."""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import aqmlab  # noqa: E402
from aqmlab.cli import compare_aqms  # noqa: E402
from aqmlab.plot import compare_figure, plot_result  # noqa: E402
from aqmlab.plot.cli import DPI  # noqa: E402

HERE = Path(__file__).resolve().parent

#: 20 TCP flows (SACK, ECN) with RTTs of 22-38 ms and one 1 Mb/s CBR flow through a 10 Mb/s
#: bottleneck, sampled every 100 ms: every time-series view.
DUMBBELL = """
name = "gallery"
duration = "20s"
warmup = "5s"
sample_interval = "100ms"
sample_flows = true
[topology]
kind = "dumbbell"
senders = 20
bottleneck = {{ rate = "10Mbps", delay = "10ms", queue = {{ limit = 200, aqm = {aqm} }} }}
access = {{ rate = "100Mbps", delay = ["1ms", "3ms", "5ms", "7ms", "9ms"] }}
[tcp]
variant = "sack"
ecn = true
[[flows]]
kind = "tcp"
from = "senders"
to = "receivers"
start = {{ uniform = ["0s", "2s"] }}
{extra}
"""

CBR = """
[[flows]]
kind = "cbr"
from = "s0"
to = "d0"
rate = "1Mbps"
packet_size = "1000B"
group = "cbr"
"""

#: A web-search workload (the DCTCP paper's sizes, docs/workloads.md) at 60 % of a 10 Mb/s
#: FQ-CoDel bottleneck, beside the CBR flow: the FCT view.
FCT_SCENARIO = (
    """
name = "gallery-fct"
duration = "30s"
warmup = "0s"
[topology]
kind = "dumbbell"
senders = 2
bottleneck = { rate = "10Mbps", delay = "10ms", queue = { limit = 200, aqm = "fq_codel" } }
access = { rate = "100Mbps", delay = "1ms" }
[tcp]
variant = "sack"
ecn = true
[[flows]]
kind = "workload"
from = "s0"
to = "d0"
load = 0.6
sizes = { dist = "cdf", name = "websearch" }
max_size = "2MB"
group = "web"
"""
    + CBR
)


SWEEP = """
name = "gallery-sweep"
base = "{base}"
replications = 4
master_seed = 7
metrics = ["queue.bottleneck.mean_delay_ms", "flows.goodput_bps.sum"]

[grid]
"topology.bottleneck.queue.aqm.max_p" = [0.02, 0.05, 0.1, 0.2, 0.5]
"topology.senders" = [5, 20]
"""


def scenario(tmp: Path, name: str, aqm: str, extra: str = "") -> Path:
    p = tmp / f"{name}.toml"
    p.write_text(DUMBBELL.format(aqm=aqm, extra=extra))
    return p


def write(fig: Any, name: str) -> None:
    """The figure as a PNG of at most 256 colours (a plot has a few; antialiasing makes
    thousands, and a 20-flow plot 200 KB), optimized."""
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, dpi=DPI, format="png")
    path = HERE / f"{name}.png"
    Image.open(buf).convert("RGB").quantize(colors=256).save(path, optimize=True)
    size = path.stat().st_size
    print(f"{path.name}: {size / 1024:.0f} KB")
    if size > 100 * 1024:
        sys.exit(f"{path.name} is {size / 1024:.0f} KB: the gallery keeps each under 100 KB")


def main() -> None:
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        red = aqmlab.run(scenario(tmp, "red", '{ kind = "red", ecn = true, min_th = 10, max_th = 40 }', CBR), seed=1)
        for kind in ("queue", "probability", "cwnd", "throughput", "delay_cdf"):
            write(plot_result(red, kind), kind)
        pie = aqmlab.run(scenario(tmp, "pie", '"pie"', CBR), seed=1)
        write(plot_result(pie, "queue"), "queue_pie")
        (tmp / "fct.toml").write_text(FCT_SCENARIO)
        write(plot_result(aqmlab.run(tmp / "fct.toml", seed=1), "fct"), "fct")
        rows, _ = compare_aqms(
            str(scenario(tmp, "compare", '"red"', CBR)), ["droptail", "red", "pie", "codel", "fq_codel"], 1, 2
        )
        write(compare_figure(rows, "aqmlab compare: 20 TCP flows and a CBR flow, 10 Mb/s"), "compare")
        from aqmlab.plot import sweep_figure
        from aqmlab.sweep.cli import sweep_command
        from aqmlab.sweep.store import ResultStore
        from rich.console import Console

        base = tmp / "sweep_base.toml"
        base.write_text(
            DUMBBELL.format(aqm='{ kind = "red", min_th = 10, max_th = 40 }', extra="")
            .replace('duration = "20s"', 'duration = "10s"')
            .replace('sample_interval = "100ms"\nsample_flows = true', "")
        )
        sweep = tmp / "sweep.toml"
        sweep.write_text(SWEEP.format(base=base))
        sweep_command(sweep, workers=2, out=tmp / "store", console=Console(file=io.StringIO()))
        tidy = ResultStore(tmp / "store", create=False).aggregate()
        write(sweep_figure(tidy, "topology.bottleneck.queue.aqm.max_p", "queue.bottleneck.mean_delay_ms"), "sweep")


if __name__ == "__main__":
    main()
