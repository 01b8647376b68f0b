"""The reference kernel: real Linux (TCP, qdiscs, namespaces) as a User-Mode Linux guest on a
virtual clock (issue 37; docs/kernel-reference.md).

``kernel/uml/build.sh`` (``make uml-kernel``) builds the kernel, ARCH=um, from Debian's
linux-source-6.1 into ``${AQMLAB_CACHE:-~/.cache/aqmlab}/uml/<key>/linux`` and points
``uml/latest`` at it. :func:`run_in_guest` boots it on the host's root file system (hostfs),
runs one shell script as the guest's only job and returns what it printed:

- ``time-travel=inf-cpu``: the guest's clock jumps over idle time and its CPU work takes no
  guest time, so a run's results do not depend on the host's speed or load, and 10 s of
  guest time usually take well under 10 s of the host's;
- ``random.seed=N`` (kernel/uml/random-seed.patch): every random number of the guest, the
  kernel's and its programs', comes from N alone; ``time-travel-start`` fixes the guest's
  wall clock; ``setarch -R`` turns off the host's address randomization of the guest;
  ``taskset`` keeps it on one CPU (a UML guest moved between CPUs runs 8 to 12 times slower);
- the console: the kernel's log on stderr (``con0=null,fd:2``, no input), which is a host
  file, never a pipe or a terminal (those deliver SIGIO to the guest, an input from outside).

The guest's PID 1 is a script written here: it mounts /proc, /sys, tmpfs on /run (so that ``ip
netns`` keeps its mounts inside the guest) and /tmp, runs the payload in a directory shared
with the host (under the cache, not /tmp, which the guest covers), writes its output and exit
status there and powers the guest off.
"""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

KERNEL_ENV = "AQMLAB_UML_KERNEL"
BUILD_COMMAND = "make uml-kernel"
DEFAULT_MEM_MB = 256
DEFAULT_SEED = 1
DEFAULT_TIMEOUT_S = 600.0
# The guest's wall clock at boot: 2024-01-01T00:00:00Z, not the host's clock.
START_NS = 1_704_067_200 * 10**9
CONSOLE_TAIL_LINES = 8
# Where the guest mounts its own tmpfs over the host's directories (the init script below).
GUEST_TMPFS = (Path("/run"), Path("/tmp"))

_INIT = """#!/bin/sh
# PID 1 of aqmlab's UML guest (aqmlab.emulation.uml_kernel): mounts, the payload, power off.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -o remount,noatime /
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
cd {dir}
cut -d' ' -f1 /proc/uptime > uptime_start
/bin/sh ./payload > output 2>&1
echo $? > status.tmp
cut -d' ' -f1 /proc/uptime > uptime_end
mv status.tmp status
sync
echo o > /proc/sysrq-trigger
while :; do sleep 60; done
"""


class UmlKernelMissing(RuntimeError):
    """No built kernel: the message says how to build one."""


class UmlBootError(RuntimeError):
    """The guest did not run its payload to the end: the message holds the console's tail."""


@dataclass(frozen=True)
class GuestRun:
    """What one boot's payload did."""

    status: int  # the payload's exit status
    output: str  # its stdout and stderr
    console: str  # the kernel's log (stderr)
    payload_start_s: float  # guest uptime when the payload started (after the boot)
    payload_end_s: float  # and when it ended

    @property
    def payload_guest_s(self) -> float:
        """Guest (virtual) seconds the payload ran."""
        return self.payload_end_s - self.payload_start_s


def cache_dir() -> Path:
    return Path(os.environ.get("AQMLAB_CACHE") or Path.home() / ".cache" / "aqmlab") / "uml"


# The reference kernels by release: where `make` links each, the command that builds it, and the
# variable that points at another build of it. 6.1 is the reference; 7.3 (Debian's
# linux-source-7.3) carries what went upstream of the L4S work, DualPI2 and Accurate ECN.
KERNELS = {
    "6.1": ("latest", BUILD_COMMAND, KERNEL_ENV),
    "7.3": ("latest-l4s-upstream", "make uml-kernel-l4s-upstream", "AQMLAB_UML_KERNEL_L4S"),
}


