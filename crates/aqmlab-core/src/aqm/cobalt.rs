//! COBALT: CAKE's "CoDel-BLUE alternate" AQM, on a single queue.
//!
//! Sources: Linux `net/sched/sch_cake.c` (Hoeiland-Joergensen, Taht, Morton 2018):
//! `cobalt_should_drop`, `cobalt_queue_full`, `cobalt_queue_empty`, `cobalt_newton_step`,
//! `cobalt_invsqrt`, `cobalt_cache_init`, `cobalt_vars_init`, `cobalt_control`,
//! `cake_set_rate`; ns-3 `src/traffic-control/model/cobalt-queue-disc.cc`
//! (`CobaltQueueDisc`, Kannan, Lara, Palmei, Gupta, Tahiliani 2019), a single-queue port of
//! the same functions. aqmlab's COBALT is single-queue like ns-3's: CAKE's flow isolation
//! (set-associative hashing, host fairness), its tins and its shaper are out of scope
//! (FQ-CoDel and FQ-PIE are aqmlab's flow-queueing disciplines).
//!
//! CoDel part (`cobalt_should_drop`, on each dequeued packet):
//! - over_target = sojourn > target (and, with `rate_adjust`, more than 4 MTU times on this
//!   link and more than 2 MTU times x bulk flows, 1 here). On becoming over target when not dropping: dropping,
//!   drop_next = control(now); count at least 1. Not over target: leave dropping.
//! - next_due = count > 0 and now >= drop_next (decided before the step above). If next_due
//!   and dropping: CE-mark an ECT packet (`ecn`), else drop; count + 1 (saturating);
//!   drop_next = control(drop_next). If not: while next_due, count - 1 and drop_next =
//!   control(drop_next): the count *decays* by one per elapsed control interval instead of
//!   being reset.
//! - Then `drop_next` doubles as an activity timeout: with count 0, drop_next = now +
//!   interval; else if now was after drop_next and the packet is not dropped, drop_next = now.
//!
//! Where this differs from RFC 8289 CoDel (aqm/codel.rs, Linux `codel_impl.h`): there is no
//! separate first_above_time: interval is both the wait before the first signal and the
//! control law's scale, drop_next serving both; on re-entry count is not reset to 1 or to
//! count - lastcount but has decayed by one per interval spent out of the dropping state
//! (and in `cobalt_queue_empty`); there is no "backlog <= one MTU" exemption (the MTU-time
//! rule above instead); the count is incremented before the next drop_next is computed (the
//! second signal comes interval/sqrt(2) after the first, RFC 8289's a whole interval); and the
//! control law interval/sqrt(count) is computed in 32-bit fixed point, rec_inv_sqrt =
//! count^-1/2 in Q0.32 (`cobalt_invsqrt`): a table for count < 16 built by four Newton
//! steps per entry from the previous one (`cobalt_cache_init`, entries 0 and 1 =
//! 0xFFFFFFFF), one Newton step per change above (`cobalt_newton_step`), and control(t) = t + (interval x rec_inv_sqrt) >> 32
//! (`reciprocal_scale`; interval therefore fits 32 bits of ns: at most 4.29 s). codel.rs's
//! floating-point control law and its state machine therefore are not reused: they do not
//! compute what CAKE computes.
//!
//! Initial rec_inv_sqrt, `initial_inv_sqrt`: Linux's `cobalt_vars_init` zeroes the state, so
//! rec_inv_sqrt = 0 until the first change of count: the first dropping episode of a run sets
//! drop_next = now and signals at the next over-target dequeue ("linux", default). ns-3's
//! `InitializeParams` starts it at 0xFFFFFFFF (~1), so the first signal too comes an interval
//! after the queue went over target ("ns3"). Afterwards both agree (count back to 0 loads
//! table entry 0 = 0xFFFFFFFF).
//!
//! BLUE part ([`super::blue::Blue`], reused with d1 = `increment`, d2 = `decrement`, one
//! shared freeze clock of `target`): `cobalt_queue_full`, on every overflow drop, raises p by
//! 1/256 if more than target has passed since p last changed, and puts CoDel into dropping
//! with drop_next = now and count at least 1; `cobalt_queue_empty`, when the link finds the
//! queue empty, lowers p by 1/4096 (only while p > 0, same freeze), leaves the dropping state
//! and decays count once if drop_next has passed. Every dequeued packet is then dropped with
//! probability p, ECT or not ("Lack of ECN is deliberate", sch_cake.c). Linux keeps p in Q0.32
//! (p_inc = 1 << 24, p_dec = 1 << 20); both steps are exact binary fractions, so f64 holds
//! the same values. Linux's clock starts at 0, so its first change of p waits until now >
//! target; Blue's first change is never frozen: they differ only in the first `target` of a
//! run.
//!
//! Overflow, `overflow`: CAKE enqueues the arrival and, over its buffer limit, drops from the
//! head of the fattest flow (`cake_drop`), which for one queue is its head ("head", default);
//! ns-3's `DoEnqueue` drops the arrival ("tail"). Both call queue_full.
//!
//! The last packet, `last_packet`: sch_cake.c `cake_dequeue` calls `cobalt_should_drop` on
//! each packet it dequeues and drops it only if the flow's queue still holds another ("Last
//! packet in queue may be marked, shouldn't be dropped": `|| !flow->head`); the packet that
//! empties it is sent, CE-marked if CoDel's signal marked it (`INET_ECN_set_ce` ran inside
//! `cobalt_should_drop`), unmarked if the drop came from BLUE or from CoDel on a non-ECT
//! packet. COBALT's state moves as for a drop (count, drop_next: `cobalt_should_drop` decided
//! first). Here the queue is the flow: a packet alone in the queue is never dropped at
//! dequeue ("send", default), so a sparse flow after an overload loses nothing to BLUE's p
//! where "drop" (aqmlab before issue 37, and ns-3's `CobaltQueueDisc::DoDequeue`) loses a
//! share p of its packets.
//!
//! When the queue is found empty, `queue_empty`: ns-3's `DoDequeue` calls
//! `CobaltQueueEmpty` whenever it is asked for a packet and has none, which here is the link
//! finding the queue empty ("link_idle", default); CAKE calls `cobalt_queue_empty` only on a
//! flow it picked from its lists that turns out empty (`cake_dequeue`, "this queue was
//! actually empty"), and `cake_dequeue` returns at `if (!sch->q.qlen)` before it picks one,
//! so a flow is found empty only while another flow keeps the qdisc backlogged. CAKE with one
//! queue (`flowblind`, or one flow) therefore never runs it ("never"): BLUE's p, once an
//! overflow raised it, never falls, and every packet but a queue's last is dropped with
//! probability p for the rest of the run (measured against Linux 6.1: 4 CUBIC flows at
//! 100 Mb/s through `cake flowblind` after a slow-start overflow, docs/validation.md).
//!
//! `rate_adjust` (default true: CAKE shaping at this link's rate, `cake_set_rate`): mtu_time
//! = `mtu` bytes at the link rate; target becomes max(target, 1.5 mtu_time) and interval
//! max(interval + target' - target, 2 target'), and over_target requires sojourn > 4
//! mtu_time. Above ~10 Mb/s with the defaults none of this changes anything. false: ns-3
//! (no MTU-time rules). ns-3's `BlueThreshold` (BLUE raised also when sojourn > 400 ms) and
//! `CeThreshold` / L4S options are not in Linux and not modelled.
//!
//! Parameters: `target` (5 ms), `interval` (100 ms), `ecn` (true: CAKE marks ECT packets;
//! ns-3's `UseEcn` default is false), `increment` (1/256), `decrement` (1/4096), `mtu`
//! (1514 B), `rate_adjust`, `overflow`, `initial_inv_sqrt`, `last_packet`, `queue_empty`.

