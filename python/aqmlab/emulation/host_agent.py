"""One emulated host's traffic, run inside its namespace:
``python -m aqmlab.emulation.host_agent SPEC_JSON REPORT_JSON``.

The spec lists the flows this host receives and sends (see :func:`parse_spec`); scenario time
is ``(CLOCK_MONOTONIC - t0_ns) / 1e9``, one clock for every namespace (network namespaces do
not have clocks of their own). The agent binds every receiving socket, prints ``ready`` on
stdout (with ``t0_ns`` null in the spec, it then reads ``go T0_NS`` from stdin: the
orchestrator fixes time 0 once every host is ready, however long they took to start), runs until ``duration_s`` (a little longer for the last bytes to arrive), writes the
report and exits; SIGTERM makes it stop early and write what it has.

One thread per socket: the bulk TCP sends are 256 KiB writes, which release the GIL while the
kernel copies, so Python is not in the hot path at 1 Gb/s. An exception in one flow's thread
is reported in "errors" and ends that flow only.
"""

from __future__ import annotations

import errno
import json
import math
import os
import random
import select
import signal
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from . import kernel_counters, tcp_info

BULK_WRITE_BYTES = 256 * 1024
READ_BYTES = 1 << 20
SOCKET_POLL_S = 0.2  # how often a blocked socket call looks at the stop flag
END_GRACE_S = 1.0  # after duration_s: the last bytes in flight, FINs, receivers' EOF
UDP_HEADER = struct.Struct("!QI")  # send time (CLOCK_MONOTONIC ns), sequence number
MAX_UDP_PAYLOAD = 65507
CATCH_UP_SPEED = 2.0  # a late UDP sender sends at this multiple of its rate until on time
CATCH_UP_LIMIT_S = 0.1  # packets due longer ago than this are given up
DEFAULT_SAMPLE_INTERVAL_S = 0.1
KINDS = ("tcp", "cbr", "poisson", "onoff")


@dataclass(frozen=True)
class FlowSpec:
    flow: int
    kind: str
    src_address: str
    dst_address: str
    port: int
    start_s: float
    stop_s: float | None
    congestion_control: str | None = None
    size_bytes: int | None = None
    mss: int | None = None
    rate_bps: float | None = None
    packet_size: int | None = None
    packets_per_second: float | None = None
    exponential_sizes: bool = False
    on_time_s: float | None = None
    off_time_s: float | None = None


@dataclass(frozen=True)
class Spec:
    t0_ns: int | None
    duration_s: float
    warmup_s: float
    sample_interval_s: float
    seed: int
    receivers: tuple[FlowSpec, ...]
    senders: tuple[FlowSpec, ...]


def _flow(d: dict[str, Any], where: str) -> FlowSpec:
    names = set(FlowSpec.__dataclass_fields__)
    unknown = set(d) - names
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    try:
        f = FlowSpec(**{k: v for k, v in d.items() if v is not None or k == "stop_s"})
    except TypeError as e:
        raise ValueError(f"{where}: {e}") from None
    if f.kind not in KINDS:
        raise ValueError(f"{where}.kind: {f.kind!r} is not one of {', '.join(KINDS)}")
    if f.kind == "tcp" and not f.congestion_control:
        raise ValueError(f"{where}.congestion_control: required for a tcp flow")
    if f.kind != "tcp":
        if f.packet_size is None or not UDP_HEADER.size <= f.packet_size <= MAX_UDP_PAYLOAD:
            raise ValueError(f"{where}.packet_size: {UDP_HEADER.size}..{MAX_UDP_PAYLOAD} bytes for a UDP flow")
        if f.kind == "poisson":
            if not (f.packets_per_second or f.rate_bps):
                raise ValueError(f"{where}.packets_per_second: required for a poisson flow")
        elif not f.rate_bps or f.rate_bps <= 0:
            raise ValueError(f"{where}.rate_bps: a positive rate is required for a {f.kind} flow")
        if f.kind == "onoff" and not (f.on_time_s and f.off_time_s):
            raise ValueError(f"{where}.on_time_s / off_time_s: both required for an onoff flow")
    return f


