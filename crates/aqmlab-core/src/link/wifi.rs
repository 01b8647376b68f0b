//! A Wi-Fi-like link: one transmitter (an access point sending downstream) that sends, in
//! each transmit opportunity (TXOP), one aggregate (A-MPDU) of packets to one station, with
//! the channel access and acknowledgement overhead of 802.11 EDCA, at each station's PHY
//! rate, the station chosen by mac80211's airtime scheduler (`airtime.rs`).
//!
//! Sources (facts read from them; the code is our own). The standard is IEEE Std
//! 802.11-2020 (clause numbers as its structure gives them; no copy of its text is on this
//! machine, so every number below is also taken from the Linux 6.1 source that implements
//! it):
//! - EDCA (802.11-2020 10.23.2, HCF contention based channel access): a TXOP is won after the
//!   medium has been idle for AIFS[AC] = aSIFSTime + AIFSN[AC] x aSlotTime and a backoff of
//!   a random integer of slots uniform over [0, CW], CW = CWmin[AC] for a first attempt.
//!   Best effort: AIFSN 3, CWmin 15, CWmax 1023 (mac80211's defaults, "according to
//!   802.11-2007 Table 7-37": net/mac80211/util.c `ieee80211_set_wmm_default`, AC_BE).
//!   At 5 GHz aSlotTime 9 us, aSIFSTime 16 us (drivers/net/wireless/ath/ath9k/hw.c:
//!   `ah->slottime = 9`, `ath9k_hw_init_global_settings` sifstime 16 on a 5 GHz channel).
//! - The data PPDU starts with the HT-mixed preamble: L-STF 8, L-LTF 8, L-SIG 4, HT-SIG 8,
//!   HT-STF 4 and one HT-LTF 4, 36 us for one spatial stream (802.11-2020 19.3; ath9k's
//!   xmit.c `L_STF`..`HT_LTF(_ns)`, used by `ath_pkt_duration`).
//! - An A-MPDU (802.11-2020 9.7) is a train of subframes, each a 4-octet MPDU delimiter
//!   (ath9k's `ATH_AGGR_DELIM_SZ`), the MPDU (QoS Data header 26 octets; the LLC/SNAP header
//!   8; the IP packet; FCS 4), padded to a multiple of 4 octets (ath9k's `PADBYTES`).
//! - After SIFS the receiver answers with a compressed BlockAck of 32 octets (802.11-2020
//!   9.3.1.8: frame control 2, duration 2, RA 6, TA 6, BA control 2, starting sequence 2,
//!   bitmap 8, FCS 4) at the 24 Mb/s basic rate: the legacy preamble and SIGNAL, 20 us
//!   (ath9k's `OFDM_PREAMBLE_TIME`), and ceil((22 + 256) / 96) = 3 OFDM symbols of 4 us
//!   (`OFDM_PLCP_BITS` 22 service and tail bits, 96 data bits per symbol at 24 Mb/s): 32 us.
//! - Aggregate limits as Linux 6.1's ath9k builds them (drivers/net/wireless/ath/ath9k/
//!   xmit.c, `ath_tx_form_aggr`, `ath_lookup_rate`): the first frame is always taken; a
//!   frame is added while the aggregate stays within the 4 ms frame length at the rate
//!   (`max_4ms_framelen`) and `ATH_AMPDU_LIMIT_MAX` (65,535 bytes, 802.11n's largest
//!   A-MPDU); the count is capped by the block-ack window (64 frames in 802.11n/ac,
//!   `IEEE80211_MAX_AMPDU_BUF_HT`; ath9k itself stops at half its window, 32).
//! - Where the AQM sits: in Linux the queue that matters is mac80211's, one per station,
//!   each with its own FQ-CoDel flows and CoDel state (net/mac80211/tx.c:
//!   `ieee80211_txq_enqueue`, `fq_tin_dequeue`, `codel_dequeue` with the station's
//!   `cparams`), and the driver pulls from the station it serves while it builds each
//!   aggregate (ath9k's `ath_txq_schedule` -> `ieee80211_next_txq` picks the station,
//!   `ath_tx_form_aggr` -> `ath_tid_dequeue` -> `ieee80211_tx_dequeue` takes its frames; the
//!   frame that stops an aggregate goes back to the station's `retry_q`, which the next
//!   aggregate takes first). The AQM decides at the moment a TXOP is filled and the only
//!   packets outside it are the aggregate's. So here the link's discipline is built once per
//!   station (`aqm/per_destination.rs`: the link's algorithm, parameters and limit, each
//!   instance its own), a station joins the scheduler when its queue gets a packet, and the
//!   link pulls the chosen station's aggregate from its queue per TXOP (a packet's departure
//!   from the queue is when it joins an aggregate). The other reading, the link's one
//!   discipline feeding per-station aggregation queues, was tried and dropped: pulled only
//!   as far as one aggregate, the stations' queues emptied at every TXOP, so no station kept
//!   a place in the scheduler and airtime fairness could not act; pulled further, the
//!   packets would wait outside the AQM, the bufferbloat mac80211's design removed.
//!
//! Not modelled: collisions and other contenders (the AP is alone on the medium, so a TXOP
//! always succeeds and CW never doubles), MAC retransmissions (a subframe lost by the link's
//! `loss` is lost), the immediate access after a long idle medium (every TXOP pays AIFS and a
//! backoff, the post-backoff's cost), OFDM symbol rounding of the data part (its airtime is
//! its bits at the PHY rate), rate control (each station's PHY rate is fixed), RTS/CTS, the
//! upstream (stations' own transmissions), power save. The aggregate's packets reach the far
//! node when the TXOP ends (after the BlockAck), plus the link's delay.
//!
//! Parameters (`[..].wifi` of a link; the link's `rate` is the PHY rate of a station not
//! listed, and the highest): `station_rates` (node name -> rate, each at most the link's),
//! `airtime_fairness` (default true), `max_packets` (64), `max_bytes` (65535),
//! `max_airtime` (4 ms), `slot` (9 us), `sifs` (16 us), `aifsn` (3), `cw_min` (15),
//! `preamble` (36 us), `block_ack` (32 us). The link's `queue` (algorithm and limit) is
//! each station's.

