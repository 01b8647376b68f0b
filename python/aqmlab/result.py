"""The result of one run: tables as pandas or polars DataFrames (built from the engine's Arrow
record batches), run-level figures, a flat summary."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _core

if TYPE_CHECKING:  # imported where a table is first built: `import aqmlab` stays light
    import numpy as np
    import numpy.typing as npt
    import pandas as pd
    import polars as pl
    import pyarrow as pa

#: Text columns of the flow table; every other flow column is numeric.
FLOW_TEXT_COLUMNS = ("group", "kind", "src", "dst")
#: Text columns of the queue table: ``queue``, the queue's name as every other table writes
#: it, and ``name``, the same, kept for one release (deprecated, issue 35; docs/metrics.md).
QUEUE_TEXT_COLUMNS = ("queue", "name")
#: Flow columns left out of the summary (identifiers, not measurements).
FLOW_ID_COLUMNS = ("flow",)
#: Run-level keys of the summary, besides the queue, flow and group keys. ``jain_index`` is
#: the headline (over the TCP flows when the run has any, else over every flow: see
#: :attr:`Result.jain_index`), ``jain_index_over`` says which ("tcp_flows" or "all_flows"),
#: ``jain_index_tcp`` and ``jain_index_all_flows`` are the two readings by name.
RUN_KEYS = (
    "jain_index",
    "jain_index_over",
    "jain_index_tcp",
    "jain_index_all_flows",
    "events",
    "wall_time_s",
    "events_per_second",
    "conserved",
)
#: Group columns in the summary (``group.<name>.<column>``).
GROUP_SUMMARY_COLUMNS = ("goodput_bps", "jain_index")
#: Where the run's time went (seconds) and its peak memory: in the summary, not in sweeps'
#: identity (they are facts of the machine, not results).
TIMING_KEYS = ("setup_s", "loop_s", "collect_s", "peak_rss_bytes")
#: The engine's tables, each an Arrow record batch.
TABLES = (
    "queues",
    "flows",
    "groups",
    "timeseries",
    "queue_delays",
    "fct",
    "fct_summary",
    "latency",
    "latency_summary",
)
#: Tables only a run with finite transfers or latency probes fills (docs/workloads.md): a
#: saved result has their files only when they have rows.
OPTIONAL_TABLES = ("fct", "fct_summary", "latency", "latency_summary")
#: Columns of the FCT summary in the run's summary (``fct.<bin>.<column>``, docs/workloads.md).
FCT_SUMMARY_COLUMNS = (
    "started",
    "completed",
    "fct_p50_s",
    "fct_mean_s",
    "fct_p99_s",
    "slowdown_p50",
    "slowdown_mean",
    "slowdown_p99",
)
#: Columns of the latency summary in the run's summary (``latency.<group>.<column>``).
LATENCY_SUMMARY_COLUMNS = ("samples", "lost", "rtt_p50_ms", "rtt_mean_ms", "rtt_p99_ms")

SummaryValue = float | int | str | bool


def pa_record_batch(batch: Any) -> pa.RecordBatch:
    """A pyarrow RecordBatch of one of the engine's tables (through the Arrow C data
    interface, without a copy)."""
    import pyarrow as pa

    return pa.record_batch(batch)


def _rows(columns: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """A table's columns (``_core.table_columns``) as one dict per row."""
    return [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def _num(v: Any) -> float | int:
    """None (the engine's non-finite floats, and Arrow nulls) -> NaN; numbers unchanged."""
    return math.nan if v is None else v


class Result:
    """What :func:`aqmlab.run` returns.

    Attributes: ``queues`` (one row per queue that saw traffic), ``flows`` (one row per flow),
    ``groups`` (one row per flow group: kind, flows, goodput_bps, jain_index), ``timeseries``
    (long form: time_s, source, variable, value), as pandas DataFrames;
    ``to_polars(table)`` and ``to_arrow(table)`` give the same tables as polars DataFrames
    and pyarrow Tables, without a copy of the engine's columns. ``raw`` (the engine's dict; its
    tables are Arrow record batches), ``events``, ``wall_time_s`` (the event loop),
    ``timings`` (setup_s, loop_s, collect_s), ``peak_rss_bytes``, ``events_per_second``,
    ``jain_index`` (the headline: over the TCP flows if any, else every flow; which one is
    ``jain_index_over``), ``jain_index_tcp``, ``jain_index_all_flows``, ``conserved``,
    ``warnings`` (the run's: (path, message) pairs), ``seed``, ``name``, ``duration_s``,
    ``warmup_s``;
    ``summary`` is a flat dict.
    """

    def __init__(self, raw: Mapping[str, Any], scenario_json: str | None = None):
        self.raw: dict[str, Any] = dict(raw)
        # The scenario as given (JSON text), resolved only when `scenario` is read: a large
        # graph's resolved document costs tens of MB that a run does not need.
        self._scenario_json = scenario_json

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
        """Jain's fairness index of the flows' goodputs, the run's headline: over the TCP
        flows when the run has any, else over every flow (:attr:`jain_index_over` says which).
        One unresponsive UDP flow among fairly sharing TCP flows used to pull it down (issue
        24); the all-flows value is :attr:`jain_index_all_flows`."""
        return float(_num(self.raw["jain_index"]))

    @property
    def jain_index_over(self) -> str:
        """``"tcp_flows"`` or ``"all_flows"``: the flows :attr:`jain_index` is over."""
        return str(self.raw["jain_index_over"])

    @property
    def jain_index_tcp(self) -> float:
        """Jain's index over the TCP flows alone (NaN without TCP flows)."""
        return float(_num(self.raw["jain_index_tcp"]))

    @property
    def jain_index_all_flows(self) -> float:
        """Jain's index over every flow, whatever its kind."""
        return float(_num(self.raw["jain_index_all_flows"]))

    @property
    def conserved(self) -> bool:
        return bool(self.raw["conserved"])

    @property
    def warnings(self) -> list[tuple[str, str]]:
        """What the run measured that most likely was not meant, as (path, message) pairs
        (issue 25: TCP flows stalled in a recovery that loops); :func:`aqmlab.run` also
        issues each as an :class:`aqmlab.ScenarioWarning`."""
        return [(str(w["path"]), str(w["message"])) for w in self.raw.get("warnings", [])]

    @property
    def timings(self) -> dict[str, float]:
        """Wall-clock seconds of each stage: ``setup_s`` (building the scenario), ``loop_s``
        (the event loop, = ``wall_time_s``), ``collect_s`` (gathering the result and handing
        it to Python; building a DataFrame from it is not included)."""
        return {k: float(v) for k, v in self.raw["timings"].items()}

    @property
    def peak_rss_bytes(self) -> int | None:
        """The process's peak resident memory when the result was handed over (Linux)."""
        v = self.raw.get("peak_rss_bytes")
        return None if v is None else int(v)

    @property
    def n_flows(self) -> int:
        return len(next(iter(self._flow_columns.values()), []))

    # -- tables ---------------------------------------------------------------------------
    def to_arrow(self, table: str) -> pa.Table:
        """``table`` (one of :data:`TABLES`, and ``"trace"`` when the scenario traces a link)
        as a pyarrow Table; the time series' source and variable columns are
        dictionary-encoded. Every numeric column's unit is in its field's metadata,
        ``{b"unit": ...}`` (``packets``, ``ms``, ``bit/s``, ``fraction``, ...: the same whether
        or not the name ends in it; docs/python.md, "Units")."""
        import pyarrow as pa

        if table not in TABLES and not (table == "trace" and "trace" in self.raw):
            raise KeyError(f"no table {table!r}; tables: {', '.join(TABLES)}")
        return pa.Table.from_batches([pa_record_batch(self.raw[table])])

    def to_polars(self, table: str = "flows") -> pl.DataFrame:
        """``table`` as a polars DataFrame (needs polars: ``pip install polars``)."""
        from .errors import MissingExtraError

        try:
            import polars as pl
        except ImportError as e:
            raise MissingExtraError("Result.to_polars needs polars: pip install polars") from e
        frame = pl.from_arrow(self.to_arrow(table))
        assert isinstance(frame, pl.DataFrame)  # from a Table (a Series comes only from an Array)
        return frame

    @cached_property
    def queues(self) -> pd.DataFrame:
        """One row per queue: queue (its name), arrivals, drops, marks, loss_rate,
        mean_queue_packets, delays (ms), utilization, throughput_bps, ...; ``name``, the same
        as ``queue``, is deprecated (kept for one release)."""
        df = self.to_arrow("queues").to_pandas()
        if "queue" not in df.columns and "name" in df.columns:  # stored before issue 35
            df.insert(0, "queue", df["name"])
        return df

    @cached_property
    def flows(self) -> pd.DataFrame:
        """One row per flow: packets, retransmissions, drops, goodput_bps, mean_rtt_ms, ..."""
        return self.to_arrow("flows").to_pandas()

    @cached_property
    def groups(self) -> pd.DataFrame:
        """One row per flow group (a ``[[flows]]`` entry, or entries sharing a ``group``
        name), in the order of their first flow: group, kind ("mixed" if entries of different
        kinds share the name), flows, goodput_bps (sum), jain_index (over the group's flows)."""
        return self.to_arrow("groups").to_pandas()

    @cached_property
    def timeseries(self) -> pd.DataFrame:
        """Sampled series in long form: time_s, source, variable, value (empty unless the
        scenario sets ``sample_interval``); source and variable are Categorical.

        The time and value columns are the engine's own buffers (read-only; pandas copies on
        write), so a long series is not held twice: pyarrow's ``to_pandas`` copies them (0.36 s
        and over three times the frame's size for 6.3 million samples)."""
        import pandas as pd
        import pyarrow as pa

        batch = pa_record_batch(self.raw["timeseries"])

        def categorical(i: int) -> pd.Categorical:
            column = batch.column(i)
            assert isinstance(column, pa.DictionaryArray)  # source and variable are dictionary-encoded
            codes: npt.NDArray[np.signedinteger] = column.indices.to_numpy()
            return pd.Categorical.from_codes(codes, pd.Index(column.dictionary.to_pylist()))

        def floats(i: int) -> pd.Series:
            return pd.Series(batch.column(i).to_numpy(), copy=False)

        return pd.DataFrame(
            {"time_s": floats(0), "source": categorical(1), "variable": categorical(2), "value": floats(3)},
            copy=False,
        )

    @cached_property
    def queue_delays(self) -> pd.DataFrame:
        """Each monitored queue's queue-delay histogram over the measurement window, one row
        per non-empty bucket in increasing delay: queue, delay_low_ms, delay_high_ms, packets
        (that many packets enqueued inside the window spent at least delay_low_ms and less than
        delay_high_ms from arrival to the end of their transmission, the delay of the queue
        table's mean_delay_ms and p99_delay_ms; buckets are within 1/64 of their delay). The
        delay CDF plot reads it."""
        return self.to_arrow("queue_delays").to_pandas()

    def plot(self, kind: str, ax: Any = None, **options: Any) -> Any:
        """Draws view ``kind`` of this run with matplotlib (the ``plot`` extra) and returns
        the Figure: "queue", "probability", "cwnd", "throughput", "delay_cdf", "fct" (see
        :mod:`aqmlab.plot`; ``aqmlab.plot.KINDS`` lists them). ``ax``: draw into these Axes
        instead of a new figure (kinds with several panels need a Figure's worth of room and
        take ``ax=None``)."""
        from .plot import plot_result

        return plot_result(self, kind, ax=ax, **options)

    @cached_property
    def trace(self) -> pd.DataFrame | None:
        """The packet trace of the links the scenario names in ``trace`` (None without):
        one row per queue event, time_s, link, event (enqueue, dequeue, drop, mark), reason
        (a drop's: early, forced, link_loss, link_down), flow (the flows table's id), kind, seq (packets),
        size_bytes, queue_packets and queue_bytes after the event (docs/capture.md)."""
        if "trace" not in self.raw:
            return None
        return self.to_arrow("trace").to_pandas()

    @property
    def capture_files(self) -> list[str]:
        """The capture files the run wrote, one per link the scenario names in ``capture``."""
        return [str(f) for f in self.raw.get("capture_files", [])]

    # The summary's rows are read by the engine's own reader, not pyarrow: printing a run's
    # summary then imports neither pyarrow nor numpy (issue 24, item 12); same values.
    @cached_property
    def _queue_rows(self) -> list[dict[str, Any]]:
        rows = _rows(_core.table_columns(self.raw["queues"]))
        # A result stored before issue 35 names its queues in `name` alone.
        return [r if "queue" in r else {"queue": r["name"], **r} for r in rows]

    @cached_property
    def _group_rows(self) -> list[dict[str, Any]]:
        return _rows(_core.table_columns(self.raw["groups"]))

    def _optional_rows(self, table: str) -> list[dict[str, Any]]:
        # Results stored before issue 27 have no FCT or latency tables.
        return _rows(_core.table_columns(self.raw[table])) if table in self.raw else []

    @property
    def fct(self) -> pd.DataFrame:
        """One row per finite-size TCP transfer (a ``kind = "workload"`` arrival or a
        ``kind = "tcp"`` flow with ``size``): flow (the flow table's id), group, size_bytes,
        start_s, fct_s (NaN if not completed), completed, ideal_fct_s, slowdown (fct_s /
        ideal_fct_s), retransmissions, timeouts. docs/workloads.md."""
        return self.to_arrow("fct").to_pandas()

    def fct_summary(self) -> pd.DataFrame:
        """The FCT table by size bin (``fct_bins``; default small <= 100 KB < medium <= 10 MB
        < large) and over all transfers (bin "all"): started, completed, p50/mean/p99 of FCT
        and slowdown over the completed transfers."""
        return self.to_arrow("fct_summary").to_pandas()

    @property
    def latency(self) -> pd.DataFrame:
        """The latency probes' RTT samples: flow, group, kind, time_s (the reply's arrival),
        rtt_ms."""
        return self.to_arrow("latency").to_pandas()

    @property
    def latency_summary(self) -> pd.DataFrame:
        """Per probe group: samples, lost, rtt_p50_ms, rtt_mean_ms, rtt_p99_ms."""
        return self.to_arrow("latency_summary").to_pandas()

    @cached_property
    def _flow_columns(self) -> dict[str, list[Any]]:
        return _core.table_columns(self.raw["flows"])

    def queue(self, name: str = "bottleneck") -> pd.Series:
        """The row of the queue table for queue ``name``, as a Series indexed by column."""
        import pandas as pd

        for row in self._queue_rows:
            if row["queue"] == name:
                return pd.Series({k: (v if k in QUEUE_TEXT_COLUMNS else _num(v)) for k, v in row.items()}, name=name)
        known = ", ".join(r["queue"] for r in self._queue_rows) or "none"
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
        - ``group.<name>.goodput_bps`` (sum) and ``group.<name>.jain_index`` for every flow
          group;
        - with finite TCP transfers, ``fct.<bin>.<column>`` for each size bin and ``all``
          (columns :data:`FCT_SUMMARY_COLUMNS`, e.g. ``fct.small.slowdown_p99``);
        - with latency probes, ``latency.<group>.<column>`` (``rtt_p50_ms``, ``rtt_p99_ms``
          ...);
        - ``jain_index`` (headline: over the TCP flows if any, else every flow),
          ``jain_index_over`` (which: ``"tcp_flows"`` or ``"all_flows"``), ``jain_index_tcp``, ``jain_index_all_flows``, ``events``, ``wall_time_s``,
          ``events_per_second``, ``conserved``;
        - ``setup_s``, ``loop_s``, ``collect_s`` and ``peak_rss_bytes`` (see ``timings``);
        - an emulation's ``emulation.<field>`` (see :attr:`emulation`).
        """
        out: dict[str, SummaryValue] = {}
        for row in self._queue_rows:
            qname = row["queue"]
            for col, v in row.items():
                if col in QUEUE_TEXT_COLUMNS:
                    continue
                out[f"queue.{qname}.{col}"] = _num(v)
        for col, column in self._flow_columns.items():
            if not column or col in FLOW_TEXT_COLUMNS or col in FLOW_ID_COLUMNS:
                continue
            values = [_num(v) for v in column]
            finite = [v for v in values if not (isinstance(v, float) and math.isnan(v))]
            if finite:
                total = sum(finite)
                out[f"flows.{col}.mean"] = float(total) / len(finite)
                out[f"flows.{col}.sum"] = total
            else:
                out[f"flows.{col}.mean"] = math.nan
                out[f"flows.{col}.sum"] = math.nan
        for row in self._group_rows:
            for col in GROUP_SUMMARY_COLUMNS:
                out[f"group.{row['group']}.{col}"] = _num(row[col])
        # Only a run with finite transfers has FCT keys, only one with probes latency keys.
        fct_bins = self._optional_rows("fct_summary")
        if any(row["started"] for row in fct_bins):
            for row in fct_bins:
                for col in FCT_SUMMARY_COLUMNS:
                    out[f"fct.{row['bin']}.{col}"] = _num(row[col])
        for row in self._optional_rows("latency_summary"):
            for col in LATENCY_SUMMARY_COLUMNS:
                out[f"latency.{row['group']}.{col}"] = _num(row[col])
        out["jain_index"] = self.jain_index
        out["jain_index_over"] = self.jain_index_over
        out["jain_index_tcp"] = self.jain_index_tcp
        out["jain_index_all_flows"] = self.jain_index_all_flows
        out["events"] = self.events
        out["wall_time_s"] = self.wall_time_s
        out["events_per_second"] = self.events_per_second
        out["conserved"] = self.conserved
        for k, v in self.timings.items():
            out[k] = v
        out["peak_rss_bytes"] = math.nan if self.peak_rss_bytes is None else self.peak_rss_bytes
        for k, v in (self.emulation or {}).items():
            out[f"emulation.{k}"] = v if isinstance(v, str | bool) else _num(v)
        return out

    @property
    def emulation(self) -> dict[str, Any] | None:
        """How faithful an emulation (``aqmlab emulate``) was: the router's departure and
        delivery lag (``departure_lag_p50_us``, ``_p99_us``, ``_max_us``, ``delivery_lag_...``),
        the bound on the departure lag's p99 (``max_lag_p99_us``), ``valid`` and
        ``invalid_reason``, ``packets_not_carried`` (sent by a host, of no flow),
        ``host_write_errors`` and ``application_goodput_bps`` (what the receiving applications
        read in the window, all flows: a cross-check of the flows' goodput). None for a
        simulation."""
        e = self.raw.get("emulation")
        return None if e is None else dict(e)

    # -- export ---------------------------------------------------------------------------
    def summary_document(self) -> dict[str, Any]:
        """What ``summary.json`` holds and ``aqmlab run --json`` prints, one shape for both:
        the run's ``name``, ``seed``, ``duration_s`` and ``warmup_s``, and ``summary`` (see
        :attr:`summary`) with non-finite floats as None (JSON has no NaN)."""
        clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in self.summary.items()}
        meta: dict[str, Any] = {k: self.raw[k] for k in ("name", "seed", "duration_s", "warmup_s") if k in self.raw}
        return {**meta, "summary": clean}

    def _write_summary(self, d: Path) -> None:
        (d / "summary.json").write_text(
            json.dumps(self.summary_document(), indent=2, allow_nan=False) + "\n", encoding="utf-8"
        )

    def to_parquet(self, directory: str | Path) -> Path:
        """Writes queues.parquet, flows.parquet, groups.parquet, timeseries.parquet,
        queue_delays.parquet, the workload tables when the run has them (fct, fct_summary,
        latency, latency_summary), trace.parquet (when the scenario traces a link) and
        summary.json; each column's unit is in its Parquet field's metadata
        (``pyarrow.parquet.read_schema(path).field(c).metadata[b"unit"]``)."""
        import pyarrow.parquet as pq

        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        # from the Arrow tables, not pandas: their fields' {"unit": ...} metadata is kept; the
        # workload tables only when the run has workloads or probes
        for table in TABLES:
            arrow = self.to_arrow(table)
            if table in OPTIONAL_TABLES and arrow.num_rows == 0:
                continue
            pq.write_table(arrow, d / f"{table}.parquet")
        if "trace" in self.raw:
            pq.write_table(self.to_arrow("trace"), d / "trace.parquet")
        self._write_summary(d)
        return d

    def to_csv(self, directory: str | Path) -> Path:
        """Writes queues.csv, flows.csv, groups.csv, timeseries.csv, queue_delays.csv and
        summary.json."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        self.queues.to_csv(d / "queues.csv", index=False)
        self.flows.to_csv(d / "flows.csv", index=False)
        self.groups.to_csv(d / "groups.csv", index=False)
        self.timeseries.to_csv(d / "timeseries.csv", index=False)
        self.queue_delays.to_csv(d / "queue_delays.csv", index=False)
        for table in OPTIONAL_TABLES:
            frame = self.to_arrow(table).to_pandas()
            if len(frame):
                frame.to_csv(d / f"{table}.csv", index=False)
        self._write_summary(d)
        return d

    @property
    def scenario(self) -> dict[str, Any]:
        """The scenario as the engine ran it, every default filled in and ``seed`` the run's
        (a TOML-serializable dict; see :func:`aqmlab.scenario.resolve_scenario`): run as a
        scenario, it gives this result again. Empty for a result :func:`aqmlab.run` did not
        make (an emulation's, one read back from disk)."""
        if self._scenario_json is None:
            return {}
        resolved: dict[str, Any] = _core.resolve_scenario(self._scenario_json)
        resolved["seed"] = self.seed
        return resolved

    def _repr_html_(self) -> str:
        """Jupyter's view: name, seed, duration, key figures, the queue and flow tables (first
        rows), warnings."""
        from .html_summary import result_html

        return result_html(self)

    def __repr__(self) -> str:
        return (
            f"Result(name={self.name!r}, seed={self.seed}, queues={len(self._queue_rows)}, "
            f"flows={self.n_flows}, events={self.events}, jain_index={self.jain_index:.4f})"
        )
