"""Running sweeps: backends agree, nothing finished is lost, failures are data."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

TESTS = Path(__file__).parent
REPO = TESTS.parent
sys.path.insert(0, str(TESTS))

import sweep_fake_engine as fake  # noqa: E402
from aqmlab.sweep import ResultStore, Sweep, SweepInterrupted, run_sweep  # noqa: E402
from aqmlab.sweep.execute import PlannedJob, order_longest_first  # noqa: E402

MAX_TH = "bottleneck.queue.aqm.max_th"
TIMER = "bottleneck.queue.aqm.timer_ms"
METRICS = ["queue.bottleneck.mean_queue_packets", "flows.goodput_bps.mean", "jain_index", "events", "stable"]


def make_sweep(**kw) -> Sweep:
    args = dict(grid={MAX_TH: [5, 10, 13], TIMER: [1, 2]}, replications=3, master_seed=99, metrics=METRICS)
    args.update(kw)
    return Sweep(fake.base_scenario(), **args)


def metrics_by_key(store_dir: Path) -> pd.DataFrame:
    runs = ResultStore(store_dir).runs(status="ok")
    return runs.set_index("key")[["seed", *METRICS]].sort_index()


@pytest.fixture(scope="module")
def serial_result(tmp_path_factory):
    d = tmp_path_factory.mktemp("serial") / "store"
    report = run_sweep(make_sweep(), d, run_fn=fake.run, workers=1, engine_version="test")
    assert report.complete and report.ok == 18
    return d, report.table()


@pytest.mark.parametrize(
    "options",
    [
        {"backend": "process", "workers": 2},
        {"backend": "thread", "workers": 3},
        {"backend": "serial"},
        {"backend": "dask", "workers": 2, "cluster_kwargs": {"processes": False}},
        {"backend": "dask", "workers": 2},  # real worker processes
    ],
    ids=["process", "thread", "serial", "dask-threads", "dask-processes"],
)
def test_backends_give_identical_numbers(serial_result, tmp_path, options):
    serial_dir, serial_table = serial_result
    report = run_sweep(make_sweep(), tmp_path / "s", run_fn="sweep_fake_engine:run", engine_version="test", **options)
    assert report.complete and report.executed == 18
    assert_frame_equal(report.table(), serial_table)
    assert_frame_equal(metrics_by_key(tmp_path / "s"), metrics_by_key(serial_dir))


def test_executor_injection_and_existing_dask_client(serial_result, tmp_path):
    from distributed import Client, LocalCluster

    _, serial_table = serial_result
    with ThreadPoolExecutor(2) as pool:
        report = run_sweep(make_sweep(), tmp_path / "a", executor=pool, run_fn=fake.run, engine_version="test")
        pool.submit(int)  # still usable: injected executors are not shut down
    assert_frame_equal(report.table(), serial_table)
    with LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster, Client(cluster) as client:
        r1 = run_sweep(make_sweep(), tmp_path / "b", scheduler=client, run_fn=fake.run, engine_version="test")
        r2 = run_sweep(
            make_sweep(), tmp_path / "c", scheduler=cluster.scheduler_address, run_fn=fake.run, engine_version="test"
        )
        r3 = run_sweep(
            make_sweep(), tmp_path / "d", executor=client.get_executor(), run_fn=fake.run, engine_version="test"
        )
    for r in (r1, r2, r3):
        assert_frame_equal(r.table(), serial_table)


def test_a_finished_worker_gets_its_next_job_before_the_finished_run_is_recorded(tmp_path, monkeypatch):
    # Recording a run (file write, fsync, index) takes the driver about a millisecond; the
    # replacement job is submitted first, so a worker of short runs does not idle through it.
    log: list[str] = []
    submit, write_run = ThreadPoolExecutor.submit, ResultStore.write_run

    def logged_submit(self, fn, *args, **kwargs):
        log.append("submit")
        return submit(self, fn, *args, **kwargs)

    def logged_write_run(self, record, **kwargs):
        log.append("record")
        return write_run(self, record, **kwargs)

    monkeypatch.setattr(ThreadPoolExecutor, "submit", logged_submit)
    monkeypatch.setattr(ResultStore, "write_run", logged_write_run)
    report = run_sweep(
        make_sweep(), tmp_path / "s", run_fn=fake.run, backend="thread", workers=2, engine_version="test"
    )
    assert report.complete and report.ok == 18
    assert log.count("submit") == 18 and log.count("record") == 18
    for i, event in enumerate(log):
        if event == "record":
            recorded = log[:i].count("record")
            # Two jobs in flight: the one being recorded was replaced unless none was left.
            assert log[:i].count("submit") >= min(recorded + 3, 18), log


def test_rerun_executes_nothing_and_extension_runs_only_new_points(tmp_path):
    d = tmp_path / "s"
    first = run_sweep(make_sweep(), d, run_fn=fake.run, workers=2, engine_version="test")
    again = run_sweep(make_sweep(), d, run_fn=fake.run, workers=2, engine_version="test")
    assert again.executed == 0 and again.skipped_ok == 18 and again.complete
    bigger = make_sweep(grid={MAX_TH: [5, 10, 13, 20], TIMER: [1, 2]})
    ext = run_sweep(bigger, d, run_fn=fake.run, workers=2, engine_version="test")
    assert ext.executed == 6 and ext.skipped_ok == 18  # seeds of existing points unchanged
    assert set(first.keys) < set(ext.keys)
    # A different engine version is a different result.
    assert run_sweep(make_sweep(), d, run_fn=fake.run, workers=1, engine_version="v2").executed == 18
    assert len(ResultStore(d).runs()) == 18 + 6 + 18
    assert len(ResultStore(d).aggregate()) == 6 * len(METRICS)  # default: the last sweep's jobs


def test_seeds_independent_of_worker_count(tmp_path):
    seeds = {}
    for workers in (1, 2):
        run_sweep(make_sweep(), tmp_path / str(workers), run_fn=fake.run, workers=workers, engine_version="t")
        runs = ResultStore(tmp_path / str(workers)).runs()
        seeds[workers] = sorted(zip(runs["point"], runs["replication"], runs["seed"], strict=True))
    assert seeds[1] == seeds[2]
    assert len({s for _, _, s in seeds[1]}) == 18


@pytest.mark.parametrize("workers", [1, 2])
def test_failed_runs_are_recorded_and_retried_alone(tmp_path, workers):
    d = tmp_path / "s"
    report = run_sweep(make_sweep(), d, run_fn=fake.run_failing, workers=workers, engine_version="test")
    assert report.ok == 12 and report.failed == 6 and not report.complete
    assert {f.point[MAX_TH] for f in report.failures} == {13}
    assert all(f.error == "ValueError: queue diverged at max_th=13" for f in report.failures)
    failed = ResultStore(d).runs(status="failed")
    assert len(failed) == 6 and failed["traceback"].str.contains("run_failing").all()
    assert failed["error"].str.contains("queue diverged").all()
    assert (ResultStore(d).manifest()["status"] == "failed").sum() == 6
    table = report.table()
    assert set(table[MAX_TH]) == {5, 10}  # failed point has no successful runs to aggregate

    plain = run_sweep(make_sweep(), d, run_fn=fake.run, workers=workers, engine_version="test")
    assert plain.executed == 0 and plain.skipped_failed == 6  # failures are not silently retried
    retry = run_sweep(make_sweep(), d, run_fn=fake.run, workers=workers, engine_version="test", retry_failed=True)
    assert retry.executed == 6 and set(retry.executed_keys) == {f.key for f in report.failures}
    assert retry.complete and len(retry.table()) == 6 * len(METRICS)
    assert (ResultStore(d).manifest()["status"] == "ok").all()


def test_system_exit_and_bad_return_are_failures_not_crashes(tmp_path):
    r = run_sweep(make_sweep(replications=1), tmp_path / "a", run_fn=fake.run_exit, workers=1, engine_version="t")
    assert r.failed == 6 and r.failures[0].error.startswith("SystemExit")
    r = run_sweep(make_sweep(replications=1), tmp_path / "b", run_fn=fake.run_bad_return, workers=2, engine_version="t")
    assert r.failed == 6 and "mapping" in r.failures[0].error


def test_worker_death_loses_no_finished_run(tmp_path):
    d = tmp_path / "s"
    sweep = make_sweep(grid={MAX_TH: [5, 10, 13, 20], TIMER: [1, 2]}, replications=2)
    report = run_sweep(sweep, d, run_fn=fake.run_killer, workers=2, engine_version="test")
    assert report.stopped_reason is None and report.not_run == 0
    assert report.ok + report.failed == 16  # every job accounted for
    died = [f for f in report.failures if f.error.startswith("worker died")]
    assert {f.point[MAX_TH] for f in report.failures} >= {13}
    assert len(died) == report.failed and report.ok >= 8
    index = ResultStore(d).index()
    assert len(index) == 16
    # The killer points are failed; fixing the run function and retrying completes the sweep.
    retry = run_sweep(sweep, d, run_fn=fake.run, workers=2, engine_version="test", retry_failed=True)
    assert retry.executed == report.failed and retry.complete


def test_worker_death_stops_cleanly_after_restart_budget(tmp_path):
    sweep = make_sweep(grid={MAX_TH: [13], TIMER: [1, 2, 3, 4, 5, 6]}, replications=2)
    report = run_sweep(
        sweep, tmp_path / "s", run_fn=fake.run_killer, workers=2, engine_version="t", max_pool_restarts=1
    )
    assert report.stopped_reason and report.not_run > 0
    assert report.failed + report.not_run == 12
    again = run_sweep(sweep, tmp_path / "s", run_fn=fake.run, workers=2, engine_version="t")
    assert again.executed == report.not_run  # missing jobs run next time, failed ones are kept


def test_keyboard_interrupt_keeps_finished_runs(tmp_path):
    calls = {"n": 0}

    def flaky(scenario, seed):
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return fake.run(scenario, seed)

    d = tmp_path / "s"
    with pytest.raises(SweepInterrupted) as info:
        run_sweep(make_sweep(), d, run_fn=flaky, workers=1, engine_version="test")
    assert info.value.report.ok == 4 and info.value.report.stopped_reason == "interrupted"
    assert info.value.report.not_run == 14  # the interrupted job counts as not run, not as failed
    assert len(ResultStore(d).index()) == 4
    resumed = run_sweep(make_sweep(), d, run_fn=fake.run, workers=1, engine_version="test")
    assert resumed.executed == 14 and resumed.skipped_ok == 4 and resumed.complete


def test_progress_callback(tmp_path):
    seen = []
    run_sweep(
        make_sweep(), tmp_path / "s", run_fn=fake.run_failing, workers=2, engine_version="t", progress=seen.append
    )
    assert seen[0].done == 0 and seen[0].last is None
    assert [p.done for p in seen[1:]] == list(range(1, 19))
    assert seen[-1].ok == 12 and seen[-1].failed == 6 and seen[-1].eta_s == 0
    assert all(p.total == 18 for p in seen)
    later = []
    run_sweep(make_sweep(), tmp_path / "s", run_fn=fake.run, workers=2, engine_version="t", progress=later.append)
    assert later[-1].skipped == 18 and later[-1].total == 0


def _planned(sid: str, cost=None) -> PlannedJob:
    return PlannedJob(job=None, key=sid, scenario_id=sid, point_id=sid, scenario_json="{}", cost=cost)  # type: ignore[arg-type]


def test_longest_first_ordering_rules():
    jobs = [_planned("a"), _planned("b"), _planned("c")]
    assert [j.key for j in order_longest_first(jobs, {})] == ["a", "b", "c"]  # no info: definition order
    assert [j.key for j in order_longest_first(jobs, {"b": 5.0, "c": 1.0})] == ["b", "a", "c"]  # a gets median
    costed = [_planned("a", 1.0), _planned("b", 4.0), _planned("c", 2.0), _planned("d", 3.0)]
    # d has a measured time; its cost calibrates seconds-per-cost-unit (2 s / 3 units).
    order = order_longest_first(costed, {"d": 2.0})
    assert [j.key for j in order] == ["b", "d", "c", "a"]


def test_longest_first_in_practice(tmp_path):
    sweep = make_sweep(grid={"duration_s": [1.0, 30.0, 10.0, 3.0]}, replications=1, cost="duration_s")
    seen = []
    run_sweep(
        sweep,
        tmp_path / "s",
        run_fn=fake.run,
        workers=1,
        engine_version="t",
        progress=lambda p: p.last and seen.append(p.last.point["duration_s"]),
    )
    assert seen == [30.0, 10.0, 3.0, 1.0]
    # Known times of the same scenario (other seeds) beat declared costs.
    run_sweep(
        Sweep(fake.base_scenario(), grid={"duration_s": [1.0, 30.0]}, replications=1),
        tmp_path / "t",
        run_fn=fake.run_slow,
        workers=1,
        engine_version="t",
    )
    # Doctor the stored times: the 1 s scenario "took" longer.
    store = ResultStore(tmp_path / "t")
    entries = list(store.db.runs().values())
    for e in entries:
        e["run_time_s"] = 9.0 if json.loads(e["point"])["duration_s"] == 1.0 else 0.1
    store.db.put_runs(entries)
    seen.clear()
    run_sweep(
        Sweep(fake.base_scenario(), grid={"duration_s": [30.0, 1.0]}, replications=2),
        tmp_path / "t",
        run_fn=fake.run,
        workers=1,
        engine_version="t",
        progress=lambda p: p.last and seen.append(p.last.point["duration_s"]),
    )
    assert seen == [1.0, 30.0]  # only replication 1 of each is missing; the "slow" one goes first


def test_run_fn_from_sweep_file_directory(tmp_path):
    (tmp_path / "my_model.py").write_text("def run(scenario, seed):\n    return {'x': scenario['a'] * 2 + seed % 7}\n")
    f = tmp_path / "s.toml"
    f.write_text('run_fn = "my_model:run"\nreplications = 2\n[base]\na = 1\n[grid]\na = [1, 2, 3]\n')
    report = run_sweep(Sweep.from_toml(f), tmp_path / "store", workers=2)
    assert report.complete, report.failures
    assert report.table()["n"].tolist() == [2, 2, 2]


def test_unpicklable_run_fn_is_rejected_up_front(tmp_path):
    def local_fn(scenario, seed):
        return fake.run(scenario, seed)

    with pytest.raises(TypeError, match="cannot be sent to worker processes"):
        run_sweep(make_sweep(), tmp_path / "s", run_fn=local_fn, workers=2)
    assert not ResultStore(tmp_path / "s").run_files()
    assert run_sweep(make_sweep(), tmp_path / "s", run_fn=local_fn, backend="thread", workers=2).complete


def test_invalid_backend_options(tmp_path):
    with pytest.raises(ValueError, match="unknown backend"):
        run_sweep(make_sweep(), tmp_path / "s", backend="mpi", run_fn=fake.run)
    with pytest.raises(ValueError, match="workers"):
        run_sweep(make_sweep(), tmp_path / "s", workers=0, run_fn=fake.run)


DRIVER = textwrap.dedent(
    """
    import sys
    from aqmlab.sweep import Sweep, run_sweep
    report = run_sweep(Sweep.from_toml(sys.argv[1]), sys.argv[2], workers=2, engine_version="test")
    print("executed", report.executed)
    """
)


def _sweep_file(tmp_path: Path) -> Path:
    f = tmp_path / "slow.toml"
    f.write_text(
        f"""
