"""The ``aqmlab`` command line: run, compare, aqms, sweep, results, reproduce.

Exit codes: 0 success; 1 a run failed; 2 invalid input (the message names the field or the
option); 3 an emulation that ran but is not valid (its router lagged beyond --max-lag-us);
130 interrupted (Ctrl-C); 143 an emulation ended by SIGTERM.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import json
import math
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import cli_options as _options
from .cli_options import DURATION_FORMS
from .cli_run import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NOT_VALID,
    EXIT_OK,
    EXIT_USAGE,
    check_image_file,
    interrupted_anywhere,
    run_command,
)
from .cli_run import LazyProgress as _LazyProgress
from .cli_run import apply_max_memory as _apply_max_memory
from .cli_run import die as _die
from .cli_run import jsonable as _jsonable
from .cli_run import user_errors as _user_errors

# The exit codes, the one-line errors, the progress bar and `run` itself live with the fast
# path of `aqmlab run` (cli_run.py, run_report.py), which must not import typer.
from .emulation import DEFAULT_MAX_LAG_US, DEFAULT_SPIN_US
from .run_report import fmt as _f
from .run_report import stdout_console

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_NOT_VALID", "EXIT_OK", "EXIT_USAGE", "app", "compare_aqms", "main"]

UNITS_NOTE = (
    'unit s: a duration such as "5ms" or a bare number of seconds; bytes, packets, probability, weight: plain numbers'
)


class _OneLineUsageErrors(typer.core.TyperGroup):
    """A command line the framework cannot read (an unknown option, a value of the wrong kind,
    a missing argument) answered as every other bad input is: one line on stderr naming the
    option, exit 2 (issue 35, O), where typer drew a box of six lines."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        with _usage_error_as_line():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: Any) -> Any:
        with _usage_error_as_line():
            return super().invoke(ctx)


# The framework's usage error, found from the one it exports: typer vendors click since 0.20
# (typer._click), and used click itself before; `typer>=0.12` may be either.
_UsageError: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


@contextlib.contextmanager
def _usage_error_as_line() -> Iterator[None]:
    try:
        yield
    except _UsageError as e:
        if type(e).__name__ == "NoArgsIsHelpError":
            raise  # `aqmlab` alone: the help
        message = e.format_message().rstrip(".")  # type: ignore[attr-defined]
        ctx = getattr(e, "ctx", None)
        if isinstance(e, typer.BadParameter):
            _die(message, EXIT_USAGE)  # names the option and says what it takes
        where = ctx.command_path if ctx is not None else "aqmlab"
        _die(f"{message} (see {where} --help)", EXIT_USAGE)


def _parsed(read: Callable[[str], Any], option: str) -> Callable[[Any], Any]:
    """The parser of ``option`` from one of cli_options' readers: its ValueError becomes
    "Invalid value for '--OPTION': reason", which :class:`_OneLineUsageErrors` prints as one
    line, before the command starts."""

    def parse(value: Any) -> Any:
        if not isinstance(value, str):
            return value  # a default, already a value
        try:
            return read(value)
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint=f"'{option}'") from None

    return parse


SEED = _parsed(_options.seed, "--seed")
WORKERS = _parsed(_options.count, "--workers")
SEEDS = _parsed(_options.count, "--seeds")
REPLICATIONS = _parsed(_options.count, "--replications")
DURATION = _parsed(lambda t: _options.duration_s(t, positive=True), "--duration")
WARMUP = _parsed(_options.duration_s, "--warmup")
MAX_LAG_US = _parsed(lambda t: _options.microseconds(t, 1e6, positive=True), "--max-lag-us")
SPIN_US = _parsed(lambda t: _options.microseconds(t, 1e6), "--spin-us")
ROUTER_CPU = _parsed(_options.router_cpu, "--router-cpu")

app = typer.Typer(
    cls=_OneLineUsageErrors,
    name="aqmlab",
    help="Packet-level simulation of Active Queue Management algorithms.",
    pretty_exceptions_enable=False,
    add_completion=False,
    no_args_is_help=True,
)