def parse_spec(d: dict[str, Any]) -> Spec:
    """The agent's spec (JSON object), checked; a bad field is a ValueError naming it."""
    for key in ("duration_s", "warmup_s"):
        if key not in d:
            raise ValueError(f"spec.{key}: missing")
    interval = d.get("sample_interval_s") or DEFAULT_SAMPLE_INTERVAL_S
    spec = Spec(
        t0_ns=None if d.get("t0_ns") is None else int(d["t0_ns"]),
        duration_s=float(d["duration_s"]),
        warmup_s=float(d["warmup_s"]),
        sample_interval_s=float(interval),
        seed=int(d.get("seed", 0)),
        receivers=tuple(_flow(f, f"receivers[{i}]") for i, f in enumerate(d.get("receivers", []))),
        senders=tuple(_flow(f, f"senders[{i}]") for i, f in enumerate(d.get("senders", []))),
    )
    if not 0 <= spec.warmup_s <= spec.duration_s:
        raise ValueError("spec.warmup_s: must be within 0..duration_s")
    flows = [f.flow for f in spec.receivers + spec.senders]
    if len(flows) != len(set(flows)):
        raise ValueError("spec: a flow appears twice on one host")
    return spec


@dataclass
class TcpSenderState:
    warmup: dict[str, int] | None = None
    end: dict[str, int] | None = None
    end_time_s: float | None = None
    srtt_in_window: list[float] = field(default_factory=list)


