//! PLACEHOLDER: being implemented (see issue 2). Keeps the API the simulator calls.

use super::TcpConfig;
use crate::aqm::StateSink;
use crate::net::PacketId;
use crate::transport::{AgentCtx, Endpoint};

pub struct TcpSender {
    #[allow(dead_code)]
    cfg: TcpConfig,
    #[allow(dead_code)]
    ep: Endpoint,
    /// Packets to send in all; None for an infinite (FTP) source.
    #[allow(dead_code)]
    limit: Option<u64>,
}

impl TcpSender {
    pub fn new(cfg: TcpConfig, ep: Endpoint, limit_packets: Option<u64>) -> Self {
        TcpSender {
            cfg,
            ep,
            limit: limit_packets,
        }
    }
    pub fn start(&mut self, _cx: &mut AgentCtx) {}
    pub fn stop(&mut self, _cx: &mut AgentCtx) {}
    pub fn receive(&mut self, cx: &mut AgentCtx, pkt: PacketId) {
        cx.free(pkt);
    }
    pub fn timer(&mut self, _cx: &mut AgentCtx, _which: u8) {}
    pub fn state(&self, _out: &mut StateSink) {}
}
