"""Issue 11, items 7-11: a sweep store never serves stale or corrupt runs, never runs a point
twice, leaves no process or temp file behind, and survives a full disk."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import aqmlab
import pytest

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))

import sweep_fake_engine as fake  # noqa: E402
from aqmlab.fingerprint import engine_fingerprint, fingerprint_of  # noqa: E402
from aqmlab.sweep import (  # noqa: E402
    ResultStore,
    Sweep,
    atomic_file,  # noqa: E402
    run_sweep,
)
from aqmlab.sweep.atomic_file import DiskFullError  # noqa: E402
from aqmlab.sweep.execute import SweepDiskFull  # noqa: E402
from aqmlab.sweep.store import CorruptRunError  # noqa: E402

MAX_TH = "bottleneck.queue.aqm.max_th"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])])}


def small_sweep(replications: int = 2, **base) -> Sweep:
    return Sweep({**fake.base_scenario(), **base}, grid={MAX_TH: [5, 10, 15]}, replications=replications, master_seed=3)


def temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".tmp")]


# ----------------------------------------------------------------- 7. stale results
def test_fingerprint_changes_with_any_source_file(tmp_path):
    pkg = tmp_path / "pkg"
    shutil.copytree(Path(aqmlab.__file__).parent, pkg, ignore=shutil.ignore_patterns("__pycache__", "_core*"))
    before = fingerprint_of(pkg)
    assert before == fingerprint_of(pkg)  # stable
    f = pkg / "sweep" / "aggregate.py"
    f.write_text(f.read_text() + "\n# an edit\n")
    assert fingerprint_of(pkg) != before
    (pkg / "_core.abi3.so").write_bytes(b"a rebuilt engine")
    assert fingerprint_of(pkg) not in (before, fingerprint_of(tmp_path / "nothing"))


def test_runs_of_another_engine_build_are_stale_and_rerun(tmp_path):
    d = tmp_path / "s"
    first = run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="0.1.0", fingerprint="build-a")
    assert first.executed == 6
    same = run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="0.1.0", fingerprint="build-a")
    assert same.executed == 0 and same.skipped_ok == 6 and same.stale_rerun == 0
    # Same package version, different code: every run is re-run, none reused silently.
    rebuilt = run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="0.1.0", fingerprint="build-b")
    assert rebuilt.stale_rerun == 6 and rebuilt.executed == 6 and rebuilt.skipped_ok == 0
    assert set(ResultStore(d).manifest()["fingerprint"]) == {"build-b"}


def test_stale_runs_are_kept_with_a_warning_only_when_asked(tmp_path):
    d = tmp_path / "s"
    run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="0.1.0", fingerprint="build-a")
    with pytest.warns(UserWarning, match=r"6 stored run\(s\).*another engine build.*reuse_stale"):
        kept = run_sweep(
            small_sweep(),
            d,
            run_fn=fake.run,
            workers=1,
            engine_version="0.1.0",
            fingerprint="build-b",
            reuse_stale=True,
        )
    assert kept.executed == 0 and kept.stale_kept == 6 and kept.skipped_ok == 6


def test_default_fingerprint_is_the_installed_engines(tmp_path):
    report = run_sweep(small_sweep(replications=1), tmp_path / "s", run_fn=fake.run, workers=1, engine_version="t")
    assert report.fingerprint == engine_fingerprint() and len(engine_fingerprint()) == 16
    assert set(ResultStore(tmp_path / "s").manifest()["fingerprint"]) == {engine_fingerprint()}


# ---------------------------------------------------------------- 8. corrupt files
def test_truncated_run_file_is_detected_and_rerun(tmp_path):
    d = tmp_path / "s"
    first = run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="t")
    victim = first.keys[2]
    path = ResultStore(d).run_file(victim)
    path.write_bytes(path.read_bytes()[:100])  # a write cut short outside our control
    with pytest.warns(UserWarning, match=victim[:12]):
        again = run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="t")
    assert again.executed_keys == [victim] and again.skipped_ok == 5
    assert (d / "corrupt").is_dir() and any((d / "corrupt").iterdir())
    assert len(ResultStore(d).runs(status="ok")) == 6  # readable again, no ArrowInvalid


def test_bit_flip_is_caught_by_the_checksum_on_read_and_named(tmp_path):
    d = tmp_path / "s"
    first = run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="t")
    victim = first.keys[4]
    path = ResultStore(d).run_file(victim)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40  # same size: only the checksum can tell
    path.write_bytes(bytes(data))
    store = ResultStore(d)
    with pytest.warns(UserWarning), pytest.raises(CorruptRunError, match=victim[:12]) as info:
        store.runs()
    assert info.value.runs[0][0] == victim and "replication" in info.value.runs[0][1]
    assert victim not in store.index()  # set aside: the next sweep re-runs it
    again = run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="t")
    assert again.executed_keys == [victim]


def test_a_flipped_file_is_rerun_by_the_next_sweep_before_any_read(tmp_path):
    d = tmp_path / "s"
    first = run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="t")
    path = ResultStore(d).run_file(first.keys[0])
    data = bytearray(path.read_bytes())
    data[-20] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.warns(UserWarning, match="checksum mismatch"):
        again = run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="t")
    assert again.corrupt_rerun == 1 and again.executed_keys == [first.keys[0]]
    assert len(again.table()) > 0


# ------------------------------------------------------------------- 9. concurrency
CONCURRENT_DRIVER = textwrap.dedent(
    """
    import sys, json
    import sweep_fake_engine as fake
    from aqmlab.sweep import Sweep, run_sweep
    sweep = Sweep({**fake.base_scenario(), "sleep_s": 0.15}, grid={"bottleneck.queue.aqm.max_th": [5, 10, 15, 20]},
                  replications=3, master_seed=3)
    r = run_sweep(sweep, sys.argv[1], run_fn="sweep_fake_engine:run_logged", workers=int(sys.argv[2]),
                  engine_version="t")
    print(json.dumps({"executed": r.executed, "other": r.from_other_sweep, "ok": r.skipped_ok}))
    """
)


@pytest.mark.parametrize("workers", [1, 2])
def test_two_sweeps_on_one_store_run_each_point_once(tmp_path, workers):
    script = tmp_path / "drive.py"
    script.write_text(CONCURRENT_DRIVER)
    log = tmp_path / "runs.log"
    env = {**ENV, "FAKE_RUN_LOG": str(log)}
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(tmp_path / "store"), str(workers)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    import json

    reports = [json.loads(o.strip().splitlines()[-1]) for o, _ in outs]
    runs = log.read_text().split()
    assert len(runs) == 12 and len(set(runs)) == 12  # every job ran exactly once across both
    assert sum(r["executed"] for r in reports) == 12
    # Whatever one sweep did not run itself it reused, from the store or from the other sweep.
    assert all(r["executed"] + r["ok"] == 12 for r in reports)
    assert len(ResultStore(tmp_path / "store").index()) == 12


def test_a_job_stored_by_another_sweep_after_planning_is_reused_not_rerun(tmp_path):
    # The race behind a flaky CI run: sweep B plans a job, sweep A runs and stores it and
    # releases its claim, then B claims it.  B must see the stored run, not run it again.
    # B's progress callback (called once B has planned, before it claims) runs A in full.
    store = tmp_path / "s"
    calls = []

    def run_the_other_sweep_first(progress):
        if not calls:
            calls.append(run_sweep(small_sweep(), store, run_fn=fake.run, workers=1, engine_version="t"))

    second = run_sweep(
        small_sweep(), store, run_fn=fake.run, workers=1, engine_version="t", progress=run_the_other_sweep_first
    )
    assert calls[0].executed == 6
    assert second.executed == 0 and second.from_other_sweep == 6 and second.skipped_ok == 6


def test_a_store_index_waits_out_sqlite_busy_errors_that_skip_the_busy_timeout(tmp_path, monkeypatch):
    # Seen in CI: two sweeps opening a new store at the same instant; the second's switch
    # to WAL failed at once with "database is locked" (SQLite does not call its busy
    # handler there).  Here the first three opens fail that way, as does one transaction.
    import sqlite3

    from aqmlab.sweep import store_index

    real_connect = sqlite3.connect
    failures = {"open": 3, "begin": 1}

    class FlakyConnection:
        def __init__(self, conn):
            self.conn = conn

        def execute(self, sql, *args):
            kind = "open" if sql.startswith("PRAGMA journal_mode") else "begin" if sql == "BEGIN IMMEDIATE" else None
            if kind and failures[kind] > 0:
                failures[kind] -= 1
                raise sqlite3.OperationalError("database is locked")
            return self.conn.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self.conn, name)

    monkeypatch.setattr(store_index.sqlite3, "connect", lambda *a, **k: FlakyConnection(real_connect(*a, **k)))
    index = store_index.StoreIndex(tmp_path)
    assert index.runs() == {}
    assert index.claim("k", "me") is None and index.holder("k")["owner"] == "me"
    assert failures == {"open": 0, "begin": 0}


def test_a_claim_of_a_dead_sweep_is_taken_over(tmp_path):
    store = ResultStore(tmp_path / "s")
    sweep = small_sweep(replications=1)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    from aqmlab.sweep.execute import plan_jobs

    key = plan_jobs(sweep, "t")[0].key
    store.db._write([("INSERT INTO claims VALUES (?, ?, ?, ?, ?)", (key, "gone", os.uname().nodename, pid, 0.0))])
    report = run_sweep(sweep, store, run_fn=fake.run, workers=1, engine_version="t")
    assert report.executed == 3 and key in report.executed_keys and report.from_other_sweep == 0
    assert store.db.runs()[key]["status"] == "ok"


# ------------------------------------------------------------------- 10. processes
def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


KILL_DRIVER = textwrap.dedent(
    """
    import sys
    import sweep_fake_engine as fake
    from aqmlab.sweep import Sweep, run_sweep
    sweep = Sweep({**fake.base_scenario(), "sleep_s": 60}, grid={"bottleneck.queue.aqm.max_th": [5, 10]},
                  replications=1)
    run_sweep(sweep, sys.argv[1], run_fn="sweep_fake_engine:run_slow", workers=2, engine_version="t")
    """
)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_die_with_a_sigkilled_driver(tmp_path):
    script = tmp_path / "drive.py"
    script.write_text(KILL_DRIVER)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "s")],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline and len(workers) < 2:
            workers = _children(proc.pid)
            time.sleep(0.05)
        assert len(workers) >= 2, "the pool never started"
        time.sleep(0.5)  # let the workers pick up their 60 s jobs
        proc.kill()  # SIGKILL: the driver gets no chance to clean up
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.05)
        assert not [w for w in workers if _alive(w)], "worker processes outlived their driver"
    finally:
        for w in _children(proc.pid):
            os.kill(w, signal.SIGKILL)


CLI_SWEEP = """
name = "ctrl-c"
run_fn = "sweep_fake_engine:run_slow"
replications = 4

