//! DropTail: accept while there is room, drop the arrival otherwise.
//!
//! Source: ns-2 `queue/drop-tail.cc`. Parameters: none beyond the queue's `limit`.
//! Difference from ns-2 (documented in docs/aqms.md): ns-2's DropTail accepts while
//! len + 1 < limit and so holds limit - 1 waiting packets; aqmlab's every discipline holds
//! up to `limit` waiting packets plus the one in service.

use super::{Aqm, ArrivalVerdict, DropKind, QueueView};
use crate::net::Packet;
use crate::sim::RngStream;
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DropTailParams {}

#[derive(Debug, Default)]
pub struct DropTail;

impl Aqm for DropTail {
    #[inline]
    fn on_arrival(&mut self, q: &QueueView, pkt: &Packet, _rng: &mut RngStream) -> ArrivalVerdict {
        if q.is_full_for(pkt.size) {
            ArrivalVerdict::Drop(DropKind::Forced)
        } else {
            ArrivalVerdict::Enqueue
        }
    }
}
