"""What a companion hook is given and returns, and the table of hooks: the vocabulary the
experiment modules register themselves with (the package imports them; they import only this)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from ..jobs import RunSpec
    from ..spec import Experiment, Paper

HOOKS: dict[tuple[str, str], Hook] = {}


@dataclass
class Context:
    paper: Paper
    exp: Experiment
    source: Experiment  # the experiment whose runs these are (differs for derived experiments)
    runs: pd.DataFrame
    agg: pd.DataFrame
    axes: list[str]
    out_dir: Path
    quick: bool
    specs: list[RunSpec] = field(default_factory=list)


@dataclass
class CompanionOutput:
    markdown: str = ""
    figures: list[Path] = field(default_factory=list)
    table: pd.DataFrame | None = None
    table_md: str | None = None
    replaces_table: bool = False
    scenario_pref: str | None = None  # scenario file whose runs the paper table compares with
    values: dict[str, Any] = field(default_factory=dict)


#: A companion hook: the runs of one experiment in, the companion's output out.
Hook = Callable[[Context], CompanionOutput]


def hook(paper: str, experiment: str) -> Callable[[Hook], Hook]:
    """Registers the decorated function as the hook of ``paper``'s ``experiment``."""

    def deco(fn: Hook) -> Hook:
        HOOKS[(paper, experiment)] = fn
        return fn

    return deco


def get(paper: str, experiment: str) -> Hook | None:
    """The hook of ``paper``'s ``experiment``, if one is registered."""
    return HOOKS.get((paper, experiment))
