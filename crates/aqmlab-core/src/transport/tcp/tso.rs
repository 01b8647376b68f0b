//! Segmentation offload (TSO/GSO) as it shapes a paced sender's bursts (`tcp.segmentation_
//! offload`). Linux hands the device skbs of several segments; the device (or GSO, after the
//! qdisc) cuts them into packets that leave back to back, and the pacing timer waits for the
//! whole skb's length before the next (net/ipv4/tcp_output.c, read for Linux 6.1):
//!
//! - `tcp_tso_segs`, called once per `tcp_write_xmit` and `tcp_xmit_retransmit_queue`: the
//!   controller's `min_tso_segs` op or `sysctl_tcp_min_tso_segs` (2), then
//!   `tcp_tso_autosize`, capped by `sk_gso_max_segs` (the device's, 65535: no cap here).
//! - `tcp_tso_autosize`: bytes = `sk_pacing_rate >> sk_pacing_shift` (10: about 1 ms of the
//!   pacing rate), plus `sk_gso_max_size >> (tcp_min_rtt >> sysctl_tcp_tso_rtt_log)` (log 9:
//!   the allowance halves for every 512 us of min RTT, nothing left past 16 ms), at most
//!   `sk_gso_max_size` (GSO_LEGACY_MAX_SIZE less `MAX_TCP_HEADER + 1`, `sk_setup_caps`);
//!   segments = max(bytes / mss, min_tso_segs).
//! - `tcp_mss_split_point`: an skb is at most min(cwnd quota, that number) segments.
//! - `tcp_update_skb_after_send`: the departure time moves on by `skb->len / rate`, the whole
//!   skb's, and the "first 10 MSS unpaced" test counts `data_segs_out` with this skb's
//!   segments already added (`__tcp_transmit_skb` adds them before).
//!
//! Not modelled: `tcp_tso_should_defer` (waiting for a fuller skb; an unpaced sender here
//! sends what its window allows at once, which is the burst an ACK opens anyway) and the
//! small-queue check (`tcp_small_queue_check`, which bounds what a flow holds in its own host's
//! qdisc, not the packets' spacing on the wire). Sizes are wire sizes, as the pacer's rates
//! (`pacing.rs`): bytes / size is Linux's bytes / mss up to rounding.

use crate::sim::Time;

/// `tcp.segmentation_offload`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentationOffload {
    /// One packet per pacing slot, and the first 10 packets sent before any is paced (the
    /// default; what the sender did before).
    #[default]
    None,
    /// Linux's skbs of `tcp_tso_autosize` segments, sent back to back, the pacing timer
    /// waiting for the whole skb.
    LinuxAutosize,
}

/// `sk_pacing_shift` (`sk_pacing_shift_init` in tcp_init_sock: 10).
pub const PACING_SHIFT: u32 = 10;
/// `sysctl_tcp_min_tso_segs` (net/ipv4/tcp_ipv4.c: 2).
pub const MIN_TSO_SEGS: u32 = 2;
/// `sysctl_tcp_tso_rtt_log` (9: 512 us).
pub const TSO_RTT_LOG: u32 = 9;
/// `sk_gso_max_size`: GSO_LEGACY_MAX_SIZE (65536) - (MAX_TCP_HEADER (320) + 1).
pub const GSO_MAX_BYTES: u64 = 65_536 - 321;

/// `tcp_tso_autosize`: segments of `packet_bytes` per skb at pacing rate `rate` (bytes/s;
/// None = Linux's initial `~0UL`, unbounded), minimum RTT `min_rtt` (None before a sample:
/// `tcp_min_rtt` is ~0U) and the floor `min_tso_segs`.
pub fn autosize_segs(
    rate: Option<f64>,
    min_rtt: Option<Time>,
    packet_bytes: u32,
    min_tso_segs: u32,
) -> u32 {
    let mut bytes = match rate {
        // `sk_pacing_rate` is an integer of bytes per second.
        Some(r) => (r.floor() as u64) >> PACING_SHIFT,
        None => u64::MAX,
    };
    if let Some(rtt) = min_rtt {
        let r = (rtt / 1_000) >> TSO_RTT_LOG;
        // `r < BITS_PER_TYPE(sk->sk_gso_max_size)` (32).
        if r < 32 {
            bytes = bytes.saturating_add(GSO_MAX_BYTES >> r);
        }
    }
    let segs = bytes.min(GSO_MAX_BYTES) / u64::from(packet_bytes.max(1));
    (segs as u32).max(min_tso_segs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// Hand-computed from `tcp_tso_autosize` with 1040-byte packets and a 40 ms min RTT
    /// (40000 us >> 9 = 78 >= 32: no RTT allowance).
    #[test]
    fn segments_per_skb_are_about_a_millisecond_of_the_pacing_rate() {
        let rtt = Some(40 * MS);
        // 10 Mb/s = 1 250 000 B/s: >> 10 = 1220 B = 1 packet of 1040: the floor, 2.
        assert_eq!(autosize_segs(Some(1_250_000.0), rtt, 1040, 2), 2);
        // BBR's floor below 1.2 Mb/s is 1: 100 000 B/s >> 10 = 97 B: 0 packets, so 1.
        assert_eq!(autosize_segs(Some(100_000.0), rtt, 1040, 1), 1);
        // 100 Mb/s x 1.25 (ProbeBW's probing phase) = 15 625 000 B/s: >> 10 = 15258 B:
        // 15258 / 1040 = 14.67, 14 packets.
        assert_eq!(autosize_segs(Some(15_625_000.0), rtt, 1040, 2), 14);
        // 1 Gb/s = 125 000 000 B/s: >> 10 = 122070 B, capped at 65215: 62 packets.
        assert_eq!(autosize_segs(Some(125_000_000.0), rtt, 1040, 2), 62);
        // No rate yet (~0UL): the GSO cap.
        assert_eq!(autosize_segs(None, None, 1040, 2), 62);
    }

    /// `tso_rtt_log`: at 1 ms min RTT, 1000 us >> 9 = 1: 65215 >> 1 = 32607 B more than the
    /// rate's 1220 B: 33827 / 1040 = 32 packets; at 5 ms, 5000 >> 9 = 9: 65215 >> 9 = 127 B
    /// more: 1347 / 1040 = 1, so the floor 2.
    #[test]
    fn a_short_min_rtt_allows_bigger_skbs() {
        assert_eq!(autosize_segs(Some(1_250_000.0), Some(MS), 1040, 2), 32);
        assert_eq!(autosize_segs(Some(1_250_000.0), Some(5 * MS), 1040, 2), 2);
    }
}