use super::blue::{Blue, BlueParams};
use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::{Aqm, ArrivalVerdict, DepartureVerdict, DropKind, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{time, RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

pub const PARAMS: &[ParamDoc] = &[
    doc("target", "5ms", "s", "CoDel target; also BLUE's freeze time").with_plausible(1e-5, 0.5),
    doc("interval", "100ms", "s", "CoDel interval (at most 4.29 s)").with_plausible(1e-3, 2.0),
    doc(
        "ecn",
        "true",
        "bool",
        "CE-mark ECT packets on CoDel's signals (CAKE; ns-3 UseEcn: false); BLUE always drops",
    ),
    doc(
        "increment",
        "0.00390625",
        "probability",
        "BLUE: p += increment on an overflow drop (1/256)",
    ),
    doc(
        "decrement",
        "0.000244140625",
        "probability",
        "BLUE: p -= decrement when the queue is found empty (1/4096)",
    ),
    doc(
        "mtu",
        "1514",
        "bytes",
        "the MTU whose transmission time rate_adjust uses",
    ),
    doc(
        "rate_adjust",
        "true",
        "bool",
        "CAKE's MTU-time rules at the link rate (target >= 1.5 MTU times, sojourn > 4 MTU times); false: ns-3",
    ),
    doc(
        "overflow",
        "head",
        "\"head\" | \"tail\"",
        "on a full buffer drop the head (CAKE cake_drop) or the arrival (ns-3)",
    ),
    doc(
        "last_packet",
        "send",
        "\"send\" | \"drop\"",
        "a drop decision on the packet that empties the queue: send it, CE-marked if CoDel marked it (Linux cake_dequeue), or drop it",
    ),
    doc(
        "initial_inv_sqrt",
        "linux",
        "\"linux\" | \"ns3\"",
        "rec_inv_sqrt before the first change of count: 0 (Linux cobalt_vars_init; first episode signals at once) or ~1 (ns-3)",
    ),
    doc(
        "queue_empty",
        "link_idle",
        "\"link_idle\" | \"never\"",
        "when cobalt_queue_empty runs (BLUE's p falls, count decays): the link finds the queue empty (ns-3) or never (CAKE with one queue)",
    ),
];

/// When `cobalt_queue_empty` runs (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueEmpty {
    /// Whenever the link finds the queue empty: ns-3's `CobaltQueueDisc::DoDequeue`.
    LinkIdle,
    /// Never: Linux's `cake flowblind` (`cake_dequeue` returns before it looks at its flow).
    Never,
}

/// Which packet a full buffer loses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Overflow {
    Head,
    Tail,
}

