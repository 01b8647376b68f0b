"""The AQM docs page is generated from the registry and must be regenerated when it changes."""

from pathlib import Path

import aqmlab
from aqmlab import _core
from aqmlab.aqm_docs import render_markdown

DOCS = Path(__file__).resolve().parent.parent / "docs" / "aqms.md"


def test_docs_page_matches_the_registry():
    assert DOCS.read_text() == render_markdown(_core.aqms(), _core.series_docs()), (
        "regenerate: python -m aqmlab.aqm_docs > docs/aqms.md"
    )


def test_every_algorithm_of_the_mission_is_documented_and_implemented():
    reg = aqmlab.aqms()
    mission = {
        "droptail",
        "red",
        "ared",
        "lpf_oda",
        "blue",
        "pi",
        "rem",
        "orange",
        "newque",
        "hybrid_red",
        "qvared",
        "dsred",
        "codel",
        "pie",
        "fq_codel",
        "step_marking",
        "pi2",
        "dualpi2",
        "fq_pie",
        "cobalt",
        "cake",
    }
    builtin = reg[reg.builtin]
    assert mission <= set(builtin.name)
    assert builtin.implemented.all(), builtin[~builtin.implemented][["name", "build_error"]]
    # every algorithm except DropTail documents its parameters with a default and a unit
    for _, a in builtin.iterrows():
        if a["name"] != "droptail":
            assert a["params"], a["name"]
            assert all(p["default"] != "" and p["unit"] != "" for p in a["params"]), a["name"]
