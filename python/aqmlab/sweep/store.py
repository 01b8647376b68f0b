"""On-disk results store: one Arrow IPC file per finished run, indexed in SQLite.

Layout of a store directory::

    STORE/
      runs/ab/ab12...ef.arrow     one row per run (ok or failed); stores written before
                                  2026-11-25 hold ``.parquet`` run files, still read
      index.sqlite                per run: manifest fields, engine fingerprint, file sha256 and
                                  size; per run being computed: which sweep claimed it
      sweep.json                  the last sweep run into this store (keys, axes, order)
      cache/runs.parquet          all run rows consolidated for fast reading (safe to delete)
      corrupt/                    run files found damaged, set aside (their runs are re-run)

Rules, chosen so that no finished run is lost and no damaged one is used:

* a run file is written atomically (:func:`.atomic_file.write_atomic`: temp
  file, fsync, rename), then indexed with its SHA-256 and size in one SQLite
  transaction that also releases the sweep's claim on it;
* a run file without an index row (the process died between the two writes)
  is indexed again from the file; an index row without a file is dropped;
* a file whose size differs from its row, or (on a full check or a read) whose
  SHA-256 differs, or that does not parse, is *corrupt*: it is moved to
  ``corrupt/``, a warning names the run, and the next sweep re-runs it; a read
  that meets one raises :class:`CorruptRunError` naming it;
* a full disk raises :class:`.atomic_file.DiskFullError` with nothing partial
  written, so the store stays readable and the sweep resumable;
* a store this process may not write (archived read-only, a read-only mount)
  is read without any of the repairs above: the index is opened read-only,
  nothing is created, moved or re-indexed on disk, and a corrupt run file is
  left where it is and left out (:mod:`.store_index`); writing to it raises
  :class:`.store_index.StoreReadOnlyError`.

Only the driver process writes to the store; workers return results to it.
That keeps the store on the driver's local disk even when the workers are a
remote Dask cluster without a shared filesystem.
"""

from __future__ import annotations

import errno
import json
import os
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from .aggregate import aggregate_runs, axis_series, export_table, to_wide
from .atomic_file import DiskFullError, remove_dead_temp_files, sha256_hex, write_atomic
from .keys import canonical_json
from .run_schema import META_SCHEMA, RESERVED_COLUMNS, metric_column
from .store_index import StoreIndex, StoreReadOnlyError, directory_writable

RUNS_DIR = "runs"
#: A run file is one Arrow IPC file (uncompressed): writing and reading one row costs about
#: 0.03 ms against 0.8 and 1.4 ms as Parquet, whose per-file metadata dominates a one-row
#: file (BENCHMARKS.md, "Results store"). Parquet run files of older stores are still read.
RUN_SUFFIX = ".arrow"
LEGACY_RUN_SUFFIX = ".parquet"
CORRUPT_DIR = "corrupt"
SWEEP_META = "sweep.json"
CACHE = "cache/runs.parquet"
_SIG = "_file_signature"

#: Index fields shown by :meth:`ResultStore.manifest` (the traceback and scenario stay in the file).
MANIFEST_FIELDS = (
    "key",
    "scenario_id",
    "point_id",
    "point",
    "replication",
    "seed",
    "engine_version",
    "fingerprint",
    "status",
    "error",
    "run_time_s",
    "host",
    "finished_at",
)


class CorruptRunError(RuntimeError):
    """Stored run files were damaged; they were set aside and their runs will be re-run.

    ``runs`` lists ``(key, description)`` pairs."""

    def __init__(self, store: Path, runs: Sequence[tuple[str, str]], *, moved: bool = True) -> None:
        self.runs = list(runs)
        shown = "; ".join(f"{k[:12]} ({d})" for k, d in self.runs[:5])
        more = f" and {len(self.runs) - 5} more" if len(self.runs) > 5 else ""
        where = (
            f"They were moved to {store / CORRUPT_DIR} and will be re-run by the next sweep (run the same command again)."
            if moved
            else "The store is read-only: they were left in place and are left out of what is read."
        )
        super().__init__(f"{len(self.runs)} stored run(s) in {store} were corrupt: {shown}{more}. {where}")


