"""`aqmlab reproduce PAPER [EXPERIMENT]`: the command's implementation (cli.py delegates here)."""

from __future__ import annotations

import multiprocessing
import time
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..cli_run import check_output_dir
from .errors import ReproduceError
from .runner import (
    DEFAULT_OUT,
    ExperimentOutput,
    finish_experiment,
    reproduce_experiment,
    resolve_papers,
    run_experiment_sweep,
    write_index,
)
from .spec import Paper, load_paper


def reproduce_command(
    paper: str,
    experiment: str | None,
    replications: int | None,
    quick: bool,
    out: Path | None,
    workers: int | None,
    console: Console | None = None,
) -> int:
    console = console or Console(stderr=True, highlight=False)
    ids = resolve_papers(paper)
    if experiment and len(ids) > 1:
        raise ReproduceError("an EXPERIMENT needs a single PAPER, not 'all'")
    if replications is not None and replications < 1:
        raise ReproduceError("--replications must be >= 1")

    def root_of(pid: str) -> Path:
        """Where a paper's experiments go: OUT/PAPER for several papers, else OUT."""
        if out is None:
            return DEFAULT_OUT / pid
        return out / pid if len(ids) > 1 else out

    for pid in ids:
        check_output_dir(root_of(pid), "--out")
    t0 = time.monotonic()
    failures = 0
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    ) as prog:
        tasks: dict[str, TaskID] = {}

        def progress(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = prog.add_task(label, total=total)
            prog.update(tasks[label], completed=done, total=total)

        # With worker processes, an experiment's tables, figures and companions (about 45 s of
        # one core in the quick reproduction, 64 s in the full one, with the workers idle) run
        # in a process of their own while the next experiment's runs go on: the finisher, one
        # experiment at a time, in order. Spawned, not forked: this process has threads.
        finisher = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) if workers != 1 else None
        pending: deque[tuple[Paper, Path, Future[ExperimentOutput]]] = deque()
        outs: dict[str, list[ExperimentOutput]] = {}

        def report(p: Paper, root: Path, o: ExperimentOutput) -> None:
            nonlocal failures
            failures += len(o.failed)
            prog.console.print(
                f"{p.id}/{o.experiment}: {o.n_runs} runs, {o.wall_s:.1f} s -> {o.dir}"
                + (f" [red]{len(o.failed)} failed[/red]" if o.failed else "")
            )
            done = outs.setdefault(p.id, [])
            done.append(o)
            if not experiment and len(done) == len(p.experiments):
                write_index(p, done, root)

        def report_finished(block: bool) -> None:
            while pending and (block or pending[0][2].done()):
                p, root, fut = pending.popleft()
                report(p, root, fut.result())

        try:
            for pid in ids:
                p = load_paper(pid)
                exps = [p.experiment(experiment).id] if experiment else list(p.experiments)
                root = root_of(p.id)
                for e in exps:
                    if finisher is None:
                        o = reproduce_experiment(
                            p, e, replications=replications, quick=quick, out=root, workers=workers, progress=progress
                        )
                        report(p, root, o)
                        continue
                    swept = run_experiment_sweep(
                        p, e, replications=replications, quick=quick, out=root, workers=workers, progress=progress
                    )
                    fut = finisher.submit(finish_experiment, p.id, e, replications, quick, root, swept)
                    pending.append((p, root, fut))
                    report_finished(block=False)
            report_finished(block=True)
        finally:
            if finisher is not None:
                # On an error or Ctrl-C, the experiments not yet finished are dropped.
                finisher.shutdown(wait=True, cancel_futures=True)
    mode = "quick" if quick else "full"
    console.print(f"reproduce {paper} ({mode}) finished in {time.monotonic() - t0:.1f} s")
    if quick:
        console.print(
            "quick mode: fewer replications, shorter runs, thinned grids; see each notes.md ('What --quick changed')"
        )
    return 1 if failures else 0
