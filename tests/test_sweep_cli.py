"""CLI glue: ``sweep_command`` and ``results_command`` (typer wiring is the lead's)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pandas as pd
from rich.console import Console

sys.path.insert(0, str(Path(__file__).parent))

from aqmlab.sweep.cli import results_command, sweep_command  # noqa: E402

SWEEP = """
name = "cli-demo"
run_fn = "sweep_fake_engine:{fn}"
replications = 2
metrics = ["jain_index", "events", "not.a.metric"]

[base]
duration_s = 1.0
topology = {{ senders = 2 }}
bottleneck = {{ rate_mbps = 10.0, queue = {{ aqm = {{ type = "red", max_th = 5 }} }} }}
flows = [{{ kind = "tcp", count = 1 }}]

[grid]
"bottleneck.queue.aqm.max_th" = [5, 13]
"""


def _console() -> Console:
    return Console(file=io.StringIO(), width=200, force_terminal=False, color_system=None)


def _write(tmp_path: Path, fn: str = "run") -> Path:
    f = tmp_path / "demo.toml"
    f.write_text(SWEEP.format(fn=fn))
    return f


def test_sweep_command_runs_and_exports(tmp_path):
    console = _console()
    out = tmp_path / "store"
    code = sweep_command(_write(tmp_path), workers=1, out=out, console=console)
    text = console.file.getvalue()
    assert code == 0, text
    assert "4 ok" in text and "0 failed" in text
    assert "not.a.metric" in text  # warned about a metric no run reported
    table = pd.read_parquet(out / "aggregate.parquet")
    assert set(table["metric"]) == {"jain_index", "events", "not.a.metric"}
    assert len(pd.read_csv(out / "aggregate.csv")) == len(table)
    # Running again does nothing new.
    console = _console()
    assert sweep_command(_write(tmp_path), workers=2, out=out, console=console) == 0
    assert "4 already stored" in console.file.getvalue()


def test_sweep_command_failures_and_retry(tmp_path):
    out = tmp_path / "store"
    console = _console()
    assert sweep_command(_write(tmp_path, "run_failing"), workers=2, out=out, console=console) == 1
    text = console.file.getvalue()
    assert "2 failed" in text and "queue diverged at max_th=13" in text
    _write(tmp_path, "run")
    console = _console()
    # The fixed run function has the same engine version ("dev"), so only the failed jobs rerun.
    assert sweep_command(tmp_path / "demo.toml", workers=2, out=out, retry_failed=True, console=console) == 0
    assert "2 ok" in console.file.getvalue()


def test_sweep_command_reports_definition_errors(tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text('[base]\na = 1\n[grid]\n"a.b" = [1]\n')
    console = _console()
    assert sweep_command(f, console=console) == 2
    # issue 35, O: an error is one line on stderr, not among the tables on stdout
    err = capsys.readouterr().err
    assert "grid['a.b']" in err and err.startswith("error: ") and len(err.splitlines()) == 1
    assert "grid['a.b']" not in console.file.getvalue()
    console = _console()
    assert sweep_command(tmp_path / "missing.toml", console=console) == 2
    console = _console()
    assert sweep_command(_write(tmp_path), backend="mpi", out=tmp_path / "s", console=console) == 2
    assert "unknown backend" in capsys.readouterr().err


def test_results_command_prints_and_exports(tmp_path, capsys):
    out = tmp_path / "store"
    sweep_command(_write(tmp_path, "run_failing"), workers=1, out=out, console=_console())
    console = _console()
    assert results_command(out, export=tmp_path / "agg.csv", console=console) == 0
    text = console.file.getvalue()
    assert "2 ok" in text and "2 failed" in text and "queue diverged" in text
    assert "jain_index" in text and "exported" in text
    assert len(pd.read_csv(tmp_path / "agg.csv")) == 3
    assert results_command(out, export=tmp_path / "wide", format="parquet", wide=True, console=_console()) == 0
    wide = pd.read_parquet(tmp_path / "wide.parquet")
    assert "jain_index:mean" in wide.columns and len(wide) == 1
    console = _console()
    capsys.readouterr()
    assert results_command(tmp_path / "nope", console=console) == 2
    # issue 35, O: on stderr, one line; nothing on stdout
    assert "not found" in capsys.readouterr().err and console.file.getvalue() == ""
