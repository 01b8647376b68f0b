"""Packet capture (``capture``, ``--pcap``) and the packet trace (``trace``), read back by a pcap
library (dpkt), by tshark and tcptrace where installed (issue 27, item 1)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import aqmlab
import pytest
from aqmlab.cli import app
from aqmlab.scenario import default_scenario_path, load_scenario
from typer.testing import CliRunner

dpkt = pytest.importorskip("dpkt", reason="dpkt (the `test` extra) reads the captures back")

MOD32 = 1 << 32


def default_dumbbell(**edits: Any) -> dict[str, Any]:
    """The packaged default dumbbell, shortened to 6 s and measured from the start (so the
    queue table counts what the capture holds)."""
    s = load_scenario(default_scenario_path())
    s.update({"duration": "6s", "warmup": "0s", **edits})
    return s


def red_ecn(variant: str = "sack") -> dict[str, Any]:
    """The default dumbbell with a RED ECN bottleneck and ECN-capable SACK senders; a small
    buffer so that some packets are dropped as well as marked."""
    s = default_dumbbell()
    s["topology"]["bottleneck"]["queue"] = {
        "limit": 25,
        "aqm": {"kind": "red", "min_th": 3, "max_th": 9, "max_p": 0.1, "ecn": True},
    }
    s["tcp"] = {**s["tcp"], "variant": variant, "ecn": True}
    return s


def read_pcap(path: Path) -> list[tuple[float, Any]]:
    """(time, dpkt IP packet) of each record; checks the file's link type and nanosecond magic."""
    head = path.read_bytes()[:24]
    assert int.from_bytes(head[:4], "little") == 0xA1B23C4D, "nanosecond magic"
    assert int.from_bytes(head[20:24], "little") == 101, "LINKTYPE_RAW"
    with path.open("rb") as f:
        return [(ts, dpkt.ip.IP(buf)) for ts, buf in dpkt.pcap.Reader(f)]


def ones_complement_ok(header: bytes) -> bool:
    total = sum(int.from_bytes(header[i : i + 2], "big") for i in range(0, len(header), 2))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total == 0xFFFF


def rel(seq: int, base: int) -> int:
    """A sequence number relative to ``base``, signed, modulo 2^32."""
    return (seq - base + (1 << 31)) % MOD32 - (1 << 31)


@pytest.fixture(scope="module")
def dumbbell_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[aqmlab.Result, Path]:
    d = tmp_path_factory.mktemp("capture")
    s = default_dumbbell(capture=["bottleneck", "bottleneck_reverse"], trace=["bottleneck"])
    return aqmlab.run(s, capture_dir=d), d


def test_one_record_per_departure_with_valid_ip_headers(dumbbell_run: tuple[aqmlab.Result, Path]) -> None:
    r, d = dumbbell_run
    assert sorted(Path(f).name for f in r.capture_files) == ["bottleneck.pcap", "bottleneck_reverse.pcap"]
    for link in ("bottleneck", "bottleneck_reverse"):
        packets = read_pcap(d / f"{link}.pcap")
        departures = int(r.queue(link)["departures"])
        assert departures > 1000
        assert len(packets) == departures, link
        times = [t for t, _ in packets]
        assert times == sorted(times) and times[-1] <= r.duration_s
        for _, ip in packets:
            assert ip.v == 4 and ip.p == dpkt.ip.IP_PROTO_TCP
            assert ones_complement_ok(bytes(ip)[:20]), "IPv4 header checksum"


def test_sequence_and_ack_numbers_are_consistent(dumbbell_run: tuple[aqmlab.Result, Path]) -> None:
    r, d = dumbbell_run
    data = read_pcap(d / "bottleneck.pcap")
    acks = read_pcap(d / "bottleneck_reverse.pcap")
    base: dict[tuple, int] = {}
    sent_end: dict[tuple, list[tuple[float, int]]] = defaultdict(list)  # (time, highest end so far)
    retransmitted = 0
    for t, ip in data:
        tcp = ip.data
        key = (ip.src, tcp.sport, ip.dst, tcp.dport)
        payload = ip.len - 4 * ip.hl - 4 * tcp.off
        assert payload == 1000, "the scenario's packet_size"
        b = base.setdefault(key, tcp.seq)
        start = rel(tcp.seq, b)
        assert start % 1000 == 0, "segments start on whole segments"
        ends = sent_end[key]
        high = ends[-1][1] if ends else 0
        if start < high:
            retransmitted += 1  # below the highest byte sent: a retransmission
        ends.append((t, max(high, start + payload)))
    assert len(base) == 20, "every flow crosses the bottleneck"
    total_rtx = int(r.flows["retransmissions"].sum())
    assert 0 < retransmitted <= total_rtx
    last_ack: dict[tuple, int] = {}
    for t, ip in acks:
        tcp = ip.data
        assert tcp.flags & dpkt.tcp.TH_ACK
        key = (ip.dst, tcp.dport, ip.src, tcp.sport)  # the data direction's 4-tuple
        ack = rel(tcp.ack, base[key])
        # Never beyond what crossed the bottleneck before the ACK left the far side.
        sent = max((e for ts, e in sent_end[key] if ts <= t), default=0)
        assert ack <= sent, (key, t, ack, sent)
        assert ack >= last_ack.get(key, 0), "cumulative ACKs never go back"
        last_ack[key] = ack
    # NewReno flows: no SACK option anywhere.
    assert not any(opt == dpkt.tcp.TCP_OPT_SACK for _, ip in acks for opt, _ in dpkt.tcp.parse_opts(ip.data.opts))


