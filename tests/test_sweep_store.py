"""The results store: keys, atomic run files, manifest robustness."""

from __future__ import annotations

import json
import os

import pyarrow.parquet as pq
import pytest

from aqmlab.sweep import ResultStore, RunRecord, run_key
from aqmlab.sweep.keys import canonical_json, scenario_id


def _record(key: str, status: str = "ok", **metrics) -> RunRecord:
    return RunRecord(
        key=key, point_id="p", point={"a.b": 1}, replication=0, seed=42, status=status,
        engine_version="test", scenario_id="s", scenario_json='{"a":{"b":1}}', run_time_s=0.5,
        error=None if status == "ok" else "ValueError: boom", traceback=None if status == "ok" else "Traceback...",
        metrics=metrics,
    )


def test_run_key_covers_scenario_seed_and_engine_version():
    scen = {"b": [1, 2], "a": {"y": 1, "x": 2.5}}
    same_order_shuffled = {"a": {"x": 2.5, "y": 1}, "b": [1, 2]}
    k = run_key(scen, 1, "0.1.0")
    assert k == run_key(same_order_shuffled, 1, "0.1.0") and len(k) == 64
    assert k != run_key(scen, 2, "0.1.0")
    assert k != run_key(scen, 1, "0.2.0")
    assert k != run_key({**scen, "b": [2, 1]}, 1, "0.1.0")
    assert scenario_id(scen) == scenario_id(same_order_shuffled)
    assert canonical_json(scen) == '{"a":{"x":2.5,"y":1},"b":[1,2]}'
    with pytest.raises(ValueError):
        canonical_json({"x": float("inf")})


def test_write_run_is_atomic_and_indexed(tmp_path):
    store = ResultStore(tmp_path / "s")
    path = store.write_run(_record("ab" + "0" * 62, x=1.5, events=10))
    assert path == store.run_file("ab" + "0" * 62) and path.exists()
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    row = pq.read_table(path).to_pylist()[0]
    assert row["x"] == 1.5 and row["events"] == 10 and row["status"] == "ok" and row["seed"] == 42
    lines = store.manifest_path.read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["point"] == {"a.b": 1}
    assert store.index()["ab" + "0" * 62]["status"] == "ok"


def test_metric_names_clashing_with_metadata_are_prefixed(tmp_path):
    store = ResultStore(tmp_path)
    store.write_run(_record("k1", seed=7, status_code=1))
    runs = store.runs()
    assert runs.loc[0, "seed"] == 42 and runs.loc[0, "metric.seed"] == 7
    assert store.aggregate(["seed"], axes=["a.b"])["mean"].tolist() == [7.0]


def test_torn_manifest_line_and_missing_entries_are_repaired(tmp_path):
    store = ResultStore(tmp_path)
    store.write_run(_record("k1", x=1.0))
    with open(store.manifest_path, "a") as fh:
        fh.write('{"key": "k2", "stat')  # a writer killed mid-line
    store2 = ResultStore(tmp_path)  # fresh process view
    store2.write_run(_record("k3", x=3.0))
    # A run file whose manifest line never got written (killed between the two writes):
    other = ResultStore(tmp_path / "other")
    other.write_run(_record("k4", status="failed"))
    target = store.run_file("k4")
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(other.run_file("k4"), target)
    index = ResultStore(tmp_path).index()
    assert set(index) == {"k1", "k3", "k4"}
    assert index["k4"]["status"] == "failed" and index["k4"]["error"] == "ValueError: boom"
    lines = store.manifest_path.read_text().splitlines()
    assert sum(1 for ln in lines if ln.startswith('{"key": "k2"')) == 1  # torn line kept apart, ignored
    assert any('"k4"' in ln for ln in lines)  # re-indexed entry appended


def test_manifest_entries_without_files_are_ignored_and_rebuild(tmp_path):
    store = ResultStore(tmp_path)
    store.write_run(_record("k1", x=1.0))
    store.write_run(_record("k2", status="failed"))
    store.run_file("k1").unlink()
    assert set(store.index()) == {"k2"}
    store.manifest_path.write_text("garbage\n")
    assert store.rebuild_manifest() == 1
    assert [json.loads(ln)["key"] for ln in store.manifest_path.read_text().splitlines()] == ["k2"]


def test_overwrite_failed_with_ok_and_runs_frame(tmp_path):
    store = ResultStore(tmp_path)
    store.write_run(_record("k1", status="failed"))
    assert store.runs().loc[0, "status"] == "failed"  # fills the read cache
    store.write_run(_record("k1", x=2.0))  # a retry replaces the file: the cache must notice
    assert store.index()["k1"]["status"] == "ok"
    store.compact_manifest()
    assert len(store.manifest_path.read_text().splitlines()) == 1
    runs = store.runs()
    assert len(runs) == 1 and runs.loc[0, "x"] == 2.0 and runs.loc[0, "a.b"] == 1


def test_open_missing_store_without_create(tmp_path):
    with pytest.raises(FileNotFoundError):
        ResultStore(tmp_path / "nope", create=False)
    assert ResultStore(tmp_path / "new").runs().empty


def test_read_cache_is_an_accelerator_only(tmp_path):
    store = ResultStore(tmp_path)
    for i in range(5):
        store.write_run(_record(f"k{i}", x=float(i)))
    first = store.runs()
    assert (tmp_path / "cache" / "runs.parquet").exists()
    store.write_run(_record("k9", x=9.0))
    store.run_file("k0").unlink()
    again = store.runs()
    assert sorted(again["key"]) == ["k1", "k2", "k3", "k4", "k9"]
    (tmp_path / "cache" / "runs.parquet").write_bytes(b"corrupt")
    assert sorted(store.runs()["key"]) == sorted(again["key"])
    assert list(first.columns) == list(again.columns)
    assert "_file_signature" not in again.columns
