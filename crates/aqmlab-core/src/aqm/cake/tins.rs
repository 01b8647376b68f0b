//! CAKE's tins: the Diffserv modes, which tin a DSCP goes to, and each tin's bandwidth
//! threshold, DRR weight, flow quantum and COBALT parameters.
//!
//! Source: Linux 6.1 `net/sched/sch_cake.c`:
//! - the DSCP tables `besteffort`, `diffserv3`, `diffserv4`, `diffserv8`, `precedence`;
//! - `cake_config_besteffort` (1 tin, weight 65535), `cake_config_diffserv3` (tins best
//!   effort, bulk, latency sensitive at rate, rate/16, rate/4, weights 1024, 64, 256),
//!   `cake_config_diffserv4` (best effort, bulk, video, voice at rate, /16, /2, /4, weights
//!   1024, 64, 512, 256), `cake_config_diffserv8` and `cake_config_precedence` (8 tins, each
//!   at 7/8 of the previous one's rate and weight, from rate and 256, in integers);
//! - `cake_set_rate`: per tin, the flow quantum (1514 unlimited, else rate/4096 bytes within
//!   300..1514), the time per byte ([`super::shaper::ByteTime`]), and COBALT's parameters:
//!   mtu_time = the MTU's time at the tin's rate (0 unlimited), target = max(1.5 mtu_time,
//!   target), interval = max(rtt + target' - target, 2 target');
//! - `cake_select_tin`: besteffort puts everything in tin 0; otherwise the DSCP's tin (firewall
//!   marks and skb->priority, which override it, are not modelled). With `wash`, the DSCP is
//!   cleared after it was read (`cake_handle_diffserv`), so the next hop sees 0.

use super::shaper::ByteTime;
use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// `tin_mode` (`CAKE_DIFFSERV_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Diffserv {
    Besteffort,
    Diffserv3,
    Diffserv4,
    Diffserv8,
    Precedence,
}

const PRECEDENCE: [u8; 64] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
    4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7,
];
const DIFFSERV8: [u8; 64] = [
    2, 0, 1, 2, 4, 2, 2, 2, 1, 2, 1, 2, 1, 2, 1, 2, 5, 2, 4, 2, 4, 2, 4, 2, 3, 2, 3, 2, 3, 2, 3, 2,
    6, 2, 3, 2, 3, 2, 3, 2, 6, 2, 2, 2, 6, 2, 6, 2, 7, 2, 2, 2, 2, 2, 2, 2, 7, 2, 2, 2, 2, 2, 2, 2,
];
const DIFFSERV4: [u8; 64] = [
    0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0,
    3, 0, 2, 0, 2, 0, 2, 0, 3, 0, 0, 0, 3, 0, 3, 0, 3, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
];
const DIFFSERV3: [u8; 64] = [
    0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
];

impl Diffserv {
    /// The DSCP-to-tin table.
    fn table(self) -> &'static [u8; 64] {
        match self {
            Diffserv::Besteffort => &[0; 64],
            Diffserv::Diffserv3 => &DIFFSERV3,
            Diffserv::Diffserv4 => &DIFFSERV4,
            Diffserv::Diffserv8 => &DIFFSERV8,
            Diffserv::Precedence => &PRECEDENCE,
        }
    }

    /// `cake_select_tin` for a packet's DSCP (0..=63).
    pub fn tin_of(self, dscp: u8) -> usize {
        self.table()[(dscp & 63) as usize] as usize
    }

    /// Each tin's (rate in bytes/s, DRR weight), from the qdisc's `rate` (0: unlimited).
    fn rates_and_weights(self, rate: u64) -> Vec<(u64, u16)> {
        match self {
            Diffserv::Besteffort => vec![(rate, 65535)],
            Diffserv::Diffserv3 => vec![(rate, 1024), (rate >> 4, 64), (rate >> 2, 256)],
            Diffserv::Diffserv4 => vec![
                (rate, 1024),
                (rate >> 4, 64),
                (rate >> 1, 512),
                (rate >> 2, 256),
            ],
            Diffserv::Diffserv8 | Diffserv::Precedence => {
                let (mut r, mut w) = (rate, 256u32);
                (0..8)
                    .map(|_| {
                        let tin = (r, w.max(1) as u16);
                        r = r.wrapping_mul(7) >> 3;
                        w = (w * 7) >> 3;
                        tin
                    })
                    .collect()
            }
        }
    }
}

/// One tin's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TinParams {
    /// Its bandwidth threshold, bytes/s (0: unlimited).
    pub rate: u64,
    pub byte_time: ByteTime,
    /// Its DRR weight among tins when unshaped (`tin_quantum`).
    pub weight: u16,
    /// `flow_quantum`: a flow's quantum before host sharing.
    pub flow_quantum: u16,
    /// COBALT's, after `cake_set_rate`.
    pub target: Time,
    pub interval: Time,
    pub mtu_time: Time,
}

