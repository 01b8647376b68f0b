"""The AQM league: every AQM of the registry on every seed paper's main scenario.

One table per scenario (utilization, goodput, delay, p99 delay, loss, marks, Jain index, each
a mean over replications with a 95% Student-t confidence interval), an overall table of ranks,
delay-vs-goodput figures and a plain-words summary written from the numbers. The rules (which
defaults are replaced, where ECN is on, how a table is sorted) are in docs/league.md.

Three modules, one job each:

- :mod:`.grid`: what to run: the scenarios, each AQM's configuration in each, the metrics,
  one sweep per scenario (nothing runs);
- :mod:`.run`: running it, through :mod:`aqmlab.sweep` (resumable stores under
  ``OUT/store/``), and ``aqmlab league``;
- :mod:`.table`: the table: rows, ranking, summary sentences, report, figures, files.

Imports: ``grid`` <- ``table`` <- ``run``; from the rest of the package the public API,
:mod:`aqmlab.sweep`, and from :mod:`aqmlab.reproduce` only the papers' scenario files and
the figure module (matplotlib).
"""

from __future__ import annotations

from ..cli_options import seconds
from .grid import (
    BUFFER_RULES,
    METRIC_COLUMNS,
    METRICS,
    SCENARIO_IDS,
    SCENARIOS,
    SUMMARY_KEYS,
    AqmInfo,
    LeaguePlan,
    LeagueScenario,
    aqm_config,
    bits_per_second,
    bottleneck_link,
    bottleneck_link_path,
    plan,
    registry,
    smoke_scenario,
)
from .run import LEAGUE_VERSION, fair_rates, league_command, league_run, run_league
from .table import (
    UTILIZATION_FLOOR_PCT,
    overall_ranks,
    overall_sentences,
    overlaps,
    rank_scenario,
    render_markdown,
    rerender,
    scenario_sentences,
    scenario_table_md,
    to_wide,
    write_figures,
)

__all__ = [
    "BUFFER_RULES",
    "LEAGUE_VERSION",
    "METRICS",
    "METRIC_COLUMNS",
    "SCENARIOS",
    "SCENARIO_IDS",
    "SUMMARY_KEYS",
    "UTILIZATION_FLOOR_PCT",
    "AqmInfo",
    "LeaguePlan",
    "LeagueScenario",
    "aqm_config",
    "bits_per_second",
    "bottleneck_link",
    "bottleneck_link_path",
    "fair_rates",
    "league_command",
    "league_run",
    "overall_ranks",
    "overall_sentences",
    "overlaps",
    "plan",
    "rank_scenario",
    "registry",
    "render_markdown",
    "rerender",
    "run_league",
    "scenario_sentences",
    "scenario_table_md",
    "seconds",
    "smoke_scenario",
    "to_wide",
    "write_figures",
]