use super::airtime::{AirtimeScheduler, DEFAULT_QUANTUM_NS};
use crate::net::{NodeId, PacketId};
use crate::sim::{RngStream, Time};
use crate::units::error::ScenarioError;
use crate::units::{Duration, Rate};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, VecDeque};

const US: u64 = 1_000;

/// A subframe's bytes besides the IP packet: MPDU delimiter 4, QoS Data header 26, LLC/SNAP
/// 8, FCS 4 (802.11-2020 9.7.1, 9.3.2.1).
pub const SUBFRAME_OVERHEAD: u32 = 42;

/// An A-MPDU subframe's length for an IP packet of `size` bytes, padded to 4 octets.
pub fn subframe_bytes(size: u32) -> u64 {
    ((size + SUBFRAME_OVERHEAD) as u64).div_ceil(4) * 4
}

/// The `wifi` table of a link.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct WifiParams {
    /// PHY rates of the stations (by node name) that do not use the link's `rate`.
    pub station_rates: BTreeMap<String, Rate>,
    /// mac80211's airtime deficit round robin (true) or one TXOP per station in turn.
    pub airtime_fairness: bool,
    /// Subframes per aggregate (the block-ack window).
    pub max_packets: u32,
    /// Bytes per aggregate (subframes with their headers and padding).
    pub max_bytes: u64,
    /// Airtime of an aggregate's data at the station's rate.
    pub max_airtime: Duration,
    pub slot: Duration,
    pub sifs: Duration,
    /// Slots of AIFS after SIFS.
    pub aifsn: u32,
    /// The contention window: the backoff is 0..=cw_min slots.
    pub cw_min: u32,
    /// The PHY preamble and headers before each aggregate.
    pub preamble: Duration,
    /// The receiver's BlockAck, after SIFS.
    pub block_ack: Duration,
}

/// 802.11n at 5 GHz, best effort (the module's header).
impl Default for WifiParams {
    fn default() -> Self {
        WifiParams {
            station_rates: BTreeMap::new(),
            airtime_fairness: true,
            max_packets: 64,
            max_bytes: 65_535,
            max_airtime: Duration(4_000 * US),
            slot: Duration(9 * US),
            sifs: Duration(16 * US),
            aifsn: 3,
            cw_min: 15,
            preamble: Duration(36 * US),
            block_ack: Duration(32 * US),
        }
    }
}