def find_kernel(release: str = "6.1") -> Path:
    """The built kernel of ``release``: its variable (``$AQMLAB_UML_KERNEL`` for 6.1,
    ``$AQMLAB_UML_KERNEL_L4S`` for 7.3), else the last one its ``make`` target built."""
    if release not in KERNELS:
        raise ValueError(f"release {release!r}: the reference kernels are {', '.join(KERNELS)}")
    link, build, env = KERNELS[release]
    explicit = os.environ.get(env)
    path = Path(explicit) if explicit else cache_dir() / link / "linux"
    if not (path.is_file() and os.access(path, os.X_OK)):
        where = f"${env}={explicit}" if explicit else str(path)
        raise UmlKernelMissing(
            f"no UML reference kernel (Linux {release}) at {where}: build it with `{build}` "
            "(about 7 minutes on 2 cores; docs/kernel-reference.md)"
        )
    return path


def command_line(kernel: Path, run_dir: Path, *, mem_mb: int, seed: int | None, cpu: int) -> list[str]:
    """The host command that boots ``kernel`` with ``run_dir/init`` as PID 1."""
    argv = ["taskset", "-c", str(cpu)]
    if shutil.which("setarch"):
        argv += ["setarch", platform.machine(), "-R"]
    argv += [
        str(kernel),
        f"mem={mem_mb}M",
        "root=/dev/root",
        "rootfstype=hostfs",
        "rootflags=/",
        "rw",
        f"init={run_dir / 'init'}",
        "time-travel=inf-cpu",
        f"time-travel-start={START_NS}",
        "con=null",
        "con0=null,fd:2",
        "ssl=null",
        f"uml_dir={run_dir}",
    ]
    if seed is not None:
        argv.append(f"random.seed={seed}")
    return argv


def run_in_guest(
    payload: str,
    *,
    kernel: Path | None = None,
    mem_mb: int = DEFAULT_MEM_MB,
    seed: int | None = DEFAULT_SEED,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    cpu: int = 0,
) -> GuestRun:
    """Boots the reference kernel, runs ``payload`` (a /bin/sh script; the host's root file
    system is the guest's) as root inside it, and returns its output once the guest is off.

    ``seed`` None leaves the guest's random numbers to the kernel's own sources. Raises
    :class:`UmlKernelMissing` when the kernel is not built, :class:`UmlBootError` when the
    guest ends without the payload's exit status or runs past ``timeout_s`` host seconds."""
    kernel = kernel or find_kernel()
    runs = cache_dir() / "runs"
    if any(runs.resolve().is_relative_to(covered) for covered in GUEST_TMPFS):
        raise UmlBootError(
            f"the run directory {runs} would be hidden in the guest by its tmpfs on "
            f"{' and '.join(map(str, GUEST_TMPFS))}: point AQMLAB_CACHE elsewhere"
        )
    runs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="run-", dir=runs) as tmp:
        run_dir = Path(tmp)
        (run_dir / "payload").write_text(payload)
        init = run_dir / "init"
        init.write_text(_INIT.format(dir=shlex.quote(str(run_dir))))
        init.chmod(0o755)
        console_path = run_dir / "console"
        argv = command_line(kernel, run_dir, mem_mb=mem_mb, seed=seed, cpu=cpu)
        with open(console_path, "wb") as console, open(os.devnull, "rb") as devnull:
            try:
                proc = subprocess.Popen(argv, stdin=devnull, stdout=console, stderr=console, start_new_session=True)
            except FileNotFoundError as e:
                raise UmlBootError(
                    f"cannot boot the UML guest: {e.filename} not found (taskset is in util-linux)"
                ) from None
            try:
                code = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise UmlBootError(
                    f"the UML guest ran past {timeout_s:g} s; console tail: {_tail(console_path)}"
                ) from None
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
        status = run_dir / "status"
        if not status.is_file():
            raise UmlBootError(
                f"the UML guest (exit {code}) did not run its payload to the end; console tail: {_tail(console_path)}"
            )
        return GuestRun(
            status=int(status.read_text().strip()),
            output=(run_dir / "output").read_text(errors="replace"),
            console=console_path.read_text(errors="replace"),
            payload_start_s=float((run_dir / "uptime_start").read_text()),
            payload_end_s=float((run_dir / "uptime_end").read_text()),
        )


def _tail(path: Path) -> str:
    """The console's last lines, after its panic line if it has one (a panic's last lines are
    its stack trace), on one line."""
    try:
        lines = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "(no console output)"
    panic = [line for line in lines if line.startswith("Kernel panic")]
    return " | ".join(panic[:1] + lines[-CONSOLE_TAIL_LINES:]) or "(no console output)"
