"""Issue 11, item 13: Ctrl-C stops a simulation on any thread and during scenario building.

Before: a run on a worker thread never saw Ctrl-C (Python runs signal handlers on the main
thread only) so the process could not exit until the run ended, and building a large
scenario did not look at signals at all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from typing import Any

import aqmlab
import pytest
from _aqmlab_scenarios import LONG_TOML


def worker_script(start: str, result_timeout_s: int) -> str:
    """A child script of the Ctrl-C tests: ``start`` (Python, indented as here) ends inside
    ``with ThreadPoolExecutor(1) as pool:`` with a run on the worker thread (``future``); then
    the main thread gets a SIGINT and waits up to ``result_timeout_s`` for the worker's run to
    stop; it prints "stopped <seconds it took>" (also when the run goes on: the worker would
    run for hours, so the script leaves without joining it)."""
    stop = textwrap.dedent(
        f"""\
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)
                sys.exit("no KeyboardInterrupt on the main thread")
            except KeyboardInterrupt:
                pass
            t0 = time.monotonic()
            try:
                future.result(timeout={result_timeout_s})
                sys.exit("the worker's run finished instead of stopping")
            except KeyboardInterrupt:
                print(f"stopped {{time.monotonic() - t0:.3f}}")
            except TimeoutError:
                print(f"stopped {{time.monotonic() - t0:.3f}}")
                os._exit(0)
        """
    )
    return textwrap.dedent(start) + textwrap.indent(stop, "    ")


def seconds_to_stop(script: str, timeout: int) -> float:
    """Runs a :func:`worker_script` and returns the seconds its worker's run took to stop."""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return float(proc.stdout.split("stopped")[1])


# A run that takes hours; the thread test stops it after a second.
THREAD_SCRIPT = worker_script(
    f"""
    import os, signal, sys, time
    from concurrent.futures import ThreadPoolExecutor
    import aqmlab

    scenario = aqmlab.load_scenario({LONG_TOML!r})
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(aqmlab.run, scenario)
        time.sleep(1.0)
        assert not future.done(), "the long run ended by itself"
    """,
    result_timeout_s=30,
)


def test_ctrl_c_stops_a_run_on_a_worker_thread() -> None:
    waited = seconds_to_stop(THREAD_SCRIPT, timeout=120)
    assert waited < 1.0, f"the worker's run took {waited:.3f} s to stop after Ctrl-C"


def test_interrupt_stops_runs_in_progress_only() -> None:
    """aqmlab.interrupt() from another thread stops the run in progress; a later run is
    unaffected (the stop is not remembered)."""
    import threading

    scenario = aqmlab.load_scenario(LONG_TOML)
    started = threading.Event()

    def progress(fraction: float) -> None:
        started.set()

    timer = threading.Thread(target=lambda: (started.wait(30), aqmlab.interrupt()))
    timer.start()
    with pytest.raises(KeyboardInterrupt, match="run interrupted"):
        aqmlab.run(scenario, progress=progress)
    timer.join()
    short = aqmlab.load_scenario(LONG_TOML.replace('"100000s"', '"1s"'))
    assert aqmlab.run(short).duration_s == 1.0