impl WifiParams {
    /// What the parameters may not be: the error names the field (under `path`) and why.
    /// The station rates are checked against their link and nodes when the link is built
    /// (`station_rate`).
    pub fn check(&self, path: &str) -> Result<(), ScenarioError> {
        let err =
            |field: &str, why: String| Err(ScenarioError::new(format!("{path}.{field}"), why));
        // The block-ack window is at most 1024 frames (802.11be).
        if !(1..=1024).contains(&self.max_packets) {
            return err(
                "max_packets",
                format!(
                    "must be 1 to 1024 (the block-ack window), got {}",
                    self.max_packets
                ),
            );
        }
        // 802.11ax's largest A-MPDU is 2^23 - 1 octets.
        if !(1..=8_388_607).contains(&self.max_bytes) {
            return err(
                "max_bytes",
                format!("must be 1 to 8388607 bytes, got {}", self.max_bytes),
            );
        }
        // A PPDU's L-SIG announces at most 5.484 ms (4,095 bytes at 6 Mb/s); 10 ms is room.
        if self.max_airtime.0 == 0 || self.max_airtime.0 > 10_000 * US {
            return err(
                "max_airtime",
                format!(
                    "must be above 0 and at most 10 ms, got {} ns",
                    self.max_airtime.0
                ),
            );
        }
        for (field, d) in [
            ("slot", self.slot),
            ("sifs", self.sifs),
            ("preamble", self.preamble),
            ("block_ack", self.block_ack),
        ] {
            if d.0 > 1_000 * US {
                return err(field, format!("must be at most 1 ms, got {} ns", d.0));
            }
        }
        if !(1..=15).contains(&self.aifsn) {
            return err(
                "aifsn",
                format!("must be 1 to 15 (a 4-bit field), got {}", self.aifsn),
            );
        }
        // CW = 2^ECW - 1, ECW a 4-bit field of the EDCA Parameter Set element.
        if self.cw_min > 32_767 || !(self.cw_min + 1).is_power_of_two() {
            return err(
                "cw_min",
                format!("must be 2^n - 1 and at most 32767, got {}", self.cw_min),
            );
        }
        Ok(())
    }

    /// Station `name`'s rate, if it is at most the link's `rate`; `path`: the `wifi` table.
    pub fn station_rate(&self, path: &str, name: &str, rate: u64) -> Result<u64, ScenarioError> {
        let r = self.station_rates[name].0;
        if r == 0 || r > rate {
            return Err(ScenarioError::new(
                format!("{path}.station_rates.{name}"),
                format!(
                    "must be above 0 and at most the link's rate ({rate} b/s: the fastest \
                     station's, what its utilisation is measured against), got {r} b/s"
                ),
            ));
        }
        Ok(r)
    }
}

/// One station.
#[derive(Debug, Clone)]
struct Station {
    node: NodeId,
    /// Its PHY rate, or None: the link's.
    rate: Option<u64>,
    /// A packet taken from its queue that did not fit the last aggregate: it starts the
    /// next (ath9k keeps the frame that stopped an aggregate for the next one).
    carried: Option<(PacketId, u32)>,
}

/// The aggregate on the air.
#[derive(Debug, Clone, Default)]
struct OnAir {
    station: u32,
    /// The PPDU's airtime (preamble and data), charged to the station.
    airtime: Time,
    packets: Vec<PacketId>,
}

/// The Wi-Fi medium of one link: its stations, the aggregate on the air, and the packets
/// delivered after it (a FIFO of constant delay, as a plain link's). The stations' packets
/// wait in the link's discipline, a queue per station (`aqm/per_destination.rs`).
#[derive(Debug, Clone)]
pub struct WifiLink {
    params: WifiParams,
    /// Station rates by node, resolved from `params.station_rates`.
    rates: HashMap<NodeId, u64>,
    by_node: HashMap<NodeId, u32>,
    stations: Vec<Station>,
    scheduler: AirtimeScheduler,
    /// Stations with a packet carried over.
    carried: usize,
    on_air: OnAir,
    /// Sent, on their way to the far node: (arrival, packet).
    pub(super) wire: VecDeque<(Time, PacketId)>,
    rng: RngStream,
}

impl WifiLink {
    /// `rates`: `params.station_rates` by node.
    pub fn new(params: WifiParams, rates: HashMap<NodeId, u64>, rng: RngStream) -> Self {
        WifiLink {
            scheduler: AirtimeScheduler::new(params.airtime_fairness, DEFAULT_QUANTUM_NS),
            params,
            rates,
            by_node: HashMap::new(),
            stations: vec![],
            carried: 0,
            on_air: OnAir::default(),
            wire: VecDeque::new(),
            rng,
        }
    }

