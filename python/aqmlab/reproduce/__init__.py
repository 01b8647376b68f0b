"""Reproductions of the five seed papers: data only (papers/*.toml, scenarios/**/*.toml).

See papers/README.md for the file format. ``PAPERS`` and ``SCENARIOS`` are the two
directories; ``validate.py`` checks every file.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent
PAPERS = ROOT / "papers"
SCENARIOS = ROOT / "scenarios"
PAPER_IDS = ("orange", "newque", "hybrid_red", "qvared", "dsred", "l4s_tests", "sce_l4s_bakeoff")
