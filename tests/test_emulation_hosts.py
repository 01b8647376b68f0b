"""Issue 26: the emulation's hosts without the router: namespaces (aqmlab.emulation.netns) and
the traffic agent (aqmlab.emulation.host_agent), over a veth pair made inside two namespaces.

The kernel tests need root, /dev/net/tun and iproute2, and skip (saying which) without them.
A veth has no rate, so goodput is checked by accounting, not against a capacity: every byte
the sender wrote arrives, and the sender's own TCP_INFO bounds what the receiver counted."""

from __future__ import annotations

import json
import math
import os
import re
import select
import signal
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import aqmlab.emulation
import pytest
from aqmlab.emulation import host_agent, kernel_counters, netns, tcp_info

PYTHONPATH = str(Path(aqmlab.emulation.__file__).resolve().parent.parent.parent)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PYTHONPATH, env.get("PYTHONPATH")) if p)
    return env


def _skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "not root: namespaces need root"
    if not os.path.exists(netns.TUN_PATH):
        return f"no {netns.TUN_PATH}"
    try:
        netns.preflight(["cubic", "reno"])
    except netns.EmulationUnavailable as e:
        return str(e)
    return None


needs_kernel = pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))


def _ours(pid: int) -> list[str]:
    return [n for n in netns.list_namespaces() if n.startswith(f"aqmlab-{pid}-")]


# ---------------------------------------------------------------- pure decoding (no root)
def test_tcp_info_offsets_follow_the_uapi_header():
    """include/uapi/linux/tcp.h: 8 one-byte fields, then u32s; the u64 block at 104; 232
    bytes up to tcpi_snd_wnd (Linux 5.4), 248 up to tcpi_total_rto_time (6.7), 280 with the
    Accurate ECN counters and the ECN mode's bit-field word (6.18)."""
    at = {name: off for name, (off, _) in tcp_info.OFFSETS.items()}
    assert at["rto"] == 8 and at["unacked"] == 24 and at["rtt"] == 68 and at["snd_cwnd"] == 80
    assert at["total_retrans"] == 100 and at["pacing_rate"] == 104 and at["segs_out"] == 136
    assert at["delivery_rate"] == 160 and at["bytes_retrans"] == 208 and at["snd_wnd"] == 228
    assert at["total_rto_time"] == 244 and at["received_ce"] == 248 and at["ecn"] == 276 and tcp_info.SIZE == 280
    assert tcp_info.REQUEST_BYTES > tcp_info.SIZE


def test_tcp_info_ecn_mode_bit_fields():
    """tcpi_ecn_mode:2, tcpi_accecn_opt_seen:2, tcpi_accecn_fail_mode:4, from the low bit; a
    6.1 kernel's 248 bytes carry none of them."""
    raw = bytearray(tcp_info.SIZE)
    struct.pack_into("=I", raw, tcp_info.OFFSETS["ecn"][0], 0b0101_10_10)  # fail 5, opt seen 2, AccECN
    info = tcp_info.decode(bytes(raw))
    assert (info["ecn_mode"], info["accecn_opt_seen"], info["accecn_fail_mode"]) == (2, 2, 5)
    assert tcp_info.ECN_MODES[info["ecn_mode"]] == "accecn"
    assert "ecn_mode" not in tcp_info.decode(bytes(raw[:248])) and "received_ce" not in tcp_info.decode(
        bytes(raw[:248])
    )


