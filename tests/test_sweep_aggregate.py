"""Aggregation math (checked by hand) and the exported table's readability."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import sweep_fake_engine as fake  # noqa: E402
from aqmlab.sweep import ResultStore, Sweep, aggregate_runs, run_sweep, summarize, to_wide  # noqa: E402
from aqmlab.sweep.aggregate import axis_series, export_table  # noqa: E402

T975_2DOF = 4.302652729749464  # scipy.stats.t.ppf(0.975, 2), from tables: 4.303
MAX_TH = "bottleneck.queue.aqm.max_th"


def test_summarize_hand_computed():
    s = summarize([1.0, 2.0, 3.0])
    assert s["mean"] == 2.0 and s["std"] == 1.0 and s["n"] == 3
    half = T975_2DOF * 1.0 / math.sqrt(3)
    assert s["ci95_half_width"] == pytest.approx(half, rel=1e-12)
    assert s["ci95_low"] == pytest.approx(2.0 - half) and s["ci95_high"] == pytest.approx(2.0 + half)
    assert half == pytest.approx(2.4841, abs=1e-4)


def test_summarize_two_values_and_degenerate_cases():
    s = summarize([10.0, 14.0])  # mean 12, sd sqrt(8), t(0.975, 1) = 12.706
    assert s["std"] == pytest.approx(math.sqrt(8))
    assert s["ci95_half_width"] == pytest.approx(12.706204736 * math.sqrt(8) / math.sqrt(2), rel=1e-8)
    one = summarize([5.0])
    assert one["mean"] == 5.0 and one["n"] == 1
    assert math.isnan(one["std"]) and math.isnan(one["ci95_low"]) and math.isnan(one["ci95_half_width"])
    none = summarize([])
    assert none["n"] == 0 and math.isnan(none["mean"])
    assert summarize([1.0, float("nan"), 3.0])["n"] == 2  # NaN values do not count


def _raw(points_values: dict[str, list[float]], extra=None) -> pd.DataFrame:
    rows = []
    for pjson, vals in points_values.items():
        for i, v in enumerate(vals):
            rows.append(
                {
                    "key": f"{pjson}{i}",
                    "point": pjson,
                    "status": "ok",
                    "replication": i,
                    "x": v,
                    "flag": i % 2 == 0,
                    "label": "red",
                    **(extra or {}),
                }
            )
    return pd.DataFrame(rows)


def test_aggregate_runs_per_point_and_metric():
    p1, p2 = '{"a":1,"b":"x"}', '{"a":2,"b":"x"}'  # canonical point JSON, as stored
    df = _raw({p2: [10.0, 14.0], p1: [1.0, 2.0, 3.0]})
    t = aggregate_runs(df, axes=["a", "b"], point_order=[p1, p2])
    assert list(t.columns) == ["a", "b", "metric", "mean", "std", "n", "ci95_low", "ci95_high", "ci95_half_width"]
    assert list(t["metric"]) == ["x", "flag", "x", "flag"]  # numeric and boolean metrics; strings skipped
    row = t[(t["a"] == 1) & (t["metric"] == "x")].iloc[0]
    assert (row["mean"], row["std"], row["n"]) == (2.0, 1.0, 3)
    assert row["ci95_high"] - row["mean"] == pytest.approx(T975_2DOF / math.sqrt(3))
    flag = t[(t["a"] == 1) & (t["metric"] == "flag")].iloc[0]
    assert flag["mean"] == pytest.approx(2 / 3)
    assert str(t["a"].dtype) == "Int64"

    chosen = aggregate_runs(df, axes=["a"], metrics=["x", "missing"], point_order=[p1, p2])
    missing = chosen[chosen["metric"] == "missing"]
    assert list(missing["n"]) == [0, 0] and missing["mean"].isna().all()


def test_axis_series_types():
    assert str(axis_series([1, None, 3]).dtype) == "Int64"
    assert str(axis_series([1, 2.5]).dtype) == "float64"
    assert str(axis_series([True, False]).dtype) == "boolean"
    assert list(axis_series([{"b": 1, "a": 2}, [1]])) == ['{"a":2,"b":1}', "[1]"]
    assert list(axis_series(["red", 5])) == ['"red"', "5"]


def test_to_wide_one_row_per_point():
    p1, p2 = '{"a":1}', '{"a":2}'
    t = aggregate_runs(_raw({p1: [1.0, 2.0, 3.0], p2: [4.0, 6.0]}), axes=["a"], metrics=["x"], point_order=[p1, p2])
    w = to_wide(t, ["a"])
    assert list(w.columns) == ["a", "x:mean", "x:std", "x:n", "x:ci95_low", "x:ci95_high", "x:ci95_half_width"]
    assert list(w["x:mean"]) == [2.0, 5.0]


@pytest.fixture(scope="module")
def finished_store(tmp_path_factory) -> ResultStore:
    sweep = Sweep(
        fake.base_scenario(),
        grid={MAX_TH: [5, 10], "topology.senders": [2, 4, 8]},
        replications=4,
        master_seed=3,
        metrics=["queue.bottleneck.mean_queue_packets", "jain_index", "events"],
    )
    store_dir = tmp_path_factory.mktemp("agg") / "store"
    run_sweep(sweep, store_dir, run_fn=fake.run, workers=1, engine_version="test")
    return ResultStore(store_dir)


def test_store_aggregate_matches_manual_computation(finished_store):
    runs = finished_store.runs(status="ok")
    table = finished_store.aggregate()
    assert len(table) == 6 * 3
    assert list(table.columns[:2]) == [MAX_TH, "topology.senders"]
    sel = runs[(runs[MAX_TH] == 10) & (runs["topology.senders"] == 4)]["jain_index"].to_numpy()
    row = table[(table[MAX_TH] == 10) & (table["topology.senders"] == 4) & (table["metric"] == "jain_index")].iloc[0]
    assert row["n"] == 4 == len(sel)
    assert row["mean"] == pytest.approx(sel.mean(), rel=1e-14)
    assert row["std"] == pytest.approx(sel.std(ddof=1), rel=1e-12)
    from scipy import stats

    assert row["ci95_half_width"] == pytest.approx(stats.t.ppf(0.975, 3) * sel.std(ddof=1) / 2.0, rel=1e-12)


@pytest.mark.parametrize("wide", [False, True])
def test_export_parquet_readable_by_pandas_polars_duckdb(finished_store, tmp_path, wide):
    import duckdb
    import polars as pl

    path = finished_store.export(tmp_path / "agg.parquet", wide=wide)
    expected = finished_store.aggregate()
    if wide:
        expected = to_wide(expected, [MAX_TH, "topology.senders"])
    pdf = pd.read_parquet(path)
    assert len(pdf) == len(expected) and list(pdf.columns) == list(expected.columns)
    pldf = pl.read_parquet(path)
    assert pldf.shape == pdf.shape and pldf.columns == list(pdf.columns)
    con = duckdb.connect()
    n = con.execute(f"SELECT count(*) FROM read_parquet('{path}')").fetchone()[0]
    assert n == len(expected)
    if not wide:
        duck = con.execute(
            f"""SELECT "{MAX_TH}", "topology.senders", mean, ci95_low FROM read_parquet('{path}')
                WHERE metric = 'events' ORDER BY 1, 2"""
        ).fetchall()
        exp = expected[expected["metric"] == "events"].sort_values([MAX_TH, "topology.senders"])
        assert [r[2] for r in duck] == pytest.approx(list(exp["mean"]))
        assert pl.read_parquet(path).filter(pl.col("metric") == "events")["n"].to_list() == [4] * 6
        np.testing.assert_allclose(pdf["mean"].to_numpy(), expected["mean"].to_numpy())


def test_export_csv_and_format_inference(finished_store, tmp_path):
    import duckdb
    import polars as pl

    csv = finished_store.export(tmp_path / "agg.csv")
    back = pd.read_csv(csv)
    assert len(back) == 18 and "ci95_high" in back.columns
    assert pl.read_csv(csv).height == 18
    assert duckdb.connect().execute(f"SELECT count(*) FROM read_csv_auto('{csv}')").fetchall()[0][0] == 18
    assert finished_store.export(tmp_path / "noext", format="csv").suffix == ".csv"
    with pytest.raises(ValueError, match="unknown export format"):
        export_table(pd.DataFrame(), tmp_path / "x.xlsx")
