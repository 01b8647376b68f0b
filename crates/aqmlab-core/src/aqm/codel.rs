//! CoDel: controlled delay.
//!
//! Sources: RFC 8289 (K. Nichols, V. Jacobson, A. McGregor, J. Iyengar, 2018), section 5
//! pseudocode; Linux `include/net/codel_impl.h` (`codel_should_drop`, `codel_dequeue`),
//! whose structure this follows step by step.
//!
//! At dequeue, with sojourn = now - enqueued_at of the head packet and backlog the bytes still
//! queued after it left:
//! - should_drop: sojourn < target or backlog <= mtu resets first_above_time; otherwise the
//!   first such packet sets first_above_time = now + interval, and a packet after that time
//!   says "ok to drop".
//! - dropping state: leave it when should_drop is false; while now >= drop_next: count += 1,
//!   drop (or CE-mark, which ends the loop) and schedule drop_next = control_law(drop_next),
//!   control_law(t) = t + interval / sqrt(count).
//! - not dropping, should_drop: drop (or mark) this packet, enter dropping; count = count -
//!   lastcount if that is > 1 and now - drop_next < 16 interval (recently dropping), else 1;
//!   lastcount = count; drop_next = control_law(now).
//! - Arrival: forced (tail) drop if the buffer is full; CoDel itself never drops at enqueue.
//!
//! Where sources differ: RFC 8289's pseudocode divides by the exact sqrt(count); Linux keeps
//! 1/sqrt(count) as a 16-bit fixed-point value (`codel_vars.rec_inv_sqrt`) and moves it by one
//! Newton step (`codel_Newton_step`) each time count changes, which is exact to a few parts in
//! 10^4 while count moves by one, but not when it jumps: re-entering the dropping state with
//! count = count - lastcount takes one step from the old value, and FQ-CoDel's overflow adds
//! the packets it dropped to count without any step (`fq_codel_drop`). When count times the
//! old value squared exceeds 3 the step's u64 arithmetic wraps and the result is a truncated
//! remainder, not an approximation. `inv_sqrt` names the two: `"exact"` (the default, RFC
//! 8289) and `"linux"` (the kernel's arithmetic bit for bit, `codel_control_law`'s
//! `reciprocal_scale` on the interval in the kernel's 1024 ns units). Linux's "backlog" is the
//! qdisc's bytes after the dequeue; RFC 8289 compares the same quantity with maxpacket, and
//! aqmlab uses the configured `mtu` (Linux's default, the device MTU + header = 1514).
//!
//! Parameters:
//! - `target` (5 ms, time): acceptable standing sojourn time
//! - `interval` (100 ms, time): window over which sojourn must stay above target
//! - `mtu` (1514, bytes): no drop while the backlog is at most this
//! - `ecn` (false, bool): CE-mark ECT packets instead of dropping (Linux sch_codel default
//!   off)
//! - `inv_sqrt` ("exact"): how 1/sqrt(count) is computed, "exact" (RFC 8289) or "linux"
//!   (include/net/codel_impl.h, `codel_Newton_step`; see above)
//! - `clock_at_start` (0 s): the discipline's clock when the run starts. drop_next starts at 0
//!   on that clock (RFC 8289's pseudocode, Linux's `codel_vars_init`), so the first entry
//!   into the dropping state counts as "recently dropping" (count = count - lastcount, which
//!   FQ-CoDel's overflows may have raised) only while that clock is below 16 intervals.
//!   Linux's clock counts from boot: a router up for minutes never sees it; the reference
//!   kernel's flows start 1 s after its boot (docs/kernel-reference.md), so the first 0.6 s
//!   of a run do.

use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::{Aqm, ArrivalVerdict, DepartureVerdict, DropKind, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{time, RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "target",
        default: "5ms",
        unit: "s",
        meaning: "acceptable standing queue delay",
        // RFC 8289: 5 ms.
        plausible: Some(super::params::Plausible::new(1e-5, 0.5)),
    },
    ParamDoc {
        name: "interval",
        default: "100ms",
        unit: "s",
        meaning: "sliding window; drop spacing starts here",
        // RFC 8289: 100 ms, of the order of a worst-case RTT.
        plausible: Some(super::params::Plausible::new(1e-3, 2.0)),
    },
    ParamDoc {
        name: "mtu",
        default: "1514",
        unit: "bytes",
        meaning: "no drop while the backlog is at most one MTU",
        plausible: None,
    },
    ParamDoc {
        name: "ecn",
        default: "false",
        unit: "bool",
        meaning: "CE-mark ECT packets instead of dropping",
        plausible: None,
    },
    INV_SQRT_DOC,
    CLOCK_AT_START_DOC,
];