/// What a drop decision does to the packet that leaves the queue empty (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LastPacket {
    /// Sent (CE-marked if CoDel's signal marked it): sch_cake.c `cake_dequeue`, "Last packet
    /// in queue may be marked, shouldn't be dropped".
    Send,
    /// Dropped like any other (aqmlab before issue 37; ns-3's `CobaltQueueDisc::DoDequeue`
    /// has no such exemption).
    Drop,
}

/// rec_inv_sqrt of a fresh state (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InitialInvSqrt {
    Linux,
    Ns3,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CobaltParams {
    pub target: Duration,
    pub interval: Duration,
    pub ecn: bool,
    pub increment: f64,
    pub decrement: f64,
    pub mtu: u32,
    pub rate_adjust: bool,
    pub overflow: Overflow,
    pub initial_inv_sqrt: InitialInvSqrt,
    pub last_packet: LastPacket,
    pub queue_empty: QueueEmpty,
}

impl Default for CobaltParams {
    fn default() -> Self {
        CobaltParams {
            target: Duration(5_000_000),
            interval: Duration(100_000_000),
            ecn: true,
            // sch_cake.c `cake_set_rate`: p_inc = 1 << 24, p_dec = 1 << 20 in Q0.32.
            increment: 1.0 / 256.0,
            decrement: 1.0 / 4096.0,
            mtu: 1514,
            rate_adjust: true,
            overflow: Overflow::Head,
            initial_inv_sqrt: InitialInvSqrt::Linux,
            last_packet: LastPacket::Send,
            queue_empty: QueueEmpty::LinkIdle,
        }
    }
}

/// sch_cake.c `REC_INV_SQRT_CACHE`.
const CACHE: usize = 16;

/// `cobalt_newton_step`: one Newton iteration of rec_inv_sqrt (Q0.32) towards count^-1/2,
/// with the kernel's integer widths and truncations.
pub fn newton_step(rec_inv_sqrt: u32, count: u32) -> u32 {
    let invsqrt = rec_inv_sqrt as u64;
    let invsqrt2 = (invsqrt * invsqrt) >> 32;
    let mut val = (3u64 << 32).wrapping_sub((count as u64).wrapping_mul(invsqrt2));
    val >>= 2;
    val = val.wrapping_mul(invsqrt) >> (32 - 2 + 1);
    val as u32
}

/// `cobalt_cache_init`: entry 0 is 0xFFFFFFFF; entry n is four Newton steps from entry n-1.
fn inv_sqrt_cache() -> [u32; CACHE] {
    let mut cache = [0u32; CACHE];
    let mut v = u32::MAX;
    cache[0] = v;
    for (count, entry) in cache.iter_mut().enumerate().skip(1) {
        for _ in 0..4 {
            v = newton_step(v, count as u32);
        }
        *entry = v;
    }
    cache
}

/// `reciprocal_scale(interval, rec_inv_sqrt)`: interval x count^-1/2, truncated.
fn scaled(interval: Time, rec_inv_sqrt: u32) -> Time {
    ((interval as u32 as u64 * rec_inv_sqrt as u64) >> 32) as Time
}

/// `cake_set_rate`: target and interval at this link's rate, and the MTU time (0 without
/// `rate_adjust`, which turns the MTU-time rules off).
fn effective(cfg: &CobaltParams, link_rate_bps: u64) -> (Time, Time, Time) {
    if !cfg.rate_adjust || link_rate_bps == 0 {
        return (cfg.target.0, cfg.interval.0, 0);
    }
    let mtu_time = (cfg.mtu as u128 * 8 * 1_000_000_000 / link_rate_bps as u128) as Time;
    let target = (mtu_time * 3 / 2).max(cfg.target.0);
    let interval = (cfg.interval.0 + target - cfg.target.0).max(target * 2);
    (target, interval, mtu_time)
}

