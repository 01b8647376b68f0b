//! RACK-TLP loss detection (RFC 8985, Cheng, Cardwell, Dukkipati, Jha 2021), in packets.
//!
//! RACK (section 6): a packet is lost when a packet sent after it has been delivered and
//! RACK.rtt + RACK.reo_wnd has passed since it was sent.
//! - Step 2 (`Rack::on_delivered`): RACK.xmit_ts / RACK.end_seq follow the most recently sent
//!   packet delivered. RACK.rtt is the RTT of the most recently sent packet among those each
//!   ACK newly delivers (the RFC's RACK_update walks them "in ascending order of
//!   Segment.xmit_ts" and sets RACK.rtt for every one, RACK.xmit_ts only for one sent later;
//!   Linux's `tcp_rack_advance`, net/ipv4/tcp_recovery.c, likewise sets `rack.rtt_us` for
//!   every packet it is given and `rack.mstamp` only for a later one, though in the order of
//!   its SACK and cumulative-ACK walks). A retransmitted packet's delivery is used only if
//!   its RTT is at least RACK.min_RTT (and, with timestamps, its echo is not older than the
//!   retransmission): it may be the first copy's ACK.
//! - Step 3: reordering is seen when a packet never retransmitted is delivered below
//!   RACK.fack, the highest packet delivered so far.
//! - Step 4 (`Rack::reo_wnd`): 0 while no reordering is seen and the sender is in recovery or
//!   at least DupThresh packets are SACKed; else min(reo_wnd_mult x min_RTT / 4, SRTT). A
//!   D-SACK (at most one per round trip) increments reo_wnd_mult and keeps it for 16
//!   recoveries (`on_dsack`, `on_recovery_end`).
//! - Step 5 and the reordering timer: `Scoreboard::mark_lost_by_time` marks the packets and
//!   says when to look again. Section 6.3: on an RTO, the first unacknowledged packet and each
//!   one already due are marked (`Scoreboard::mark_losses_on_rto`).
//!
//! TLP (section 7, `TailLossProbe`): outside recovery, with nothing SACKed, a probe timeout
//! (PTO) of 2 SRTT (plus `max_ack_delay` when one packet is in flight, for a delayed ACK;
//! 1 s before any RTT sample; never past the RTO) sends one packet (new data if the window
//! allows, else the highest packet sent again) to draw an ACK whose SACK lets RACK repair a
//! tail loss without a timeout. If the ACK shows that a retransmitted probe repaired a loss
//! (section 7.4), the congestion controller reacts as to any loss.
//!
//! Parameters (`tcp.rack_tlp`): `enabled` (false; the `linux` profile sets it),
//! `max_ack_delay` (TLP.max_ack_delay, the worst-case delayed ACK: 200 ms, RFC 8985
//! section 7.2's WCDelAckT), and `pto` (`rfc8985`, or `linux`: `linux_probe_timeout`).
//!
//! Readings: RACK.min_RTT is the least RACK.rtt sample of the connection (the RFC leaves the
//! filter open; Linux keeps a windowed minimum over 5 minutes, longer than most runs). A
//! TLP is not sent while an earlier probe's episode is unresolved (Linux `tcp_send_loss_probe`:
//! "At most one outstanding TLP"); the RTO is re-armed instead.

use crate::sim::Time;
use crate::units::Duration;
use crate::units::ScenarioError;
use serde::{Deserialize, Serialize};

use super::rfc6675::{Delivered, SendStamp};

/// RFC 8985 section 6.2 step 4: an inflated reordering window lasts this many recoveries.
pub const REO_WND_PERSIST: u32 = 16;
/// Section 7.2: the PTO with no RTT sample yet.
pub const PTO_WITHOUT_RTT: Time = 1_000_000_000;

