//! Loss detection and recovery of today's TCP, apart from congestion control: the RFC 6675
//! SACK scoreboard (pipe, NextSeg, rescue retransmission) and PRR (RFC 6937), the reduction
//! it uses by default, and RACK-TLP (RFC 8985), which replaces the scoreboard's DupThresh
//! rule when asked. The ns-2 agents (`sender.rs`) keep their own recovery unchanged.
//!
//! Sequence numbers count packets from 0, as in the rest of aqmlab's TCP (one SMSS each).

mod bitset;
pub mod prr;
pub mod rack_tlp;
pub mod rfc6675;
mod send_order;
pub(crate) mod work;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod scoreboard_tests;
