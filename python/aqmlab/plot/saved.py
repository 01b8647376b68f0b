"""A run saved by ``aqmlab run --out DIR`` (or ``Result.to_parquet`` / ``to_csv``), read back
with the tables a plot needs: ``aqmlab plot DIR``."""

from __future__ import annotations

import json
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import PlotError

if TYPE_CHECKING:
    import pandas as pd


class SavedResult:
    """The tables of a saved run (Parquet preferred, else CSV), by the names
    :class:`aqmlab.Result` gives them; a table the directory lacks reads as empty."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        summary = self.directory / "summary.json"
        if not summary.is_file():
            raise PlotError(f"{self.directory} is not a saved run (no summary.json; `aqmlab run --out DIR` writes one)")
        self.document: dict[str, Any] = json.loads(summary.read_text(encoding="utf-8"))

    @property
    def name(self) -> str:
        return str(self.document.get("name", ""))

    @property
    def warmup_s(self) -> float:
        return float(self.document.get("warmup_s", 0.0))

    def _table(self, name: str) -> pd.DataFrame:
        import pandas as pd

        pq, csv = self.directory / f"{name}.parquet", self.directory / f"{name}.csv"
        if pq.is_file():
            return pd.read_parquet(pq)
        if csv.is_file():
            return pd.read_csv(csv)
        return pd.DataFrame()

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        ts = self._table("timeseries")
        return ts if len(ts.columns) else ts.reindex(columns=["time_s", "source", "variable", "value"])

    @cached_property
    def flows(self) -> pd.DataFrame:
        return self._table("flows")

    @cached_property
    def queues(self) -> pd.DataFrame:
        return self._table("queues")

    @cached_property
    def queue_delays(self) -> pd.DataFrame:
        return self._table("queue_delays")

    @cached_property
    def fct(self) -> pd.DataFrame | None:
        t = self._table("fct")
        return t if len(t.columns) else None
