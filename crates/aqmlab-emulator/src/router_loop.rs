//! The router's loop: handle what is due, read what the hosts sent, sleep until the next of
//! either.
//!
//! Each turn runs every event due by the monotonic clock (`EmulatedNetwork::advance`: links
//! finishing transmissions, packets leaving delay lines and written to their hosts' devices,
//! the AQMs' timers), reads every packet waiting on a device and injects it, then sleeps on
//! epoll until a packet arrives or the next event is due (a timerfd at its absolute time). The
//! last `spin` of a wait is spent polling instead of sleeping, so that a departure is not as
//! late as the kernel's wake-up latency; the cost is a core kept busy that long. On this
//! project's 2-core virtual machine a wake-up from epoll came 10 to 200 us after its timer
//! (an idle virtual CPU is slow to wake): with 50 us of spin 40 % of the timed waits
//! overshot by 50 to 200 us at 10 Mb/s and the departure lag's p99 was 81 us; with 300 us,
//! 32 us (BENCHMARKS.md, "Emulator").

use crate::clock::monotonic_ns;
use crate::tun::TunDevice;
use crate::waiter::Waiter;
use aqmlab_core::emulation::EmulatedNetwork;
use std::io;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// How the router runs.
#[derive(Debug, Clone, Copy)]
pub struct RouterOptions {
    /// CLOCK_MONOTONIC ns of the scenario's time 0 (may be in the future: the router waits).
    pub t0_ns: u64,
    /// Poll instead of sleeping for the last `spin_ns` before an event.
    pub spin_ns: u64,
    /// Pin the router's thread to this CPU (sched_setaffinity(2)), if given.
    pub cpu: Option<usize>,
}

/// What a run of the loop ended with.
pub struct RouterOutcome {
    pub network: EmulatedNetwork,
    /// Writes to a host's device that failed (the packet is lost; counted, not hidden).
    pub host_write_errors: u64,
    /// The run was stopped before the scenario's end.
    pub stopped_early: bool,
    /// Wall-clock seconds from time 0 to the end of the loop.
    pub wall_time_s: f64,
    /// Why the loop failed, if it did (a device error): the network is returned as it was.
    pub error: Option<String>,
}

/// Packets read from one device in a row before the others and the clock get a turn.
const READ_BURST: usize = 64;
/// The longest sleep, so that a stop request is seen within it.
const MAX_SLEEP_NS: u64 = 20_000_000;

/// Runs `network` between the hosts behind `devices` (host i behind `devices[i]`) until the
/// scenario's end or until `stop` is set.
pub fn run_router(
    mut network: EmulatedNetwork,
    devices: &[TunDevice],
    opts: RouterOptions,
    stop: &AtomicBool,
) -> RouterOutcome {
    let mut host_write_errors = 0u64;
    let mut stopped_early = false;
    let t0 = opts.t0_ns;
    let result = (|| -> io::Result<()> {
        if network.hosts() != devices.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} hosts but {} devices", network.hosts(), devices.len()),
            ));
        }
        if let Some(cpu) = opts.cpu {
            pin_to_cpu(cpu)?;
        }
        // A normal thread's timers may fire up to its timer slack late (50 us by default,
        // prctl(2) PR_SET_TIMERSLACK), as much as the lag a 100 Mb/s link can afford.
        // SAFETY: PR_SET_TIMERSLACK takes a value and no pointer.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
        // A normal thread's timers may fire up to its timer slack late (50 us by default,
        // prctl(2) PR_SET_TIMERSLACK), as much as the lag a 100 Mb/s link can afford.
        // SAFETY: PR_SET_TIMERSLACK takes a value and no pointer.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
        let fds: Vec<_> = devices.iter().map(|d| d.as_raw_fd()).collect();
        let mut waiter = Waiter::new(&fds)?;
        let mut ready = Vec::with_capacity(devices.len());
        // Until time 0 nothing is due; packets sent before it wait in their devices.
        while monotonic_ns() < t0 {
            if stop.load(Ordering::Relaxed) {
                stopped_early = true;
                return Ok(());
            }
            waiter.wait(Some(t0.min(monotonic_ns() + MAX_SLEEP_NS)), &mut Vec::new())?;
        }
        let end = network.duration();
        let mut clock = || monotonic_ns().saturating_sub(t0);
        let mut deliver = |host: u32, packet: &[u8]| {
            if devices[host as usize].write(packet).is_err() {
                host_write_errors += 1;
            }
        };
        let mut buf = vec![0u8; 65_536];
        // Every device is read on the first turn, whatever epoll says.
        ready.extend(0..devices.len());
        loop {
            if stop.load(Ordering::Relaxed) {
                stopped_early = true;
                break;
            }
            network.advance(&mut clock, &mut deliver);
            if clock() >= end {
                break;
            }
            for &host in &ready {
                for _ in 0..READ_BURST {
                    match devices[host].read(&mut buf)? {
                        // What is not of a flow is counted by the network and dropped.
                        Some(n) => _ = network.inject(host as u32, &buf[..n]),
                        None => break,
                    }
                }
            }
            ready.clear();
            let now = clock();
            let next = network.next_event_time().unwrap_or(end).min(end);
            let deadline = if next <= now + opts.spin_ns {
                0
            } else {
                t0 + (next - opts.spin_ns).min(now + MAX_SLEEP_NS)
            };
            waiter.wait(Some(deadline), &mut ready)?;
        }
        Ok(())
    })();
    let wall_time_s = monotonic_ns().saturating_sub(t0) as f64 / 1e9;
    RouterOutcome {
        network,
        host_write_errors,
        stopped_early,
        wall_time_s,
        error: result.err().map(|e| e.to_string()),
    }
}

/// Pins the calling thread to `cpu`.
fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET stays inside it for cpu < CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("CPU {cpu}: no such CPU"),
            ));
        }
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(
                e.kind(),
                format!("pinning the router to CPU {cpu}: {e}"),
            ));
        }
    }
    Ok(())
}
