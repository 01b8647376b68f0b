//! A DOCSIS-like upstream: a cable modem's packets leave only in the grants the CMTS gives,
//! one per MAP interval, for bytes the modem requested a pipeline of MAPs before.
//!
//! Source: CableLabs' DOCSIS upstream model for ns-2, `DocsisLink` (docsislink.cc, (c) 2012-2013
//! Cable Television Laboratories; G. White, J. Padden, T. Hayakawa), documented in the ns-2
//! manual, "DOCSIS links" (`mapint_` "typically 2ms", `maxgrant_` "the maximum grant size (bytes)
//! per MAP interval", `mgvar_` its variability); read for the facts below, the code is ours:
//! - Every MAP interval T (`handleMapIntTimer`) the grant the CMTS announced for it is added
//!   to the modem's tokens. Without tokens the modem makes a contention request; with
//!   tokens it transmits at a uniform random offset within the interval, no later than
//!   leaves room for the granted bytes at the channel rate (`grant_time_max`).
//! - At a grant (`handleGrantTimer`) the modem piggybacks a request in the segment header and
//!   sends its queue's packets back to back while the tokens cover them; a packet larger than
//!   the tokens left is taken from the queue and held, its bytes covered by later grants
//!   (fragmentation), and sent when the tokens cover it; the tokens left when the queue is
//!   empty are dropped (`askForNextPacket`).
//! - A request (`makeRequest`) asks for the bytes queued (and held) less those requested and
//!   not yet granted and the tokens in hand. Requests pass through a pipeline of
//!   floor(map_advance / T) + 1 MAPs (`req_count_`); the CMTS's MAP message, 650 us before the
//!   interval ends (`MAP_PROCESSING_TIME`), grants min(the oldest requests, max_grant +- a
//!   uniform variation) for the next interval (`handleMapMsgTimer`).
//! - So a lone packet arriving in interval k-1 is requested at the start of k, granted in the
//!   MAP message of k+1 (with map_advance = T) and sent in k+2 at a random offset: it waits
//!   until the next MAP boundary, two whole intervals, and the offset.
//!
//! Not modelled: `DocsisLink`'s rate shaping (the token buckets `rate_`, `bucket_`,
//! `peakrate_` that cap requests; here requests are uncapped, so the grants are the only
//! limit), contention collisions and their backoff (a contention request always gets
//! through), other modems (the CMTS's free capacity is `max_grant`, varied by
//! `max_grant_variation`), MAC framing overhead, and queue-delay-based AQM hints.
//!
//! Parameters (`[..].docsis` of a link; the link's `rate` is the channel rate at which a
//! grant's bytes are sent): `max_grant` (bytes per MAP, required), `map_interval` (2 ms),
//! `map_advance` (the map interval: requests granted in the MAP message after next),
//! `max_grant_variation` (percent, 0).

use crate::net::PacketId;
use crate::sim::{RngStream, Time};
use crate::units::error::ScenarioError;
use crate::units::{Bytes, Duration};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// `MAP_PROCESSING_TIME`: the CMTS sends the MAP message this long before the interval ends.
pub const MAP_PROCESSING: Time = 650_000;

/// The `docsis` table of a link.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DocsisParams {
    /// The most bytes granted in one MAP interval.
    pub max_grant: Bytes,
    #[serde(default = "default_map_interval")]
    pub map_interval: Duration,
    /// How far ahead requests are granted (default: one MAP interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map_advance: Option<Duration>,
    /// The free capacity of each MAP varies uniformly by this percentage of `max_grant`.
    #[serde(default)]
    pub max_grant_variation: u32,
}

fn default_map_interval() -> Duration {
    Duration(2_000_000)
}

impl DocsisParams {
    fn advance(&self) -> Time {
        self.map_advance.unwrap_or(self.map_interval).0
    }

