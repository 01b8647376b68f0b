//! RED and gentle RED with ns-2 semantics.
//!
//! Sources: S. Floyd, V. Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1(4), 1993 (sections 4 and 7); gentle RED: S. Floyd, "Recommendation
//! on using the gentle variant of RED", 2000; behaviour of ns-2 `queue/red.cc` as recorded in
//! ../shared/specs/baselines.md (idle correction, `wait`, the `old` first-arrival rule, forced
//! drops, byte mode, ECN marking with `mark_p`).
//!
//! Parameters (defaults are ns-2.27's, the version of the seed papers):
//! - `min_th`, `max_th` (packets; unset: min_th = max(5, target_delay * ptc / 2),
//!   max_th = 3 * min_th)
//! - `max_p` (probability at max_th, 0.1)
//! - `w_q` (EWMA weight, 0.002; "auto" = 1 - exp(-1/ptc); "auto_rtt" = ns-2's later rule)
//! - `gentle` (true), `wait` (true), `bytes` (byte mode, false)
//! - `mean_pkt_size` (bytes, 500: ns-2 uses it, not the real size, for ptc and byte mode)
//! - `ecn` (mark ECT packets instead of dropping, false), `mark_p` (0.1: mark only while
//!   p_b < mark_p, drop above)
//! - `target_delay` (for automatic thresholds, 5 ms)
//! - `idle_decay` (true: the average decays over an idle period, Floyd & Jacobson section 4,
//!   ns-2, and Linux's RED on a device; false: it does not, Linux's RED as the leaf of htb,
//!   `ewma.rs`)
//!
//! - `short_queue_exempt` (true: ns-2's `red.cc` signals only when `qlen > 1`, the queue
//!   before the arrival holding at least two packets; false: Linux's `red_enqueue` and
//!   `red_action` (include/net/red.h) decide on the average alone, so an arrival to an empty
//!   queue is dropped while avg >= max_th. Under htb, where the average does not decay over
//!   idle time (`idle_decay = false`), that is a lockout: after a slow-start overflow lifts
//!   avg above max_th, every packet is dropped, the sender backs off its RTO, and each rare
//!   retransmission lowers avg by one weight; measured in Linux 6.1 for Reno, docs/validation.md)
//!
//! Where aqmlab's reading departs from later ns-2 code: a forced drop happens when avg >= max_th
//! (non-gentle) or avg >= 2 max_th (gentle), as the 2002-2004 code does; later versions with
//! `use_mark_p` reach the same drop through p = 1 but count it as unforced.

use super::ewma::EwmaQueueAverage;
use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::{Aqm, ArrivalVerdict, DropKind, QueueView, StateSink};
use crate::net::Packet;
use crate::sim::{time, RngStream, Time};
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

/// How w_q is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WeightSetting {
    Fixed(f64),
    /// 1 - exp(-1/ptc): ns-2 `q_weight_ = 0`.
    Auto,
    /// 1 - exp(-1/(10 rtt ptc)), rtt = max(0.1, 3 (delay + 1/ptc)): ns-2 `q_weight_ = -1`.
    AutoRtt,
}

impl<'de> Deserialize<'de> for WeightSetting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Num(f64),
            Str(String),
        }
        match Raw::deserialize(d).map_err(|_| {
            serde::de::Error::custom("expected a number in (0, 1], \"auto\" or \"auto_rtt\"")
        })? {
            Raw::Num(w) => Ok(WeightSetting::Fixed(w)),
            Raw::Str(s) if s == "auto" => Ok(WeightSetting::Auto),
            Raw::Str(s) if s == "auto_rtt" => Ok(WeightSetting::AutoRtt),
            Raw::Str(s) => Err(serde::de::Error::custom(format!(
                "expected a number in (0, 1], \"auto\" or \"auto_rtt\", got \"{s}\""
            ))),
        }
    }
}

