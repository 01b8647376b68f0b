"""Experiment-specific additions: analytic companions, derived tables, claim checks.

A hook is ``fn(ctx: Context) -> CompanionOutput``, registered with ``@hook(paper, experiment)``.
The generic runner calls it after the runs are aggregated; what it returns is appended to
notes.md (``markdown``), the figure list, and (``table``) replaces or (for analytic-only and
derived experiments) provides table.csv/table.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

HOOKS: dict[tuple[str, str], Callable[["Context"], "CompanionOutput"]] = {}


@dataclass
class Context:
    paper: Any
    exp: Any
    source: Any  # the experiment whose runs these are (differs for derived experiments)
    runs: pd.DataFrame
    agg: pd.DataFrame
    axes: list[str]
    out_dir: Path
    quick: bool
    specs: list[Any] = field(default_factory=list)


@dataclass
class CompanionOutput:
    markdown: str = ""
    figures: list[Path] = field(default_factory=list)
    table: pd.DataFrame | None = None
    table_md: str | None = None
    replaces_table: bool = False
    scenario_pref: str | None = None  # scenario file whose runs the paper table compares with
    values: dict[str, Any] = field(default_factory=dict)


def hook(paper: str, experiment: str):
    def deco(fn):
        HOOKS[(paper, experiment)] = fn
        return fn

    return deco


def get(paper: str, experiment: str):
    return HOOKS.get((paper, experiment))


from . import dsred, orange  # noqa: E402,F401  (registration)
from . import hybrid_red, newque, qvared  # noqa: E402,F401  (registration)
