"""Canonical hashing of scenarios, points and runs, and seed derivation.

Everything that decides *whether a run already exists* lives here, so the
rules are in one place:

* a run's store key is ``sha256(canonical_json({"engine": version,
  "scenario": scenario, "seed": seed}))`` -- the concrete scenario, not the
  sweep definition, so two sweeps that produce the same scenario share runs,
  and changing the engine version invalidates them;
* a seed depends only on ``(master_seed, point parameters, replication)``,
  never on the worker count, the execution order or the other points of the
  sweep.  Adding values to an axis therefore keeps every existing point's
  seeds (and stored runs) valid.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np

#: Seeds are kept below 2**63 so they fit a signed 64-bit Parquet column and
#: a Rust ``u64``/``i64`` alike.
SEED_BITS = 63


def _default(obj: Any) -> Any:
    """JSON fallback for numpy scalars/arrays and tuples-in-disguise."""
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (set, frozenset)):
        raise TypeError("sets have no canonical order; use a list")
    raise TypeError(f"value of type {type(obj).__name__} is not JSON-serializable")


def canonical_json(obj: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, no NaN/inf.

    Note that ``5`` and ``5.0`` serialize differently and so hash
    differently; the engine may treat them differently too.
    """
    # allow_nan=False is the finiteness check: the encoder refuses NaN and inf wherever they
    # sit (numpy values included, after _default), in one C pass instead of a Python walk of
    # the tree first (which was most of the cost of planning a sweep's jobs).
    try:
        return json.dumps(
            obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_default
        )
    except ValueError as exc:
        if "Out of range float values" not in str(exc):
            raise
        raise ValueError(f"non-finite float cannot be hashed canonically ({exc})") from None


def sha256_hex(text: str) -> str:
    """Hex SHA-256 of a UTF-8 string."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def run_key(scenario: Mapping[str, Any], seed: int, engine_version: str) -> str:
    """Store key of one run: identical inputs to the engine give the same key."""
    return sha256_hex(canonical_json({"engine": str(engine_version), "scenario": scenario, "seed": int(seed)}))


def run_key_of_json(scenario_json: str, seed: int, engine_version: str) -> str:
    """:func:`run_key` from the scenario's :func:`canonical_json`, already computed: the same
    text (the three keys sort as engine, scenario, seed), without serializing the scenario
    again for every replication."""
    engine = json.dumps(str(engine_version), ensure_ascii=False)
    return sha256_hex(f'{{"engine":{engine},"scenario":{scenario_json},"seed":{int(seed)}}}')


def scenario_id(scenario: Mapping[str, Any]) -> str:
    """Short id of a concrete scenario, independent of seed and engine version.

    Used to look up run times of the same point at other seeds for
    longest-first scheduling.
    """
    return scenario_id_of_json(canonical_json(scenario))


def scenario_id_of_json(scenario_json: str) -> str:
    """:func:`scenario_id` from the scenario's :func:`canonical_json`, already computed."""
    return sha256_hex(scenario_json)[:16]


def point_id(point: Mapping[str, Any]) -> str:
    """Short id of a sweep point (its axis values)."""
    return sha256_hex(canonical_json(point))[:16]


def derive_seed(master_seed: int, point: Mapping[str, Any], replication: int) -> int:
    """Seed of one replication of one point.

    ``numpy.random.SeedSequence(master_seed, spawn_key=(h, replication))``
    where ``h`` is the first 64 bits of the SHA-256 of the point's canonical
    JSON.  SeedSequence mixes entropy and spawn key with a well-tested hash,
    so seeds are statistically independent across points and replications,
    reproducible from the master seed alone, and -- because the point is
    identified by its parameters rather than its index -- unaffected by
    reordering or extending the sweep.
    """
    if isinstance(master_seed, bool) or not isinstance(master_seed, (int, np.integer)) or master_seed < 0:
        raise ValueError(f"master_seed must be a non-negative integer, got {master_seed!r}")
    if isinstance(replication, bool) or not isinstance(replication, (int, np.integer)) or replication < 0:
        raise ValueError(f"replication must be a non-negative integer, got {replication!r}")
    h = int(sha256_hex(canonical_json(point))[:16], 16)
    ss = np.random.SeedSequence(int(master_seed), spawn_key=(h, int(replication)))
    (word,) = ss.generate_state(1, dtype=np.uint64)
    return int(word) >> (64 - SEED_BITS)
