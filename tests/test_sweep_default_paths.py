"""Issue 24, item 13: sweeping a parameter that the base scenario leaves at its default was an
"unknown path". A path absent from the base is accepted when the engine's schema has the field
(the AQM's parameter table included) and set with the tables it needs; a misspelt one is still
refused, now with the engine's own reason and "did you mean". On the code before issue 24 every
test here fails but the last two refusals of the parametrized test and the run_fn test."""

from __future__ import annotations

import aqmlab
import pytest
from _aqmlab_scenarios import scenario
from aqmlab.sweep import Sweep, SweepDefinitionError

AQM = "topology.bottleneck.queue.aqm"


def _pie_base() -> dict:
    tcp = {"kind": "tcp", "from": "senders", "to": "receivers"}
    return scenario(**{AQM: "pie", "duration": "2s", "warmup": "0s", "flows.0": tcp})


def test_an_aqm_parameter_left_at_its_default_can_be_swept() -> None:
    base = _pie_base()
    sweep = Sweep(base, grid={f"{AQM}.target": ["5ms", "20ms"]})
    jobs = sweep.jobs()
    assert [j.scenario["topology"]["bottleneck"]["queue"]["aqm"] for j in jobs] == [
        {"kind": "pie", "target": "5ms"},
        {"kind": "pie", "target": "20ms"},
    ]
    assert base["topology"]["bottleneck"]["queue"]["aqm"] == "pie", "the base is not changed"
    assert aqmlab.run(jobs[0].scenario, seed=jobs[0].seed).queue("bottleneck")["arrivals"] > 0


def test_a_tcp_table_in_a_udp_flow_is_refused() -> None:
    base = scenario()  # one Poisson flow
    with pytest.raises(SweepDefinitionError, match=r"flows\[0\]\.tcp: unknown field `tcp`"):
        Sweep(base, grid={"flows.0.tcp.window": [8]})


def test_tables_the_base_leaves_out_are_created() -> None:
    base = _pie_base()
    del base["topology"]["bottleneck"]["queue"]
    sweep = Sweep(
        base,
        grid={"topology.bottleneck.queue.limit": [10, 30], "flows.0.tcp.window": [8]},
        points=[{"topology.bottleneck.reverse_queue.limit": 5}],
    )
    s = sweep.jobs()[1].scenario
    assert s["topology"]["bottleneck"]["queue"] == {"limit": 30}
    assert s["topology"]["bottleneck"]["reverse_queue"] == {"limit": 5}
    assert s["flows"][0]["tcp"] == {"window": 8}
    aqmlab.validate_scenario(s)


def test_a_value_the_engine_refuses_is_left_to_the_run_as_for_a_path_the_base_sets() -> None:
    sweep = Sweep(_pie_base(), grid={f"{AQM}.target": ["-5ms", "5ms"]})
    with pytest.raises(aqmlab.ScenarioError, match="target"):
        aqmlab.run(sweep.jobs()[0].scenario)
    # RED's check of max_th against a swept min_th is about the values too
    red = _pie_base()
    red["topology"]["bottleneck"]["queue"]["aqm"] = {"kind": "red", "max_th": 15}
    sweep = Sweep(red, grid={f"{AQM}.min_th": [20, 5]})
    with pytest.raises(aqmlab.ScenarioError, match="max_th"):
        aqmlab.run(sweep.jobs()[0].scenario)


@pytest.mark.parametrize(
    ("path", "says"),
    [
        (f"{AQM}.tragte", "unknown field `tragte`"),  # a typo in the AQM's table
        ("topology.sendrs", "did you mean `senders`?"),
        ("topology.bottleneck.queue.colour", "unknown field `colour`"),
        ("flows.0.tcp.windw", "did you mean `window`?"),
        ("flows.0.tcp.window.x", "flows[0].tcp.window: invalid type: map"),
        ("flows.3.count", "index 3 out of range"),
        ("topology.senders.x", "is a int, not a table"),
    ],
)
def test_a_path_that_is_not_in_the_schema_is_still_refused(path: str, says: str) -> None:
    with pytest.raises(SweepDefinitionError, match="unknown path") as info:
        Sweep(_pie_base(), grid={path: [1]})
    assert says in str(info.value)
    assert info.value.field == f"grid[{path!r}]"


def test_a_parameter_of_an_aqm_the_base_does_not_run_is_refused() -> None:
    base = _pie_base()
    del base["topology"]["bottleneck"]["queue"]["aqm"]  # DropTail, which has no target
    with pytest.raises(SweepDefinitionError, match=r"aqm\.kind: missing"):
        Sweep(base, grid={f"{AQM}.target": ["5ms"]})
    base["topology"]["bottleneck"]["queue"]["aqm"] = "red"
    with pytest.raises(SweepDefinitionError, match="unknown field `target`"):
        Sweep(base, grid={f"{AQM}.target": ["5ms"]})


def test_a_python_aqm_is_asked_through_its_class() -> None:
    class Mine:
        def __init__(self, gain: float = 1.0) -> None:
            self.gain = gain

        def on_arrival(self, view: object, packet: object) -> str:
            return "enqueue"

    aqmlab.register_aqm("mine_default_paths", Mine)
    try:
        base = scenario(**{AQM: "mine_default_paths"})
        assert Sweep(base, grid={f"{AQM}.gain": [0.5]}).jobs()[0].scenario["topology"]["bottleneck"]["queue"][
            "aqm"
        ] == {"kind": "mine_default_paths", "gain": 0.5}
        with pytest.raises(SweepDefinitionError, match="unexpected keyword argument"):
            Sweep(base, grid={f"{AQM}.gian": [0.5]})
    finally:
        aqmlab.unregister_aqm("mine_default_paths")


def test_a_sweep_with_its_own_run_function_keeps_the_rule_that_the_path_exists() -> None:
    with pytest.raises(SweepDefinitionError, match="unknown path in base scenario"):
        Sweep(_pie_base(), grid={f"{AQM}.target": ["5ms"]}, run_fn=lambda s, seed: {})


def test_a_sweep_file_sweeps_a_default_parameter(tmp_path) -> None:
    (tmp_path / "base.toml").write_text(
        'duration = "2s"\n[topology]\nkind = "dumbbell"\nsenders = 1\n'
        'bottleneck = { rate = "10Mbps", queue = { aqm = "codel" } }\naccess = { rate = "100Mbps" }\n'
        '[[flows]]\nkind = "tcp"\nfrom = "senders"\nto = "receivers"\n'
    )
    f = tmp_path / "sweep.toml"
    f.write_text(f'base = "base.toml"\n[grid]\n"{AQM}.interval" = ["50ms", "200ms"]\n')
    jobs = Sweep.from_toml(f).jobs()
    assert [j.scenario["topology"]["bottleneck"]["queue"]["aqm"]["interval"] for j in jobs] == ["50ms", "200ms"]