class StorePathError(NotADirectoryError):
    """A results store's path is a file (or lies under one): a store is a directory."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"a results store is a directory, and {path} is a file (or lies under one)")
        self.errno, self.filename = errno.ENOTDIR, str(path)

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass
class CorruptFile:
    """A damaged run file met while reading: where it is now, and what was wrong."""

    key: str
    path: Path
    why: str


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
    fingerprint: str | None = None

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
            "fingerprint": self.fingerprint,
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

    def to_file_bytes(self) -> bytes:
        """The run file's contents: the one-row table as an Arrow IPC file."""
        table = self.to_table()
        sink = pa.BufferOutputStream()
        with ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        return sink.getvalue().to_pybytes()


def read_run_file(path: Path, data: bytes) -> pa.Table:
    """A run file's table, by its suffix (Arrow IPC, or Parquet in older stores)."""
    if path.suffix == LEGACY_RUN_SUFFIX:
        return pq.ParquetFile(pa.BufferReader(data)).read(use_threads=False)
    return ipc.open_file(pa.BufferReader(data)).read_all()


def _signature(path: Path) -> str:
    """Identity of one version of a run file, for cache validation."""
    st = os.stat(path)
    return f"{st.st_ino}:{st.st_mtime_ns}:{st.st_size}"


def _index_entry(row: Mapping[str, Any], sha: str, size: int) -> dict[str, Any]:
    """An index row from a run file's metadata row (``point`` kept as canonical JSON)."""
    entry = {k: row.get(k) for k in MANIFEST_FIELDS}
    entry["sha256"], entry["size"] = sha, size
    return entry


