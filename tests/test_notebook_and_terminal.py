"""Issue 27, item 7: a run's and a sweep's HTML summaries for Jupyter (escaped, cut short),
the single run's progress bar (only on a terminal, only for a long run, never with --json or
-q), and ``aqmlab results`` in an 80-column terminal (and ``--json``)."""

from __future__ import annotations

import copy
import io
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import aqmlab
import pytest
from _aqmlab_scenarios import LONG_TOML, UDP_DUMBBELL
from aqmlab.cli import app
from aqmlab.sweep import Sweep, run_sweep
from aqmlab.sweep.results_view import axis_text, short_names
from rich.console import Console
from typer.testing import CliRunner

runner = CliRunner()

EVIL = "<script>alert('x')</script>&"


def _evil_run(n_flows: int) -> aqmlab.Result:
    s = copy.deepcopy(UDP_DUMBBELL)
    s["name"] = EVIL
    s["duration"], s["warmup"] = "3s", "1s"
    s["flows"][0]["group"] = "<b>g</b>"
    s["flows"][0]["count"] = n_flows
    s["topology"]["senders"] = 1
    return aqmlab.run(s, seed=2)


def test_result_html_names_the_run_and_escapes_everything() -> None:
    r = _evil_run(3)
    r.raw["warnings"] = [{"path": "flows[0]", "message": "stalled <in> recovery"}]
    html = r._repr_html_()
    assert "<script>" not in html and "<b>g</b>" not in html and "<in>" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;" in html
    assert "&lt;b&gt;g&lt;/b&gt;" in html, "the flow's group, escaped"
    assert "flows[0]: stalled &lt;in&gt; recovery" in html
    assert f"<td>{r.seed}</td>" in html and "3 s (warm-up 1 s)" in html
    assert "bottleneck" in html and "mean_delay_ms" in html and "goodput_bps" in html
    assert "rows shown" not in html, "3 flows: no cut"


def test_result_html_cuts_long_tables() -> None:
    html = _evil_run(14)._repr_html_()
    assert "10 of 14 rows shown" in html
    assert html.count("<tr>") < 14 + 10 + 10, "the flow table is cut"


def test_sweep_html_shows_counts_and_the_aggregate(tmp_path: Path) -> None:
    base = copy.deepcopy(UDP_DUMBBELL)
    base["duration"], base["warmup"] = "2s", "0.5s"
    sweep = Sweep(
        base=base,
        name="<sweep>",
        grid={"topology.bottleneck.queue.aqm": [{"kind": "red", "max_p": 0.1}, "codel"]},
        replications=2,
        metrics=["jain_index", "queue.bottleneck.mean_delay_ms"],
    )
    report = run_sweep(sweep, tmp_path / "store", backend="serial")
    html = report._repr_html_()
    assert "&lt;sweep&gt;" in html and "<sweep>" not in html
    assert "<td>4</td>" in html, "4 jobs"
    assert "queue.bottleneck.mean_delay_ms" in html and "topology.bottleneck.queue.aqm" in html
    assert "<td>red max_p=0.1</td>" in html and "<td>codel</td>" in html, "a table-valued axis, as a person writes it"


# -- progress ------------------------------------------------------------------------------------


def _stderr_on_a_terminal(args: list[str], seconds: float) -> str:
    """What ``aqmlab ARGS`` writes to stderr, a pseudo-terminal, within ``seconds``; then Ctrl-C."""
    main, secondary = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", *args], stdout=subprocess.PIPE, stderr=secondary, env=env, text=True
    )
    os.close(secondary)
    out = b""
    t_end = time.monotonic() + seconds
    try:
        while time.monotonic() < t_end:
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    out += os.read(main, 65536)
                except OSError:
                    break
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        try:
            while select.select([main], [], [], 0.2)[0]:
                out += os.read(main, 65536)
        except OSError:
            pass
        os.close(main)
    return out.decode("utf-8", "replace")


@pytest.fixture
def long_file(tmp_path: Path) -> Path:
    p = tmp_path / "long.toml"
    p.write_text(LONG_TOML)
    return p