run_fn = "sweep_fake_engine:run_slow"
replications = 2
master_seed = 5
metrics = {METRICS!r}

[base]
duration_s = 10.0
sleep_s = 0.04
topology = {{ senders = 4 }}
bottleneck = {{ rate_mbps = 10.0, queue = {{ aqm = {{ type = "red", max_th = 5, timer_ms = 10 }} }} }}
flows = [{{ kind = "tcp", count = 2 }}]

[grid]
"{MAX_TH}" = [5, 10, 15, 20, 25]
"{TIMER}" = [1, 2, 3, 4]
""".replace("'", '"')
    )
    return f


def _start_driver(tmp_path: Path, driver: str, sweep_file: Path, store_dir: Path, text: bool) -> subprocess.Popen:
    """Runs ``driver`` (a script taking the sweep file and the store) in its own process group,
    with the tests directory importable (the fake engine is named by module)."""
    script = tmp_path / "drive.py"
    script.write_text(driver)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.Popen(
        [sys.executable, str(script), str(sweep_file), str(store_dir)],
        env=env,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=text,
    )


def test_sigkilled_sweep_resumes_and_matches_clean_run(tmp_path):
    sweep_file = _sweep_file(tmp_path)
    store_dir = tmp_path / "killed"
    proc = _start_driver(tmp_path, DRIVER, sweep_file, store_dir, text=False)
    total = 40
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            n = len(ResultStore(store_dir).run_files()) if store_dir.exists() else 0
            if n >= 10:
                break
            if proc.poll() is not None:
                pytest.fail(f"driver ended early: {proc.communicate()}")
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)  # the driver and its worker processes, no cleanup
    finally:
        proc.communicate(timeout=30)  # reaps the driver and closes its pipes
    assert proc.returncode == -signal.SIGKILL

    before = set(ResultStore(store_dir).index())
    assert 10 <= len(before) < total, "kill should land mid-sweep"
    sweep = Sweep.from_toml(sweep_file)
    resumed = run_sweep(sweep, store_dir, workers=2, engine_version="test")
    assert resumed.skipped_ok == len(before)
    assert resumed.executed == total - len(before)
    assert not set(resumed.executed_keys) & before  # only the missing jobs ran
    assert resumed.complete

    clean = run_sweep(sweep, tmp_path / "clean", workers=2, engine_version="test")
    assert clean.executed == total
    assert_frame_equal(resumed.table(), clean.table())
    assert_frame_equal(ResultStore(store_dir).aggregate(), ResultStore(tmp_path / "clean").aggregate())
    assert_frame_equal(metrics_by_key(store_dir), metrics_by_key(tmp_path / "clean"))


CTRL_C_DRIVER = textwrap.dedent(
    """
    import sys
    from aqmlab.sweep import Sweep, SweepInterrupted, run_sweep
    try:
        run_sweep(Sweep.from_toml(sys.argv[1]), sys.argv[2], workers=2, engine_version="test")
    except SweepInterrupted as exc:
        print("interrupted", exc.report.ok, exc.report.not_run, flush=True)
        sys.exit(130)
    """
)


def test_ctrl_c_stops_promptly_and_resumes(tmp_path):
    sweep_file = _sweep_file(tmp_path)
    sweep_file.write_text(sweep_file.read_text().replace("sleep_s = 0.04", "sleep_s = 0.1"))
    store_dir = tmp_path / "store"
    proc = _start_driver(tmp_path, CTRL_C_DRIVER, sweep_file, store_dir, text=True)
    fake.ctrl_c_once_stored(proc, store_dir, runs=4, poll_s=0.01)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    _, ok, not_run = out.split()
    stored = set(ResultStore(store_dir).index())
    assert len(stored) == int(ok) and int(ok) + int(not_run) == 40
    resumed = run_sweep(Sweep.from_toml(sweep_file), store_dir, workers=2, engine_version="test")
    assert resumed.executed == 40 - len(stored) and resumed.complete
