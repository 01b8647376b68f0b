//! Test-only: an `rfc6675` sender driven directly with scripted ACKs over an `AgentRig`, shared
//! by the tests that check its rules against sequences worked out by hand
//! (`rfc6675_sender_tests.rs`: Linux and the RFCs; `ns3_choices_tests.rs`: ns-3).

use super::agent_rig::AgentRig;
use super::congestion::CongestionControlKind;
use super::{Recovery, Rfc6675Sender, TcpConfig, TcpVariant};
use crate::net::Packet;
use crate::sim::{RngStream, StreamKind, Time};
use crate::units::Duration;

pub struct SenderRig {
    pub rig: AgentRig,
    pub s: Rfc6675Sender,
}

impl SenderRig {
    pub fn new(cfg: TcpConfig) -> SenderRig {
        let ep = AgentRig::SENDER;
        SenderRig {
            rig: AgentRig::new(ep),
            s: Rfc6675Sender::new(cfg, ep, None, RngStream::new(1, StreamKind::Agent, 0)),
        }
    }

    /// As `new`, for a configuration the scenario reader would accept.
    pub fn validated(cfg: TcpConfig) -> SenderRig {
        cfg.validate("tcp").unwrap();
        SenderRig::new(cfg)
    }

    pub fn start(&mut self) -> Vec<Packet> {
        self.s.start(&mut self.rig.cx(0));
        self.rig.take_sent()
    }

    /// Fires the sender's timers up to `t`; returns what they sent.
    pub fn run_until(&mut self, t: Time) -> Vec<Packet> {
        self.rig
            .run_timers_until(t, |cx, timer| self.s.timer(cx, timer))
    }

    /// An ACK at `t` of everything up to `cum` (-1: nothing), with SACK blocks [start, end),
    /// echoing the sending time `echo`; returns what the timers due before it and the ACK
    /// sent.
    pub fn ack_echo(&mut self, t: Time, cum: i64, sack: &[(i64, i64)], echo: Time) -> Vec<Packet> {
        self.ack_with(t, cum, sack, |p| p.echo_sent_at = echo)
    }

    /// An ACK at `t` of everything up to `cum` with SACK blocks [start, end), `set` then
    /// setting what else it carries; returns what the timers due before it and the ACK sent.
    pub fn ack_with(
        &mut self,
        t: Time,
        cum: i64,
        sack: &[(i64, i64)],
        set: impl FnOnce(&mut Packet),
    ) -> Vec<Packet> {
        let mut out = self.run_until(t);
        let mut p = AgentRig::ack_packet(cum, sack);
        set(&mut p);
        let s = &mut self.s;
        out.extend(self.rig.deliver(t, p, |cx, id| s.receive(cx, id)));
        out
    }

    /// `ack_echo` with an echo of 0.
    pub fn ack(&mut self, t: Time, cum: i64, sack: &[(i64, i64)]) -> Vec<Packet> {
        self.ack_echo(t, cum, sack, 0)
    }

    /// The value of the sender's state series `name` (NaN if it has none).
    pub fn state(&self, name: &str) -> f64 {
        let mut v = f64::NAN;
        self.s.state(&mut |k, x| {
            if k == name {
                v = x;
            }
        });
        v
    }
}

pub use super::agent_rig::seqs;

/// SACK recovery with RFC 6675's rules, Reno, IW 10, window 64, ssthresh 100, 1 ms ticks, 1 s
/// initial RTO.
pub fn base() -> TcpConfig {
    const MS: Time = 1_000_000;
    TcpConfig {
        variant: TcpVariant::Sack,
        recovery: Recovery::Rfc6675,
        congestion_control: CongestionControlKind::Reno,
        window: 64,
        window_init: 10,
        ssthresh_init: Some(100),
        tick: Duration(MS),
        initial_rto: Duration(1_000 * MS),
        ..TcpConfig::default()
    }
}
