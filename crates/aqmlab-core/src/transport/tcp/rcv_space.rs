//! Linux's receive-buffer autotuning, as the room it gives `tcp_grow_window` (Linux 6.1:
//! net/ipv4/tcp_input.c `tcp_init_buffer_space`, `tcp_rcv_rtt_update`, `tcp_rcv_rtt_measure`,
//! `tcp_rcv_rtt_measure_ts`, `tcp_rcv_space_adjust`; include/net/tcp.h `tcp_win_from_space`,
//! `tcp_space`; net/ipv4/tcp_output.c `tcp_select_initial_window`). Used by
//! `tcp.rcv_window_growth = "linux"` (`linux_delack.rs`).
//!
//! - The start. The receive buffer `sk_rcvbuf` is tcp_rmem[1] (128 KB). The initial window is
//!   tcp_win_from_space of it (tcp_adv_win_scale 1: a half, 64 KB) rounded down to whole
//!   segments (`tcp_select_initial_window`); `tcp_init_buffer_space` then sets `window_clamp`
//!   to that half less one segment ("Force reservation of one segment": 65,536 - advmss) and
//!   `rcv_ssthresh` to at most it, and `rcvq_space.space` to min(rcv_ssthresh, rcv_wnd,
//!   TCP_INIT_CWND advmss). So the window cannot grow at first: the room is 0 until
//!   autotuning raises the buffer.
//! - The receiver's RTT (`rcv_rtt_est.rtt_us`, eight times the estimate as Linux keeps it).
//!   With timestamps, each data segment of at least `rcv_mss` whose TSecr differs from the
//!   last one used gives a sample, now - TSecr in whole milliseconds (at least 1), smoothed by
//!   1/8 unless lower (`tcp_rcv_rtt_measure_ts`, `tcp_rcv_rtt_update` with win_dep 0). The
//!   TSecr is the send time of the last ACK the sender had when it sent the segment (the
//!   packet's `echo_sent_at`; 0 for none, which Linux skips too). Without timestamps, and
//!   beside them, each in-order segment checks whether a window (`rcv_wnd`, taken as
//!   `rcv_ssthresh`, which Linux advertises) has been received since the last check, and if so
//!   the time it took is a sample that can only lower the estimate (`tcp_rcv_rtt_measure`,
//!   win_dep 1).
//! - `tcp_rcv_space_adjust`, called from tcp_recvmsg as the application copies data. aqmlab's
//!   application reads every in-order byte at once, so it runs after each in-order delivery:
//!   once a receiver RTT has passed since the last measure, if more bytes were copied in it
//!   than `rcvq_space.space`, the buffer becomes min(rcvwin / advmss * rcvmem, tcp_rmem[2])
//!   (never smaller than it was), with rcvwin = 2 copied + 16 advmss, plus twice rcvwin *
//!   (copied - space) / space for a sender in slow start, and rcvmem the truesize of one
//!   full segment's skb, SKB_TRUESIZE(advmss + MAX_TCP_HEADER), raised in steps of 128 until
//!   tcp_win_from_space of it holds advmss; `window_clamp` follows as tcp_win_from_space of the
//!   buffer, and `space` becomes the bytes copied.
//! - `tcp_space()`: tcp_win_from_space(sk_rcvbuf - sk_rmem_alloc). sk_rmem_alloc is the
//!   truesize of the skbs queued and not yet read: when `tcp_grow_window` runs for an in-order
//!   segment, that segment (already queued by `tcp_queue_rcv`) and any held out of order; for
//!   an out-of-order one, those held before it (`tcp_data_queue_ofo` charges it after).
//!
//! The kernel's skb sizes are those of the reference kernel (Linux 6.1 UML, x86-64,
//! CONFIG_WLAN so LL_MAX_HEADER 96, no tunnels: MAX_TCP_HEADER = L1_CACHE_ALIGN(128 + 96) =
//! 256; sizeof(struct sk_buff) 208, aligned 256; sizeof(struct skb_shared_info) 320). A data
//! skb from a Linux sender over veth keeps the sender's skb (`tcp_stream_alloc_skb`: a
//! 256 + 320 byte head from a 1024-byte kmalloc, truesize SKB_TRUESIZE(704) = 1280, payload
//! in page fragments adding its length): truesize = 1280 + len, more than twice a 1000-byte
//! segment's length and less than twice a 1448-byte one's. Hardware drivers differ; the
//! constants are the reference's, named below.

use crate::sim::Time;

