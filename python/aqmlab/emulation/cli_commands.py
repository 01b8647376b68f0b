"""The bodies of ``aqmlab emulate`` and ``aqmlab validate-emulation`` (cli.py declares them)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, NoReturn

from ..cli_run import (
    EXIT_FAILED,
    EXIT_NOT_VALID,
    EXIT_USAGE,
    LazyProgress,
    check_output_dir,
    check_output_file,
    die,
    jsonable,
    report_result,
    user_errors,
    written_after_work,
)

# 128 + SIGTERM, as a shell reports a process that SIGTERM ended.
EXIT_TERMINATED = 143


@contextmanager
def emulation_errors() -> Iterator[None]:
    """What cannot run here (not root, no TUN, a congestion control the kernel lacks) and what
    failed on a host, as one line each, on top of every command's errors."""
    from .netns import EmulationError, EmulationUnavailable, Terminated

    with user_errors():
        try:
            yield
        except Terminated:
            sys.stderr.write("terminated\n")
            raise SystemExit(EXIT_TERMINATED) from None
        except EmulationUnavailable as e:
            die(f"cannot emulate here: {e}", EXIT_USAGE)
        except EmulationError as e:
            die(f"emulation failed: {e}", EXIT_FAILED)


def emulate_command(
    scenario: str,
    seed: int | None,
    duration: float | None,
    warmup: float | None,
    congestion_control: str | None,
    out_dir: Path | None,
    as_json: bool,
    quiet: bool,
    max_lag_us: float,
    spin_us: float,
    router_cpu: int | Literal["auto"] | None,
) -> None:
    """``aqmlab emulate``: its options were read and checked by the command line (cli.py),
    the measurement window here, before anything is created on the machine. A run that is
    not valid (the router's lag above ``--max-lag-us``) prints its result, then says so on
    its last line and exits :data:`EXIT_NOT_VALID`."""
    from .emulate import emulate

    with emulation_errors():
        check_window_options(scenario, duration, warmup)
        if out_dir is not None:
            check_output_dir(out_dir, "--out")
        progress = LazyProgress("emulating (real time)", enabled=not quiet)
        try:
            r = emulate(
                scenario,
                seed,
                duration=duration,
                warmup=warmup,
                congestion_control=congestion_control,
                max_lag_us=max_lag_us,
                spin_us=spin_us,
                router_cpu=router_cpu,
                progress=progress,
            )
        finally:
            progress.close()
        report_result(r, out_dir, as_json)
    figures = r.emulation or {}
    if not figures.get("valid", True):
        not_valid(str(figures.get("invalid_reason")))


def check_window_options(scenario: str, duration: float | None, warmup: float | None) -> None:
    """--duration and --warmup against each other and the scenario's own: one line naming the
    option that fixes it (exit 2), rather than the engine's error about the scenario's fields."""
    from ..cli_options import check_window
    from ..scenario import load_scenario

    if duration is None and warmup is None:
        return
    try:
        check_window(load_scenario(scenario), duration, warmup)
    except ValueError as e:
        die(str(e), EXIT_USAGE)


def not_valid(message: str) -> NoReturn:
    """The last line of a run whose result is not valid, and its exit code."""
    sys.stdout.flush()
    sys.stderr.write(f"not valid: {message}\n")
    sys.stderr.flush()
    raise SystemExit(EXIT_NOT_VALID)


def _rel(x: float) -> str:
    return "" if not math.isfinite(x) else f"{100 * x:+.1f} %"


def _num(x: float) -> str:
    from ..run_report import fmt

    return fmt(x, 4)


def _comparison_start(
    scenario: str,
    first_seed: int | None,
    duration: float | None,
    warmup: float | None,
    as_json: bool,
    out: Path | None,
) -> tuple[int, Callable[[str], None]]:
    """What validate-emulation and validate-kernel check before any run: the window options
    and ``--out``; then the first seed, and where progress goes (stderr, none with --json)."""
    from ..scenario import load_scenario, resolve_seed

    check_window_options(scenario, duration, warmup)
    if out is not None:
        check_output_file(out, "--out")

    def say(message: str) -> None:
        if not as_json:
            sys.stderr.write(message + "\n")

    return resolve_seed(load_scenario(scenario), first_seed), say


def _comparison_output(d: dict[str, Any], as_json: bool, out: Path | None, print_table: Callable[[], None]) -> None:
    """A comparison as JSON on stdout or as ``print_table``'s table, then to ``--out``."""
    if as_json:
        sys.stdout.write(json.dumps(jsonable(d), allow_nan=False) + "\n")
    else:
        print_table()
    if out is not None:
        sys.stdout.flush()
        with written_after_work("--out", out, "the comparison printed above is all that was kept"):
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(jsonable(d), indent=1, allow_nan=False) + "\n")


