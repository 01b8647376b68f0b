//! One-way TCP in ns-2 semantics: Reno, NewReno and SACK senders, ECN, and the sink that
//! acknowledges (every packet, or delayed ACKs). See ../shared/specs/baselines.md.

pub mod config;
pub mod rtt;
pub mod sack_scoreboard;
pub mod sender;
pub mod sink;

pub use config::{PartialAckTimer, TcpConfig, TcpVariant};
pub use sender::TcpSender;
pub use sink::TcpSink;
