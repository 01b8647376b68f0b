//! Which station a transmitter serves next: mac80211's airtime deficit round robin, or plain
//! round robin per transmit opportunity when airtime fairness is off.
//!
//! Source: Linux 6.1 `net/mac80211/tx.c` (`ieee80211_next_txq`, `__ieee80211_schedule_txq`),
//! `net/mac80211/sta_info.c` (`ieee80211_sta_register_airtime`; `__sta_info_alloc` starts
//! each deficit at the station's weight), read for the facts below; the code is not Linux's. The design is Høiland-Jørgensen et al., "Ending the
//! Anomaly: Achieving Low Latency and Airtime Fairness in WiFi", USENIX ATC 2017, section 4.
//! - Each station has a deficit, starting at its weight (`IEEE80211_DEFAULT_AIRTIME_WEIGHT`,
//!   256, in microseconds of airtime; include/net/cfg80211.h).
//! - `ieee80211_next_txq`: the head of the active list is served if its deficit is not
//!   negative; otherwise its deficit grows by the weight and it goes to the tail, and the
//!   next head is tried (a deficit round robin whose quantum is the weight).
//! - A served station leaves the list; it comes back (`__ieee80211_schedule_txq`, through
//!   `ieee80211_return_txq`) if it still has packets: at the head when airtime fairness is
//!   on (so it keeps the medium until its deficit goes negative), at the tail when it is off
//!   (`local->airtime_flags` zero: plain round robin, one transmit opportunity each).
//! - `ieee80211_sta_register_airtime`: the transmission's airtime (the driver's measured
//!   duration, ath9k's `ath_tx_count_airtime`) is taken from the deficit when it completes;
//!   with airtime fairness off nothing is taken and no deficit ever goes negative.
//!
//! Not modelled: Airtime Queue Limits (`aql_tx_pending`, the airtime a driver may have
//! queued per station), receive airtime (`AIRTIME_USE_RX`: only this link's transmissions
//! are charged), the weights' configuration (every station weighs 256), and
//! `ieee80211_txq_keep_active` (a station with a negative deficit kept on the list for
//! `AIRTIME_ACTIVE_DURATION`, 100 ms, after it empties): here a station's deficit is kept
//! while it is idle, so it cannot shed a debt by emptying either way.
//!
//! Parameters: `fair` (airtime fairness on, mac80211's default with a driver that declares
//! `NL80211_EXT_FEATURE_AIRTIME_FAIRNESS`, as ath9k does) and the quantum (ns of airtime).

use std::collections::VecDeque;

/// mac80211's default station weight, `IEEE80211_DEFAULT_AIRTIME_WEIGHT`: 256 us.
pub const DEFAULT_QUANTUM_NS: i64 = 256_000;

/// The active list and each station's airtime deficit.
#[derive(Debug, Clone)]
pub struct AirtimeScheduler {
    fair: bool,
    quantum: i64,
    /// Stations with packets that are not being served, in service order.
    active: VecDeque<u32>,
    /// Per station: its deficit (ns of airtime) and whether it is in `active`.
    deficit: Vec<i64>,
    listed: Vec<bool>,
    /// The station being served: packets it gets meanwhile are its own queue's (the driver
    /// pulling from it), and whether it returns is decided when it is done (`served`).
    serving: Option<u32>,
}

impl AirtimeScheduler {
    pub fn new(fair: bool, quantum: i64) -> Self {
        AirtimeScheduler {
            fair,
            quantum,
            active: VecDeque::new(),
            deficit: vec![],
            listed: vec![],
            serving: None,
        }
    }

    /// A station `s` (numbered from 0 in order of first use) exists from now on.
    pub fn add_station(&mut self, s: u32) {
        debug_assert_eq!(s as usize, self.deficit.len());
        self.deficit.push(self.quantum);
        self.listed.push(false);
    }