    /// Packets held: carried over, on the air, on the wire.
    pub fn len(&self) -> usize {
        self.carried + self.on_air.packets.len() + self.wire.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Node `dst` has packets queued: its station wants the medium.
    pub fn schedule(&mut self, dst: NodeId) {
        let s = match self.by_node.get(&dst) {
            Some(&s) => s,
            None => {
                let s = self.stations.len() as u32;
                self.stations.push(Station {
                    node: dst,
                    rate: self.rates.get(&dst).copied(),
                    carried: None,
                });
                self.by_node.insert(dst, s);
                self.scheduler.add_station(s);
                s
            }
        };
        self.scheduler.schedule(s);
    }

    /// The station to serve next (`AirtimeScheduler::next_station`), skipping stations
    /// whose packets have all been dropped; `queued(node)`: whether the node has packets
    /// queued. None if no station has packets.
    pub fn choose(&mut self, queued: impl Fn(NodeId) -> bool) -> Option<u32> {
        loop {
            let s = self.scheduler.next_station()?;
            let st = &self.stations[s as usize];
            if st.carried.is_some() || queued(st.node) {
                return Some(s);
            }
            self.scheduler.served(s, 0, false);
        }
    }

    /// Station `s`'s node.
    pub fn node(&self, s: u32) -> NodeId {
        self.stations[s as usize].node
    }

    /// Station `s`'s aggregate goes on the air, its packets taken from `take` (its queue:
    /// packet and size) until a limit stops it: the TXOP's duration (AIFS, backoff,
    /// preamble, data, SIFS, BlockAck). The packets are `on_air()` until `finish`.
    pub fn send(
        &mut self,
        s: u32,
        link_rate: u64,
        mut take: impl FnMut() -> Option<(PacketId, u32)>,
    ) -> Time {
        let p = &self.params;
        let st = &mut self.stations[s as usize];
        let rate = st.rate.unwrap_or(link_rate);
        self.on_air.packets.clear();
        let mut bytes = 0;
        if st.carried.is_some() {
            self.carried -= 1;
        }
        while (self.on_air.packets.len() as u32) < p.max_packets {
            let Some((pkt, size)) = st.carried.take().or_else(&mut take) else {
                break;
            };
            let more = bytes + subframe_bytes(size);
            // ath_tx_form_aggr: the first frame always; the others while they fit.
            if !self.on_air.packets.is_empty()
                && (more > p.max_bytes || airtime_ns(more, rate) > p.max_airtime.0)
            {
                st.carried = Some((pkt, size));
                self.carried += 1;
                break;
            }
            bytes = more;
            self.on_air.packets.push(pkt);
        }
        debug_assert!(
            !self.on_air.packets.is_empty(),
            "a station chosen without packets"
        );
        let airtime = p.preamble.0 + airtime_ns(bytes, rate);
        // AIFS before the backoff; SIFS and the BlockAck after the data.
        let fixed = 2 * p.sifs.0 + p.aifsn as u64 * p.slot.0 + p.block_ack.0;
        self.on_air.station = s;
        self.on_air.airtime = airtime;
        fixed + self.backoff() + airtime
    }

    /// The packets of the aggregate on the air, in order.
    pub fn on_air(&self) -> &[PacketId] {
        &self.on_air.packets
    }

    /// The TXOP ended: its airtime is charged to its station, which returns to the
    /// scheduler if it has packets (`queued(node)`, or one carried over); the aggregate's
    /// packets leave `on_air`.
    pub fn finish(&mut self, queued: impl Fn(NodeId) -> bool) {
        let s = self.on_air.station;
        let st = &self.stations[s as usize];
        let more = st.carried.is_some() || queued(st.node);
        self.scheduler.served(s, self.on_air.airtime as i64, more);
        self.on_air.packets.clear();
    }

    /// A random integer of slots uniform over [0, CW] (802.11-2020 10.23.2.2).
    fn backoff(&mut self) -> Time {
        let cw = self.params.cw_min as u64 + 1;
        let k = ((self.rng.next_u64() >> 32) * cw) >> 32;
        k * self.params.slot.0
    }
}

/// The airtime of `bytes` at `rate` b/s, in whole nanoseconds rounded up.
pub fn airtime_ns(bytes: u64, rate: u64) -> Time {
    ((bytes as u128 * 8 * 1_000_000_000).div_ceil(rate as u128)) as Time
}

#[cfg(test)]
mod tests;
