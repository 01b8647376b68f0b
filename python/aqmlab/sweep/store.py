"""On-disk results store: one Parquet file per finished run, plus a manifest.

Layout of a store directory::

    STORE/
      runs/ab/ab12...ef.parquet   one row per run (ok or failed), the source of truth
      manifest.jsonl              index of runs (one JSON object per line, last line per key wins)
      sweep.json                  the last sweep run into this store (keys, axes, order)
      cache/runs.parquet          all run rows consolidated for fast reading (safe to delete)

Durability rules, chosen so that no finished run is ever lost:

* a run file is written to a temporary name in the same directory and then
  ``os.replace``-d into place, so it either exists completely or not at all;
* the manifest is appended *after* the run file, one ``os.write`` per batch of
  complete lines on an ``O_APPEND`` descriptor; a torn trailing line is
  skipped when reading;
* the run files are authoritative: a run file missing from the manifest (the
  process died between the two writes) is re-indexed automatically, a
  manifest line without a run file is ignored, and :meth:`ResultStore.rebuild_manifest`
  regenerates the whole manifest atomically.

Only the driver process writes to the store; workers return results to it.
That keeps the store on the driver's local disk even when the workers are a
remote Dask cluster without a shared filesystem.
"""

from __future__ import annotations

import json
import os
import uuid
import warnings
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .aggregate import aggregate_runs, axis_series, export_table, to_wide
from .keys import canonical_json

RUNS_DIR = "runs"
MANIFEST = "manifest.jsonl"
SWEEP_META = "sweep.json"
CACHE = "cache/runs.parquet"
_SIG = "_file_signature"

#: Per-run metadata columns, in display order, with their Arrow types.
META_SCHEMA = pa.schema(
    [
        ("key", pa.string()),
        ("point_id", pa.string()),
        ("replication", pa.int64()),
        ("seed", pa.int64()),
        ("status", pa.string()),
        ("error", pa.string()),
        ("run_time_s", pa.float64()),
        ("engine_version", pa.string()),
        ("host", pa.string()),
        ("pid", pa.int64()),
        ("finished_at", pa.string()),
        ("scenario_id", pa.string()),
        ("point", pa.string()),
        ("traceback", pa.string()),
        ("scenario", pa.string()),
    ]
)
RESERVED_COLUMNS = frozenset(META_SCHEMA.names)
#: Summary keys that clash with a metadata column are stored with this prefix.
CLASH_PREFIX = "metric."
#: Manifest fields (the traceback and the scenario stay in the run file).
MANIFEST_FIELDS = (
    "key",
    "scenario_id",
    "point_id",
    "point",
    "replication",
    "seed",
    "engine_version",
    "status",
    "error",
    "run_time_s",
    "host",
    "finished_at",
)


def metric_column(name: str) -> str:
    """Column name under which a summary key is stored."""
    return CLASH_PREFIX + name if name in RESERVED_COLUMNS else name


@dataclass
class RunRecord:
    """Everything stored about one finished run (successful or failed)."""

    key: str
    point_id: str
    point: dict[str, Any]
    replication: int
    seed: int
    status: str
    engine_version: str
    scenario_id: str
    scenario_json: str
    run_time_s: float | None = None
    error: str | None = None
    traceback: str | None = None
    host: str | None = None
    pid: int | None = None
    finished_at: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)

    def meta_row(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "point_id": self.point_id,
            "replication": self.replication,
            "seed": self.seed,
            "status": self.status,
            "error": self.error,
            "run_time_s": self.run_time_s,
            "engine_version": self.engine_version,
            "host": self.host,
            "pid": self.pid,
            "finished_at": self.finished_at,
            "scenario_id": self.scenario_id,
            "point": canonical_json(self.point),
            "traceback": self.traceback,
            "scenario": self.scenario_json,
        }

    def to_table(self) -> pa.Table:
        meta = self.meta_row()
        arrays = [pa.array([meta[f.name]], type=f.type) for f in META_SCHEMA]
        names = list(META_SCHEMA.names)
        for k, v in self.metrics.items():
            names.append(metric_column(k))
            arrays.append(pa.array([v]))
        return pa.Table.from_arrays(arrays, names=names)

    def manifest_entry(self) -> dict[str, Any]:
        meta = self.meta_row()
        entry = {k: meta[k] for k in MANIFEST_FIELDS}
        entry["point"] = self.point
        return entry


def _signature(path: Path) -> str:
    """Identity of one version of a run file, for cache validation."""
    st = os.stat(path)
    return f"{st.st_ino}:{st.st_mtime_ns}:{st.st_size}"


