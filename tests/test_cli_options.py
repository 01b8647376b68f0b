"""Issue 35, classes K and O and the first hours' frictions: every command's option values read
by one shared reader per kind (aqmlab.cli_options), refused before any work in one line on
stderr naming the option, exit 2; durations in the same forms everywhere; emulate's --warmup,
and exit 3 for an emulation that ran but is not valid."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import aqmlab
import pytest
from _aqmlab_scenarios import UDP_DUMBBELL, tcp_dumbbell
from aqmlab import cli_options
from aqmlab.cli import app
from aqmlab.cli_run import EXIT_NOT_VALID
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
RED_EXAMPLE = ROOT / "scenarios" / "examples" / "dumbbell_red.toml"


# -- the readers ---------------------------------------------------------------------------------


def test_durations_take_a_bare_number_of_seconds_or_a_unit() -> None:
    for text, seconds in [("2", 2.0), ("2s", 2.0), ("2000ms", 2.0), ("0.5", 0.5), ("1min", 60.0), ("250 us", 250e-6)]:
        assert math.isclose(cli_options.duration_s(text), seconds), text
    for bad in ("abc", "2 hours", "-1s", "inf", "nan", "1e999", "", "\u0662s"):
        with pytest.raises(ValueError):
            cli_options.duration_s(bad)
    with pytest.raises(ValueError, match="above 0"):
        cli_options.duration_s("0s", positive=True)


def test_integers_are_ascii_digits_within_range() -> None:
    assert cli_options.seed("0") == 0 and cli_options.seed(str(2**64 - 1)) == 2**64 - 1
    assert cli_options.count("3") == 3
    # int() reads '\u0661' (Arabic-Indic one) as 1; a command line does not
    for bad in ("abc", "-1", str(2**64), "\u0661", "\u00b2", "1.5", ""):
        with pytest.raises(ValueError):
            cli_options.seed(bad)
    for bad in ("0", "-2", "two"):
        with pytest.raises(ValueError):
            cli_options.count(bad)


@given(st.text(max_size=12))
def test_any_text_is_a_value_or_a_value_error(text: str) -> None:
    """Never another exception from a reader, whatever is typed."""
    for read in (cli_options.seed, cli_options.count, cli_options.duration_s, cli_options.router_cpu):
        try:
            read(text)
        except ValueError as e:
            assert "\n" not in str(e)
    try:
        cli_options.microseconds(text, 1e6)
    except ValueError:
        pass


def test_router_cpu_is_one_this_process_may_use() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    assert cli_options.router_cpu("auto") == "auto" and cli_options.router_cpu("none") is None
    with pytest.raises(ValueError, match="not one this process may use"):
        cli_options.router_cpu(str(max(cpus) + 1))
    if len(cpus) > 1:
        assert cli_options.router_cpu(str(cpus[-1])) == cpus[-1]


# -- every command: one line, exit 2, before any work ------------------------------------------------

MISSING = "no-such-scenario.toml"  # an option's error comes before the scenario is read

BAD_OPTIONS = [
    (["run", MISSING, "--seed", "abc"], "--seed"),
    (["run", MISSING, "--seed", "-1"], "--seed"),
    (["compare", MISSING, "--seed", "abc"], "--seed"),
    (["compare", MISSING, "--workers", "0"], "--workers"),
    (["compare", MISSING, "--duration", "abc"], "--duration"),
    (["compare", MISSING, "--duration", "0"], "--duration"),
    (["compare", MISSING, "--warmup", "-1"], "--warmup"),
    (["league", "--workers", "0"], "--workers"),
    (["league", "--replications", "0"], "--replications"),
    (["sweep", MISSING, "--workers", "0"], "--workers"),
    (["reproduce", "orange", "--workers", "0"], "--workers"),
    (["reproduce", "orange", "--replications", "0"], "--replications"),
    (["emulate", MISSING, "--max-lag-us", "-1"], "--max-lag-us"),
    (["emulate", MISSING, "--max-lag-us", "0"], "--max-lag-us"),
    (["emulate", MISSING, "--spin-us", "-5"], "--spin-us"),
    (["emulate", MISSING, "--spin-us", "1e9"], "--spin-us"),
    (["emulate", MISSING, "--router-cpu", "99999"], "--router-cpu"),
    (["emulate", MISSING, "--router-cpu", "last"], "--router-cpu"),
    (["emulate", MISSING, "--duration", "-2s"], "--duration"),
    (["emulate", MISSING, "--seed", "x"], "--seed"),
    (["validate-emulation", MISSING, "--seeds", "0"], "--seeds"),
    (["validate-emulation", MISSING, "--max-lag-us", "-1"], "--max-lag-us"),
    (["validate-emulation", MISSING, "--warmup", "soon"], "--warmup"),
]


@pytest.mark.parametrize(("argv", "option"), BAD_OPTIONS, ids=[" ".join(a) for a, _ in BAD_OPTIONS])
def test_a_bad_option_value_is_one_line_naming_it_exit_2(argv: list[str], option: str) -> None:
    r = runner.invoke(app, argv)
    assert r.exit_code == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and option in lines[0], r.stderr
    assert "no such file" not in r.stderr and r.stdout == ""


@pytest.mark.parametrize("argv", [["run", "x.toml", "--colour"], ["compare", "--seed"], ["nosuchcommand"]])
def test_a_command_line_typer_cannot_read_is_one_line_not_a_box(argv: list[str]) -> None:
    r = subprocess.run([sys.executable, "-m", "aqmlab", *argv], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error: "), r.stderr
    assert "╭" not in r.stderr


# -- compare: durations and the warm-up --------------------------------------------------------------


@pytest.fixture
def udp_file(tmp_path: Path) -> Path:
    from aqmlab.toml_writer import dumps

    f = tmp_path / "udp.toml"
    f.write_text(dumps(UDP_DUMBBELL))
    return f


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--warmup", "20"], "--warmup: 20 s is not shorter than the scenario's duration (20 s)"),
        (["--warmup", "5s", "--duration", "5000ms"], "--warmup: 5 s is not shorter than --duration (5 s)"),
    ],
)
def test_compare_refuses_a_warmup_not_shorter_than_the_duration_up_front(
    udp_file: Path, options: list[str], words: str
) -> None:
    """Was exit 1, with the reason only inside the table (every AQM failed the same way)."""
    r = runner.invoke(app, ["compare", str(udp_file), "--aqm", "red", *options])
    assert r.exit_code == 2, r.stderr
    assert r.stderr.startswith(f"error: {words}") and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stdout == ""


def test_compare_durations_in_every_form_are_the_same_run(udp_file: Path) -> None:
    rows = []
    for duration in ("3", "3s", "3000ms"):
        r = runner.invoke(app, ["compare", str(udp_file), "--aqm", "red", "--duration", duration, "--json", "-q"])
        assert r.exit_code == 0, r.stderr
        rows.append(json.loads(r.stdout)["rows"])
    assert rows[0] == rows[1] == rows[2]


# -- emulate: the warm-up, the ECN refusal, validity ------------------------------------------------


def test_emulate_duration_shorter_than_the_warmup_names_the_option_that_fixes_it() -> None:
    """The README's example with a shorter run: the scenario's warm-up is 10 s."""
    r = runner.invoke(app, ["emulate", str(RED_EXAMPLE), "--duration", "10s"])
    assert r.exit_code == 2
    assert r.stderr.strip() == (
        "error: --duration: 10 s is not longer than the scenario's warm-up (10 s); "
        "give a longer --duration or a shorter --warmup (e.g. --warmup 1.66667s)"
    )
    r = runner.invoke(app, ["validate-emulation", str(RED_EXAMPLE), "--duration", "5s", "--warmup", "6s"])
    assert r.exit_code == 2 and r.stderr.strip() == "error: --warmup: 6 s is not shorter than --duration (5 s)"


def test_emulate_hands_warmup_and_duration_to_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def fake_emulate(scenario: Any, seed: Any, **kw: Any) -> Any:
        seen.update(kw)
        return SimpleNamespace(emulation={"valid": True, "invalid_reason": None})

    monkeypatch.setattr("aqmlab.emulation.emulate.emulate", fake_emulate)
    monkeypatch.setattr("aqmlab.emulation.cli_commands.report_result", lambda *a: None)
    r = runner.invoke(app, ["emulate", str(RED_EXAMPLE), "--duration", "10", "--warmup", "2s", "--router-cpu", "none"])
    assert r.exit_code == 0, r.stderr
    assert seen["duration"] == 10.0 and seen["warmup"] == 2.0 and seen["router_cpu"] is None


def test_an_emulation_that_is_not_valid_exits_3_and_says_so_last(monkeypatch: pytest.MonkeyPatch) -> None:
    """Five emulations on a busy machine, all above the lag bound, each exited 0."""
    reason = "departure lag p99 2700 us above the bound (500 us)"
    monkeypatch.setattr(
        "aqmlab.emulation.emulate.emulate",
        lambda *a, **k: SimpleNamespace(emulation={"valid": False, "invalid_reason": reason}),
    )
    printed: list[Any] = []
    monkeypatch.setattr("aqmlab.emulation.cli_commands.report_result", lambda r, *a: printed.append(r))
    r = runner.invoke(app, ["emulate", str(RED_EXAMPLE)])
    assert r.exit_code == EXIT_NOT_VALID == 3
    assert printed, "the result is printed all the same"
    assert r.stderr.strip().splitlines()[-1] == f"not valid: {reason}"


def test_a_host_sending_with_and_without_ecn_is_invalid_input() -> None:
    """Was an EmulationError (exit 1, a failed run); it is the scenario's: refused naming
    `flows`, before anything is created on the machine."""
    from aqmlab.emulation.emulate import emulate

    s = tcp_dumbbell(
        "2s",
        1,
        {"rate": "10Mbps", "delay": "5ms", "queue": {"aqm": "red"}},
        flows=[
            {"kind": "tcp", "from": "senders", "to": "receivers", "tcp": {"ecn": True}},
            {"kind": "tcp", "from": "senders", "to": "receivers"},
        ],
    )
    with pytest.raises(aqmlab.ScenarioError) as e:
        emulate(s)
    assert e.value.path == "flows" and "with ECN" in str(e.value) and "without" in str(e.value)


def test_the_python_entry_points_refuse_zero_workers_too() -> None:
    """Not a silent default: `league --workers 0` ran with 2 (the CLI's `or cpu_count()`)."""
    from aqmlab.cli import compare_aqms
    from aqmlab.league import league_command

    with pytest.raises(ValueError, match="workers"):
        compare_aqms(UDP_DUMBBELL, ["red"], 1, 0)
    assert league_command("unused-out", workers=0) == 2


def test_validate_emulation_refuses_an_unknown_queue_before_it_emulates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Was a KeyError after every simulated and emulated run."""
    emulated: list[Any] = []
    monkeypatch.setattr("aqmlab.emulation.emulate.emulate", lambda *a, **k: emulated.append(a))
    r = runner.invoke(
        app, ["validate-emulation", str(RED_EXAMPLE), "--duration", "3s", "--warmup", "1s", "--queue", "nope"]
    )
    assert r.exit_code == 2 and emulated == []
    assert r.stderr.strip().splitlines()[-1].startswith("error: --queue: no queue named 'nope'"), r.stderr
