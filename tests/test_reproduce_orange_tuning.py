"""Orange Table 3: the best-timer criterion and the bootstrap that says how firmly it is picked."""

import math

import numpy as np
import pandas as pd
import pytest
from aqmlab.reproduce.companions.orange import best_timers, bootstrap_tuning, fit_tuning_constant


def _runs(best_by_k: dict[int, float], noise: float, reps: int = 5, seed: int = 1) -> pd.DataFrame:
    """Synthetic Table 2 runs: throughput peaks at best_by_k[K] (by `10` kb/s a step), delays all
    below RED's, so the criterion is 'max throughput'."""
    rng = np.random.default_rng(seed)
    rows = []
    for k, best in best_by_k.items():
        for t in (2.0, 4.0, 6.0, 8.0, 10.0):
            for r in range(reps):
                rows.append(
                    {
                        "config": "orange",
                        "K": k,
                        "timer_ms": t,
                        "replication": r,
                        "throughput_kbps": 9500 - 10 * abs(t - best) + noise * rng.standard_normal(),
                        "delay_ms": 50.0 + t,
                    }
                )
        for r in range(reps):
            rows.append(
                {
                    "config": "red_3k",
                    "K": k,
                    "timer_ms": math.nan,
                    "replication": r,
                    "throughput_kbps": 9400.0,
                    "delay_ms": 100.0,
                }
            )
    return pd.DataFrame(rows)


def test_fit_is_exact_on_the_rule():
    ks = [10, 15, 20, 25]
    assert fit_tuning_constant(ks, [20 / math.sqrt(k) for k in ks]) == pytest.approx(20.0)


def test_a_clear_winner_is_picked_in_every_resample():
    runs = _runs({10: 6.0, 25: 4.0}, noise=0.1)
    boot = bootstrap_tuning(runs, n_boot=200)
    share = boot["share"]
    assert set(share["K"]) == {10, 25}
    assert share[share["K"] == 10].iloc[0][["best_timer_ms", "share"]].tolist() == [6.0, 1.0]
    assert share[share["K"] == 25].iloc[0][["best_timer_ms", "share"]].tolist() == [4.0, 1.0]
    c = fit_tuning_constant([10, 25], [6.0, 4.0])
    assert boot["c_lo"] == pytest.approx(c) and boot["c_hi"] == pytest.approx(c)


def test_noise_spreads_the_pick_and_widens_the_interval():
    # 10 kb/s between neighbouring timers against 40 kb/s of noise per run: no firm winner.
    runs = _runs({10: 6.0, 25: 4.0}, noise=40.0)
    boot = bootstrap_tuning(runs, n_boot=300)
    assert boot["share"][boot["share"]["K"] == 10]["share"].max() < 1.0
    assert boot["c_hi"] > boot["c_lo"]
    # deterministic
    again = bootstrap_tuning(runs, n_boot=300)
    assert (again["c_lo"], again["c_hi"]) == (boot["c_lo"], boot["c_hi"])


def test_criterion_uses_means_and_red_delay():
    runs = _runs({10: 8.0}, noise=0.0, reps=1)
    agg = runs.groupby(["config", "K", "timer_ms"], dropna=False, as_index=False)[
        ["throughput_kbps", "delay_ms"]
    ].mean()
    assert best_timers(agg)["best_timer_ms"].tolist() == [8.0]
