"""The emulated hosts' network namespaces: created per run, removed on every exit path.

One namespace per host, named ``aqmlab-<pid>-<index>`` after the process that owns the set,
so that a later run can tell a set left behind by a killed run: its pid is dead (or belongs to
a process started after the namespace, a recycled pid). :func:`remove_stale` deletes those.

Every command names one of this set's namespaces (``ip -n NS``, ``ip netns exec NS``) or one
of the router's TUN devices being moved into one of them; the checks in :meth:`HostNamespaces._own`
and :func:`_check_router_device` refuse anything else, so nothing here changes the host's own
interfaces, routes or sysctls (ip-netns(8)).

Exit paths: a normal end or an exception leaves the ``with`` block and :meth:`HostNamespaces.close`
runs; Ctrl-C is a KeyboardInterrupt and SIGTERM is turned into :class:`Terminated` (a handler
installed for the life of the ``with`` block), both exceptions that leave the block the same way;
a SIGKILLed owner cannot clean up, but its spawned processes die with it (PR_SET_PDEATHSIG,
prctl(2)) and its namespaces are then stale for the next run's :func:`remove_stale`.
"""

from __future__ import annotations

import contextlib
import ctypes
import ipaddress
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO, Any

NAME_PREFIX = "aqmlab"
_NAME = re.compile(r"^aqmlab-(\d+)-(\d+)$")
_SYSCTL_KEY = re.compile(r"^net(\.[A-Za-z0-9_-]+)+$")
_DEVICE = re.compile(r"^[A-Za-z0-9_.-]{1,15}$")  # IFNAMSIZ - 1
COMMAND_TIMEOUT_S = 10.0
NETNS_DIR = Path("/run/netns")
TUN_PATH = "/dev/net/tun"
AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")

# prctl(2): PR_SET_PDEATHSIG = 1 (include/uapi/linux/prctl.h). Resolved here, in the parent,
# so that the child between fork and exec only calls the function (no dlopen, no locks).
_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)
_prctl = _libc.prctl
_prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_prctl.restype = ctypes.c_int


class EmulationUnavailable(RuntimeError):
    """This machine cannot run an emulation (not root, no TUN, no iproute2, a missing TCP)."""


class EmulationError(RuntimeError):
    """A namespace command failed; the message names the command and its stderr."""


class Terminated(BaseException):
    """SIGTERM arrived while a :class:`HostNamespaces` was open.

    A BaseException, like KeyboardInterrupt, so that ``except Exception`` does not swallow it
    on its way out of the ``with`` block."""


def run_command(argv: list[str], timeout: float = COMMAND_TIMEOUT_S) -> str:
    """Runs ``argv``, returns its stdout; a failure or a timeout is one EmulationError line."""
    shown = " ".join(argv)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except FileNotFoundError:
        raise EmulationError(f"`{shown}`: {argv[0]} not found") from None
    except subprocess.TimeoutExpired:
        raise EmulationError(f"`{shown}` did not finish within {timeout:g} s") from None
    if done.returncode != 0:
        err = "; ".join(line.strip() for line in done.stderr.splitlines() if line.strip()) or "no message"
        raise EmulationError(f"`{shown}` failed (exit {done.returncode}): {err}")
    return done.stdout


def preflight(congestion_controls: Iterable[str]) -> None:
    """Raises EmulationUnavailable unless this process can build namespaces and TUN devices
    and the kernel offers every requested congestion control.

    As root, what a socket may choose with TCP_CONGESTION is
    ``tcp_available_congestion_control`` (``tcp_allowed_congestion_control`` restricts only
    unprivileged users; ip-sysctl.rst)."""
    if os.geteuid() != 0:
        raise EmulationUnavailable("emulation needs root (network namespaces, TUN devices): run it as root")
    try:
        fd = os.open(TUN_PATH, os.O_RDWR)
    except OSError as e:
        raise EmulationUnavailable(f"cannot open {TUN_PATH} ({e.strerror}): the kernel needs TUN support") from None
    os.close(fd)
    if shutil.which("ip") is None:
        raise EmulationUnavailable("the `ip` command (iproute2) is not installed")
    try:
        available = AVAILABLE_CC.read_text().split()
    except OSError as e:
        raise EmulationUnavailable(f"cannot read {AVAILABLE_CC} ({e.strerror})") from None
    for name in congestion_controls:
        if name not in available:
            raise EmulationUnavailable(
                f"congestion control {name!r} is not available in this kernel (available: {', '.join(available)})"
            )


def list_namespaces() -> list[str]:
    """Names of the host's named network namespaces (``ip netns list``: "NAME (id: N)")."""
    return [line.split()[0] for line in run_command(["ip", "netns", "list"]).splitlines() if line.strip()]


