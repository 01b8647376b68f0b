"""Issue 27, item 6: units in every table's schema, one flow id across the tables, and the
summary document that summary.json and `aqmlab run --json` both hold."""

from __future__ import annotations

import json
from pathlib import Path

import aqmlab
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from aqmlab.result import TABLES

SCENARIO = """
duration = "3s"
warmup = "1s"
sample_interval = "200ms"
sample_flows = true
[topology]
kind = "dumbbell"
senders = 2
bottleneck = { rate = "10Mbps", delay = "10ms", queue = { limit = 50, aqm = "pie" } }
access = { rate = "100Mbps", delay = "1ms" }
[[flows]]
kind = "tcp"
from = "senders"
to = "receivers"
[[flows]]
kind = "cbr"
from = "s1"
to = "d1"
rate = "1Mbps"
packet_size = "1000B"
[[flows]]
kind = "workload"
from = "s0"
to = "d0"
rate = 5
sizes = { dist = "constant", size = "20KB" }
[[flows]]
kind = "ping"
from = "s1"
to = "d1"
"""


@pytest.fixture(scope="module")
def result() -> aqmlab.Result:
    return aqmlab.run(SCENARIO, seed=2)


def test_every_numeric_column_has_a_unit_in_the_schema(result: aqmlab.Result, tmp_path: Path) -> None:
    result.to_parquet(tmp_path)
    for table in TABLES:
        assert result.to_arrow(table).num_rows > 0, f"{table}: the scenario fills every table"
        schema = result.to_arrow(table).schema
        on_disk = pq.read_schema(tmp_path / f"{table}.parquet")
        for field in schema:
            numeric = pa.types.is_integer(field.type) or pa.types.is_floating(field.type)
            if not numeric:
                continue
            assert field.metadata and field.metadata.get(b"unit"), f"{table}.{field.name}"
            assert on_disk.field(field.name).metadata[b"unit"] == field.metadata[b"unit"]
    flows = result.to_arrow("flows").schema
    assert flows.field("retransmissions").metadata == {b"unit": b"packets"}
    assert flows.field("goodput_bps").metadata == {b"unit": b"bit/s"}
    assert result.to_arrow("queues").schema.field("loss_rate").metadata == {b"unit": b"fraction"}


def test_a_flow_has_one_id_in_every_table(result: aqmlab.Result) -> None:
    ts = result.timeseries
    ids = result.flows["flow"].tolist()
    assert ids == list(range(len(ids)))
    sources = set(ts["source"].astype(str))
    for fid, kind in zip(ids, result.flows["kind"], strict=True):
        assert f"flow{fid}" in sources
        has_cwnd = ((ts["source"] == f"flow{fid}") & (ts["variable"] == "cwnd")).any()
        assert has_cwnd == (kind in ("tcp", "workload", "tcp_rr")), kind
    assert len(result.fct) and set(result.fct["flow"]) <= set(ids)
    assert set(result.fct["flow"]) == set(result.flows.loc[result.flows["kind"] == "workload", "flow"])
    assert len(result.latency) and set(result.latency["flow"]) <= set(ids)


def test_summary_json_is_the_summary_document(result: aqmlab.Result, tmp_path: Path) -> None:
    result.to_csv(tmp_path)
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert doc == json.loads(json.dumps(result.summary_document()))
    assert set(doc) == {"name", "seed", "duration_s", "warmup_s", "summary"}
    assert doc["summary"]["queue.bottleneck.arrivals"] == result.summary["queue.bottleneck.arrivals"]