#[derive(Debug, Clone)]
pub struct Cobalt {
    pub cfg: CobaltParams,
    /// CoDel's target and interval after `cake_set_rate`, and the MTU time.
    pub target: Time,
    pub interval: Time,
    pub mtu_time: Time,
    pub count: u32,
    pub rec_inv_sqrt: u32,
    pub dropping: bool,
    pub drop_next: Time,
    /// BLUE's probability and freeze clock.
    pub blue: Blue,
    /// Sojourn time of the last packet dequeued.
    pub ldelay: Time,
    cache: [u32; CACHE],
}

impl Cobalt {
    pub fn new(cfg: CobaltParams, link_rate_bps: u64) -> Self {
        let (target, interval, mtu_time) = effective(&cfg, link_rate_bps);
        let blue = Blue::new(BlueParams {
            d1: cfg.increment,
            d2: cfg.decrement,
            freeze_time: Duration(target),
            shared_freeze: true,
            ecn: false,
        });
        let rec_inv_sqrt = match cfg.initial_inv_sqrt {
            InitialInvSqrt::Linux => 0,
            InitialInvSqrt::Ns3 => u32::MAX,
        };
        Cobalt {
            cfg,
            target,
            interval,
            mtu_time,
            count: 0,
            rec_inv_sqrt,
            dropping: false,
            drop_next: 0,
            blue,
            ldelay: 0,
            cache: inv_sqrt_cache(),
        }
    }

    /// `cobalt_invsqrt`: the table below 16, one Newton step above.
    fn invsqrt(&mut self) {
        self.rec_inv_sqrt = match self.cache.get(self.count as usize) {
            Some(&v) => v,
            None => newton_step(self.rec_inv_sqrt, self.count),
        };
    }

    /// `cobalt_control`.
    fn control(&self, t: Time) -> Time {
        t + scaled(self.interval, self.rec_inv_sqrt)
    }

    /// `cobalt_queue_full`: an overflow drop.
    pub fn queue_full(&mut self, now: Time) {
        self.blue.on_loss(now);
        self.dropping = true;
        self.drop_next = now;
        if self.count == 0 {
            self.count = 1;
        }
    }

    /// `cobalt_queue_empty`: the queue was served and found empty.
    pub fn queue_empty(&mut self, now: Time) {
        if self.blue.p > 0.0 {
            self.blue.on_link_idle(now);
        }
        self.dropping = false;
        if self.count > 0 && now >= self.drop_next {
            self.count -= 1;
            self.invsqrt();
            self.drop_next = self.control(self.drop_next);
        }
    }

    /// `cobalt_should_drop` for a packet just dequeued, then `cake_dequeue`'s exemption of
    /// the packet that left the queue empty (`last`, with `last_packet = "send"`): the state
    /// moves as for a drop, the packet is sent, CE-marked if CoDel's signal marked it.
    pub fn should_drop(
        &mut self,
        now: Time,
        enqueued_at: Time,
        ect: bool,
        last: bool,
        rng: &mut RngStream,
    ) -> DepartureVerdict {
        let sojourn = now.saturating_sub(enqueued_at);
        self.ldelay = sojourn;
        // `schedule` keeps, in its sign, whether now is at or after drop_next.
        let mut schedule = now as i128 - self.drop_next as i128;
        // bulk_flows = 1: a single queue.
        let over_target =
            sojourn > self.target && sojourn > self.mtu_time * 2 && sojourn > self.mtu_time * 4;
        let mut next_due = self.count > 0 && schedule >= 0;
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = self.control(now);
            }
            if self.count == 0 {
                self.count = 1;
            }
        } else if self.dropping {
            self.dropping = false;
        }
        let mut verdict = DepartureVerdict::Send;
        if next_due && self.dropping {
            verdict = if self.cfg.ecn && ect {
                DepartureVerdict::Mark
            } else {
                DepartureVerdict::Drop
            };
            self.count = self.count.saturating_add(1);
            self.invsqrt();
            self.drop_next = self.control(self.drop_next);
            schedule = now as i128 - self.drop_next as i128;
        } else {
            while next_due {
                self.count -= 1;
                self.invsqrt();
                self.drop_next = self.control(self.drop_next);
                schedule = now as i128 - self.drop_next as i128;
                next_due = self.count > 0 && schedule >= 0;
            }
        }
        // CoDel's mark stays on the packet whatever BLUE decides (`INET_ECN_set_ce`).
        let marked = verdict == DepartureVerdict::Mark;
        // BLUE, on every packet, marks or not: a drop ("Lack of ECN is deliberate").
        if self.blue.p > 0.0 && rng.uniform() < self.blue.p {
            verdict = DepartureVerdict::Drop;
        }
        let dropped = verdict == DepartureVerdict::Drop;
        if self.count == 0 {
            self.drop_next = now + self.interval;
        } else if schedule > 0 && !dropped {
            self.drop_next = now;
        }
        if dropped && last && self.cfg.last_packet == LastPacket::Send {
            verdict = if marked {
                DepartureVerdict::Mark
            } else {
                DepartureVerdict::Send
            };
        }
        verdict
    }
}