[base]
duration_s = 1.0
sleep_s = 0.3
topology = {{ senders = 2 }}
bottleneck = {{ rate_mbps = 10.0, queue = {{ aqm = {{ type = "red", max_th = 5 }} }} }}
flows = [{{ kind = "tcp", count = 1 }}]

[grid]
"bottleneck.queue.aqm.max_th" = [5, 6, 7, 8, 9]
"""


def test_cli_ctrl_c_is_one_line_exit_130_and_leaves_no_temp_files(tmp_path):
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(CLI_SWEEP.format())
    store = tmp_path / "store"
    cmd = [sys.executable, "-m", "aqmlab", "sweep", str(sweep_file), "--out", str(store), "--workers", "2"]
    proc = subprocess.Popen(
        cmd, env=ENV, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    fake.ctrl_c_once_stored(proc, store, runs=2, poll_s=0.02)
    sent = time.monotonic()
    out, err = proc.communicate(timeout=30)
    stopped_in = time.monotonic() - sent
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in out + err
    lines = [ln for ln in (out + err).splitlines() if "interrupted" in ln]
    assert len(lines) == 1 and "not run" in lines[0] and "same command" in lines[0], out + err
    assert not temp_files(store)
    assert stopped_in < 5.0  # the promise is "within a second"; slack for a loaded CI machine
    assert not _children(proc.pid)


# ------------------------------------------------------------------- 11. disk full
def test_disk_full_is_a_clear_error_and_the_sweep_resumes(tmp_path, monkeypatch):
    d = tmp_path / "s"
    real = atomic_file._write_all
    budget = {"writes": 3}

    def filling(fd, data):
        if budget["writes"] == 0:
            os.write(fd, bytes(data)[: len(data) // 2])  # the disk fills half-way through a file
            raise OSError(errno.ENOSPC, "No space left on device")
        budget["writes"] -= 1
        real(fd, data)

    monkeypatch.setattr(atomic_file, "_write_all", filling)
    with pytest.raises(SweepDiskFull, match="is full.*run the same command to resume") as info:
        run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="t")
    assert info.value.report.stopped_reason == "disk full"
    assert not temp_files(d)
    store = ResultStore(d)
    stored = store.runs(status="ok")  # readable: no truncated Parquet anywhere
    assert len(stored) == len(store.index()) >= 1
    monkeypatch.setattr(atomic_file, "_write_all", real)
    resumed = run_sweep(small_sweep(), d, run_fn=fake.run, workers=1, engine_version="t")
    assert resumed.complete and resumed.executed == 6 - len(stored)


def _mount_tmpfs(where: Path, size: str) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    where.mkdir()
    return (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True
        ).returncode
        == 0
    )


def test_a_really_full_disk(tmp_path):
    mnt = tmp_path / "small"
    if not _mount_tmpfs(mnt, "8m"):
        pytest.skip("needs root and tmpfs to fill a real filesystem")
    try:
        ballast = mnt / "ballast"
        with open(ballast, "wb") as fh:  # fill the filesystem but for a few run files
            try:
                fh.write(b"\0" * (8 * 1024 * 1024 - 600 * 1024))
            except OSError:
                pass
        with pytest.raises(DiskFullError, match="no space left|is full"):  # a run file or the index
            run_sweep(small_sweep(replications=40), mnt / "s", run_fn=fake.run, workers=1, engine_version="t")
        assert not temp_files(mnt / "s")
        stored = len(ResultStore(mnt / "s").runs())  # the store stays readable
        ballast.unlink()
        resumed = run_sweep(small_sweep(replications=40), mnt / "s", run_fn=fake.run, workers=1, engine_version="t")
        assert resumed.complete and resumed.executed == 120 - stored
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)
