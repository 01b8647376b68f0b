//! The incremental scoreboard against the walks it replaced (issue 24, item 13).
//!
//! - Property: over random runs of sends, ACKs with SACK blocks, recoveries, timeouts,
//!   retransmissions and RACK's marks, every answer of `Scoreboard` (pipe, NextSeg, IsLost,
//!   what an ACK delivered and in which order, what RACK marked and the reordering timer) is
//!   the one `reference.rs` (the scoreboard as it was, walking the flight) gives.
//! - Work: the steps the scoreboard takes per event (a packet sent, an ACK, a round of
//!   RACK's marks) do not grow with the window, over a scripted flight (and over whole runs
//!   in `src/scoreboard_work_tests.rs`, at the crate's root: a run is the top floor). The
//!   fuzz campaign's finding: the same run took 0.1 s at a window of 4,096 and 20 s at 2^20.

use super::rack_tlp::Rack;
use super::reference::ReferenceScoreboard;
use super::rfc6675::{Delivered, LossRule, NextSeg, Scoreboard};
use super::work;
use crate::net::SackBlock;
use crate::sim::Time;
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    /// Sends this many new packets.
    SendNew(u8),
    /// Time passes.
    Tick(u32),
    /// An ACK: cumulative point and SACK blocks as offsets into the flight.
    Ack {
        cum: u16,
        blocks: Vec<(u16, u8)>,
    },
    /// Sends up to this many packets chosen by NextSeg (as a recovery does).
    Recover(u8, bool),
    EnterRecovery,
    Timeout,
    /// Resends one packet (a go-back-N step or a tail loss probe), possibly one already
    /// acknowledged.
    Resend(u16),
    /// RACK's detection with this reordering window (RACK only).
    RackDetect(u32),
    /// RACK's marks on an RTO (RACK only); true: with no RTT sample yet (no threshold).
    RtoMarks(u32, bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u8..12).prop_map(Op::SendNew),
        3 => (0u32..400).prop_map(Op::Tick),
        6 => (any::<u16>(), prop::collection::vec((any::<u16>(), 1u8..20), 0..4))
            .prop_map(|(cum, blocks)| Op::Ack { cum, blocks }),
        3 => (1u8..6, any::<bool>()).prop_map(|(n, new)| Op::Recover(n, new)),
        1 => Just(Op::EnterRecovery),
        1 => Just(Op::Timeout),
        1 => any::<u16>().prop_map(Op::Resend),
        3 => (0u32..300).prop_map(Op::RackDetect),
        1 => (0u32..300, any::<bool>()).prop_map(|(r, none)| Op::RtoMarks(r, none)),
    ]
}

/// Both scoreboards, driven alike.
struct Pair {
    new: Scoreboard,
    old: ReferenceScoreboard,
    rule: LossRule,
    rack: Rack,
    now: Time,
}

impl Pair {
    fn new(dup_thresh: u32, rule: LossRule) -> Pair {
        Pair {
            new: Scoreboard::new(dup_thresh, rule),
            old: ReferenceScoreboard::new(dup_thresh, rule),
            rule,
            rack: Rack::default(),
            now: 0,
        }
    }

    fn sent(&mut self, seg: NextSeg) {
        self.new.on_sent(seg, self.now);
        self.old.on_sent(seg, self.now);
    }