def test_tcp_info_decodes_only_what_the_kernel_returned():
    raw = bytearray(tcp_info.SIZE)
    raw[6] = 0x97  # snd_wscale 7, rcv_wscale 9
    for name, value in {"snd_cwnd": 10, "snd_ssthresh": 0x7FFFFFFF, "rtt": 1500, "rto": 201000}.items():
        struct.pack_into("=I", raw, tcp_info.OFFSETS[name][0], value)
    for name, value in {"unacked": 12, "sacked": 3, "lost": 2, "retrans": 1, "min_rtt": 2**32 - 1}.items():
        struct.pack_into("=I", raw, tcp_info.OFFSETS[name][0], value)
    struct.pack_into("=Q", raw, tcp_info.OFFSETS["pacing_rate"][0], 2**64 - 1)
    full = tcp_info.decode(bytes(raw))
    assert full["snd_wscale"] == 7 and full["rcv_wscale"] == 9 and "total_rto_time" in full
    v = tcp_info.variables(full)
    assert v["cwnd"] == 10 and math.isnan(v["ssthresh"]) and v["srtt_ms"] == 1.5 and v["rto_ms"] == 201.0
    assert v["in_flight"] == 12 - 3 - 2 + 1  # tcp_packets_in_flight
    assert math.isnan(v["pacing_rate_bps"]) and math.isnan(v["min_rtt_ms"])
    short = tcp_info.decode(bytes(raw[:104]))  # a pre-3.15 kernel: no u64 block
    assert "total_retrans" in short and "pacing_rate" not in short
    assert set(tcp_info.variables(short)) == {"cwnd", "ssthresh", "srtt_ms", "rto_ms", "in_flight"}


def test_kernel_counters_pairs_lines_and_takes_deltas():
    text = "TcpExt: TCPTimeouts TCPLossProbes\nTcpExt: 3 5\nTcp: MaxConn RetransSegs\nTcp: -1 7\n"
    before = kernel_counters.parse(text)
    assert before == {"TcpExt.TCPTimeouts": 3, "TcpExt.TCPLossProbes": 5, "Tcp.MaxConn": -1, "Tcp.RetransSegs": 7}
    after = dict(before, **{"TcpExt.TCPTimeouts": 4, "Tcp.RetransSegs": 9})
    assert kernel_counters.deltas(before, after) == {
        "TcpExt.TCPTimeouts": 1,
        "TcpExt.TCPLossProbes": 0,
        "Tcp.RetransSegs": 2,
    }


def test_agent_spec_errors_name_the_field():
    base = {"t0_ns": 0, "duration_s": 1, "warmup_s": 0}
    flow = {"flow": 1, "kind": "cbr", "src_address": "10.0.0.1", "dst_address": "10.0.0.2", "port": 1, "start_s": 0}
    with pytest.raises(ValueError, match=r"senders\[0\]\.rate_bps"):
        host_agent.parse_spec(dict(base, senders=[dict(flow, packet_size=100, stop_s=None)]))
    with pytest.raises(ValueError, match=r"senders\[0\]\.packet_size"):
        host_agent.parse_spec(dict(base, senders=[dict(flow, packet_size=4, rate_bps=1e6, stop_s=None)]))
    with pytest.raises(ValueError, match=r"spec\.warmup_s"):
        host_agent.parse_spec(dict(base, warmup_s=2))


# ---------------------------------------------------------------- kernel: traffic
A, B = "10.0.0.1", "10.0.0.2"


def _pair(h: netns.HostNamespaces) -> tuple[str, str]:
    """Two namespaces joined by a veth made inside them (never in the host's namespace)."""
    a, b = h.add(0), h.add(1)
    netns.run_command(["ip", "-n", a, "link", "add", "veth0", "type", "veth", "peer", "name", "veth1", "netns", b])
    h.configure_tun(a, "veth0", A, 1500)
    h.configure_tun(b, "veth1", B, 1500)
    return a, b


def _readline(proc: subprocess.Popen[bytes], timeout: float) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "agent did not print ready"
    return proc.stdout.readline().decode()


