"""Sweep definitions: axes, dotted paths, validation errors, seeds, sweep files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

from aqmlab.sweep import Sweep, SweepDefinitionError, derive_seed, get_path, set_path  # noqa: E402
from aqmlab.sweep.paths import PathError  # noqa: E402
from sweep_fake_engine import base_scenario  # noqa: E402

MAX_TH = "bottleneck.queue.aqm.max_th"
TIMER = "bottleneck.queue.aqm.timer_ms"


# ------------------------------------------------------------------ paths
def test_get_and_set_dotted_paths_with_list_indices():
    s = base_scenario()
    assert get_path(s, MAX_TH) == 5
    assert get_path(s, "flows.1.kind") == "udp"
    set_path(s, "flows.0.count", 7)
    set_path(s, "topology.rtt_ms.1", 80)
    assert s["flows"][0]["count"] == 7 and s["topology"]["rtt_ms"] == [20, 80]


@pytest.mark.parametrize(
    "path, fragment",
    [
        ("topology.sendrs", "no key 'sendrs'"),
        ("flows.5.count", "index 5 out of range"),
        ("flows.x", "must be an integer index"),
        ("duration_s.x", "is a float"),
        ("a..b", "empty segment"),
    ],
)
def test_bad_paths_explain_the_failing_segment(path, fragment):
    with pytest.raises(PathError, match=fragment):
        get_path(base_scenario(), path)


def test_set_path_refuses_to_create_unless_asked():
    s = base_scenario()
    with pytest.raises(PathError):
        set_path(s, "bottleneck.queue.aqm.theta", 0.1)
    set_path(s, "bottleneck.queue.aqm.theta", 0.1, create=True)
    assert s["bottleneck"]["queue"]["aqm"]["theta"] == 0.1


@settings(max_examples=50, deadline=None)
@given(value=st.one_of(st.integers(), st.text(), st.booleans(), st.floats(allow_nan=False)))
def test_set_then_get_roundtrip(value):
    s = base_scenario()
    set_path(s, "flows.1.count", value)
    assert get_path(s, "flows.1.count") == value


# ------------------------------------------------------------------ axes
def test_grid_is_a_cartesian_product_first_axis_slowest():
    sweep = Sweep(base_scenario(), grid={MAX_TH: [5, 10, 15, 20], TIMER: list(range(1, 17))}, replications=2)
    points = sweep.expand_points()
    assert len(points) == 64 and len(sweep) == 128  # Orange's Table 2 shape
    assert points[0] == {MAX_TH: 5, TIMER: 1} and points[1] == {MAX_TH: 5, TIMER: 2}
    assert points[16] == {MAX_TH: 10, TIMER: 1}
    assert sweep.axes == [MAX_TH, TIMER]


def test_zip_points_and_grid_combine_as_a_product():
    # Hybrid RED's shape: (theta, xi) pairs x 2 topologies.
    pairs = [{"bottleneck.queue.aqm.min_th": t, MAX_TH: x} for t, x in [(1, 5), (2, 8), (3, 12)]]
    sweep = Sweep(base_scenario(), grid={"topology.senders": [4, 16]}, points=pairs, replications=3)
    assert sweep.n_points == 6 and len(sweep.jobs()) == 18
    zipped = Sweep(base_scenario(), zip={"bottleneck.queue.aqm.min_th": [1, 2, 3], MAX_TH: [5, 8, 12]})
    assert [p[MAX_TH] for p in zipped.expand_points()] == [5, 8, 12]
    both = Sweep(
        base_scenario(), grid={"topology.senders": [4, 16]}, zip={"bottleneck.queue.aqm.min_th": [1, 2], MAX_TH: [5, 8]}
    )
    assert both.n_points == 4


def test_jobs_apply_values_without_touching_base():
    base = base_scenario()
    sweep = Sweep(base, grid={MAX_TH: [7, 9], "flows.0.count": [3]}, replications=2)
    jobs = sweep.jobs()
    assert [(j.point[MAX_TH], j.replication) for j in jobs] == [(7, 0), (7, 1), (9, 0), (9, 1)]
    point, rep, seed, scenario = jobs[2]
    assert scenario["bottleneck"]["queue"]["aqm"]["max_th"] == 9 and scenario["flows"][0]["count"] == 3
    assert base["bottleneck"]["queue"]["aqm"]["max_th"] == 5  # base untouched
    jobs[0].scenario["duration_s"] = -1
    assert jobs[1].scenario["duration_s"] == 10.0  # scenarios are independent copies


def test_whole_subtable_as_axis_value():
    aqms = [{"type": "red", "min_th": 2, "max_th": 5}, {"type": "pie", "target_ms": 15}]
    sweep = Sweep(base_scenario(), grid={"bottleneck.queue.aqm": aqms})
    assert [j.scenario["bottleneck"]["queue"]["aqm"]["type"] for j in sweep.jobs()] == ["red", "pie"]


# ------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "kwargs, field, reason",
    [
        ({"grid": {"topology.sendrs": [1, 2]}}, "grid['topology.sendrs']", "sendrs"),
        ({"zip": {"topology.senders": [1, 2], MAX_TH: [5]}}, "zip", "equal length"),
        ({"points": [{MAX_TH: 5}, {"flows.9.count": 1}]}, "points[1]['flows.9.count']", "out of range"),
        ({"replications": 0}, "replications", ">= 1"),
        ({"replications": True}, "replications", "integer"),
        ({"master_seed": -1}, "master_seed", ">= 0"),
        ({"grid": {MAX_TH: []}}, f"grid[{MAX_TH!r}]", "at least one"),
        ({"grid": {MAX_TH: 5}}, f"grid[{MAX_TH!r}]", "list of values"),
        ({"grid": {MAX_TH: [5, 5]}}, f"grid[{MAX_TH!r}]", "duplicate"),
        ({"grid": {MAX_TH: [5]}, "zip": {MAX_TH: [1]}}, f"zip[{MAX_TH!r}]", "also varied"),
        ({"grid": {"bottleneck.queue.aqm": [{}], MAX_TH: [1]}}, f"grid[{MAX_TH!r}]", "overlaps"),
        ({"points": [{MAX_TH: 5}, {MAX_TH: 5}]}, "points", "duplicate point"),
        ({"metrics": "jain_index"}, "metrics", "list"),
        ({"metrics": []}, "metrics", "empty"),
        ({"run_fn": "no colon"}, "run_fn", "module:function"),
        ({"cost": "duration"}, "cost", "duration"),
        ({"grid": {MAX_TH: [float("nan")]}}, f"grid[{MAX_TH!r}]", "JSON"),
    ],
)
def test_validation_errors_name_the_field(kwargs, field, reason):
    with pytest.raises(SweepDefinitionError) as info:
        Sweep(base_scenario(), **kwargs)
    assert info.value.field == field
    assert field in str(info.value) and reason in str(info.value)


def test_strict_paths_off_allows_new_leaf_keys():
    sweep = Sweep(base_scenario(), grid={"bottleneck.queue.aqm.theta": [0.1, 0.2]}, strict_paths=False)
    assert sweep.jobs()[1].scenario["bottleneck"]["queue"]["aqm"]["theta"] == 0.2


# ------------------------------------------------------------------ seeds
def test_seeds_are_deterministic_distinct_and_63_bit():
    kw = dict(grid={MAX_TH: [5, 10, 15], TIMER: [1, 2]}, replications=5, master_seed=2024)
    seeds = [j.seed for j in Sweep(base_scenario(), **kw).jobs()]
    assert seeds == [j.seed for j in Sweep(base_scenario(), **kw).jobs()]
    assert len(set(seeds)) == len(seeds)  # distinct across points and replications
    assert all(0 <= s < 2**63 for s in seeds)
    other = [j.seed for j in Sweep(base_scenario(), **{**kw, "master_seed": 2025}).jobs()]
    assert not set(seeds) & set(other)


def test_seeds_do_not_depend_on_other_points_or_order():
    small = Sweep(base_scenario(), grid={MAX_TH: [5, 10]}, replications=3, master_seed=7)
    big = Sweep(base_scenario(), grid={MAX_TH: [20, 10, 5, 15]}, replications=3, master_seed=7)
    by_point = {(j.point[MAX_TH], j.replication): j.seed for j in big.jobs()}
    for j in small.jobs():
        assert by_point[(j.point[MAX_TH], j.replication)] == j.seed
    assert derive_seed(7, {MAX_TH: 5}, 2) == by_point[(5, 2)]


@settings(max_examples=30, deadline=None)
@given(master=st.integers(0, 2**64), reps=st.integers(1, 20))
def test_seed_property_distinct_per_replication(master, reps):
    seeds = {derive_seed(master, {"a": 1}, r) for r in range(reps)}
    assert len(seeds) == reps


# ------------------------------------------------------------- sweep files
def test_from_toml_with_inline_base_and_unquoted_dotted_axes(tmp_path):
    f = tmp_path / "orange.toml"
    f.write_text(
        """
