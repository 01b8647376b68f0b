//! Test-only: an `rfc6675` sender driven directly with scripted ACKs over an `AgentRig`, shared
//! by the tests that check its rules against sequences worked out by hand
//! (`rfc6675_sender_tests.rs`: Linux and the RFCs; `ns3_choices_tests.rs`: ns-3).

use super::agent_rig::AgentRig;
use super::{Rfc6675Sender, TcpConfig};
use crate::net::Packet;
use crate::sim::{RngStream, StreamKind, Time};
use crate::transport::Endpoint;

pub struct SenderRig {
    pub rig: AgentRig,
    pub s: Rfc6675Sender,
}

impl SenderRig {
    pub fn new(cfg: TcpConfig) -> SenderRig {
        let ep = Endpoint {
            flow: 0,
            agent: 0,
            node: 0,
            peer_node: 1,
            peer_agent: 1,
        };
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
        let mut out = self.run_until(t);
        let mut p = AgentRig::ack_packet(cum, sack);
        p.echo_sent_at = echo;
        let id = self.rig.packets.alloc(p);
        self.s.receive(&mut self.rig.cx(t), id);
        out.extend(self.rig.take_sent());
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