out = stdout_console()
err = Console(stderr=True, highlight=False)


#: The options of the commands that run one scenario (run, emulate): where the tables go, the
#: summary as JSON, no progress bar.
OutDirOption = Annotated[
    Path | None,
    typer.Option("--out", help="Write queues/flows/timeseries as Parquet and CSV, and summary.json, here."),
]
SummaryJsonOption = Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


MaxMemoryOption = Annotated[
    str | None,
    typer.Option(
        "--max-memory",
        help="Refuse a run whose estimated memory exceeds this ('8GB', '512MiB', 'none'); "
        "default: $AQMLAB_MAX_MEMORY, else half this machine's memory.",
    ),
]


SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Override a scenario field before it is checked: PATH=VALUE, PATH dotted with [i] "
        "indices (topology.bottleneck.queue.aqm.max_p=0.2, flows[0].count=50), VALUE a TOML value "
        "(5Mbps needs no quotes). Repeatable.",
    ),
]


# ---------------------------------------------------------------------------------------------
# run (its table is in run_report.py, which the fast path of `aqmlab run` imports without typer)


@app.command()
def run(
    scenario: Annotated[str, typer.Argument(help="Scenario file (.toml or .json).")],
    seed: Annotated[
        int | None,
        typer.Option(parser=SEED, metavar="SEED", help="Master seed (default: the scenario's `seed`, else 1)."),
    ] = None,
    out_dir: OutDirOption = None,
    as_json: SummaryJsonOption = False,
    quiet: QuietOption = False,
    max_memory: MaxMemoryOption = None,
    set_: SetOption = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Print the scenario with every default filled in (TOML; JSON with --json); do not run."
        ),
    ] = False,
    pcap: Annotated[
        list[str] | None,
        typer.Option(
            "--pcap",
            metavar="LINK",
            help="Capture the packets leaving LINK (repeatable) into LINK.pcap, in --out or the current directory.",
        ),
    ] = None,
) -> None:
    """Run one scenario and print a summary."""
    run_command(scenario, seed, out_dir, as_json, quiet, max_memory, set_ or [], dry_run, pcap or [])


# ---------------------------------------------------------------------------------------------
# compare

COMPARE_COLUMNS = (
    "AQM",
    "utilization %",
    "goodput Mb/s",
    "mean queue (pkts)",
    "mean delay ms",
    "p99 delay ms",
    "loss %",
    "marks",
    "Jain",
)


def _compare_row(name: str, r: Any, queue_name: str) -> dict[str, Any]:
    q = r.queue(queue_name)
    goodput = r.summary.get("flows.goodput_bps.sum", math.nan)
    return {
        "AQM": name,
        "utilization %": 100.0 * float(q["utilization"]),
        "goodput Mb/s": float(goodput) / 1e6,
        "mean queue (pkts)": float(q["mean_queue_packets"]),
        "mean delay ms": float(q["mean_delay_ms"]),
        "p99 delay ms": float(q["p99_delay_ms"]),
        "loss %": 100.0 * float(q["loss_rate"]),
        "marks": int(q["marks"]),
        "Jain": float(r.jain_index),
    }


