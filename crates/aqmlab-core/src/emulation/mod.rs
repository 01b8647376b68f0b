//! Emulation: the scenario's network in front of real hosts (issue 26).
//!
//! The emulator is a second driver of the same code: where the simulator's agents send and
//! receive, real kernels do, in network namespaces joined to a user-space router by TUN
//! devices (`aqmlab-emulator`, Linux). The router reads each packet a host sends, injects it
//! here, and writes back each packet that reaches its destination host. In between it goes
//! through the simulator's own links (a departure clock for the rate, a delay line for the
//! propagation delay), queue disciplines and counters, on a real monotonic clock; so a
//! simulated and an emulated run of one scenario give the same tables.
//!
//! This module is pure logic, driven by whatever clock and packets it is given (a test drives
//! it with a scripted clock); it knows nothing of TUN devices or namespaces.

pub mod ipv4;
pub mod network;
pub mod plan;
pub mod reassembly;
pub mod report;

pub use network::EmulatedNetwork;
pub use plan::EmulationPlan;
pub use report::{FlowReport, SeriesSample};
