"""Writing a file so that it exists completely or not at all, and checksums.

A file is written under a temporary name in its final directory, flushed to
disk (``fsync``), renamed over the target (``os.replace`` is atomic on POSIX)
and the directory entry is flushed too.  A process killed at any point leaves
either the old file or the new one, plus at most a temporary file that
:func:`remove_dead_temp_files` deletes once its writer is gone.

A full disk (``ENOSPC``/``EDQUOT``) is re-raised as :class:`DiskFullError`
after the temporary file is removed, so the caller can stop cleanly with the
store still readable.
"""

from __future__ import annotations

import errno
import hashlib
import os
import socket
import uuid
from pathlib import Path
from typing import TypeGuard

__all__ = ["DiskFullError", "remove_dead_temp_files", "sha256_hex", "write_atomic"]

_FULL = (errno.ENOSPC, errno.EDQUOT)
_TEMP_SUFFIX = ".tmp"
_SEP = "~"


class DiskFullError(OSError):
    """No space left for a store write; nothing partial was left behind, so the same
    command resumes once space is freed."""


def is_disk_full(exc: BaseException) -> TypeGuard[OSError]:
    return isinstance(exc, OSError) and exc.errno in _FULL


def sha256_hex(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def temp_name(target: Path) -> Path:
    """``.NAME~HOST~PID~RANDOM.tmp`` beside ``target``: whose it is, so a dead writer's can be removed."""
    host = socket.gethostname().replace(_SEP, "_")
    return target.with_name(f".{target.name}{_SEP}{host}{_SEP}{os.getpid()}{_SEP}{uuid.uuid4().hex[:8]}{_TEMP_SUFFIX}")


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # not supported here (e.g. some network filesystems): the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_atomic(target: Path, data: bytes | memoryview, *, durable: bool = True) -> None:
    """Replace ``target`` by ``data`` atomically; ``durable`` also survives a power cut (fsync)."""
    tmp = temp_name(target)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException as exc:  # including KeyboardInterrupt: never leave the temp file
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        if is_disk_full(exc):
            raise DiskFullError(exc.errno, f"no space left on the device to write {target}") from exc
        raise
    if durable:
        _fsync_dir(target.parent)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def remove_dead_temp_files(directory: Path) -> int:
    """Delete temporary files in ``directory`` whose writer (on this host) has exited."""
    host = socket.gethostname().replace(_SEP, "_")
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return 0
    for e in entries:
        if not (e.name.startswith(".") and e.name.endswith(_TEMP_SUFFIX)):
            continue
        parts = e.name[: -len(_TEMP_SUFFIX)].split(_SEP)
        if len(parts) < 4 or parts[-3] != host or not parts[-2].isdigit():
            continue
        if not _pid_alive(int(parts[-2])):
            try:
                os.unlink(e.path)
                removed += 1
            except FileNotFoundError:
                pass
    return removed