/// How the probe timeout is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PtoRule {
    /// RFC 8985 section 7.2: 2 SRTT, plus `max_ack_delay` with one packet in flight; never
    /// past the RTO's expiry.
    #[default]
    Rfc8985,
    /// Linux `tcp_schedule_loss_probe` (net/ipv4/tcp_output.c): 2 SRTT, plus min_rto
    /// (`tcp_rto_min_us`) with one packet out, else plus 2 ms (`TCP_TIMEOUT_MIN_US`); capped
    /// by the RTO itself when an ACK schedules it, by the time left until the RTO measured
    /// from the head's last transmission when new data does (`tcp_rto_delta_us`).
    Linux,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct RackTlpParams {
    /// RACK-TLP instead of the DupThresh rule (`recovery = "rfc6675"` only).
    pub enabled: bool,
    /// TLP.max_ack_delay: added to the PTO when one packet is in flight (200 ms; the RFC
    /// rule only).
    pub max_ack_delay: Duration,
    /// The probe timeout: `rfc8985` (the default) or `linux`.
    pub pto: PtoRule,
}

impl Default for RackTlpParams {
    fn default() -> Self {
        RackTlpParams {
            enabled: false,
            max_ack_delay: Duration(200_000_000),
            pto: PtoRule::Rfc8985,
        }
    }
}

impl RackTlpParams {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if self.max_ack_delay.0 > 60_000_000_000 {
            return Err(ScenarioError::new(
                format!("{path}.max_ack_delay"),
                format!(
                    "must be at most 60s (a delayed-ACK bound), got {}s",
                    self.max_ack_delay.secs()
                ),
            ));
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct Rack {
    /// The sending of the most recently sent packet delivered (RACK.xmit_ts, RACK.end_seq).
    newest: Option<SendStamp>,
    /// RACK.rtt: that packet's RTT.
    rtt: Time,
    min_rtt: Option<Time>,
    /// The most recently sent packet the ACK being processed has delivered so far.
    ack_newest: Option<SendStamp>,
    /// RACK.fack: the highest packet delivered.
    fack: i64,
    reordering_seen: bool,
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    /// RACK.dsack_round: no second increment until the cumulative ACK passes this.
    dsack_round: Option<i64>,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            newest: None,
            rtt: 0,
            min_rtt: None,
            ack_newest: None,
            fack: -1,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
        }
    }
}

impl Rack {
    /// An ACK arrives: its deliveries follow (`on_delivered`).
    pub fn begin_ack(&mut self) {
        self.ack_newest = None;
    }

