"""The reference kernel (issue 37, docs/kernel-reference.md): kernel/uml's inputs are
well-formed (always), and the User-Mode Linux guest runs real TCP through real qdiscs on a
virtual clock (only where `make uml-kernel` has built the kernel: CI skips those)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from aqmlab.emulation import qdisc_netlink, tcp_info, uml_flow, uml_kernel

KERNEL_DIR = Path(__file__).resolve().parents[1] / "kernel" / "uml"
OPTION = re.compile(r"^(CONFIG_[A-Z0-9_]+)=y$|^# (CONFIG_[A-Z0-9_]+) is not set$")


def test_fragment_lines_are_options_or_comments() -> None:
    names: list[str] = []
    for n, line in enumerate((KERNEL_DIR / "config.fragment").read_text().splitlines(), 1):
        if not line or line.startswith("## ") or (line.startswith("# ") and not line.startswith("# CONFIG_")):
            continue
        m = OPTION.match(line)
        assert m, f"config.fragment:{n}: neither `CONFIG_X=y`, `# CONFIG_X is not set` nor a comment: {line!r}"
        names.append(m.group(1) or m.group(2))
    assert len(names) == len(set(names)), f"options set twice: {sorted({x for x in names if names.count(x) > 1})}"
    for needed in ("CONFIG_UML_TIME_TRAVEL_SUPPORT", "CONFIG_HOSTFS", "CONFIG_VETH", "CONFIG_NET_SCH_NETEM"):
        assert needed in names


def test_l4s_upstream_fragment_adds_dualpi2_and_overrides_nothing() -> None:
    base = set(re.findall(r"CONFIG_[A-Z0-9_]+", (KERNEL_DIR / "config.fragment").read_text()))
    names = []
    for n, line in enumerate((KERNEL_DIR / "config.l4s-upstream.fragment").read_text().splitlines(), 1):
        if not line or line.startswith("## ") or (line.startswith("# ") and not line.startswith("# CONFIG_")):
            continue
        m = OPTION.match(line)
        assert m, f"config.l4s-upstream.fragment:{n}: not an option or a comment: {line!r}"
        names.append(m.group(1) or m.group(2))
    assert "CONFIG_NET_SCH_DUALPI2" in names
    assert not base & set(names), f"options already in config.fragment: {sorted(base & set(names))}"


def test_dualpi2_change_message() -> None:
    """RTM_NEWQDISC for `tc qdisc change dev <3> handle 10: dualpi2 any_ect`, by hand: nlmsghdr
    16 bytes + tcmsg 20 + TCA_KIND (4 + "dualpi2\\0" 8 = 12) + TCA_OPTIONS (4 + the u8
    TCA_DUALPI2_ECN_MASK attribute, 4 + 1 padded to 8 = 12): 60 bytes."""
    msg = qdisc_netlink.change_message(3, qdisc_netlink.parse_handle("10:"), {"ecn_mask": 3}, seq=7)
    assert len(msg) == 60
    assert msg[:16] == (60).to_bytes(4, "little") + (36).to_bytes(2, "little") + (5).to_bytes(2, "little") + (
        7
    ).to_bytes(4, "little") + bytes(4)
    assert msg[16:36] == bytes(4) + (3).to_bytes(4, "little") + (0x100000).to_bytes(4, "little") + bytes(8)
    assert msg[36:48] == (12).to_bytes(2, "little") + (1).to_bytes(2, "little") + b"dualpi2\0"
    assert msg[48:] == (12).to_bytes(2, "little") + (0x8002).to_bytes(2, "little") + bytes([5, 0, 14, 0, 3, 0, 0, 0])
    with pytest.raises(ValueError, match="unknown dualpi2 parameter"):
        qdisc_netlink.change_dualpi2("lo", "10:", {"any_ect": 1})


def test_build_script_and_patches_are_well_formed() -> None:
    subprocess.run(["bash", "-n", str(KERNEL_DIR / "build.sh")], check=True)
    for patch in KERNEL_DIR.glob("*.patch"):
        text = patch.read_text()
        header = text.split("\n--- a/", 1)[0]
        assert "--- a/" in text and "+++ b/" in text, f"{patch.name}: not a unified diff"
        assert len(header.strip().splitlines()) >= 3, f"{patch.name}: needs a header saying what it does"


def test_missing_kernel_says_how_to_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(uml_kernel.KERNEL_ENV, str(tmp_path / "linux"))
    with pytest.raises(uml_kernel.UmlKernelMissing, match="make uml-kernel"):
        uml_kernel.find_kernel()


def test_run_directory_the_guest_would_not_see(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AQMLAB_CACHE", "/tmp/aqmlab-cache")
    with pytest.raises(uml_kernel.UmlBootError, match="hidden in the guest"):
        uml_kernel.run_in_guest("true", kernel=Path("/bin/true"))


@pytest.mark.skipif(shutil.which("taskset") is None, reason="needs taskset (util-linux)")
def test_failed_boot_is_one_line_with_the_console_tail(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(uml_kernel, "GUEST_TMPFS", ())
    monkeypatch.setenv("AQMLAB_CACHE", str(tmp_path))
    fake = tmp_path / "linux"
    fake.write_text("#!/bin/sh\necho 'Kernel panic - not syncing: no init found' >&2\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(uml_kernel.UmlBootError, match="did not run its payload.*no init found") as e:
        uml_kernel.run_in_guest("true", kernel=fake)
    assert "\n" not in str(e.value)


def test_parsers() -> None:
    tc = (
        "qdisc htb 1: root refcnt 2 r2q 10 default 0x1 direct_packets_stat 0 direct_qlen 1000\n"
        " Sent 6512 bytes 57 pkt (dropped 0, overlimits 12 requeues 0) \n"
        "qdisc fq_codel 10: parent 1:1 limit 10240p flows 1024\n"
        " Sent 6000 bytes 50 pkt (dropped 3, overlimits 0 requeues 0) \n"
    )
    stats = uml_flow.qdisc_stats(tc)
    assert stats["htb"]["packets"] == 57 and stats["fq_codel"]["dropped"] == 3
    assert uml_flow.ss_rtt_ms("cubic wscale:7,7 rto:244 rtt:41.5/2.25 ato:40") == 41.5


def _kernel() -> Path:
    try:
        return uml_kernel.find_kernel()
    except uml_kernel.UmlKernelMissing as e:
        pytest.skip(str(e))


RATE_MBIT = 10.0
DELAY_MS = 20.0
DURATION_S = 10.0


def test_tcp_flow_through_fq_codel_on_virtual_time() -> None:
    _kernel()
    run = uml_flow.run_flow(rate_mbit=RATE_MBIT, delay_ms=DELAY_MS, qdisc="fq_codel", duration_s=DURATION_S)
    info = run.sender["tcp_info"]
    # The transfer completed: every byte written arrived, and was acknowledged.
    assert run.receiver["bytes"] == run.sender["bytes_sent"] > 0
    assert info["bytes_acked"] >= run.sender["bytes_sent"] - info["notsent_bytes"] - info["unacked"] * info["snd_mss"]
    # The bottleneck's rate bounds the goodput, which reaches most of it.
    assert 0.5 * RATE_MBIT * 1e6 < run.goodput_bps <= RATE_MBIT * 1e6
    # The round trip is the two netem delays (plus a packet's time at 10 Mb/s and a short queue).
    rtt_floor = 2 * DELAY_MS
    assert rtt_floor <= info["min_rtt"] / 1000 < rtt_floor + 5
    ss_rtt = uml_flow.ss_rtt_ms(run.ss)
    assert ss_rtt is not None, run.ss
    assert rtt_floor <= ss_rtt < rtt_floor + 30
    # The qdiscs saw the flow: netem both ways, htb and its fq_codel leaf at the bottleneck.
    r1 = uml_flow.qdisc_stats(run.qdiscs["r1"])
    assert r1["htb"]["packets"] > 1000 and r1["fq_codel"]["packets"] > 1000
    assert uml_flow.qdisc_stats(run.qdiscs["s0"])["netem"]["packets"] > 1000
    assert uml_flow.qdisc_stats(run.qdiscs["d0"])["netem"]["packets"] > 100
    # The guest's own clock measured the configured duration: virtual time went by, as much
    # of it as asked (the host's time it took is not asserted: it depends on the machine).
    assert DURATION_S <= run.sender["elapsed_s"] < DURATION_S + 1
    assert run.guest.payload_guest_s >= DURATION_S


def test_seed_decides_the_guests_random_numbers() -> None:
    """random.seed= reaches user space (/dev/urandom) and the kernel's own draws (boot_id);
    without it, two boots differ."""
    _kernel()
    script = "head -c 16 /dev/urandom | od -An -tx1; cat /proc/sys/kernel/random/boot_id; date +%s"

    def draw(seed: int | None) -> str:
        run = uml_kernel.run_in_guest(script, seed=seed)
        assert run.status == 0, run.output
        return run.output

    a, b, c = draw(3), draw(3), draw(4)
    assert a == b != c
    assert draw(None) != draw(None)
    assert a.split()[-1] == str(uml_kernel.START_NS // 10**9)  # the guest's clock, not the host's


def test_dctcp_is_marked_not_dropped() -> None:
    """DCTCP negotiates ECN (the listener needs DCTCP too) and fq_codel's CE threshold marks
    its packets instead of dropping them."""
    _kernel()
    run = uml_flow.run_flow(
        rate_mbit=RATE_MBIT, delay_ms=DELAY_MS, qdisc="fq_codel ce_threshold 1ms", duration_s=5.0, cc="dctcp"
    )
    info = run.sender["tcp_info"]
    assert "dctcp" in run.ss and "fallback" not in run.ss, run.ss
    assert info["delivered_ce"] > 100 and info["total_retrans"] == 0
    assert "ce_mark 0" not in run.qdiscs["r1"]
    assert uml_flow.qdisc_stats(run.qdiscs["r1"])["fq_codel"]["dropped"] == 0


def _ephemeral_port(run: uml_flow.FlowRun) -> int:
    m = re.search(r"10\.0\.1\.1:(\d+)", run.ss)
    assert m, run.ss
    return int(m.group(1))


def test_same_seed_same_flow() -> None:
    """random.seed= (kernel/uml/random-seed.patch) with the virtual clock: two boots with the
    same seed give the same flow to the byte and the microsecond, through PIE's random drops;
    another seed draws another ephemeral port (the kernel's random numbers follow the seed)."""
    _kernel()

    def flow(seed: int) -> uml_flow.FlowRun:
        return uml_flow.run_flow(rate_mbit=RATE_MBIT, delay_ms=DELAY_MS, qdisc="pie", duration_s=3.0, seed=seed)

    first, again, other = flow(7), flow(7), flow(8)
    assert first.sender == again.sender  # every TCP_INFO field, the elapsed guest time
    assert first.receiver == again.receiver
    assert first.qdiscs == again.qdiscs
    assert first.ss == again.ss
    assert _ephemeral_port(first) == _ephemeral_port(again) != _ephemeral_port(other)


def _l4s_upstream_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Points the Python side at the second reference kernel, or skips saying how to build it."""
    path = uml_kernel.cache_dir() / "latest-l4s-upstream" / "linux"
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(
            f"no second reference kernel (Linux 7.3: DualPI2, AccECN) at {path}: "
            "build it with `make uml-kernel-l4s-upstream` (docs/kernel-reference.md)"
        )
    monkeypatch.setenv(uml_kernel.KERNEL_ENV, str(path))


def test_l4s_upstream_dctcp_with_accecn_through_dualpi2(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second kernel: DualPI2 takes the host's `tc ... dualpi2` (no options: its defaults),
    DCTCP negotiates Accurate ECN (tcp_ecn=3 both ends), and DualPI2's marks reach the sender
    through AccECN's counters (ACE field and option byte counters)."""
    _l4s_upstream_kernel(monkeypatch)
    run = uml_flow.run_flow(
        rate_mbit=RATE_MBIT, delay_ms=DELAY_MS, qdisc="dualpi2", duration_s=5.0, cc="dctcp", tcp_ecn=3
    )
    info = run.sender["tcp_info"]
    assert tcp_info.ECN_MODES[info["ecn_mode"]] == "accecn", info
    assert "dctcp" in run.ss and "fallback" not in run.ss, run.ss
    r1 = uml_flow.qdisc_stats(run.qdiscs["r1"])
    assert r1["dualpi2"]["packets"] > 1000, run.qdiscs["r1"]
    assert info["delivered_ce"] > 0 and info["delivered_ce_bytes"] > 0, info
    assert 0.5 * RATE_MBIT * 1e6 < run.goodput_bps <= RATE_MBIT * 1e6


def test_l4s_upstream_dualpi2_l_queue_keeps_the_queue_short(monkeypatch: pytest.MonkeyPatch) -> None:
    """DCTCP's ECT(0) goes to DualPI2's Classic queue by default (PI2, 15 ms target); with the
    classification mask set to any ECT (qdisc_netlink, as the host's tc cannot) it goes to the
    L queue, whose step marks at 1 ms of sojourn: the round trip stays near the two netem
    delays, with marks and no loss, instead of carrying the Classic queue's target."""
    _l4s_upstream_kernel(monkeypatch)
    change = f"ip netns exec r {uml_flow.guest_module('aqmlab.emulation.qdisc_netlink')} r1 10: ecn_mask=3"

    def flow(router_setup: str) -> tuple[float, dict[str, int]]:
        run = uml_flow.run_flow(
            rate_mbit=RATE_MBIT,
            delay_ms=DELAY_MS,
            qdisc="dualpi2",
            duration_s=5.0,
            cc="dctcp",
            tcp_ecn=3,
            router_setup=router_setup,
        )
        rtt = uml_flow.ss_rtt_ms(run.ss)
        assert rtt is not None, run.ss
        return rtt, run.sender["tcp_info"]

    (classic, _), (low_latency, info) = flow(""), flow(change)
    assert info["delivered_ce"] > 0 and info["total_retrans"] == 0, info
    assert 2 * DELAY_MS <= low_latency < 2 * DELAY_MS + 5
    assert classic > low_latency + 5


def test_l4s_upstream_same_seed_same_flow(monkeypatch: pytest.MonkeyPatch) -> None:
    """random.seed= (random-seed.patch, applied to 7.3's random.c) holds on the second kernel:
    through DualPI2's Classic queue, whose PI2 marks and drops are random draws, the same seed
    gives the same flow to the byte, another seed another flow."""
    _l4s_upstream_kernel(monkeypatch)

    def flow(seed: int) -> uml_flow.FlowRun:
        return uml_flow.run_flow(
            rate_mbit=RATE_MBIT, delay_ms=DELAY_MS, qdisc="dualpi2", duration_s=3.0, cc="dctcp", tcp_ecn=3, seed=seed
        )

    first, again, other = flow(7), flow(7), flow(8)
    assert first.sender == again.sender and first.receiver == again.receiver
    assert first.qdiscs == again.qdiscs and first.ss == again.ss
    assert first.sender["tcp_info"] != other.sender["tcp_info"]
