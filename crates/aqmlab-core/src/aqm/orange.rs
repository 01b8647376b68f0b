//! Orange: a queue threshold plus a virtual "drop server" with exponential service times.
//!
//! Source: Catalkaya & Sis, "Analysis of Orange AQM to find its optimum operating parameters"
//! (seed 000), section 3 and its Fig. 2 pseudo-code; reading in
//! ../shared/specs/seed-algorithms.md.
//!
//! On each arrival, with q the packets waiting (the arrival excluded):
//! - the buffer is full: forced drop;
//! - q > K and the timer is idle: early drop (a CE mark instead if `ecn` is on and the packet
//!   is ECT), and the timer becomes busy for an exponential time of mean T drawn from the
//!   queue's random stream: the "service time" of the drop server;
//! - otherwise enqueue; in particular nothing is dropped early while the timer is busy.
//!
//! The paper says "below the threshold" enqueue and "between the Orange limit and the queue
//! limit" drop; aqmlab takes q > K for the drop region (q = K enqueues). The timer is a state,
//! busy until an instant, checked lazily on arrivals: no events are needed. A very large T
//! makes Orange DropTail after its first early drop.
//!
//! Parameters:
//! - `threshold` (K, packets, 10: the paper's section 4 text; its Table 1 prints 14): >= 0
//! - `timer` (T, mean of the exponential drop-server time, 5 ms; the paper's empirical best
//!   is 20/sqrt(K) ms): > 0
//! - `ecn` (bool, false): mark ECT packets instead of dropping them