replications = 2
master_seed = 11
metrics = ["jain_index"]
run_fn = "sweep_fake_engine:run"

[base]
duration_s = 1.0
topology = { senders = 2 }
bottleneck.queue.aqm = { type = "red", max_th = 5, timer_ms = 10 }

[grid]
"bottleneck.queue.aqm.max_th" = [5, 10]
bottleneck.queue.aqm.timer_ms = [1, 2, 3]
"""
    )
    sweep = Sweep.from_toml(f)
    assert sweep.name == "orange"
    assert sweep.axes == [MAX_TH, TIMER]
    assert len(sweep) == 12 and sweep.metrics == ["jain_index"] and sweep.run_fn == "sweep_fake_engine:run"
    json.dumps(sweep.to_dict())  # storable


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_base_file_is_relative_to_the_sweep_file(tmp_path, suffix):
    (tmp_path / "scen").mkdir()
    base = tmp_path / "scen" / f"base{suffix}"
    if suffix == ".json":
        base.write_text(json.dumps(base_scenario()))
    else:
        base.write_text("duration_s = 2.0\n[bottleneck.queue.aqm]\nmax_th = 5\n")
    sweep_dir = tmp_path / "sweeps"
    sweep_dir.mkdir()
    f = sweep_dir / "s.toml"
    f.write_text(f'base = "../scen/base{suffix}"\n[zip]\n"{MAX_TH}" = [1, 2]\n')
    sweep = Sweep.from_toml(f)
    assert [j.scenario["bottleneck"]["queue"]["aqm"]["max_th"] for j in sweep.jobs()] == [1, 2]
    assert sweep.base_source == str(base)


def test_sweep_file_points_and_errors(tmp_path):
    f = tmp_path / "hybrid.toml"
    f.write_text(
        f"""
