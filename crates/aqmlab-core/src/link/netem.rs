//! A link's delivery as Linux's netem releases packets: jitter on the delay (with or without
//! reordering) and slotting (packets released in bursts at random slot times).
//!
//! Source: Linux 6.1 `net/sched/sch_netem.c` (Debian's linux-source-6.1, the reference
//! kernel's), read for the facts below; the code is not Linux's.
//! - Delay: each packet's `time_to_send` is its enqueue time plus `tabledist(latency,
//!   jitter)` (`netem_enqueue`). Without a distribution table `tabledist` is uniform over
//!   the integers of [latency - jitter, latency + jitter) (`(rnd % (2 * sigma)) + mu -
//!   sigma`); tc's `distribution normal` scales a table of the normal's inverse CDF by
//!   jitter (here a normal sample: the table's 4,096 quantised entries are not reproduced).
//!   A negative delay is not clamped: the packet is due at once, ordered by its early time.
//! - Reordering: netem's `tfifo_enqueue` keeps packets sorted by `time_to_send`, a packet
//!   equal to another after it, so jitter reorders whenever a later packet draws a shorter
//!   delay (`reorder = true`, netem's own behaviour). `reorder = false` keeps them in order:
//!   a packet is due no earlier than the packet before it, what netem does when it also has
//!   a `rate` (its `time_to_send` then starts from the last packet's) and what a serialising
//!   link with variable delay does.
//! - Slots (`tc qdisc ... netem slot MIN [MAX] [packets N] [bytes B]`, `get_slot`,
//!   `get_slot_next`, `netem_dequeue`): packets leave only when a slot is open
//!   (`slot_next <= now`), at most N packets and B bytes per slot (0: no limit); when either
//!   runs out, or whenever the head packet is due after the slot opened
//!   (`slot_next < time_to_send`, checked at each dequeue), the next slot opens a uniform
//!   `MIN + (rnd * (MAX - MIN) >> 32)` after that dequeue's time. The first slot is open from
//!   the start (`get_slot` sets `slot_next` to the time of configuration).
//! - When Linux dequeues: after every enqueue (`__qdisc_run` from the sending path) and when
//!   the qdisc's watchdog fires, at `max(time_to_send, slot_next)` of the head, reprogrammed
//!   at every dequeue that releases nothing (one timer: `qdisc_watchdog_schedule_ns`). The
//!   model dequeues at exactly those instants, so the slot's redraws happen when Linux's do.
//!
//! Not modelled: netem's loss, duplication, corruption, its gap reordering, the delay
//! correlation (`delay_cor`), the pareto tables and slot distributions (`slot dist`), its
//! own `rate`, and its `limit` (1,000 packets by default in tc; this stage never drops).
//! Bytes per slot count aqmlab's packet size (IP bytes); Linux's `qdisc_pkt_len` on an
//! Ethernet device also counts the 14-byte header.
//!
//! Parameters (`[..].netem` of a link): `jitter` (duration, default 0),
//! `jitter_distribution` ("uniform" | "normal", default uniform), `reorder` (default true,
//! as netem), `slot` (`min_delay`, `max_delay` durations, `packets`, `bytes` counts, 0 = no
//! limit; absent: no slotting).

use crate::net::PacketId;
use crate::sim::{RngStream, Time};
use crate::units::error::ScenarioError;
use crate::units::Duration;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How the jitter is drawn (`netem.jitter_distribution`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum JitterDistribution {
    /// netem without a table: uniform over [delay - jitter, delay + jitter).
    #[default]
    Uniform,
    /// tc's `distribution normal`: delay + jitter x N(0, 1).
    Normal,
}

/// netem's `slot` option: when packets may leave, and how many at once.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SlotParams {
    /// The least time from a dequeue to the next slot.
    pub min_delay: Duration,
    /// The most (default: `min_delay`, as tc's `slot MIN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_delay: Option<Duration>,
    /// Packets per slot (0: no limit).
    #[serde(default)]
    pub packets: u32,
    /// Bytes per slot (0: no limit); a packet is sent whole even if it overruns.
    #[serde(default)]
    pub bytes: u64,
}

impl SlotParams {
    fn max(&self) -> Time {
        self.max_delay.unwrap_or(self.min_delay).0
    }
}

