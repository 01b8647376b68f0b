"""Regenerates the scenario files under ``scenarios/`` (run: python generate_scenarios.py).

The files are data and are committed; this script only exists so that the long ones (Orange
sec. 5 with one access link per flow, DSRED's load levels, the parking lot) stay consistent
with the choices recorded in ``papers/<paper>.toml`` (``gaps``). Edit here, regenerate, and
keep the two in step. Only the standard library is used.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent / "scenarios"


def write(rel: str, text: str) -> None:
    p = HERE / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text.lstrip("\n"))


def q(s: str) -> str:
    return '"' + s + '"'


def strlist(xs) -> str:
    return "[" + ", ".join(q(x) for x in xs) + "]"


# ---------------------------------------------------------------------------------------------
# Orange
# ---------------------------------------------------------------------------------------------

ORANGE_MM2 = """
# Orange, section 4 (Table 1): the M/M/2-with-threshold check.
# One Poisson source of 1200 packets/s with exponential sizes of mean 100 B stands for the
# paper's 1000 aggregated Poisson sources (same superposed process). 100 Mb/s zero-delay access,
# 1 Mb/s zero-delay bottleneck (mu1 = 1250 packets/s), Orange K = 10 (text; Table 1 prints 14),
# mean drop timer T = 5 ms (mu2 = 200/s). Buffer: not given by the paper; ns-2's default queue
# limit 50 (see papers/orange.toml, gaps). {what}
name = "orange-sec4-mm2{suffix}"
duration = "{duration}"
warmup = "{warmup}"

[topology]
kind = "graph"
nodes = ["src", "router", "sink"]

[[topology.links]]
from = "src"
to = "router"
rate = "100Mbps"
delay = "0ms"
name = "access"
queue = {{ limit = 100000 }}

[[topology.links]]
from = "router"
to = "sink"
rate = "1Mbps"
delay = "0ms"
name = "bottleneck"
monitor = true
queue = {{ limit = 50, aqm = {{ kind = "orange", threshold = 10, timer = "5ms" }} }}

[[flows]]
kind = "poisson"
from = "src"
to = "sink"
group = "poisson"
packets_per_second = 1200
packet_size = "100B"
sizes = "exponential"
"""


def orange() -> None:
    write(
        "orange/sec4_mm2.toml",
        ORANGE_MM2.format(
            suffix="",
            duration="11s",
            warmup="0s",
            what="Duration 11 s: the paper's 13178 sent packets at 1200/s imply ~11 s.",
        ),
    )
    write(
        "orange/sec4_mm2_long.toml",
        ORANGE_MM2.format(
            suffix="-long",
            duration="2000s",
            warmup="10s",
            what="Long run (2000 s, 10 s warm-up) for comparison with the exact Orange CTMC\n"
            "# (aqmlab.analytic.orange_ctmc) and Morrison's formula (aqmlab.analytic.morrison).",
        ),
    )

    # Section 5: Kinicki-Zheng topology. One router, one sink, 60 FTP/Reno sources in three
    # equal RTT groups; each source has its own access link of 90 Mb/s / 60 = 1.5 Mb/s.
    n = 60
    groups = [("fragile", "95ms"), ("average", "45ms"), ("robust", "20ms")]
    per = n // 3
    rate = f"{90 / n:g}Mbps"
    nodes = []
    links = []
    flows = []
    for g, d in groups:
        names = [f"{g}{i}" for i in range(per)]
        nodes += names
        for nm in names:
            links.append(
                f"""
[[topology.links]]
from = "{nm}"
to = "router"
rate = "{rate}"
delay = "{d}"
queue = {{ limit = 1000 }}
"""
            )
        flows.append(
            f"""
[[flows]]
kind = "tcp"
group = "{g}"
from = {strlist(names)}
to = "sink"
start = ["0s", "2s"]   # cycled: half of the group at 0 s, half at 2 s
"""
        )
    text = f"""
