"""Issue 27, item 5: ``--set PATH=VALUE`` overrides (aqmlab.overrides) and the resolved
scenario (``Result.scenario``, ``aqmlab run --dry-run``)."""

from __future__ import annotations

import copy
import json
import string
from pathlib import Path
from typing import Any

import aqmlab
import pytest
import tomllib
from _aqmlab_scenarios import UDP_DUMBBELL, UDP_TOML
from aqmlab.cli import app
from aqmlab.overrides import split_override_path
from aqmlab.scenario import apply_overrides, packaged_scenarios, resolve_scenario, with_bottleneck_aqm
from aqmlab.toml_writer import dumps
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

runner = CliRunner()


def get(doc: Any, path: str) -> Any:
    node = doc
    for step in split_override_path(path):
        node = node[step]
    return node


# -- apply_overrides -----------------------------------------------------------------------------


def test_the_issues_examples_set_what_they_name() -> None:
    s = apply_overrides(
        UDP_DUMBBELL, ["topology.bottleneck.queue.aqm.max_p=0.2", "flows[0].count=50", "topology.bottleneck.rate=5Mbps"]
    )
    assert s["topology"]["bottleneck"]["queue"]["aqm"] == {"kind": "red", "max_p": 0.2}, "the AQM name became a table"
    assert s["flows"][0]["count"] == 50
    assert s["topology"]["bottleneck"]["rate"] == "5Mbps", "a unit needs no quotes"
    assert UDP_DUMBBELL["flows"][0].get("count") is None, "the original is not changed"
    # the issue's own spelling: the queue the result's queue table calls `bottleneck`
    alias = apply_overrides(UDP_DUMBBELL, ["queues.bottleneck.aqm.max_p=0.2", "queues.bottleneck_reverse.limit=7"])
    assert alias["topology"]["bottleneck"]["queue"]["aqm"]["max_p"] == 0.2
    assert alias["topology"]["bottleneck"]["reverse_queue"] == {"limit": 7}
    # the sweep axes' spelling of an index is the same path
    assert apply_overrides(UDP_DUMBBELL, ["flows.0.count=3"])["flows"][0]["count"] == 3


def test_values_are_toml_values() -> None:
    s = apply_overrides(
        UDP_DUMBBELL,
        [
            'name="a b"',
            "sample_flows=false",
            'topology.access.delay=["1ms", "2ms"]',
            'topology.bottleneck.queue.aqm={ kind = "pie", target = "15ms" }',
            "warmup=1.5",
        ],
    )
    assert s["name"] == "a b" and s["sample_flows"] is False and s["warmup"] == 1.5
    assert s["topology"]["access"]["delay"] == ["1ms", "2ms"]
    assert s["topology"]["bottleneck"]["queue"]["aqm"] == {"kind": "pie", "target": "15ms"}


@pytest.mark.parametrize(
    ("override", "path", "words"),
    [
        ("topology.senders.x=1", "topology.senders.x", "`topology.senders` is a number (2), not a table"),
        ("flows[3].count=1", "flows[3]", "index 3 out of range: `flows` has 1 entry"),
        ("flows.count=1", "flows.count", "`flows` is a list, not a table"),
        ("topology[0]=1", "topology[0]", "`topology` is a dict, not a list"),
        ("queues.bottlenek.limit=1", "queues.bottlenek.limit", "no queue named 'bottlenek'"),
        ("flows[0]..count=1", "flows[0]..count", "malformed path segment"),
        ("flows[x].count=1", "flows[x].count", "malformed path segment"),
        ("count", "--set", "expected PATH=VALUE"),
        ("=3", "--set", "empty path"),
        ('name="unterminated', "name", "not a TOML value"),
        # issue 35, J: Unicode's other digits are not indices ('²' was a ValueError out of
        # int(), '١' was read as flows[1])
        ("flows.\u00b2.count=1", "flows.\u00b2.count", "is not an index: a list index is written in ASCII digits"),
        ("flows.\u0661.count=1", "flows.\u0661.count", "is not an index"),
        ("flows.\uff10.count=1", "flows.\uff10.count", "is not an index"),
    ],
)
def test_paths_the_document_refuses_are_scenario_errors_naming_them(override: str, path: str, words: str) -> None:
    with pytest.raises(aqmlab.ScenarioError) as e:
        apply_overrides(UDP_DUMBBELL, [override])
    assert e.value.path == path, str(e.value)
    assert words in str(e.value)
    assert "\n" not in str(e.value)


