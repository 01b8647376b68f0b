//! aqmlab-emulator: real hosts in front of aqmlab's own network code (issue 26).
//!
//! The core's [`aqmlab_core::emulation::EmulatedNetwork`] is the network: the scenario's links,
//! queue disciplines and counters. This crate gives it real packets and a real clock: one TUN
//! device per host ([`tun`]), read and written by a router loop on its own thread
//! ([`router_loop`]) that sleeps on epoll and a timerfd until the next packet or the next event
//! ([`waiter`]) on the monotonic clock ([`clock`]). Which namespaces the devices live in, and
//! the kernels' traffic, are the orchestrator's (Python, `aqmlab.emulation`).
//!
//! Linux only: TUN, epoll and timerfd are Linux's.

#![cfg(target_os = "linux")]

pub mod clock;
pub mod router_loop;
pub mod tun;
pub mod waiter;

pub use router_loop::{run_router, RouterOptions, RouterOutcome};
pub use tun::TunDevice;