# Orange, section 5 (Tables 2 and 3): heterogeneous-RTT TCP, Kinicki-Zheng topology.
# One router, one sink. 60 FTP/TCP Reno flows (1000 B payload + 40 B header, 40 B ACKs,
# window 64), three equal groups with one-way access delays 95 / 45 / 20 ms (RTT 200 / 100 /
# 50 ms with the 5 ms bottleneck and no queueing); every flow has its own access link of
# 90 Mb/s / 60 = 1.5 Mb/s (the access capacities sum to 90 Mb/s). Bottleneck 10 Mb/s, 5 ms,
# router buffer 120 packets. Half of each group starts at 0 s, half at 2 s. 100 s, first 20 s
# discarded. Default AQM: Orange K = 10, T = 6.5 ms (the paper's best timer for K = 10); the
# runner substitutes the Table 2 grid (papers/orange.toml).
# The number of flows (60) is from the paper's example and the experiment catalogue; Table 2
# itself does not state it.
name = "orange-sec5-kinicki-zheng"
duration = "100s"
warmup = "20s"

[topology]
kind = "graph"
nodes = {strlist(nodes + ["router", "sink"])}

[[topology.links]]
from = "router"
to = "sink"
rate = "10Mbps"
delay = "5ms"
name = "bottleneck"
monitor = true
queue = {{ limit = 120, aqm = {{ kind = "orange", threshold = 10, timer = "6.5ms" }} }}
{"".join(links)}
[tcp]
variant = "reno"
packet_size = 1000
header_size = 40
ack_size = 40
window = 64
min_rto = "200ms"
{"".join(flows)}"""
    write("orange/sec5_table2.toml", text)


# ---------------------------------------------------------------------------------------------
# NEWQUE
# ---------------------------------------------------------------------------------------------

NEWQUE_AQM = '{ kind = "newque", alpha = 0.0001, beta = 0.02, min_interval = "100ms", k = "100ms", ecn = true, step_reading = "printed" }'
NEWQUE_TCP = """
[tcp]
variant = "reno"
ecn = true
packet_size = 1000
header_size = 40
ack_size = 40
window = 20
min_rto = "200ms"
"""


def newque() -> None:
    write(
        "newque/dumbbell.toml",
        f"""
# NEWQUE, section 4.2 (Figs 3-9): dumbbell. FTP/TCP with ECN, access links 100 Mb/s 1 ms on
# both sides, bottleneck 10 Mb/s 100 ms, buffer 300 packets, packets 1040 B on the wire
# (1000 B payload + 40 B header), 100 s. Base point: 200 flows, buffer 300 (the point shared
# by series (a) flows 50..300 at buffer 300 and series (b) buffer 150..400 at 200 flows).
# Default AQM: NEWQUE (alpha 0.0001, beta 0.02, minTIVL 100 ms, K 0.1 s, ECN, steps as printed;
# the runner also runs step_reading = "swapped").
name = "newque-dumbbell"
duration = "100s"
warmup = "0s"

[topology]
kind = "dumbbell"
senders = 200
bottleneck = {{ rate = "10Mbps", delay = "100ms", queue = {{ limit = 300, aqm = {NEWQUE_AQM} }} }}
access = {{ rate = "100Mbps", delay = "1ms" }}
{NEWQUE_TCP}
[[flows]]
kind = "tcp"
group = "ftp"
from = "senders"
to = "receivers"
start = {{ uniform = ["0s", "1s"] }}
""",
    )

    routers = [f"r{i}" for i in range(1, 7)]
    cross_src = [f"c{i}s" for i in range(1, 6)]
    cross_dst = [f"c{i}d" for i in range(1, 6)]
    nodes = ["src", "dst"] + routers + cross_src + cross_dst
    links = []
    for i in range(1, 6):
        links.append(
            f"""
[[topology.links]]
from = "r{i}"
to = "r{i + 1}"
rate = "10Mbps"
delay = "100ms"
name = "q{i}"
monitor = true
queue = {{ limit = 300, aqm = {NEWQUE_AQM} }}
"""
        )
    acc = [("src", "r1"), ("dst", "r6")]
    for i in range(1, 6):
        acc += [(f"c{i}s", f"r{i}"), (f"c{i}d", f"r{i + 1}")]
    for a, b in acc:
        links.append(
            f"""
[[topology.links]]
from = "{a}"
to = "{b}"
rate = "100Mbps"
delay = "1ms"
queue = {{ limit = 1000 }}
"""
        )
    write(
        "newque/parking_lot.toml",
        f"""