    /// What the parameters may not be: the error names the field (under `path`) and why;
    /// `rate`: the link's.
    pub fn check(&self, path: &str, rate: u64) -> Result<(), ScenarioError> {
        let err =
            |field: &str, why: String| Err(ScenarioError::new(format!("{path}.{field}"), why));
        let t = self.map_interval.0;
        if t <= MAP_PROCESSING || t > 1_000_000_000 {
            return err(
                "map_interval",
                format!(
                    "must be above the CMTS's 650 us of MAP processing and at most 1 s, got {t} ns"
                ),
            );
        }
        if self.advance() < t || self.advance() > 100 * t {
            return err(
                "map_advance",
                format!(
                    "must be at least map_interval ({t} ns) and at most 100 of them, got {} ns",
                    self.advance()
                ),
            );
        }
        if self.max_grant_variation > 100 {
            return err(
                "max_grant_variation",
                format!(
                    "must be a percentage, 0 to 100, got {}",
                    self.max_grant_variation
                ),
            );
        }
        // The largest grant must fit its interval at the channel rate, or grants would
        // overlap (DocsisLink places each within its interval).
        let most = self.max_grant.0 * (100 + self.max_grant_variation as u64) / 100;
        let fits = (rate as u128 * t as u128 / 8_000_000_000) as u64;
        if self.max_grant.0 == 0 || most > fits {
            return err(
                "max_grant",
                format!(
                    "must be above 0 and, with its variation, fit one MAP interval at the link's \
                     rate ({fits} bytes), got {} bytes (at most {most})",
                    self.max_grant.0
                ),
            );
        }
        Ok(())
    }
}

/// The modem's queue as the upstream sees it: its bytes, and its next packet (taken).
pub trait UpstreamQueue {
    fn bytes(&self) -> u64;
    fn take(&mut self) -> Option<(PacketId, u32)>;
}

/// A packet taken from the queue for lack of tokens: its bytes are covered by later
/// grants (DocsisLink's fragmentation: `frag_pkt_`).
#[derive(Debug, Clone, Copy)]
struct Held {
    pkt: PacketId,
    size: u32,
    /// Its bytes sent in grants so far (`frag_sent_bytes_`).
    sent: u64,
}

/// The upstream of one link: requests, grants, the packet being sent, and the packets on
/// their way to the far node (a FIFO of constant delay).
#[derive(Debug, Clone)]
pub struct DocsisUpstream {
    params: DocsisParams,
    /// Requests in the pipeline, oldest first (`req_`).
    requests: Vec<u64>,
    /// Granted bytes usable now and from the next interval (`tokens_current_`, `tokens_next_`).
    tokens: u64,
    tokens_next: u64,
    held: Option<Held>,
    /// The packet being sent: id, size, start, end.
    sending: Option<(PacketId, u32, Time, Time)>,
    next_map: Time,
    map_message: Time,
    grant: Option<Time>,
    /// Whether the grant's offset is drawn (DocsisLink) or 0 (the tests' hand-computed times).
    random_offset: bool,
    rng: RngStream,
    /// Packets sent since the caller last took them: id, size, start, end.
    pub(super) sent: Vec<(PacketId, u32, Time, Time)>,
    pub(super) wire: VecDeque<(Time, PacketId)>,
}

impl DocsisUpstream {
    pub fn new(params: DocsisParams, rng: RngStream) -> Self {
        Self::with_offsets(params, rng, true)
    }

    fn with_offsets(params: DocsisParams, rng: RngStream, random_offset: bool) -> Self {
        let t = params.map_interval.0;
        let stages = (params.advance() / t) as usize + 1;
        DocsisUpstream {
            params,
            requests: vec![0; stages],
            tokens: 0,
            tokens_next: 0,
            held: None,
            sending: None,
            next_map: t,
            map_message: 2 * t - MAP_PROCESSING,
            grant: None,
            random_offset,
            rng,
            sent: vec![],
            wire: VecDeque::new(),
        }
    }

