"""The results store: keys, atomic run files, index robustness."""

from __future__ import annotations

import hashlib
import os

import numpy as np
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest
from aqmlab.sweep import ResultStore, RunRecord, run_key
from aqmlab.sweep.definition import copy_tree
from aqmlab.sweep.keys import canonical_json, run_key_of_json, scenario_id


def _record(key: str, status: str = "ok", **metrics) -> RunRecord:
    return RunRecord(
        key=key,
        point_id="p",
        point={"a.b": 1},
        replication=0,
        seed=42,
        status=status,
        engine_version="test",
        scenario_id="s",
        scenario_json='{"a":{"b":1}}',
        run_time_s=0.5,
        error=None if status == "ok" else "ValueError: boom",
        traceback=None if status == "ok" else "Traceback...",
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


@pytest.mark.parametrize(
    "bad",
    [
        {"x": float("nan")},
        {"a": [1.0, {"b": float("-inf")}]},
        {"a": (1, float("inf"))},
        {"a": np.float64("nan")},
        {"a": np.float32("inf")},
        {"a": np.array([1.0, np.nan])},
    ],
)
def test_canonical_json_refuses_non_finite_floats_wherever_they_sit(bad):
    with pytest.raises(ValueError, match="non-finite float"):
        canonical_json(bad)


def test_run_key_of_json_is_run_key_from_the_scenario_text():
    # The planner serializes a point's scenario once and keys each replication from the text.
    scen = {"name": "é-run", "topology": {"kind": "dumbbell", "senders": 3}, "x": [0.1, 2, None, True]}
    for seed in (0, 1, 2**62 + 7):
        for version in ("0.1.0", "dev+reproduce-2", 'quo"te'):
            assert run_key_of_json(canonical_json(scen), seed, version) == run_key(scen, seed, version)


def test_copy_tree_is_an_independent_equal_copy():
    scen = {"a": [1, {"b": (2.5, "s")}], "n": None, "arr": np.arange(3)}
    c = copy_tree(scen)
    assert canonical_json(c) == canonical_json(scen)
    c["a"][1]["b"] = 0
    c["arr"][0] = 9
    assert scen["a"][1]["b"] == (2.5, "s") and scen["arr"][0] == 0


def test_write_run_is_atomic_and_indexed(tmp_path):
    store = ResultStore(tmp_path / "s")
    path = store.write_run(_record("ab" + "0" * 62, x=1.5, events=10))
    assert path == store.run_file("ab" + "0" * 62) and path.exists()
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    assert path.suffix == ".arrow"
    row = ipc.open_file(path).read_all().to_pylist()[0]
    assert row["x"] == 1.5 and row["events"] == 10 and row["status"] == "ok" and row["seed"] == 42
    entry = store.db.runs()["ab" + "0" * 62]
    assert entry["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert entry["size"] == path.stat().st_size
    assert store.index()["ab" + "0" * 62]["point"] == {"a.b": 1}


def test_parquet_run_files_of_older_stores_are_read_and_replaced_by_a_rerun(tmp_path):
    # Stores written before run files became Arrow IPC hold one Parquet file per run.
    store = ResultStore(tmp_path / "s")
    old = [_record(f"{i:02d}" + "0" * 62, x=float(i)) for i in range(3)]
    for rec in old:
        path = store.write_run(rec)
        legacy = path.with_suffix(".parquet")
        pq.write_table(rec.to_table(), legacy)
        path.unlink()
    store.db.delete_runs([r.key for r in old])  # as if indexed from the files alone
    assert sorted(store.runs()["x"]) == [0.0, 1.0, 2.0]
    assert store.verify() == []
    assert all(store.run_file(r.key).with_suffix(".parquet").exists() for r in old)
    store.write_run(_record(old[1].key, x=10.0))
    assert not store.run_file(old[1].key).with_suffix(".parquet").exists()
    assert sorted(store.runs()["x"]) == [0.0, 2.0, 10.0]


def test_metric_names_clashing_with_metadata_are_prefixed(tmp_path):
    store = ResultStore(tmp_path)
    store.write_run(_record("k1", seed=7, status_code=1))
    runs = store.runs()
    assert runs.loc[0, "seed"] == 42 and runs.loc[0, "metric.seed"] == 7
    assert store.aggregate(["seed"], axes=["a.b"])["mean"].tolist() == [7.0]


def test_files_missing_from_the_index_are_indexed_and_rows_without_files_dropped(tmp_path):
    store = ResultStore(tmp_path)
    store.write_run(_record("k1", x=1.0))
    store.write_run(_record("k2", status="failed"))
    # A run file whose index row never got written (killed between the two writes):
    other = ResultStore(tmp_path / "other")
    other.write_run(_record("k4", status="failed"))
    target = store.run_file("k4")
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(other.run_file("k4"), target)
    store.run_file("k1").unlink()
    index = ResultStore(tmp_path).index()
    assert set(index) == {"k2", "k4"}
    assert index["k4"]["status"] == "failed" and index["k4"]["error"] == "ValueError: boom"
    assert store.db.runs()["k4"]["sha256"] == hashlib.sha256(target.read_bytes()).hexdigest()
    assert "k1" not in store.db.runs()
    assert store.rebuild_index() == 2


def test_overwrite_failed_with_ok_and_runs_frame(tmp_path):
    store = ResultStore(tmp_path)
    store.write_run(_record("k1", status="failed"))
    assert store.runs().loc[0, "status"] == "failed"  # fills the read cache
    store.write_run(_record("k1", x=2.0))  # a retry replaces the file: the cache must notice
    assert store.index()["k1"]["status"] == "ok"
    assert len(store.manifest()) == 1
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
