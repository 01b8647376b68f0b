"""`aqmlab reproduce PAPER [EXPERIMENT]`: the command's implementation (cli.py delegates here)."""

from __future__ import annotations

import time
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

from .runner import DEFAULT_OUT, reproduce_experiment, resolve_papers, write_index
from .spec import ReproduceError, load_paper


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

        for pid in ids:
            p = load_paper(pid)
            exps = [p.experiment(experiment).id] if experiment else list(p.experiments)
            root = (
                (out / p.id) if out is not None and len(ids) > 1 else (out if out is not None else DEFAULT_OUT / p.id)
            )
            outs = []
            for e in exps:
                o = reproduce_experiment(
                    p, e, replications=replications, quick=quick, out=root, workers=workers, progress=progress
                )
                outs.append(o)
                failures += len(o.failed)
                prog.console.print(
                    f"{p.id}/{e}: {o.n_runs} runs, {o.wall_s:.1f} s -> {o.dir}"
                    + (f" [red]{len(o.failed)} failed[/red]" if o.failed else "")
                )
            if not experiment:
                write_index(p, outs, root)
    mode = "quick" if quick else "full"
    console.print(f"reproduce {paper} ({mode}) finished in {time.monotonic() - t0:.1f} s")
    if quick:
        console.print(
            "quick mode: fewer replications, shorter runs, thinned grids; see each notes.md ('What --quick changed')"
        )
    return 1 if failures else 0