# NEWQUE, section 4.3 (Figs 10-16): multiple-bottleneck parking lot. Routers r1..r6 in a
# chain; the five inter-router links r_i -> r_(i+1) are the bottleneck queues q1..q5, each
# with NEWQUE and a 300-packet buffer. 300 end-to-end FTP/TCP-ECN flows src (at r1) -> dst
# (at r6); one cross-traffic pair per bottleneck, c_i s (at r_i) -> c_i d (at r_(i+1)), with
# 50 flows each. The paper gives no link rates or delays for this topology: the dumbbell's are
# used (inter-router links 10 Mb/s 100 ms, access 100 Mb/s 1 ms). The paper reports queue 3.
name = "newque-parking-lot"
duration = "100s"
warmup = "0s"

[topology]
kind = "graph"
nodes = {strlist(nodes)}
{"".join(links)}{NEWQUE_TCP}
[[flows]]
kind = "tcp"
group = "end_to_end"
from = "src"
to = "dst"
count = 300
start = {{ uniform = ["0s", "1s"] }}

[[flows]]
kind = "tcp"
group = "cross"
from = {strlist(cross_src)}
to = {strlist(cross_dst)}
count = 50
start = {{ uniform = ["0s", "1s"] }}
""",
    )


# ---------------------------------------------------------------------------------------------
# Hybrid RED
# ---------------------------------------------------------------------------------------------

HRED_AQM = '{ kind = "hybrid_red", min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002, gentle = true, theta = 1, xi = 1.25 }'
HRED_TCP = """
[tcp]
variant = "reno"
packet_size = 1000
header_size = 40
ack_size = 40
window = 20
min_rto = "1s"
"""


def hybrid_red() -> None:
    write(
        "hybrid_red/topology1.toml",
        f"""
# Hybrid RED, topology 1 (Fig. 5, static traffic; Tables I-II, Figs 7-10, 15-16).
# Sources a, b, c on 100 Mb/s links with 1, 3, 5 ms to router d; bottleneck d -> e 10 Mb/s
# 5 ms; one FTP flow per source for 50 s. Buffer 50 packets on every router queue (DropTail
# except the bottleneck), 1000 B packets (+40 B header), no ECN. Default AQM: Hybrid RED
# (min_th 5, max_th 15, w_q 0.002, theta 1, xi 1.25); the runner substitutes RED, Adaptive
# RED, LPF/ODA and the (theta, xi) grid. No sampling here (the 7600 runs of Tables I-II would
# be 3-7x slower): companions/hybrid_red.py re-runs the Figs 7-10 configurations with avg
# sampled every 10 ms.
name = "hybrid-red-topology1"
duration = "50s"
warmup = "0s"

[topology]
kind = "graph"
nodes = ["a", "b", "c", "d", "e"]

[[topology.links]]
from = "a"
to = "d"
rate = "100Mbps"
delay = "1ms"
queue = {{ limit = 50 }}

[[topology.links]]
from = "b"
to = "d"
rate = "100Mbps"
delay = "3ms"
queue = {{ limit = 50 }}

[[topology.links]]
from = "c"
to = "d"
rate = "100Mbps"
delay = "5ms"
queue = {{ limit = 50 }}

[[topology.links]]
from = "d"
to = "e"
rate = "10Mbps"
delay = "5ms"
name = "bottleneck"
monitor = true
queue = {{ limit = 50, aqm = {HRED_AQM} }}
reverse_queue = {{ limit = 50 }}
{HRED_TCP}
[[flows]]
kind = "tcp"
group = "ftp"
from = ["a", "b", "c"]
to = "e"
start = "0s"
""",
    )
    # 20 extra flows from 25.0 s, one every 0.1 s, alternating a->e and b->f. The start list is
    # indexed by the flow's position within the entry: pair (a, e) takes positions 0..9 and pair
    # (b, f) 10..19, so a->e gets 25.0, 25.2, ..., 26.8 and b->f 25.1, 25.3, ..., 26.9.
    starts = [f"{25 + 0.2 * i:.1f}s" for i in range(10)] + [f"{25.1 + 0.2 * i:.1f}s" for i in range(10)]
    write(
        "hybrid_red/topology2.toml",
        f"""