/// `clock_at_start`, shared with FQ-CoDel.
pub const CLOCK_AT_START_DOC: ParamDoc = ParamDoc {
    name: "clock_at_start",
    default: "0s",
    unit: "s",
    meaning: "the discipline's clock when the run starts (its first drop_next is 0 on it)",
    // From a run that starts the clock (0) to a router up for years.
    plausible: Some(super::params::Plausible::new(0.0, 1e8)),
};

/// `inv_sqrt`, shared with FQ-CoDel.
pub const INV_SQRT_DOC: ParamDoc = ParamDoc {
    name: "inv_sqrt",
    default: "exact",
    unit: "exact | linux",
    meaning: "1/sqrt(count) exact (RFC 8289) or by Linux's fixed-point Newton steps",
    plausible: None,
};

/// How the control law's 1/sqrt(count) is computed (module docs, "Where sources differ").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InvSqrt {
    /// RFC 8289's pseudocode: interval / sqrt(count) in floating point.
    #[default]
    Exact,
    /// Linux's `rec_inv_sqrt`: Q0.16, one `codel_Newton_step` per change of count.
    Linux,
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodelParams {
    pub target: Duration,
    pub interval: Duration,
    pub mtu: u32,
    pub ecn: bool,
    pub inv_sqrt: InvSqrt,
    pub clock_at_start: Duration,
}

impl Default for CodelParams {
    fn default() -> Self {
        CodelParams {
            target: Duration(5_000_000),
            interval: Duration(100_000_000),
            mtu: 1514,
            ecn: false,
            inv_sqrt: InvSqrt::Exact,
            clock_at_start: Duration(0),
        }
    }
}

impl CodelParams {
    pub fn validate(&self, p: &AqmParams) -> Result<(), ScenarioError> {
        p.require(self.interval.0 > 0, "interval", || "must be > 0".into())?;
        p.require(self.mtu > 0, "mtu", || "must be > 0".into())
    }
}

/// Where the state machine is inside Linux's `codel_dequeue` when it asked for the next
/// packet after a drop (the dequeue loop calls back once per packet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Pending {
    #[default]
    None,
    /// Dropped in the dropping-state loop; the next packet continues the loop.
    Loop,
    /// Dropped on entering the dropping state; the next packet is sent.
    Entry,
}

/// One queue's CoDel state (Linux `struct codel_vars`); FQ-CoDel keeps one per flow.
#[derive(Debug, Clone, Default)]
pub struct CodelVars {
    pub count: u32,
    pub lastcount: u32,
    pub dropping: bool,
    pub first_above_time: Option<Time>,
    pub drop_next: Time,
    /// Sojourn time of the last packet examined.
    pub ldelay: Time,
    /// Linux's 1/sqrt(count) in Q0.16 (`inv_sqrt = "linux"` only); 0 at start, as
    /// `codel_vars_init` leaves it.
    pub rec_inv_sqrt: u16,
    pending: Pending,
}

/// Linux `codel_Newton_step` (include/net/codel_impl.h), its wrapping arithmetic kept:
/// new = old * (3 - count * old^2) / 2, in Q0.32 and truncated to Q0.16.
pub fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = (rec_inv_sqrt as u32) << 16;
    let invsqrt2 = ((invsqrt as u64 * invsqrt as u64) >> 32) as u32;
    let val = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2 as u64) >> 2;
    let val = val.wrapping_mul(invsqrt as u64) >> (32 - 2 + 1);
    (val >> 16) as u16
}

/// The kernel's unit of CoDel time (`CODEL_SHIFT` = 10: 1024 ns).
const CODEL_TIME_SHIFT: u32 = 10;

impl CodelVars {
    /// drop_next after `t`: RFC 8289's t + interval / sqrt(count), or Linux's
    /// `codel_control_law` (`reciprocal_scale(interval, rec_inv_sqrt << 16)` in 1024 ns units).
    fn control_law(&self, cfg: &CodelParams, t: Time) -> Time {
        let interval = cfg.interval.0;
        match cfg.inv_sqrt {
            InvSqrt::Exact => t + (interval as f64 / (self.count.max(1) as f64).sqrt()) as Time,
            InvSqrt::Linux => {
                let interval_ct = (interval >> CODEL_TIME_SHIFT) as u32 as u64;
                let step_ct = (interval_ct * ((self.rec_inv_sqrt as u64) << 16)) >> 32;
                t + (step_ct << CODEL_TIME_SHIFT)
            }
        }
    }

