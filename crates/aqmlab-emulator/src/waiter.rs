//! Sleeping until the next packet or the next event, whichever comes first: epoll over the
//! TUN devices and a timerfd armed at the next event's absolute monotonic time (epoll(7),
//! timerfd_create(2) with TFD_TIMER_ABSTIME: nanosecond resolution, unlike epoll_wait's
//! millisecond timeout).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

pub struct Waiter {
    epoll: OwnedFd,
    timer: OwnedFd,
    events: Vec<libc::epoll_event>,
}

/// The token of the timer in epoll's events; a device's token is its index.
const TIMER: u64 = u64::MAX;

fn check(rc: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if rc < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(rc)
}

impl Waiter {
    /// Watches `fds` for packets to read; `fds[i]` is reported as `i`.
    pub fn new(fds: &[RawFd]) -> io::Result<Waiter> {
        // SAFETY: plain syscalls; results checked and owned.
        let epoll = unsafe {
            OwnedFd::from_raw_fd(check(
                libc::epoll_create1(libc::EPOLL_CLOEXEC),
                "epoll_create1",
            )?)
        };
        let timer = unsafe {
            OwnedFd::from_raw_fd(check(
                libc::timerfd_create(
                    libc::CLOCK_MONOTONIC,
                    libc::TFD_CLOEXEC | libc::TFD_NONBLOCK,
                ),
                "timerfd_create",
            )?)
        };
        let add = |fd: RawFd, token: u64| -> io::Result<()> {
            let mut ev = libc::epoll_event {
                events: libc::EPOLLIN as u32,
                u64: token,
            };
            // SAFETY: epoll_ctl with a valid event struct.
            check(
                unsafe { libc::epoll_ctl(epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) },
                "epoll_ctl",
            )
            .map(drop)
        };
        add(timer.as_raw_fd(), TIMER)?;
        for (i, &fd) in fds.iter().enumerate() {
            add(fd, i as u64)?;
        }
        Ok(Waiter {
            epoll,
            timer,
            events: vec![libc::epoll_event { events: 0, u64: 0 }; fds.len() + 1],
        })
    }

    /// Waits until a device has a packet or the monotonic clock reaches `deadline_ns`
    /// (`None`: only a packet; 0: do not wait), and appends the ready devices to `ready`.
    pub fn wait(&mut self, deadline_ns: Option<u64>, ready: &mut Vec<usize>) -> io::Result<()> {
        let timeout = match deadline_ns {
            Some(0) => 0,
            Some(d) => {
                let spec = libc::itimerspec {
                    it_interval: libc::timespec {
                        tv_sec: 0,
                        tv_nsec: 0,
                    },
                    it_value: libc::timespec {
                        tv_sec: (d / 1_000_000_000) as libc::time_t,
                        tv_nsec: (d % 1_000_000_000).max(1) as libc::c_long,
                    },
                };
                // SAFETY: arms our own timerfd with a valid itimerspec.
                check(
                    unsafe {
                        libc::timerfd_settime(
                            self.timer.as_raw_fd(),
                            libc::TFD_TIMER_ABSTIME,
                            &spec,
                            std::ptr::null_mut(),
                        )
                    },
                    "timerfd_settime",
                )?;
                -1
            }
            None => -1,
        };
        // SAFETY: the events buffer holds `len` entries.
        let n = unsafe {
            libc::epoll_wait(
                self.epoll.as_raw_fd(),
                self.events.as_mut_ptr(),
                self.events.len() as libc::c_int,
                timeout,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                return Ok(());
            }
            return Err(io::Error::new(e.kind(), format!("epoll_wait: {e}")));
        }
        for ev in &self.events[..n as usize] {
            let token = ev.u64;
            if token == TIMER {
                let mut expirations = [0u8; 8];
                // SAFETY: reading the timer's 8-byte count (non-blocking; EAGAIN is fine).
                unsafe { libc::read(self.timer.as_raw_fd(), expirations.as_mut_ptr().cast(), 8) };
            } else {
                ready.push(token as usize);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::monotonic_ns;

    fn pipe() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two descriptors, which we then own.
        assert_eq!(
            unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK) },
            0
        );
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    /// The timer wakes the wait at its absolute time, not before; a descriptor with data to
    /// read ends the wait at once and is reported by its index.
    #[test]
    fn waits_until_the_deadline_or_a_packet() {
        let (r, w) = pipe();
        let mut waiter = Waiter::new(&[r.as_raw_fd()]).unwrap();
        let mut ready = vec![];
        let deadline = monotonic_ns() + 3_000_000;
        waiter.wait(Some(deadline), &mut ready).unwrap();
        assert!(monotonic_ns() >= deadline);
        assert!(ready.is_empty());
        // SAFETY: one byte from a valid buffer into our pipe.
        assert_eq!(
            unsafe { libc::write(w.as_raw_fd(), b"x".as_ptr().cast(), 1) },
            1
        );
        let started = monotonic_ns();
        waiter
            .wait(Some(started + 5_000_000_000), &mut ready)
            .unwrap();
        assert_eq!(ready, [0]);
        assert!(monotonic_ns() - started < 1_000_000_000);
    }
}