def compare_aqms(
    scenario: Any,
    names: list[str],
    seed: int | None,
    workers: int,
    progress: Callable[[float], None] | None = None,
    cancel: threading.Event | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """Runs ``scenario`` with its bottleneck under each AQM in ``names``, on threads.

    Returns (rows in the order of ``names``, notes about skipped or failed AQMs).
    """
    from . import api
    from .errors import ScenarioError, SimulationError
    from .scenario import bottleneck_name, load_scenario, resolve_seed, with_bottleneck_aqm

    if workers < 1:
        raise ValueError(f"workers: must be at least 1, got {workers}")
    base = load_scenario(scenario)
    seed = resolve_seed(base, seed)
    queue_name = bottleneck_name(base)
    jobs = {name: with_bottleneck_aqm(base, name) for name in names}
    cancel = cancel or threading.Event()
    fractions = dict.fromkeys(names, 0.0)
    lock = threading.Lock()

    def one(name: str) -> Any:
        def cb(f: float) -> bool:
            with lock:
                fractions[name] = f
            return not cancel.is_set()

        return api.run(jobs[name], seed=seed, progress=cb)

    rows: dict[str, dict[str, Any]] = {}
    notes: list[dict[str, str]] = []
    with cf.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(one, n): n for n in names}
        pending = set(futures)
        try:
            while pending:
                done, pending = cf.wait(pending, timeout=0.1)
                for fut in done:
                    name = futures[fut]
                    with lock:
                        fractions[name] = 1.0
                    try:
                        rows[name] = _compare_row(name, fut.result(), queue_name)
                    except (ScenarioError, SimulationError, KeyError) as e:
                        notes.append({"aqm": name, "status": "failed", "reason": str(e)})
                if progress is not None:
                    with lock:
                        progress(sum(fractions.values()) / max(1, len(fractions)))
        except KeyboardInterrupt:
            cancel.set()
            for fut in futures:
                fut.cancel()
            raise
    order = {n: i for i, n in enumerate(names)}
    notes.sort(key=lambda n: order[n["aqm"]])
    return [rows[n] for n in names if n in rows], notes


TcpProfileOption = Annotated[
    str | None,
    typer.Option(
        "--tcp",
        help="TCP profile for every flow: ns2 (the papers' TCP), linux (a Linux 6.x host: CUBIC, "
        "RFC 6675 + PRR, IW 10, min RTO 200 ms), ns3 (ns-3.37's TcpSocketBase: NewReno, "
        "RFC 6675 + PRR, IW 10, min RTO 1 s), or a Linux host with dctcp (ECN), prague (ECT(1), "
        "L4S) or bbr (BBR v1); the scenario keeps only its packet sizes and window.",
    ),
]