    /// count moved (Linux calls `codel_Newton_step` after each `count++` and after
    /// `count = delta`).
    fn after_count_change(&mut self, cfg: &CodelParams) {
        if cfg.inv_sqrt == InvSqrt::Linux {
            self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
        }
    }

    fn should_drop(&mut self, cfg: &CodelParams, now: Time, sojourn: Time, backlog: u64) -> bool {
        self.ldelay = sojourn;
        if sojourn < cfg.target.0 || backlog <= cfg.mtu as u64 {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + cfg.interval.0);
                false
            }
            Some(t) => now > t,
        }
    }

    /// The queue found no packet to dequeue (Linux: `codel_dequeue` with an empty queue).
    pub fn on_empty(&mut self) {
        self.dropping = false;
        self.pending = Pending::None;
    }

    /// One step of the dropping loop, entered with dropping && now >= drop_next.
    fn drop_step(&mut self, cfg: &CodelParams, ect: bool, more: bool) -> DepartureVerdict {
        self.count = self.count.wrapping_add(1);
        self.after_count_change(cfg);
        if cfg.ecn && ect {
            self.drop_next = self.control_law(cfg, self.drop_next);
            return DepartureVerdict::Mark;
        }
        if more {
            self.pending = Pending::Loop;
        } else {
            // Linux dequeues NULL next: should_drop(NULL) clears first_above_time and the
            // loop leaves the dropping state.
            self.first_above_time = None;
            self.dropping = false;
        }
        DepartureVerdict::Drop
    }

    /// Decides about the packet at the head, just removed from its queue. `backlog` is the
    /// bytes still queued (Linux passes the qdisc backlog after the dequeue); `more` says
    /// whether another packet follows in this queue. A `Drop` answer must be followed, at the
    /// same `now`, by a call for the next packet of the same queue if `more` was true.
    pub fn on_dequeue(
        &mut self,
        cfg: &CodelParams,
        now: Time,
        enqueued_at: Time,
        ect: bool,
        backlog: u64,
        more: bool,
    ) -> DepartureVerdict {
        let drop = self.should_drop(cfg, now, now.saturating_sub(enqueued_at), backlog);
        match std::mem::take(&mut self.pending) {
            Pending::Entry => return DepartureVerdict::Send,
            Pending::Loop => {
                if !drop {
                    self.dropping = false;
                    return DepartureVerdict::Send;
                }
                self.drop_next = self.control_law(cfg, self.drop_next);
                if now >= self.drop_next {
                    return self.drop_step(cfg, ect, more);
                }
                return DepartureVerdict::Send;
            }
            Pending::None => {}
        }
        if self.dropping {
            if !drop {
                self.dropping = false;
                DepartureVerdict::Send
            } else if now >= self.drop_next {
                self.drop_step(cfg, ect, more)
            } else {
                DepartureVerdict::Send
            }
        } else if drop {
            let verdict = if cfg.ecn && ect {
                DepartureVerdict::Mark
            } else {
                if more {
                    self.pending = Pending::Entry;
                } else {
                    self.first_above_time = None;
                }
                DepartureVerdict::Drop
            };
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            // A state that never dropped has drop_next = 0 on the discipline's own clock, which
            // read `clock_at_start` when the run started (Linux's counts from boot).
            let drop_next = if self.lastcount == 0 {
                -(cfg.clock_at_start.0 as i128)
            } else {
                self.drop_next as i128
            };
            let since = now as i128 - drop_next;
            if delta > 1 && since < 16 * cfg.interval.0 as i128 {
                self.count = delta;
                self.after_count_change(cfg);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = u16::MAX;
            }
            self.lastcount = self.count;
            self.drop_next = self.control_law(cfg, now);
            verdict
        } else {
            DepartureVerdict::Send
        }
    }

    pub fn report(&self, out: &mut StateSink) {
        out("qdelay_ms", time::to_secs_f64(self.ldelay) * 1e3);
        out("dropping", self.dropping as u8 as f64);
        out("dropping_signals", self.count as f64);
        out("drop_next_s", time::to_secs_f64(self.drop_next));
    }
}