    /// Station `s` has packets: it joins the list unless it is on it or being served
    /// (`__ieee80211_schedule_txq`: at the head with airtime fairness, else at the tail).
    pub fn schedule(&mut self, s: u32) {
        if self.listed[s as usize] || self.serving == Some(s) {
            return;
        }
        self.listed[s as usize] = true;
        if self.fair {
            self.active.push_front(s);
        } else {
            self.active.push_back(s);
        }
    }

    /// `ieee80211_next_txq`: the station to serve, taken off the list; None if none has
    /// packets.
    pub fn next_station(&mut self) -> Option<u32> {
        loop {
            let s = *self.active.front()?;
            let d = &mut self.deficit[s as usize];
            if *d < 0 {
                *d += self.quantum;
                self.active.rotate_left(1);
                continue;
            }
            self.active.pop_front();
            self.listed[s as usize] = false;
            self.serving = Some(s);
            return Some(s);
        }
    }

    /// The transmission of station `s` took `airtime` ns (`ieee80211_sta_register_airtime`);
    /// `has_packets`: it returns to the list (`ieee80211_return_txq`).
    pub fn served(&mut self, s: u32, airtime: i64, has_packets: bool) {
        self.serving = None;
        if self.fair {
            self.deficit[s as usize] -= airtime;
        }
        if has_packets {
            self.schedule(s);
        }
    }

    pub fn deficit(&self, s: u32) -> i64 {
        self.deficit[s as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two stations always backlogged, A's transmissions 600 us, B's 100 us, quantum 256.
    /// By hand, with airtime fairness (B joined last, so at the head; deficits in us):
    /// B serves 256 -> 156, 56, -44; B is negative: +256 = 212, to the tail; A serves 256 ->
    /// -344 and returns to the head; A is negative: -88, to the tail; B serves 212 -> 112,
    /// 12, -88; B: +256 = 168, tail; A: -88 + 256 = 168, tail; B serves 168 -> 68, -32;
    /// B: 224, tail; A serves 168 -> -432.
    #[test]
    fn airtime_drr_serves_by_deficit_as_mac80211() {
        let mut s = AirtimeScheduler::new(true, DEFAULT_QUANTUM_NS);
        let air = [600_000, 100_000];
        for st in 0..2 {
            s.add_station(st);
            s.schedule(st);
        }
        let mut order = vec![];
        for _ in 0..10 {
            let st = s.next_station().unwrap();
            order.push(st);
            s.served(st, air[st as usize], true);
        }
        assert_eq!(order, vec![1, 1, 1, 0, 1, 1, 1, 1, 1, 0]);
        assert_eq!(s.deficit(0), 168_000 - 600_000);
    }

    /// Over many rounds each station gets the same airtime, whatever its transmissions'
    /// lengths (the quantum bounds the difference at any time by one transmission plus one
    /// quantum).
    #[test]
    fn airtime_drr_equalises_airtime() {
        let mut s = AirtimeScheduler::new(true, DEFAULT_QUANTUM_NS);
        let air = [3_952_640i64, 1_024_160];
        let mut used = [0i64; 2];
        for st in 0..2 {
            s.add_station(st);
            s.schedule(st);
        }
        for _ in 0..10_000 {
            let st = s.next_station().unwrap();
            used[st as usize] += air[st as usize];
            s.served(st, air[st as usize], true);
            assert!((used[0] - used[1]).abs() <= air[0] + DEFAULT_QUANTUM_NS);
        }
    }

    /// Without airtime fairness: one transmission each in turn, whatever they last.
    #[test]
    fn without_fairness_it_is_round_robin() {
        let mut s = AirtimeScheduler::new(false, DEFAULT_QUANTUM_NS);
        for st in 0..3 {
            s.add_station(st);
            s.schedule(st);
        }
        let mut order = vec![];
        for _ in 0..7 {
            let st = s.next_station().unwrap();
            order.push(st);
            s.served(st, 4_000_000, st != 2);
        }
        // Station 2 empties after its first turn and leaves the list.
        assert_eq!(order, vec![0, 1, 2, 0, 1, 0, 1]);
        assert_eq!(s.next_station(), Some(0));
        assert_eq!(s.next_station(), Some(1));
        assert_eq!(s.next_station(), None);
    }
}
