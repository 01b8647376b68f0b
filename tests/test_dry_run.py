"""Issue 35: ``aqmlab run --dry-run`` makes every check a run makes before it starts (class M:
it answered 0 for what the run refused: ``max_p = 7``, a flow starting after the end), and the
resolved scenario it prints runs wherever it is saved (class N: a relative trace path, as in
the bundled ``scenarios/cellular_trace.toml``, named no file once saved in another folder)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import aqmlab
import pytest
from _aqmlab_scenarios import UDP_DUMBBELL
from aqmlab.api import check
from aqmlab.cli import app
from typer.testing import CliRunner

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]


def edited(**edits: Any) -> dict[str, Any]:
    s = copy.deepcopy(UDP_DUMBBELL)
    s["duration"] = "2s"
    s["warmup"] = "0.5s"
    for path, value in edits.items():
        node = s
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[keys[-1]] = value
    return s


#: What only the build (or the run's preamble) refuses: each through another part of the
#: engine (an AQM's parameters, a flow's times against the duration, an AQM name, an event
#: against the network, the memory limit).
REFUSED_BEFORE_THE_RUN: dict[str, tuple[dict[str, Any], list[str], str]] = {
    "max_p = 7": (
        edited(**{"topology.bottleneck.queue.aqm": {"kind": "red", "max_p": 7}}),
        [],
        "topology.bottleneck.queue.aqm.max_p",
    ),
    "pie's target below zero": (
        edited(**{"topology.bottleneck.queue.aqm": {"kind": "pie", "t_update": "0ms"}}),
        [],
        "topology.bottleneck.queue.aqm",
    ),
    "a flow starting after the end": (edited(**{"flows.0.start": "5s"}), [], "flows[0]"),
    "an unknown AQM": (edited(**{"topology.bottleneck.queue.aqm": "nosuch"}), [], "topology.bottleneck.queue.aqm"),
    "an event on a missing link": (
        edited(events=[{"at": "1s", "link": "nolink", "rate": "5Mbps"}]),
        [],
        "events[0]",
    ),
    "above --max-memory": (edited(), ["--max-memory", "1KB"], ""),
}


@pytest.mark.parametrize("case", list(REFUSED_BEFORE_THE_RUN))
def test_dry_run_refuses_what_the_run_refuses_with_the_same_line(case: str, tmp_path: Path) -> None:
    scenario, options, field = REFUSED_BEFORE_THE_RUN[case]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario))
    ran = runner.invoke(app, ["run", str(path), *options])
    dry = runner.invoke(app, ["run", str(path), "--dry-run", *options])
    assert ran.exit_code == 2, ran.output
    assert dry.exit_code == 2, dry.output
    assert dry.stdout == ""  # nothing printed as if the scenario were fine
    assert dry.stderr == ran.stderr and len(dry.stderr.strip().splitlines()) == 1
    assert dry.stderr.startswith(f"error: {field}"), dry.stderr


def test_dry_run_shows_the_warnings_a_run_shows_and_writes_nothing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(edited(**{"topology.bottleneck.queue.aqm": {"kind": "codel", "target": 15}})))
    ran = runner.invoke(app, ["run", str(path), "--json"])
    dry = runner.invoke(app, ["run", str(path), "--dry-run", "--pcap", "bottleneck", "--out", "out"])
    assert ran.exit_code == 0 and dry.exit_code == 0, dry.output
    warning = [line for line in ran.stderr.splitlines() if line.startswith("warning: ")]
    assert warning and warning == [line for line in dry.stderr.splitlines() if line.startswith("warning: ")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]  # no capture file, no --out


def test_check_is_the_runs_preamble() -> None:
    with pytest.raises(aqmlab.ScenarioError, match=r"^flows\[0\]"):
        check(edited(**{"flows.0.start": "5s"}))
    with pytest.raises(aqmlab.ScenarioError):
        check(edited(), max_memory="1KB")
    check(edited(), seed=4)  # a scenario the run accepts passes, and nothing runs


# ------------------------------------------------------------------------------- class N


def test_the_bundled_trace_scenario_resolved_runs_from_another_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    dry = runner.invoke(app, ["run", "scenarios/cellular_trace.toml", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    saved = tmp_path / "saved" / "resolved.toml"
    saved.parent.mkdir()
    saved.write_text(dry.stdout)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    again = runner.invoke(app, ["run", "../saved/resolved.toml", "--dry-run"])
    assert again.exit_code == 0, again.output
    assert again.stdout == dry.stdout  # a fixed point: the same scenario, the same file


def test_every_file_a_scenario_names_is_absolute_once_resolved(tmp_path: Path, monkeypatch) -> None:
    work = tmp_path / "work"
    (work / "traces").mkdir(parents=True)
    (work / "traces" / "t.mahimahi").write_text("".join(f"{i}\n" for i in range(1, 101)))
    (work / "sizes.txt").write_text("1000 0.5\n20000 1\n")
    s = edited(
        events=[{"at": "1s", "link": "bottleneck", "rate": {"trace": "traces/t.mahimahi"}}],
    )
    s["flows"].append(
        {"kind": "workload", "from": "s0", "to": "d0", "rate": 5, "sizes": {"dist": "cdf", "file": "sizes.txt"}}
    )
    monkeypatch.chdir(work)
    r = aqmlab.run(s, seed=2)
    resolved = r.scenario
    trace = Path(resolved["events"][0]["rate"]["trace"])
    cdf = Path(resolved["flows"][-1]["sizes"]["file"])
    assert trace.is_absolute() and trace.samefile(work / "traces" / "t.mahimahi")
    assert cdf.is_absolute() and cdf.samefile(work / "sizes.txt")
    monkeypatch.chdir(tmp_path)
    assert aqmlab.run(resolved, seed=2).summary["queue.bottleneck.arrivals"] == r.summary["queue.bottleneck.arrivals"]
