//! Step marking: every ECT packet is CE-marked while the queue exceeds a threshold K, with no
//! averaging and no probability; the AQM DCTCP and the L4S senders are designed for.
//!
//! Sources:
//! - M. Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, section 3.1: "a packet is
//!   marked with the CE codepoint if the queue occupancy is greater than K upon its arrival",
//!   on the instantaneous queue, not an average. Their 1 Gb/s setting is K = 20 packets
//!   (section 4), the default here when no threshold is given.
//! - RFC 8257 (DCTCP) section 3.1: switches mark "using the instantaneous queue length" at a
//!   single threshold, e.g. by configuring RED with min_th = max_th = K and the weight that
//!   makes the average the instantaneous queue. Linux RED (`net/sched/sch_red.c`,
//!   `red_enqueue` with `include/net/red.h`): with the `ecn` flag a packet above max_th is
//!   marked if it is ECT and dropped if it is not (`INET_ECN_set_ce` fails: `congestion_drop`);
//!   with `harddrop` every packet above max_th is dropped. DCTCP deployments use `ecn`
//!   without `harddrop`: the default here (`ecn = true`, `non_ect = "drop"`).
//! - RFC 9332 (DualQ Coupled AQM) section 2.4 and appendix A: the L queue's native AQM is a
//!   step (or ramp) on the queue delay, 1 ms by default in Linux `net/sched/sch_dualpi2.c`,
//!   whose `do_step_aqm` decides at dequeue: the head's sojourn time (or, with
//!   `step_in_packets`, the L queue's length in packets) `> step_thresh` marks an ECT packet
//!   and drops a non-ECT one. `k_sojourn` is that step on a single queue.
//!
//! Where the decision is taken: with `k_packets` or `k_bytes` at enqueue, on the queue the
//! arrival finds (the packets waiting, not counting the one in service nor the arrival; see
//! the queue length convention in `aqm/mod.rs`), as a RED configured with min_th = max_th = K
//! on the instantaneous queue; with `k_sojourn` at dequeue, on the departing packet's sojourn
//! time, as CoDel and sch_dualpi2's step. "Exceeds" is strict (`>`) in all three, as in the
//! paper and in sch_dualpi2.
//!
//! Parameters (exactly one of the three thresholds; none given = `k_packets = 20`):
//! - `k_packets` (packets), `k_bytes` (bytes), `k_sojourn` (time)
//! - `ecn` (true): mark ECT packets above K; false drops every packet above K (Linux RED
//!   without `ecn`, or with `harddrop`)
//! - `non_ect` ("drop"): a non-ECT packet above K is dropped (Linux RED `ecn`, sch_dualpi2's
//!   step) or, with "enqueue", passes unmarked
//!
//! - `average_weight` (1): with `k_packets` or `k_bytes`, the step compares K with an average
//!   of the queue the arrivals find, avg <- (1 - w) avg + w q at each arrival, instead of q
//!   itself: 1 is the instantaneous queue (the paper, RFC 8257); Linux RED, which
//!   validate-kernel maps a step to, averages with weight 2^-Wlog and tc gives no Wlog below
//!   1, so its step acts on avg <- avg / 2 + q / 2 (`red_calc_qavg_no_idle_time`,
//!   include/net/red.h): `average_weight = 0.5`.
//!
//! Forced drops when the buffer is full happen as in every FIFO here.

use super::ewma::EwmaQueueAverage;
use super::params::{AqmParams, ParamDoc, Plausible, QueueEnv};
use super::{Aqm, ArrivalVerdict, DepartureVerdict, DropKind, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

/// K when the scenario names none: Alizadeh et al.'s 1 Gb/s setting (section 4).
pub const DEFAULT_K_PACKETS: f64 = 20.0;

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "k_packets",
        default: "20 (if no threshold is given)",
        unit: "packets",
        meaning: "mark at enqueue while more than this many packets wait (Alizadeh et al. 2010: 20 at 1 Gb/s, 65 at 10 Gb/s); exactly one of k_packets, k_bytes, k_sojourn",
        plausible: None,
    },
    ParamDoc {
        name: "k_bytes",
        default: "unset",
        unit: "bytes",
        meaning: "mark at enqueue while more than this many bytes wait (RED with min_th = max_th = K in byte mode)",
        plausible: None,
    },
    ParamDoc {
        name: "k_sojourn",
        default: "unset",
        unit: "s",
        meaning: "mark at dequeue a packet that waited longer than this (sch_dualpi2's step_thresh, 1 ms; RFC 9332)",
        // From a few microseconds (data centre) to the 1 ms of L4S and a little beyond.
        plausible: Some(Plausible::new(1e-6, 0.1)),
    },
    ParamDoc {
        name: "ecn",
        default: "true",
        unit: "bool",
        meaning: "CE-mark ECT packets above K; false drops every packet above K (Linux RED harddrop)",
        plausible: None,
    },
    ParamDoc {
        name: "non_ect",
        default: "drop",
        unit: "drop | enqueue",
        meaning: "what happens to a packet that is not ECN-capable above K (Linux RED ecn and sch_dualpi2 drop it)",
        plausible: None,
    },
    ParamDoc {
        name: "average_weight",
        default: "1",
        unit: "weight",
        meaning: "k_packets/k_bytes compare K with avg <- (1-w) avg + w q, not q: 1 instantaneous; 0.5 Linux RED at tc's least weight",
        plausible: None,
    },
];