def _run_agents(tmp: Path, duration: float, warmup: float, flows: list[dict], receivers_too: list[dict] | None = None):
    """Receiver agent in one namespace, sender agent in the other; returns both reports."""
    with netns.HostNamespaces() as h:
        a, b = _pair(h)
        common = {"t0_ns": time.monotonic_ns() + int(0.3e9), "duration_s": duration, "warmup_s": warmup}
        common["sample_interval_s"] = None
        rx_flows = receivers_too if receivers_too is not None else flows
        (tmp / "rx.json").write_text(json.dumps(dict(common, receivers=rx_flows, senders=[])))
        (tmp / "tx.json").write_text(json.dumps(dict(common, receivers=[], senders=flows)))
        agent = [sys.executable, "-m", "aqmlab.emulation.host_agent"]
        rx = h.spawn(b, [*agent, str(tmp / "rx.json"), str(tmp / "rx.out")], stdout=subprocess.PIPE, env=_env())
        assert _readline(rx, 10) == "ready\n"
        tx = h.spawn(a, [*agent, str(tmp / "tx.json"), str(tmp / "tx.out")], stdout=subprocess.DEVNULL, env=_env())
        assert rx.wait(duration + 10) == 0 and tx.wait(duration + 10) == 0
    assert _ours(os.getpid()) == []
    return json.loads((tmp / "rx.out").read_text()), json.loads((tmp / "tx.out").read_text())


def _flow(n: int, kind: str, **kw) -> dict:
    return {"flow": n, "kind": kind, "src_address": A, "dst_address": B, "port": 5000 + n, "stop_s": None, **kw}


@needs_kernel
@pytest.mark.parametrize("cc", ["cubic", "reno"])
def test_tcp_bulk_and_finite_transfer(tmp_path, cc):
    bulk = _flow(1, "tcp", start_s=0.0, congestion_control=cc)
    finite = _flow(2, "tcp", start_s=1.2, congestion_control=cc, size_bytes=1_000_000, mss=1000)
    refused = _flow(9, "tcp", start_s=0.0, congestion_control=cc)  # nobody listens on its port
    rx, tx = _run_agents(tmp_path, 3.0, 1.0, [bulk, finite, refused], receivers_too=[bulk, finite])

    got, sent = rx["flows"]["1"], tx["flows"]["1"]
    print(f"{cc}: goodput in [1, 3] s = {got['goodput_bytes'] * 8 / 2 / 1e9:.2f} Gb/s, {sent['retransmissions']} retx")
    assert got["goodput_bytes"] > 0 and tx["errors"] == [tx["flows"]["9"]["error"]] and rx["errors"] == []
    assert "flow 9" in tx["errors"][0] and "refused" in tx["errors"][0].lower()
    # TCP delivers every byte written before close; the receiver reads until EOF.
    assert got["bytes_total"] == sent["bytes_written"] and got["goodput_bytes"] <= got["bytes_total"]
    # At the sender's last TCP_INFO (after its last write), what the receiver will count lies
    # between what is acknowledged (bytes_acked, which also counts the SYN: -1) and that plus
    # what is in flight (unacked segments of at most snd_mss) and not yet sent.
    last = sent["last_tcp_info"]
    acked = last["bytes_acked"] - 1
    assert acked <= got["bytes_total"] <= acked + last["unacked"] * last["snd_mss"] + last["notsent_bytes"]
    cwnd = [r["value"] for r in tx["series"] if r["flow"] == 1 and r["variable"] == "cwnd"]
    assert len(cwnd) >= 20 and all(c > 0 for c in cwnd)  # 0.1 s samples over 3 s
    assert sent["rtt_samples"] >= 15 and sent["mean_srtt_ms"] > 0 and sent["segs_out"] > 0

    done = rx["flows"]["2"]
    assert done["bytes_total"] == 1_000_000 and 1.2 < done["completed_at_s"] < 3.0
    assert tx["flows"]["2"]["last_tcp_info"]["snd_mss"] <= 1000  # TCP_MAXSEG before connect
    assert isinstance(tx["netstat"].get("TcpExt.TCPTimeouts"), int)


