"""Issue 11, item 1: NaN, infinity and values that are not data are refused with the field's
path, from TOML text, TOML files and Python dicts alike (they used to become "not given", i.e.
the default, or a json error without a path)."""

from __future__ import annotations

import copy
import decimal

import aqmlab
import pytest

BASE = {
    "duration": "1s",
    "topology": {
        "kind": "dumbbell",
        "senders": 1,
        "bottleneck": {"rate": "10Mbps", "queue": {"aqm": {"kind": "red", "min_th": 5}}},
        "access": {"rate": "100Mbps"},
    },
    "flows": [{"kind": "tcp", "from": "senders", "to": "receivers"}],
}
MIN_TH = "topology.bottleneck.queue.aqm.min_th"


def with_min_th(value):
    s = copy.deepcopy(BASE)
    s["topology"]["bottleneck"]["queue"]["aqm"]["min_th"] = value
    return s


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (float("nan"), "must be finite, got nan"),
        (float("inf"), "must be finite, got inf"),
        (float("-inf"), "must be finite, got -inf"),
        (decimal.Decimal("5"), "must be a number, string, bool, list or table, got Decimal"),
        (b"5", "must be a number, string, bool, list or table, got bytes"),
    ],
)
def test_dict_values_that_are_not_finite_data_name_the_field(value, reason):
    with pytest.raises(aqmlab.ScenarioError) as e:
        aqmlab.run(with_min_th(value), seed=1)
    assert str(e.value) == f"{MIN_TH}: {reason}"


@pytest.mark.parametrize("literal", ["nan", "inf", "-inf", "+nan"])
def test_toml_non_finite_names_the_field(literal, tmp_path):
    text = (
        'duration = "1s"\n[topology]\nkind = "dumbbell"\nsenders = 1\n'
        f'bottleneck = {{ rate = "10Mbps", queue = {{ aqm = {{ kind = "red", min_th = {literal} }} }} }}\n'
        'access = { rate = "100Mbps" }\n'
    )
    got = literal.lstrip("+")
    for source in (text, tmp_path / "s.toml"):
        if not isinstance(source, str):
            source.write_text(text)
        with pytest.raises(aqmlab.ScenarioError) as e:
            aqmlab.load_scenario(source)
        assert str(e.value) == f"{MIN_TH}: must be finite, got {got}"


def test_runaway_nesting_and_bad_keys_name_the_field():
    s = copy.deepcopy(BASE)
    deep: dict = {}
    node = deep
    for _ in range(40):
        node["a"] = {}
        node = node["a"]
    s["topology"]["extra"] = deep
    with pytest.raises(aqmlab.ScenarioError, match=r"^topology\.extra(\.a)+: nested deeper than 32 levels$"):
        aqmlab.run(s, seed=1)
    s = copy.deepcopy(BASE)
    s["topology"]["bottleneck"][3] = "x"
    with pytest.raises(aqmlab.ScenarioError, match=r"^topology\.bottleneck: keys must be strings, got int 3$"):
        aqmlab.run(s, seed=1)


def test_finite_numbers_and_numpy_scalars_still_run():
    np = pytest.importorskip("numpy")
    r = aqmlab.run(with_min_th(np.float64(5.0)), seed=1)
    assert r.summary["queue.bottleneck.arrivals"] > 0
