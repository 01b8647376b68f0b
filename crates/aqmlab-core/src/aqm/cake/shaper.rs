//! CAKE's shaper: the length a packet is charged (overhead compensation and link-layer
//! framing), the time per byte at a rate, and the departure clocks of the whole qdisc and of
//! each tin.
//!
//! Source: Linux 6.1 `net/sched/sch_cake.c`:
//! - `cake_calc_overhead` / `cake_overhead`: with `overhead` set (`CAKE_FLAG_OVERHEAD`), the
//!   network offset (the 14-byte Ethernet header, which `qdisc_pkt_len` counts) is taken off
//!   and `overhead` added; without it ("raw") the length is the frame as the qdisc sees it.
//!   Then at least `mpu`; then ATM (`atm`): ceil(len / 48) cells of 53 bytes; PTM (`ptm`):
//!   one byte more per 64 or part of it. An aqmlab packet's `size` is its IP packet (payload
//!   and headers), so raw is size + 14 and with `overhead` it is size + overhead. GSO
//!   super-packets (charged per segment) do not occur: aqmlab's packets are segments.
//! - `cake_set_rate`: a rate of `rate` bytes/s becomes a time per byte, rate_ns / 2^rate_shft
//!   ns with rate_ns = (10^9 << 34) / max(rate, 64) shifted right until it fits 34 bits; a
//!   packet of len bytes takes (len x rate_ns) >> rate_shft ns. Rate 0: unlimited.
//! - `cake_advance_shaper`: a packet sent advances the qdisc's clock `time_next_packet` by its
//!   time at the qdisc's rate (not clamped to now: `cake_enqueue` brings a stale clock to now
//!   when the qdisc was empty) and `failsafe_next_packet` by 1.5 times that; a tin's clock,
//!   if already past, advances by the packet's time at the tin's rate, else is set to now +
//!   that time if it was before it.
//! - `cake_dequeue` sends nothing while both the clock and the failsafe are in the future,
//!   and asks to be called at the earlier of them (`qdisc_watchdog_schedule_ns`).

use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// The Ethernet header `qdisc_pkt_len` counts on the reference kernel's devices
/// (`skb_network_offset`; ETH_HLEN in include/uapi/linux/if_ether.h).
pub const ETH_HLEN: u32 = 14;

/// `atm_mode`: the link layer's framing (`CAKE_ATM_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Framing {
    /// No cell framing (`noatm`).
    None,
    /// ATM cells: 48 payload bytes in 53 (ADSL).
    Atm,
    /// PTM's 64/65 encoding (VDSL2).
    Ptm,
}

/// How a packet's length is adjusted before it is charged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overhead {
    /// Bytes added to the IP packet; None: raw (the Ethernet frame as the qdisc sees it).
    pub overhead: Option<i32>,
    /// The least length charged.
    pub mpu: u32,
    pub framing: Framing,
}

impl Overhead {
    /// `cake_calc_overhead` of a packet of `size` bytes (IP).
    pub fn adjusted_len(&self, size: u32) -> u32 {
        let mut len = match self.overhead {
            None => size + ETH_HLEN,
            Some(o) => (size as i64 + o as i64).max(0) as u32,
        };
        len = len.max(self.mpu);
        match self.framing {
            Framing::None => len,
            Framing::Atm => len.div_ceil(48) * 53,
            Framing::Ptm => len + len.div_ceil(64),
        }
    }
}

/// A time per byte (`tin_rate_ns`, `tin_rate_shft`); zero: unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ByteTime {
    pub rate_ns: u64,
    pub shift: u8,
}

impl ByteTime {
    /// `cake_set_rate`'s conversion of `rate` bytes/s (0: unlimited).
    pub fn of_rate(rate: u64) -> ByteTime {
        if rate == 0 {
            return ByteTime::default();
        }
        const MIN_RATE: u64 = 64;
        let mut shift = 34u8;
        let mut rate_ns = (1_000_000_000u64 << shift) / rate.max(MIN_RATE);
        while rate_ns >> 34 != 0 {
            rate_ns >>= 1;
            shift -= 1;
        }
        ByteTime { rate_ns, shift }
    }

    pub fn is_unlimited(&self) -> bool {
        self.rate_ns == 0
    }

    /// The time `len` bytes take.
    pub fn of_len(&self, len: u32) -> Time {
        (len as u64 * self.rate_ns) >> self.shift
    }
}

/// The qdisc's own clock (`time_next_packet`, `failsafe_next_packet`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Clock {
    pub time_next_packet: Time,
    pub failsafe_next_packet: Time,
}