# Hybrid RED, topology 2 (Fig. 6, dynamic traffic; Tables I-II, Figs 11-14, 17-18).
# a-c, b-c, e-d, f-d at 10 Mb/s with 2, 3, 4, 5 ms; bottleneck c -> d 1.5 Mb/s 20 ms. Forward
# flows a -> e and b -> f, reverse flow e -> b (its data shares d -> c with the forward ACKs:
# ACK compression). At 25 s twenty more flows start, one every 0.1 s (alternating a -> e and
# b -> f: the paper does not say where they run). Buffer 50 on every router queue, 1000 B
# packets, no ECN. Duration 50 s as topology 1 (not stated for topology 2). No sampling here:
# companions/hybrid_red.py re-runs the Figs 11-14 configurations with avg sampled every 10 ms.
name = "hybrid-red-topology2"
duration = "50s"
warmup = "0s"

[topology]
kind = "graph"
nodes = ["a", "b", "c", "d", "e", "f"]

[[topology.links]]
from = "a"
to = "c"
rate = "10Mbps"
delay = "2ms"
queue = {{ limit = 50 }}

[[topology.links]]
from = "b"
to = "c"
rate = "10Mbps"
delay = "3ms"
queue = {{ limit = 50 }}

[[topology.links]]
from = "e"
to = "d"
rate = "10Mbps"
delay = "4ms"
queue = {{ limit = 50 }}

[[topology.links]]
from = "f"
to = "d"
rate = "10Mbps"
delay = "5ms"
queue = {{ limit = 50 }}

[[topology.links]]
from = "c"
to = "d"
rate = "1.5Mbps"
delay = "20ms"
name = "bottleneck"
monitor = true
queue = {{ limit = 50, aqm = {HRED_AQM} }}
reverse_queue = {{ limit = 50 }}
{HRED_TCP}
[[flows]]
kind = "tcp"
group = "forward"
from = ["a", "b"]
to = ["e", "f"]
start = "0s"

[[flows]]
kind = "tcp"
group = "reverse"
from = "e"
to = "b"
start = "0s"

[[flows]]
kind = "tcp"
group = "late"
from = ["a", "b"]
to = ["e", "f"]
count = 10
start = {strlist(starts)}
""",
    )


# ---------------------------------------------------------------------------------------------
# QVARED
# ---------------------------------------------------------------------------------------------

QVARED_AQM = '{ kind = "qvared", min_th = 20, med_th = 50, max_th = 80, max_p = 0.02, w_q = 0.002, ecn = true }'


def qvared() -> None:
    delays = [f"{d}ms" for d in range(2, 11)]
    write(
        "qvared/dumbbell.toml",
        f"""
# QVARED, section IV (Figs 6-8): dumbbell S1..SN -> R0 -> R1 -> D1..DN. Access links 100 Mb/s
# with one-way delays spread over 2..10 ms (2, 3, ..., 10 ms cycled over the hosts, both
# sides), bottleneck R0 -> R1 10 Mb/s 2 ms, 1000 B packets (+40 B header), 100 s. Base point:
# 80 sources (the figures run 1..80). TCP with ECN: the paper counts marked packets (Fig. 7a).
# Buffer not given: 160 packets = 2*max_th (see papers/qvared.toml, gaps). Default AQM: QVARED
# (min_th 20, med_th 50, max_th 80, initial max_p 0.02, w_q 0.002). Not sampled: the
# companion (companions/qvared.py) re-runs Fig. 8's two configurations with avg every 100 ms.
name = "qvared-dumbbell"
duration = "100s"
warmup = "0s"

[topology]
kind = "dumbbell"
senders = 80
bottleneck = {{ rate = "10Mbps", delay = "2ms", queue = {{ limit = 160, aqm = {QVARED_AQM} }} }}
access = {{ rate = "100Mbps", delay = {strlist(delays)} }}

[tcp]
variant = "reno"
ecn = true
packet_size = 1000
header_size = 40
ack_size = 40
window = 20
min_rto = "200ms"

[[flows]]
kind = "tcp"
group = "ftp"
from = "senders"
to = "receivers"
start = {{ uniform = ["0s", "1s"] }}
""",
    )
    qvared_bias(
        "qvared/bias.toml",
        "qvared-bias",
        4,
        """
