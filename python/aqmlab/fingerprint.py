"""The engine fingerprint: which code computed a result.

The package version (``0.1.0``) does not change when the code does, so a
results store keyed by it alone silently reuses numbers computed by older
code.  The fingerprint is a SHA-256 over the compiled core (the ``_core``
extension's bytes) and every Python source file of the package, in sorted
path order; any edit or rebuild changes it.  It is computed once per process,
on first use (hashing ~14 MB takes a few tens of milliseconds).

A sweep stores it with every run and treats a run made by another fingerprint
as stale (see :mod:`aqmlab.sweep.execute`).  Run functions outside the package
are not covered: give such a sweep its own ``engine_version``.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

#: Length of the hex digest kept (64 bits of SHA-256: collisions are not a concern
#: for the handful of builds a store sees).
FINGERPRINT_HEX = 16


def _package_files(root: Path) -> list[Path]:
    files = [p for p in root.rglob("*.py") if "__pycache__" not in p.parts]
    files += [p for p in root.glob("_core*") if p.suffix in (".so", ".pyd", ".dylib")]
    return sorted(files, key=lambda p: p.relative_to(root).as_posix())


def fingerprint_of(root: Path) -> str:
    """Fingerprint of the package directory ``root`` (see the module docstring)."""
    h = hashlib.sha256()
    for path in _package_files(root):
        rel = path.relative_to(root).as_posix().encode()
        data = path.read_bytes()
        # Length-prefixed, so moving bytes between a name and a file cannot collide.
        h.update(len(rel).to_bytes(8, "little") + rel + len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:FINGERPRINT_HEX]


@functools.cache
def engine_fingerprint() -> str:
    """Fingerprint of the installed aqmlab (compiled core and Python sources)."""
    return fingerprint_of(Path(__file__).resolve().parent)