def _public(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An index row as the API shows it: manifest fields, ``point`` as a dict."""
    out = {k: entry.get(k) for k in MANIFEST_FIELDS}
    try:
        out["point"] = json.loads(out["point"]) if out["point"] else {}
    except (TypeError, ValueError):
        out["point"] = {}
    return out


def _describe(entry: Mapping[str, Any] | None) -> str:
    if not entry:
        return "not indexed"
    return f"point {entry.get('point')}, replication {entry.get('replication')}"


class ResultStore:
    """A directory of run results; see the module docstring for the layout."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise StorePathError(self.path)
        if create:
            try:
                (self.path / RUNS_DIR).mkdir(parents=True, exist_ok=True)
            except (NotADirectoryError, FileExistsError):  # a file on the way
                raise StorePathError(self.path) from None
            except OSError:
                if not (self.path / RUNS_DIR).is_dir():
                    raise
                # An existing store on a read-only mount (EROFS even with exist_ok): readable.
        elif not self.path.is_dir():
            raise FileNotFoundError(f"results store not found: {self.path}")
        #: False on a store this process may not write: it is read without repairs.
        self.writable = directory_writable(self.path)
        #: Damaged run files met so far, by key (moved to ``corrupt/``, or left in place when
        #: the store is read-only); :meth:`read_runs` can skip them and report them here.
        self.corrupt_found: dict[str, CorruptFile] = {}
        #: Whether meeting a damaged file also warns (the CLI reports them itself).
        self.warn_corrupt = True
        self.db = StoreIndex(self.path)
        if self.writable:
            remove_dead_temp_files(self.path)

    def require_writable(self) -> None:
        """Raises :class:`.store_index.StoreReadOnlyError` unless this store can be written."""
        if not self.writable:
            raise StoreReadOnlyError(self.db.path)

    def __repr__(self) -> str:
        return f"ResultStore({str(self.path)!r})"

    def run_file(self, key: str) -> Path:
        """Path a run's file is written to (two-level fan-out keeps directories small)."""
        return self.path / RUNS_DIR / key[:2] / f"{key}{RUN_SUFFIX}"

    # ------------------------------------------------------------------ writing
    def write_run(self, record: RunRecord, *, release_owner: str | None = None) -> Path:
        """Persist one run atomically, then index it (and drop ``release_owner``'s claim on it).

        Raises :class:`.atomic_file.DiskFullError` with nothing partial written; with
        ``run_stored`` set when the run file was written and only its index row was not."""
        target = self.run_file(record.key)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = record.to_file_bytes()
        write_atomic(target, data)
        entry = _index_entry(record.meta_row(), sha256_hex(data), len(data))
        try:
            self.db.put_runs([entry], release_owner=release_owner)
        except DiskFullError as exc:
            # The run file is whole: the next reader indexes it from the file. The caller
            # counts the run as stored (``run_stored``), not as lost.
            exc.run_stored = True  # type: ignore[attr-defined]
            raise
        # A re-run of a run an older store held as Parquet: the new file replaces it.
        target.with_suffix(LEGACY_RUN_SUFFIX).unlink(missing_ok=True)
        return target

    # ------------------------------------------------------------------ indexing
    def run_files(self) -> dict[str, Path]:
        """Key -> file of every completely written run (temp files are ignored; dead writers'
        temp files are removed)."""
        out: dict[str, Path] = {}
        root = self.path / RUNS_DIR
        if not root.is_dir():
            return out
        with os.scandir(root) as subdirs:
            for sub in subdirs:
                if not sub.is_dir():
                    continue
                if self.writable:
                    remove_dead_temp_files(Path(sub.path))
                with os.scandir(sub.path) as files:
                    for f in files:
                        if f.name.startswith("."):
                            continue
                        key, dot, suffix = f.name.rpartition(".")
                        if not dot:
                            continue
                        # A key with both files (a crash between writing a re-run and removing
                        # its Parquet predecessor): the Arrow file, the newer, wins.
                        if f".{suffix}" == RUN_SUFFIX or (f".{suffix}" == LEGACY_RUN_SUFFIX and key not in out):
                            out[key] = Path(f.path)
        return out

    def _quarantine(self, found: Mapping[str, tuple[Path, str]]) -> None:
        """Move damaged run files aside, drop their index rows and warn, naming each run.

        On a read-only store they stay where they are and are left out of every later read by
        this object (:attr:`corrupt_found`); nothing on disk changes."""
        found = {k: v for k, v in found.items() if k not in self.corrupt_found}
        if not found:
            return
        dest = self.path / CORRUPT_DIR
        stamp = time.strftime("%Y%m%dT%H%M%S")
        for key, (path, why) in found.items():
            now_at = path
            if self.writable:
                try:
                    dest.mkdir(exist_ok=True)
                    os.replace(path, dest / f"{key}.{stamp}{path.suffix}")
                    now_at = dest / f"{key}.{stamp}{path.suffix}"
                except FileNotFoundError:
                    pass
            self.corrupt_found[key] = CorruptFile(key, now_at, why)
        self._repair(self.db.delete_runs, list(found))
        if not self.warn_corrupt:
            return
        names = "; ".join(f"{self.corrupt_found[k].path} ({why})" for k, (_, why) in list(found.items())[:5])
        where = f"moved to {dest}; they will be re-run" if self.writable else "left in place (read-only store)"
        warnings.warn(f"{len(found)} corrupt run file(s) in {self.path} {where}: {names}", stacklevel=3)

    def _index_file(self, path: Path) -> dict[str, Any] | None:
        """An index row rebuilt from a run file, or None if the file does not parse."""
        try:
            data = path.read_bytes()
            table = read_run_file(path, data)
            row = table.select([c for c in MANIFEST_FIELDS if c in table.column_names]).to_pylist()[0]
        except Exception:
            return None
        return _index_entry(row, sha256_hex(data), len(data))

    def _reconciled(self) -> tuple[dict[str, dict[str, Any]], dict[str, Path]]:
        """Key -> raw index row of every stored run, after reconciling index and files, and
        key -> its run file."""
        files = {k: p for k, p in self.run_files().items() if k not in self.corrupt_found}
        rows = self.db.runs()
        gone = [k for k in rows if k not in files]
        if gone:
            self._repair(self.db.delete_runs, gone)
        new, corrupt, out = [], {}, {}
        for key, path in files.items():
            row = rows.get(key)
            if row is None:
                row = self._index_file(path)
                if row is None:
                    corrupt[key] = (path, "file does not parse")
                    continue
                new.append(row)
            else:
                try:
                    size = path.stat().st_size
                except FileNotFoundError:
                    continue
                if row.get("size") is not None and size != row["size"]:
                    corrupt[key] = (path, f"{_describe(row)}: {size} bytes, {row['size']} written")
                    continue
            out[key] = row
        if new:
            self._repair(self.db.put_runs, new)
        self._quarantine(corrupt)
        return out, files

    def _repair(self, write: Any, arg: Any) -> None:
        """An index repair found while reading; on a full disk or a read-only store, reading
        goes on without it (the next reader that may write repairs it)."""
        if not self.writable:
            return
        try:
            write(arg)
        except (DiskFullError, StoreReadOnlyError):
            pass

    def index(self) -> dict[str, dict[str, Any]]:
        """Key -> manifest entry of every stored run (``point`` as a dict).

        Run files missing from the index are indexed; index rows without a file
        are dropped; files of the wrong size are set aside as corrupt."""
        return {k: _public(e) for k, e in self._reconciled()[0].items()}

    def verify(self, keys: Iterable[str] | None = None) -> list[str]:
        """Check the SHA-256 of stored runs (all, or ``keys``); corrupt ones are set aside
        (see the module docstring). Returns the corrupt keys."""
        rows, files = self._reconciled()
        wanted = rows if keys is None else {k: rows[k] for k in keys if k in rows}
        corrupt = {}
        for key, row in wanted.items():
            path = files[key]
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            if row.get("sha256") and sha256_hex(data) != row["sha256"]:
                corrupt[key] = (path, f"{_describe(row)}: checksum mismatch")
        self._quarantine(corrupt)
        return list(corrupt)

    def rebuild_index(self) -> int:
        """Re-index every run from its file alone (trusting the files as they are now);
        returns the run count. Do not call while a sweep is writing to this store."""
        self.db.delete_runs(self.db.runs())
        return len(self._reconciled()[0])

    def manifest(self) -> pd.DataFrame:
        """The index as a DataFrame (``point`` holds the axis values as a dict)."""
        return pd.DataFrame(list(self.index().values()), columns=list(MANIFEST_FIELDS))

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
        write_atomic(self.path / SWEEP_META, json.dumps(meta, indent=1, default=str).encode("utf-8"))

    def load_sweep_meta(self) -> dict[str, Any] | None:
        try:
            meta: dict[str, Any] = json.loads((self.path / SWEEP_META).read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return None
        return meta

    # ------------------------------------------------------------------ reading
    @staticmethod
    def _read_one(path: Path, sha: str | None) -> pa.Table | str:
        """One run file as a table, or what is wrong with it (its checksum, or it does not parse)."""
        try:
            sig = _signature(path)  # before reading: a concurrent rewrite can only make the cache miss
            data = path.read_bytes()
            if sha and sha256_hex(data) != sha:
                return "checksum mismatch"
            table = read_run_file(path, data)
        except FileNotFoundError:
            raise
        except Exception as exc:
            return f"does not parse: {type(exc).__name__}"
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

    def read_runs(
        self, keys: Iterable[str] | None = None, status: str | None = None, *, skip_corrupt: bool = False
    ) -> pd.DataFrame:
        """Raw run rows (metadata + metrics, ``point`` as canonical JSON).

        Every file read is checked against the SHA-256 recorded when it was
        written; a damaged one is set aside and :class:`CorruptRunError` names it
        (with ``skip_corrupt``, it is left out of the rows and named in
        :attr:`corrupt_found` instead).
        Reading thousands of one-row files costs about 0.1 ms each, so
        the rows read are also kept in ``STORE/cache/runs.parquet``; a cached
        row is reused while its run file is unchanged (same inode, mtime and
        size; a rewrite always makes a new inode via ``os.replace``).  Deleting the
        cache is always safe.
        """
        rows, files = self._reconciled()
        wanted = rows if keys is None else {k: rows[k] for k in keys if k in rows}
        if status is not None:
            wanted = {k: r for k, r in wanted.items() if r.get("status") == status}
        if not wanted:
            return pd.DataFrame(columns=list(META_SCHEMA.names))
        paths = {k: files[k] for k in wanted}
        sigs = {k: _signature(p) for k, p in paths.items()}
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
        missing = [k for k in wanted if k not in have]
        tables = [cached] if cached is not None and cached.num_rows else []
        if missing:
            with ThreadPoolExecutor(max_workers=min(8, len(missing))) as pool:
                new = list(pool.map(lambda k: self._read_one(paths[k], wanted[k].get("sha256")), missing))
            corrupt = {
                k: (paths[k], f"{_describe(wanted[k])}: {t}")
                for k, t in zip(missing, new, strict=True)
                if isinstance(t, str)
            }
            if corrupt:
                self._quarantine(corrupt)
                if not skip_corrupt:
                    runs = [(k, why) for k, (_, why) in corrupt.items()]
                    raise CorruptRunError(self.path, runs, moved=self.writable)
            read = [t for t in new if not isinstance(t, str)]  # a corrupt one raised above, or is skipped
            tables.extend(read)
            if self.writable:
                self._update_cache(cache, read, rows)
        if not tables:
            return pd.DataFrame(columns=list(META_SCHEMA.names))
        combined = self._concat(tables)
        df = combined.to_pandas() if isinstance(combined, pa.Table) else combined
        return df.drop(columns=[_SIG], errors="ignore")

    def _update_cache(self, cache: pa.Table | None, new: Sequence[pa.Table], stored: Mapping[str, Any]) -> None:
        """Merge freshly read rows into the cache (best effort, atomic replace)."""
        try:
            new_keys = set()
            for t in new:
                new_keys.update(t.column("key").to_pylist())
            parts = list(new)
            if cache is not None and "key" in cache.column_names:
                keep = [i for i, k in enumerate(cache.column("key").to_pylist()) if k in stored and k not in new_keys]
                if keep:
                    parts.insert(0, cache.take(pa.array(keep, pa.int64())))
            merged = self._concat(parts)
            if not isinstance(merged, pa.Table):
                return  # incompatible metric types: not worth caching
            target = self.path / CACHE
            target.parent.mkdir(parents=True, exist_ok=True)
            sink = pa.BufferOutputStream()
            pq.write_table(merged, sink)
            write_atomic(target, sink.getvalue().to_pybytes(), durable=False)
        except OSError:
            pass  # the cache is only an accelerator (a full disk included)

    def runs(
        self, status: str | None = None, keys: Iterable[str] | None = None, *, skip_corrupt: bool = False
    ) -> pd.DataFrame:
        """One row per stored run: metadata, one column per axis path, then metrics.

        ``status`` filters to ``"ok"`` or ``"failed"`` runs.  Axis columns are
        named by their dotted path; one that clashes with another column is
        prefixed ``"axis:"``.
        """
        df = self.read_runs(keys=keys, status=status, skip_corrupt=skip_corrupt)
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
        skip_corrupt: bool = False,
    ) -> pd.DataFrame:
        """Tidy per-point statistics of successful runs.

        Defaults come from the last sweep run into this store (its jobs, axes,
        point order and kept metrics); without one, every stored run is used.
        ``skip_corrupt``: see :meth:`read_runs`.
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
        df = self.read_runs(keys=keys, status="ok", skip_corrupt=skip_corrupt)
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
        skip_corrupt: bool = False,
    ) -> Path:
        """Write the aggregate table as Parquet or CSV (by ``format`` or suffix)."""
        table = self.aggregate(metrics, skip_corrupt=skip_corrupt)
        if wide:
            meta = self.load_sweep_meta() or {}
            axes = meta.get("axes") or [c for c in table.columns if c not in _TIDY_STATS]
            table = to_wide(table, axes)
        return export_table(table, path, format)


_TIDY_STATS = ("metric", "mean", "std", "n", "ci95_low", "ci95_high", "ci95_half_width")
