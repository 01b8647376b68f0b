//! HyStart++, RFC 9406 (Balasubramanian, Huang, Olson 2023): the first slow start of a flow
//! leaves early when the RTT rises, through a Conservative Slow Start (CSS), instead of
//! overshooting until a loss.
//!
//! - Rounds (section 4.2): `windowEnd` is SND.NXT when a round starts; the round ends when
//!   `windowEnd` is acknowledged, and the next one starts with `lastRoundMinRTT =
//!   currentRoundMinRTT`, `currentRoundMinRTT = infinity`, `rttSampleCount = 0`,
//!   `windowEnd = SND.NXT`.
//! - Slow start (4.2): `cwnd += min(N, L)` per ACK of N new packets. Each RTT sample lowers
//!   `currentRoundMinRTT` and counts in `rttSampleCount`. Once a round has N_RTT_SAMPLE
//!   samples and both minima are known, `RttThresh = clamp(lastRoundMinRTT / MIN_RTT_DIVISOR,
//!   MIN_RTT_THRESH, MAX_RTT_THRESH)`, and `currentRoundMinRTT >= lastRoundMinRTT + RttThresh`
//!   enters CSS with `cssBaselineMinRtt = currentRoundMinRTT`.
//! - CSS (4.2): `cwnd += min(N, L) / CSS_GROWTH_DIVISOR`. Once a round has N_RTT_SAMPLE
//!   samples, `currentRoundMinRTT < cssBaselineMinRtt` marks the exit as spurious and resumes
//!   slow start, HyStart++ included. When CSS_ROUNDS rounds have ended in CSS (the partial
//!   round CSS began in counts), `ssthresh = cwnd`: congestion avoidance.
//! - A congestion signal (loss, ECN echo, timeout) in slow start or CSS is handled as without
//!   HyStart++: the controller's reduction, then congestion avoidance (4.2).
//!
//! Parameters (`tcp.hystart`): `kind = "rfc9406"` (or the older `enabled = true`); off by
//! default. `kind = "linux"` is Linux CUBIC's HyStart instead (`hystart_linux.rs`). The constants are the RFC's (4.3) and are
//! not configurable: MIN_RTT_THRESH 4 ms, MAX_RTT_THRESH 16 ms, MIN_RTT_DIVISOR 8,
//! N_RTT_SAMPLE 8 samples, CSS_GROWTH_DIVISOR 4, CSS_ROUNDS 5 rounds, L 8 packets.
//!
//! Readings where the RFC leaves a choice:
//! - L = 8 packets: the senders do not pace, and 4.3 gives L = 8 for a non-paced TCP
//!   (infinity only for a paced one).
//! - The slow-start increase is 4.2's `min(N, L)` per ACK (byte counting, RFC 3465), in place
//!   of the controller's own (Reno and CUBIC: one packet per ACK, as ns-2), for as long as
//!   HyStart++ runs: with delayed ACKs the window doubles per round instead of growing 1.5x.
//! - Only the initial slow start (4.3 SHOULD): HyStart++ ends for good at the first congestion
//!   signal, at the exit from CSS, or when cwnd reaches ssthresh; later slow starts (after a
//!   timeout) are the controller's. "Initial" is the first slow start whatever
//!   `tcp.ssthresh_init` is (the RFC assumes an arbitrarily high initial ssthresh); a finite
//!   one still ends slow start, and CSS, at ssthresh (RFC 5681).
//! - "windowEnd is ACKed" is read as in TCP: the cumulative ACK covers packet `windowEnd`
//!   (SND.UNA > windowEnd, as Linux's `after(snd_una, end_seq)`), so the ACK that ends a round
//!   times a packet sent in the next one.
//! - Rounds advance on the ACKs that carry an RTT sample (`on_rtt_sample`), before the sample
//!   is counted: the sample of the round-ending ACK belongs to the new round. An ACK without a
//!   sample cannot move a minimum; noticing its round end one sample later only delays the
//!   CSS_ROUNDS exit by that much.
//! - Every ACK that advances the cumulative point is an RTT sample, with or without
//!   `tcp.timestamps`: Linux's HyStart times each ACK from the send time of the packets it
//!   acknowledges (net/ipv4/tcp_input.c, `tcp_clean_rtx_queue`, `ca_rtt_us`), not only the
//!   RTO estimator's samples. The sender takes it from the send time the sink echoes (of the
//!   first packet a delayed ACK covers, where Linux takes the last: at most one packet's
//!   spacing more). With one timed packet per RTT a round would never reach N_RTT_SAMPLE.
//! - The sample is taken before the window grows on the same ACK (the RFC lists the growth
//!   first): an ACK whose sample enters CSS already grows by 1/CSS_GROWTH_DIVISOR.
//! - The CSS tests run on every sample from the N_RTT_SAMPLE-th of a round on, as the
//!   pseudocode does per ACK; after a spurious exit, slow start's test can enter CSS again in
//!   the same round with a new baseline.
//! - `ssthresh = cwnd` at the end of CSS is `floor(cwnd)`: ssthresh is whole packets, and
//!   flooring puts cwnd at or above it, so the controller is in congestion avoidance at once.
//!   CUBIC then starts its first epoch with `W_max = cwnd` (RFC 9438 section 4.10).

