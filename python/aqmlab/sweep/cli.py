"""Command-line glue: ``aqmlab sweep`` and ``aqmlab results``.

Plain functions with typed parameters that print with rich and return a
process exit code, so the typer app only has to forward options::

    @app.command()
    def sweep(sweepfile: Path, workers: int | None = None, scheduler: str | None = None,
              out: Path | None = None, backend: str = "process", retry_failed: bool = False):
        raise typer.Exit(sweep_command(sweepfile, workers, scheduler, out, backend, retry_failed))

Exit codes: 0 every job stored successfully; 1 some runs failed or the sweep
stopped early (or the disk filled); 2 invalid input; 130 interrupted (Ctrl-C or SIGTERM).
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from ..cli_run import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    OutputPathError,
    check_output_dir,
    check_output_file,
    written_after_work,
)
from ..interrupt import interrupt
from .aggregate import export_target
from .atomic_file import DiskFullError
from .definition import Sweep, SweepDefinitionError
from .execute import SweepInterrupted, SweepProgress, SweepReport, run_sweep
from .results_view import results_json, results_table
from .store import ResultStore
from .store_index import StoreIndexError, StoreReadOnlyError


def _error(message: str) -> None:
    """An error as every command gives one: a line on stderr, never among the tables on
    stdout (issue 35, O: `results` printed its errors on stdout). The caller returns the exit
    code."""
    line = "; ".join(part.strip() for part in message.strip().splitlines() if part.strip()) or "failed"
    sys.stderr.write(f"error: {line}\n")
    sys.stderr.flush()


def default_store_dir(sweep: Sweep) -> Path:
    """``store`` from the sweep file, else ``results/<sweep name>``."""
    return sweep.store if sweep.store is not None else Path("results") / sweep.name


def _print_failures(
    console: Console, failures: Sequence[tuple[Mapping[str, Any], int, str | None]], limit: int = 10
) -> None:
    if not failures:
        return
    table = Table(title=f"Failed runs ({len(failures)})", title_style="bold red")
    table.add_column("point")
    table.add_column("rep", justify="right")
    table.add_column("error", overflow="fold")
    for point, rep, error in list(failures)[:limit]:
        table.add_row(", ".join(f"{k}={v}" for k, v in point.items()) or "-", str(rep), error or "")
    if len(failures) > limit:
        table.caption = f"{limit} of {len(failures)} shown; see `aqmlab results`"
    console.print(table)


def _print_report(console: Console, report: SweepReport) -> None:
    skipped = report.skipped_ok + report.skipped_failed
    console.print(
        f"[bold]{report.name}[/]: {report.total} jobs — [green]{report.ok} ok[/], "
        f"[red]{report.failed} failed[/], {skipped} already stored"
        + (f" ({report.skipped_failed} failed, use --retry-failed)" if report.skipped_failed else "")
        + (f", {report.not_run} not run" if report.not_run else "")
        + f" in {report.elapsed_s:.1f}s"
    )
    if report.stale_rerun or report.stale_kept:
        console.print(
            f"[yellow]stale:[/] {report.stale_rerun + report.stale_kept} stored run(s) were computed by another "
            f"engine build; " + (f"{report.stale_kept} kept (--reuse-stale)" if report.stale_kept else "re-run")
        )
    if report.corrupt_rerun:
        console.print(f"[yellow]corrupt:[/] {report.corrupt_rerun} stored run file(s) failed their checksum; re-run")
    if report.from_other_sweep:
        console.print(f"{report.from_other_sweep} run(s) were computed by a concurrent sweep on this store")
    if report.stopped_reason and report.stopped_reason != "interrupted":
        console.print(f"[yellow]stopped: {report.stopped_reason}[/]")
    _print_failures(console, [(f.point, f.replication, f.error) for f in report.failures])


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (a job scheduler's stop) takes the same clean path as Ctrl-C."""

    def handler(signum: int, frame: Any) -> None:
        interrupt()  # runs on the thread backend's threads stop too
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def sweep_command(
    sweepfile: Path,
    workers: int | None = None,
    scheduler: str | None = None,
    out: Path | None = None,
    backend: str = "process",
    retry_failed: bool = False,
    reuse_stale: bool = False,
    *,
    overrides: Sequence[str] = (),
    console: Console | None = None,
) -> int:
    """Run a sweep file into a results store with a live progress bar; ``overrides``
    (``--set PATH=VALUE``) change its base scenario (:meth:`Sweep.override_base`).

    After the sweep the aggregate table is written to ``STORE/aggregate.parquet``
    and ``STORE/aggregate.csv``.
    """
    console = console or Console()
    try:
        sweep = Sweep.from_toml(sweepfile)
        if overrides:
            sweep.override_base(overrides)
    except FileNotFoundError as exc:
        _error(str(exc))
        return EXIT_USAGE
    except SweepDefinitionError as exc:
        _error(f"invalid sweep file {sweepfile}: {exc}")
        return EXIT_USAGE
    store_dir = Path(out) if out is not None else default_store_dir(sweep)
    # Raised, not printed: the command line's one line and exit 2, before any run.
    check_output_dir(store_dir, "--out" if out is not None else f"{sweepfile}: store")
    console.print(f"{sweep!r}\nstore: {store_dir}")

    columns = (
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "[green]{task.fields[ok]} ok[/] [red]{task.fields[failed]} failed[/] {task.fields[running]} running"
        ),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(sweep.name, total=None, ok=0, failed=0, running=0)

        def on_progress(p: SweepProgress) -> None:
            bar.update(task, total=p.total, completed=p.done, ok=p.ok, failed=p.failed, running=p.running)

        try:
            with _terminate_as_interrupt():
                report = run_sweep(
                    sweep,
                    store_dir,
                    workers=workers,
                    backend=backend,
                    scheduler=scheduler,
                    progress=on_progress,
                    retry_failed=retry_failed,
                    reuse_stale=reuse_stale,
                )
        except SweepInterrupted as exc:
            bar.stop()
            console.print(
                f"[yellow]interrupted[/]: {exc.report.summary_line()}; finished runs are stored in {store_dir}: "
                "run the same command to resume.",
                soft_wrap=True,
            )
            return EXIT_INTERRUPTED
        except DiskFullError as exc:  # SweepDiskFull, or the index could not even be opened
            bar.stop()
            _error(str(exc.strerror))
            return EXIT_FAILED
        except (StoreReadOnlyError, NotADirectoryError) as exc:  # a store that cannot be written
            bar.stop()
            _error(str(exc))
            return EXIT_USAGE
        except ValueError as exc:  # bad backend / workers
            bar.stop()
            _error(str(exc))
            return EXIT_USAGE

    _print_report(console, report)
    table = report.table()
    if len(table):
        with written_after_work(
            "--out",
            store_dir,
            f"the runs are stored in {store_dir}: `aqmlab results {store_dir} --export FILE` writes the aggregate",
        ):
            report.store.export(store_dir / "aggregate.parquet")
            report.store.export(store_dir / "aggregate.csv")
        console.print(f"aggregate: {store_dir / 'aggregate.parquet'} (+ .csv)")
    if report.metrics:
        seen = set(table.loc[table["n"] > 0, "metric"]) if len(table) else set()
        missing = [m for m in report.metrics if m not in seen]
        if missing and report.ok + report.skipped_ok:
            console.print(f"[yellow]warning:[/] metrics never found in run summaries: {', '.join(missing)}")
    return EXIT_OK if report.complete else EXIT_FAILED