def test_an_unknown_key_at_the_end_gets_the_schemas_error_under_its_path() -> None:
    for override, path, hint in [
        ("topology.bottleneck.queue.aqm.maxp=0.2", "topology.bottleneck.queue.aqm.maxp", "did you mean `max_p`"),
        ("flows[0].cont=5", "flows[0].cont", "did you mean `count`"),
        ("topology.bottleneck.delya=5ms", "topology.bottleneck.delya", "did you mean `delay`"),
    ]:
        s = apply_overrides(UDP_DUMBBELL, [override])
        with pytest.raises(aqmlab.ScenarioError) as e:
            aqmlab.run(s, seed=1)
        assert e.value.path == path and hint in str(e.value), str(e.value)


KEYS = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=8)
VALUES = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(max_size=20),
    st.lists(st.integers(min_value=0, max_value=1000), max_size=4),
)


@given(keys=st.lists(KEYS, min_size=1, max_size=4), value=VALUES)
def test_setting_then_reading_back_gives_the_value(keys: list[str], value: Any) -> None:
    """Any path of new keys (tables created on the way) and any TOML value, written as TOML."""
    path = ".".join(["extra", *keys])
    text = dumps({"v": value}).split("=", 1)[1].strip()
    s = apply_overrides(UDP_DUMBBELL, [f"{path}={text}"])
    assert get(s, path) == value
    if isinstance(value, float) and value == 0.0:
        assert str(get(s, path)) == str(value), "the sign of zero"


@given(index=st.integers(min_value=0, max_value=50), value=st.integers(min_value=0, max_value=10**6))
def test_an_index_sets_that_entry_or_is_out_of_range(index: int, value: int) -> None:
    doc = copy.deepcopy(UDP_DUMBBELL)
    doc["flows"] = [dict(doc["flows"][0]) for _ in range(3)]
    if index < 3:
        assert apply_overrides(doc, [f"flows[{index}].count={value}"])["flows"][index]["count"] == value
    else:
        with pytest.raises(aqmlab.ScenarioError) as e:
            apply_overrides(doc, [f"flows[{index}].count={value}"])
        assert e.value.path == f"flows[{index}]"


@given(override=st.text(max_size=40))
def test_any_override_text_applies_or_raises_a_scenario_error(override: str) -> None:
    """Never another exception: whatever the text, the document's shape decides."""
    try:
        apply_overrides(UDP_DUMBBELL, [override])
    except aqmlab.ScenarioError as e:
        assert e.path and "\n" not in e.path


# Issue 35, J: any Unicode in a path's segments, numerals above all (str.isdigit() took '²'
# and '١' for digits). Segments mix ASCII indices, keys and characters from every category.
NUMERALS = st.sampled_from(["\u00b2", "\u0661", "\u0966", "\uff11", "\u2167", "\u00bd", "\U0001d7d8", "1\u0661"])
SEGMENTS = st.one_of(
    st.integers(min_value=0, max_value=3).map(str),
    KEYS,
    NUMERALS,
    st.text(min_size=1, max_size=6),
    st.builds(lambda k, n: f"{k}[{n}]", KEYS, st.integers(min_value=0, max_value=3)),
)


@given(segments=st.lists(SEGMENTS, min_size=1, max_size=4), head=st.sampled_from(["flows", "extra", "topology"]))
def test_any_unicode_in_a_path_is_a_key_an_ascii_index_or_a_scenario_error(segments: list[str], head: str) -> None:
    path = ".".join([head, *segments])
    doc = copy.deepcopy(UDP_DUMBBELL)
    doc["flows"] = [dict(doc["flows"][0]) for _ in range(3)]
    try:
        steps = split_override_path(path)
    except aqmlab.ScenarioError as e:
        assert e.path and "\n" not in str(e)
        return
    written = [s.strip() for s in path.split(".")]
    for step in steps:
        if isinstance(step, int):
            assert any(w == str(step) or w.endswith(f"[{step}]") for w in written), (path, steps)
        else:
            assert not step.isnumeric(), f"{step!r} is a numeral taken for a key"
    try:
        apply_overrides(doc, [f"{path}=1"])
    except aqmlab.ScenarioError as e:
        assert e.path and "\n" not in str(e)


