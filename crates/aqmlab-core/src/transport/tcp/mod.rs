//! One-way TCP: the ns-2 agents the papers used (Reno, NewReno and SACK senders, ECN, and the
//! sink that acknowledges every packet or with delayed ACKs; ../shared/specs/baselines.md), and
//! today's sender (RFC 6675 recovery with PRR, `rfc6675_sender.rs`), each with any congestion
//! control of `congestion/`.

pub mod accecn;
pub mod config;
mod config_choices;
pub mod congestion;
mod cwnd_use;
pub mod delivery_rate;
mod held_runs;
pub mod linux_delack;
pub mod linux_rtt;
mod ns3_state;
pub mod pacing;
pub mod profile;
pub mod rcv_space;
pub mod recovery;
pub mod rfc6675_sender;
pub mod rto;
pub mod rtt;
pub mod sack_scoreboard;
pub mod sender;
pub mod sink;
mod transmissions;
pub mod tso;

pub use config::{
    AccEcnOptionSending, DupacksAfterTimeout, EcnCodepoint, EcnFeedback, EcnReduction, Handshake,
    Pacing, PartialAckTimer, Recovery, RtoEstimatorKind, RtoRestart, RttSampling,
    SegmentationOffload, SsthreshBase, SynEct, TcpConfig, TcpVariant, TimeoutMarks,
    TimeoutResponse,
};
pub use rfc6675_sender::Rfc6675Sender;
pub use sender::TcpSender;
pub use sink::TcpSink;

/// The state both senders record first (`aqm::state_docs::TCP`'s first four rows): the
/// window, the threshold, and the smoothed RTT and RTO in ms.
fn window_and_timer_state(
    out: &mut crate::sim::StateSink,
    cwnd: f64,
    ssthresh: i64,
    srtt: crate::sim::Time,
    rto: crate::sim::Time,
) {
    out("cwnd", cwnd);
    out("ssthresh", ssthresh as f64);
    out("srtt_ms", srtt as f64 / 1e6);
    out("rto_ms", rto as f64 / 1e6);
}

#[cfg(test)]
pub(crate) mod agent_rig;
#[cfg(test)]
#[path = "dctcp_sender_tests.rs"]
mod dctcp_sender_tests;
#[cfg(test)]
#[path = "lossy_path_tests.rs"]
mod lossy_path_tests;
#[cfg(test)]
#[path = "ns3_choices_tests.rs"]
mod ns3_choices_tests;
#[cfg(test)]
mod rfc6675_sender_rig;