    fn flight(&self) -> i64 {
        self.new.high_data() - self.new.snd_una() + 1
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let base = self.new.snd_una();
        let flight = self.flight();
        match *op {
            Op::SendNew(n) => {
                for _ in 0..n {
                    if self.flight() < 200 {
                        let seq = self.new.high_data() + 1;
                        self.sent(NextSeg::New(seq));
                    }
                }
            }
            Op::Tick(dt) => self.now += Time::from(dt),
            Op::Ack { cum, ref blocks } => {
                // Mostly at or just above the cumulative point, as a receiver reports, and
                // now and then anywhere (below it, beyond HighData).
                let cum = base - 1 + i64::from(cum) % (flight + 1).min(8);
                let blocks: Vec<SackBlock> = blocks
                    .iter()
                    .map(|&(start, len)| {
                        let start = base - 2 + i64::from(start) % (flight + 6);
                        SackBlock {
                            start,
                            end: start + i64::from(len),
                        }
                    })
                    .collect();
                let (mut got, mut want) = (Vec::new(), Vec::new());
                let now = self.now;
                let rack = &mut self.rack;
                let u_new = self.new.on_ack_visit(cum, &blocks, |d: Delivered| {
                    rack.on_delivered(d, now, None);
                    got.push(d);
                });
                let u_old = self.old.on_ack_visit(cum, &blocks, |d| want.push(d));
                prop_assert_eq!(u_new, u_old);
                prop_assert_eq!(got, want, "delivered, in order");
            }
            Op::Recover(n, new_data) => {
                for _ in 0..n {
                    let seg = self.new.next_seg(new_data);
                    prop_assert_eq!(seg, self.old.next_seg(new_data));
                    match seg {
                        Some(seg) if self.flight() < 200 => self.sent(seg),
                        _ => break,
                    }
                }
            }
            Op::EnterRecovery => {
                if self.new.may_enter_recovery() {
                    self.new.enter_recovery();
                    self.old.enter_recovery();
                }
            }
            Op::Timeout => {
                self.new.on_timeout();
                self.old.on_timeout();
            }
            Op::Resend(at) => {
                if flight > 0 {
                    let seq = base - 2 + i64::from(at) % (flight + 2);
                    self.sent(NextSeg::Unsacked(seq));
                }
            }
            Op::RackDetect(reo) if self.rule == LossRule::Marked => {
                if let Some((newest, threshold)) = self.rack.loss_threshold(Time::from(reo)) {
                    let got = self.new.mark_lost_by_time(newest, threshold, self.now);
                    let want = self.old.mark_lost_by_time(newest, threshold, self.now);
                    prop_assert_eq!(got, want, "marked and reordering timer");
                }
            }
            Op::RtoMarks(reo, none) if self.rule == LossRule::Marked => {
                let threshold = match self.rack.loss_threshold(Time::from(reo)) {
                    Some((_, t)) if !none => t,
                    _ => Time::MAX,
                };
                self.new.mark_losses_on_rto(threshold, self.now);
                self.old.mark_losses_on_rto(threshold, self.now);
            }
            Op::RackDetect(_) | Op::RtoMarks(..) => {}
        }
        self.agree()
    }

    /// Every answer the sender can ask for is the same.
    fn agree(&self) -> Result<(), TestCaseError> {
        let (n, o) = (&self.new, &self.old);
        prop_assert_eq!(n.snd_una(), o.snd_una());
        prop_assert_eq!(n.high_data(), o.high_data());
        prop_assert_eq!(n.in_recovery(), o.in_recovery());
        prop_assert_eq!(n.may_enter_recovery(), o.may_enter_recovery());
        prop_assert_eq!(n.sacked_count(), o.sacked_count());
        prop_assert_eq!(n.pipe(), o.pipe(), "pipe");
        prop_assert_eq!(n.first_unacked_is_lost(), o.first_unacked_is_lost());
        prop_assert_eq!(
            n.next_seg(true),
            o.next_seg(true),
            "NextSeg, new data allowed"
        );
        prop_assert_eq!(n.next_seg(false), o.next_seg(false), "NextSeg, no new data");
        // Every packet of a small flight, and 64 spread over a larger one (the reference's
        // IsLost walks the flight).
        let (lo, hi) = (n.snd_una() - 2, n.high_data() + 2);
        let stride = ((hi - lo) / 64).max(1) as usize;
        for seq in (lo..=hi)
            .step_by(stride)
            .chain([n.snd_una(), n.high_data()])
        {
            prop_assert_eq!(n.is_lost(seq), o.is_lost(seq), "IsLost({})", seq);
            prop_assert_eq!(n.is_sacked(seq), o.is_sacked(seq), "SACKed({})", seq);
            // The sender's former skip over SACKed packets.
            let mut t = seq;
            while t <= o.high_data() && o.is_sacked(t) {
                t += 1;
            }
            prop_assert_eq!(n.next_unsacked(seq), t, "next unSACKed from {}", seq);
        }
        Ok(())
    }
}