/// The `netem` table of a link.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetemParams {
    /// Half-width of the uniform jitter (or the normal's standard deviation).
    pub jitter: Duration,
    pub jitter_distribution: JitterDistribution,
    /// Packets may overtake each other (netem's tfifo: true) or keep their order (false).
    pub reorder: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<SlotParams>,
}

/// netem's `INT_MAX` for a slot's unlimited packets or bytes.
const UNLIMITED: i64 = i32::MAX as i64;

/// Netem's defaults: no jitter, tfifo ordering, no slots.
impl Default for NetemParams {
    fn default() -> Self {
        NetemParams {
            jitter: Duration(0),
            jitter_distribution: JitterDistribution::Uniform,
            reorder: true,
            slot: None,
        }
    }
}

impl NetemParams {
    /// What the parameters may not be: the error names the field (under `path`) and why.
    pub fn check(&self, path: &str) -> Result<(), ScenarioError> {
        // tabledist takes sigma as an s32 of nanoseconds.
        if self.jitter.0 > i32::MAX as u64 {
            return Err(ScenarioError::new(
                format!("{path}.jitter"),
                format!(
                    "must be at most 2.147 s (netem keeps it in 32-bit nanoseconds), got {} ns",
                    self.jitter.0
                ),
            ));
        }
        if let Some(s) = &self.slot {
            if s.max() < s.min_delay.0 {
                return Err(ScenarioError::new(
                    format!("{path}.slot.max_delay"),
                    format!(
                        "must be at least min_delay ({} ns), got {} ns",
                        s.min_delay.0,
                        s.max()
                    ),
                ));
            }
            if s.max() == 0 {
                return Err(ScenarioError::new(
                    format!("{path}.slot.min_delay"),
                    "a slot of zero delay is no slot (netem ignores it): give a delay or leave \
                     `slot` out",
                ));
            }
        }
        Ok(())
    }
}

/// The slot in force (`netem_sched_data.slot`).
#[derive(Debug, Clone)]
struct SlotState {
    params: SlotParams,
    next: Time,
    packets_left: i64,
    bytes_left: i64,
}

/// A packet waiting in netem's time-ordered FIFO.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    /// `time_to_send` (may lie before the packet entered, for a negative delay).
    due: i64,
    pkt: PacketId,
    size: u32,
}

/// The netem stage of one link: packets enter when their transmission ends and leave for
/// the far node when netem would dequeue them.
#[derive(Debug, Clone)]
pub struct NetemPipe {
    params: NetemParams,
    /// tfifo, sorted by `due`, equal times in arrival order.
    waiting: VecDeque<Waiting>,
    /// Released and scheduled for delivery (one `LinkDeliver` each), in release order.
    released: VecDeque<PacketId>,
    slot: Option<SlotState>,
    /// The watchdog's expiry, if armed.
    watchdog: Option<Time>,
    rng: RngStream,
}

/// What a dequeue asks of the link: deliver `released` packets now, arm the watchdog.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Dequeued {
    pub released: usize,
    /// A new watchdog time to schedule an event at (None: none, or already scheduled).
    pub wake_at: Option<Time>,
}

impl NetemPipe {
    /// `now`: the configuration time (the first slot is open from it).
    pub fn new(params: NetemParams, rng: RngStream, now: Time) -> Self {
        let slot = params.slot.map(|p| SlotState {
            params: p,
            next: now,
            packets_left: limit(p.packets as i64),
            bytes_left: limit(p.bytes.min(UNLIMITED as u64) as i64),
        });
        NetemPipe {
            params,
            waiting: VecDeque::new(),
            released: VecDeque::new(),
            slot,
            watchdog: None,
            rng,
        }
    }

    /// A packet of `size` bytes finished its transmission at `now`; `delay` is the link's.
    /// Linux dequeues right after an enqueue: the caller delivers `released` packets now.
    pub fn enqueue(&mut self, now: Time, delay: Time, pkt: PacketId, size: u32) -> Dequeued {
        let mut due = now as i64 + self.delay(delay);
        if !self.params.reorder {
            if let Some(last) = self.waiting.back() {
                due = due.max(last.due);
            }
        }
        let w = Waiting { due, pkt, size };
        // tfifo_enqueue: after every packet due at or before it.
        let at = self.waiting.partition_point(|x| x.due <= due);
        self.waiting.insert(at, w);
        self.dequeue(now)
    }

