"""The aqmlab CLI: run, compare, aqms, errors, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aqmlab
import pytest
from _aqmlab_scenarios import BAD_INPUTS, LONG_TOML, UDP_TOML, scenario
from aqmlab.cli import app
from typer.testing import CliRunner

runner = CliRunner()


@pytest.fixture
def udp_file(tmp_path: Path) -> Path:
    p = tmp_path / "udp.toml"
    p.write_text(UDP_TOML)
    return p


def test_run_prints_a_summary(udp_file: Path) -> None:
    r = runner.invoke(app, ["run", str(udp_file), "--seed", "3"])
    assert r.exit_code == 0, r.output
    assert "bottleneck" in r.stdout and "Jain" in r.stdout
    assert "set-up / loop / collect" in r.stdout and "peak memory" in r.stdout


def test_run_json_parses_and_matches_api(udp_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = runner.invoke(app, ["run", str(udp_file), "--seed", "3", "--json", "--out", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    # --json prints what summary.json holds: one document, one shape (issue 27, item 6)
    assert doc == json.loads((out / "summary.json").read_text())
    assert doc["seed"] == 3 and doc["name"] == aqmlab.run(udp_file, seed=3).name
    summary = doc["summary"]
    api = aqmlab.run(udp_file, seed=3).summary
    assert summary.keys() == api.keys()
    assert summary["queue.bottleneck.arrivals"] == api["queue.bottleneck.arrivals"]
    assert summary["flows.mean_rtt_ms.mean"] is None  # NaN -> null
    assert summary["loop_s"] == summary["wall_time_s"] and summary["setup_s"] >= 0
    assert summary["peak_rss_bytes"] > 0
    for table in ("queues", "flows", "timeseries"):
        assert (out / f"{table}.parquet").is_file() and (out / f"{table}.csv").is_file()
    assert (out / "summary.json").is_file()


@pytest.mark.parametrize(("what", "edits", "field"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_is_one_line_naming_the_field(what: str, edits: dict, field: str, tmp_path: Path) -> None:
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(scenario(**edits)))
    r = runner.invoke(app, ["run", str(p)])
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: {field}: ")
    assert len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.output


def test_missing_file(tmp_path: Path) -> None:
    r = runner.invoke(app, ["run", str(tmp_path / "nope.toml")])
    assert r.exit_code == 2
    assert "nope.toml" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_toml_syntax_error(tmp_path: Path) -> None:
    p = tmp_path / "bad.toml"
    p.write_text('duration = "1s"\nflows = [\n')
    r = runner.invoke(app, ["run", str(p)])
    assert r.exit_code == 2
    assert r.stderr.startswith("error: line ")


def test_bad_input_in_a_subprocess_has_no_traceback(tmp_path: Path) -> None:
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(scenario(**{"topology.bottleneck.rate": "-10Mbps"})))
    proc = subprocess.run(
        [sys.executable, "-m", "aqmlab.cli", "run", str(p)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: topology.bottleneck.rate: a rate must not be negative, got '-10Mbps'"


def test_compare_default_scenario_one_row_per_implemented_aqm() -> None:
    r = runner.invoke(app, ["compare", "--duration", "2", "--json", "--workers", "2"])
    assert r.exit_code == 0, r.output
    payload = json.loads(r.stdout)
    reg = aqmlab.aqms()
    implemented = [n for n, ok in zip(reg["name"], reg["implemented"], strict=True) if ok]
    assert [row["AQM"] for row in payload["rows"]] == implemented
    skipped = {n["aqm"] for n in payload["notes"] if n["status"] == "skipped"}
    assert skipped == set(reg["name"]) - set(implemented)
    for row in payload["rows"]:
        assert set(row) == {
            "AQM", "utilization %", "goodput Mb/s", "mean queue (pkts)", "mean delay ms",
            "p99 delay ms", "loss %", "marks", "Jain",
        }  # fmt: skip


def test_compare_table_with_chosen_aqms(udp_file: Path) -> None:
    r = runner.invoke(app, ["compare", str(udp_file), "--aqm", "droptail", "--aqm", "red"])
    assert r.exit_code == 0, r.output
    assert "droptail" in r.stdout and "red" in r.stdout and "utilization" in r.stdout
    r = runner.invoke(app, ["compare", str(udp_file), "--aqm", "nope"])
    assert r.exit_code == 2 and r.stderr.startswith("error: --aqm: unknown AQM 'nope'")


def test_aqms_lists_the_registry() -> None:
    r = runner.invoke(app, ["aqms", "--json"])
    assert r.exit_code == 0
    names = [a["name"] for a in json.loads(r.stdout)]
    assert names[:2] == ["droptail", "red"]
    r = runner.invoke(app, ["aqms"])
    assert r.exit_code == 0 and "max_p" in r.stdout


def test_ctrl_c_interrupts_a_long_run(tmp_path: Path) -> None:
    p = tmp_path / "long.toml"
    p.write_text(LONG_TOML)
    proc = subprocess.Popen(
        [sys.executable, "-m", "aqmlab.cli", "run", str(p)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "RUST_BACKTRACE": "0"},
    )
    time.sleep(3.0)
    assert proc.poll() is None, "the long run finished too early"
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=20)
    assert time.monotonic() - t0 < 5
    assert proc.returncode == 130
    assert "interrupted" in stderr
    assert "Traceback" not in stderr


def test_jsonable_clears_non_finite_numbers_at_any_depth() -> None:
    # A comparison's relative difference to a zero sits in its rows, two levels down: JSON
    # with allow_nan=False refused it before jsonable looked below the top level.
    from aqmlab.cli_run import jsonable

    d = {"a": float("nan"), "rows": [{"rel": float("inf"), "x": 1.5}, (float("-inf"), 2)], "s": "nan"}
    out = jsonable(d)
    assert out == {"a": None, "rows": [{"rel": None, "x": 1.5}, [None, 2]], "s": "nan"}
    json.dumps(out, allow_nan=False)
