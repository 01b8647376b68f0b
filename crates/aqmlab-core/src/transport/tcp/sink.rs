//! PLACEHOLDER: being implemented (see issue 2). Keeps the API the simulator calls.

use super::TcpConfig;
use crate::net::PacketId;
use crate::transport::{AgentCtx, Endpoint};

pub struct TcpSink {
    #[allow(dead_code)]
    ep: Endpoint,
}

impl TcpSink {
    pub fn new(_cfg: &TcpConfig, ep: Endpoint) -> Self {
        TcpSink { ep }
    }
    pub fn receive(&mut self, cx: &mut AgentCtx, pkt: PacketId) {
        cx.free(pkt);
    }
    pub fn timer(&mut self, _cx: &mut AgentCtx, _which: u8) {}
}