    /// The link's `LinkDeliver` event at `now`: the next released packet, if any; a watchdog
    /// expiring now dequeues first.
    pub fn deliver(&mut self, now: Time) -> (Option<PacketId>, Dequeued) {
        let d = if self.watchdog == Some(now) {
            self.watchdog = None;
            self.dequeue(now)
        } else {
            Dequeued::default()
        };
        (self.released.pop_front(), d)
    }

    /// Packets held (waiting or released, not yet delivered).
    pub fn len(&self) -> usize {
        self.waiting.len() + self.released.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `tabledist(latency, jitter)`.
    fn delay(&mut self, latency: Time) -> i64 {
        let (mu, sigma) = (latency as i64, self.params.jitter.0 as i64);
        if sigma == 0 {
            return mu;
        }
        match self.params.jitter_distribution {
            JitterDistribution::Uniform => {
                let rnd = (self.rng.next_u64() >> 32) as i64;
                rnd % (2 * sigma) + mu - sigma
            }
            JitterDistribution::Normal => {
                let z: f64 = StandardNormal.sample(&mut RngAdapter(&mut self.rng));
                mu + (z * sigma as f64).round() as i64
            }
        }
    }

    /// `get_slot_next`: the next slot opens a uniform delay after `now`.
    fn next_slot(&mut self, now: Time) {
        let Some(s) = self.slot.as_mut() else { return };
        let (min, max) = (s.params.min_delay.0, s.params.max());
        let rnd = self.rng.next_u64() >> 32;
        s.next = now + min + (((rnd as u128) * (max - min) as u128) >> 32) as u64;
        s.packets_left = limit(s.params.packets as i64);
        s.bytes_left = limit(s.params.bytes.min(UNLIMITED as u64) as i64);
    }

    /// `netem_dequeue`, called until it returns nothing (as `qdisc_run` does).
    fn dequeue(&mut self, now: Time) -> Dequeued {
        let mut out = Dequeued::default();
        while let Some(head) = self.waiting.front().copied() {
            if let Some(s) = &self.slot {
                if (s.next as i64) < head.due {
                    self.next_slot(now);
                }
            }
            let slot_next = self.slot.as_ref().map_or(0, |s| s.next);
            if head.due <= now as i64 && slot_next <= now {
                self.waiting.pop_front();
                if let Some(s) = self.slot.as_mut() {
                    s.packets_left -= 1;
                    s.bytes_left -= head.size as i64;
                    if s.packets_left <= 0 || s.bytes_left <= 0 {
                        self.next_slot(now);
                    }
                }
                self.released.push_back(head.pkt);
                out.released += 1;
            } else {
                let at = (head.due.max(0) as Time).max(slot_next);
                if self.watchdog != Some(at) {
                    self.watchdog = Some(at);
                    out.wake_at = Some(at);
                }
                break;
            }
        }
        out
    }
}

/// A slot's packets or bytes: 0 is netem's "no limit" (`INT_MAX`).
fn limit(n: i64) -> i64 {
    if n == 0 {
        UNLIMITED
    } else {
        n
    }
}

/// The stage's stream as a `rand` generator, for `rand_distr`'s samplers.
struct RngAdapter<'a>(&'a mut RngStream);

