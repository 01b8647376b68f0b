"""docs/reliability.md names the test behind each promise: every file and test it names must
exist, so a renamed or deleted test cannot leave a promise unchecked on paper."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_named_in_reliability_md_exists() -> None:
    text = (ROOT / "docs" / "reliability.md").read_text()
    current: Path | None = None
    checked = 0
    # Cells name tests as `path::name`, `path` alone, or `::name` for the last path named.
    for ref in re.findall(r"`([^`]*(?:\.py|\.rs)(?:::\w+)?|::\w+)`", text):
        path_part, _, name = ref.partition("::")
        if path_part:
            candidates = [
                ROOT / path_part,
                ROOT / "crates/aqmlab-core/tests" / path_part,
                ROOT / "crates/aqmlab-core/src" / path_part,
            ]
            current = next((c for c in candidates if c.is_file()), None)
            assert current is not None, f"docs/reliability.md names a missing file: {path_part}"
        if name:
            assert current is not None, ref
            source = current.read_text()
            assert re.search(rf"\bdef {name}\b|\bfn {name}\b", source), f"{current.name} has no test {name}"
        checked += 1
    assert checked > 40
