"""Linux's ``struct tcp_info`` (getsockopt TCP_INFO), decoded by hand, and the simulator's
per-flow variables taken from it.

Layout: include/uapi/linux/tcp.h, ``struct tcp_info``, up to ``tcpi_total_rto_time`` (Linux
6.7), then the Accurate ECN counters and ECN mode (upstream since 6.18: the second reference
kernel's, docs/kernel-reference.md). The kernel copies min(asked, its sizeof) bytes (net/ipv4/tcp.c, do_tcp_getsockopt), so an
older kernel returns a prefix: only the fields wholly inside what came back are decoded.
The struct has no padding in this order (every u64 lands on a multiple of 8, checked below),
so the offsets are the running sums of the sizes, in native byte order.
"""

from __future__ import annotations

import math
import socket
import struct

# (name without the tcpi_ prefix, struct format), in the kernel's order.
FIELDS: tuple[tuple[str, str], ...] = (
    ("state", "B"),
    ("ca_state", "B"),
    ("retransmits", "B"),
    ("probes", "B"),
    ("backoff", "B"),
    ("options", "B"),
    ("wscale", "B"),  # snd_wscale : 4, rcv_wscale : 4 (split below)
    ("flags", "B"),  # delivery_rate_app_limited : 1, fastopen_client_fail : 2
    ("rto", "I"),  # us
    ("ato", "I"),
    ("snd_mss", "I"),
    ("rcv_mss", "I"),
    ("unacked", "I"),  # packets_out
    ("sacked", "I"),  # sacked_out
    ("lost", "I"),  # lost_out
    ("retrans", "I"),  # retrans_out
    ("fackets", "I"),
    ("last_data_sent", "I"),
    ("last_ack_sent", "I"),
    ("last_data_recv", "I"),
    ("last_ack_recv", "I"),
    ("pmtu", "I"),
    ("rcv_ssthresh", "I"),
    ("rtt", "I"),  # srtt, us
    ("rttvar", "I"),
    ("snd_ssthresh", "I"),  # packets
    ("snd_cwnd", "I"),  # packets
    ("advmss", "I"),
    ("reordering", "I"),
    ("rcv_rtt", "I"),
    ("rcv_space", "I"),
    ("total_retrans", "I"),
    ("pacing_rate", "Q"),  # bytes/s
    ("max_pacing_rate", "Q"),
    ("bytes_acked", "Q"),
    ("bytes_received", "Q"),
    ("segs_out", "I"),
    ("segs_in", "I"),
    ("notsent_bytes", "I"),
    ("min_rtt", "I"),  # us
    ("data_segs_in", "I"),
    ("data_segs_out", "I"),
    ("delivery_rate", "Q"),  # bytes/s
    ("busy_time", "Q"),
    ("rwnd_limited", "Q"),
    ("sndbuf_limited", "Q"),
    ("delivered", "I"),
    ("delivered_ce", "I"),
    ("bytes_sent", "Q"),
    ("bytes_retrans", "Q"),
    ("dsack_dups", "I"),
    ("reord_seen", "I"),
    ("rcv_ooopack", "I"),
    ("snd_wnd", "I"),
    ("rcv_wnd", "I"),
    ("rehash", "I"),
    ("total_rto", "H"),
    ("total_rto_recoveries", "H"),
    ("total_rto_time", "I"),
    ("received_ce", "I"),
    ("delivered_e1_bytes", "I"),
    ("delivered_e0_bytes", "I"),
    ("delivered_ce_bytes", "I"),
    ("received_e1_bytes", "I"),
    ("received_e0_bytes", "I"),
    ("received_ce_bytes", "I"),
    ("ecn", "I"),  # bit fields: ecn_mode:2, accecn_opt_seen:2, accecn_fail_mode:4
)


def _offsets() -> dict[str, tuple[int, str]]:
    out, at = {}, 0
    for name, fmt in FIELDS:
        size = struct.calcsize("=" + fmt)
        assert at % size == 0, f"tcp_info field {name} would be padded"
        out[name] = (at, fmt)
        at += size
    return out


OFFSETS = _offsets()
SIZE = sum(struct.calcsize("=" + fmt) for _, fmt in FIELDS)  # 280 (6.1's struct: 248)
# Asked of the kernel: more than SIZE, so a newer kernel's longer struct is cut, not ours.
REQUEST_BYTES = 288
# tcpi_ecn_mode's values (include/uapi/linux/tcp.h, TCPI_ECN_MODE_*).
ECN_MODES = {0: "disabled", 1: "rfc3168", 2: "accecn", 3: "pending"}

