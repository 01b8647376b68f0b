"""Experiment-specific additions: analytic companions, derived tables, claim checks.

A hook is ``fn(ctx: Context) -> CompanionOutput``, registered with ``@hook(paper, experiment)``.
The generic runner calls it after the runs are aggregated; what it returns is appended to
notes.md (``markdown``), the figure list, and (``table``) replaces or (for analytic-only and
derived experiments) provides table.csv/table.md.
"""

from __future__ import annotations

# Importing each experiment module registers its hooks.
from . import dsred, hybrid_red, l4s_tests, newque, orange, qvared, sce_l4s_bakeoff  # noqa: F401
from .base import HOOKS, CompanionOutput, Context, get, hook

__all__ = ["HOOKS", "CompanionOutput", "Context", "get", "hook"]