/// What a non-ECT packet above the threshold gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NonEct {
    /// Dropped: it cannot carry the mark (Linux RED with `ecn`; sch_dualpi2 `do_step_aqm`).
    #[default]
    Drop,
    /// Enqueued unmarked: the step signals ECN-capable traffic only.
    Enqueue,
}

/// The parameters as written (each threshold optional, so that "exactly one" can be checked).
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct StepParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k_packets: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k_sojourn: Option<Duration>,
    #[serde(default = "yes")]
    pub ecn: bool,
    pub non_ect: NonEct,
    #[serde(default = "one")]
    pub average_weight: f64,
}

fn yes() -> bool {
    true
}

fn one() -> f64 {
    1.0
}

/// The one threshold in force.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    Packets(f64),
    Bytes(u64),
    Sojourn(Time),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepConfig {
    pub k: Threshold,
    pub ecn: bool,
    pub non_ect: NonEct,
    pub average_weight: f64,
}

impl StepParams {
    /// Checks that at most one threshold is given (none: the default K) and that it is valid.
    pub fn resolve(&self, p: &AqmParams) -> Result<StepConfig, ScenarioError> {
        let given: Vec<&str> = [
            ("k_packets", self.k_packets.is_some()),
            ("k_bytes", self.k_bytes.is_some()),
            ("k_sojourn", self.k_sojourn.is_some()),
        ]
        .iter()
        .filter(|(_, g)| *g)
        .map(|(n, _)| *n)
        .collect();
        if given.len() > 1 {
            return Err(p.error(
                given[1],
                format!(
                    "give exactly one threshold: {} are both set (K is in packets, bytes or \
                     sojourn time)",
                    given.join(" and ")
                ),
            ));
        }
        let k = match (self.k_packets, self.k_bytes, self.k_sojourn) {
            (Some(k), _, _) => {
                p.non_negative("k_packets", k, "packets")?;
                Threshold::Packets(k)
            }
            (_, Some(b), _) => Threshold::Bytes(b),
            (_, _, Some(d)) => Threshold::Sojourn(d.0),
            (None, None, None) => Threshold::Packets(DEFAULT_K_PACKETS),
        };
        let w = self.average_weight;
        p.require(
            w.is_finite() && w > 0.0 && w <= 1.0,
            "average_weight",
            || format!("must be in (0, 1], got {w}"),
        )?;
        p.require(
            w == 1.0 || !matches!(k, Threshold::Sojourn(_)),
            "average_weight",
            || "k_sojourn decides on each packet's own sojourn time: it has no average".into(),
        )?;
        Ok(StepConfig {
            k,
            ecn: self.ecn,
            non_ect: self.non_ect,
            average_weight: w,
        })
    }

    /// The parameters with the default threshold written in: what the resolved scenario
    /// shows (`resolved.rs`), which builds the same queue.
    pub fn with_defaults(&self, p: &AqmParams) -> Result<StepParams, ScenarioError> {
        let cfg = self.resolve(p)?;
        let mut out = *self;
        if let Threshold::Packets(k) = cfg.k {
            out.k_packets = Some(k);
        }
        Ok(out)
    }
}

#[derive(Debug, Clone)]
pub struct StepMarking {
    pub cfg: StepConfig,
    /// Whether the last packet decided on found the queue above K.
    above: bool,
    /// Marks and drops by the step so far.
    signals: u64,
    /// The queue average the step compares (packets or bytes, as K): RED's, never decaying
    /// over idle time (Linux's RED under htb); the queue itself when `average_weight` is 1.
    avg: EwmaQueueAverage,
}

impl StepMarking {
    pub fn new(cfg: StepConfig) -> Self {
        StepMarking {
            cfg,
            above: false,
            signals: 0,
            avg: {
                // No idle decay, so the idle rate (ptc) is never used.
                let mut avg = EwmaQueueAverage::new(cfg.average_weight, 0.0);
                avg.set_idle_decay(false);
                avg
            },
        }
    }

