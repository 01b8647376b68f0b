"""``aqmlab plot``: a saved run's views (the directory ``aqmlab run --out`` writes) or a
sweep's metric against a parameter (a results store), written as PNG (or any format
matplotlib writes, by the file's suffix)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cli_run import check_image_file, check_output_dir
from .plot import KINDS, PlotError, check_kind, plot_result

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Resolution of the PNGs written: readable on a screen, small on disk.
DPI = 110


def save(fig: Figure, path: Path, option: str = "--out", kept: str = "nothing else was changed") -> Path:
    """Writes ``fig`` to ``path`` (its directory made if missing); a write that fails (the
    path was checked before the work: the disk filled, a permission changed) is one line
    naming ``option`` and saying what is ``kept``, exit 1."""
    from .cli_run import written_after_work

    with written_after_work(option, path, kept):
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=DPI)
    return path


def _out_path(out: Path | None, directory: Path, kind: str, several: bool) -> Path:
    """FILE for one kind; FILE's stem + "_" + kind for several; DIR/plots/KIND.png by default."""
    if out is None:
        return directory / "plots" / f"{kind}.png"
    if several:
        return out.with_name(f"{out.stem}_{kind}{out.suffix or '.png'}")
    return out if out.suffix else out.with_suffix(".png")


def plot_run_dir(directory: Path, kinds: Sequence[str], out: Path | None, options: dict[str, Any]) -> list[Path]:
    """Each of ``kinds`` of the run saved in ``directory`` (default: every kind its data
    allows, the others named on stderr with what they need)."""
    from .plot.saved import SavedResult

    for k in kinds:
        check_kind(k)
    saved = SavedResult(directory)
    explicit = bool(kinds)
    written: list[Path] = []
    todo = list(kinds) or list(KINDS)
    for kind in todo:
        try:
            fig = plot_result(saved, kind, **options.get(kind, {}))
        except PlotError as e:
            if explicit:
                raise
            sys.stderr.write(f"skipped {kind}: {e}\n")
            continue
        written.append(save(fig, _out_path(out, directory, kind, several=len(todo) > 1)))
    if not written:
        raise PlotError(f"nothing to plot in {directory}: the run recorded none of the data the views need")
    return written


def plot_sweep_dir(directory: Path, x: str, y: str, out: Path | None) -> Path:
    """Metric ``y`` against parameter ``x`` of the sweep stored in ``directory``."""
    from .plot.sweep import sweep_figure
    from .sweep.store import ResultStore

    store = ResultStore(directory, create=False)
    store.warn_corrupt = False
    tidy = store.aggregate(skip_corrupt=True)
    fig = sweep_figure(tidy, x, y)
    safe = y.replace("/", "_")
    return save(fig, out if out is not None else directory / "plots" / f"{safe}_vs_{x.replace('/', '_')}.png")


def plot_command(
    path: Path,
    kinds: Sequence[str],
    out: Path | None,
    x: str | None,
    y: str | None,
    queue: str | None,
    flows: list[int] | None,
) -> list[Path]:
    """What ``aqmlab plot`` does: a sweep's plot with ``--x``/``--y``, else a run's views."""
    if not path.exists():
        raise PlotError(f"no such directory: {path}")
    # Where the images go, checked before any is drawn (several kinds: FILE_kind.SUFFIX, in
    # FILE's directory, with FILE's suffix).
    if out is not None:
        check_image_file(out, "--out")
    else:
        check_output_dir(path / "plots", "--out (default DIRECTORY/plots)")
    if (x is None) != (y is None):
        raise PlotError("--x and --y go together: a sweep's metric (--y) against one of its parameters (--x)")
    if x is not None and y is not None:
        if kinds:
            raise PlotError("--kind is for a saved run; a sweep takes --x PARAM --y METRIC")
        return [plot_sweep_dir(path, x, y, out)]
    if not (path / "summary.json").is_file() and (path / "runs").is_dir():
        raise PlotError(f"{path} is a sweep's results: plot a metric against a parameter with --x PARAM --y METRIC")
    options: dict[str, dict[str, Any]] = {}
    if queue is not None:
        options["queue"] = options["probability"] = {"queue": queue}
        options["delay_cdf"] = {"queues": [queue]}
    if flows is not None:
        options["cwnd"] = {"flows": flows}
        options["throughput"] = {"flows": flows}
    return plot_run_dir(path, kinds, out, options)