@app.command()
def compare(
    scenario: Annotated[
        str | None, typer.Argument(help="Scenario file (default: the packaged 20-flow dumbbell).")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(parser=SEED, metavar="SEED", help="Master seed (default: the scenario's `seed`, else 1)."),
    ] = None,
    aqm: Annotated[
        list[str] | None, typer.Option("--aqm", help="AQM to include (repeatable; default: every registered AQM).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(parser=WORKERS, metavar="N", help="Parallel runs (threads; default: CPU count).")
    ] = None,
    duration: Annotated[
        float | None,
        typer.Option(
            parser=DURATION,
            metavar="DURATION",
            help=f"Override the duration, {DURATION_FORMS}; warm-up becomes a sixth of it unless --warmup.",
        ),
    ] = None,
    warmup: Annotated[
        float | None, typer.Option(parser=WARMUP, metavar="DURATION", help="Override the warm-up, as --duration.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print rows and notes as JSON on stdout.")] = False,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", help="Also draw the AQMs side by side (goodput, delay, loss, Jain) to this image file."),
    ] = None,
    quiet: QuietOption = False,
    tcp: TcpProfileOption = None,
    max_memory: MaxMemoryOption = None,
    set_: SetOption = None,
) -> None:
    """Run one scenario under every AQM (its bottleneck queue replaced) and compare them."""
    from . import _core
    from .scenario import apply_overrides, default_scenario_path, with_duration, with_tcp_profile

    _apply_max_memory(max_memory)
    with _user_errors():
        if plot is not None:
            plot = check_image_file(plot, "--plot")
        path = scenario if scenario is not None else str(default_scenario_path())
        base = apply_overrides(path, set_ or [])
        if tcp is not None:
            base = with_tcp_profile(base, tcp)
        if duration is not None or warmup is not None:
            try:
                # --duration alone: its warm-up is a sixth of it, never too long
                _options.check_window(base, duration, warmup if duration is None or warmup is not None else 0.0)
            except ValueError as e:
                _die(str(e))
            if duration is None:
                base["warmup"] = warmup
            else:
                base = with_duration(base, duration, warmup)
        registry = [a["name"] for a in _core.aqms()]
        names = list(dict.fromkeys(aqm)) if aqm else registry
        unknown = [n for n in names if n not in registry]
        if unknown:
            _die(f"--aqm: unknown AQM '{unknown[0]}'; known: {', '.join(registry)}")
        n_workers = workers or os.cpu_count() or 1
        bar = _LazyProgress(f"{len(names)} AQMs", delay=0.3, enabled=not quiet)
        try:
            rows, notes = compare_aqms(base, names, seed, n_workers, progress=bar)
        finally:
            bar.close()

    if as_json:
        payload = {
            "scenario": base.get("name") or path,
            "rows": [_jsonable(r) for r in rows],
            "notes": notes,
        }
        sys.stdout.write(json.dumps(payload, allow_nan=False) + "\n")
    else:
        t = Table(
            title=f"aqmlab compare: {base.get('name') or path}",
            box=box.SIMPLE_HEAVY,
            collapse_padding=True,
            pad_edge=False,
        )
        for c in COMPARE_COLUMNS:
            width = max(len(w) for w in c.split())
            if c == "AQM":
                t.add_column(c, no_wrap=True, min_width=max([3] + [len(r["AQM"]) for r in rows]))
            else:
                t.add_column(c, justify="right", min_width=max(width, 6))
        for r in rows:
            t.add_row(
                r["AQM"],
                _f(r["utilization %"], 1),
                _f(r["goodput Mb/s"], 3),
                _f(r["mean queue (pkts)"], 2),
                _f(r["mean delay ms"], 2),
                _f(r["p99 delay ms"], 2),
                _f(r["loss %"], 2),
                _f(r["marks"]),
                _f(r["Jain"], 4),
            )
        out.print(t)
        for n in notes:
            sys.stdout.write(f"failed: {n['aqm']}: {n['reason']}\n")
    if plot is not None and rows:
        with _user_errors(), _plot_errors():
            from .cli_plot import save
            from .plot import compare_figure

            written = save(
                compare_figure(rows, f"aqmlab compare: {base.get('name') or path}"),
                plot,
                "--plot",
                "the table above is the comparison",
            )
        sys.stderr.write(f"plot written to {written}\n")
    # Every registered AQM must run: a failure is a bug to see, not a row to skip.
    if notes:
        raise typer.Exit(EXIT_FAILED)


# ---------------------------------------------------------------------------------------------
# aqms


@app.command()
def aqms(
    as_json: Annotated[bool, typer.Option("--json", help="Print the registry as JSON.")] = False,
) -> None:
    """List the AQM registry: name, title, source, parameters."""
    from . import _core

    reg = _core.aqms()
    if as_json:
        sys.stdout.write(json.dumps(reg) + "\n")
        return
    t = Table(title="AQM registry", show_lines=True)
    t.add_column("name", style="bold")
    t.add_column("title / source")
    t.add_column("params (default, unit)")
    t.add_column("ready")
    for a in reg:
        params = "\n".join(f"{p['name']} = {p['default']} ({p['unit']})" for p in a["params"]) or "-"
        t.add_row(
            a["name"],
            Text(f"{a['title']}\n{a['source']}"),
            Text(params),
            "yes" if a["implemented"] else "no",
        )
    t.caption = UNITS_NOTE
    out.print(t)


# ---------------------------------------------------------------------------------------------
# sweep / results (implemented in aqmlab.sweep)


def _sweep_cli() -> Any:
    try:
        from .sweep import cli as sweep_cli
    except Exception as e:  # noqa: BLE001 - any import failure means the module is unavailable
        _die(f"the sweep module is not available ({type(e).__name__}: {e})", EXIT_FAILED)
    return sweep_cli