    /// The signal for a packet above K: a mark if it can carry one and marking is on, else a
    /// drop, unless a non-ECT packet is to pass.
    fn signal(&mut self, pkt: &Packet) -> Signal {
        if self.cfg.ecn && pkt.ecn.ect {
            self.signals += 1;
            Signal::Mark
        } else if !pkt.ecn.ect && self.cfg.non_ect == NonEct::Enqueue {
            Signal::None
        } else {
            self.signals += 1;
            Signal::Drop
        }
    }
}

enum Signal {
    None,
    Mark,
    Drop,
}

impl Aqm for StepMarking {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, _rng: &mut RngStream) -> ArrivalVerdict {
        if q.is_full_for(pkt.size) {
            return ArrivalVerdict::Drop(DropKind::Forced);
        }
        let above = match self.cfg.k {
            Threshold::Packets(k) => self.avg.update(q.now, q.len_packets as f64) > k,
            Threshold::Bytes(k) => self.avg.update(q.now, q.len_bytes as f64) > k as f64,
            Threshold::Sojourn(_) => return ArrivalVerdict::Enqueue,
        };
        self.above = above;
        if !above {
            return ArrivalVerdict::Enqueue;
        }
        match self.signal(pkt) {
            Signal::None => ArrivalVerdict::Enqueue,
            Signal::Mark => ArrivalVerdict::Mark,
            Signal::Drop => ArrivalVerdict::Drop(DropKind::Early),
        }
    }

    fn on_departure(
        &mut self,
        q: &QueueView,
        pkt: &Packet,
        _rng: &mut RngStream,
    ) -> DepartureVerdict {
        let Threshold::Sojourn(k) = self.cfg.k else {
            return DepartureVerdict::Send;
        };
        self.above = q.now.saturating_sub(pkt.enqueued_at) > k;
        if !self.above {
            return DepartureVerdict::Send;
        }
        match self.signal(pkt) {
            Signal::None => DepartureVerdict::Send,
            Signal::Mark => DepartureVerdict::Mark,
            Signal::Drop => DepartureVerdict::Drop,
        }
    }

    /// The threshold, the ECN rules and the average's weight change; the counters and the
    /// average carry on.
    fn reconfigure(&mut self, next: Box<dyn Aqm>) -> bool {
        super::reconfigure_from(next, |next: Box<StepMarking>| {
            self.avg.weight = next.cfg.average_weight;
            self.cfg = next.cfg;
        })
    }

    fn state(&self, out: &mut StateSink) {
        out("above_k", self.above as u8 as f64);
        out("signals", self.signals as f64);
    }
}

