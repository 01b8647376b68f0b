"""A results store's index: one SQLite database (WAL mode) beside the run files.

It holds, per stored run, the manifest fields plus the engine ``fingerprint``
that computed it and the run file's ``sha256`` and ``size`` (to detect a
truncated or corrupted file); and, per run being computed, a *claim* naming
the sweep process that runs it, so that two sweeps sharing a store never run
the same point twice.

Why SQLite: claims must be taken atomically across processes, and an index
must survive a process killed mid-write.  SQLite's transactions give both;
WAL mode lets readers proceed while a sweep writes.  ``synchronous=NORMAL``
in WAL mode cannot corrupt the database on a crash (the last transactions may
be lost on a power cut, which the run files' reconciliation repairs: see
:meth:`aqmlab.sweep.store.ResultStore.index`).  SQLite's locking needs a local
filesystem; a store on NFS is not supported.

A claim is *live* while its process runs: on the same host, while its pid
exists; from another host, while its heartbeat is younger than
:data:`CLAIM_TIMEOUT_S` (the driver refreshes it every few seconds).

Reading never creates, converts or migrates the database: reads use their own
read-only connection (``mode=ro``), and none at all while there is no index
file. On a directory this process cannot write (an archived store, a read-only
mount), a WAL database cannot be read the ordinary way, because a reader must
create the ``-shm`` file beside it; there the reader opens it ``immutable``
(no locks, no ``-shm``): nobody can be writing to a directory no one may write
to. An immutable reader does not see a ``-wal`` file that its writer left
unmerged (a sweep killed, or copied while open), so then the index and its WAL
are copied to a private temporary directory and read there, where SQLite can
replay the WAL. Writes to a read-only store raise :class:`StoreReadOnlyError`
(issue 24, item 13).
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import socket
import sqlite3
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from .atomic_file import DiskFullError, _pid_alive

INDEX_FILE = "index.sqlite"
#: Schema version (``PRAGMA user_version``); a store written by a newer schema is refused.
SCHEMA_VERSION = 1
#: A claim from another host whose heartbeat is older than this is taken over.
CLAIM_TIMEOUT_S = 600.0
#: How long an operation retries a "database is locked" that SQLite's busy handler did not absorb.
BUSY_RETRY_S = 60.0

#: Columns of the ``runs`` table after ``key``, in order.
RUN_COLUMNS = (
    "status",
    "fingerprint",
    "sha256",
    "size",
    "scenario_id",
    "point_id",
    "point",
    "replication",
    "seed",
    "engine_version",
    "error",
    "run_time_s",
    "host",
    "finished_at",
)

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS runs (key TEXT PRIMARY KEY, {", ".join(RUN_COLUMNS)});
CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT NOT NULL, host TEXT NOT NULL,
                                   pid INTEGER NOT NULL, heartbeat REAL NOT NULL);
"""


T = TypeVar("T")
#: One SQL statement and its parameters.
Statement = tuple[str, tuple[object, ...]]


class StoreIndexError(RuntimeError):
    """The index database cannot be used (newer schema, not a database)."""


class StoreReadOnlyError(OSError):
    """A write to a store this process may not write (a read-only directory or mount)."""

    def __init__(self, path: Path) -> None:
        super().__init__(errno.EROFS, f"the results store {path.parent} is read-only (it can be read, not written)")
        self.filename = str(path.parent)

    def __str__(self) -> str:
        return str(self.strerror)