/// Written as read: a number, or "auto" / "auto_rtt" (the resolved scenario, `Result.scenario`).
impl Serialize for WeightSetting {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            WeightSetting::Fixed(w) => s.serialize_f64(*w),
            WeightSetting::Auto => s.serialize_str("auto"),
            WeightSetting::AutoRtt => s.serialize_str("auto_rtt"),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedParams {
    pub min_th: Option<f64>,
    pub max_th: Option<f64>,
    pub max_p: f64,
    pub w_q: WeightSetting,
    pub gentle: bool,
    pub wait: bool,
    pub bytes: bool,
    pub mean_pkt_size: u32,
    pub ecn: bool,
    pub mark_p: f64,
    pub target_delay: Duration,
    pub idle_decay: bool,
    pub short_queue_exempt: bool,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: None,
            max_th: None,
            max_p: 0.1,
            w_q: WeightSetting::Fixed(0.002),
            gentle: true,
            wait: true,
            bytes: false,
            mean_pkt_size: 500,
            ecn: false,
            mark_p: 0.1,
            target_delay: Duration(5_000_000),
            idle_decay: true,
            short_queue_exempt: true,
        }
    }
}

/// RED's parameters with every automatic value resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct RedConfig {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub wait: bool,
    pub bytes: bool,
    pub mean_pkt_size: u32,
    pub ecn: bool,
    pub mark_p: f64,
    /// Mean-size packets per second the link can send.
    pub ptc: f64,
    pub idle_decay: bool,
    pub short_queue_exempt: bool,
}

impl RedParams {
    /// Resolves automatic settings against the link and validates every parameter.
    pub fn resolve(&self, env: &QueueEnv, p: &AqmParams) -> Result<RedConfig, ScenarioError> {
        p.require(self.mean_pkt_size > 0, "mean_pkt_size", || {
            "must be > 0".into()
        })?;
        let ptc = env.link_rate_bps as f64 / (8.0 * self.mean_pkt_size as f64);
        let min_th = match self.min_th {
            Some(v) => v,
            None => 5f64.max(self.target_delay.secs() * ptc / 2.0),
        };
        let max_th = self.max_th.unwrap_or(3.0 * min_th);
        let w_q = match self.w_q {
            WeightSetting::Fixed(w) => w,
            WeightSetting::Auto => 1.0 - (-1.0 / ptc).exp(),
            WeightSetting::AutoRtt => {
                let rtt = 0.1f64.max(3.0 * (time::to_secs_f64(env.link_delay) + 1.0 / ptc));
                1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
            }
        };
        p.non_negative("min_th", min_th, "")?;
        p.require(max_th.is_finite() && max_th > min_th, "max_th", || {
            format!("must be greater than min_th ({min_th}), got {max_th}")
        })?;
        p.in_range("max_p", self.max_p, 0.0, 1.0)?;
        p.require(w_q.is_finite() && w_q > 0.0 && w_q <= 1.0, "w_q", || {
            format!("must be in (0, 1], got {w_q}")
        })?;
        p.in_range("mark_p", self.mark_p, 0.0, 1.0)?;
        Ok(self.config(min_th, max_th, w_q, ptc))
    }

    /// These parameters with the automatic ones given: thresholds, weight and the link's
    /// capacity in mean-size packets per second. Unchecked ([`RedParams::resolve`] checks);
    /// tests and benchmarks build their RED from `RedParams::default()` with it.
    pub fn config(&self, min_th: f64, max_th: f64, w_q: f64, ptc: f64) -> RedConfig {
        RedConfig {
            min_th,
            max_th,
            max_p: self.max_p,
            w_q,
            gentle: self.gentle,
            wait: self.wait,
            bytes: self.bytes,
            mean_pkt_size: self.mean_pkt_size,
            ecn: self.ecn,
            mark_p: self.mark_p,
            ptc,
            idle_decay: self.idle_decay,
            short_queue_exempt: self.short_queue_exempt,
        }
    }
}

impl RedConfig {
    /// The drop probability before count correction, p_b, as a function of avg, with avg in
    /// [min_th, upper) where upper is max_th (non-gentle) or 2 max_th (gentle).
    pub fn p_b(&self, avg: f64) -> f64 {
        let p = if avg < self.min_th {
            0.0
        } else if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            1.0
        };
        p.min(1.0)
    }

    /// avg at or above which every arrival is a forced drop.
    pub fn forced_drop_avg(&self) -> f64 {
        if self.gentle {
            2.0 * self.max_th
        } else {
            self.max_th
        }
    }
}