pub fn build(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let params: StepParams = p.parse()?;
    Ok(Box::new(StepMarking::new(params.resolve(p)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::test_rig::{self, QueueRig};
    use crate::aqm::{FifoQueue, QueueLimit};
    use crate::net::PacketKind;
    use serde_json::json;

    const US: Time = 1_000;

    fn rig(params: serde_json::Value) -> QueueRig<FifoQueue> {
        let p = AqmParams::new(params, "q.aqm");
        let aqm = build(&p, &test_rig::env(1000)).unwrap();
        QueueRig::new(FifoQueue::new(aqm, QueueLimit::Packets(1000), 10_000_000))
    }

    fn packet(ect: bool) -> Packet {
        let mut p = test_rig::packet(PacketKind::TcpData);
        p.ecn.ect = ect;
        p
    }

    /// K = 3 packets: arrivals that find 0..=3 waiting pass, those that find 4 or more are
    /// marked (ECT) or dropped (non-ECT); a departure brings the queue back to 3.
    #[test]
    fn packets_threshold_marks_arrivals_that_find_more_than_k() {
        let mut r = rig(json!({"k_packets": 3}));
        let mut ce = vec![];
        for _ in 0..6 {
            let id = r.enqueue(0, packet(true));
            ce.push(r.arena.get(id).ecn.ce);
        }
        // The queue held 0, 1, 2, 3, 4, 5 packets as each arrived.
        assert_eq!(ce, [false, false, false, false, true, true]);
        assert_eq!(r.stats.marks, 2);
        // A non-ECT arrival now (6 waiting) is dropped early; 6 still wait.
        r.enqueue(0, packet(false));
        assert_eq!(r.dropped.len(), 1);
        assert_eq!(r.stats.early_drops, 1);
        // Three departures leave 3 waiting: the next arrival finds 3, not above K.
        for _ in 0..3 {
            r.dequeue(0);
        }
        let id = r.enqueue(0, packet(true));
        assert!(!r.arena.get(id).ecn.ce);
        // That one made 4: a non-ECT arrival is dropped again.
        let id = r.enqueue(0, packet(false));
        assert_eq!(r.dropped.last(), Some(&id));
    }

    /// K = 3 packets, average_weight 0.5 (Linux RED at Wlog 1): arrivals find 0, 1, ..., 7
    /// waiting, the average runs 0, 0.5, 1.25, 2.125, 3.0625, 4.03, 5.02, 6.01: the fifth
    /// arrival (avg 3.06 > 3) is the first marked, one later than on the queue itself.
    #[test]
    fn average_weight_marks_on_the_averaged_queue() {
        let mut r = rig(json!({"k_packets": 3, "average_weight": 0.5}));
        let ce: Vec<bool> = (0..8)
            .map(|_| {
                let id = r.enqueue(0, packet(true));
                r.arena.get(id).ecn.ce
            })
            .collect();
        assert_eq!(ce, [false, false, false, false, true, true, true, true]);
        // Eight departures empty the queue. The average lags: the next arrival finds 0 and
        // is marked (avg 6.008 / 2 = 3.004 > 3); the one after finds 1 (avg 2.002): not.
        for _ in 0..8 {
            r.dequeue(0);
        }
        let marked: Vec<bool> = (0..2)
            .map(|_| {
                let id = r.enqueue(0, packet(true));
                r.arena.get(id).ecn.ce
            })
            .collect();
        assert_eq!(marked, [true, false]);
        let e = build(
            &AqmParams::new(json!({"k_sojourn": "1ms", "average_weight": 0.5}), "q.aqm"),
            &test_rig::env(1000),
        )
        .err()
        .expect("refused");
        assert!(e.to_string().contains("average_weight"), "{e}");
    }

    /// K = 2500 bytes with 1000-byte packets: the arrivals finding 0, 1000, 2000 bytes pass,
    /// the one finding 3000 is marked.
    #[test]
    fn bytes_threshold_counts_bytes() {
        let mut r = rig(json!({"k_bytes": 2500}));
        let ce: Vec<bool> = (0..5)
            .map(|_| {
                let id = r.enqueue(0, packet(true));
                r.arena.get(id).ecn.ce
            })
            .collect();
        assert_eq!(ce, [false, false, false, true, true]);
    }

    /// K = 100 us of sojourn, decided at dequeue: packets enqueued at 0, 50, 150 us and
    /// dequeued at 100, 200, 250 us waited 100 (not above), 150 (above), 100 us.
    #[test]
    fn sojourn_threshold_decides_at_dequeue() {
        let mut r = rig(json!({"k_sojourn": "100us"}));
        let a = r.enqueue(0, packet(true));
        let b = r.enqueue(50 * US, packet(true));
        let c = r.enqueue(150 * US, packet(false));
        let d = r.enqueue(150 * US, packet(true));
        // No arrival is marked, whatever the queue.
        assert_eq!(r.stats.marks, 0);
        assert_eq!(r.dequeue(100 * US), Some(a));
        assert!(!r.arena.get(a).ecn.ce);
        assert_eq!(r.dequeue(200 * US), Some(b));
        assert!(r.arena.get(b).ecn.ce);
        // c (non-ECT) waited 101 us: dropped, and d, which waited as long, is marked.
        assert_eq!(r.dequeue(251 * US), Some(d));
        assert_eq!(r.dropped, vec![c]);
        assert!(r.arena.get(d).ecn.ce);
        assert_eq!(r.stats.marks, 2);
    }

    #[test]
    fn without_ecn_every_packet_above_k_is_dropped_and_non_ect_may_pass() {
        let mut r = rig(json!({"k_packets": 0, "ecn": false}));
        r.enqueue(0, packet(true));
        r.enqueue(0, packet(true));
        assert_eq!((r.stats.marks, r.dropped.len()), (0, 1));
        let mut r = rig(json!({"k_packets": 0, "non_ect": "enqueue"}));
        r.enqueue(0, packet(false));
        let id = r.enqueue(0, packet(false));
        assert!(r.dropped.is_empty() && !r.arena.get(id).ecn.ce);
        let id = r.enqueue(0, packet(true));
        assert!(r.arena.get(id).ecn.ce);
    }

    #[test]
    fn exactly_one_threshold_and_errors_name_the_field() {
        let env = test_rig::env(100);
        let p = AqmParams::new(json!({"k_packets": 5, "k_sojourn": "1ms"}), "q.aqm");
        let e = build(&p, &env).err().unwrap();
        assert_eq!(e.path, "q.aqm.k_sojourn");
        assert!(e.message.contains("exactly one"), "{e}");
        let p = AqmParams::new(json!({"k_packets": -1}), "q.aqm");
        assert_eq!(build(&p, &env).err().unwrap().path, "q.aqm.k_packets");
        let p = AqmParams::new(json!({"non_ect": "mark"}), "q.aqm");
        assert!(build(&p, &env)
            .err()
            .unwrap()
            .path
            .starts_with("q.aqm.non_ect"));
        // None given: K = 20 packets.
        let p = AqmParams::new(json!({}), "q.aqm");
        let cfg = p.parse::<StepParams>().unwrap().resolve(&p).unwrap();
        assert_eq!(cfg.k, Threshold::Packets(20.0));
    }
}
