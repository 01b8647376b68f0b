"""Issue 13: ``import aqmlab`` (and the ``aqmlab`` command's module) loads none of the heavy
libraries; pandas, numpy and pyarrow come in when a table is first built, matplotlib and scipy
only where a figure or a statistic needs them. Import time itself is measured in BENCHMARKS.md,
not asserted here: this checks what makes it fast."""

from __future__ import annotations

import json
import subprocess
import sys

import aqmlab
import pytest
from aqmlab.scenario import to_json

MODULES = ("aqmlab", "aqmlab.cli")


def loaded_after_import(module: str, candidates: tuple[str, ...]) -> list[str]:
    """Which of ``candidates`` a fresh interpreter has loaded after ``import module``."""
    code = f"import json, sys, {module}; print(json.dumps(sorted(m for m in {candidates!r} if m in sys.modules)))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


@pytest.mark.parametrize("module", MODULES)
def test_import_loads_neither_matplotlib_nor_scipy(module):
    assert loaded_after_import(module, ("matplotlib", "scipy")) == []


@pytest.mark.parametrize("module", MODULES)
def test_import_loads_no_table_library(module):
    assert loaded_after_import(module, ("pandas", "numpy", "pyarrow")) == []


def test_tables_still_arrive_as_dataframes():
    pd = pytest.importorskip("pandas")
    table = aqmlab.aqms()
    assert isinstance(table, pd.DataFrame) and "red" in set(table["name"])


def test_numpy_values_in_a_scenario_are_still_plain_numbers():
    # scenario.py no longer imports numpy to recognise numpy values; it looks for a loaded numpy
    np = pytest.importorskip("numpy")
    text = to_json({"count": np.int64(3), "rates": np.array([1.5, 2.0]), "flag": np.bool_(True)})
    assert text == '{"count": 3, "rates": [1.5, 2.0], "flag": true}'