/// ns-2's `modify_p`: spreads drops evenly between drops, given `count` arrivals since the
/// last one.
pub fn count_corrected(p_b: f64, count: f64, wait: bool) -> f64 {
    let cp = count * p_b;
    let p = if wait {
        if cp < 1.0 {
            0.0
        } else if cp < 2.0 {
            p_b / (2.0 - cp)
        } else {
            1.0
        }
    } else if cp < 1.0 {
        p_b / (1.0 - cp)
    } else {
        1.0
    };
    p.min(1.0)
}

/// p_a = p_b: no spreading of drops (for [`Red::decide_with`]).
pub fn no_count_correction(p_b: f64, _count: f64, _wait: bool) -> f64 {
    p_b.clamp(0.0, 1.0)
}

/// Reads the parameter table of a RED variant: the variant's own keys (`own`) go to `T`, all
/// other keys to [`RedParams`]; `red_defaults` gives RED keys the variant defaults
/// differently (used only when the scenario does not set them). Both parts deny unknown
/// fields, so a misspelt key is still an error naming it.
pub fn parse_variant<T: serde::de::DeserializeOwned>(
    p: &AqmParams,
    own: &[&str],
    red_defaults: &[(&str, serde_json::Value)],
) -> Result<(T, RedParams), ScenarioError> {
    let mut mine = serde_json::Map::new();
    let mut rest = match &p.values {
        serde_json::Value::Object(m) => m.clone(),
        serde_json::Value::Null => serde_json::Map::new(),
        _ => {
            // Not a table: let RED's parser report it.
            let _: RedParams = p.parse()?;
            serde_json::Map::new()
        }
    };
    for k in own {
        if let Some(v) = rest.remove(*k) {
            mine.insert((*k).to_string(), v);
        }
    }
    for (k, v) in red_defaults {
        rest.entry((*k).to_string()).or_insert_with(|| v.clone());
    }
    let t: T = AqmParams::new(serde_json::Value::Object(mine), p.path.clone()).parse()?;
    let red: RedParams = AqmParams::new(serde_json::Value::Object(rest), p.path.clone()).parse()?;
    Ok((t, red))
}

/// Documentation of RED's parameters in pieces, so that variants can list them with their
/// own defaults where they differ (see [`concat_docs`]). Same text as the registry's RED entry.
pub const RED_DOCS_THRESHOLDS: &[ParamDoc] = &[
    doc(
        "min_th",
        "max(5, target_delay*ptc/2)",
        "packets",
        "minimum threshold of avg",
    ),
    doc("max_th", "3*min_th", "packets", "maximum threshold of avg"),
];
pub const RED_DOC_MAX_P: &[ParamDoc] = &[doc(
    "max_p",
    "0.1",
    "probability",
    "drop probability at max_th",
)];
pub const RED_DOC_W_Q: &[ParamDoc] = &[doc(
    "w_q",
    "0.002",
    "weight",
    "EWMA weight; \"auto\" = 1-exp(-1/ptc), \"auto_rtt\" = ns-2's later rule",
)];
pub const RED_DOCS_REST: &[ParamDoc] = &[
    doc(
        "gentle",
        "true",
        "bool",
        "p rises from max_p to 1 between max_th and 2*max_th",
    ),
    doc(
        "wait",
        "true",
        "bool",
        "ns-2 `wait`: spread drops (p_a = p_b/(2-count*p_b))",
    ),
    doc(
        "bytes",
        "false",
        "bool",
        "byte mode: queue in mean-size packets, p scaled by size",
    ),
    doc(
        "mean_pkt_size",
        "500",
        "bytes",
        "packet size for ptc and byte mode (ns-2 default)",
    ),
    super::params::ECN_DOC,
    doc(
        "mark_p",
        "0.1",
        "probability",
        "mark only while p_b < mark_p; drop above",
    ),
    // Floyd, Gummadi & Shenker 2001 (Adaptive RED) and ns-2: 5 ms.
    doc(
        "target_delay",
        "5ms",
        "s",
        "target delay for the automatic min_th",
    )
    .with_plausible(1e-5, 0.5),
    doc(
        "idle_decay",
        "true",
        "bool",
        "avg decays over idle time; false: Linux's RED under htb",
    ),
    doc(
        "short_queue_exempt",
        "true",
        "bool",
        "no early or forced signal while at most one packet is queued (ns-2); false: the average alone decides (Linux)",
    ),
];