# -- the resolved scenario -----------------------------------------------------------------------


def test_result_scenario_is_the_resolved_scenario_and_reruns_identically() -> None:
    r = aqmlab.run(UDP_DUMBBELL, seed=4)
    s = r.scenario
    assert s == {**resolve_scenario(UDP_DUMBBELL), "seed": 4}, "resolved, with the run's seed"
    assert s["topology"]["bottleneck"]["queue"]["aqm"]["kind"] == "red"
    assert s["topology"]["bottleneck"]["queue"]["aqm"]["max_p"] == 0.1
    assert s["topology"]["receivers"] == 2 and s["topology"]["access"]["queue"]["limit"] == 1000
    assert tomllib.loads(dumps(s)) == s, "TOML-serializable"
    again = aqmlab.run(s)
    for table in ("queues", "flows", "groups", "timeseries"):
        assert getattr(again, table).equals(getattr(r, table)), table
    assert again.events == r.events


@pytest.mark.parametrize("name", sorted(packaged_scenarios()))
def test_packaged_scenarios_resolve_to_a_fixed_point_that_reads_back_from_toml(name: str) -> None:
    s = resolve_scenario(name)
    assert resolve_scenario(s) == s
    assert tomllib.loads(dumps(s)) == s


# -- the command line ----------------------------------------------------------------------------


@pytest.fixture
def udp_file(tmp_path: Path) -> Path:
    p = tmp_path / "udp.toml"
    p.write_text(UDP_TOML)
    return p


def test_dry_run_prints_the_resolved_scenario_as_toml_and_json(udp_file: Path) -> None:
    r = runner.invoke(app, ["run", str(udp_file), "--dry-run", "--set", "topology.senders=3", "--seed", "9"])
    assert r.exit_code == 0, r.output
    doc = tomllib.loads(r.stdout)
    assert doc["topology"]["senders"] == 3 and doc["topology"]["receivers"] == 3 and doc["seed"] == 9
    assert doc["topology"]["bottleneck"]["rate"] == "1Mbps" and doc["topology"]["bottleneck"]["delay"] == "10ms"
    j = runner.invoke(app, ["run", str(udp_file), "--dry-run", "--json", "--set", "topology.senders=3", "--seed", "9"])
    assert j.exit_code == 0, j.output
    assert json.loads(j.stdout) == doc


def test_run_with_set_equals_the_api_on_the_edited_scenario(udp_file: Path) -> None:
    r = runner.invoke(app, ["run", str(udp_file), "--json", "--seed", "2", "--set", "flows[0].packets_per_second=20"])
    assert r.exit_code == 0, r.output
    edited = apply_overrides(udp_file, ["flows[0].packets_per_second=20"])
    assert (
        json.loads(r.stdout)["summary"]["queue.bottleneck.arrivals"]
        == aqmlab.run(edited, seed=2).summary["queue.bottleneck.arrivals"]
    )


@pytest.mark.parametrize(
    ("override", "line"),
    [
        ("topology.bottleneck.queue.aqm.maxp=0.2", "error: topology.bottleneck.queue.aqm.maxp: unknown field"),
        ("flows[4].count=1", "error: flows[4]: index 4 out of range"),
        ("topology.senders.x=1", "error: topology.senders.x: `topology.senders` is a number"),
        ("topology.bottleneck.rate=-5Mbps", "error: topology.bottleneck.rate: "),
        ("flows.\u00b2.count=1", "error: flows.\u00b2.count: path segment '\u00b2' is not an index"),
    ],
)
def test_set_errors_are_one_line_naming_the_path(udp_file: Path, override: str, line: str) -> None:
    for extra in ([], ["--dry-run"]):
        r = runner.invoke(app, ["run", str(udp_file), "--set", override, *extra])
        assert r.exit_code == 2, r.output
        assert r.stderr.startswith(line), r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