def big_build(flows: int) -> dict[str, Any]:
    return {
        "name": "many-flows",
        "duration": "10ms",
        "topology": {
            "kind": "dumbbell",
            "senders": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "flows": [{"kind": "tcp", "from": "senders", "to": "receivers", "count": flows}],
    }


def test_building_a_large_scenario_polls_for_interrupts() -> None:
    calls: list[float] = []

    def stop_at_once(fraction: float) -> bool:
        calls.append(fraction)
        return False

    with pytest.raises(KeyboardInterrupt):
        aqmlab.run(big_build(200_000), progress=stop_at_once)
    assert calls == [0.0], "the build must stop at its first poll"

    # Going on, the build polls with fraction 0 several times before the run reports any
    # progress (the event loop's first report is at a positive simulated time).
    seen: list[float] = []
    aqmlab.run(big_build(200_000), progress=seen.append)
    build_polls = next(i for i, f in enumerate(seen) if f > 0)
    assert build_polls >= 3, seen[:10]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def interrupted_cli_run(scenario: Any, delay_s: float) -> tuple[int, str, float]:
    """``aqmlab run scenario`` in a child process, sent SIGINT ``delay_s`` after it has imported
    the CLI: its exit code, its stderr, and the seconds from the SIGINT to its exit."""
    proc = subprocess.Popen(
        [sys.executable, "-c", "import aqmlab.cli as c; print('ready', flush=True); c.main()", "run", str(scenario)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(delay_s)
    t0 = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    return proc.returncode, stderr, time.monotonic() - t0


def test_ctrl_c_during_a_long_build_exits_130_promptly(tmp_path: Any) -> None:
    """The CLI, interrupted while building 800,000 flows (about 2 s of building and
    5 s more of running and reporting), exits with 130 and one line."""
    p = tmp_path / "many.toml"
    p.write_text(
        textwrap.dedent(
            """
            name = "many-flows"
            duration = "10ms"
            [topology]
            kind = "dumbbell"
            senders = 2
            bottleneck = { rate = "10Mbps", delay = "10ms" }
            access = { rate = "100Mbps", delay = "1ms" }
            [[flows]]
            kind = "tcp"
            from = "senders"
            to = "receivers"
            count = 400000
            """
        )
    )
    returncode, stderr, waited = interrupted_cli_run(p, 0.5)  # well inside the build
    assert returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted" in stderr
    assert waited < 1.5, f"took {waited:.2f} s to stop"


@pytest.mark.parametrize("delay_s", [0.0, 0.03])
def test_ctrl_c_before_the_command_body_is_one_line_and_130(tmp_path: Any, delay_s: float) -> None:
    """A Ctrl-C while the CLI is still importing typer or reading its command line (issue 24:
    on a loaded machine the test above could land there) was a KeyboardInterrupt traceback
    (exit -2) or typer's silent exit 130; it is one line and 130 like any other Ctrl-C."""
    p = tmp_path / "small.toml"
    p.write_text(
        'duration = "1s"\n[topology]\nkind = "dumbbell"\nsenders = 1\n'
        'bottleneck = { rate = "10Mbps", delay = "10ms" }\naccess = { rate = "100Mbps", delay = "1ms" }\n'
        '[[flows]]\nkind = "tcp"\nfrom = "senders"\nto = "receivers"\n'
    )
    returncode, stderr, _ = interrupted_cli_run(p, delay_s)
    assert returncode == 130, stderr
    assert stderr.strip().splitlines() == ["interrupted"], stderr


# A run whose every event at the bottleneck costs 5 ms (a Python AQM that sleeps), on a worker
# thread, so that only the engine's own poll can notice the Ctrl-C (the main thread's handler
# never runs inside the AQM).
EXPENSIVE_EVENTS_SCRIPT = worker_script(
    """
    import os, signal, sys, threading, time
    from concurrent.futures import ThreadPoolExecutor
    import aqmlab

    called = threading.Event()

    class Sleepy:
        def on_arrival(self, view, packet):
            called.set()
            time.sleep(0.005)
            return "drop_forced" if view.is_full_for(packet.size) else "enqueue"

    scenario = {
        "duration": "100000s",
        "topology": {
            "kind": "dumbbell",
            "senders": 2,
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "queue": {"limit": 50, "aqm": "sleepy"}},
            "access": {"rate": "100Mbps", "delay": "1ms"},
        },
        "flows": [{"kind": "cbr", "from": "senders", "to": "receivers", "rate": "5Mbps", "packet_size": 1000}],
    }
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(aqmlab.run, scenario, custom_aqms={"sleepy": Sleepy})
        assert called.wait(30), "the AQM was never called"
        time.sleep(0.5)
    """,
    result_timeout_s=60,
)


def test_ctrl_c_stops_a_run_of_expensive_events_within_a_second() -> None:
    """Issue 24, item 13 (Ctrl-C polled every 65,536 events): the run polled for Ctrl-C once
    per 65,536 events, 49 s here on main (a fifth of them at the sleeping AQM; 40 s in the
    issue's huge-window TCP); it now polls every 20 ms of wall-clock time, or after the event
    under way: 0.006-0.018 s measured. Bounded at 3 s so that a loaded machine cannot make
    the test flaky, far below what the old code takes."""
    waited = seconds_to_stop(EXPENSIVE_EVENTS_SCRIPT, timeout=180)
    assert waited < 3.0, f"the run took {waited:.3f} s to stop after Ctrl-C"