impl rand::RngCore for RngAdapter<'_> {
    fn next_u32(&mut self) -> u32 {
        (self.0.next_u64() >> 32) as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let v = self.0.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::StreamKind;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    const MS: Time = 1_000_000;

    /// Drives a stage as a link does: packets finish transmission at the given times (id,
    /// size); returns (release time, id) in delivery order.
    fn run(params: NetemParams, delay: Time, arrivals: &[(Time, u32)]) -> Vec<(Time, u32)> {
        let rng = RngStream::new(7, StreamKind::LinkNetem, 0);
        let mut stage = NetemPipe::new(params, rng, 0);
        let mut events: BinaryHeap<Reverse<(Time, u64)>> = BinaryHeap::new();
        let mut seq = 0;
        let mut schedule = |events: &mut BinaryHeap<_>, now: Time, d: &Dequeued| {
            for _ in 0..d.released {
                seq += 1;
                events.push(Reverse((now, seq)));
            }
            if let Some(at) = d.wake_at {
                seq += 1;
                events.push(Reverse((at, seq)));
            }
        };
        let mut out = vec![];
        let mut next = 0;
        loop {
            let ev = events.peek().map(|Reverse((t, _))| *t);
            let arr = arrivals.get(next).map(|a| a.0);
            match (arr, ev) {
                (Some(a), e) if e.is_none_or(|e| a < e) => {
                    let d = stage.enqueue(a, delay, PacketId(next as u32), arrivals[next].1);
                    schedule(&mut events, a, &d);
                    next += 1;
                }
                (_, Some(t)) => {
                    events.pop();
                    let (pkt, d) = stage.deliver(t);
                    schedule(&mut events, t, &d);
                    if let Some(p) = pkt {
                        out.push((t, p.0));
                    }
                }
                (None, None) => break,
                (Some(_), None) => unreachable!(),
            }
        }
        assert!(stage.is_empty(), "every packet delivered");
        out
    }

    fn slot(min: Time, max: Time, packets: u32, bytes: u64) -> NetemParams {
        NetemParams {
            slot: Some(SlotParams {
                min_delay: Duration(min),
                max_delay: Some(Duration(max)),
                packets,
                bytes,
            }),
            ..NetemParams::default()
        }
    }

    /// By hand, netem_dequeue with `slot 5ms packets 2` and no delay: the slot open since
    /// configuration (t = 0) is before A's time_to_send (1 ms), so A's dequeue draws the next
    /// slot at 1 + 5 = 6 ms; A and B leave at 6 (two per slot), which draws the next at 11
    /// for C; D, due at 12 after that slot opened, draws one at 17.
    #[test]
    fn a_slot_releases_its_packets_together_at_hand_computed_times() {
        let p = slot(5 * MS, 5 * MS, 2, 0);
        let arrivals = [(MS, 1000), (2 * MS, 1000), (3 * MS, 1000), (12 * MS, 1000)];
        assert_eq!(
            run(p, 0, &arrivals),
            vec![(6 * MS, 0), (6 * MS, 1), (11 * MS, 2), (17 * MS, 3)]
        );
    }

    /// `bytes 2500`: a packet is sent whole, and the slot closes when the bytes run out (at
    /// or below zero): 1000 + 1000 leaves 500, the third's 1000 overruns and closes it.
    #[test]
    fn a_slot_closes_when_its_bytes_run_out() {
        let p = slot(4 * MS, 4 * MS, 0, 2500);
        let arrivals: Vec<_> = (0..5).map(|i| (MS + i, 1000)).collect();
        let out = run(p, 0, &arrivals);
        let times: Vec<Time> = out.iter().map(|o| o.0).collect();
        assert_eq!(times, vec![5 * MS, 5 * MS, 5 * MS, 9 * MS, 9 * MS]);
    }

    /// With a delay, the slot is drawn again at each dequeue while it opened before the
    /// head's time_to_send: A (due 11) at 1 ms draws 1 + 3 = 4 and sets the watchdog at
    /// max(11, 4) = 11; there the slot (4) is still before A's time and is drawn from 11: A
    /// leaves at 14, a whole slot after it was due (a lone packet always waits one slot).
    #[test]
    fn a_waiting_packet_redraws_the_slot_at_each_dequeue() {
        let p = slot(3 * MS, 3 * MS, 0, 0);
        assert_eq!(run(p, 10 * MS, &[(MS, 1000)]), vec![(14 * MS, 0)]);
    }

    /// Slot delays are uniform over [min, max]: every gap between releases of a backlog one
    /// packet per slot lies within, and they spread over the range.
    #[test]
    fn slot_delays_are_uniform_between_min_and_max() {
        let p = slot(2 * MS, 6 * MS, 1, 0);
        let arrivals: Vec<_> = (0..2000).map(|i| (i * 1000, 100)).collect();
        let out = run(p, 0, &arrivals);
        let gaps: Vec<Time> = out.windows(2).map(|w| w[1].0 - w[0].0).collect();
        assert!(gaps.iter().all(|&g| (2 * MS..=6 * MS).contains(&g)));
        let mean = gaps.iter().sum::<Time>() as f64 / gaps.len() as f64;
        assert!((mean / MS as f64 - 4.0).abs() < 0.1, "mean gap {mean}");
        assert!(gaps.iter().any(|&g| g < 2 * MS + MS / 4));
        assert!(gaps.iter().any(|&g| g > 6 * MS - MS / 4));
    }

    fn jitter(j: Time, reorder: bool, dist: JitterDistribution) -> NetemParams {
        NetemParams {
            jitter: Duration(j),
            reorder,
            jitter_distribution: dist,
            slot: None,
        }
    }

    /// netem's tfifo: with jitter larger than the gap between packets, later packets overtake
    /// earlier ones, and each leaves at its own time, uniform in [delay - jitter, delay +
    /// jitter) after it entered, with the delay as mean.
    #[test]
    fn jitter_reorders_in_netems_tfifo_and_is_uniform() {
        let p = jitter(5 * MS, true, JitterDistribution::Uniform);
        let arrivals: Vec<_> = (0..4000).map(|i| (i * MS / 2, 100)).collect();
        let out = run(p, 20 * MS, &arrivals);
        let delays: Vec<i64> = out
            .iter()
            .map(|&(t, id)| t as i64 - arrivals[id as usize].0 as i64)
            .collect();
        assert!(delays
            .iter()
            .all(|&d| (15 * MS as i64..25 * MS as i64).contains(&d)));
        let mean = delays.iter().sum::<i64>() as f64 / delays.len() as f64;
        assert!((mean / MS as f64 - 20.0).abs() < 0.2, "mean {mean}");
        let overtaken = out.windows(2).filter(|w| w[1].1 < w[0].1).count();
        assert!(overtaken > 1000, "{overtaken} packets overtaken");
        assert!(
            out.windows(2).all(|w| w[0].0 <= w[1].0),
            "released in time order"
        );
    }

    /// `reorder = false`: a packet leaves no earlier than the one before it, so the order is
    /// kept, and a packet whose own draw is later than its predecessor's leaves at its own.
    #[test]
    fn jitter_without_reordering_keeps_the_order() {
        for dist in [JitterDistribution::Uniform, JitterDistribution::Normal] {
            let p = jitter(5 * MS, false, dist);
            let arrivals: Vec<_> = (0..4000).map(|i| (i * MS / 2, 100)).collect();
            let out = run(p, 20 * MS, &arrivals);
            let ids: Vec<u32> = out.iter().map(|o| o.1).collect();
            assert_eq!(ids, (0..4000).collect::<Vec<_>>());
            let least = out
                .iter()
                .map(|&(t, id)| t as i64 - arrivals[id as usize].0 as i64)
                .min()
                .unwrap();
            assert!(
                least >= 20 * MS as i64 - 5 * MS as i64 * 5,
                "least delay {least}"
            );
        }
    }

    /// tc's `distribution normal`: the delay's spread is the jitter (as a standard deviation).
    #[test]
    fn normal_jitter_has_the_jitter_as_standard_deviation() {
        let p = jitter(2 * MS, true, JitterDistribution::Normal);
        let arrivals: Vec<_> = (0..20_000).map(|i| (i * MS, 100)).collect();
        let out = run(p, 30 * MS, &arrivals);
        let d: Vec<f64> = out
            .iter()
            .map(|&(t, id)| (t - arrivals[id as usize].0) as f64 / MS as f64)
            .collect();
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / d.len() as f64).sqrt();
        assert!(
            (mean - 30.0).abs() < 0.05 && (sd - 2.0).abs() < 0.05,
            "{mean} {sd}"
        );
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let e = slot(5 * MS, 2 * MS, 0, 0)
            .check("topology.bottleneck.netem")
            .unwrap_err();
        assert_eq!(e.path, "topology.bottleneck.netem.slot.max_delay");
        let e = slot(0, 0, 4, 0).check("x.netem").unwrap_err();
        assert_eq!(e.path, "x.netem.slot.min_delay");
        let e = jitter(3_000_000_000, true, JitterDistribution::Uniform)
            .check("x.netem")
            .unwrap_err();
        assert_eq!(e.path, "x.netem.jitter");
    }
}