#[derive(Debug, Clone)]
pub struct Codel {
    pub cfg: CodelParams,
    pub vars: CodelVars,
}

impl Codel {
    pub fn new(cfg: CodelParams) -> Self {
        Codel {
            cfg,
            vars: CodelVars::default(),
        }
    }
}

impl Aqm for Codel {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, _rng: &mut RngStream) -> ArrivalVerdict {
        if q.is_full_for(pkt.size) {
            ArrivalVerdict::Drop(DropKind::Forced)
        } else {
            ArrivalVerdict::Enqueue
        }
    }

    fn on_departure(
        &mut self,
        q: &QueueView,
        pkt: &Packet,
        _rng: &mut RngStream,
    ) -> DepartureVerdict {
        self.vars.on_dequeue(
            &self.cfg,
            q.now,
            pkt.enqueued_at,
            pkt.ecn.ect,
            q.len_bytes,
            q.len_packets > 0,
        )
    }

    fn on_link_idle(&mut self, _now: Time) {
        self.vars.on_empty();
    }

    /// Target and interval change; the dropping state carries on.
    fn reconfigure(&mut self, next: Box<dyn Aqm>) -> bool {
        super::reconfigure_from(next, |next: Box<Codel>| self.cfg = next.cfg)
    }

    fn state(&self, out: &mut StateSink) {
        self.vars.report(out);
        out("target_delay_ms", self.cfg.target.secs() * 1e3);
    }
}

