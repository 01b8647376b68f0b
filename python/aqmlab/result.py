"""The result of one run: tables as pandas DataFrames, run-level figures, a flat summary."""

from __future__ import annotations

import json
import math
from functools import cached_property
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

#: Text columns of the flow table; every other flow column is numeric.
FLOW_TEXT_COLUMNS = ("group", "kind", "src", "dst")
#: Flow columns left out of the summary (identifiers, not measurements).
FLOW_ID_COLUMNS = ("flow",)
#: Run-level keys of the summary, besides the queue and flow keys.
RUN_KEYS = ("jain_index", "events", "wall_time_s", "events_per_second", "conserved")

SummaryValue = float | int | str | bool


def _num(v: Any) -> float | int:
    """None (the engine's non-finite floats) -> NaN; numbers unchanged."""
    return math.nan if v is None else v


def _frame(rows: list[dict[str, Any]], text_columns: tuple[str, ...]) -> pd.DataFrame:
    df = pd.DataFrame.from_records(rows) if rows else pd.DataFrame()
    for c in df.columns:
        if c not in text_columns and df[c].dtype == object:
            # Columns holding None (NaN in the engine) become float columns.
            df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    return df


class Result:
    """What :func:`aqmlab.run` returns.

    Attributes: ``queues`` (one row per queue that saw traffic), ``flows`` (one row per flow),
    ``timeseries`` (long form: time_s, source, variable, value), ``raw`` (the engine's dict),
    ``events``, ``wall_time_s``, ``events_per_second``, ``jain_index``, ``conserved``,
    ``seed``, ``name``, ``duration_s``, ``warmup_s``; ``summary`` is a flat dict.
    """

    def __init__(self, raw: Mapping[str, Any]):
        self.raw: dict[str, Any] = dict(raw)

    # -- run-level figures ----------------------------------------------------------------
    @property
    def name(self) -> str:
        return str(self.raw.get("name", ""))

    @property
    def seed(self) -> int:
        return int(self.raw["seed"])

    @property
    def duration_s(self) -> float:
        return float(self.raw["duration_s"])

    @property
    def warmup_s(self) -> float:
        return float(self.raw["warmup_s"])

    @property
    def events(self) -> int:
        return int(self.raw["events"])

    @property
    def wall_time_s(self) -> float:
        return float(self.raw["wall_time_s"])

    @property
    def events_per_second(self) -> float:
        return float(_num(self.raw["events_per_second"]))

    @property
    def jain_index(self) -> float:
        return float(_num(self.raw["jain_index"]))

    @property
    def conserved(self) -> bool:
        return bool(self.raw["conserved"])

    # -- tables ---------------------------------------------------------------------------
    @cached_property
    def queues(self) -> pd.DataFrame:
        """One row per queue: arrivals, drops, marks, loss_rate, mean_queue_packets, delays
        (ms), utilization, throughput_bps, ..."""
        return _frame(self.raw["queues"], ("name",))

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow: packets, retransmissions, drops, goodput_bps, mean_rtt_ms, ..."""
        return _frame(self.raw["flows"], FLOW_TEXT_COLUMNS)

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        """Sampled series in long form: time_s, source, variable, value (empty unless the
        scenario sets ``sample_interval``)."""
        ts = self.raw["timeseries"]
        return pd.DataFrame(
            {
                "time_s": pd.Series(ts["time_s"], dtype=float),
                "source": pd.Series(ts["source"], dtype=object),
                "variable": pd.Series(ts["variable"], dtype=object),
                "value": pd.Series(ts["value"], dtype=float),
            }
        )

    def queue(self, name: str = "bottleneck") -> pd.Series:
        """The row of the queue table for queue ``name``, as a Series indexed by column."""
        for row in self.raw["queues"]:
            if row["name"] == name:
                return pd.Series({k: (v if k == "name" else _num(v)) for k, v in row.items()}, name=name)
        known = ", ".join(r["name"] for r in self.raw["queues"]) or "none"
        raise KeyError(f"no queue named {name!r} in the result; queues: {known}")

    # -- summary --------------------------------------------------------------------------
    @cached_property
    def summary(self) -> dict[str, SummaryValue]:
        """A flat dict of scalars, the contract used by sweeps:

        - ``queue.<name>.<column>`` for every column of every queue;
        - ``flows.<column>.mean`` and ``flows.<column>.sum`` for every numeric flow column
          (goodput_bps, throughput_bps, loss_rate, mean_rtt_ms, mean_delay_ms,
          retransmissions, timeouts, drops, ...); NaN entries (e.g. the RTT of UDP flows)
          are skipped, and an all-NaN column gives NaN;
        - ``jain_index``, ``events``, ``wall_time_s``, ``events_per_second``, ``conserved``.
        """
        out: dict[str, SummaryValue] = {}
        for row in self.raw["queues"]:
            qname = row["name"]
            for col, v in row.items():
                if col == "name":
                    continue
                out[f"queue.{qname}.{col}"] = _num(v)
        flows = self.raw["flows"]
        if flows:
            for col in flows[0]:
                if col in FLOW_TEXT_COLUMNS or col in FLOW_ID_COLUMNS:
                    continue
                values = [_num(f[col]) for f in flows]
                finite = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
                if finite:
                    total = sum(finite)
                    out[f"flows.{col}.mean"] = float(total) / len(finite)
                    out[f"flows.{col}.sum"] = total
                else:
                    out[f"flows.{col}.mean"] = math.nan
                    out[f"flows.{col}.sum"] = math.nan
        out["jain_index"] = self.jain_index
        out["events"] = self.events
        out["wall_time_s"] = self.wall_time_s
        out["events_per_second"] = self.events_per_second
        out["conserved"] = self.conserved
        return out

    # -- export ---------------------------------------------------------------------------
    def _write_summary(self, d: Path) -> None:
        clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in self.summary.items()}
        meta = {k: self.raw[k] for k in ("name", "seed", "duration_s", "warmup_s") if k in self.raw}
        (d / "summary.json").write_text(
            json.dumps({**meta, "summary": clean}, indent=2, allow_nan=False) + "\n", encoding="utf-8"
        )

    def to_parquet(self, directory: str | Path) -> Path:
        """Writes queues.parquet, flows.parquet, timeseries.parquet and summary.json."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.queues.to_parquet(d / "queues.parquet", index=False)
        self.flows.to_parquet(d / "flows.parquet", index=False)
        self.timeseries.to_parquet(d / "timeseries.parquet", index=False)
        self._write_summary(d)
        return d

    def to_csv(self, directory: str | Path) -> Path:
        """Writes queues.csv, flows.csv, timeseries.csv and summary.json."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.queues.to_csv(d / "queues.csv", index=False)
        self.flows.to_csv(d / "flows.csv", index=False)
        self.timeseries.to_csv(d / "timeseries.csv", index=False)
        self._write_summary(d)
        return d

    def __repr__(self) -> str:
        return (
            f"Result(name={self.name!r}, seed={self.seed}, queues={len(self.raw['queues'])}, "
            f"flows={len(self.raw['flows'])}, events={self.events}, jain_index={self.jain_index:.4f})"
        )