@app.command()
def sweep(
    sweepfile: Annotated[Path, typer.Argument(help="Sweep definition file.")],
    workers: Annotated[int | None, typer.Option(parser=WORKERS, metavar="N", help="Parallel workers.")] = None,
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address (with --backend dask).")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Results store directory.")] = None,
    backend: Annotated[str, typer.Option(help="process, thread or dask.")] = "process",
    retry_failed: Annotated[bool, typer.Option("--retry-failed", help="Re-run failed runs.")] = False,
    reuse_stale: Annotated[
        bool,
        typer.Option(
            "--reuse-stale",
            help="Keep stored runs computed by another engine build (default: re-run them), with a warning.",
        ),
    ] = False,
    max_memory: MaxMemoryOption = None,
    set_: SetOption = None,
) -> None:
    """Run a parameter sweep into a results store (--set overrides its base scenario)."""
    mod = _sweep_cli()
    _apply_max_memory(max_memory)
    with _user_errors():
        code = mod.sweep_command(
            sweepfile, workers, scheduler, out_dir, backend, retry_failed, reuse_stale, overrides=set_ or []
        )
    raise typer.Exit(int(code or 0))


@app.command()
def results(
    directory: Annotated[Path, typer.Argument(help="Results store directory.")],
    export: Annotated[Path | None, typer.Option(help="Export the aggregate table to this file.")] = None,
    fmt: Annotated[str | None, typer.Option("--format", help="Export format (parquet, csv, ...).")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the store's counts, runs and aggregate as JSON on stdout.")
    ] = False,
) -> None:
    """Summarise a results store."""
    mod = _sweep_cli()
    with _user_errors():
        code = mod.results_command(directory, export, fmt, as_json=as_json)
    raise typer.Exit(int(code or 0))


# ---------------------------------------------------------------------------------------------
# plot (implemented in aqmlab.cli_plot)


@contextlib.contextmanager
def _plot_errors() -> Iterator[None]:
    """A view the data cannot give, as one line naming what to enable."""
    from .plot import PlotError

    try:
        yield
    except PlotError as e:
        _die(str(e))


@app.command()
def plot(
    directory: Annotated[
        Path, typer.Argument(help="A run saved by `aqmlab run --out DIR`, or a sweep's results store.")
    ],
    kind: Annotated[
        list[str] | None,
        typer.Option(
            "--kind",
            help="View of a run (repeatable; default: every one its data allows): queue, probability, cwnd, "
            "throughput, delay_cdf, fct.",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Image file (several kinds: FILE_kind.png each); default DIRECTORY/plots/KIND.png."),
    ] = None,
    x: Annotated[str | None, typer.Option("--x", help="A sweep's parameter (dotted path) for the x axis.")] = None,
    y: Annotated[str | None, typer.Option("--y", help="A sweep's metric (a summary key) for the y axis.")] = None,
    queue: Annotated[str | None, typer.Option("--queue", help="The queue to draw (default: the bottleneck).")] = None,
    flow: Annotated[
        list[int] | None, typer.Option("--flow", help="Flow id to draw in cwnd/throughput (repeatable).")
    ] = None,
) -> None:
    """Plot a saved run (queue, probability, cwnd, throughput, delay CDF, FCT) or a sweep's
    metric against a parameter with 95 % confidence bands."""
    with _user_errors(), _plot_errors():
        from .cli_plot import plot_command

        written = plot_command(directory, kind or [], out, x, y, queue, flow)
    for p in written:
        sys.stdout.write(f"{p}\n")


# ---------------------------------------------------------------------------------------------
# reproduce (implemented in aqmlab.reproduce)


@app.command()
def reproduce(
    paper: Annotated[str, typer.Argument(help="orange, newque, hybrid-red, qvared, dsred, or all.")],
    experiment: Annotated[str | None, typer.Argument(help="One experiment of the paper (default: all).")] = None,
    replications: Annotated[
        int | None,
        typer.Option(
            parser=REPLICATIONS,
            metavar="N",
            help="Runs per point (default: the paper's count, or the data file's if larger).",
        ),
    ] = None,
    quick: Annotated[
        bool, typer.Option("--quick", help="Reduced runs (CI-sized); notes.md says what changed.")
    ] = False,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Output directory (default results/reproduce/<paper>).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option(parser=WORKERS, metavar="N", help="Parallel workers (default: all cores).")
    ] = None,
    max_memory: MaxMemoryOption = None,
) -> None:
    """Reproduce a seed paper's experiments: tables next to the paper's, figures, notes."""
    from .reproduce.errors import ReproduceError

    _apply_max_memory(max_memory)
    with _user_errors():
        # imported inside: without matplotlib (aqmlab[plot]) the import raises MissingExtraError
        from .reproduce.cli import reproduce_command

        try:
            code = reproduce_command(paper, experiment, replications, quick, out_dir, workers, err)
        except ReproduceError as e:
            _die(str(e))
    raise typer.Exit(int(code or 0))