def test_the_fast_entry_point_reads_set_and_dry_run() -> None:
    from aqmlab.entry import parse_fast_run

    fast = parse_fast_run(["run", "x.toml", "--set", "a.b=1", "--set=flows[0].count=5", "--dry-run"])
    assert fast is not None and fast.overrides == ["a.b=1", "flows[0].count=5"] and fast.dry_run
    assert parse_fast_run(["run", "x.toml", "--set"]) is None


def test_compare_applies_set_to_its_base(udp_file: Path) -> None:
    r = runner.invoke(
        app, ["compare", str(udp_file), "--aqm", "droptail", "--json", "--set", "flows[0].packets_per_second=10"]
    )
    assert r.exit_code == 0, r.output
    edited = apply_overrides(udp_file, ["flows[0].packets_per_second=10"])
    row = json.loads(r.stdout)["rows"][0]
    q = aqmlab.run(with_bottleneck_aqm(edited, "droptail"), seed=1).queue("bottleneck")
    assert row["utilization %"] == pytest.approx(100.0 * float(q["utilization"]))
    bad = runner.invoke(app, ["compare", str(udp_file), "--aqm", "droptail", "--set", "flows[1].count=1"])
    assert bad.exit_code == 2 and bad.stderr.startswith("error: flows[1]: index 1 out of range")


# -- sweeps --------------------------------------------------------------------------------------

SWEEP_FILE = """
name = "set-sweep"
base = "base.toml"
replications = 1
metrics = ["queue.bottleneck.arrivals"]

[grid]
"topology.bottleneck.queue.aqm.max_p" = [0.05, 0.2]
"""


@pytest.fixture
def sweep_file(tmp_path: Path) -> Path:
    (tmp_path / "base.toml").write_text(UDP_TOML.replace('duration = "10s"', 'duration = "2s"'))
    p = tmp_path / "sweep.toml"
    p.write_text(SWEEP_FILE)
    return p


def test_a_sweeps_set_changes_its_base(sweep_file: Path, tmp_path: Path) -> None:
    from aqmlab.sweep import Sweep

    sweep = Sweep.from_toml(sweep_file)
    sweep.override_base(["flows[0].packets_per_second=10", "topology.senders=3"])
    assert sweep.base["flows"][0]["packets_per_second"] == 10 and sweep.base["topology"]["senders"] == 3
    assert all(job.scenario["topology"]["senders"] == 3 for job in sweep.jobs())
    assert [job.scenario["topology"]["bottleneck"]["queue"]["aqm"]["max_p"] for job in sweep.jobs()] == [0.05, 0.2]
    out = tmp_path / "store"
    r = runner.invoke(
        app,
        ["sweep", str(sweep_file), "--out", str(out), "--backend", "thread", "--set", "flows[0].packets_per_second=10"],
    )
    assert r.exit_code == 0, r.output
    doc = json.loads(runner.invoke(app, ["results", str(out), "--json"]).stdout)
    edited = apply_overrides(tmp_path / "base.toml", ["flows[0].packets_per_second=10"])
    edited["topology"]["bottleneck"]["queue"]["aqm"] = {"kind": "red", "max_p": 0.05}
    seed = next(run["seed"] for run in doc["runs"] if run["point"]["topology.bottleneck.queue.aqm.max_p"] == 0.05)
    arrivals = next(a["mean"] for a in doc["aggregate"] if a["topology.bottleneck.queue.aqm.max_p"] == 0.05)
    assert arrivals == aqmlab.run(edited, seed=seed).summary["queue.bottleneck.arrivals"]


@pytest.mark.parametrize(
    "override",
    [
        "topology.bottleneck.queue.aqm.max_p=0.3",
        "topology.bottleneck.queue.aqm=codel",
        "topology.bottleneck=1",
        "queues.bottleneck.aqm.max_p=0.3",
    ],
)
def test_a_sweep_refuses_a_set_of_what_an_axis_varies(sweep_file: Path, override: str) -> None:
    r = runner.invoke(app, ["sweep", str(sweep_file), "--set", override])
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: topology.bottleneck") and "is varied by the sweep's axis" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
