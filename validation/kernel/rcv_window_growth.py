"""The receiver's window growth in the reference kernel (docs/readings.md, "The receiver's
window growth ..."; issue 37, part 4): one CUBIC flow through a 10 Mb/s htb with netem 20 ms
on the sender's veth and netem 20 ms back (``gso_max_segs 1`` as validate-kernel), a Python
sender and reader, and TCP_INFO (rcv_ssthresh, rcv_space, rcv_rtt, ACKs sent, data segments
received; the sender's cwnd and ssthresh) with SO_RCVBUF of both sockets read every 2 ms.

    python validation/kernel/rcv_window_growth.py [--seed 1] [--seconds 1.5]

Prints the receiver's SO_RCVBUF and rcv_ssthresh as they change, ACKs per data segments by
40 ms round, and the sender's cwnd as it changes until HyStart's exit.
"""

from __future__ import annotations

import argparse
import ast

from aqmlab.emulation.uml_kernel import run_in_guest

FLOW = r"""
import socket, struct, sys, threading, time
role, T = sys.argv[1], float(sys.argv[2])
def info(s):
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    u = lambda o: struct.unpack_from("I", b, o)[0]
    return dict(rcv_ssthresh=u(64), snd_ssthresh=u(76), cwnd=u(80), rcv_rtt=u(92),
                rcv_space=u(96), segs_out=u(136), data_segs_in=u(152),
                rcvbuf=s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
def sample(s, who, t0, done):
    while not done:
        i = info(s); i["t"] = round(time.monotonic() - t0, 4); i["who"] = who
        print(i, flush=True)
        time.sleep(0.002)
done = []
if role == "r":
    l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    l.bind(("10.0.0.2", 5001)); l.listen(1)
    c, _ = l.accept(); t0 = time.monotonic()
    th = threading.Thread(target=sample, args=(c, "r", t0, done)); th.start()
    while time.monotonic() - t0 < T and c.recv(1 << 20):
        pass
else:
    time.sleep(0.2)
    c = socket.socket(); c.connect(("10.0.0.2", 5001)); t0 = time.monotonic()
    th = threading.Thread(target=sample, args=(c, "s", t0, done)); th.start()
    buf = b"x" * 65536
    while time.monotonic() - t0 < T:
        c.send(buf)
done.append(1); th.join()
"""

SCRIPT = """
cat > /tmp/flow.py <<'PYEOF'
{flow}
PYEOF
ip netns add s; ip netns add r
ip link add vs netns s type veth peer name vr netns r
ip -n s addr add 10.0.0.1/24 dev vs; ip -n r addr add 10.0.0.2/24 dev vr
for n in s r; do ip -n $n link set lo up; done
ip -n s link set vs gso_max_segs 1; ip -n r link set vr gso_max_segs 1
ip -n s link set vs up; ip -n r link set vr up
tc -n s qdisc add dev vs root handle 1: htb default 1
tc -n s class add dev vs parent 1: classid 1:1 htb rate 10mbit
tc -n s qdisc add dev vs parent 1:1 handle 10: netem delay 20ms limit 1000
tc -n r qdisc add dev vr root netem delay 20ms limit 10000
ip netns exec r python3 /tmp/flow.py r {seconds} > /tmp/r.out 2>&1 &
sleep 0.1
ip netns exec s python3 /tmp/flow.py s {seconds} > /tmp/s.out 2>&1
wait
cat /tmp/r.out /tmp/s.out
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=1.5)
    a = ap.parse_args()
    g = run_in_guest(SCRIPT.format(flow=FLOW, seconds=a.seconds), seed=a.seed, timeout_s=900)
    rows = [ast.literal_eval(line) for line in g.output.splitlines() if line.startswith("{")]
    r = [d for d in rows if d["who"] == "r"]
    s = [d for d in rows if d["who"] == "s"]
    last = None
    for d in r:
        key = (d["rcvbuf"], d["rcv_ssthresh"] // 100_000)
        if key != last:
            print(
                f"{d['t']:.4f} s  SO_RCVBUF {d['rcvbuf']}  rcv_ssthresh {d['rcv_ssthresh']}  "
                f"rcv_space {d['rcv_space']}  rcv_rtt {d['rcv_rtt']} us"
            )
            last = key
    rounds = []
    for k in range(9):
        a_, b_ = [[x for x in r if x["t"] <= 0.0405 * j][-1] if j else r[0] for j in (k, k + 1)]
        rounds.append(f"{b_['segs_out'] - a_['segs_out']}/{b_['data_segs_in'] - a_['data_segs_in']}")
    print("ACKs/segments by 40 ms round:", " ".join(rounds))
    last = None
    for d in s:
        if (d["cwnd"], d["snd_ssthresh"]) != last:
            print(f"{d['t']:.4f} s  cwnd {d['cwnd']}  ssthresh {d['snd_ssthresh']}")
            last = (d["cwnd"], d["snd_ssthresh"])
        if d["snd_ssthresh"] < 1 << 30:
            break


if __name__ == "__main__":
    main()