pub fn build(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let cfg: CodelParams = p.parse()?;
    cfg.validate(p)?;
    Ok(Box::new(Codel::new(cfg)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_rig::QueueRig;
    use crate::aqm::{FifoQueue, QueueLimit};
    use crate::net::{PacketId, PacketKind};

    const MS: Time = 1_000_000;

    type Rig = QueueRig<FifoQueue>;

    fn rig(cfg: CodelParams) -> Rig {
        QueueRig::new(FifoQueue::new(
            Box::new(Codel::new(cfg)),
            QueueLimit::Packets(1000),
            10_000_000,
        ))
    }

    fn enqueue(r: &mut Rig, now: Time, ect: bool) -> PacketId {
        let mut p = crate::aqm::test_rig::packet(PacketKind::TcpData);
        p.ecn.ect = ect;
        r.enqueue(now, p)
    }

    /// A queue that always holds many old packets (sojourn far above target) and is served
    /// once per millisecond: the times of CoDel's drops follow the control law.
    #[test]
    fn drop_schedule_follows_interval_over_sqrt_count() {
        let (drop_times, early_drops) =
            drops_of_an_old_queue_served_each_ms(CodelParams::default());
        // First dequeue at 11 ms: sojourn 11 ms > 5 ms, first_above_time = 111 ms. The first
        // drop is at the first dequeue after that: 112 ms (strict '>'); count = 1.
        // Then drop_next = t0 + 100/sqrt(1) = 212 ms; next at t1 + 100/sqrt(2) = 282.71 ms
        // (served at 283 ms); then 282.71 + 100/sqrt(3) = 340.45 -> 341 ms; then
        // 340.45 + 50 = 390.45 -> 391 ms; the next, 435.17 ms, is after the last dequeue.
        let t0 = 112.0;
        let mut expected = vec![t0];
        let mut next = t0;
        for count in 1..=4 {
            next += 100.0 / (count as f64).sqrt();
            expected.push(next.ceil());
        }
        let got: Vec<f64> = drop_times.iter().map(|&t| t as f64).collect();
        assert_eq!(got, expected);
        assert_eq!(expected, vec![112.0, 212.0, 283.0, 341.0, 391.0]);
        assert_eq!(early_drops, 5);
    }

    /// 400 packets queued at 0, then one arrival and one dequeue each millisecond from 11 to
    /// 410 ms: the milliseconds at which a packet was dropped (one per dequeue at most), and
    /// the early drops counted.
    fn drops_of_an_old_queue_served_each_ms(cfg: CodelParams) -> (Vec<u64>, u64) {
        let mut r = rig(cfg);
        for _ in 0..400 {
            enqueue(&mut r, 0, false);
        }
        let mut drop_times = Vec::new();
        for t in 1..=400u64 {
            let now = 10 * MS + t * MS;
            let before = r.dropped.len();
            enqueue(&mut r, now, false);
            r.dequeue(now);
            if r.dropped.len() > before {
                assert_eq!(r.dropped.len() - before, 1, "one drop per dequeue here");
                drop_times.push(now / MS);
            }
        }
        (drop_times, r.stats.early_drops)
    }

    /// The same queue with Linux's reciprocal: count 1 starts from 0xFFFF (interval x
    /// 65535/65536 = 99.997696 ms in the kernel's 1024 ns units), count 2 from one Newton step,
    /// 1 x (3 - 2 x 1) / 2 = 0.5 (32769 in Q0.16, not 1/sqrt(2) = 0.7071), then 36864
    /// (0.5625), 31968 (0.4878). drop_next: 112 + 99.997696 = 211.997696 ms, + 50.000896 =
    /// 261.998592, + 56.249344 = 318.247936, + 48.779... = 367.03: served at the next whole
    /// millisecond.
    #[test]
    fn linux_inv_sqrt_schedules_drops_by_the_kernels_newton_steps() {
        let (drop_times, _) = drops_of_an_old_queue_served_each_ms(CodelParams {
            inv_sqrt: InvSqrt::Linux,
            ..CodelParams::default()
        });
        assert_eq!(drop_times, vec![112, 212, 262, 319, 368]);
        let steps: Vec<u16> = (2..=4)
            .scan(u16::MAX, |r, c| {
                *r = newton_step(*r, c);
                Some(*r)
            })
            .collect();
        assert_eq!(steps, vec![32769, 36864, 31968]);
    }

    /// A state that never dropped, count 52 from FQ-CoDel's overflows, at 0.5 s of the run:
    /// with the clock starting at the run, drop_next = 0 was 0.5 s ago (recent: count 52);
    /// with the clock at 1.2 s at the start (1.7 s now, more than 16 x 100 ms), count 1.
    #[test]
    fn a_state_that_never_dropped_is_recent_only_early_on_its_clock() {
        let fresh = || CodelVars {
            count: 52,
            first_above_time: Some(400 * MS),
            ..CodelVars::default()
        };
        let late = CodelParams {
            inv_sqrt: InvSqrt::Linux,
            clock_at_start: Duration(1_200 * MS),
            ..CodelParams::default()
        };
        let mut v = fresh();
        v.on_dequeue(&late, 500 * MS, 0, false, 100_000, false);
        assert_eq!((v.count, v.lastcount, v.rec_inv_sqrt), (1, 1, u16::MAX));
        let mut e = fresh();
        e.on_dequeue(&CodelParams::default(), 500 * MS, 0, false, 100_000, false);
        assert_eq!((e.count, e.lastcount), (52, 52));
    }

    /// Re-entering the dropping state with count - lastcount = 51 from 1/sqrt(1): 3 - 51 x 1
    /// is negative, the kernel's u64 subtraction wraps and the truncated result is 74 (0.0011,
    /// where 1/sqrt(51) = 0.14): the next drop follows 0.11 ms later, not 14 ms. This is how
    /// FQ-CoDel's overflow (`count += dropped`, no step) makes Linux's drops come fast.
    #[test]
    fn linux_inv_sqrt_wraps_when_count_jumps() {
        let cfg = CodelParams {
            inv_sqrt: InvSqrt::Linux,
            ..CodelParams::default()
        };
        let mut v = CodelVars {
            count: 52,
            lastcount: 1,
            rec_inv_sqrt: u16::MAX,
            drop_next: 1000 * MS,
            first_above_time: Some(1000 * MS),
            ..CodelVars::default()
        };
        let now = 1100 * MS;
        assert_eq!(
            v.on_dequeue(&cfg, now, 0, false, 100_000, false),
            DepartureVerdict::Drop
        );
        assert_eq!((v.count, v.rec_inv_sqrt), (51, 74));
        // reciprocal_scale(97656, 74 << 16) = 110 kernel units of 1024 ns.
        assert_eq!(v.drop_next, now + 110 * 1024);
        // The exact reciprocal: 100 ms / sqrt(51).
        let mut e = CodelVars {
            count: 52,
            lastcount: 1,
            drop_next: 1000 * MS,
            first_above_time: Some(1000 * MS),
            ..CodelVars::default()
        };
        e.on_dequeue(&CodelParams::default(), now, 0, false, 100_000, false);
        assert_eq!(e.drop_next, now + (100e6 / 51f64.sqrt()) as Time);
    }

    #[test]
    fn leaves_dropping_when_sojourn_falls_below_target_and_reenters_with_count_delta() {
        let cfg = CodelParams::default();
        let mut v = CodelVars::default();
        let backlog = 100_000;
        // Sojourn 10 ms > target at 10 ms: first_above_time = 110 ms.
        assert_eq!(
            v.on_dequeue(&cfg, 10 * MS, 0, false, backlog, false),
            DepartureVerdict::Send
        );
        assert_eq!(v.first_above_time, Some(110 * MS));
        assert_eq!(
            v.on_dequeue(&cfg, 111 * MS, 0, false, backlog, false),
            DepartureVerdict::Drop
        );
        // The queue was then empty (more = false): first_above_time was cleared.
        assert_eq!(v.first_above_time, None);
        assert!(v.dropping);
        assert_eq!(v.count, 1);
        assert_eq!(v.drop_next, 211 * MS);
        // At drop_next: count 2, drop; the next packet continues the loop and schedules
        // drop_next = 211 + 100/sqrt(2) = 281.710678 ms, which is later: it is sent.
        v.first_above_time = Some(0);
        assert_eq!(
            v.on_dequeue(&cfg, 211 * MS, 0, false, backlog, true),
            DepartureVerdict::Drop
        );
        assert_eq!(v.count, 2);
        assert_eq!(
            v.on_dequeue(&cfg, 211 * MS, 0, false, backlog, true),
            DepartureVerdict::Send
        );
        assert_eq!(v.drop_next, 211 * MS + 70_710_678);
        // Sojourn below target: leave dropping state.
        assert_eq!(
            v.on_dequeue(&cfg, 220 * MS, 219 * MS, false, backlog, true),
            DepartureVerdict::Send
        );
        assert!(!v.dropping);
        // Re-entry soon after: count - lastcount = 2 - 1 = 1 is not > 1 -> count = 1.
        v.first_above_time = Some(0);
        assert_eq!(
            v.on_dequeue(&cfg, 230 * MS, 0, false, backlog, false),
            DepartureVerdict::Drop
        );
        assert_eq!(v.count, 1);
        assert_eq!(v.drop_next, 330 * MS);
        // With count 5, lastcount 1 and drop_next recent (300 - 330 < 16*100 ms): count 4.
        v.dropping = false;
        v.count = 5;
        v.lastcount = 1;
        v.first_above_time = Some(0);
        v.on_dequeue(&cfg, 300 * MS, 0, false, backlog, false);
        assert_eq!(v.count, 4);
        // drop_next = 300 + 100/sqrt(4) = 350 ms
        assert_eq!(v.drop_next, 350 * MS);
        // Long after (now - drop_next >= 16 intervals): count = 1.
        v.dropping = false;
        v.count = 9;
        v.lastcount = 4;
        v.first_above_time = Some(0);
        v.on_dequeue(&cfg, 350 * MS + 1600 * MS, 0, false, backlog, false);
        assert_eq!(v.count, 1);
    }

    #[test]
    fn small_backlog_never_drops_and_ecn_marks() {
        let cfg = CodelParams {
            ecn: true,
            ..Default::default()
        };
        let mut v = CodelVars::default();
        // backlog of one MTU: never ok to drop, however old the packet
        v.on_dequeue(&cfg, 0, 0, true, 1514, true);
        assert_eq!(
            v.on_dequeue(&cfg, 500 * MS, 0, true, 1514, true),
            DepartureVerdict::Send
        );
        assert_eq!(v.first_above_time, None);
        v.on_dequeue(&cfg, 500 * MS, 0, true, 1515, true);
        assert_eq!(
            v.on_dequeue(&cfg, 601 * MS, 0, true, 1515, true),
            DepartureVerdict::Mark
        );
        assert!(v.dropping);
        // non-ECT is dropped even with ecn on
        assert_eq!(
            v.on_dequeue(&cfg, 701 * MS, 0, false, 1515, false),
            DepartureVerdict::Drop
        );
    }

    #[test]
    fn invalid_parameters_name_the_field() {
        let env = crate::aqm::test_rig::env(100);
        let p = AqmParams::new(serde_json::json!({"interval": 0}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.interval");
        let p = AqmParams::new(serde_json::json!({"target": "fast"}), "q.aqm");
        assert!(build(&p, &env)
            .err()
            .unwrap()
            .path
            .starts_with("q.aqm.target"));
    }
}
