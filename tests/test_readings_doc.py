"""The readings' citations and wording (issue 24, items 2, 4 and 6): what the docs and the code
say about their sources, checked where a wrong word would mislead a reader."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READINGS = (ROOT / "docs" / "readings.md").read_text()
REPRODUCTION = (ROOT / "REPRODUCTION.md").read_text()
AQM = ROOT / "crates" / "aqmlab-core" / "src" / "aqm"


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_pie_cites_files_that_exist_in_linux():
    """Item 2: Linux has net/sched/sch_pie.c and include/net/pie.h, no net/sched/pie.c."""
    for text in (READINGS, (AQM / "pie.rs").read_text(), (AQM / "registry.rs").read_text()):
        flat = _flat(text).replace("no `net/sched/pie.c`", "")
        assert "net/sched/pie.c" not in flat
    pie = _flat((AQM / "pie.rs").read_text())
    assert "net/sched/sch_pie.c" in pie and "include/net/pie.h" in pie
    # ns-2's burst rule described as what pie.cc does, not as counted_down
    assert "BURST_RESET_TIMEOUT" in pie and '"ns2"' in pie


def test_newque_wording_is_the_same_in_both_places():
    """Item 4: neither document says that only the swapped reading reproduces the paper."""
    for text in (READINGS, REPRODUCTION):
        flat = _flat(text)
        assert "Only `swapped` reproduces" not in flat
        assert "Only the swapped reading reproduces" not in flat
        assert "cannot be settled" in flat


def test_blue_names_fengs_two_hold_times():
    """Item 6: beside the paper's single clock, Feng's ns code's ihold-time / dhold-time."""
    for text in (READINGS, (AQM / "blue.rs").read_text()):
        flat = _flat(text)
        assert "ihold-time" in flat and "dhold-time" in flat