fn run_pair(dup_thresh: u32, rule: LossRule, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut p = Pair::new(dup_thresh, rule);
    for op in ops {
        p.apply(op)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn dupthresh_rule_answers_as_the_walks(
        dup_thresh in 1u32..6,
        ops in prop::collection::vec(op(), 1..250),
    ) {
        run_pair(dup_thresh, LossRule::DupThresh, &ops)?;
    }

    #[test]
    fn rack_marks_answer_as_the_walks(
        dup_thresh in 1u32..6,
        ops in prop::collection::vec(op(), 1..250),
    ) {
        run_pair(dup_thresh, LossRule::Marked, &ops)?;
    }
}

/// A flight of `window` packets sent at once, every 20th lost, the others acknowledged one by
/// one with a cumulative ACK and the SACK block above the last hole, RACK looking for losses
/// and NextSeg resending one packet per ACK: steps per scoreboard event.
macro_rules! scripted_steps {
    ($board:ident, $rule:expr, $window:expr) => {{
        let rule: LossRule = $rule;
        let mut b = $board::new(3, rule);
        let window: i64 = $window;
        let mut rack = Rack::default();
        let (steps0, events0) = work::counts();
        for seq in 0..window {
            b.on_sent(NextSeg::New(seq), 0);
        }
        b.enter_recovery();
        let (mut cum, mut hole) = (-1, -1);
        for (t, seq) in (0..window).filter(|s| s % 20 != 7).enumerate() {
            let now = 1_000 + t as Time;
            if hole < 0 && seq == cum + 1 {
                cum = seq;
            } else if hole < 0 {
                hole = cum + 1;
            }
            let blocks = [SackBlock {
                start: hole.max(cum + 1),
                end: seq + 1,
            }];
            let blocks = if hole < 0 { &blocks[..0] } else { &blocks[..] };
            b.on_ack_visit(cum, blocks, |d| rack.on_delivered(d, now, None));
            match rack.loss_threshold(0) {
                Some((newest, threshold)) if rule == LossRule::Marked => {
                    b.mark_lost_by_time(newest, threshold, now);
                }
                _ => {}
            }
            if let Some(seg) = b.next_seg(false) {
                b.on_sent(seg, now);
            }
            let _ = b.pipe();
        }
        let (steps, events) = work::counts();
        (steps - steps0) as f64 / (events - events0) as f64
    }};
}

/// The control of the test above: the same count over a scripted flight takes about 6 steps
/// per event for the indices at windows of 2^8 and 2^12, and 5,000-7,000 for the walks at
/// 2^12, so the count does see walks over the flight.
#[test]
fn the_step_count_sees_walks_over_the_flight() {
    for rule in [LossRule::DupThresh, LossRule::Marked] {
        let small = scripted_steps!(Scoreboard, rule, 1 << 8);
        let large = scripted_steps!(Scoreboard, rule, 1 << 12);
        assert!(
            small < 60.0 && large < 60.0 && large < 2.0 * small,
            "{rule:?}: {small:.1} and {large:.1} steps per event"
        );
        let walks = scripted_steps!(ReferenceScoreboard, rule, 1 << 12);
        assert!(
            walks > 1_000.0,
            "{rule:?}: the walks, {walks:.1} steps per event"
        );
    }
}

/// The memory the indices add per packet outstanding (for the memory estimate of window
/// state, `memory.rs`): before them the scoreboard kept 17 bytes per packet (its state and
/// last sending); the ordered sets add about a bit per packet each, RACK's sending order 4
/// bytes per transmission watched.
#[test]
fn index_memory_per_packet_outstanding() {
    for (rule, most) in [(LossRule::DupThresh, 0.26), (LossRule::Marked, 4.7)] {
        let mut s = Scoreboard::new(3, rule);
        let n = 1 << 16;
        for seq in 0..n {
            s.on_sent(NextSeg::New(seq), 0);
        }
        let per_packet = s.index_bytes() as f64 / n as f64;
        assert!(
            per_packet <= most,
            "{rule:?}: {per_packet:.3} bytes per packet"
        );
        // SACKing, acknowledging and marking them all lets it all go (but for the word
        // holding the cumulative ACK, at each level of each set).
        s.on_ack(
            n / 2,
            &[SackBlock {
                start: n / 2 + 2,
                end: n,
            }],
        );
        if rule == LossRule::Marked {
            s.mark_losses_on_rto(0, 1);
        }
        s.on_ack(n - 1, &[]);
        assert!(
            s.index_bytes() <= 5 * 4 * 8,
            "{rule:?}: {} bytes left",
            s.index_bytes()
        );
    }
}
