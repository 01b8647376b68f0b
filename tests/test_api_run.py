"""aqmlab.run and Result: frames, columns, summary contract, determinism, export."""

from __future__ import annotations

import json
import math
from pathlib import Path

import aqmlab
import pandas as pd
import pytest
from _aqmlab_scenarios import UDP_DUMBBELL, UDP_TOML, scenario
from aqmlab.result import RUN_KEYS, TIMING_KEYS

QUEUE_COLUMNS = [
    "queue", "name", "arrivals", "departures", "early_drops", "forced_drops", "drops", "marks", "link_losses", "down_drops",
    "backlog_at_start", "backlog_at_end", "loss_rate", "mean_queue_packets", "mean_queue_bytes",
    "mean_delay_ms", "mean_wait_ms", "p50_delay_ms", "p95_delay_ms", "p99_delay_ms", "max_delay_ms",
    "utilization", "throughput_bps",
]  # fmt: skip
FLOW_COLUMNS = [
    "flow", "group", "kind", "src", "dst", "packets_sent", "packets_received", "retransmissions",
    "timeouts", "fast_recoveries", "ecn_reductions", "spurious_retransmissions", "tail_loss_probes",
    "max_transmissions_of_a_segment", "rto_backoffs", "time_in_recovery_s", "drops", "marks_received",
    "goodput_bps",
    "throughput_bps", "loss_rate", "mean_rtt_ms", "mean_delay_ms", "completion_time_s",
]  # fmt: skip
SUMMARY_FLOW_COLUMNS = [
    "goodput_bps", "throughput_bps", "loss_rate", "mean_rtt_ms", "mean_delay_ms", "retransmissions", "timeouts", "drops",
]  # fmt: skip


@pytest.fixture(scope="module")
def result() -> aqmlab.Result:
    return aqmlab.run(UDP_DUMBBELL, seed=3)


def test_frames_have_documented_columns(result: aqmlab.Result) -> None:
    assert list(result.queues.columns) == QUEUE_COLUMNS
    assert list(result.flows.columns) == FLOW_COLUMNS
    assert list(result.timeseries.columns) == ["time_s", "source", "variable", "value"]
    assert len(result.flows) == 2
    assert "bottleneck" in set(result.queues["queue"])
    assert len(result.timeseries) > 0
    assert set(result.timeseries["source"]) >= {"bottleneck"}
    # NaN (e.g. RTT of UDP flows) is a float column, not objects
    assert result.flows["mean_rtt_ms"].dtype == float
    assert result.flows["mean_rtt_ms"].isna().all()


def test_run_level_figures(result: aqmlab.Result) -> None:
    assert result.events > 0
    assert result.wall_time_s > 0
    assert result.events_per_second > 0
    assert 0 < result.jain_index <= 1
    assert result.conserved is True
    assert result.seed == 3
    assert result.raw["name"] == "udp-dumbbell"
    q = result.queue("bottleneck")
    assert isinstance(q, pd.Series)
    assert q["arrivals"] > 0 and q["drops"] > 0
    with pytest.raises(KeyError, match="no queue named"):
        result.queue("nope")


def test_summary_contract(result: aqmlab.Result) -> None:
    s = result.summary
    for col in QUEUE_COLUMNS[2:]:
        for name in result.queues["queue"]:
            assert f"queue.{name}.{col}" in s
    for col in SUMMARY_FLOW_COLUMNS:
        assert f"flows.{col}.mean" in s and f"flows.{col}.sum" in s
    for key in RUN_KEYS:
        assert key in s
    assert all(isinstance(v, (int, float, str, bool)) for v in s.values())
    assert s["flows.goodput_bps.sum"] == pytest.approx(result.flows["goodput_bps"].sum())
    assert s["queue.bottleneck.drops"] == int(result.queue()["drops"])
    assert math.isnan(s["flows.mean_rtt_ms.mean"])
    # no other key shapes
    for k in s:
        assert k.startswith(("queue.", "flows.", "group.")) or k in {*RUN_KEYS, *TIMING_KEYS}


def test_timings_split_the_run_and_peak_memory_is_reported(result: aqmlab.Result) -> None:
    t = result.timings
    assert set(t) == {"setup_s", "loop_s", "collect_s"}
    assert all(v >= 0 for v in t.values())
    assert t["loop_s"] == result.wall_time_s
    assert result.summary["setup_s"] == t["setup_s"]
    # Linux reports VmHWM: at least the engine's own tables are resident.
    assert result.peak_rss_bytes is not None and result.peak_rss_bytes > 1 << 20


def test_tables_cross_as_arrow_and_reach_polars(result: aqmlab.Result) -> None:
    flows = result.to_arrow("flows")
    assert flows.num_rows == len(result.flows) == result.n_flows
    assert str(flows.schema.field("packets_sent").type) == "int64"
    ts = result.to_arrow("timeseries")
    assert str(ts.schema.field("source").type).startswith("dictionary")
    pl = pytest.importorskip("polars")
    df = result.to_polars("queues")
    assert isinstance(df, pl.DataFrame)
    assert df["drops"].to_list() == result.queues["drops"].tolist()
    with pytest.raises(KeyError, match="tables: queues, flows, groups, timeseries"):
        result.to_arrow("links")


def test_the_series_frame_shares_the_engines_buffers() -> None:
    import numpy as np
    from aqmlab.result import pa_record_batch

    s = scenario(sample_interval="10ms")
    r = aqmlab.run(s, seed=1)
    ts = r.timeseries
    batch = pa_record_batch(r.raw["timeseries"])
    assert len(ts) == batch.num_rows > 0
    # time and value are the engine's buffers, not copies; the names are Categorical codes.
    assert np.shares_memory(ts["value"].to_numpy(), batch.column(3).to_numpy())
    assert np.shares_memory(ts["time_s"].to_numpy(), batch.column(0).to_numpy())
    assert ts["source"].dtype == "category" and ts["variable"].dtype == "category"
    assert ts["source"].astype(str).tolist() == batch.column(1).to_pylist()