/// `cake_set_rate` for a tin of `rate` bytes/s (0: unlimited).
pub fn set_rate(rate: u64, weight: u16, mtu: u32, target: Time, rtt: Time) -> TinParams {
    let byte_time = ByteTime::of_rate(rate);
    let flow_quantum = if rate == 0 {
        1514
    } else {
        (rate >> 12).clamp(300, 1514) as u16
    };
    let mtu_time = byte_time.of_len(mtu);
    let t = (mtu_time * 3 / 2).max(target);
    TinParams {
        rate,
        byte_time,
        weight,
        flow_quantum,
        target: t,
        interval: (rtt + t - target).max(2 * t),
        mtu_time,
    }
}

/// `cake_reconfigure`'s `cake_config_*`: the tins of `mode` for a qdisc of `rate` bytes/s.
pub fn configure(mode: Diffserv, rate: u64, mtu: u32, target: Time, rtt: Time) -> Vec<TinParams> {
    mode.rates_and_weights(rate)
        .into_iter()
        .map(|(r, w)| set_rate(r, w, mtu, target, rtt))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// The codepoints RFC 4594 / RFC 8622 name, by hand from the tables: diffserv3 puts LE
    /// (1) and CS1 (8) in bulk (tin 1), CS7 (56), CS6 (48), EF (46), VA (44) and TOS4 (4) in
    /// latency sensitive (tin 2), everything else (AF41 = 34, CS0) in best effort (0).
    /// diffserv4: AF41 is video (2), EF voice (3). diffserv8: CS0 is tin 2 ("bog standard"),
    /// LE tin 0, CS1 tin 1, EF tin 6, CS7 tin 7. precedence: the top three bits.
    #[test]
    fn dscp_to_tin_maps() {
        use Diffserv::*;
        let tins = |m: Diffserv| {
            [0u8, 1, 8, 34, 46, 44, 48, 56, 4]
                .map(|d| m.tin_of(d))
                .to_vec()
        };
        assert_eq!(tins(Diffserv3), vec![0, 1, 1, 0, 2, 2, 2, 2, 2]);
        assert_eq!(tins(Diffserv4), vec![0, 1, 1, 2, 3, 3, 3, 3, 2]);
        assert_eq!(tins(Diffserv8), vec![2, 0, 1, 3, 6, 6, 7, 7, 4]);
        assert_eq!(tins(Precedence), vec![0, 0, 1, 4, 5, 5, 6, 7, 0]);
        assert_eq!(tins(Besteffort), vec![0; 9]);
    }

    /// diffserv3 at 10 Mbit/s (1,250,000 bytes/s): thresholds rate, rate/16 = 78,125 and
    /// rate/4 = 312,500 bytes/s, weights 1024, 64, 256. diffserv8: 1,250,000, then x 7 / 8 in
    /// integers: 1,093,750, 957,031, 837,402; weights 256, 224, 196, 171.
    #[test]
    fn tin_thresholds_and_weights() {
        let d3 = configure(Diffserv::Diffserv3, 1_250_000, 1514, 5 * MS, 100 * MS);
        let rw: Vec<_> = d3.iter().map(|t| (t.rate, t.weight)).collect();
        assert_eq!(rw, vec![(1_250_000, 1024), (78_125, 64), (312_500, 256)]);
        let d8 = configure(Diffserv::Diffserv8, 1_250_000, 1514, 5 * MS, 100 * MS);
        let rw: Vec<_> = d8.iter().take(4).map(|t| (t.rate, t.weight)).collect();
        assert_eq!(
            rw,
            vec![
                (1_250_000, 256),
                (1_093_750, 224),
                (957_031, 196),
                (837_402, 171)
            ]
        );
        assert_eq!(d8.len(), 8);
        assert_eq!(d8[7].weight, 98);
    }

    /// `cake_set_rate` by hand. Unlimited: quantum 1514, no MTU time, target and interval as
    /// given. 10 Mbit/s: 800 ns a byte, mtu_time = 1514 x 800 = 1.2112 ms, target stays 5 ms
    /// (1.5 x 1.2112 < 5), quantum min(1,250,000 >> 12 = 305, 1514) = 305. Its bulk tin at
    /// 78,125 bytes/s (12.8 us a byte): mtu_time 19.3792 ms, target 29.0688 ms, interval
    /// max(100 + 29.0688 - 5, 58.1376) = 124.0688 ms, quantum max(19, 300) = 300.
    #[test]
    fn set_rate_scales_target_at_low_rates() {
        let u = set_rate(0, 1024, 1514, 5 * MS, 100 * MS);
        assert_eq!(
            (u.flow_quantum, u.mtu_time, u.target, u.interval),
            (1514, 0, 5 * MS, 100 * MS)
        );
        let t = set_rate(1_250_000, 1024, 1514, 5 * MS, 100 * MS);
        assert_eq!(
            (t.flow_quantum, t.mtu_time, t.target, t.interval),
            (305, 1_211_200, 5 * MS, 100 * MS)
        );
        let b = set_rate(78_125, 64, 1514, 5 * MS, 100 * MS);
        assert_eq!(
            (b.flow_quantum, b.mtu_time, b.target, b.interval),
            (300, 19_379_200, 29_068_800, 124_068_800)
        );
    }
}