def validate_command(
    scenario: str,
    seeds: int,
    first_seed: int | None,
    duration: float | None,
    warmup: float | None,
    congestion_control: str | None,
    queue: str,
    as_json: bool,
    out: Path | None,
    max_lag_us: float,
    spin_us: float,
) -> None:
    """``aqmlab validate-emulation``; exits :data:`EXIT_NOT_VALID` after its table when an
    emulated run was not valid."""
    from .validate import validate_emulation

    with emulation_errors():
        start, say = _comparison_start(scenario, first_seed, duration, warmup, as_json, out)

        v = validate_emulation(
            scenario,
            range(start, start + seeds),
            duration=duration,
            warmup=warmup,
            congestion_control=congestion_control,
            queue=queue,
            progress=say,
            max_lag_us=max_lag_us,
            spin_us=spin_us,
        )
        d: dict[str, Any] = v.to_dict()
        _comparison_output(d, as_json, out, lambda: _print_table(v, d, scenario, queue, congestion_control))
    if not d["lag"]["all_valid"]:
        not_valid("not every emulated run was valid (the router's lag above --max-lag-us)")


def _print_table(v: Any, d: dict[str, Any], scenario: str, queue: str, congestion_control: str | None) -> None:
    """The comparison as a table on stdout."""
    from rich.table import Table

    from ..run_report import stdout_console

    lag = d["lag"]
    t = Table(
        title=f"validate-emulation: {v.scenario or scenario}, queue {queue}",
        caption=(
            f"seeds {', '.join(map(str, v.seeds))}; {v.duration_s:g} s each; simulated: the linux profile; "
            f"emulated: Linux TCP ({congestion_control or 'the scenario' + chr(39) + 's congestion control'}). "
            f"Router lag p50 / p99 / max {lag['departure_lag_p50_us']:.1f} / {lag['departure_lag_p99_us']:.1f} / "
            f"{lag['departure_lag_max_us']:.0f} us; {'every run valid' if lag['all_valid'] else 'NOT every run valid'}."
        ),
    )
    for c in ("metric", "unit", "simulated", "emulated", "sim - emu"):
        t.add_column(c, justify="left" if c in ("metric", "unit") else "right")
    for row in d["rows"]:
        t.add_row(
            row["metric"],
            row["unit"],
            _num(row["simulated"]),
            _num(row["emulated"]),
            _rel(row["relative_difference"]),
        )
    stdout_console().print(t)


def validate_kernel_command(
    scenario: str,
    seeds: int,
    first_seed: int | None,
    duration: float | None,
    warmup: float | None,
    as_json: bool,
    out: Path | None,
) -> None:
    """``aqmlab validate-kernel``: a scenario the reference kernel cannot carry is refused in
    one line naming the field, exit :data:`EXIT_NOT_VALID`; the kernel not built is exit 2."""
    from .kernel_qdiscs import KernelRefusal
    from .uml_kernel import UmlBootError, UmlKernelMissing
    from .validate_kernel import validate_kernel

    with user_errors():
        start, say = _comparison_start(scenario, first_seed, duration, warmup, as_json, out)

        try:
            v = validate_kernel(scenario, range(start, start + seeds), duration=duration, warmup=warmup, progress=say)
        except KernelRefusal as e:
            not_valid(f"the reference kernel cannot run this: {e}")
        except UmlKernelMissing as e:
            die(str(e), EXIT_USAGE)
        except (UmlBootError, RuntimeError) as e:
            die(f"the reference kernel failed: {e}", EXIT_FAILED)
        d = v.to_dict()
        _comparison_output(d, as_json, out, lambda: _print_kernel_table(d, scenario))


def _print_kernel_table(d: dict[str, Any], scenario: str) -> None:
    """The comparison as a table on stdout, the notes (what the kernel does its own way) below.
    ``d``: :meth:`KernelValidation.to_dict`, a missing number None."""
    from rich.table import Table

    from ..run_report import stdout_console

    runs = d["kernel_runs"]
    t = Table(
        title=f"validate-kernel: {d['scenario'] or scenario}",
        caption=(
            f"seeds {', '.join(map(str, d['seeds']))}; {d['duration_s']:g} s each, measured after "
            f"{d['warmup_s']:g} s; simulated: the scenario's TCP profile; kernel: Linux "
            f"{d.get('kernel_release', '6.1')} ({', '.join(d['congestion_controls'])}), bottleneck leaf `{d['qdisc']}`. "
            f"Kernel wall time {sum(r['wall_s'] for r in runs):.1f} s for "
            f"{sum(r['guest_s'] for r in runs):.1f} s of guest time."
        ),
    )
    for c in ("where", "metric", "unit", "simulated", "kernel", "sim - kernel"):
        t.add_column(c, justify="left" if c in ("where", "metric", "unit") else "right")
    for row in d["rows"]:
        t.add_row(
            row["where"],
            row["metric"],
            row["unit"],
            _num(_nan(row["simulated"])),
            _num(_nan(row["kernel"])),
            _rel(_nan(row["relative_difference"])),
        )
    console = stdout_console()
    console.print(t)
    for note in d["notes"]:
        console.print(f"note: {note}", highlight=False, markup=False)


def _nan(x: float | None) -> float:
    return math.nan if x is None else x