# include/net/tcp.h: TCP_INFINITE_SSTHRESH; net/ipv4/tcp.c tcp_get_info reports an unset
# pacing rate (~0UL) as ~0ULL and an unset min_rtt as ~0U.
INFINITE_SSTHRESH = 0x7FFFFFFF
U64_MAX = 2**64 - 1
U32_MAX = 2**32 - 1


def decode(raw: bytes) -> dict[str, int]:
    """The fields of ``struct tcp_info`` that ``raw`` holds whole, by name (no tcpi_ prefix),
    plus snd_wscale / rcv_wscale and delivery_rate_app_limited from their bit fields (GCC
    allocates bit fields from the low bit on little-endian machines such as x86-64)."""
    out: dict[str, int] = {}
    for name, (at, fmt) in OFFSETS.items():
        if at + struct.calcsize("=" + fmt) > len(raw):
            break
        (out[name],) = struct.unpack_from("=" + fmt, raw, at)
    if "wscale" in out:
        out["snd_wscale"], out["rcv_wscale"] = out["wscale"] & 0x0F, out["wscale"] >> 4
    if "flags" in out:
        out["delivery_rate_app_limited"] = out["flags"] & 0x01
    if "ecn" in out:
        ecn = out["ecn"]
        out["ecn_mode"], out["accecn_opt_seen"], out["accecn_fail_mode"] = ecn & 0x3, (ecn >> 2) & 0x3, (ecn >> 4) & 0xF
    return out


def read(sock: socket.socket) -> dict[str, int]:
    return decode(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, REQUEST_BYTES))


#: getsockopt TCP_CC_INFO (include/uapi/linux/tcp.h), and the size of ``struct tcp_dctcp_info``
#: (include/uapi/linux/inet_diag.h: u16 enabled, u16 ce_state, u32 alpha, u32 ab_ecn, u32 ab_tot).
TCP_CC_INFO = 26
DCTCP_INFO_BYTES = 16


def decode_dctcp_alpha(raw: bytes) -> int | None:
    """DCTCP's alpha in 1/1024 from ``struct tcp_dctcp_info``, or None when the socket does not
    run DCTCP's algorithm: `dctcp_get_info` (net/ipv4/tcp_dctcp.c) leaves ``dctcp_enabled`` 0
    once ECN was not negotiated and the socket fell back to `dctcp_reno`."""
    if len(raw) < 8:
        return None
    enabled, _ce_state, alpha = struct.unpack_from("=HHI", raw)
    return int(alpha) if enabled else None


def read_dctcp_alpha(sock: socket.socket) -> int | None:
    return decode_dctcp_alpha(sock.getsockopt(socket.IPPROTO_TCP, TCP_CC_INFO, DCTCP_INFO_BYTES))


def variables(info: dict[str, int]) -> dict[str, float]:
    """The simulator's names for what one TCP_INFO sample says (those the sample holds).

    ``in_flight`` is Linux's tcp_packets_in_flight (include/net/tcp.h): packets_out -
    (sacked_out + lost_out) + retrans_out, which TCP_INFO reports as unacked, sacked, lost and
    retrans. An infinite ssthresh (still in the first slow start), an unset pacing rate or
    min_rtt are NaN."""
    out: dict[str, float] = {}
    if "snd_cwnd" in info:
        out["cwnd"] = float(info["snd_cwnd"])
        ss = info["snd_ssthresh"]
        out["ssthresh"] = math.nan if ss >= INFINITE_SSTHRESH else float(ss)
        out["srtt_ms"] = info["rtt"] / 1000.0
        out["rto_ms"] = info["rto"] / 1000.0
        out["in_flight"] = float(info["unacked"] - info["sacked"] - info["lost"] + info["retrans"])
    if "pacing_rate" in info:
        rate = info["pacing_rate"]
        out["pacing_rate_bps"] = math.nan if rate == U64_MAX else 8.0 * rate
    if "min_rtt" in info:
        out["min_rtt_ms"] = math.nan if info["min_rtt"] == U32_MAX else info["min_rtt"] / 1000.0
    if "delivery_rate" in info:
        out["delivery_rate_bps"] = 8.0 * info["delivery_rate"]
    return out