def results_command(
    dir: Path,  # noqa: A002 - mirrors the CLI argument name
    export: Path | None = None,
    format: str | None = None,  # noqa: A002
    *,
    wide: bool = False,
    metrics: Sequence[str] | None = None,
    max_rows: int = 40,
    console: Console | None = None,
    as_json: bool = False,
) -> int:
    """Summarise a results store; optionally export the aggregate table.

    ``format`` is ``"parquet"`` or ``"csv"`` (default: from the export path's
    suffix, else Parquet); ``wide=True`` exports one row per point. ``as_json``
    prints the counts, runs and aggregate as one JSON object on stdout
    (:func:`.results_view.results_json`) instead of the tables.
    """
    console = console or Console()
    if as_json:
        # the messages that are not the JSON go to stderr, so that stdout parses
        console = Console(stderr=True, highlight=False)
    if export is not None:
        # Raised, not printed: the command line's one line and exit 2, before the store is read.
        try:
            export, _ = export_target(export, format)
        except ValueError as exc:
            raise OutputPathError(f"{'--format' if format else '--export'}: {exc}") from None
        check_output_file(export, "--export")
    try:
        store = ResultStore(dir, create=False)
    except (FileNotFoundError, NotADirectoryError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    # A damaged run file is reported below, once, naming the file, and left out of the
    # tables (issue 24): not a warning's two lines, nor a traceback.
    store.warn_corrupt = False
    try:
        if as_json:
            return _summarise_json(store, dir, export, format, wide, metrics, console)
        return _summarise(store, dir, export, format, wide, metrics, max_rows, console)
    except StoreIndexError as exc:
        _error(f"{exc} (the run files are untouched: moving the index away rebuilds it from them)")
        return EXIT_FAILED


def _summarise(
    store: ResultStore,
    dir: Path,  # noqa: A002
    export: Path | None,
    format: str | None,  # noqa: A002
    wide: bool,
    metrics: Sequence[str] | None,
    max_rows: int,
    console: Console,
) -> int:
    """The body of :func:`results_command` on an opened store."""
    # Read first: a corrupt run file met while reading is set aside, so the counts below
    # are of the runs the tables hold.
    table = store.aggregate(metrics, skip_corrupt=True)
    manifest = store.manifest()
    meta = store.load_sweep_meta() or {}
    counts = manifest["status"].value_counts().to_dict() if len(manifest) else {}
    sweep_keys = meta.get("keys")
    line = (
        f"[bold]{dir}[/]: {len(manifest)} runs stored — "
        f"[green]{counts.get('ok', 0)} ok[/], [red]{counts.get('failed', 0)} failed[/]"
    )
    if sweep_keys is not None:
        stored = set(manifest["key"]) if len(manifest) else set()
        missing = sum(1 for k in sweep_keys if k not in stored)
        line += f"; last sweep [bold]{meta.get('name', '?')}[/]: {len(sweep_keys)} jobs, {missing} missing"
    console.print(line)
    if len(manifest):
        failed = manifest[manifest["status"] == "failed"]
        # the manifest's point column holds each run's axis values as a dict
        rows = [(r.point, r.replication, r.error) for r in failed.itertuples()]
        _print_failures(console, cast("list[tuple[Mapping[str, Any], int, str | None]]", rows))
    if len(table):
        title = "Aggregate over replications (mean, 95% t-interval half-width, n)"
        notes, view = results_table(table, title, max_rows)
        for note in notes:
            console.print(note, highlight=False, markup=False)
        console.print(view)
    else:
        console.print("no successful runs to aggregate")
    return _export_and_exit_code(store, export, format, wide, metrics, console)


def _summarise_json(
    store: ResultStore,
    dir: Path,  # noqa: A002
    export: Path | None,
    format: str | None,  # noqa: A002
    wide: bool,
    metrics: Sequence[str] | None,
    console: Console,
) -> int:
    """``--json``: :func:`.results_view.results_json` on stdout; an export and damaged run
    files reported on stderr (``console``)."""
    table = store.aggregate(metrics, skip_corrupt=True)
    payload = results_json(str(dir), store.manifest(), table, store.load_sweep_meta() or {})
    sys.stdout.write(json.dumps(payload, allow_nan=False, default=str) + "\n")
    return _export_and_exit_code(store, export, format, wide, metrics, console)


def _export_and_exit_code(
    store: ResultStore,
    export: Path | None,
    format: str | None,  # noqa: A002
    wide: bool,
    metrics: Sequence[str] | None,
    console: Console,
) -> int:
    """The end of ``aqmlab results``, whatever it printed: the export if asked, the damaged
    run files named (the tables printed are without them), and the exit code."""
    if export is not None:
        with written_after_work("--export", export, "the store is unchanged: the same command exports it"):
            try:
                path = store.export(export, format, wide=wide, metrics=metrics, skip_corrupt=True)
            except ValueError as exc:
                _error(str(exc))
                return EXIT_USAGE
        console.print(f"exported {path}")
    if store.corrupt_found:
        _print_corrupt(console, store)
        return EXIT_FAILED
    return EXIT_OK


def _print_corrupt(console: Console, store: ResultStore, limit: int = 5) -> None:
    """One line per damaged run file (at most ``limit``), then what happens to them."""
    found = list(store.corrupt_found.values())
    for c in found[:limit]:
        console.print(f"[red]corrupt:[/] {c.path} ({c.why})", soft_wrap=True, highlight=False)
    if len(found) > limit:
        console.print(f"[red]corrupt:[/] and {len(found) - limit} more", highlight=False)
    what = (
        "moved aside; the next sweep re-runs them"
        if store.writable
        else "left in place (read-only store); a sweep on a writable copy re-runs them"
    )
    console.print(f"{len(found)} corrupt run file(s) left out of the tables above: {what}", soft_wrap=True)