def _entry_from_row(row: Mapping[str, Any]) -> dict[str, Any]:
    entry = {k: row.get(k) for k in MANIFEST_FIELDS}
    try:
        entry["point"] = json.loads(entry["point"]) if entry["point"] else {}
    except (TypeError, ValueError):
        entry["point"] = {}
    return entry


class ResultStore:
    """A directory of run results; see the module docstring for the layout."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if create:
            (self.path / RUNS_DIR).mkdir(parents=True, exist_ok=True)
        elif not self.path.is_dir():
            raise FileNotFoundError(f"results store not found: {self.path}")
        self._tail_checked = False

    def __repr__(self) -> str:
        return f"ResultStore({str(self.path)!r})"

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def run_file(self, key: str) -> Path:
        """Path of a run's Parquet file (two-level fan-out keeps directories small)."""
        return self.path / RUNS_DIR / key[:2] / f"{key}.parquet"

    # ------------------------------------------------------------------ writing
    def write_run(self, record: RunRecord) -> Path:
        """Persist one run atomically, then index it in the manifest."""
        target = self.run_file(record.key)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            pq.write_table(record.to_table(), tmp)
            os.replace(tmp, target)
        finally:
            if tmp.exists():
                tmp.unlink()
        self._append_manifest([record.manifest_entry()])
        return target

    def _append_manifest(self, entries: Iterable[Mapping[str, Any]]) -> None:
        data = "".join(json.dumps(e, sort_keys=True, default=str) + "\n" for e in entries)
        if not data:
            return
        fd = os.open(self.manifest_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if not self._tail_checked:
                # A previous writer killed mid-line would glue our first line to its torn one.
                size = os.fstat(fd).st_size
                if size:
                    with open(self.manifest_path, "rb") as fh:
                        fh.seek(size - 1)
                        if fh.read(1) != b"\n":
                            data = "\n" + data
                self._tail_checked = True
            buf = data.encode("utf-8")
            while buf:
                buf = buf[os.write(fd, buf) :]
        finally:
            os.close(fd)

    def _write_json_atomic(self, path: Path, text: str) -> None:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)

    # ------------------------------------------------------------------ indexing
    def run_files(self) -> dict[str, Path]:
        """Key -> file of every completely written run (temp files are ignored)."""
        out: dict[str, Path] = {}
        root = self.path / RUNS_DIR
        if not root.is_dir():
            return out
        with os.scandir(root) as subdirs:
            for sub in subdirs:
                if not sub.is_dir():
                    continue
                with os.scandir(sub.path) as files:
                    for f in files:
                        if f.name.endswith(".parquet") and not f.name.startswith("."):
                            out[f.name[: -len(".parquet")]] = Path(f.path)
        return out

    def _read_manifest(self) -> dict[str, dict[str, Any]]:
        entries: dict[str, dict[str, Any]] = {}
        try:
            fh = open(self.manifest_path, encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return entries
        with fh:
            for line in fh:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue  # torn line from a killed writer
                if isinstance(entry, dict) and isinstance(entry.get("key"), str):
                    entries[entry["key"]] = entry
        return entries

    def _entry_from_file(self, path: Path) -> dict[str, Any] | None:
        try:
            schema = pq.read_schema(path)
            cols = [c for c in MANIFEST_FIELDS if c in schema.names]
            row = pq.read_table(path, columns=cols).to_pylist()[0]
        except Exception as exc:  # corrupt file: treat the run as missing so it is re-run
            warnings.warn(f"ignoring unreadable run file {path}: {exc}", stacklevel=3)
            return None
        return _entry_from_row(row)

    def index(self) -> dict[str, dict[str, Any]]:
        """Key -> manifest entry of every stored run, reconciling with the run files.

        Runs whose file exists but whose manifest line is missing are
        re-indexed (and appended to the manifest).
        """
        files = self.run_files()
        entries = self._read_manifest()
        repaired = []
        out = {}
        for key, path in files.items():
            entry = entries.get(key)
            if entry is None:
                entry = self._entry_from_file(path)
                if entry is None:
                    continue
                repaired.append(entry)
            out[key] = entry
        if repaired:
            self._append_manifest(repaired)
        return out

    def rebuild_manifest(self) -> int:
        """Regenerate the manifest from the run files alone; returns the run count.

        Do not call while a sweep is writing to this store.
        """
        entries = [e for e in map(self._entry_from_file, self.run_files().values()) if e is not None]
        text = "".join(json.dumps(e, sort_keys=True, default=str) + "\n" for e in entries)
        self._write_json_atomic(self.manifest_path, text)
        self._tail_checked = False
        return len(entries)

    def compact_manifest(self) -> None:
        """Rewrite the manifest atomically with one line per stored run."""
        index = self.index()
        text = "".join(json.dumps(e, sort_keys=True, default=str) + "\n" for e in index.values())
        self._write_json_atomic(self.manifest_path, text)
        self._tail_checked = False

    def manifest(self) -> pd.DataFrame:
        """The index as a DataFrame (``point`` holds the axis values as a dict)."""
        index = self.index()
        return pd.DataFrame(list(index.values()), columns=list(MANIFEST_FIELDS))

    def cost_estimates(self, index: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, float]:
        """Mean run time of successful runs per scenario id (for longest-first)."""
        index = self.index() if index is None else index
        sums: dict[str, list[float]] = {}
        for e in index.values():
            t = e.get("run_time_s")
            if e.get("status") == "ok" and isinstance(t, (int, float)) and e.get("scenario_id"):
                sums.setdefault(e["scenario_id"], []).append(float(t))
        return {k: sum(v) / len(v) for k, v in sums.items()}

    # --------------------------------------------------------------- sweep meta
    def save_sweep_meta(self, meta: Mapping[str, Any]) -> None:
        """Remember the last sweep run here, so ``aggregate()`` knows its axes and jobs."""
        self._write_json_atomic(self.path / SWEEP_META, json.dumps(meta, indent=1, default=str))

    def load_sweep_meta(self) -> dict[str, Any] | None:
        try:
            return json.loads((self.path / SWEEP_META).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None

    # ------------------------------------------------------------------ reading
    @staticmethod
    def _read_one(path: Path) -> pa.Table:
        sig = _signature(path)  # before reading: a concurrent rewrite can only make the cache miss
        table = pq.ParquetFile(path).read(use_threads=False)
        return table.append_column(_SIG, pa.array([sig], pa.string()))

    @staticmethod
    def _concat(tables: Sequence[pa.Table]) -> pa.Table | pd.DataFrame:
        try:
            return pa.concat_tables(tables, promote_options="permissive")
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            # A metric with incompatible types across runs (e.g. str and float): fall back to objects.
            return pd.concat([t.to_pandas() for t in tables], ignore_index=True)

    def _load_cache(self) -> pa.Table | None:
        try:
            return pq.read_table(self.path / CACHE)
        except Exception:  # missing or unreadable: the cache is only an accelerator
            return None

    def read_runs(self, keys: Iterable[str] | None = None, status: str | None = None) -> pd.DataFrame:
        """Raw run rows (metadata + metrics, ``point`` as canonical JSON).

        Reading thousands of one-row files costs about a millisecond each, so
        the rows read are also kept in ``STORE/cache/runs.parquet``; a cached
        row is reused while its run file is unchanged (same inode, mtime and
        size; a rewrite always makes a new inode via ``os.replace``).  Deleting the
        cache is always safe.
        """
        files = self.run_files()
        wanted = files if keys is None else {k: files[k] for k in keys if k in files}
        if status is not None:
            index = self.index()
            wanted = {k: p for k, p in wanted.items() if index.get(k, {}).get("status") == status}
        if not wanted:
            return pd.DataFrame(columns=list(META_SCHEMA.names))
        sigs = {k: _signature(p) for k, p in wanted.items()}
        cache = self._load_cache()
        cached = None
        if cache is not None and _SIG in cache.column_names and "key" in cache.column_names:
            ck = cache.column("key").to_pylist()
            cs = cache.column(_SIG).to_pylist()
            fresh = [i for i, (k, sig) in enumerate(zip(ck, cs, strict=True)) if k in sigs and sigs[k] == sig]
            cached = cache.take(pa.array(fresh, pa.int64()))
            have = {ck[i] for i in fresh}
        else:
            have = set()
        missing = [p for k, p in wanted.items() if k not in have]
        tables = [cached] if cached is not None and cached.num_rows else []
        if missing:
            with ThreadPoolExecutor(max_workers=min(8, len(missing))) as pool:
                new = list(pool.map(self._read_one, missing))
            tables.extend(new)
            self._update_cache(cache, new, files)
        combined = self._concat(tables)
        df = combined.to_pandas() if isinstance(combined, pa.Table) else combined
        df = df.drop(columns=[_SIG], errors="ignore")
        if status is not None and len(df):
            df = df[df["status"] == status].reset_index(drop=True)
        return df

    def _update_cache(self, cache: pa.Table | None, new: Sequence[pa.Table], files: Mapping[str, Path]) -> None:
        """Merge freshly read rows into the cache (best effort, atomic replace)."""
        try:
            new_keys = set()
            for t in new:
                new_keys.update(t.column("key").to_pylist())
            parts = list(new)
            if cache is not None and "key" in cache.column_names:
                keep = [i for i, k in enumerate(cache.column("key").to_pylist()) if k in files and k not in new_keys]
                if keep:
                    parts.insert(0, cache.take(pa.array(keep, pa.int64())))
            merged = self._concat(parts)
            if not isinstance(merged, pa.Table):
                return  # incompatible metric types: not worth caching
            target = self.path / CACHE
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
            pq.write_table(merged, tmp)
            os.replace(tmp, target)
        except OSError:
            pass

    def runs(self, status: str | None = None, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """One row per stored run: metadata, one column per axis path, then metrics.

        ``status`` filters to ``"ok"`` or ``"failed"`` runs.  Axis columns are
        named by their dotted path; one that clashes with another column is
        prefixed ``"axis:"``.
        """
        df = self.read_runs(keys=keys, status=status)
        points = [json.loads(p) if isinstance(p, str) else {} for p in df.get("point", [])]
        axes: list[str] = []
        meta = self.load_sweep_meta()
        if meta:
            axes.extend(meta.get("axes", []))
        for p in points:
            axes.extend(a for a in p if a not in axes)
        lead = [c for c in META_SCHEMA.names if c in df.columns and c not in ("point", "traceback", "scenario")]
        tail = [c for c in ("point", "traceback", "scenario") if c in df.columns]
        metrics = [c for c in df.columns if c not in RESERVED_COLUMNS]
        out = df[lead].copy()
        for a in axes:
            values = [p.get(a) for p in points]
            if not any(a in p for p in points):
                continue
            name = a if a not in df.columns else f"axis:{a}"
            out[name] = axis_series(values).set_axis(out.index)
        out = pd.concat([out, df[metrics], df[tail]], axis=1)
        if "replication" in out.columns and len(out):
            # Definition order of the last sweep, then any other points by their JSON.
            rank = {p: i for i, p in enumerate((meta or {}).get("point_order", []))}
            pts, reps = list(df["point"]), list(df["replication"])
            order = sorted(range(len(out)), key=lambda i: (rank.get(pts[i], len(rank)), pts[i], reps[i]))
            out = out.iloc[order].reset_index(drop=True)
        return out

    # -------------------------------------------------------------- aggregation
    def aggregate(
        self,
        metrics: Sequence[str] | None = None,
        *,
        keys: Iterable[str] | None = None,
        axes: Sequence[str] | None = None,
        point_order: Sequence[str] | None = None,
        confidence: float = 0.95,
    ) -> pd.DataFrame:
        """Tidy per-point statistics of successful runs.

        Defaults come from the last sweep run into this store (its jobs, axes,
        point order and kept metrics); without one, every stored run is used.
        """
        meta = self.load_sweep_meta() or {}
        if keys is None and "keys" in meta:
            keys = meta["keys"]
        if axes is None:
            axes = meta.get("axes")
        if point_order is None:
            point_order = meta.get("point_order")
        if metrics is None:
            metrics = meta.get("metrics")
        df = self.read_runs(keys=keys, status="ok")
        if axes is None:
            axes = []
            for p in df.get("point", []):
                axes.extend(a for a in json.loads(p) if a not in axes)
        metric_cols = None if metrics is None else [metric_column(m) for m in metrics]
        table = aggregate_runs(df, axes=axes, metrics=metric_cols, point_order=point_order, confidence=confidence)
        if metrics is not None:
            rename = {metric_column(m): m for m in metrics}
            table["metric"] = table["metric"].map(lambda m: rename.get(m, m))
        return table

    def export(
        self,
        path: str | Path,
        format: str | None = None,  # noqa: A002
        *,
        wide: bool = False,
        metrics: Sequence[str] | None = None,
    ) -> Path:
        """Write the aggregate table as Parquet or CSV (by ``format`` or suffix)."""
        table = self.aggregate(metrics)
        if wide:
            meta = self.load_sweep_meta() or {}
            axes = meta.get("axes") or [c for c in table.columns if c not in _TIDY_STATS]
            table = to_wide(table, axes)
        return export_table(table, path, format)


_TIDY_STATS = ("metric", "mean", "std", "n", "ci95_low", "ci95_high", "ci95_half_width")