class Agent:
    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        # 0 until the orchestrator says (`go` on stdin) when the spec leaves it open.
        self.t0_ns = spec.t0_ns or 0
        self.stop = threading.Event()
        self.terminated = False
        self._lock = threading.Lock()
        self.flows: dict[int, dict[str, Any]] = {}
        self.series: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self._sampled: dict[int, socket.socket] = {}
        self._tcp: dict[int, TcpSenderState] = {f.flow: TcpSenderState() for f in spec.senders if f.kind == "tcp"}
        self.counters_warmup: dict[str, int] | None = None
        self.counters_end: dict[str, int] | None = None

    # ------------------------------------------------------------------ time
    def now(self) -> float:
        return (time.monotonic_ns() - self.t0_ns) / 1e9

    def sleep_until(self, t: float) -> bool:
        """Sleeps until scenario time ``t``; False if the agent is stopping."""
        while not self.stop.is_set():
            left = t - self.now()
            if left <= 0:
                return True
            self.stop.wait(left)
        return False

    def in_window(self, t: float) -> bool:
        return self.spec.warmup_s <= t <= self.spec.duration_s

    def _report(self, flow: int, **values: Any) -> None:
        with self._lock:
            self.flows.setdefault(flow, {}).update(values)

    def _guarded(self, f: FlowSpec, role: str, body: Any, *args: Any) -> threading.Thread:
        def run() -> None:
            try:
                body(f, *args)
            except Exception as e:  # reported, and the other flows go on
                msg = f"flow {f.flow} ({f.kind} {role}): {type(e).__name__}: {e}"
                with self._lock:
                    self.errors.append(msg)
                self._report(f.flow, error=msg)

        t = threading.Thread(target=run, name=f"{role}-{f.flow}", daemon=True)
        t.start()
        return t

    # ------------------------------------------------------------------ receivers
    def bind_receivers(self) -> list[tuple[FlowSpec, socket.socket]]:
        bound = []
        for f in self.spec.receivers:
            if f.kind == "tcp":
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((f.dst_address, f.port))
                s.listen(1)
            else:
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind((f.dst_address, f.port))
            s.settimeout(SOCKET_POLL_S)
            bound.append((f, s))
        return bound

    def tcp_receiver(self, f: FlowSpec, listener: socket.socket) -> None:
        self._report(f.flow, role="receiver", kind="tcp", goodput_bytes=0, bytes_total=0, completed_at_s=None)
        deadline = self.spec.duration_s + END_GRACE_S
        conn = None
        with listener:
            while conn is None and not self.stop.is_set() and self.now() < deadline:
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
        if conn is None:
            return
        buf = bytearray(READ_BYTES)
        total = goodput = 0
        completed_at = None
        with conn:
            conn.settimeout(SOCKET_POLL_S)
            while not self.stop.is_set() and self.now() < deadline:
                try:
                    n = conn.recv_into(buf)
                except TimeoutError:
                    continue
                if n == 0:
                    break
                t = self.now()
                total += n
                if self.in_window(t):
                    goodput += n
                if f.size_bytes is not None and completed_at is None and total >= f.size_bytes:
                    completed_at = t
                self._report(f.flow, goodput_bytes=goodput, bytes_total=total, completed_at_s=completed_at)

    def udp_receiver(self, f: FlowSpec, sock: socket.socket) -> None:
        self._report(f.flow, role="receiver", kind=f.kind)
        deadline = self.spec.duration_s + END_GRACE_S
        buf = bytearray(MAX_UDP_PAYLOAD)
        highest, received = -1, 0
        packets = nbytes = 0
        delay_sum = 0.0
        delay_max = 0.0
        with sock:
            while not self.stop.is_set() and self.now() < deadline:
                try:
                    n = sock.recv_into(buf)
                except TimeoutError:
                    continue
                arrived = time.monotonic_ns()
                if n < UDP_HEADER.size:
                    continue
                sent_ns, seq = UDP_HEADER.unpack_from(buf)
                received += 1
                highest = max(highest, seq)
                if self.in_window((arrived - self.t0_ns) / 1e9):
                    packets += 1
                    nbytes += n
                    d = (arrived - sent_ns) / 1e6
                    delay_sum += d
                    delay_max = max(delay_max, d)
        self._report(
            f.flow,
            packets=packets,
            goodput_bytes=nbytes,
            mean_delay_ms=delay_sum / packets if packets else math.nan,
            max_delay_ms=delay_max if packets else math.nan,
            packets_total=received,
            # Gaps below the highest sequence number seen; losses after it are invisible here
            # (the sender's packets_sent tells them).
            lost=highest + 1 - received,
        )

    # ------------------------------------------------------------------ TCP senders
    def tcp_sender(self, f: FlowSpec) -> None:
        self._report(f.flow, role="sender", kind="tcp", congestion_control=f.congestion_control, bytes_written=0)
        if not self.sleep_until(f.start_s):
            return
        stop_at = min(f.stop_s if f.stop_s is not None else math.inf, self.spec.duration_s)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            # Per socket, not the namespace's default (net.ipv4.tcp_congestion_control).
            assert f.congestion_control is not None
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, f.congestion_control.encode())
            if f.mss is not None:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, f.mss)
            s.bind((f.src_address, 0))
            if not self._connect(s, (f.dst_address, f.port), stop_at):
                return
            s.settimeout(SOCKET_POLL_S)
            with self._lock:
                self._sampled[f.flow] = s
            written = self._send_tcp(f, s, stop_at)
            self._report(f.flow, bytes_written=written)
            if f.size_bytes is not None and written == f.size_bytes:
                s.shutdown(socket.SHUT_WR)
                self._drain_until_closed(s, stop_at)
            self._sample(f.flow, s, self.now(), final=True)
        finally:
            with self._lock:
                self._sampled.pop(f.flow, None)
            s.close()

    def _connect(self, s: socket.socket, address: tuple[str, int], stop_at: float) -> bool:
        """Connects as the kernel does, for as long as it keeps retransmitting the SYN (a SYN
        lost in a full queue is sent again 1 s later, then 2 s, ...: tcp_syn_retries), or until
        the flow's stop; False if it stopped first. A timeout of our own would end a flow that
        a real client would still be opening."""
        s.setblocking(False)
        err = s.connect_ex(address)
        if err not in (0, errno.EINPROGRESS):
            raise OSError(err, os.strerror(err))
        while err == errno.EINPROGRESS:
            if self.stop.is_set() or self.now() >= stop_at:
                return False
            _, writable, _ = select.select([], [s], [], SOCKET_POLL_S)
            if writable:
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    raise OSError(err, f"connect to {address[0]}:{address[1]}: {os.strerror(err)}")
        return True

    def _send_tcp(self, f: FlowSpec, s: socket.socket, stop_at: float) -> int:
        chunk = memoryview(bytes(BULK_WRITE_BYTES))
        left = f.size_bytes if f.size_bytes is not None else math.inf
        written = 0
        while left > 0 and not self.stop.is_set() and self.now() < stop_at:
            n = int(min(left, BULK_WRITE_BYTES))
            try:
                sent = s.send(chunk[:n])
            except TimeoutError:
                continue
            written += sent
            left -= sent
        return written

    def _drain_until_closed(self, s: socket.socket, stop_at: float) -> None:
        """After a finite transfer: wait for the receiver's FIN, so that the last TCP_INFO
        sample has every byte acknowledged."""
        while not self.stop.is_set() and self.now() < stop_at:
            try:
                if not s.recv(4096):
                    return
            except TimeoutError:
                continue

    def _sample(self, flow: int, s: socket.socket, t: float, *, final: bool = False, warmup: bool = False) -> None:
        info = tcp_info.read(s)
        state = self._tcp[flow]
        rows = [{"time_s": t, "flow": flow, "variable": k, "value": v} for k, v in tcp_info.variables(info).items()]
        with self._lock:
            if t <= self.spec.duration_s:
                self.series.extend(rows)
            if warmup:
                state.warmup = info
            if final or t <= self.spec.duration_s:
                state.end, state.end_time_s = info, t
            if self.in_window(t) and "rtt" in info:
                state.srtt_in_window.append(info["rtt"] / 1000.0)

    def sampler(self) -> None:
        """TCP_INFO of every sending socket at k * interval of scenario time (no drift), plus
        one sample at the warmup instant for the window's baselines."""
        interval = self.spec.sample_interval_s
        k = max(0, math.ceil(self.now() / interval))
        warmup_pending = self.spec.warmup_s > 0
        while not self.stop.is_set():
            t = k * interval
            at_warmup = warmup_pending and self.spec.warmup_s <= t
            if at_warmup:
                t = self.spec.warmup_s
            if t > self.spec.duration_s + END_GRACE_S or not self.sleep_until(t):
                return
            with self._lock:
                sockets = list(self._sampled.items())
            for flow, s in sockets:
                try:
                    self._sample(flow, s, self.now(), warmup=at_warmup)
                except OSError:
                    pass  # closed between the listing and the sample: its thread took the last one
            if at_warmup:
                warmup_pending = False
                if t < k * interval:
                    continue
            k += 1

    def tcp_summary(self, f: FlowSpec) -> dict[str, Any]:
        """The measured window's TCP counts: value at the window's end (or the flow's last
        sample) minus at warmup (zero for a flow that connected after warmup)."""
        st = self._tcp[f.flow]
        end = st.end or {}
        before = st.warmup if st.warmup is not None else {}
        empty = st.end_time_s is None or st.end_time_s < self.spec.warmup_s

        def window(key: str) -> int | None:
            if key not in end:
                return None
            return 0 if empty else end[key] - before.get(key, 0)

        srtt = st.srtt_in_window
        return {
            "retransmissions": window("total_retrans"),
            "segs_out": window("segs_out"),
            "bytes_retrans": window("bytes_retrans"),
            "bytes_acked_in_window": window("bytes_acked"),
            "mean_srtt_ms": sum(srtt) / len(srtt) if srtt else math.nan,
            "rtt_samples": len(srtt),
            "last_tcp_info": end,
            "last_tcp_info_time_s": st.end_time_s,
        }

    # ------------------------------------------------------------------ UDP senders
    def udp_sender(self, f: FlowSpec) -> None:
        self._report(f.flow, role="sender", kind=f.kind, packets_sent=0)
        if not self.sleep_until(f.start_s):
            return
        stop_at = min(f.stop_s if f.stop_s is not None else math.inf, self.spec.duration_s)
        rng = random.Random(f"{self.spec.seed}:{f.flow}")  # str seeds hash the same in every run
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((f.src_address, 0))
        sock.connect((f.dst_address, f.port))
        sender = _UdpSend(self, f, sock)
        with sock:
            if f.kind == "cbr":
                assert f.rate_bps is not None and f.packet_size is not None
                sender.constant_rate(f.start_s, stop_at, f.packet_size * 8 / f.rate_bps)
            elif f.kind == "onoff":
                assert f.on_time_s is not None and f.off_time_s is not None and f.rate_bps is not None
                assert f.packet_size is not None
                t = f.start_s
                while t < stop_at:
                    on_end = min(t + rng.expovariate(1 / f.on_time_s), stop_at)
                    if not sender.constant_rate(t, on_end, f.packet_size * 8 / f.rate_bps):
                        break
                    t = on_end + rng.expovariate(1 / f.off_time_s)
            else:
                sender.poisson(f.start_s, stop_at, rng)
        self._report(
            f.flow,
            packets_sent=sender.sent,
            bytes_sent=sender.bytes,
            packets_sent_in_window=sender.sent_in_window,
            packets_skipped=sender.skipped,
            send_errors=sender.send_errors,
        )

    # ------------------------------------------------------------------ the run
    def run(self, ready_out: Any, go_in: Any = None) -> None:
        bound = self.bind_receivers()
        ready_out.write("ready\n")
        ready_out.flush()
        if self.spec.t0_ns is None:
            line = go_in.readline() if go_in is not None else ""
            word, _, value = line.partition(" ")
            if word != "go" or not value.strip().isdigit():
                raise ValueError(f"expected 'go T0_NS' on stdin, got {line!r}")
            self.t0_ns = int(value)
        threads = [self._guarded(f, "receiver", self._receive, s) for f, s in bound]
        for f in self.spec.senders:
            threads.append(self._guarded(f, "sender", self.tcp_sender if f.kind == "tcp" else self.udp_sender))
        if self._tcp:
            threads.append(threading.Thread(target=self._sampler_guarded, name="sampler", daemon=True))
            threads[-1].start()
        if self.sleep_until(self.spec.warmup_s):
            self.counters_warmup = kernel_counters.read()
        if self.sleep_until(self.spec.duration_s):
            self.counters_end = kernel_counters.read()
        if self.counters_end is None:  # stopped early: the counters up to now
            self.counters_end = kernel_counters.read()
        deadline = time.monotonic() + max(0.0, self.spec.duration_s + END_GRACE_S - self.now()) + SOCKET_POLL_S
        for t in threads:
            if t.name != "sampler":
                t.join(max(0.0, deadline - time.monotonic()))
        self.stop.set()
        for t in threads:
            t.join(2 * SOCKET_POLL_S + 1.0)
            if t.is_alive():
                self.errors.append(f"thread {t.name} did not stop")

    def _receive(self, f: FlowSpec, s: socket.socket) -> None:
        (self.tcp_receiver if f.kind == "tcp" else self.udp_receiver)(f, s)

    def _sampler_guarded(self) -> None:
        try:
            self.sampler()
        except Exception as e:
            with self._lock:
                self.errors.append(f"TCP_INFO sampler: {type(e).__name__}: {e}")

    def report(self) -> dict[str, Any]:
        with self._lock:
            flows = {str(k): dict(v) for k, v in self.flows.items()}
            for f in self.spec.senders:
                if f.kind == "tcp":
                    flows.setdefault(str(f.flow), {}).update(self.tcp_summary(f))
            netstat = (
                kernel_counters.deltas(self.counters_warmup or {}, self.counters_end)
                if self.counters_warmup is not None and self.counters_end is not None
                else {}
            )
            return {
                "flows": flows,
                "series": list(self.series),
                "netstat": netstat,
                "errors": list(self.errors),
                "terminated": self.terminated,
            }