impl Aqm for Cobalt {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, _rng: &mut RngStream) -> ArrivalVerdict {
        if !q.is_full_for(pkt.size) {
            return ArrivalVerdict::Enqueue;
        }
        self.queue_full(q.now);
        match self.cfg.overflow {
            Overflow::Head if q.len_packets > 0 => ArrivalVerdict::DropFront(DropKind::Forced),
            _ => ArrivalVerdict::Drop(DropKind::Forced),
        }
    }

    fn on_departure(
        &mut self,
        q: &QueueView,
        pkt: &Packet,
        rng: &mut RngStream,
    ) -> DepartureVerdict {
        // The packet is out of the queue: none left means it was the last (`!flow->head`).
        let last = q.len_packets == 0;
        self.should_drop(q.now, pkt.enqueued_at, pkt.ecn.ect, last, rng)
    }

    fn on_link_idle(&mut self, now: Time) {
        if self.cfg.queue_empty == QueueEmpty::LinkIdle {
            self.queue_empty(now);
        }
    }

    /// The parameters change (target and interval at the link rate the queue was built
    /// for); count, drop_next and BLUE's p carry on.
    fn reconfigure(&mut self, next: Box<dyn Aqm>) -> bool {
        super::reconfigure_from(next, |next: Box<Cobalt>| {
            self.cfg = next.cfg;
            self.target = next.target;
            self.interval = next.interval;
            self.mtu_time = next.mtu_time;
            self.blue.cfg = next.blue.cfg;
        })
    }

    fn state(&self, out: &mut StateSink) {
        out("p", self.blue.p);
        out("qdelay_ms", time::to_secs_f64(self.ldelay) * 1e3);
        out("dropping", self.dropping as u8 as f64);
        out("dropping_signals", self.count as f64);
        out("drop_next_s", time::to_secs_f64(self.drop_next));
        out("target_delay_ms", time::to_secs_f64(self.target) * 1e3);
    }
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let cfg: CobaltParams = p.parse()?;
    p.require(cfg.interval.0 > 0, "interval", || "must be > 0".into())?;
    // `reciprocal_scale` takes the interval as a u32 of nanoseconds.
    p.require(cfg.interval.0 <= u32::MAX as u64, "interval", || {
        format!(
            "must be at most 4.294967295 s (CAKE scales it in 32 bits of ns), got {} s",
            cfg.interval.secs()
        )
    })?;
    p.in_range("increment", cfg.increment, 0.0, 1.0)?;
    p.in_range("decrement", cfg.decrement, 0.0, 1.0)?;
    p.require(cfg.mtu > 0, "mtu", || "must be > 0".into())?;
    let q = Cobalt::new(cfg, env.link_rate_bps);
    p.require(q.interval <= u32::MAX as u64, "interval", || {
        "with rate_adjust the interval grows past 4.29 s at this link rate".into()
    })?;
    Ok(Box::new(q))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_rig;
    use crate::net::PacketKind;

    const MS: Time = 1_000_000;

    fn cobalt(init: InitialInvSqrt) -> Cobalt {
        Cobalt::new(
            CobaltParams {
                ecn: false,
                rate_adjust: false,
                initial_inv_sqrt: init,
                ..Default::default()
            },
            10_000_000,
        )
    }

    /// sch_cake.c: "both the '0' and '1' entries in the invsqrt cache are 0xFFFFFFFF"; the
    /// others are four Newton steps from the previous entry, which is what Linux stores: close
    /// to count^-1/2, not exact (count 2: 0.70671 instead of 0.70711).
    #[test]
    fn inverse_square_root_table_and_newton_step() {
        let cache = inv_sqrt_cache();
        assert_eq!(cache[0], u32::MAX);
        assert_eq!(cache[1], u32::MAX);
        for (n, &v) in cache.iter().enumerate().skip(2) {
            let exact = 1.0 / (n as f64).sqrt();
            let got = v as f64 / 4_294_967_296.0;
            assert!((got - exact).abs() < 1e-3, "count {n}: {got} vs {exact}");
        }
        let two = cache[2] as f64 / 4_294_967_296.0;
        assert!((two - 0.706_708_47).abs() < 1e-8, "{two}");
        // Above the table one step from the neighbour's value stays close (count 16 from 15).
        let v = newton_step(cache[15], 16) as f64 / 4_294_967_296.0;
        assert!((v - 0.25).abs() < 1e-3, "{v}");
        // control(t) with rec_inv_sqrt ~1: t + interval - 1 ns (truncation of x * (2^32-1) / 2^32).
        assert_eq!(scaled(100 * MS, u32::MAX), 100 * MS - 1);
    }

    /// The dequeue times at which COBALT's CoDel drops, a queue whose packets are all 10 ms old
    /// served once per ms (ns-3's initial rec_inv_sqrt ~1). A calm packet at 10 ms arms the
    /// activity timeout (drop_next = 110 ms); at 11 ms the queue is over target: drop_next =
    /// 11 ms + 99.999999 ms; the first drop is at the first dequeue at or after it, 111 ms;
    /// then count 2, 3, 4, 5 and drop_next += 100 ms x rec_inv_sqrt(count), *after* the
    /// increment: + 70.67, 57.73, 49.99, 44.72 ms (the table's values) -> 181.67, 239.40,
    /// 289.40, 334.12 ms, dropped at the next whole ms. RFC 8289 CoDel's second drop comes a
    /// whole interval after the first (aqm/codel.rs's test: 112, 212, 283 ms).
    #[test]
    fn codel_part_drops_an_interval_after_going_over_target_then_at_interval_over_sqrt_count() {
        let mut c = cobalt(InitialInvSqrt::Ns3);
        let mut rng = test_rig::rng();
        assert_eq!(
            c.should_drop(10 * MS, 10 * MS, false, false, &mut rng),
            DepartureVerdict::Send
        );
        assert_eq!(c.drop_next, 110 * MS);
        let mut drops = vec![];
        for t in 11..=340u64 {
            if c.should_drop(t * MS, t * MS - 10 * MS, false, false, &mut rng)
                == DepartureVerdict::Drop
            {
                drops.push(t);
            }
            if t == 11 {
                assert!(c.dropping);
                assert_eq!((c.count, c.drop_next), (1, 111 * MS - 1));
            }
        }
        let cache = inv_sqrt_cache();
        let mut next = 111 * MS - 1;
        let mut expected = vec![111];
        for &rec_inv_sqrt in &cache[2..=5] {
            next += scaled(100 * MS, rec_inv_sqrt);
            expected.push(next.div_ceil(MS));
        }
        assert_eq!(expected, vec![111, 182, 240, 290, 335]);
        assert_eq!(drops, expected);
        assert_eq!(c.count, 6);
    }

    /// Linux's zeroed state (rec_inv_sqrt 0): the first episode sets drop_next = now and
    /// signals at the very next over-target dequeue.
    #[test]
    fn linux_initial_state_signals_at_once_in_the_first_episode() {
        let mut c = cobalt(InitialInvSqrt::Linux);
        let mut rng = test_rig::rng();
        c.should_drop(0, 0, false, false, &mut rng);
        assert_eq!(
            c.should_drop(10 * MS, 0, false, false, &mut rng),
            DepartureVerdict::Send
        );
        assert_eq!(c.drop_next, 10 * MS);
        assert_eq!(
            c.should_drop(11 * MS, 0, false, false, &mut rng),
            DepartureVerdict::Drop
        );
        // count 2 loads the table: from here on the schedule is interval / sqrt(count).
        assert_eq!(c.count, 2);
        assert_eq!(c.drop_next, 10 * MS + scaled(100 * MS, inv_sqrt_cache()[2]));
    }

    /// Out of the dropping state the count decays by one per elapsed control interval instead
    /// of being reset (RFC 8289 resets to 1 or to count - lastcount on re-entry).
    #[test]
    fn count_decays_one_step_per_interval() {
        let mut c = cobalt(InitialInvSqrt::Ns3);
        let mut rng = test_rig::rng();
        let cache = inv_sqrt_cache();
        c.count = 5;
        c.rec_inv_sqrt = cache[5];
        c.dropping = true;
        c.drop_next = 1_000 * MS;
        // A packet under target at 1060 ms: leave dropping; next_due (1060 >= 1000): count 4,
        // drop_next = 1000 + 100/sqrt(4) = 1050 ms, still due: count 3, drop_next += 100 /
        // sqrt(3) = 1107.7 ms, not due: stop with count 3.
        assert_eq!(
            c.should_drop(1_060 * MS, 1_059 * MS, false, false, &mut rng),
            DepartureVerdict::Send
        );
        assert!(!c.dropping);
        assert_eq!(c.count, 3);
        let expected = 1_000 * MS + scaled(100 * MS, cache[4]) + scaled(100 * MS, cache[3]);
        assert_eq!(c.drop_next, expected);
        // queue_empty decays once more when drop_next has passed.
        c.queue_empty(1_200 * MS);
        assert_eq!(c.count, 2);
    }

    /// BLUE: +1/256 per overflow at most once per target (5 ms), -1/4096 when the queue is
    /// found empty, same freeze; an empty queue with p = 0 does not touch the clock.
    #[test]
    fn blue_rises_on_overflow_and_decays_on_empty() {
        let mut c = cobalt(InitialInvSqrt::Ns3);
        c.queue_empty(10 * MS); // p = 0: no change, clock untouched
        c.queue_full(12 * MS);
        assert_eq!(c.blue.p, 1.0 / 256.0);
        assert!(c.dropping);
        assert_eq!((c.count, c.drop_next), (1, 12 * MS));
        c.queue_full(17 * MS); // 5 ms later: not more than target, frozen
        assert_eq!(c.blue.p, 1.0 / 256.0);
        c.queue_full(17 * MS + 1);
        assert_eq!(c.blue.p, 2.0 / 256.0);
        c.queue_empty(20 * MS); // frozen
        assert_eq!(c.blue.p, 2.0 / 256.0);
        assert!(!c.dropping);
        c.queue_empty(23 * MS);
        assert_eq!(c.blue.p, 2.0 / 256.0 - 1.0 / 4096.0);
        // 31 decrements later it is at 0 and stays there.
        for k in 0..40u64 {
            c.queue_empty(30 * MS + k * 6 * MS);
        }
        assert_eq!(c.blue.p, 0.0);
    }

    /// `queue_empty = "never"` (CAKE with one queue): after an overflow at 12 ms raised p to
    /// 1/256, the link finding the queue empty at 23 ms and at 1 s changes nothing, where
    /// "link_idle" lowers p by 1/4096 at 23 ms (more than target after the rise) and leaves
    /// the dropping state.
    #[test]
    fn queue_empty_never_keeps_blues_p_after_an_overflow() {
        let run = |queue_empty| {
            let mut c = Cobalt::new(
                CobaltParams {
                    queue_empty,
                    ..Default::default()
                },
                10_000_000,
            );
            c.queue_full(12 * MS);
            Aqm::on_link_idle(&mut c, 23 * MS);
            let after_first = (c.blue.p, c.dropping);
            Aqm::on_link_idle(&mut c, 1_000 * MS);
            (after_first, c.blue.p)
        };
        assert_eq!(run(QueueEmpty::Never), ((1.0 / 256.0, true), 1.0 / 256.0));
        assert_eq!(
            run(QueueEmpty::LinkIdle),
            (
                (1.0 / 256.0 - 1.0 / 4096.0, false),
                1.0 / 256.0 - 2.0 / 4096.0
            )
        );
    }

    /// CoDel's signal marks an ECT packet with ECN on; BLUE drops whatever the codepoint.
    #[test]
    fn codel_marks_blue_drops() {
        let mut c = Cobalt::new(
            CobaltParams {
                initial_inv_sqrt: InitialInvSqrt::Linux,
                ..Default::default()
            },
            10_000_000,
        );
        let mut rng = test_rig::rng();
        c.should_drop(10 * MS, 0, true, false, &mut rng);
        assert_eq!(
            c.should_drop(11 * MS, 0, true, false, &mut rng),
            DepartureVerdict::Mark
        );
        c.blue.p = 1.0;
        assert_eq!(
            c.should_drop(12 * MS, 12 * MS, true, false, &mut rng),
            DepartureVerdict::Drop
        );
    }

    /// A sparse flow after an overload (sch_cake.c `cake_dequeue`: "Last packet in queue may
    /// be marked, shouldn't be dropped"). 256 overflows 6 ms apart (each more than target = 5
    /// ms after the last change of p) raise BLUE's p by 1/256 each: p = 256/256 = 1, so every
    /// dequeued packet gets a drop decision. Then, at 2000, 2100 and 2200 ms, a packet alone
    /// in the queue (none behind it once dequeued), sojourn 0: Linux sends all three
    /// (`!flow->head`), the old reading drops all three. At 2300 ms a packet with one behind
    /// it is dropped under both. The state moves as for a drop either way (`cobalt_should_drop`
    /// decided before the exemption): the same count and drop_next under both.
    #[test]
    fn the_last_packet_of_the_queue_is_sent_not_dropped() {
        let run = |last_packet| {
            let mut c = Cobalt::new(
                CobaltParams {
                    last_packet,
                    ..Default::default()
                },
                10_000_000,
            );
            let mut rng = test_rig::rng();
            for k in 1..=256u64 {
                c.queue_full(k * 6 * MS);
            }
            assert_eq!(c.blue.p, 1.0);
            let mut pkt = test_rig::packet(PacketKind::Udp);
            let mut verdicts = vec![];
            for (t, behind) in [(2_000, 0), (2_100, 0), (2_200, 0), (2_300, 1)] {
                pkt.enqueued_at = t * MS;
                let q = test_rig::view(t * MS, behind, 100);
                verdicts.push(c.on_departure(&q, &pkt, &mut rng));
            }
            (verdicts, c.count, c.drop_next)
        };
        use DepartureVerdict::{Drop, Send};
        let (linux, count, drop_next) = run(LastPacket::Send);
        assert_eq!(linux, vec![Send, Send, Send, Drop]);
        let (old, old_count, old_drop_next) = run(LastPacket::Drop);
        assert_eq!(old, vec![Drop, Drop, Drop, Drop]);
        assert_eq!((count, drop_next), (old_count, old_drop_next));
    }

    /// CoDel's signal on an ECT packet that is the last in the queue while BLUE also says drop:
    /// `cobalt_should_drop` has already set CE (`INET_ECN_set_ce`), so `cake_dequeue` sends it
    /// marked; with a packet behind it, it is dropped.
    #[test]
    fn the_last_packet_keeps_codels_mark() {
        for (behind, want) in [(0, DepartureVerdict::Mark), (1, DepartureVerdict::Drop)] {
            let mut c = Cobalt::new(CobaltParams::default(), 10_000_000);
            let mut rng = test_rig::rng();
            c.should_drop(10 * MS, 0, true, false, &mut rng);
            c.blue.p = 1.0;
            // 11 ms, sojourn 11 ms > target, drop_next = 10 ms due: CoDel marks.
            assert_eq!(c.should_drop(11 * MS, 0, true, behind == 0, &mut rng), want);
        }
    }

    #[test]
    fn overflow_drops_the_head_or_the_arrival() {
        let mut rng = test_rig::rng();
        let pkt = test_rig::packet(PacketKind::Udp);
        let mut c = Cobalt::new(CobaltParams::default(), 10_000_000);
        let full = test_rig::view(10 * MS, 5, 5);
        assert_eq!(
            c.on_arrival(&full, &pkt, &mut rng),
            ArrivalVerdict::DropFront(DropKind::Forced)
        );
        assert_eq!(c.blue.p, 1.0 / 256.0);
        let mut c = Cobalt::new(
            CobaltParams {
                overflow: Overflow::Tail,
                ..Default::default()
            },
            10_000_000,
        );
        assert_eq!(
            c.on_arrival(&full, &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
        assert_eq!(
            c.on_arrival(&test_rig::view(10 * MS, 4, 5), &pkt, &mut rng),
            ArrivalVerdict::Enqueue
        );
    }

    /// `cake_set_rate` at 1 Mb/s: mtu_time = 1514 B x 8 / 1 Mb/s = 12.112 ms; target =
    /// max(1.5 x 12.112, 5) = 18.168 ms; interval = max(100 + 18.168 - 5, 2 x 18.168) =
    /// 113.168 ms. At 10 Mb/s (mtu_time 1.2112 ms) nothing changes.
    #[test]
    fn rate_adjust_raises_target_and_interval_on_slow_links() {
        let c = Cobalt::new(CobaltParams::default(), 1_000_000);
        assert_eq!(c.mtu_time, 12_112_000);
        assert_eq!(c.target, 18_168_000);
        assert_eq!(c.interval, 113_168_000);
        let c = Cobalt::new(CobaltParams::default(), 10_000_000);
        assert_eq!(
            (c.target, c.interval, c.mtu_time),
            (5 * MS, 100 * MS, 1_211_200)
        );
    }

    #[test]
    fn invalid_parameters_name_the_field() {
        let env = test_rig::env(100);
        for (bad, field) in [
            (serde_json::json!({"interval": 0}), "q.aqm.interval"),
            (serde_json::json!({"interval": "5s"}), "q.aqm.interval"),
            (serde_json::json!({"increment": 2}), "q.aqm.increment"),
            (serde_json::json!({"decrement": -1}), "q.aqm.decrement"),
            (serde_json::json!({"mtu": 0}), "q.aqm.mtu"),
        ] {
            let e = build(&AqmParams::new(bad, "q.aqm"), &env).err().unwrap();
            assert_eq!(e.path, field, "{e}");
        }
        let e = build(
            &AqmParams::new(serde_json::json!({"last_packet": "keep"}), "q.aqm"),
            &env,
        )
        .err()
        .unwrap();
        assert!(e.path.contains("last_packet"), "{e}");
        let e = build(
            &AqmParams::new(serde_json::json!({"overflow": "middle"}), "q.aqm"),
            &env,
        )
        .err()
        .unwrap();
        assert!(e.path.contains("overflow"), "{e}");
    }
}