/// tcp_rmem[1], the default receive buffer (Documentation/networking/ip-sysctl.rst).
pub const TCP_RMEM_DEFAULT: u64 = 131_072;
/// `TCP_INIT_CWND` (include/net/tcp.h).
const TCP_INIT_CWND: u64 = 10;
/// MAX_TCP_HEADER of the reference kernel (module docs).
const MAX_TCP_HEADER: u64 = 256;
/// SKB_DATA_ALIGN(sizeof(struct sk_buff)) + SKB_DATA_ALIGN(sizeof(struct skb_shared_info)).
const SKB_OVERHEAD: u64 = 256 + 320;
/// The truesize of a data skb less its payload (module docs).
pub const SKB_TRUESIZE_BASE: u64 = 1280;
/// TCP_TS_HZ: timestamps tick in milliseconds.
const TS_TICK: Time = 1_000_000;
const US: Time = 1_000;

/// tcp_win_from_space with tcp_adv_win_scale 1 (its default): space - space / 2.
pub fn win_from_space(space: u64) -> u64 {
    space - space / 2
}

/// A data skb's truesize for `len` payload bytes (module docs).
pub fn skb_truesize(len: u64) -> u64 {
    SKB_TRUESIZE_BASE + len
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RcvSpace {
    pub advmss: u64,
    /// tcp_rmem[2].
    pub rmem_max: u64,
    /// `sk_rcvbuf`.
    pub rcvbuf: u64,
    pub window_clamp: u64,
    /// `rcvq_space.space`, `.seq` (bytes copied when the measure began), `.time`.
    pub space: u64,
    seq: u64,
    time: Option<Time>,
    /// Bytes copied to the application so far (`copied_seq`).
    copied: u64,
    /// `rcv_rtt_est.rtt_us` (eight times the estimate, in microseconds; 0: none yet).
    pub rtt_us8: u64,
    /// `rcv_rtt_est.seq` (bytes) and `.time` of the window measure (`tcp_rcv_rtt_measure`).
    rtt_seq: u64,
    rtt_time: Option<Time>,
    /// `rcv_rtt_last_tsecr`, in timestamp ticks.
    last_tsecr: u64,
    /// SKB_TRUESIZE(advmss + MAX_TCP_HEADER) raised to hold advmss (`tcp_rcv_space_adjust`).
    rcvmem: u64,
}

impl RcvSpace {
    /// A receiver with advmss `mss` bytes and tcp_rmem[2] = `rmem_max`: its buffer, clamp and
    /// the initial `rcv_ssthresh` (= `rcv_wnd`), as `tcp_select_initial_window` and
    /// `tcp_init_buffer_space` leave them.
    pub fn new(mss: u64, rmem_max: u64) -> (Self, u64) {
        let rcvbuf = TCP_RMEM_DEFAULT.min(rmem_max);
        let full = win_from_space(rcvbuf);
        let rcv_wnd = if full > mss { full / mss * mss } else { full };
        // tcp_init_buffer_space: window_clamp = maxwin, less one segment when the two are
        // within a segment of each other (tcp_app_win 31 leaves maxwin whole).
        let mut clamp = full;
        if clamp > 2 * mss && clamp + mss > full {
            clamp = (2 * mss).max(full - mss);
        }
        let rcv_ssthresh = rcv_wnd.min(clamp);
        let mut rcvmem = mss + MAX_TCP_HEADER + SKB_OVERHEAD;
        while win_from_space(rcvmem) < mss {
            rcvmem += 128;
        }
        let s = RcvSpace {
            advmss: mss,
            rmem_max,
            rcvbuf,
            window_clamp: clamp,
            space: rcv_ssthresh.min(rcv_wnd).min(TCP_INIT_CWND * mss),
            seq: 0,
            time: None,
            copied: 0,
            rtt_us8: 0,
            rtt_seq: 0,
            rtt_time: None,
            last_tsecr: 0,
            rcvmem,
        };
        (s, rcv_ssthresh)
    }

    /// tcp_space() with `queued` skbs of `len` bytes not yet read.
    pub fn tcp_space(&self, queued: u64, len: u64) -> u64 {
        win_from_space(self.rcvbuf.saturating_sub(queued * skb_truesize(len)))
    }

    /// `tcp_rcv_rtt_update`: `sample` microseconds; `win_dep` samples only lower it.
    fn rtt_update(&mut self, sample: u64, win_dep: bool) {
        let m = sample << 3;
        let old = self.rtt_us8;
        if old == 0 || m < old {
            self.rtt_us8 = m;
        } else if !win_dep {
            self.rtt_us8 = old - (old >> 3) + sample;
        }
    }

    /// `tcp_rcv_rtt_measure_ts`: a data segment of `len` bytes (`rcv_mss` = advmss here)
    /// arrived at `now` echoing `tsecr` (0: none).
    pub fn measure_ts(&mut self, now: Time, tsecr: Time, len: u64) {
        let tsecr = tsecr / TS_TICK;
        if tsecr == self.last_tsecr {
            return;
        }
        self.last_tsecr = tsecr;
        if len >= self.advmss {
            let delta = (now / TS_TICK).saturating_sub(tsecr).max(1);
            self.rtt_update(delta * (TS_TICK / US), false);
        }
    }

    /// The first data segment: the connection is established (`tcp_init_buffer_space`
    /// starts the copy measure; aqmlab has no third handshake packet to time it by).
    fn start(&mut self, now: Time) {
        if self.time.is_none() {
            self.time = Some(now);
        }
    }

    /// `tcp_rcv_rtt_measure` for an in-order segment at `now`: `rcv_nxt` is `received`
    /// bytes, the advertised window `rcv_wnd` bytes.
    pub fn measure_window(&mut self, now: Time, received: u64, rcv_wnd: u64) {
        self.start(now);
        if let Some(t) = self.rtt_time {
            if received < self.rtt_seq {
                return;
            }
            self.rtt_update(((now - t) / US).max(1), true);
        }
        self.rtt_seq = received + rcv_wnd;
        self.rtt_time = Some(now);
    }

    /// `copied` more bytes were read by the application at `now`: `tcp_rcv_space_adjust`.
    pub fn on_copied(&mut self, now: Time, copied: u64) {
        self.start(now);
        self.copied += copied;
        let since = self.time.map_or(0, |t| now - t) / US;
        if self.rtt_us8 == 0 || since < self.rtt_us8 >> 3 {
            return;
        }
        let copied = self.copied - self.seq;
        if copied > self.space {
            // Linux's copied is a u32 and its products u64; a long fast path here can copy
            // more than 4 GB a round trip, so the products are taken in u128.
            let mss = u128::from(self.advmss);
            let (copied_w, space) = (u128::from(copied), u128::from(self.space));
            let mut rcvwin = (copied_w << 1) + 16 * mss;
            let grow = rcvwin * (copied_w - space) / space;
            rcvwin += grow << 1;
            let rcvbuf = (rcvwin / mss * u128::from(self.rcvmem)).min(u128::from(self.rmem_max));
            let rcvbuf = rcvbuf as u64;
            if rcvbuf > self.rcvbuf {
                self.rcvbuf = rcvbuf;
                self.window_clamp = win_from_space(rcvbuf);
            }
            self.space = copied;
        }
        self.seq = self.copied;
        self.time = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Time = 1_000_000;
    /// The reference's path: MSS 1448, tcp_rmem[2] 1,991,136.
    fn reference() -> (RcvSpace, u64) {
        RcvSpace::new(1448, 1_991_136)
    }

    #[test]
    fn tcp_init_buffer_space_leaves_no_room_to_grow() {
        // tcp_select_initial_window: 131,072 / 2 = 65,536 rounded down to 45 x 1448 = 65,160;
        // tcp_init_buffer_space: window_clamp = max(2 x 1448, 65,536 - 1448) = 64,088,
        // rcv_ssthresh = min(65,160, 64,088), rcvq_space.space = min(64,088, 65,160, 14,480).
        // (The reference kernel's TCP_INFO: rcv_ssthresh 64,088, rcv_space 14,480.)
        let (s, rcv_ssthresh) = reference();
        assert_eq!(rcv_ssthresh, 64_088);
        assert_eq!(
            (s.rcvbuf, s.window_clamp, s.space),
            (131_072, 64_088, 14_480)
        );
        // rcvmem: 1448 + 256 + 576 = 2280, + 5 x 128 = 2920 (tcp_win_from_space 1460 >= 1448).
        assert_eq!(s.rcvmem, 2920);
        // tcp_space with the segment just queued (truesize 1280 + 1448 = 2728):
        // (131,072 - 2728) - (131,072 - 2728) / 2 = 64,172 > the clamp: the room is 0.
        assert_eq!(s.tcp_space(1, 1448), 64_172);
    }

    #[test]
    fn tcp_rcv_space_adjust_by_hand() {
        let (mut s, _) = reference();
        // The first segment at 100 ms echoes an ACK sent at 60 ms: a 40 ms sample, kept x 8.
        s.measure_ts(100 * MS, 60 * MS, 1448);
        assert_eq!(s.rtt_us8, 320_000);
        // The same TSecr again gives no sample (rcv_rtt_last_tsecr); a short segment none.
        s.measure_ts(120 * MS, 60 * MS, 1448);
        s.measure_ts(121 * MS, 61 * MS, 100);
        assert_eq!(s.rtt_us8, 320_000);
        // A larger sample is smoothed: 320,000 - 40,000 + 48,000; a smaller one is taken.
        s.measure_ts(130 * MS, 82 * MS, 1448);
        assert_eq!(s.rtt_us8, 328_000);
        s.measure_ts(131 * MS, 91 * MS, 1448);
        assert_eq!(s.rtt_us8, 320_000);
        // Copies from 100 ms: none counts before a receiver RTT (40 ms) has passed.
        for k in 0..10 {
            s.on_copied((100 + k) * MS, 1448);
        }
        assert_eq!((s.rcvbuf, s.space), (131_072, 14_480));
        // At 140 ms, 11 segments copied = 15,928 > 14,480: rcvwin = 2 x 15,928 + 16 x 1448 =
        // 55,024; grow = 55,024 x 1448 / 14,480 = 5502; rcvwin = 55,024 + 2 x 5502 = 66,028;
        // rcvbuf = 66,028 / 1448 (= 45) x 2920 = 131,400, window_clamp 65,700. The reference
        // kernel's TCP_INFO: rcv_space 15,928, SO_RCVBUF 131,400 at its first round trip.
        s.on_copied(140 * MS, 1448);
        assert_eq!(
            (s.rcvbuf, s.window_clamp, s.space),
            (131_400, 65_700, 15_928)
        );
        // tcp_space: (131,400 - 2728) / 2 = 64,336, the kernel's rcv_ssthresh after it.
        assert_eq!(s.tcp_space(1, 1448), 64_336);
        // 19 segments to 159 ms, then one at 180 ms: 20 x 1448 = 28,960 in 40 ms. rcvwin =
        // 57,920 + 23,168 = 81,088; grow = 81,088 x 13,032 / 15,928 = 66,344; rcvwin =
        // 81,088 + 132,688 = 213,776; 213,776 / 1448 = 147; rcvbuf 147 x 2920 = 429,240 (the
        // kernel's, after its second round trip of 20 segments).
        for k in 1..20 {
            s.on_copied((140 + k) * MS, 1448);
        }
        assert_eq!(s.rcvbuf, 131_400);
        s.on_copied(180 * MS, 1448);
        assert_eq!(
            (s.rcvbuf, s.window_clamp, s.space),
            (429_240, 214_620, 28_960)
        );
        assert_eq!(s.tcp_space(1, 1448), 213_256);
        // A round trip that copies no more than `space` resets the measure only.
        for k in 1..=20 {
            s.on_copied((180 + 2 * k) * MS, 1448);
        }
        assert_eq!((s.rcvbuf, s.space), (429_240, 28_960));
        // The buffer never shrinks and stops at tcp_rmem[2].
        let mut big = RcvSpace::new(1448, 200_000).0;
        big.measure_ts(40 * MS, MS, 1448);
        big.on_copied(40 * MS, 0);
        big.on_copied(80 * MS, 100 * 1448);
        assert_eq!(big.rcvbuf, 200_000);
    }

    #[test]
    fn tcp_rcv_rtt_measure_takes_only_lower_window_samples() {
        let (mut s, _) = reference();
        // The first in-order segment starts a measure over rcv_nxt + rcv_wnd.
        s.measure_window(100 * MS, 1448, 64_088);
        s.measure_window(130 * MS, 40_000, 64_088);
        assert_eq!(s.rtt_us8, 0, "the window (65,536 bytes) not yet received");
        // 65,536 reached at 150 ms: a 50 ms sample, the first: taken.
        s.measure_window(150 * MS, 65_536, 64_088);
        assert_eq!(s.rtt_us8, 400_000);
        // The next window took 60 ms: win_dep samples never raise the estimate.
        s.measure_window(210 * MS, 65_536 + 64_088, 64_088);
        assert_eq!(s.rtt_us8, 400_000);
        s.measure_window(240 * MS, 65_536 + 2 * 64_088, 64_088);
        assert_eq!(s.rtt_us8, 240_000);
    }
}