    /// Packets held here: taken from the queue and not sent, being sent, or on the wire.
    pub fn len(&self) -> usize {
        self.held.is_some() as usize + self.sending.is_some() as usize + self.wire.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a packet is being sent.
    pub fn is_sending(&self) -> bool {
        self.sending.is_some()
    }

    /// The next instant something happens (the first MAP boundary at the start).
    pub fn next_wake(&self) -> Time {
        let mut t = self.next_map.min(self.map_message);
        if let Some(g) = self.grant {
            t = t.min(g);
        }
        if let Some((.., end)) = self.sending {
            t = t.min(end);
        }
        t
    }

    /// Does what is due at `now` (`now` = `next_wake()`): the end of a transmission, a MAP
    /// boundary, the MAP message, a grant, in that order, until nothing is due; packets sent
    /// are added to `sent`. `rate`: the channel's.
    pub fn wake(&mut self, now: Time, rate: u64, q: &mut impl UpstreamQueue) {
        loop {
            if let Some((pkt, size, start, end)) = self.sending.filter(|s| s.3 == now) {
                self.sending = None;
                self.sent.push((pkt, size, start, end));
                self.next_packet(now, rate, q);
            } else if self.next_map == now {
                self.map_boundary(now, rate, q);
            } else if self.map_message == now {
                self.map_message(now);
            } else if self.grant == Some(now) {
                self.grant = None;
                // The piggybacked request, in the first segment's header.
                self.request(q);
                if self.sending.is_none() {
                    self.next_packet(now, rate, q);
                }
            } else {
                return;
            }
        }
    }

    /// `handleMapIntTimer`.
    fn map_boundary(&mut self, now: Time, rate: u64, q: &mut impl UpstreamQueue) {
        let t = self.params.map_interval.0;
        self.next_map = now + t;
        self.tokens += std::mem::take(&mut self.tokens_next);
        if self.tokens == 0 {
            self.request(q);
            return;
        }
        // Room for what this grant has still to send (`grant_time_max`).
        let sent = self.held.map_or(0, |h| h.sent);
        let room = t.saturating_sub(tx_time(self.tokens - sent, rate));
        let offset = if self.random_offset && room > 0 {
            (((self.rng.next_u64() >> 11) as u128 * room as u128) >> 53) as Time
        } else {
            0
        };
        self.grant = Some(now + offset);
    }

    /// `handleMapMsgTimer`: the grant for the next interval.
    fn map_message(&mut self, now: Time) {
        self.map_message = now + self.params.map_interval.0;
        let max = self.params.max_grant.0;
        let w = max * self.params.max_grant_variation as u64 / 100;
        let free = if w == 0 {
            max
        } else {
            max - w + (self.rng.next_u64() >> 32) % (2 * w)
        };
        let grant = self.requests[0].min(free);
        let n = self.requests.len();
        self.requests[0] -= grant;
        for i in 1..n {
            let later = std::mem::take(&mut self.requests[i]);
            self.requests[i - 1] += later;
        }
        self.tokens_next = grant;
    }

    /// `makeRequest`: what is queued and not yet asked for.
    fn request(&mut self, q: &impl UpstreamQueue) {
        let queued = q.bytes() + self.held.map_or(0, |h| h.size as u64);
        let asked = self.requests.iter().sum::<u64>() + self.tokens + self.tokens_next;
        let n = self.requests.len();
        self.requests[n - 1] += queued.saturating_sub(asked);
    }

    /// `askForNextPacket` / `recv` / `handleGrantTimer`: the next packet (the held one
    /// first) goes if the tokens cover it, its transmission what is left of it; one they do
    /// not cover is held, the tokens counted as its bytes sent; without packets the tokens
    /// are dropped.
    fn next_packet(&mut self, now: Time, rate: u64, q: &mut impl UpstreamQueue) {
        if self.tokens == 0 {
            return;
        }
        let next = match self.held.take() {
            Some(h) => Some(h),
            None => q.take().map(|(pkt, size)| Held { pkt, size, sent: 0 }),
        };
        let Some(mut h) = next else {
            self.tokens = 0;
            return;
        };
        if self.tokens >= h.size as u64 {
            self.tokens -= h.size as u64;
            let end = now + tx_time(h.size as u64 - h.sent, rate).max(1);
            self.sending = Some((h.pkt, h.size, now, end));
        } else {
            h.sent = self.tokens;
            self.held = Some(h);
        }
    }
}

/// `bytes` at `rate` b/s, in whole nanoseconds rounded up.
fn tx_time(bytes: u64, rate: u64) -> Time {
    (bytes as u128 * 8_000_000_000).div_ceil(rate as u128) as Time
}

#[cfg(test)]
mod tests;