def test_trace_adds_up_to_the_queue_counters(dumbbell_run: tuple[aqmlab.Result, Path], tmp_path: Path) -> None:
    r, _ = dumbbell_run
    t = r.trace
    assert t is not None and set(t["link"].unique()) == {"bottleneck"}
    q = r.queue("bottleneck")
    events = t["event"].value_counts()
    drops = t[t["event"] == "drop"]["reason"].value_counts()
    assert events["enqueue"] == q["arrivals"]
    assert events["dequeue"] == q["departures"]
    assert events["enqueue"] - events.get("drop", 0) == events["dequeue"] + q["backlog_at_end"]
    assert drops.get("forced", 0) == q["forced_drops"] and drops.get("early", 0) == q["early_drops"]
    assert events.get("drop", 0) == q["drops"] > 0
    assert (t["queue_packets"] <= 100).all() and t["queue_packets"].max() > 50
    assert set(t["flow"]) <= set(r.flows["flow"])
    r.to_parquet(tmp_path)
    import pandas as pd

    back = pd.read_parquet(tmp_path / "trace.parquet")
    assert len(back) == len(t) and list(back.columns) == list(t.columns)


@pytest.fixture(scope="module")
def ecn_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[aqmlab.Result, Path]:
    d = tmp_path_factory.mktemp("ecn")
    s = red_ecn()
    s.update(capture=["bottleneck", "bottleneck_reverse"], trace=["bottleneck"])
    return aqmlab.run(s, capture_dir=d), d