/// Joins doc lists at compile time into one `&[ParamDoc]`, each list named once:
/// `joined_docs!(A, B)` is `&concat_docs::<{ docs_len(&[A, B]) }>(&[A, B])`.
macro_rules! joined_docs {
    ($($part:expr),+ $(,)?) => {
        &$crate::aqm::red::concat_docs::<{ $crate::aqm::red::docs_len(&[$($part),+]) }>(&[
            $($part),+
        ])
    };
}
pub(crate) use joined_docs;

/// Every RED parameter, as RED documents them.
pub const RED_PARAM_DOCS: &[ParamDoc] = joined_docs!(
    RED_DOCS_THRESHOLDS,
    RED_DOC_MAX_P,
    RED_DOC_W_Q,
    RED_DOCS_REST,
);

/// Total length of several doc lists (the `N` of [`concat_docs`]).
pub const fn docs_len(parts: &[&[ParamDoc]]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

/// Joins doc lists at compile time: `concat_docs::<{ docs_len(&[A, B]) }>(&[A, B])`.
pub const fn concat_docs<const N: usize>(parts: &[&[ParamDoc]]) -> [ParamDoc; N] {
    let mut out = [doc("", "", "", ""); N];
    let mut k = 0;
    let mut i = 0;
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(k == N, "concat_docs: N must be the total length");
    out
}

/// RED's per-arrival state beyond the average: the count since the last drop and the
/// `old` flag that spares the first arrival of each congestion epoch.
#[derive(Debug, Clone)]
pub struct Red {
    pub cfg: RedConfig,
    pub ewma: EwmaQueueAverage,
    pub count: u64,
    pub count_bytes: u64,
    pub old: bool,
    /// Last p_b and p_a computed (for the time series).
    pub p_b: f64,
    pub p_a: f64,
}

impl Red {
    pub fn new(cfg: RedConfig) -> Self {
        let mut ewma = EwmaQueueAverage::new(cfg.w_q, cfg.ptc);
        ewma.set_idle_decay(cfg.idle_decay);
        Red {
            cfg,
            ewma,
            count: 0,
            count_bytes: 0,
            old: false,
            p_b: 0.0,
            p_a: 0.0,
        }
    }

    /// The instantaneous queue in RED's unit: packets, or mean-size packets in byte mode.
    #[inline]
    pub fn q(&self, q: &QueueView) -> f64 {
        if self.cfg.bytes {
            q.len_bytes as f64 / self.cfg.mean_pkt_size as f64
        } else {
            q.len_packets as f64
        }
    }

    /// RED's decision once avg is known and p_b has been computed by the caller's curve.
    /// `forced` says that avg is past the curve's hard limit. Counts, the `old` flag, the
    /// buffer limit and ECN follow ns-2's `enque` and `drop_early`.
    pub fn decide(
        &mut self,
        q: &QueueView,
        pkt: &Packet,
        rng: &mut RngStream,
        avg: f64,
        p_b: f64,
        forced: bool,
    ) -> ArrivalVerdict {
        self.decide_with(q, pkt, rng, avg, p_b, forced, count_corrected)
    }

    /// [`Red::decide`] with another rule turning (p_b, count, wait) into p_a, for variants
    /// that keep RED's structure but not its count correction (DSRED's `count_correction =
    /// false` uses [`no_count_correction`]). `decide` is this with [`count_corrected`].
    #[allow(clippy::too_many_arguments)]
    pub fn decide_with(
        &mut self,
        q: &QueueView,
        pkt: &Packet,
        rng: &mut RngStream,
        avg: f64,
        p_b: f64,
        forced: bool,
        correct: fn(f64, f64, bool) -> f64,
    ) -> ArrivalVerdict {
        self.count += 1;
        self.count_bytes += pkt.size as u64;
        let mut verdict = ArrivalVerdict::Enqueue;
        self.p_a = 0.0;
        if avg >= self.cfg.min_th && (q.len_packets > 1 || !self.cfg.short_queue_exempt) {
            if forced {
                verdict = ArrivalVerdict::Drop(DropKind::Forced);
            } else if !self.old {
                // First arrival above min_th of a congestion epoch: start counting from 1.
                self.count = 1;
                self.count_bytes = pkt.size as u64;
                self.old = true;
            } else {
                self.p_b = p_b;
                let count = if self.cfg.bytes {
                    (self.count_bytes / self.cfg.mean_pkt_size as u64) as f64
                } else {
                    self.count as f64
                };
                let mut p_a = correct(p_b, count, self.cfg.wait);
                if self.cfg.bytes && p_a < 1.0 {
                    p_a = (p_a * pkt.size as f64 / self.cfg.mean_pkt_size as f64).min(1.0);
                }
                self.p_a = p_a;
                if rng.uniform() <= p_a && p_a > 0.0 {
                    self.count = 0;
                    self.count_bytes = 0;
                    verdict = if self.cfg.ecn && pkt.ecn.ect && p_b < self.cfg.mark_p {
                        ArrivalVerdict::Mark
                    } else {
                        ArrivalVerdict::Drop(DropKind::Early)
                    };
                }
            }
        } else {
            self.p_b = 0.0;
            self.old = false;
        }
        if q.is_full_for(pkt.size) {
            verdict = ArrivalVerdict::Drop(DropKind::Forced);
        }
        if verdict == ArrivalVerdict::Drop(DropKind::Forced) {
            self.count = 0;
            self.count_bytes = 0;
        }
        verdict
    }

    /// RED's decision on its own curve: p_b from avg, and a forced drop from
    /// [`RedConfig::forced_drop_avg`] on (the variants that keep RED's curve end with this).
    #[inline]
    pub fn decide_on_curve(
        &mut self,
        q: &QueueView,
        pkt: &Packet,
        rng: &mut RngStream,
        avg: f64,
    ) -> ArrivalVerdict {
        let p_b = self.cfg.p_b(avg);
        let forced = avg >= self.cfg.forced_drop_avg();
        self.decide(q, pkt, rng, avg, p_b, forced)
    }

    pub fn report(&self, out: &mut StateSink) {
        out("avg_packets", self.ewma.avg);
        out("p_b", self.p_b);
        out("p", self.p_a);
        out("since_signal_packets", self.count as f64);
        out("max_p", self.cfg.max_p);
    }
}

impl Aqm for Red {
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, rng: &mut RngStream) -> ArrivalVerdict {
        let avg = self.ewma.update(q.now, self.q(q));
        self.decide_on_curve(q, pkt, rng, avg)
    }

    /// The curve, the weight, the idle rate and `idle_decay` change; avg, count and `old` carry on.
    fn reconfigure(&mut self, next: Box<dyn Aqm>) -> bool {
        super::reconfigure_from(next, |next: Box<Red>| {
            self.ewma.weight = next.ewma.weight;
            self.ewma.ptc = next.ewma.ptc;
            self.ewma.set_idle_decay(next.cfg.idle_decay);
            self.cfg = next.cfg;
        })
    }

    fn on_link_idle(&mut self, now: Time) {
        self.ewma.on_link_idle(now);
    }

    fn state(&self, out: &mut StateSink) {
        self.report(out);
    }
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let params: RedParams = p.parse()?;
    Ok(Box::new(Red::new(params.resolve(env, p)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::PacketKind;

    fn cfg(gentle: bool) -> RedConfig {
        RedConfig {
            gentle,
            ..RedParams::default().config(5.0, 15.0, 0.002, 1250.0)
        }
    }

    /// RED whose avg is the instantaneous queue (w = 1), so that sequences are easy to follow.
    fn red_tracking_q(c: RedConfig) -> Red {
        Red::new(RedConfig { w_q: 1.0, ..c })
    }

    #[test]
    fn p_b_at_and_around_the_breakpoints() {
        let c = cfg(true);
        assert_eq!(c.p_b(4.999), 0.0);
        assert_eq!(c.p_b(5.0), 0.0);
        assert!((c.p_b(10.0) - 0.05).abs() < 1e-15);
        assert!((c.p_b(14.999) - 0.1 * 9.999 / 10.0).abs() < 1e-12);
        assert!((c.p_b(15.0) - 0.1).abs() < 1e-15); // gentle starts at max_p
        assert!((c.p_b(22.5) - (0.1 + 0.9 * 0.5)).abs() < 1e-12);
        assert_eq!(c.p_b(30.0), 1.0);
        let n = cfg(false);
        assert_eq!(n.p_b(15.0), 1.0); // non-gentle jumps to 1 at max_th
        assert_eq!(n.forced_drop_avg(), 15.0);
        assert_eq!(c.forced_drop_avg(), 30.0);
    }

    #[test]
    fn count_correction_with_and_without_wait() {
        // wait: 0 while count*p < 1; p/(2 - count*p) until 2; then 1
        assert_eq!(count_corrected(0.1, 9.0, true), 0.0);
        assert!((count_corrected(0.1, 10.0, true) - 0.1).abs() < 1e-12);
        assert!((count_corrected(0.1, 15.0, true) - 0.1 / 0.5).abs() < 1e-12);
        assert_eq!(count_corrected(0.1, 20.0, true), 1.0);
        // no wait: p/(1 - count*p), 1 once count*p >= 1
        assert!((count_corrected(0.1, 0.0, false) - 0.1).abs() < 1e-12);
        assert!((count_corrected(0.1, 5.0, false) - 0.2).abs() < 1e-12);
        assert_eq!(count_corrected(0.1, 10.0, false), 1.0);
    }

    fn view(now: Time, len: u32) -> QueueView {
        crate::aqm::test_rig::view(now, len, 100)
    }

    #[test]
    fn first_arrival_above_min_th_is_spared_and_count_restarts() {
        let mut r = red_tracking_q(cfg(true));
        r.ewma.on_link_idle(0);
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        // below min_th: enqueue, old cleared
        assert_eq!(
            r.on_arrival(&view(1, 3), &pkt, &mut rng),
            ArrivalVerdict::Enqueue
        );
        assert!(!r.old);
        // avg = 10 >= min_th: first such arrival sets old, count = 1, never drops
        assert_eq!(
            r.on_arrival(&view(2, 10), &pkt, &mut rng),
            ArrivalVerdict::Enqueue
        );
        assert!(r.old);
        assert_eq!(r.count, 1);
        // p_b = 0.05; with wait, count*p_b < 1 until count = 20: no drop for counts 2..19
        for k in 2..20 {
            assert_eq!(
                r.on_arrival(&view(2 + k, 10), &pkt, &mut rng),
                ArrivalVerdict::Enqueue,
                "count {k}"
            );
            assert_eq!(r.p_a, 0.0);
        }
        // count = 20: count*p_b = 1 -> p_a = 0.05/(2-1) = 0.05
        r.on_arrival(&view(30, 10), &pkt, &mut rng);
        assert!((r.p_a - 0.05).abs() < 1e-12, "p_a {}", r.p_a);
    }

    #[test]
    fn count_reaching_two_over_p_forces_a_drop_and_resets() {
        let mut r = red_tracking_q(cfg(true));
        r.ewma.on_link_idle(0);
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        r.old = true;
        r.count = 39; // next arrival makes count = 40, count*p_b = 2 -> p_a = 1
        assert_eq!(
            r.on_arrival(&view(1, 10), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        assert_eq!(r.count, 0);
    }

    #[test]
    fn avg_above_twice_max_th_is_a_forced_drop_in_gentle_mode() {
        let mut r = red_tracking_q(cfg(true));
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        assert_eq!(
            r.on_arrival(&view(1, 30), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
        assert_eq!(r.count, 0);
    }

    /// avg 40 above max_th = 15 (non-gentle), arrivals to an empty queue, no idle decay
    /// (Linux's RED under htb): ns-2 (`qlen > 1`) enqueues every one; Linux drops each while
    /// avg = 40 (1 - 0.002)^k stays >= 15, k = 1..489 (ln(15/40) / ln(0.998) = 489.9), and the
    /// 490th, at avg 14.99, is no forced drop.
    #[test]
    fn short_queue_exempt_decides_arrivals_to_an_empty_queue() {
        let run = |exempt: bool| {
            let mut r = Red::new(RedConfig {
                short_queue_exempt: exempt,
                idle_decay: false,
                ..cfg(false)
            });
            r.ewma.avg = 40.0;
            r.ewma.update(0, 40.0); // busy from t = 0: avg stays 40
            let mut rng = crate::aqm::test_rig::rng();
            let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
            (1..=491u64)
                .map(|k| r.on_arrival(&view(k * 1_000_000, 0), &pkt, &mut rng))
                .collect::<Vec<_>>()
        };
        assert!(run(true).iter().all(|v| *v == ArrivalVerdict::Enqueue));
        let linux = run(false);
        assert!(linux[..489]
            .iter()
            .all(|v| *v == ArrivalVerdict::Drop(DropKind::Forced)));
        assert_ne!(linux[489], ArrivalVerdict::Drop(DropKind::Forced));
    }

    #[test]
    fn full_buffer_is_a_forced_drop() {
        let mut r = Red::new(cfg(true));
        let mut rng = crate::aqm::test_rig::rng();
        let pkt = crate::aqm::test_rig::packet(PacketKind::Udp);
        assert_eq!(
            r.on_arrival(&view(1, 100), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Forced)
        );
    }

    #[test]
    fn ecn_marks_below_max_th_and_drops_above() {
        let mut r = red_tracking_q(RedConfig {
            ecn: true,
            ..cfg(true)
        });
        let mut rng = crate::aqm::test_rig::rng();
        let mut pkt = crate::aqm::test_rig::packet(PacketKind::TcpData);
        pkt.ecn.ect = true;
        r.old = true;
        r.count = 100; // count*p_b >= 2 -> p_a = 1
        assert_eq!(
            r.on_arrival(&view(1, 10), &pkt, &mut rng),
            ArrivalVerdict::Mark
        );
        r.count = 100;
        // avg = 20 in the gentle region: p_b = 0.1 + 0.9*5/15 = 0.4 >= mark_p -> drop
        assert_eq!(
            r.on_arrival(&view(2, 20), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
        // a non-ECT packet is dropped even below max_th
        pkt.ecn.ect = false;
        r.count = 100;
        assert_eq!(
            r.on_arrival(&view(3, 10), &pkt, &mut rng),
            ArrivalVerdict::Drop(DropKind::Early)
        );
    }

    #[test]
    fn automatic_thresholds_and_weight_follow_ns2() {
        let env = QueueEnv {
            link_delay: 5_000_000,
            ..crate::aqm::test_rig::env(50)
        };
        let p = AqmParams::new(serde_json::json!({"w_q": "auto"}), "q");
        let c = RedParams::default().resolve(&env, &p).unwrap();
        // ptc = 10e6 / (8 * 500) = 2500; min_th = max(5, 0.005 * 2500 / 2 = 6.25)
        assert_eq!(c.ptc, 2500.0);
        assert_eq!(c.min_th, 6.25);
        assert_eq!(c.max_th, 18.75);
        let params: RedParams = p.parse().unwrap();
        let c = params.resolve(&env, &p).unwrap();
        assert!((c.w_q - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-15);
    }

    #[test]
    fn invalid_parameters_name_the_field() {
        let env = crate::aqm::test_rig::env(50);
        let p = AqmParams::new(
            serde_json::json!({"min_th": 20, "max_th": 10}),
            "bottleneck.queue.aqm",
        );
        let e = p
            .parse::<RedParams>()
            .unwrap()
            .resolve(&env, &p)
            .unwrap_err();
        assert_eq!(e.path, "bottleneck.queue.aqm.max_th");
        let p = AqmParams::new(serde_json::json!({"max_pp": 0.1}), "q.aqm");
        let e = p.parse::<RedParams>().unwrap_err();
        assert!(e.message.contains("unknown field"), "{e}");
        let p = AqmParams::new(serde_json::json!({"max_p": 1.5}), "q.aqm");
        let e = p
            .parse::<RedParams>()
            .unwrap()
            .resolve(&env, &p)
            .unwrap_err();
        assert_eq!(e.path, "q.aqm.max_p");
    }
}