def namespace_pids(ns: str) -> list[int]:
    """Processes running inside ``ns`` (``ip netns pids``)."""
    return [int(tok) for tok in run_command(["ip", "netns", "pids", ns]).split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _started_at(pid: int) -> float | None:
    """Wall-clock start of ``pid``: /proc/PID/stat field 22 (ticks after boot) + btime, or None.

    proc(5): the comm field (2) may hold spaces and parentheses, so fields are counted after
    its last ')'."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        boot = next(
            int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines() if line.startswith("btime ")
        )
    except (OSError, StopIteration, ValueError):
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 is the 20th after comm


def _is_stale(ns: str, pid: int) -> bool:
    """Dead owner, or a live process under a recycled pid: one started after the namespace
    (btime is whole seconds, so a second of slack)."""
    if not _alive(pid):
        return True
    started = _started_at(pid)
    try:
        created = (NETNS_DIR / ns).stat().st_mtime
    except OSError:
        return False
    return started is not None and started > created + 1.5


def _stop_pids(pids: Iterable[int], grace_s: float) -> None:
    """SIGTERM, then SIGKILL whatever is still alive after ``grace_s``."""
    pids = list(pids)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.02)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _delete_namespace(ns: str, grace_s: float) -> None:
    """Stops every process inside ``ns`` (a process inside keeps the namespace alive after
    ``ip netns del`` removes its name) and deletes it; an already-gone namespace is not an error."""
    if not (NETNS_DIR / ns).exists():
        return
    with contextlib.suppress(EmulationError):
        _stop_pids(namespace_pids(ns), grace_s)
    try:
        run_command(["ip", "netns", "del", ns])
    except EmulationError:
        if (NETNS_DIR / ns).exists():
            raise


def remove_stale(grace_s: float = 1.0) -> list[str]:
    """Deletes the ``aqmlab-<pid>-*`` namespaces of dead runs (killing what still runs inside);
    returns their names. Called at the start of every emulation."""
    removed = []
    for ns in list_namespaces():
        m = _NAME.match(ns)
        if m and _is_stale(ns, int(m.group(1))):
            _delete_namespace(ns, grace_s)
            removed.append(ns)
    return removed


def _check_router_device(dev: str, prefix: str) -> None:
    """Only the router's TUN devices may be moved: the name starts with the set's device prefix
    and the device is a TUN/TAP (the kernel gives those, and only those, a ``tun_flags``
    attribute in sysfs, drivers/net/tun.c), so the host's own interfaces are never touched."""
    if not _DEVICE.match(dev) or not dev.startswith(prefix):
        raise ValueError(f"device {dev!r} is not a router device (its name must start with {prefix!r})")
    if not Path(f"/sys/class/net/{dev}/tun_flags").exists():
        raise ValueError(f"device {dev!r} is not a TUN device in this namespace")


def _set_pdeathsig(parent: int) -> Callable[[], None]:
    def in_child() -> None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        # The parent may have died between fork and prctl: then no signal would ever come.
        if os.getppid() != parent:
            os._exit(1)

    return in_child


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Holds SIGINT and SIGTERM back while cleanup runs (a second Ctrl-C must not leave half
    the namespaces behind), then raises what arrived. Only the main thread can set handlers;
    elsewhere cleanup runs without this shield."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []

    def record(signum: int, frame: FrameType | None) -> None:
        arrived.append(signum)

    previous = {s: signal.signal(s, record) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if signal.SIGINT in arrived:
        raise KeyboardInterrupt
    if signal.SIGTERM in arrived:
        raise Terminated("SIGTERM during cleanup")


class HostNamespaces:
    """The namespaces of one emulation run, one per host, removed by :meth:`close`.

    Use as a context manager: inside the ``with`` block SIGTERM raises :class:`Terminated`
    (the previous handler comes back on close), so every way out of the block cleans up."""

    def __init__(self, *, device_prefix: str = "aqm", kill_grace_s: float = 2.0) -> None:
        self.pid = os.getpid()
        self.device_prefix = device_prefix
        self.kill_grace_s = kill_grace_s
        self._names: dict[int, str] = {}
        self._procs: list[subprocess.Popen[bytes]] = []
        self._closed = False
        self._previous_sigterm: Any = None
        self._sigterm_installed = False
        self._terminating = False

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> HostNamespaces:
        if threading.current_thread() is threading.main_thread():
            self._previous_sigterm = signal.signal(signal.SIGTERM, self._on_sigterm)
            self._sigterm_installed = True
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _on_sigterm(self, signum: int, frame: FrameType | None) -> None:
        if not self._terminating:  # the first one ends the run; the others wait for cleanup
            self._terminating = True
            raise Terminated("SIGTERM")

    def close(self) -> None:
        """Stops the spawned processes (SIGTERM, SIGKILL after ``kill_grace_s``) and deletes the
        namespaces. Idempotent; objects already gone are skipped. Raises one EmulationError
        after trying everything if a namespace could not be deleted."""
        if self._closed:
            return
        self._closed = True
        failures: list[str] = []
        with _signals_deferred():
            live = [p for p in self._procs if p.poll() is None]
            _stop_pids((p.pid for p in live), self.kill_grace_s)
            for p in self._procs:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    p.wait(timeout=self.kill_grace_s)
            for ns in self._names.values():
                try:
                    _delete_namespace(ns, self.kill_grace_s)
                except EmulationError as e:
                    failures.append(str(e))
            # Only the main thread may set handlers; a close() elsewhere leaves ours in place.
            if self._sigterm_installed and threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, self._previous_sigterm)
                self._sigterm_installed = False
        if failures:
            raise EmulationError("; ".join(failures))

    # ------------------------------------------------------------------ namespaces
    @property
    def names(self) -> dict[int, str]:
        """Host index -> namespace name, for the namespaces created so far."""
        return dict(self._names)

    def name(self, index: int) -> str:
        return f"{NAME_PREFIX}-{self.pid}-{index}"

    def add(self, index: int) -> str:
        """Creates the namespace of host ``index``; returns its name."""
        if self._closed:
            raise EmulationError("this HostNamespaces is closed")
        if index < 0 or index in self._names:
            raise ValueError(f"host index {index} is negative or already has a namespace")
        ns = self.name(index)
        # Recorded before the command: a timed-out `ip netns add` may still have created it.
        self._names[index] = ns
        run_command(["ip", "netns", "add", ns])
        return ns

    def _own(self, ns: str) -> None:
        if ns not in self._names.values() or self._closed:
            raise ValueError(f"{ns!r} is not an open namespace of this run: refusing to run a command outside it")

    def move_device(self, dev: str, ns: str) -> None:
        """Moves the router's TUN device ``dev`` into ``ns`` (``ip link set dev X netns NS``)."""
        self._own(ns)
        _check_router_device(dev, self.device_prefix)
        run_command(["ip", "link", "set", "dev", dev, "netns", ns])

    def configure_tun(self, ns: str, dev: str, address: str, mtu: int) -> None:
        """Inside ``ns``: lo up, ``dev`` at ``mtu`` and up, ``address``/32 on it and 10.0.0.0/8
        through it (every host is in 10/8; the router routes between them)."""
        self._own(ns)
        if not _DEVICE.match(dev):
            raise ValueError(f"bad device name {dev!r}")
        addr = ipaddress.IPv4Address(address)
        if addr not in ipaddress.IPv4Network("10.0.0.0/8"):
            raise ValueError(f"host address {address} is not in 10.0.0.0/8")
        if not 68 <= mtu <= 65535:  # RFC 791's minimum; the largest IPv4 packet
            raise ValueError(f"mtu {mtu} is outside 68..65535")
        ip = ["ip", "-n", ns]
        run_command([*ip, "link", "set", "dev", "lo", "up"])
        run_command([*ip, "link", "set", "dev", dev, "mtu", str(mtu), "up"])
        run_command([*ip, "addr", "add", f"{addr}/32", "dev", dev])
        run_command([*ip, "route", "add", "10.0.0.0/8", "dev", dev])

    def set_sysctl(self, ns: str, key: str, value: str | int) -> None:
        """Sets a network sysctl inside ``ns`` (``ip netns exec NS sysctl -qw KEY=VALUE``).

        Only ``net.*`` keys: a child namespace sees only the network sysctls it holds itself
        and the kernel refuses writes to the few global ones it shows (e.g. net.core.rmem_max:
        EINVAL); the host's value is read before and after all the same, and a change is an
        error, so that a kernel which did let one through would not go unnoticed."""
        self._own(ns)
        if not _SYSCTL_KEY.match(key):
            raise ValueError(f"sysctl {key!r} is not a net.* key")
        text = str(value)
        if not re.fullmatch(r"[A-Za-z0-9_. \t-]+", text):
            raise ValueError(f"sysctl value {text!r} has characters a sysctl value does not need")
        host_file = Path("/proc/sys") / key.replace(".", "/")
        before = host_file.read_text() if host_file.exists() else None
        run_command(["ip", "netns", "exec", ns, "sysctl", "-qw", f"{key}={text}"])
        if host_file.exists() and host_file.read_text() != before:
            raise EmulationError(f"setting {key} inside {ns} changed the host's value: it is not per namespace")

    def spawn(
        self,
        ns: str,
        argv: list[str],
        *,
        stdin: int | IO[Any] | None = subprocess.DEVNULL,
        stdout: int | IO[Any] | None = None,
        stderr: int | IO[Any] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> subprocess.Popen[bytes]:
        """Starts ``argv`` inside ``ns``; it gets SIGKILL if this process dies.

        ``ip netns exec`` switches namespace and execs ``argv`` in the same process (iproute2's
        cmd_exec forks only in batch mode), so the Popen's pid is ``argv``'s and the death
        signal set before exec stays (prctl(2) clears it only for set-user-ID programs).
        PR_SET_PDEATHSIG fires when the *thread* that forked exits: spawn from a thread that
        outlives the children (the main thread). Each child gets its own session, so a
        terminal's Ctrl-C reaches only this process, which then stops them in order."""
        self._own(ns)
        proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, *argv],
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            env=env,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=_set_pdeathsig(os.getpid()),
        )
        self._procs.append(proc)
        return proc

    def pids(self, ns: str) -> list[int]:
        self._own(ns)
        return namespace_pids(ns)