@app.command()
def league(
    out_dir: Annotated[
        Path, typer.Option("--out", help="Output directory (tables, figures, resumable stores).")
    ] = Path("results/league"),
    replications: Annotated[
        int | None,
        typer.Option(
            parser=REPLICATIONS, metavar="N", help="Replications per (scenario, AQM); default 5, or 2 with --quick."
        ),
    ] = None,
    quick: Annotated[
        bool, typer.Option("--quick", help="Shortened runs and fewer replications: checks that it runs, does not rank.")
    ] = False,
    workers: Annotated[
        int | None, typer.Option(parser=WORKERS, metavar="N", help="Parallel worker processes (default: all cores).")
    ] = None,
    aqm: Annotated[list[str] | None, typer.Option("--aqm", help="Only these AQMs (repeatable).")] = None,
    scenario: Annotated[
        list[str] | None, typer.Option("--scenario", help="Only these papers' scenarios (repeatable).")
    ] = None,
    tcp: TcpProfileOption = None,
) -> None:
    """Every AQM on every seed paper's main scenario: throughput, delay, loss, fairness."""
    from .league import league_command

    if tcp is not None and out_dir == Path("results/league"):
        out_dir = Path(f"results/league-{tcp}")  # never mixed with the papers' TCP league
    with _user_errors():
        code = league_command(
            out=out_dir,
            replications=replications,
            quick=quick,
            workers=workers or os.cpu_count() or 1,
            aqms=aqm,
            scenarios=scenario,
            tcp=tcp,
        )
    raise typer.Exit(int(code or 0))


# ---------------------------------------------------------------------------------------------
# emulate, validate-emulation (issue 26): real Linux TCP through aqmlab's own AQM code

MaxLagOption = Annotated[
    float,
    typer.Option(
        "--max-lag-us",
        parser=MAX_LAG_US,
        metavar="US",
        help="Bound on the router's departure lag (p99, us, above 0 to 1e6); above it the run is not valid "
        f"(exit {EXIT_NOT_VALID}).",
    ),
]
SpinOption = Annotated[
    float,
    typer.Option(
        "--spin-us",
        parser=SPIN_US,
        metavar="US",
        help="How long before an event the router polls instead of sleeping (us, 0 to 1e6).",
    ),
]
DurationOption = Annotated[
    float | None,
    typer.Option(parser=DURATION, metavar="DURATION", help=f"Replace the scenario's duration: {DURATION_FORMS}."),
]
WarmupOption = Annotated[
    float | None,
    typer.Option(
        parser=WARMUP,
        metavar="DURATION",
        help="Replace the scenario's warm-up (the start left out of the measurements), as --duration.",
    ),
]
# The options validate-emulation and validate-kernel share: seeds and the comparison's output.
SeedsOption = Annotated[int, typer.Option(parser=SEEDS, metavar="N", help="Number of seeds, from --seed up.")]
FirstSeedOption = Annotated[
    int | None, typer.Option(parser=SEED, metavar="SEED", help="First seed (default: the scenario's, else 1).")
]
ComparisonJsonOption = Annotated[bool, typer.Option("--json", help="Print the comparison as JSON on stdout.")]
ComparisonOutOption = Annotated[Path | None, typer.Option("--out", help="Write the comparison as JSON to this file.")]
CcOption = Annotated[
    str | None,
    typer.Option(
        "--cc", help="Kernel congestion control for every TCP flow (reno, cubic, bbr, ...); default: the scenario's."
    ),
]