# QVARED, Fig. 9: bias against bursty traffic. The paper gives no set-up; this follows Floyd &
# Jacobson 1993 (section 9) on the paper's bottleneck: four FTP flows s0..s3 (window 12,
# access 100 Mb/s 1 ms) and one bursty FTP flow s4 (window 8, access 100 Mb/s 16 ms: longer
# RTT, small window) through R0 -> R1 10 Mb/s 2 ms. The runner varies the buffer (papers/
# qvared.toml); base 200 packets. Bias (the paper's) = the bursty flow's goodput / an equal
# share of the total goodput; 1 = fair, higher is better. ECN on as in the dumbbell runs.""",
    )
    qvared_bias(
        "qvared/bias_many_flows.toml",
        "qvared-bias-many-flows",
        60,
        """
# QVARED, Fig. 9, second series (our assumption): bias.toml with 60 FTP flows (window 12,
# access 100 Mb/s 1 ms) instead of 4, and the same bursty FTP flow s60 (window 8, access
# 16 ms). Up to 60 x 12 + 8 = 728 packets in flight, more than the largest buffer of the axis
# (600), so the buffer bites: with 4 flows at most 56 are in flight and DropTail never drops.""",
    )


def qvared_bias(path: str, name: str, n_ftp: int, comment: str) -> None:
    """Fig. 9's set-up: `n_ftp` FTP flows (window 12, 1 ms access) and one bursty flow (window 8,
    16 ms access) through the paper's 10 Mb/s 2 ms bottleneck."""
    write(
        path,
        f"""{comment}
name = "{name}"
duration = "100s"
warmup = "10s"

[topology]
kind = "dumbbell"
senders = {n_ftp + 1}
bottleneck = {{ rate = "10Mbps", delay = "2ms", queue = {{ limit = 200, aqm = {QVARED_AQM} }} }}
access = {{ rate = "100Mbps", delay = {strlist(["1ms"] * n_ftp + ["16ms"])} }}
receiver_access = {{ rate = "100Mbps", delay = "1ms" }}

[tcp]
variant = "reno"
ecn = true
packet_size = 1000
header_size = 40
ack_size = 40
min_rto = "200ms"

[[flows]]
kind = "tcp"
group = "ftp"
from = {strlist([f"s{i}" for i in range(n_ftp)])}
to = {strlist([f"d{i}" for i in range(n_ftp)])}
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ window = 12 }}

[[flows]]
kind = "tcp"
group = "bursty"
from = "s{n_ftp}"
to = "d{n_ftp}"
start = {{ uniform = ["0s", "1s"] }}
tcp = {{ window = 8 }}
""",
    )


# ---------------------------------------------------------------------------------------------
# DSRED
# ---------------------------------------------------------------------------------------------

# Offered load rho of the FTP request process relative to the 10 Mb/s bottleneck: every server
# issues `n` file transfers of 50 000 B payload (42 packets of 1210 B + 40 B = 52 500 B on the
# wire, 420 kbit) with start times uniform over the 100 s run (a Poisson process of requests
# conditioned on its count). rho = 3 n * 420e3 / (10e6 * 100).
DSRED_LOADS = {"heavy": 1.1, "medium": 0.8, "low": 0.5}
DSRED_FILE = 50000
DSRED_WIRE_BITS = 42 * 1250 * 8


def dsred_per_server(rho: float) -> int:
    return round(rho * 10e6 * 100 / DSRED_WIRE_BITS / 3)


def dsred_network(delays: tuple[str, ...], window: int) -> str:
    """The DSRED topology (three servers with the given access delays, the 10 Mb/s 5 ms
    bottleneck with DSRED) and TCP block, shared by both load models."""
    links = "".join(
        f"""
[[topology.links]]
from = "server{i}"
to = "gateway"
rate = "100Mbps"
delay = "{d}"
queue = {{ limit = 1000 }}
"""
        for i, d in enumerate(delays)
    )
    return f"""[topology]
kind = "graph"
nodes = ["server0", "server1", "server2", "gateway", "destination"]

[[topology.links]]
from = "gateway"
to = "destination"
rate = "10Mbps"
delay = "5ms"
name = "bottleneck"
monitor = true
queue = {{ limit = 200, aqm = {{ kind = "dsred", k_l = 6, k_m = 13, k_h = 20, gamma = 0.96, w_q = 0.07 }} }}
{links}
[tcp]
variant = "reno"
packet_size = 1210
header_size = 40
ack_size = 40
window = {window}
min_rto = "1s"
"""