impl Clock {
    /// `cake_enqueue` into an empty qdisc: a clock left in the past restarts now.
    pub fn restart_if_stale(&mut self, now: Time) {
        if self.time_next_packet < now {
            self.failsafe_next_packet = now;
            self.time_next_packet = now;
        }
    }

    /// While both the clock and the failsafe are after now, the time to send next.
    pub fn held_until(&self, now: Time) -> Option<Time> {
        (self.time_next_packet > now && self.failsafe_next_packet > now)
            .then(|| self.time_next_packet.min(self.failsafe_next_packet))
    }

    /// `cake_advance_shaper`'s global part: a packet taking `dur` at the qdisc's rate.
    pub fn advance(&mut self, dur: Time) {
        self.time_next_packet += dur;
        self.failsafe_next_packet += dur + (dur >> 1);
    }
}

/// `cake_advance_shaper`'s tin part: a tin's clock after a packet taking `dur` at its rate.
pub fn advance_tin(time_next: Time, now: Time, dur: Time) -> Time {
    if time_next < now {
        time_next + dur
    } else if time_next < now + dur {
        now + dur
    } else {
        time_next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand. A 1500-byte IP packet with `overhead 18` (Ethernet's 14 + 4 FCS, what tc-cake
    /// calls `ethernet`) is 1518 bytes; with ATM framing ceil(1518 / 48) = 32 cells (31 cells
    /// hold 1488) of 53 bytes: 1696. PTM: 1518 + ceil(1518 / 64) = 1518 + 24 = 1542. Raw: the
    /// frame the qdisc sees, 1514. A 40-byte ACK with `mpu 64`: max(58, 64) = 64, in ATM 2
    /// cells (106 bytes).
    #[test]
    fn overhead_mpu_and_framing() {
        let o = |overhead, mpu, framing| Overhead {
            overhead,
            mpu,
            framing,
        };
        assert_eq!(o(Some(18), 0, Framing::None).adjusted_len(1500), 1518);
        assert_eq!(o(Some(18), 0, Framing::Atm).adjusted_len(1500), 1696);
        assert_eq!(o(Some(18), 0, Framing::Ptm).adjusted_len(1500), 1542);
        assert_eq!(o(None, 0, Framing::None).adjusted_len(1500), 1514);
        assert_eq!(o(Some(18), 64, Framing::None).adjusted_len(40), 64);
        assert_eq!(o(Some(18), 64, Framing::Atm).adjusted_len(40), 106);
        assert_eq!(o(Some(-20), 0, Framing::None).adjusted_len(10), 0);
    }

    /// 10 Mbit/s is 1,250,000 bytes/s, 800 ns a byte: (10^9 << 34) / 1,250,000 = 800 << 34
    /// needs 44 bits, so it is halved 10 times: rate_ns = 800 << 24, shift 24, exact. The
    /// 1696 bytes of the ATM frame above take 1696 x 800 = 1,356,800 ns. 3 Mbit/s (375,000
    /// bytes/s, 2666.67 ns a byte) truncates: rate_ns = 2666.67 x 2^22 rounded down, a 1500-byte
    /// packet 3,999,999 ns (4 ms less the truncation).
    #[test]
    fn time_per_byte_in_fixed_point() {
        let t = ByteTime::of_rate(1_250_000);
        assert_eq!((t.rate_ns, t.shift), (800 << 24, 24));
        assert_eq!(t.of_len(1696), 1_356_800);
        let t = ByteTime::of_rate(375_000);
        assert_eq!(t.shift, 22);
        assert_eq!(t.of_len(1500), 3_999_999);
        assert!(ByteTime::of_rate(0).is_unlimited());
        assert_eq!(ByteTime::of_rate(0).of_len(1500), 0);
    }

    /// The qdisc's clock holds while it and the failsafe (1.5 times as far ahead) are both
    /// in the future; a tin's clock only moves forward from now.
    #[test]
    fn clocks_hold_and_advance() {
        let mut c = Clock::default();
        c.restart_if_stale(1_000);
        c.advance(800);
        assert_eq!((c.time_next_packet, c.failsafe_next_packet), (1_800, 2_200));
        assert_eq!(c.held_until(1_000), Some(1_800));
        assert_eq!(c.held_until(1_800), None);
        assert_eq!(advance_tin(500, 1_000, 800), 1_300);
        assert_eq!(advance_tin(1_200, 1_000, 800), 1_800);
        assert_eq!(advance_tin(2_000, 1_000, 800), 2_000);
    }
}