class _UdpSend:
    """Datagrams on a schedule of absolute times (no drift: the k-th of a constant rate is due
    at start + k * gap), each carrying its send time and sequence number.

    A sender that fell behind (the thread was not scheduled in time) catches up at twice the
    rate, never back to back, so the stream keeps its packet count without a burst; one more
    than CATCH_UP_LIMIT_S behind gives up the packets it missed (counted in
    ``packets_skipped``) rather than sending at double rate for that long."""

    def __init__(self, agent: Agent, f: FlowSpec, sock: socket.socket) -> None:
        self.agent, self.f, self.sock = agent, f, sock
        assert f.packet_size is not None
        self.buf = bytearray(MAX_UDP_PAYLOAD if f.exponential_sizes else f.packet_size)
        self.sent = self.bytes = self.sent_in_window = self.skipped = self.send_errors = 0
        self.previous = -math.inf  # scenario time of the last send

    def _send(self, size: int) -> None:
        UDP_HEADER.pack_into(self.buf, 0, time.monotonic_ns(), self.sent)
        try:
            self.sock.send(memoryview(self.buf)[:size])
        except OSError:
            # ICMP port unreachable reported on a later send, ENOBUFS: counted, not fatal
            self.send_errors += 1
        now = self.agent.now()
        self.previous = now
        if self.agent.in_window(now):
            self.sent_in_window += 1
        self.sent += 1
        self.bytes += size

    def _send_when_due(self, t: float, gap: float, size: int) -> bool | None:
        """Sends the packet due at ``t``: True once sent, False if it was given up (too far
        behind), None if the agent is stopping."""
        if not self.agent.sleep_until(max(t, self.previous + gap / CATCH_UP_SPEED)):
            return None
        if self.agent.now() - t > CATCH_UP_LIMIT_S:
            self.skipped += 1
            return False
        self._send(size)
        return True

    def constant_rate(self, start: float, stop: float, gap: float) -> bool:
        """Sends from ``start`` to ``stop``; False if the agent is stopping."""
        assert self.f.packet_size is not None
        k = 0
        while (t := start + k * gap) < stop:
            if self._send_when_due(t, gap, self.f.packet_size) is None:
                return False
            k += 1
        return True

    def poisson(self, start: float, stop: float, rng: random.Random) -> None:
        f = self.f
        assert f.packet_size is not None
        pps = f.packets_per_second or (f.rate_bps or 0) / (8 * f.packet_size)
        t, gap = start, 1 / pps
        while t < stop:
            size = f.packet_size
            if f.exponential_sizes:
                size = min(max(round(rng.expovariate(1 / f.packet_size)), UDP_HEADER.size), MAX_UDP_PAYLOAD)
            if self._send_when_due(t, gap, size) is None:
                return
            gap = rng.expovariate(pps)
            t += gap


def write_report(path: Path, report: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report))  # NaN where a value is undefined (Python's json reads it)
    os.replace(tmp, path)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m aqmlab.emulation.host_agent SPEC_JSON REPORT_JSON", file=sys.stderr)
        return 2
    spec = parse_spec(json.loads(Path(argv[0]).read_text()))
    agent = Agent(spec)

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        agent.terminated = True
        agent.stop.set()

    signal.signal(signal.SIGTERM, on_sigterm)
    failed = False
    try:
        agent.run(sys.stdout, sys.stdin)
    except Exception as e:  # e.g. a receiver's address not on this host: no "ready", a report
        failed = True
        agent.errors.append(f"agent: {type(e).__name__}: {e}")
        print(f"host_agent: {type(e).__name__}: {e}", file=sys.stderr)
    finally:
        agent.stop.set()
        write_report(Path(argv[1]), agent.report())
    if failed:
        return 1
    return 128 + signal.SIGTERM if agent.terminated else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