use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::{Aqm, ArrivalVerdict, DropKind, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{time, RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

pub const PARAMS: &[ParamDoc] = &[
    doc(
        "threshold",
        "10",
        "packets",
        "K: early drops only while more than K packets wait",
    ),
    // The default, 5 ms, and the paper's empirical best, 20/sqrt(K) ms.
    doc(
        "timer",
        "5ms",
        "s",
        "T: mean of the exponential drop-server time (no early drop while it runs)",
    )
    .with_plausible(1e-5, 1.0),
    super::params::ECN_DOC,
];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct OrangeParams {
    pub threshold: f64,
    pub timer: Duration,
    pub ecn: bool,
}

impl Default for OrangeParams {
    fn default() -> Self {
        OrangeParams {
            threshold: 10.0,
            timer: Duration(5_000_000),
            ecn: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Orange {
    /// K, packets.
    pub threshold: f64,
    /// T, seconds.
    pub mean_timer_s: f64,
    pub ecn: bool,
    /// The drop server is busy until this instant (idle at and after it).
    pub busy_until: Time,
    /// The last drawn service time, seconds (state time series).
    pub last_draw_s: f64,
    /// Early signals (drops or marks) so far.
    pub signals: u64,
    /// Whether the timer was busy when the last packet arrived (the state series has no
    /// clock of its own).
    pub busy_at_last_arrival: bool,
}

impl Orange {
    pub fn new(threshold: f64, mean_timer_s: f64, ecn: bool) -> Self {
        Orange {
            threshold,
            mean_timer_s,
            ecn,
            busy_until: 0,
            last_draw_s: 0.0,
            signals: 0,
            busy_at_last_arrival: false,
        }
    }

    pub fn timer_busy(&self, now: Time) -> bool {
        now < self.busy_until
    }
}

impl Aqm for Orange {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        self.busy_at_last_arrival = self.timer_busy(q.now);
        if q.is_full_for(pkt.size) {
            return ArrivalVerdict::Drop(DropKind::Forced);
        }
        if q.len_packets as f64 > self.threshold && !self.busy_at_last_arrival {
            let draw = rng.exponential(self.mean_timer_s);
            self.last_draw_s = draw;
            // A huge mean may overflow the nanosecond clock: the timer then never expires.
            self.busy_until = q.now.saturating_add(time::from_secs_f64(draw));
            self.signals += 1;
            return ArrivalVerdict::signal(self.ecn, pkt);
        }
        ArrivalVerdict::Enqueue
    }

    fn state(&self, out: &mut StateSink) {
        // The deadline is exact at any sampling instant t (busy iff t < busy_until);
        // timer_busy is as the last arrival saw it.
        out("timer_busy", self.busy_at_last_arrival as u8 as f64);
        out("timer_busy_until_s", time::to_secs_f64(self.busy_until));
        out("timer_last_draw_s", self.last_draw_s);
        out("signals", self.signals as f64);
    }
}

pub fn build(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let o: OrangeParams = p.parse()?;
    p.non_negative("threshold", o.threshold, "packets")?;
    p.require(o.timer.0 > 0, "timer", || {
        "must be > 0 (the mean drop-server time)".into()
    })?;
    Ok(Box::new(Orange::new(o.threshold, o.timer.secs(), o.ecn)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::droptail::DropTail;
    use crate::net::PacketKind;
    use crate::sim::StreamKind;

    const MS: Time = 1_000_000;

    fn view(now: Time, len: u32) -> QueueView {
        crate::aqm::test_rig::view(now, len, 50)
    }

    fn pkt() -> Packet {
        crate::aqm::test_rig::packet(PacketKind::Udp)
    }

    #[test]
    fn timer_gates_early_drops_and_uses_the_queue_stream() {
        let mut o = Orange::new(10.0, 0.005, false);
        let mut rng = RngStream::new(42, StreamKind::Queue, 3);
        // the same draw, computed independently: Exp(mean 5 ms) by inversion
        let mut twin = RngStream::new(42, StreamKind::Queue, 3);
        let first = twin.exponential(0.005);
        let early = ArrivalVerdict::Drop(DropKind::Early);
        // q = 10 = K: not above the threshold
        assert_eq!(
            o.on_arrival(&view(MS, 10), &pkt(), &mut rng),
            ArrivalVerdict::Enqueue
        );
        // q = 11 > K, timer idle: drop and start the timer
        assert_eq!(o.on_arrival(&view(MS, 11), &pkt(), &mut rng), early);
        assert_eq!(o.last_draw_s, first);
        assert_eq!(o.busy_until, MS + time::from_secs_f64(first));
        // while busy: no early drop however long the queue
        let t_end = o.busy_until;
        assert_eq!(
            o.on_arrival(&view(t_end - 1, 40), &pkt(), &mut rng),
            ArrivalVerdict::Enqueue
        );
        assert!(o.busy_at_last_arrival);
        // ...but a full buffer still drops
        assert_eq!(
            o.on_arrival(&view(t_end - 1, 50), &pkt(), &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
        // expired (now = busy_until): drop again, with the next draw of the stream
        let second = twin.exponential(0.005);
        assert_eq!(o.on_arrival(&view(t_end, 12), &pkt(), &mut rng), early);
        assert_eq!(o.last_draw_s, second);
        assert_eq!(o.busy_until, t_end + time::from_secs_f64(second));
        assert_eq!(o.signals, 2);
        // below the threshold after expiry: enqueue, timer untouched
        let t = o.busy_until + MS;
        assert_eq!(
            o.on_arrival(&view(t, 3), &pkt(), &mut rng),
            ArrivalVerdict::Enqueue
        );
        assert!(!o.timer_busy(t));
    }

    #[test]
    fn ecn_marks_ect_packets_and_drops_others() {
        let mut o = Orange::new(0.0, 0.001, true);
        let mut rng = crate::aqm::test_rig::rng();
        let mut ect = crate::aqm::test_rig::packet(PacketKind::TcpData);
        ect.ecn.ect = true;
        assert_eq!(
            o.on_arrival(&view(MS, 1), &ect, &mut rng),
            ArrivalVerdict::Mark
        );
        let t = o.busy_until;
        assert_eq!(
            o.on_arrival(&view(t, 1), &pkt(), &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
    }

    #[test]
    fn huge_timer_acts_like_droptail_after_the_first_early_drop() {
        // T = 1e9 s: the first draw exceeds any run. After the first early drop, every
        // verdict equals DropTail's for the same queue.
        let mut o = Orange::new(5.0, 1e9, false);
        let mut rng = RngStream::new(7, StreamKind::Queue, 0);
        let mut walk = RngStream::new(8, StreamKind::Agent, 0);
        let mut first = None;
        let mut t = 0;
        for i in 0..100_000 {
            t += MS;
            let len = (walk.uniform() * 52.0) as u32; // 0..=51, past the limit of 50
            let v = view(t, len);
            let got = o.on_arrival(&v, &pkt(), &mut rng);
            if first.is_none() {
                if got == ArrivalVerdict::Drop(DropKind::Early) {
                    first = Some(i);
                }
                continue;
            }
            let mut dt_rng = RngStream::new(0, StreamKind::Queue, 0);
            assert_eq!(
                got,
                DropTail.on_arrival(&v, &pkt(), &mut dt_rng),
                "arrival {i}"
            );
        }
        assert!(first.is_some());
        assert_eq!(o.signals, 1);
    }

    #[test]
    fn invalid_parameters_name_the_parameter() {
        let env = crate::aqm::test_rig::env(50);
        for (json, path) in [
            (serde_json::json!({"threshold": -1}), "q.aqm.threshold"),
            (serde_json::json!({"timer": 0}), "q.aqm.timer"),
            (serde_json::json!({"timer": "0ms"}), "q.aqm.timer"),
            (serde_json::json!({"timer": "-5ms"}), "q.aqm.timer"),
        ] {
            let e = build(&AqmParams::new(json.clone(), "q.aqm"), &env)
                .err()
                .unwrap_or_else(|| panic!("{json} must be rejected"));
            assert_eq!(e.path, path, "{e}");
        }
        let o = build(
            &AqmParams::new(
                serde_json::json!({"threshold": 25, "timer": "4ms", "ecn": true}),
                "q",
            ),
            &env,
        );
        assert!(o.is_ok());
    }
}
