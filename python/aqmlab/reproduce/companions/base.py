"""What a companion hook is given and returns, and the table of hooks: the vocabulary the
experiment modules register themselves with (the package imports them; they import only this)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

HOOKS: dict[tuple[str, str], Callable[[Context], CompanionOutput]] = {}


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