    /// Steps 2 and 3 for one packet newly delivered by the current ACK. `echo`: the ACK's
    /// timestamp echo, when timestamps are on.
    pub fn on_delivered(&mut self, d: Delivered, now: Time, echo: Option<Time>) {
        if d.seq > self.fack {
            self.fack = d.seq;
        } else if !d.retransmitted {
            self.reordering_seen = true;
        }
        let rtt = now.saturating_sub(d.sent.at);
        if d.retransmitted {
            // An ACK of the first copy would make the retransmission look delivered early.
            // Before any trusted sample RACK.min_RTT is infinite, so no retransmission's
            // delivery counts yet (Linux `tcp_rack_advance`: `rtt_us < tcp_min_rtt(tp)` with
            // the minimum still ~0U).
            if echo.is_some_and(|e| e < d.sent.at) || self.min_rtt.is_none_or(|m| rtt < m) {
                return;
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        // Taken in sending order, the last packet of the ACK sets RACK.rtt.
        if self.ack_newest.is_none_or(|n| d.sent > n) {
            self.ack_newest = Some(d.sent);
            self.rtt = rtt;
        }
        if self.newest.is_none_or(|n| d.sent > n) {
            self.newest = Some(d.sent);
        }
    }

    /// A D-SACK arrived; `snd_nxt` is the next new packet.
    pub fn on_dsack(&mut self, snd_una: i64, snd_nxt: i64) {
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult += 1;
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// A fast or RTO recovery ended.
    pub fn on_recovery_end(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// RACK.reo_wnd (step 4). `srtt` 0 means no sample yet.
    pub fn reo_wnd(
        &self,
        recovering: bool,
        segs_sacked: usize,
        dup_thresh: usize,
        srtt: Time,
    ) -> Time {
        if !self.reordering_seen && (recovering || segs_sacked >= dup_thresh) {
            return 0;
        }
        let wnd = self.min_rtt.unwrap_or(0) / 4 * self.reo_wnd_mult as Time;
        if srtt > 0 {
            wnd.min(srtt)
        } else {
            wnd
        }
    }

    /// What step 5 compares against: the newest delivered packet's sending and RACK.rtt +
    /// `reo_wnd`; None before any delivery.
    pub fn loss_threshold(&self, reo_wnd: Time) -> Option<(SendStamp, Time)> {
        self.newest.map(|n| (n, self.rtt + reo_wnd))
    }

    pub fn min_rtt(&self) -> Option<Time> {
        self.min_rtt
    }

    /// RACK.rtt (0 before any delivery).
    pub fn rtt(&self) -> Time {
        self.rtt
    }
}

/// TLP_calc_PTO (section 7.2): the probe timeout for `flight` packets in flight; `srtt` 0
/// means no sample yet. The caller caps it at the RTO's expiry.
pub fn probe_timeout(srtt: Time, flight: i64, max_ack_delay: Time) -> Time {
    if srtt == 0 {
        return PTO_WITHOUT_RTT;
    }
    let pto = 2 * srtt;
    if flight == 1 {
        pto + max_ack_delay
    } else {
        pto
    }
}

/// Linux's TCP_TIMEOUT_MIN_US: the PTO's allowance with more than one packet out.
pub const LINUX_PTO_ALLOWANCE: Time = 2_000_000;

/// Linux `tcp_schedule_loss_probe`: 2 SRTT + (min_rto with one packet out, else 2 ms), 1 s
/// (`TCP_TIMEOUT_INIT`) before an RTT sample, at most `cap` (the RTO when an ACK schedules
/// the probe, the time left until the RTO from the head's last transmission when new data
/// does; no cap when that is not positive).
pub fn linux_probe_timeout(srtt: Time, packets_out: i64, min_rto: Time, cap: i64) -> Time {
    let pto = if srtt == 0 {
        PTO_WITHOUT_RTT
    } else if packets_out == 1 {
        2 * srtt + min_rto
    } else {
        2 * srtt + LINUX_PTO_ALLOWANCE
    };
    if cap > 0 {
        pto.min(cap as Time)
    } else {
        pto
    }
}

/// The state of a TLP episode (section 7.1: TLP.end_seq, TLP.is_retrans).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TailLossProbe {
    /// SND.NXT when the probe was sent: the next packet after it.
    end_seq: Option<i64>,
    is_retrans: bool,
}

/// What an ACK says of the outstanding probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// No episode, or not yet resolved.
    Pending,
    /// Resolved without a loss (new data delivered, a spurious probe, or both copies lost).
    Resolved,
    /// The retransmitted probe repaired a loss: the controller must react (section 7.4).
    RepairedLoss,
}

impl TailLossProbe {
    pub fn outstanding(&self) -> bool {
        self.end_seq.is_some()
    }

    /// Section 7.1: at the start of a fast or RTO recovery.
    pub fn reset(&mut self) {
        *self = TailLossProbe::default();
    }

    pub fn on_probe_sent(&mut self, snd_nxt: i64, is_retrans: bool) {
        self.end_seq = Some(snd_nxt);
        self.is_retrans = is_retrans;
    }

    /// TLP_process_ack (section 7.4.2). `ack` is the ACK number in packets (the next packet
    /// expected), `dsack_end` the end of a D-SACK block if the ACK had one, `bare_dupack` an
    /// ACK that advances nothing and carries no SACK block.
    pub fn on_ack(&mut self, ack: i64, dsack_end: Option<i64>, bare_dupack: bool) -> ProbeOutcome {
        let Some(end) = self.end_seq else {
            return ProbeOutcome::Pending;
        };
        if ack < end {
            return ProbeOutcome::Pending;
        }
        // The RFC's order of cases.
        let outcome = if !self.is_retrans || dsack_end == Some(end) {
            ProbeOutcome::Resolved
        } else if ack > end {
            ProbeOutcome::RepairedLoss
        } else if bare_dupack {
            ProbeOutcome::Resolved
        } else {
            return ProbeOutcome::Pending;
        };
        self.end_seq = None;
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;

    /// Packet `seq` sent at `at` as the `seq`-th transmission (`order` given for resends).
    fn d(seq: i64, at: Time, retransmitted: bool) -> Delivered {
        let order = if retransmitted {
            100 + seq as u64
        } else {
            seq as u64
        };
        Delivered {
            seq,
            sent: SendStamp { at, order },
            retransmitted,
        }
    }

    fn stamp(seq: i64, at: Time, retransmitted: bool) -> SendStamp {
        d(seq, at, retransmitted).sent
    }

    /// One ACK delivering `packets` at `now`.
    fn ack(r: &mut Rack, packets: &[Delivered], now: Time) {
        r.begin_ack();
        for &p in packets {
            r.on_delivered(p, now, None);
        }
    }

    #[test]
    fn rack_follows_the_most_recently_sent_delivery() {
        let mut r = Rack::default();
        ack(&mut r, &[d(0, 0, false)], 100 * MS);
        ack(&mut r, &[d(2, 10 * MS, false)], 120 * MS);
        assert_eq!(
            r.loss_threshold(0),
            Some((stamp(2, 10 * MS, false), 110 * MS))
        );
        // Packet 1, sent before 2, arrives later: reordering. RACK.xmit_ts stays packet 2's,
        // RACK.rtt becomes packet 1's, 130 - 5 = 125 ms (RFC 8985 6.2 step 2 sets RACK.rtt for
        // every packet delivered; Linux tcp_rack_advance sets rack.rtt_us likewise).
        ack(&mut r, &[d(1, 5 * MS, false)], 130 * MS);
        assert_eq!(
            r.loss_threshold(0),
            Some((stamp(2, 10 * MS, false), 125 * MS))
        );
        assert!(r.reordering_seen);
        assert_eq!(r.min_rtt(), Some(100 * MS));
        // Within one ACK the packets count in their sending order, whatever the order of the
        // walk: the most recently sent one's RTT is RACK.rtt (200 - 30 = 170 ms), not the last
        // visited's (200 - 20 = 180 ms).
        ack(
            &mut r,
            &[d(4, 30 * MS, false), d(3, 20 * MS, false)],
            200 * MS,
        );
        assert_eq!(
            r.loss_threshold(0),
            Some((stamp(4, 30 * MS, false), 170 * MS))
        );
    }

    #[test]
    fn a_retransmission_acked_too_soon_is_ignored() {
        let mut r = Rack::default();
        r.on_delivered(d(0, 0, false), 100 * MS, None);
        // Retransmitted at 150 ms, acknowledged at 160 ms: 10 ms < min_RTT, so the ACK was
        // the original's; RACK does not move.
        r.on_delivered(d(1, 150 * MS, true), 160 * MS, None);
        assert_eq!(r.loss_threshold(0), Some((stamp(0, 0, false), 100 * MS)));
        // With timestamps, an echo older than the retransmission says the same.
        r.on_delivered(d(2, 150 * MS, true), 300 * MS, Some(20 * MS));
        assert_eq!(r.loss_threshold(0), Some((stamp(0, 0, false), 100 * MS)));
        r.on_delivered(d(3, 150 * MS, true), 300 * MS, Some(150 * MS));
        assert_eq!(
            r.loss_threshold(0),
            Some((stamp(3, 150 * MS, true), 150 * MS))
        );
        assert!(
            !r.reordering_seen,
            "retransmissions below FACK are not reordering"
        );
    }

    #[test]
    fn reordering_window_by_the_rfc_rules() {
        let mut r = Rack::default();
        r.on_delivered(d(0, 0, false), 40 * MS, None);
        // min_RTT 40 ms: a quarter is 10 ms, unless recovering or DupThresh packets SACKed.
        assert_eq!(r.reo_wnd(false, 2, 3, 50 * MS), 10 * MS);
        assert_eq!(r.reo_wnd(true, 0, 3, 50 * MS), 0);
        assert_eq!(r.reo_wnd(false, 3, 3, 50 * MS), 0);
        // Bounded by SRTT.
        assert_eq!(r.reo_wnd(false, 0, 3, 5 * MS), 5 * MS);
        // A D-SACK: the window grows to 2 x min_RTT / 4, once per round trip.
        r.on_dsack(10, 20);
        r.on_dsack(15, 25);
        assert_eq!(r.reo_wnd(false, 0, 3, 50 * MS), 20 * MS);
        r.on_dsack(20, 30);
        assert_eq!(r.reo_wnd(false, 0, 3, 50 * MS), 30 * MS);
        // It lasts 16 recoveries, then falls back.
        for _ in 0..REO_WND_PERSIST - 1 {
            r.on_recovery_end();
        }
        assert_eq!(r.reo_wnd(false, 0, 3, 50 * MS), 30 * MS);
        r.on_recovery_end();
        assert_eq!(r.reo_wnd(false, 0, 3, 50 * MS), 10 * MS);
        // Seen reordering keeps the window even in recovery.
        r.on_delivered(d(5, 60 * MS, false), 100 * MS, None);
        r.on_delivered(d(4, 55 * MS, false), 101 * MS, None);
        assert_eq!(r.reo_wnd(true, 5, 3, 50 * MS), 10 * MS);
    }

    #[test]
    fn probe_timeout_by_section_7_2() {
        assert_eq!(probe_timeout(0, 5, 200 * MS), PTO_WITHOUT_RTT);
        assert_eq!(probe_timeout(100 * MS, 5, 200 * MS), 200 * MS);
        assert_eq!(probe_timeout(100 * MS, 1, 200 * MS), 400 * MS);
    }

    /// Linux `tcp_schedule_loss_probe` (net/ipv4/tcp_output.c), by hand: timeout_us =
    /// srtt_us >> 2 (2 SRTT) + tcp_rto_min_us with packets_out == 1, else +
    /// TCP_TIMEOUT_MIN_US (2 ms); TCP_TIMEOUT_INIT (1 s) without srtt; then min(timeout,
    /// rto_delta_us) when that is positive.
    #[test]
    fn linux_probe_timeout_by_tcp_schedule_loss_probe() {
        let no_cap = 0;
        // SRTT 50 ms, 10 packets out: 100 + 2 = 102 ms (RFC 8985: 100 ms).
        assert_eq!(linux_probe_timeout(50 * MS, 10, 200 * MS, no_cap), 102 * MS);
        // One packet out: 100 + 200 = 300 ms.
        assert_eq!(linux_probe_timeout(50 * MS, 1, 200 * MS, no_cap), 300 * MS);
        // No RTT sample: 1 s.
        assert_eq!(linux_probe_timeout(0, 3, 200 * MS, no_cap), 1_000 * MS);
        // Scheduled from an ACK with RTO 250 ms: min(300, 250) = 250 ms.
        assert_eq!(
            linux_probe_timeout(50 * MS, 1, 200 * MS, 250 * MS as i64),
            250 * MS
        );
        // After new data, the head sent 180 ms ago and RTO 250 ms: 70 ms left.
        assert_eq!(
            linux_probe_timeout(50 * MS, 4, 200 * MS, 70 * MS as i64),
            70 * MS
        );
        // The RTO from the head has already passed (delta not positive): no cap.
        assert_eq!(linux_probe_timeout(50 * MS, 4, 200 * MS, -5), 102 * MS);
    }

    #[test]
    fn probe_outcomes_by_section_7_4() {
        let mut t = TailLossProbe::default();
        assert_eq!(t.on_ack(10, None, false), ProbeOutcome::Pending);
        // A probe of new data: resolved when acknowledged.
        t.on_probe_sent(10, false);
        assert_eq!(t.on_ack(9, None, false), ProbeOutcome::Pending);
        assert_eq!(t.on_ack(10, None, false), ProbeOutcome::Resolved);
        assert!(!t.outstanding());
        // A retransmitted probe of packet 9: an ACK beyond it means it repaired a loss ...
        t.on_probe_sent(10, true);
        assert_eq!(t.on_ack(10, None, false), ProbeOutcome::Pending);
        assert_eq!(t.on_ack(12, None, false), ProbeOutcome::RepairedLoss);
        // ... a D-SACK of it means it was spurious ...
        t.on_probe_sent(10, true);
        assert_eq!(t.on_ack(10, Some(10), false), ProbeOutcome::Resolved);
        // ... and a bare duplicate ACK that both copies were lost.
        t.on_probe_sent(10, true);
        assert_eq!(t.on_ack(10, None, true), ProbeOutcome::Resolved);
    }
}