@needs_kernel
def test_udp_cbr_delivers_its_rate(tmp_path):
    cbr = _flow(3, "cbr", start_s=0.0, rate_bps=8e6, packet_size=1000)
    # Light Poisson and on/off sources beside it: they run, and they do not disturb it.
    poisson = _flow(4, "poisson", start_s=0.0, packets_per_second=100, packet_size=500, exponential_sizes=True)
    onoff = _flow(5, "onoff", start_s=0.0, rate_bps=1e6, packet_size=500, on_time_s=0.2, off_time_s=0.2)
    rx, tx = _run_agents(tmp_path, 2.0, 0.0, [cbr, poisson, onoff])
    got, sent = rx["flows"]["3"], tx["flows"]["3"]
    rate = got["goodput_bytes"] * 8 / 2.0
    print(f"CBR 8 Mb/s: delivered {rate / 1e6:.3f} Mb/s, {got['lost']} lost, {sent['packets_skipped']} skipped")
    # 2 s at one 1000-byte packet per ms, on absolute times; a sender stalled for more than
    # 0.1 s (a loaded machine) gives packets up, and says how many
    assert sent["packets_sent"] + sent["packets_skipped"] == 2000
    assert abs(rate - 8e6) <= 0.05 * 8e6
    assert got["lost"] == 0 and got["packets_total"] == sent["packets_sent"] and got["mean_delay_ms"] > 0
    for n in ("4", "5"):
        assert rx["flows"][n]["packets_total"] == tx["flows"][n]["packets_sent"] > 0
    # 100 packets/s for 2 s: 200 expected, Poisson sd ~14; the seed fixes the draw
    assert 140 <= tx["flows"]["4"]["packets_sent"] <= 260
    # exponential sizes of mean 500 bytes: their mean lies well within 400..600 over ~200 draws
    assert 400 <= tx["flows"]["4"]["bytes_sent"] / tx["flows"]["4"]["packets_sent"] <= 600
    # on half the time at 1 Mb/s of 500-byte packets (250 /s): about 500 in 2 s
    assert 0 < tx["flows"]["5"]["packets_sent"] < 1000
    assert rx["errors"] == tx["errors"] == []


# ---------------------------------------------------------------- kernel: cleanup
@needs_kernel
def test_close_removes_everything_and_is_idempotent():
    h = netns.HostNamespaces()
    a, _ = _pair(h)
    sleeper = h.spawn(a, ["sleep", "60"])
    h.set_sysctl(a, "net.ipv4.tcp_ecn", 1)
    with pytest.raises(ValueError, match="not an open namespace"):
        h.set_sysctl("aqmlab-1-0", "net.ipv4.tcp_ecn", 1)
    with pytest.raises(ValueError, match="not a router device"):
        h.move_device("eth0", a)
    assert len(_ours(os.getpid())) == 2
    h.close()
    h.close()
    assert _ours(os.getpid()) == [] and sleeper.poll() is not None


@needs_kernel
def test_exception_inside_with_cleans_up():
    with pytest.raises(RuntimeError, match="boom"), netns.HostNamespaces() as h:
        _pair(h)
        raise RuntimeError("boom")
    assert _ours(os.getpid()) == []


ORCHESTRATION = textwrap.dedent(
    """
    import signal, sys, time
    signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with SIGINT ignored
    from aqmlab.emulation import netns
    with netns.HostNamespaces() as h:
        a, b = h.add(0), h.add(1)
        child = h.spawn(a, ["sleep", "60"])
        print(child.pid, flush=True)
        time.sleep(60)
    """
)


def _orchestrator() -> tuple[subprocess.Popen[bytes], int]:
    proc = subprocess.Popen(
        [sys.executable, "-c", ORCHESTRATION], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env()
    )
    line = _readline(proc, 15)
    return proc, int(line)