def test_a_long_run_on_a_terminal_shows_progress_with_an_eta(long_file: Path) -> None:
    text = _stderr_on_a_terminal(["run", str(long_file)], 5.0)
    assert "simulating" in text and "%" in text and "ETA" in text, text
    assert re.search(r"0:00:0[2-9]", text), "the elapsed time counts from the run's start, not the bar's"
    assert re.search(r"ETA\S*\s+(\S*\s)?\S*\d+:\d\d:\d\d", text), "an ETA"


@pytest.mark.parametrize("flag", ["--json", "-q"])
def test_no_progress_with_json_or_quiet(long_file: Path, flag: str) -> None:
    text = _stderr_on_a_terminal(["run", str(long_file), flag], 4.0)
    assert "simulating" not in text, text


def test_no_progress_before_two_seconds_nor_off_a_terminal(long_file: Path) -> None:
    assert "simulating" not in _stderr_on_a_terminal(["run", str(long_file)], 1.2)
    proc = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", "run", str(long_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(4.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert "simulating" not in err and err.strip() == "interrupted"


# -- aqmlab results --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = copy.deepcopy(UDP_DUMBBELL)
    base["duration"], base["warmup"] = "2s", "0.5s"
    sweep = Sweep(
        base=base,
        name="eighty-columns",
        grid={
            "topology.bottleneck.queue.aqm": [{"kind": "red", "max_p": 0.1}, {"kind": "pie", "target": "15ms"}],
            "topology.senders": [1, 3],
        },
        replications=2,
        metrics=["queue.bottleneck.mean_queue_packets", "queue.bottleneck.mean_delay_ms", "jain_index"],
    )
    out = tmp_path_factory.mktemp("results") / "store"
    assert run_sweep(sweep, out, backend="serial").complete
    return out


def test_results_fit_an_80_column_terminal(store: Path) -> None:
    r = runner.invoke(app, ["results", str(store)], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, "\n".join(line for line in lines if len(line) > 80)
    assert not any(line.lstrip().startswith('{"kind"') for line in lines)
    assert "aqm = topology.bottleneck.queue.aqm" in r.stdout and "senders = topology.senders" in r.stdout
    assert "red max_p=0.1" in r.stdout and "pie target=15ms" in r.stdout
    assert "mean_delay_ms" in r.stdout and "8 ok" in r.stdout


def test_results_json_is_the_machine_output(store: Path) -> None:
    r = runner.invoke(app, ["results", str(store), "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["runs_stored"] == 8 and doc["ok"] == 8 and doc["failed"] == 0 and doc["sweep"] == "eighty-columns"
    assert len(doc["runs"]) == 8 and {"key", "point", "seed", "status"} <= set(doc["runs"][0])
    assert len(doc["aggregate"]) == 4 * 3 and doc["aggregate"][0]["n"] == 2
    assert doc["axes"] == ["topology.bottleneck.queue.aqm", "topology.senders"]


def test_short_axis_names_and_values() -> None:
    assert short_names(["topology.bottleneck.queue.aqm.max_p", "topology.senders"]) == {
        "topology.bottleneck.queue.aqm.max_p": "max_p",
        "topology.senders": "senders",
    }
    assert short_names(["a.queue.limit", "b.queue.limit", "c.x"]) == {
        "a.queue.limit": "a.queue.limit",
        "b.queue.limit": "b.queue.limit",
        "c.x": "x",
    }
    assert axis_text('{"kind":"red","max_p":0.1}') == "red max_p=0.1"
    assert axis_text('"codel"') == "codel", "a string in an axis of mixed values is JSON text"
    assert axis_text([1, 2]) == "1,2" and axis_text(0.5) == "0.5" and axis_text(None) == "-"


def test_results_command_console_width_is_respected(store: Path) -> None:
    from aqmlab.sweep.cli import results_command

    console = Console(file=io.StringIO(), width=80, force_terminal=False, color_system=None)
    assert results_command(store, console=console) == 0
    assert max(len(line) for line in console.file.getvalue().splitlines()) <= 80
