//! A TUN device: a network interface whose packets a process reads and writes as IP packets
//! (Documentation/networking/tuntap.rst). Created without packet information (IFF_NO_PI: each
//! read is one IP packet, no header) and not persistent: the device disappears when its file
//! descriptor is closed, so a router that dies, however it dies, leaves no device behind. It
//! may be moved into another network namespace (`ip link set DEV netns NS`) and keeps
//! working through the same descriptor.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// <linux/if_tun.h>
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

pub struct TunDevice {
    fd: OwnedFd,
    name: String,
}

impl TunDevice {
    /// Creates the TUN device `name` (at most 15 bytes) in the calling thread's network
    /// namespace, non-blocking.
    pub fn create(name: &str) -> io::Result<TunDevice> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains(['/', ' ', '\0']) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("TUN device name {name:?}: 1 to 15 bytes, no '/', space or NUL"),
            ));
        }
        let path: &CStr = c"/dev/net/tun";
        // SAFETY: open with a NUL-terminated path; the result is checked.
        let raw = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("/dev/net/tun: {e}")));
        }
        // SAFETY: raw is a descriptor we just opened and own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req = IfReq {
            name: [0; libc::IFNAMSIZ],
            flags: IFF_TUN | IFF_NO_PI,
            _pad: [0; 22],
        };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        // SAFETY: TUNSETIFF reads and writes one struct ifreq, which `req` is laid out as.
        let rc = unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("TUN device {name}: {e}")));
        }
        Ok(TunDevice {
            fd,
            name: name.to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// One packet into `buf`; `Ok(None)` when none is waiting.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: read into a buffer of the length given.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        }
    }

    /// Hands one packet to the kernel of the device's namespace, as if it had arrived on it.
    pub fn write(&self, packet: &[u8]) -> io::Result<()> {
        // SAFETY: write from a buffer of the length given.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), packet.as_ptr().cast(), packet.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl AsRawFd for TunDevice {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_no_interface_could_have_is_refused_before_any_syscall() {
        for bad in ["", "sixteen_bytes_xx", "a/b", "a b"] {
            let e = TunDevice::create(bad).err().expect(bad);
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{bad}");
            assert!(e.to_string().contains("15 bytes"), "{e}");
        }
    }
}