def _gone(pid: int, timeout: float = 3.0) -> bool:
    """The spawned sleep is dead: no such pid, or a zombie/another program under it."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except FileNotFoundError:
            return True
        if "(sleep)" not in stat or re.search(r"\) Z ", stat):
            return True
        time.sleep(0.05)
    return False


@needs_kernel
@pytest.mark.parametrize("sig, word", [(signal.SIGTERM, b"Terminated"), (signal.SIGINT, b"KeyboardInterrupt")])
def test_sigterm_or_ctrl_c_to_the_orchestrator_cleans_up(sig, word):
    proc, sleeper = _orchestrator()
    assert len(_ours(proc.pid)) == 2
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=15)
    assert proc.returncode != 0 and word in err
    assert _ours(proc.pid) == [] and _gone(sleeper)


@needs_kernel
def test_sigterm_to_an_agent_writes_its_report(tmp_path):
    flow = _flow(1, "tcp", start_s=0.0, congestion_control="cubic")
    spec = {"t0_ns": time.monotonic_ns(), "duration_s": 30.0, "warmup_s": 0.0, "receivers": [flow], "senders": []}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    with netns.HostNamespaces() as h:
        _, b = _pair(h)
        argv = [sys.executable, "-m", "aqmlab.emulation.host_agent", str(tmp_path / "spec.json"), str(tmp_path / "out")]
        agent = h.spawn(b, argv, stdout=subprocess.PIPE, env=_env())
        assert _readline(agent, 10) == "ready\n"
        agent.send_signal(signal.SIGTERM)
        assert agent.wait(5) == 128 + signal.SIGTERM
    report = json.loads((tmp_path / "out").read_text())
    assert report["terminated"] and report["flows"]["1"]["bytes_total"] == 0 and report["errors"] == []


@needs_kernel
def test_sigkill_leaves_a_stale_set_that_remove_stale_removes():
    proc, sleeper = _orchestrator()
    proc.kill()
    proc.wait(timeout=10)
    assert _gone(sleeper)  # PR_SET_PDEATHSIG
    stale = _ours(proc.pid)
    assert len(stale) == 2  # nothing could clean up: the set is left behind
    removed = netns.remove_stale()
    assert set(stale) <= set(removed) and _ours(proc.pid) == []
    assert not any(n.startswith(f"aqmlab-{os.getpid()}-") for n in removed)


@pytest.mark.parametrize(("lacking", "said"), [("root", "needs root"), ("tun", "TUN support"), ("ip", "iproute2")])
def test_what_the_machine_lacks_is_one_line_naming_it(lacking, said, monkeypatch, tmp_path, capsys):
    """Not root, no TUN, no iproute2: `aqmlab emulate` says which, in one line, exit 2, before
    anything is created (this runs as any user: the lack is simulated)."""
    from aqmlab.emulation import netns
    from aqmlab.emulation.cli_commands import emulate_command

    scenario = tmp_path / "s.toml"
    scenario.write_text(
        'duration = "2s"\n[topology]\nkind = "dumbbell"\nsenders = 1\n'
        'bottleneck = { rate = "10Mbps", delay = "10ms" }\naccess = { rate = "100Mbps", delay = "1ms" }\n'
        '[[flows]]\nkind = "tcp"\nfrom = "senders"\nto = "receivers"\n'
    )
    if lacking == "root":
        monkeypatch.setattr(netns.os, "geteuid", lambda: 1000)
    elif lacking == "tun":
        monkeypatch.setattr(netns.os, "geteuid", lambda: 0)
        monkeypatch.setattr(netns, "TUN_PATH", str(tmp_path / "no-tun"))
    else:
        monkeypatch.setattr(netns.os, "geteuid", lambda: 0)
        monkeypatch.setattr(netns.os, "open", lambda *a: os.dup(0))
        monkeypatch.setattr(netns.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit) as e:
        emulate_command(str(scenario), None, None, None, None, None, False, True, 500.0, 250.0, "auto")
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: cannot emulate here:") and said in err[0], err