base = {{ topology = {{ senders = 4 }}, bottleneck = {{ queue = {{ aqm = {{ min_th = 1, max_th = 2 }} }} }} }}
[grid]
"topology.senders" = [4, 16]
[[points]]
"bottleneck.queue.aqm.min_th" = 1
"{MAX_TH}" = 5
[[points]]
bottleneck.queue.aqm.min_th = 2
bottleneck.queue.aqm.max_th = 8
"""
    )
    sweep = Sweep.from_toml(f)
    assert sweep.n_points == 4
    assert sweep.expand_points()[1] == {"topology.senders": 4, "bottleneck.queue.aqm.min_th": 2, MAX_TH: 8}

    bad = tmp_path / "bad.toml"
    bad.write_text("replication = 3\n[base]\na = 1\n")
    with pytest.raises(SweepDefinitionError, match="'replication'.*unknown key"):
        Sweep.from_toml(bad)
    bad.write_text("[grid]\na = [1]\n")
    with pytest.raises(SweepDefinitionError, match="base: missing"):
        Sweep.from_toml(bad)
    bad.write_text('base = "nope.toml"\n')
    with pytest.raises(SweepDefinitionError, match="base: scenario file not found"):
        Sweep.from_toml(bad)
    bad.write_text("base = { a = 1 }\n[grid]\nb = [1]\n")
    with pytest.raises(SweepDefinitionError, match=r"grid\['b'\]: unknown path"):
        Sweep.from_toml(bad)


def test_cost_values_accept_duration_units():
    sweep = Sweep({**base_scenario(), "duration": "60s"}, grid={"duration": ["500ms", "2min", 30]}, cost="duration")
    assert [sweep.cost_of(j.scenario) for j in sweep.jobs()] == [0.5, 120.0, 30.0]
    assert Sweep(base_scenario(), cost=lambda s: s["duration_s"] * 2).cost_of(base_scenario()) == 20.0