@app.command()
def emulate(
    scenario: Annotated[str, typer.Argument(help="Scenario file (.toml or .json).")],
    seed: Annotated[
        int | None, typer.Option(parser=SEED, metavar="SEED", help="Master seed (the AQMs' random streams).")
    ] = None,
    duration: DurationOption = None,
    warmup: WarmupOption = None,
    cc: CcOption = None,
    out_dir: OutDirOption = None,
    as_json: SummaryJsonOption = False,
    quiet: QuietOption = False,
    max_lag_us: MaxLagOption = DEFAULT_MAX_LAG_US,
    spin_us: SpinOption = DEFAULT_SPIN_US,
    router_cpu: Annotated[
        Any,
        typer.Option(
            "--router-cpu",
            parser=ROUTER_CPU,
            metavar="CPU",
            help="Pin the router thread to this CPU and the hosts to the others: a CPU number, "
            "'auto' (the last CPU, with two or more) or 'none'.",
        ),
    ] = "auto",
) -> None:
    """Run one scenario in real time with the hosts' Linux TCP through aqmlab's own router and
    AQM code (one network namespace per host; needs root and /dev/net/tun). Exit 3: the run
    finished but is not valid (the router's lag above --max-lag-us); its result is printed and
    written all the same."""
    from .emulation.cli_commands import emulate_command

    emulate_command(scenario, seed, duration, warmup, cc, out_dir, as_json, quiet, max_lag_us, spin_us, router_cpu)


@app.command("validate-emulation")
def validate_emulation(
    scenario: Annotated[str, typer.Argument(help="Scenario file (.toml or .json).")],
    seeds: SeedsOption = 1,
    seed: FirstSeedOption = None,
    duration: DurationOption = None,
    warmup: WarmupOption = None,
    cc: CcOption = None,
    queue: Annotated[str, typer.Option(help="The queue compared.")] = "bottleneck",
    as_json: ComparisonJsonOption = False,
    out: ComparisonOutOption = None,
    max_lag_us: MaxLagOption = DEFAULT_MAX_LAG_US,
    spin_us: SpinOption = DEFAULT_SPIN_US,
) -> None:
    """Simulate a scenario (the linux TCP profile) and emulate it (Linux TCP through the same
    AQM code), side by side with relative differences and the emulator's lag. Exit 3: an
    emulated run was not valid (the router's lag above --max-lag-us)."""
    from .emulation.cli_commands import validate_command

    validate_command(scenario, seeds, seed, duration, warmup, cc, queue, as_json, out, max_lag_us, spin_us)


@app.command("validate-kernel")
def validate_kernel(
    scenario: Annotated[
        str, typer.Argument(help="Scenario file (.toml or .json): a dumbbell of long-lived TCP flows.")
    ],
    seeds: SeedsOption = 1,
    seed: FirstSeedOption = None,
    duration: DurationOption = None,
    warmup: WarmupOption = None,
    as_json: ComparisonJsonOption = False,
    out: ComparisonOutOption = None,
) -> None:
    """Simulate a dumbbell scenario and run it inside the reference kernel (Linux 6.1 as a
    User-Mode Linux guest on a virtual clock, `make uml-kernel`; Linux 7.3 for DualPI2, `make
    uml-kernel-l4s-upstream`; the seed is its random.seed),
    side by side with relative differences. Exit 3: the kernel cannot express the scenario
    (one line naming the field); exit 2: the kernel is not built."""
    from .emulation.cli_commands import validate_kernel_command

    validate_kernel_command(scenario, seeds, seed, duration, warmup, as_json, out)


@app.command()
def version() -> None:
    """Print the engine version."""
    from . import __version__

    out.print(__version__)


def main() -> None:
    """Entry point of the ``aqmlab`` script."""
    with interrupted_anywhere():
        app()


if __name__ == "__main__":
    main()