def dsred() -> None:
    for load, rho in DSRED_LOADS.items():
        for variant, delays in [("", ("1ms", "5ms", "3ms")), ("_rtt", ("3ms", "15ms", "9ms"))]:
            if variant and load != "heavy":
                continue  # the paper's RTT study (Figs 19-22) is under heavy load only
            n = dsred_per_server(rho)
            title = "RTT variant (Figs 19-22): access delays 3, 15, 9 ms" if variant else (
                "access delays 1, 5, 3 ms (Figs 7-18, Tables 2-3)"
            )
            write(
                f"dsred/{load}_load{variant}.toml",
                f"""
# DSRED (OPNET), {load} load, {title}.
# Three FTP servers on 100 Mb/s links to the gateway, bottleneck gateway -> destination 10 Mb/s
# 5 ms, buffer 200 packets, 1250 B packets on the wire (mu = 1 ms/packet: 1210 B payload +
# 40 B header). Load level (the paper does not define it; papers/dsred.toml, gaps): offered
# load rho = {rho} of the bottleneck, as an FTP request process: {n} transfers of {DSRED_FILE} B per
# server, start times uniform over 0-99 s (a start at or after the end is an error). Default AQM: DSRED K_l 6, K_m 13, K_h 20,
# gamma 0.96, w 0.07 (the runner substitutes RED max_p 0.1, and gamma 0.91 / RED max_p 0.2).
# Time averages are taken from 0 s (the paper's Figs 7-22 plot running time averages); the
# series are sampled every 1 s (queue only: sampling ~2600 flows' cwnd would make the run 6x slower).
name = "dsred-{load}-load{variant.replace('_', '-')}"
duration = "100s"
warmup = "0s"
sample_interval = "1s"
sample_flows = false

{dsred_network(delays, 20)}
[[flows]]
kind = "tcp"
group = "ftp"
from = ["server0", "server1", "server2"]
to = "destination"
count = {n}
size = "{DSRED_FILE}B"
start = {{ uniform = ["0s", "99s"] }}
""",
            )


# Second load model (issue 10): the paper's "three ftp sources" (sec. 4) read as three greedy
# FTP flows (always data to send), one per server, for the whole 100 s. With greedy flows the
# paper's "Heavy" / "Low" (OPNET's "Server TCP load" setting, sec. 4, not defined) cannot be a
# request rate; we read it as how many packets the three sources keep in flight, i.e. the TCP
# window (the receiver's advertised window): heavy = 20 packets per flow (the project's window,
# 60 in flight against a path of ~16 packets at 1 ms/packet and RTTs of 12-20 ms: a standing
# queue of ~40 packets without AQM, above K_h = 20, so the AQM must drop); low = 8 packets per
# flow (24 in flight: a standing queue of ~8 packets without AQM, between K_l = 6 and
# K_m = 13, so the AQM is engaged lightly). Bottleneck, RTTs and buffer as in the paper.
DSRED_GREEDY_WINDOWS = {"heavy": 20, "low": 8}


def dsred_greedy() -> None:
    for load, window in DSRED_GREEDY_WINDOWS.items():
        write(
            f"dsred/greedy_{load}.toml",
            f"""
# DSRED (OPNET), second load model: three greedy FTP flows (one per server, 0-100 s), {load}
# load read as a TCP window of {window} packets per flow (the paper does not define its load
# levels; papers/dsred.toml, gaps). Access delays 1, 5, 3 ms (Figs 7-18, Tables 2-3), bottleneck
# gateway -> destination 10 Mb/s 5 ms, buffer 200 packets, 1250 B packets on the wire. Default
# AQM: DSRED K_l 6, K_m 13, K_h 20, gamma 0.96, w 0.07 (the runner substitutes the others).
# Time averages from 0 s, sampled every 1 s (the paper's running averages).
name = "dsred-greedy-{load}"
duration = "100s"
warmup = "0s"
sample_interval = "1s"
sample_flows = false

{dsred_network(("1ms", "5ms", "3ms"), window)}
[[flows]]
kind = "tcp"
group = "ftp"
from = ["server0", "server1", "server2"]
to = "destination"
start = "0s"
""",
        )


if __name__ == "__main__":
    orange()
    newque()
    hybrid_red()
    qvared()
    dsred()
    dsred_greedy()
    print("scenarios written under", HERE)