def _read_only(exc: BaseException) -> bool:
    """SQLite's refusals to write a read-only file or directory."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("readonly" in text or "read-only" in text)


def directory_writable(directory: Path) -> bool:
    """Whether this process may create files in ``directory`` (False on a read-only mount too)."""
    return os.access(directory, os.W_OK | os.X_OK)


def _full(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "full" in str(exc).lower()


def _busy(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def _retry_busy(operation: Callable[[], T]) -> T:
    """Run ``operation``, retrying while SQLite reports the database locked.

    The connection's busy timeout covers ordinary lock waits, but some WAL-mode
    paths (opening while another process switches the file to WAL, or recovers
    the WAL index) return SQLITE_BUSY at once without calling the busy handler.
    """
    deadline = time.monotonic() + BUSY_RETRY_S
    delay = 0.001
    while True:
        try:
            return operation()
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


class StoreIndex:
    """The SQLite index of one store directory (one connection per process)."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / INDEX_FILE
        self._conn: sqlite3.Connection | None = None
        self._pid = -1
        self._reader: sqlite3.Connection | None = None
        self._reader_pid = -1
        self._private_copy: tempfile.TemporaryDirectory[str] | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------- connection
    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        # A connection inherited through fork must not be used by the child.
        # Opening (switching a new file to WAL, writing the schema) is serialized
        # across processes by an advisory lock on a side file: concurrent
        # switches to WAL fail with "database is locked" without waiting.
        # (A read-only store directory cannot hold the lock file: then no lock.)
        try:
            lock_file = open(self.path.with_name(INDEX_FILE + ".lock"), "a")  # noqa: SIM115
        except OSError:
            lock_file = None
        try:
            if lock_file is not None:
                fcntl.flock(lock_file, fcntl.LOCK_EX)
            conn = _retry_busy(self._open)
        finally:
            if lock_file is not None:
                lock_file.close()  # closing releases the flock
        self._conn, self._pid = conn, os.getpid()
        return conn

    def _open(self) -> sqlite3.Connection:
        if not directory_writable(self.path.parent):
            raise StoreReadOnlyError(self.path)
        conn = None
        try:
            conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise self._newer_schema(version)
            if version < SCHEMA_VERSION:  # a new store (no write otherwise: a full disk can still be read)
                conn.executescript(_SCHEMA)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except BaseException as exc:
            if conn is not None:
                conn.close()
            if not isinstance(exc, sqlite3.DatabaseError):
                raise
            if _full(exc):
                raise DiskFullError(28, f"no space left on the device for the store index {self.path}") from exc
            if _busy(exc):
                raise
            if _read_only(exc):
                raise StoreReadOnlyError(self.path) from exc
            raise StoreIndexError(f"cannot open the store index {self.path}: {exc}") from exc
        return conn

    def _newer_schema(self, version: int) -> StoreIndexError:
        """The error for an index whose schema ``version`` this aqmlab does not know (read or
        write: neither may touch it)."""
        return StoreIndexError(f"{self.path} was written by a newer aqmlab (index schema {version} > {SCHEMA_VERSION})")

    def _read_connection(self) -> sqlite3.Connection | None:
        """A read-only connection (see the module docstring), or None while there is no index."""
        if self._reader is not None and self._reader_pid == os.getpid():
            return self._reader
        if not self.path.is_file():
            return None  # not created by a read: the first write creates it
        uri = self._read_uri()
        conn = None
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=60.0, isolation_level=None, check_same_thread=False)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            if _busy(exc):
                raise
            raise StoreIndexError(f"cannot open the store index {self.path}: {exc}") from exc
        if version > SCHEMA_VERSION:
            conn.close()
            raise self._newer_schema(version)
        self._reader, self._reader_pid = conn, os.getpid()
        return conn

    def _read_uri(self) -> str:
        """Where the read connection reads (see the module docstring)."""
        if directory_writable(self.path.parent):
            return f"file:{urllib.parse.quote(str(self.path))}?mode=ro"
        wal = self.path.with_name(INDEX_FILE + "-wal")
        if not (wal.is_file() and wal.stat().st_size > 0):
            return f"file:{urllib.parse.quote(str(self.path))}?mode=ro&immutable=1"
        self._private_copy = tempfile.TemporaryDirectory(prefix="aqmlab-index-")
        copy = Path(self._private_copy.name) / INDEX_FILE
        shutil.copyfile(self.path, copy)
        shutil.copyfile(wal, copy.with_name(wal.name))
        return f"file:{urllib.parse.quote(str(copy))}"

    def _select(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        """Rows of one query on the read connection ([] while there is no index or no tables)."""

        def query() -> list[tuple[Any, ...]]:
            conn = self._read_connection()
            if conn is None:
                return []
            try:
                return conn.execute(sql, args).fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):  # an index file a writer has not initialised yet
                    return []
                raise

        with self._lock:
            return _retry_busy(query)

    def close(self) -> None:
        for conn, pid in ((self._conn, self._pid), (self._reader, self._reader_pid)):
            if conn is not None and pid == os.getpid():
                conn.close()
        self._conn = self._reader = None
        if self._private_copy is not None:
            self._private_copy.cleanup()
            self._private_copy = None

    def _write(self, statements: Iterable[Statement]) -> None:
        """Run ``statements`` in one immediate transaction."""
        statements = list(statements)

        def transaction(conn: sqlite3.Connection) -> None:
            for sql, args in statements:
                conn.execute(sql, args)

        self._transaction(transaction)

    def _transaction(self, body: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``body(connection)`` in one immediate transaction (retried whole while locked)."""

        def attempt() -> T:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
                result = body(conn)
                conn.execute("COMMIT")
                return result
            except BaseException as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if _full(exc):
                    raise DiskFullError(28, f"no space left on the device for the store index {self.path}") from exc
                if _read_only(exc):
                    raise StoreReadOnlyError(self.path) from exc
                raise

        with self._lock:
            return _retry_busy(attempt)

    # ------------------------------------------------------------------- runs
    def put_runs(self, entries: Iterable[Mapping[str, Any]], *, release_owner: str | None = None) -> None:
        """Insert or replace run rows; with ``release_owner``, drop that owner's claims on them."""
        cols = ("key", *RUN_COLUMNS)
        sql = f"INSERT OR REPLACE INTO runs ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
        stmts: list[Statement] = []
        for e in entries:
            stmts.append((sql, tuple(e.get(c) for c in cols)))
            if release_owner is not None:
                stmts.append(("DELETE FROM claims WHERE key=? AND owner=?", (e["key"], release_owner)))
        if stmts:
            self._write(stmts)

    def delete_runs(self, keys: Iterable[str]) -> None:
        self._write(("DELETE FROM runs WHERE key=?", (k,)) for k in list(keys))

    def runs(self) -> dict[str, dict[str, Any]]:
        """Key -> row of every indexed run."""
        cols = ("key", *RUN_COLUMNS)
        rows = self._select(f"SELECT {', '.join(cols)} FROM runs")
        return {r[0]: dict(zip(cols, r, strict=True)) for r in rows}

    # ----------------------------------------------------------------- claims
    @staticmethod
    def claim_is_live(holder: Mapping[str, Any], now: float | None = None) -> bool:
        if holder["host"] == socket.gethostname():
            return _pid_alive(int(holder["pid"]))
        return (now if now is not None else time.time()) - float(holder["heartbeat"]) < CLAIM_TIMEOUT_S

    def claim(
        self, key: str, owner: str, *, seen_sha256: str | None = None, fingerprint: str | None = None
    ) -> dict[str, Any] | None:
        """Claim ``key`` for ``owner``; returns None on success, else why not.

        Why not is the live holder's claim, or ``{"stored": status}`` when a run
        by the same ``fingerprint`` was stored since the caller planned the job
        (its file's checksum is no longer ``seen_sha256``): another sweep ran it
        and released its claim in between.
        """

        def take(conn: sqlite3.Connection) -> dict[str, Any] | None:
            if fingerprint is not None:
                run = conn.execute("SELECT sha256, status, fingerprint FROM runs WHERE key=?", (key,)).fetchone()
                if run is not None and run[0] != seen_sha256 and run[2] == fingerprint:
                    return {"stored": run[1]}
            row = conn.execute("SELECT owner, host, pid, heartbeat FROM claims WHERE key=?", (key,)).fetchone()
            now = time.time()
            if row is not None and row[0] != owner:
                holder = dict(zip(("owner", "host", "pid", "heartbeat"), row, strict=True))
                if self.claim_is_live(holder, now):
                    return holder
            conn.execute(
                "INSERT OR REPLACE INTO claims (key, owner, host, pid, heartbeat) VALUES (?, ?, ?, ?, ?)",
                (key, owner, socket.gethostname(), os.getpid(), now),
            )
            return None

        return self._transaction(take)

    def holder(self, key: str) -> dict[str, Any] | None:
        """The live claim on ``key``, if any."""
        rows = self._select("SELECT owner, host, pid, heartbeat FROM claims WHERE key=?", (key,))
        if not rows:
            return None
        holder = dict(zip(("owner", "host", "pid", "heartbeat"), rows[0], strict=True))
        return holder if self.claim_is_live(holder) else None

    def heartbeat(self, owner: str) -> None:
        self._write([("UPDATE claims SET heartbeat=? WHERE owner=?", (time.time(), owner))])

    def release(self, owner: str, keys: Iterable[str] | None = None) -> None:
        """Drop ``owner``'s claims (all of them, or on ``keys``)."""
        if keys is None:
            self._write([("DELETE FROM claims WHERE owner=?", (owner,))])
        else:
            self._write(("DELETE FROM claims WHERE key=? AND owner=?", (k, owner)) for k in list(keys))