use crate::sim::Time;
use serde::{Deserialize, Serialize};

/// Lower bound of RttThresh (4.3).
pub const MIN_RTT_THRESH: Time = 4_000_000;
/// Upper bound of RttThresh (4.3).
pub const MAX_RTT_THRESH: Time = 16_000_000;
/// RttThresh is this fraction of the last round's minimum RTT, within the bounds (4.3).
pub const MIN_RTT_DIVISOR: Time = 8;
/// RTT samples a round needs before its minimum is compared (4.3).
pub const N_RTT_SAMPLE: u32 = 8;
/// CSS grows the window this many times slower than slow start (4.3).
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
/// Rounds CSS lasts at most (4.3).
pub const CSS_ROUNDS: u32 = 5;
/// Most packets one ACK may add to the window (4.3, a TCP that does not pace).
pub const L: i64 = 8;

/// Which hybrid slow start runs (`tcp.hystart.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HystartKind {
    /// HyStart++ (RFC 9406, this file), with either controller.
    Rfc9406,
    /// Linux CUBIC's HyStart (`hystart_linux.rs`); nothing with Reno, which has none in Linux.
    Linux,
}

/// `tcp.hystart`: `{ kind = "rfc9406" | "linux" }`, or the older `{ enabled = true }`
/// (= `kind = "rfc9406"`). Off when neither is given, or with `enabled = false` alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HystartParams {
    pub enabled: Option<bool>,
    pub kind: Option<HystartKind>,
}

impl HystartParams {
    /// HyStart++ on (the older spelling, kept for existing scenarios).
    pub const RFC9406: HystartParams = HystartParams {
        enabled: Some(true),
        kind: None,
    };

    /// The HyStart in force, if any.
    pub fn active(&self) -> Option<HystartKind> {
        match (self.enabled, self.kind) {
            (Some(false), _) => None,
            (_, Some(kind)) => Some(kind),
            (Some(true), None) => Some(HystartKind::Rfc9406),
            (None, None) => None,
        }
    }

    /// `enabled = false` beside a `kind` is a contradiction, not an off switch to guess at.
    pub fn validate(&self, path: &str) -> Result<(), crate::units::ScenarioError> {
        if let (Some(false), Some(kind)) = (self.enabled, self.kind) {
            return Err(crate::units::ScenarioError::new(
                format!("{path}.enabled"),
                format!(
                    "false contradicts kind = \"{}\": give `kind` alone to turn HyStart on, or \
                     `enabled = false` alone to turn it off",
                    match kind {
                        HystartKind::Rfc9406 => "rfc9406",
                        HystartKind::Linux => "linux",
                    }
                ),
            ));
        }
        Ok(())
    }
}

/// Written as `{ enabled = <on>, kind = ... }`: what reads back the same, and the same for
/// an unset field as for its default (`enabled = false`), so that the `ns2` profile's table
/// compares equal to no table.
impl Serialize for HystartParams {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("HystartParams", 2)?;
        st.serialize_field("enabled", &self.active().is_some())?;
        if let Some(kind) = self.kind {
            st.serialize_field("kind", &kind)?;
        } else {
            st.skip_field("kind")?;
        }
        st.end()
    }
}