def test_ce_marks_and_sack_blocks_are_visible(ecn_run: tuple[aqmlab.Result, Path]) -> None:
    r, d = ecn_run
    q = r.queue("bottleneck")
    assert q["marks"] > 50 and q["drops"] > 0
    data = read_pcap(d / "bottleneck.pcap")
    ce = sum(1 for _, ip in data if ip.tos & 3 == 3)
    ect0 = sum(1 for _, ip in data if ip.tos & 3 == 2)
    # RED marks on arrival: every marked packet leaves marked, unless still queued at the end.
    assert q["marks"] - q["backlog_at_end"] <= ce <= q["marks"]
    assert ect0 + ce == len(data), "every data packet is ECN-capable"
    assert (r.trace["event"] == "mark").sum() == q["marks"]
    acks = read_pcap(d / "bottleneck_reverse.pcap")
    assert sum(1 for _, ip in acks if ip.data.flags & dpkt.tcp.TH_ECE) > 0
    assert sum(1 for _, ip in data if ip.data.flags & dpkt.tcp.TH_CWR) > 0
    sacks = [val for _, ip in acks for opt, val in dpkt.tcp.parse_opts(ip.data.opts) if opt == dpkt.tcp.TCP_OPT_SACK]
    assert sacks, "SACK flows' duplicate ACKs carry SACK blocks"
    for val in sacks:
        assert len(val) % 8 == 0 and 1 <= len(val) // 8 <= 3
        for i in range(0, len(val), 8):
            left, right = int.from_bytes(val[i : i + 4], "big"), int.from_bytes(val[i + 4 : i + 8], "big")
            assert (right - left) % MOD32 % 1000 == 0 and right != left


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
def test_tshark_reads_the_capture(ecn_run: tuple[aqmlab.Result, Path]) -> None:
    r, d = ecn_run
    f = str(d / "bottleneck.pcap")

    def count(*args: str) -> int:
        out = subprocess.run(
            ["tshark", "-n", "-o", "ip.check_checksum:TRUE", "-r", f, *args, "-T", "fields", "-e", "frame.number"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return len(out.split())

    data = read_pcap(d / "bottleneck.pcap")
    assert count() == len(data) == r.queue("bottleneck")["departures"]
    assert count("-Y", "ip.checksum.status == 1") == len(data), "tshark finds every IP checksum good"
    assert count("-Y", "_ws.malformed") == 0
    assert count("-Y", "ip.dsfield.ecn == 3") == sum(1 for _, ip in data if ip.tos & 3 == 3) > 0
    assert count("-Y", "tcp.len == 1000") == len(data)


@pytest.mark.skipif(shutil.which("tcptrace") is None, reason="tcptrace is not installed")
def test_tcptrace_finds_every_connection(ecn_run: tuple[aqmlab.Result, Path]) -> None:
    r, d = ecn_run
    out = subprocess.run(
        ["tcptrace", "-n", str(d / "bottleneck.pcap")], capture_output=True, text=True, check=True
    ).stdout
    n = int(r.queue("bottleneck")["departures"])
    assert f"{n} packets seen, {n} TCP packets traced" in out
    # One line per connection: "  1: 10.0.0.1:1024 - 10.0.0.22:5001 (a2b)  1345>    0<".
    sent = [int(m) for m in re.findall(r"^\s*\d+: \S+ - \S+ \(\w+\)\s+(\d+)>", out, re.M)]
    assert len(sent) == len(r.flows) and sum(sent) == n


def test_cli_pcap_writes_into_out(tmp_path: Path) -> None:
    p = tmp_path / "s.json"
    import json

    p.write_text(json.dumps(default_dumbbell(duration="2s")))
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["run", str(p), "--pcap", "bottleneck", "--pcap", "s1->r0", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert read_pcap(out / "bottleneck.pcap") and read_pcap(out / "s1-r0.pcap")
    assert (out / "queues.parquet").is_file(), "the tables beside the captures"
    bad = CliRunner().invoke(app, ["run", str(p), "--pcap", "botleneck"])
    assert bad.exit_code == 2
    assert bad.stderr.startswith("error: capture[0]: unknown link 'botleneck'")
    assert "did you mean `bottleneck`?" in bad.stderr


def test_pcapng_format(tmp_path: Path) -> None:
    s = default_dumbbell(duration="1s", capture=["bottleneck"], capture_format="pcapng", capture_snaplen=40)
    r = aqmlab.run(s, capture_dir=tmp_path)
    with (tmp_path / "bottleneck.pcapng").open("rb") as f:
        records = [buf for _, buf in dpkt.pcapng.Reader(f)]
    assert len(records) == r.queue("bottleneck")["departures"] > 0
    assert all(len(b) == 40 for b in records), "cut at the snap length"


def test_no_capture_no_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = aqmlab.run(default_dumbbell(duration="1s"))
    assert r.trace is None and r.capture_files == [] and list(tmp_path.iterdir()) == []


def every_kind_scenario() -> dict[str, Any]:
    """One entry of each flow kind, a tcp_rr probe first (its two engine flows shift the ids of
    every flow after it), each on its own sender."""
    s = default_dumbbell(duration="2s", capture=["bottleneck", "bottleneck_reverse"])
    s["topology"]["senders"] = 7
    s["topology"]["access"] = {"rate": "100Mbps", "delay": "1ms"}
    kinds: list[dict[str, Any]] = [
        {"kind": "tcp_rr", "request_size": 100, "response_size": 2000},
        {"kind": "ping", "interval": "50ms"},
        {"kind": "workload", "rate": 20, "sizes": {"dist": "constant", "size": "5KB"}},
        {"kind": "tcp", "size": "50KB"},
        {"kind": "cbr", "rate": "200kbps", "packet_size": 300},
        {"kind": "poisson", "packets_per_second": 40, "packet_size": 200},
        {"kind": "onoff", "rate": "300kbps", "packet_size": 400, "on_time": "50ms", "off_time": "50ms"},
    ]
    s["flows"] = [{**k, "from": f"s{i}", "to": f"d{i}"} for i, k in enumerate(kinds)]
    return s


def test_every_flow_kind_is_captured_as_what_it_is(tmp_path: Path) -> None:
    """Issue 35, class E: a tcp_rr probe in a captured run panicked the engine (the taps had
    one wire entry for its two flows), and workloads and tcp_rr were written as UDP."""
    r = aqmlab.run(every_kind_scenario(), capture_dir=tmp_path)
    flows = r.flows
    kinds = list(flows["kind"])
    assert kinds[:2] == ["tcp_rr", "tcp_rr"]
    tcp_kinds = {"tcp", "workload", "tcp_rr"}
    seen: set[str] = set()
    for link in ("bottleneck", "bottleneck_reverse"):
        packets = read_pcap(tmp_path / f"{link}.pcap")
        assert len(packets) == int(r.queue(link)["departures"]) > 0
        for _, ip in packets:
            l4 = ip.data
            # The sender's port is 1024 + flow, the receiver's 5001 (flow_ports).
            flow = (l4.dport if l4.sport == 5001 else l4.sport) - 1024
            kind = kinds[flow]
            seen.add(kind)
            assert isinstance(l4, dpkt.tcp.TCP) == (kind in tcp_kinds), (link, flow, kind)
            if kind == "ping":
                src = flows.loc[flow, "src"]
                # A reply answers from the port the request was sent to.
                toward_echo = link == "bottleneck"
                assert (l4.sport, l4.dport) == ((1024 + flow, 5001) if toward_echo else (5001, 1024 + flow)), src
    assert seen == set(kinds), "every kind went over the bottleneck"


def two_links_one_file() -> dict[str, Any]:
    return {
        "duration": "1s",
        "capture": ["a b", "a_b"],
        "topology": {
            "kind": "graph",
            "nodes": ["a", "b", "c"],
            "links": [
                {"from": "a", "to": "c", "name": "a b", "rate": "10Mbps", "delay": "1ms"},
                {"from": "b", "to": "c", "name": "a_b", "rate": "10Mbps", "delay": "1ms"},
            ],
        },
        "flows": [{"kind": "cbr", "from": "a", "to": "c", "rate": "1Mbps"}],
    }


def test_capture_file_problems_are_scenario_errors_before_the_run(tmp_path: Path) -> None:
    """Issue 35, class L: these were SimulationErrors (exit 1), some without the path, found
    when the files were opened; now each is invalid input naming the field and the path."""
    with pytest.raises(aqmlab.ScenarioError, match=r"'a_b\.pcap', the file of capture\[0\] \('a b'\)") as e:
        aqmlab.run(two_links_one_file(), capture_dir=tmp_path)
    assert e.value.path == "capture[1]"
    long = two_links_one_file()
    long["topology"]["links"][0]["name"] = long["capture"][0] = "x" * 300
    with pytest.raises(aqmlab.ScenarioError, match="file name of 305 bytes, longer than the 255") as e:
        aqmlab.run(long, capture_dir=tmp_path)
    assert e.value.path == "capture[0]"
    plain = tmp_path / "plain"
    plain.write_text("x")
    s = default_dumbbell(duration="1s", capture=["bottleneck"])
    for where in (plain, plain / "sub"):
        with pytest.raises(aqmlab.ScenarioError, match=re.escape(f"'{plain}' is a file")) as e:
            aqmlab.run(s, capture_dir=where)
        assert e.value.path == "capture_dir"
    assert list(tmp_path.iterdir()) == [plain], "nothing written"
    # The command line: one line on stderr, exit 2, no table written.
    p = tmp_path / "s.json"
    import json

    p.write_text(json.dumps(two_links_one_file()))
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["run", str(p), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("error: capture[1]: link 'a_b' would be captured to 'a_b.pcap'")
    assert len(res.stderr.strip().splitlines()) == 1
    assert not (out / "queues.parquet").exists()


ROOT = Path(__file__).resolve().parent.parent


def test_capture_doc_says_what_the_engine_does(tmp_path: Path) -> None:
    """Issue 35, class Q: docs/capture.md did not list the `link_down` drop reason nor say what
    happens to an arrival at a down link, and said ECT(1) never appears on the wire, which TCP
    Prague's data carry. Both behaviours, and the doc's account of them."""
    doc = (ROOT / "docs" / "capture.md").read_text()
    s = default_dumbbell(duration="4s", trace=["bottleneck"], capture=["bottleneck"])
    s["tcp"] = {"profile": "prague"}
    s["events"] = [
        {"at": "1s", "link": "bottleneck", "state": "down"},
        {"at": "2s", "link": "bottleneck", "state": "up"},
    ]
    r = aqmlab.run(s, capture_dir=tmp_path)
    trace = r.trace
    assert trace is not None
    down = trace[trace["reason"] == "link_down"]
    assert len(down) == int(r.queue("bottleneck")["down_drops"]) > 0
    assert set(down["event"]) == {"drop"}
    assert ((down["time_s"] >= 1) & (down["time_s"] < 2)).all()
    # No enqueue for them: enqueues = arrivals - link_down drops.
    assert (trace["event"] == "enqueue").sum() == int(r.queue("bottleneck")["arrivals"]) - len(down)
    # Every drop reason the trace can hold is in the doc's table.
    for reason in (x for x in trace["reason"].cat.categories if x):
        assert f"`{reason}`" in doc, reason
    assert "arrived while the link was down" in doc
    ecn = {ip.tos & 3 for _, ip in read_pcap(tmp_path / "bottleneck.pcap") if isinstance(ip.data, dpkt.tcp.TCP)}
    assert 0b01 in ecn, "Prague's data carry ECT(1)"
    assert "ECT(1) never" not in doc and "ECT(1) 01" in doc
