"""Issue 11, item 12: an aggregate does not depend on the order in which runs finished."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from aqmlab.reproduce.companions.hybrid_red import stats
from aqmlab.sweep.aggregate import aggregate_runs, summarize

# Values whose float sum depends on the order of the terms: 1e16 + 1 == 1e16.
VALUES = [1e16, 1.0, -1e16, 1.0, 3.0, 0.1, 0.2]


def test_summarize_is_bit_identical_for_every_order():
    results = {tuple(float(v).hex() for v in summarize(list(p)).values()) for p in itertools.permutations(VALUES[:5])}
    assert len(results) == 1
    # the plain numpy mean is not (what the old code used)
    means = {float(np.asarray(p).mean()).hex() for p in itertools.permutations(VALUES[:5])}
    assert len(means) > 1


def test_companion_stats_are_the_sweep_summary():
    s, t = summarize(VALUES), stats(np.array(VALUES))
    assert (t["mean"], t["std"], t["ci95"], t["n"]) == (s["mean"], s["std"], s["ci95_half_width"], s["n"])


def test_aggregate_table_is_byte_identical_whatever_the_finishing_order():
    rows = [{"point": '{"x":1}', "m": v} for v in VALUES] + [{"point": '{"x":2}', "m": v * 3} for v in VALUES]
    runs = pd.DataFrame(rows)
    tables = set()
    for seed in range(6):
        shuffled = runs.sample(frac=1.0, random_state=seed).reset_index(drop=True)
        tables.add(aggregate_runs(shuffled, ["x"], ["m"]).to_csv(index=False, float_format="%.17g"))
    assert len(tables) == 1