/// The delay threshold of 4.2 for a round that follows one of minimum RTT `last_round_min`.
pub fn rtt_thresh(last_round_min: Time) -> Time {
    (last_round_min / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    /// Conservative Slow Start since the RTT rose to `baseline` (cssBaselineMinRtt); `rounds`
    /// have ended in it, the partial first included.
    Css {
        baseline: Time,
        rounds: u32,
    },
    /// CSS_ROUNDS rounds of CSS have ended: the next ACK sets ssthresh = cwnd.
    ToCongestionAvoidance,
    /// HyStart++ no longer acts (a congestion signal, the end of CSS, or cwnd at ssthresh).
    Over,
}

#[derive(Debug, Clone)]
pub struct HyStart {
    phase: Phase,
    /// windowEnd: the round ends when the cumulative ACK covers this packet.
    window_end: i64,
    /// lastRoundMinRTT and currentRoundMinRTT; None is the RFC's infinity.
    last_round_min_rtt: Option<Time>,
    current_round_min_rtt: Option<Time>,
    rtt_sample_count: u32,
}

impl Default for HyStart {
    fn default() -> Self {
        Self::new()
    }
}

impl HyStart {
    pub fn new() -> Self {
        HyStart {
            phase: Phase::SlowStart,
            // SND.NXT before the first packet (sequence numbers start at 0): the first ACK
            // ends this empty round and starts the first real one.
            window_end: 0,
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// An ACK that advanced the cumulative point to `snd_una` (the first packet not
    /// acknowledged) carried the RTT sample `rtt`; `snd_nxt` is the next new packet to send.
    pub fn on_rtt_sample(&mut self, rtt: Time, snd_una: i64, snd_nxt: i64) {
        if !matches!(self.phase, Phase::SlowStart | Phase::Css { .. }) {
            return;
        }
        if snd_una > self.window_end {
            self.start_round(snd_nxt);
        }
        let current = self.current_round_min_rtt.map_or(rtt, |m| m.min(rtt));
        self.current_round_min_rtt = Some(current);
        self.rtt_sample_count += 1;
        if self.rtt_sample_count < N_RTT_SAMPLE {
            return;
        }
        match self.phase {
            Phase::SlowStart => {
                if let Some(last) = self.last_round_min_rtt {
                    if current >= last + rtt_thresh(last) {
                        self.phase = Phase::Css {
                            baseline: current,
                            rounds: 0,
                        };
                    }
                }
            }
            Phase::Css { baseline, .. } if current < baseline => self.phase = Phase::SlowStart,
            _ => {}
        }
    }

    fn start_round(&mut self, snd_nxt: i64) {
        if let Phase::Css { baseline, rounds } = self.phase {
            self.phase = if rounds + 1 >= CSS_ROUNDS {
                Phase::ToCongestionAvoidance
            } else {
                Phase::Css {
                    baseline,
                    rounds: rounds + 1,
                }
            };
        }
        self.last_round_min_rtt = self.current_round_min_rtt;
        self.current_round_min_rtt = None;
        self.rtt_sample_count = 0;
        self.window_end = snd_nxt;
    }

    /// A new ACK of `acked` packets outside recovery. Returns whether HyStart++ grew the
    /// window; if not, the controller's own rule applies (congestion avoidance, or a slow
    /// start after HyStart++ ended).
    #[inline]
    pub fn on_ack(&mut self, cwnd: &mut f64, ssthresh: &mut i64, acked: i64) -> bool {
        let increase = acked.clamp(0, L) as f64;
        match self.phase {
            Phase::Over => false,
            Phase::ToCongestionAvoidance => {
                *ssthresh = cwnd.floor() as i64;
                self.phase = Phase::Over;
                false
            }
            _ if *cwnd >= *ssthresh as f64 => {
                self.phase = Phase::Over;
                false
            }
            Phase::SlowStart => {
                *cwnd += increase;
                true
            }
            Phase::Css { .. } => {
                *cwnd += increase / CSS_GROWTH_DIVISOR;
                true
            }
        }
    }

    /// Loss, ECN echo or timeout: the controller reduces as usual and HyStart++ is over.
    pub fn on_congestion(&mut self) {
        self.phase = Phase::Over;
    }

    pub fn state(&self, out: &mut crate::sim::StateSink) {
        let phase = match self.phase {
            Phase::SlowStart => 0.0,
            Phase::Css { .. } | Phase::ToCongestionAvoidance => 1.0,
            Phase::Over => 2.0,
        };
        out("hystart_phase", phase);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// One flow, ACK-clocked: every ACK acknowledges one packet and carries an RTT sample,
    /// and the sender then fills the window (cwnd packets outstanding).
    struct Flow {
        h: HyStart,
        cwnd: f64,
        ssthresh: i64,
        una: i64,
        nxt: i64,
        /// Rounds started so far (round-ending ACKs seen).
        rounds: u32,
    }

    impl Flow {
        fn new() -> Self {
            Flow {
                h: HyStart::new(),
                cwnd: 10.0,
                ssthresh: 1 << 20,
                una: 0,
                nxt: 10,
                rounds: 0,
            }
        }

        /// The first half of an ACK of `n` packets: its RTT sample.
        fn sample(&mut self, n: i64, rtt: Time) {
            self.una += n;
            if self.una > self.h.window_end {
                self.rounds += 1;
            }
            self.h.on_rtt_sample(rtt, self.una, self.nxt);
        }

        /// The second half: the window update (whether HyStart++ grew it), then sends.
        fn grow(&mut self, n: i64) -> bool {
            let grew = self.h.on_ack(&mut self.cwnd, &mut self.ssthresh, n);
            self.nxt = self.nxt.max(self.una + self.cwnd.floor() as i64);
            grew
        }

        fn ack_n(&mut self, n: i64, rtt: Time) -> bool {
            self.sample(n, rtt);
            self.grow(n)
        }

        fn ack(&mut self, rtt: Time) -> bool {
            self.ack_n(1, rtt)
        }

        /// ACKs until the next round starts (its first ACK included), all with RTT `rtt`.
        fn until_next_round(&mut self, rtt: Time) {
            let r = self.rounds;
            while self.rounds == r {
                self.ack(rtt);
            }
        }

        /// A flow that has seen rounds at 100 ms and has just entered CSS on the 8th sample
        /// of a round at 120 ms (threshold 12.5 ms).
        fn in_css() -> Self {
            let mut f = Flow::new();
            f.until_next_round(100 * MS);
            f.until_next_round(100 * MS);
            f.until_next_round(120 * MS);
            for _ in 1..N_RTT_SAMPLE {
                f.ack(120 * MS);
            }
            assert_eq!(
                f.h.phase(),
                Phase::Css {
                    baseline: 120 * MS,
                    rounds: 0
                }
            );
            f
        }
    }

    #[test]
    fn rtt_thresh_is_an_eighth_of_the_last_round_min_within_4_and_16_ms() {
        // RFC 9406 section 4.2 (RttThresh), constants of 4.3.
        assert_eq!(rtt_thresh(0), 4 * MS);
        assert_eq!(rtt_thresh(20 * MS), 4 * MS);
        assert_eq!(rtt_thresh(32 * MS), 4 * MS);
        assert_eq!(rtt_thresh(80 * MS), 10 * MS);
        assert_eq!(rtt_thresh(100 * MS), 12_500_000);
        assert_eq!(rtt_thresh(128 * MS), 16 * MS);
        assert_eq!(rtt_thresh(1_000 * MS), 16 * MS);
    }

    #[test]
    fn a_round_whose_min_rtt_rises_by_rtt_thresh_enters_css_after_n_rtt_sample_samples() {
        // RFC 9406 section 4.2: the delay test needs N_RTT_SAMPLE samples in the round and
        // both minima; currentRoundMinRTT >= lastRoundMinRTT + RttThresh enters CSS.
        let mut f = Flow::new();
        // Rounds 1 and 2 at 100 ms (the first ACK of a round gives its first sample).
        f.until_next_round(100 * MS);
        f.until_next_round(100 * MS);
        f.until_next_round(112 * MS);
        // Round 3: one sample at 112 ms, the rest at 126: its minimum, 112 ms, is below
        // 100 + 12.5 ms.
        f.until_next_round(126 * MS);
        assert_eq!(f.h.phase(), Phase::SlowStart);
        // Round 4 at 126 ms: 126 >= 112 + 14 ms, tested from the 8th sample on.
        for _ in 2..N_RTT_SAMPLE {
            f.ack(126 * MS);
        }
        assert_eq!(f.h.rtt_sample_count, N_RTT_SAMPLE - 1);
        assert_eq!(f.h.phase(), Phase::SlowStart, "7 samples: no test yet");
        f.ack(126 * MS);
        assert_eq!(
            f.h.phase(),
            Phase::Css {
                baseline: 126 * MS,
                rounds: 0
            },
            "8th sample: 126 >= 112 + 14"
        );
        // Without the previous round's minimum (the first round) there is no test.
        let mut g = Flow::new();
        for _ in 0..10 {
            g.ack(500 * MS);
        }
        assert_eq!(g.h.rtt_sample_count, 10);
        assert_eq!(g.h.last_round_min_rtt, None);
        assert_eq!(g.h.phase(), Phase::SlowStart);
    }

    #[test]
    fn slow_start_adds_min_acked_l_and_css_a_quarter_of_it() {
        // RFC 9406 section 4.2: cwnd += min(N, L*SMSS) in slow start, and that over
        // CSS_GROWTH_DIVISOR in CSS; L = 8 without pacing (4.3).
        let mut f = Flow::new();
        let w = f.cwnd;
        assert!(f.ack_n(1, 100 * MS));
        assert!(f.ack_n(2, 100 * MS));
        assert!(f.ack_n(20, 100 * MS));
        assert_eq!(f.cwnd, w + 1.0 + 2.0 + 8.0);
        let mut f = Flow::in_css();
        let w = f.cwnd;
        assert!(f.ack_n(1, 120 * MS));
        assert_eq!(f.cwnd, w + 0.25);
        assert!(f.ack_n(2, 120 * MS));
        assert_eq!(f.cwnd, w + 0.75);
        assert!(f.ack_n(20, 120 * MS));
        assert_eq!(f.cwnd, w + 2.75);
    }

    #[test]
    fn css_ends_after_css_rounds_rounds_with_ssthresh_at_cwnd() {
        // RFC 9406 section 4.2: CSS lasts at most CSS_ROUNDS rounds, the partial round of
        // the entry included; then ssthresh = cwnd and congestion avoidance.
        let mut f = Flow::in_css();
        let entered_in = f.rounds;
        loop {
            f.sample(1, 120 * MS);
            if f.h.phase() == Phase::ToCongestionAvoidance {
                break;
            }
            let before = f.cwnd;
            assert!(f.grow(1), "CSS grows the window");
            assert_eq!(f.cwnd, before + 0.25);
        }
        assert_eq!(
            f.rounds - entered_in,
            CSS_ROUNDS,
            "the 5th round end (the partial entry round counting) ends CSS"
        );
        // The window update of the ACK that ended CSS sets ssthresh and leaves the growth
        // to the controller's congestion avoidance.
        let cwnd = f.cwnd;
        assert!(!f.grow(1));
        assert_eq!(f.ssthresh, cwnd.floor() as i64);
        assert_eq!(f.cwnd, cwnd);
        assert_eq!(f.h.phase(), Phase::Over);
        assert!(f.cwnd >= f.ssthresh as f64);
    }

    #[test]
    fn an_rtt_below_the_css_baseline_resumes_slow_start() {
        // RFC 9406 section 4.2: in a CSS round with N_RTT_SAMPLE samples,
        // currentRoundMinRTT < cssBaselineMinRtt resumes slow start (with HyStart++).
        let mut f = Flow::in_css();
        f.until_next_round(120 * MS);
        assert!(matches!(f.h.phase(), Phase::Css { rounds: 1, .. }));
        for _ in 2..N_RTT_SAMPLE {
            f.ack(119 * MS);
        }
        assert!(
            matches!(f.h.phase(), Phase::Css { .. }),
            "fewer than 8 samples"
        );
        f.ack(119 * MS);
        assert_eq!(f.h.phase(), Phase::SlowStart);
        let w = f.cwnd;
        assert!(f.ack(119 * MS));
        assert_eq!(f.cwnd, w + 1.0, "slow start's growth again");
        // HyStart++ is on again: a round at 134 ms after this one (min 119 ms) enters CSS.
        f.until_next_round(119 * MS);
        f.until_next_round(134 * MS);
        for _ in 1..N_RTT_SAMPLE {
            f.ack(134 * MS);
        }
        assert!(matches!(f.h.phase(), Phase::Css { baseline, rounds: 0 } if baseline == 134 * MS));
    }

    #[test]
    fn congestion_in_css_or_slow_start_ends_hystart() {
        // RFC 9406 section 4.2: loss or ECN in slow start or CSS: the controller's reduction
        // and congestion avoidance; 4.3: HyStart++ only in the initial slow start.
        for mut f in [Flow::in_css(), Flow::new()] {
            f.h.on_congestion();
            assert_eq!(f.h.phase(), Phase::Over);
            f.cwnd = 4.0;
            f.ssthresh = 20;
            // A later slow start (after a timeout) is the controller's.
            assert!(!f.ack(100 * MS));
            assert_eq!(f.cwnd, 4.0);
            for _ in 0..100 {
                f.ack(300 * MS);
            }
            assert_eq!(f.h.phase(), Phase::Over);
        }
    }

    #[test]
    fn reaching_ssthresh_ends_hystart() {
        // RFC 9406 section 4.3: HyStart++ runs in slow start; cwnd >= ssthresh is
        // congestion avoidance (RFC 5681) whatever HyStart++'s phase.
        let mut f = Flow::in_css();
        f.ssthresh = f.cwnd.floor() as i64;
        assert!(!f.ack(120 * MS));
        assert_eq!(f.h.phase(), Phase::Over);
    }
}