def test_same_seed_identical_different_seed_different() -> None:
    a, b, c = (aqmlab.run(UDP_DUMBBELL, seed=s) for s in (7, 7, 8))
    pd.testing.assert_frame_equal(a.queues, b.queues)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.timeseries, b.timeseries)
    assert not a.queues.equals(c.queues)
    assert not a.flows.equals(c.flows)


def test_seed_defaults_to_scenario_field_then_one() -> None:
    assert aqmlab.run(UDP_DUMBBELL).seed == 1
    s = scenario(seed=5)
    r = aqmlab.run(s)
    assert r.seed == 5
    pd.testing.assert_frame_equal(r.flows, aqmlab.run(UDP_DUMBBELL, seed=5).flows)


def test_scenario_sources(tmp_path: Path) -> None:
    toml_file = tmp_path / "s.toml"
    toml_file.write_text(UDP_TOML)
    json_file = tmp_path / "s.json"
    json_file.write_text(json.dumps(aqmlab.load_scenario(UDP_TOML)))
    from_text = aqmlab.run(UDP_TOML, seed=2)
    for src in (toml_file, str(toml_file), json_file, aqmlab.load_scenario(toml_file)):
        pd.testing.assert_frame_equal(aqmlab.run(src, seed=2).queues, from_text.queues)
    with pytest.raises(FileNotFoundError, match="missing.toml"):
        aqmlab.load_scenario(tmp_path / "missing.toml")
    with pytest.raises(FileNotFoundError):
        aqmlab.run(str(tmp_path / "missing.toml"))


def test_load_scenario_does_not_alias_dicts() -> None:
    s = aqmlab.load_scenario(UDP_DUMBBELL)
    s["topology"]["senders"] = 99
    assert UDP_DUMBBELL["topology"]["senders"] == 2


def test_export(result: aqmlab.Result, tmp_path: Path) -> None:
    result.to_parquet(tmp_path / "pq")
    result.to_csv(tmp_path / "csv")
    for d, ext in ((tmp_path / "pq", "parquet"), (tmp_path / "csv", "csv")):
        for table in ("queues", "flows", "timeseries"):
            assert (d / f"{table}.{ext}").is_file()
        summary = json.loads((d / "summary.json").read_text())
        assert summary["seed"] == 3
        assert summary["summary"]["events"] == result.events
    back = pd.read_parquet(tmp_path / "pq" / "queues.parquet")
    assert list(back.columns) == QUEUE_COLUMNS
    assert back["arrivals"].tolist() == result.queues["arrivals"].tolist()


def test_progress_callback_and_cancel() -> None:
    seen: list[float] = []
    aqmlab.run(scenario(duration="200s"), progress=seen.append)
    assert seen and seen[-1] == 1.0 and all(0 <= f <= 1 for f in seen)
    assert seen == sorted(seen)
    with pytest.raises(KeyboardInterrupt):
        aqmlab.run(scenario(duration="200s"), progress=lambda f: False)


def test_progress_exception_propagates() -> None:
    def boom(f: float) -> None:
        raise ZeroDivisionError("from progress")

    with pytest.raises(ZeroDivisionError, match="from progress"):
        aqmlab.run(scenario(duration="200s"), progress=boom)


def test_aqms_registry_frame() -> None:
    df = aqmlab.aqms()
    for col in ("name", "title", "source", "ecn", "params", "implemented"):
        assert col in df.columns
    assert {"droptail", "red"} <= set(df["name"])
    red = df.set_index("name").loc["red"]
    assert any(p["name"] == "max_p" for p in red["params"])
    assert bool(df.set_index("name").loc["droptail", "implemented"])


def test_version() -> None:
    assert isinstance(aqmlab.__version__, str) and aqmlab.__version__.count(".") == 2


def test_threads_run_in_parallel_and_deterministically() -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda s: aqmlab.run(UDP_DUMBBELL, seed=s), [1, 2, 1, 2]))
    pd.testing.assert_frame_equal(results[0].flows, results[2].flows)
    pd.testing.assert_frame_equal(results[1].flows, results[3].flows)


def test_the_queue_table_names_its_queues_in_queue_as_every_table_does() -> None:
    """Issue 35: the queue table's column was `name` where queue_delays says `queue`; `name`
    stays, the same text, for one release (deprecated), and neither is a summary key."""
    from _aqmlab_scenarios import UDP_DUMBBELL

    r = aqmlab.run(UDP_DUMBBELL, seed=1)
    q = r.queues
    assert q.columns[0] == "queue" and (q["queue"] == q["name"]).all()
    assert set(r.queue_delays["queue"]) <= set(q["queue"])
    assert r.queue("bottleneck")["queue"] == "bottleneck"
    assert r.to_arrow("queues").schema.field("queue").metadata is None, "a text column has no unit"
    assert not [k for k in r.summary if k.endswith((".queue", ".name"))]
    # a result stored before: `name` alone
    before = r.to_arrow("queues").drop_columns(["queue"]).combine_chunks().to_batches()[0]

    class Stored:  # a batch as a stored result hands it over: the Arrow C data interface
        def __arrow_c_array__(self, requested_schema: object = None) -> object:
            return before.__arrow_c_array__(requested_schema)

    old = aqmlab.Result({**r.raw, "queues": Stored()})
    assert old.queues.columns[0] == "queue" and old.queue("bottleneck")["arrivals"] == r.queue("bottleneck")["arrivals"]
    assert old.summary == r.summary
