//! A one-way link: a queue discipline, a transmitter of fixed rate, and a propagation pipe.
//!
//! Only the head of the pipe has an event scheduled (as in htsim's pipes): since the delay is
//! constant and transmissions end in order, packets leave the pipe in the order they entered.
//! A link with `netem` delivers through netem's jitter and slots instead (`netem.rs`). A
//! link with `wifi` sends aggregates in transmit opportunities instead of one packet at a time
//! (`wifi.rs`, its station scheduler `airtime.rs`).
//!
//! The transmitter keeps exact time ([`RateClock`]): a transmission that follows another
//! back to back starts at the exact end of the one before, not at the whole nanosecond its
//! event fired, so a link never sends faster than its rate and, over a busy period, no
//! slower either (issue 24: rounding each packet up to a nanosecond carried 4 Gb/s on a
//! 6 Gb/s link of 1-byte packets).

pub mod airtime;
pub mod docsis;
pub mod netem;
pub mod wifi;

use crate::aqm::{LinkQueue, QueueCtx, QueueDiscipline};
use crate::metrics::packet_trace::{DropReason, TraceEvent};
use crate::metrics::queue_stats::QueueSummary;
use crate::metrics::queue_stats::Transmission;
use crate::metrics::tap::Taps;
use crate::metrics::QueueStats;
use crate::net::delivery_trace::TraceClock;
use crate::net::{NodeId, PacketArena, PacketId};
use crate::sim::{time::RateClock, EventKind, EventQueue, RngStream, Time};
use docsis::{DocsisUpstream, UpstreamQueue};
use netem::{Dequeued, NetemPipe};
use std::collections::VecDeque;
use wifi::WifiLink;

/// Fields in the order one event touches them (`repr(C)` keeps that order): at 100,000 flows
/// every link event is a cache miss, so what a transmission, a delivery or an arrival reads
/// sits in the first lines and the names, random streams and rarely updated counters after.
#[repr(C, align(64))]
pub struct Link {
    in_service: Option<(PacketId, Time)>,
    /// When the transmission of the packet in service started (its event; the exact start
    /// is `clock`'s lag before it when it followed another back to back).
    tx_started: Time,
    /// The transmitter's exact clock: how far before its event the last transmission ended.
    clock: RateClock,
    /// When the link went idle; [`BUSY`] while it transmits (a sentinel rather than an
    /// `Option`, so that with `clock` added a link is still eight cache lines).
    idle_since: Time,
    pub rate_bps: u64,
    pub delay: Time,
    /// Probability that a transmitted packet is lost on the wire (Bernoulli).
    pub loss: f64,
    pub queue: LinkQueue,
    pipe: Pipe,
    pub to: NodeId,
    pub from: NodeId,
    pub stats: QueueStats,
    pub name: String,
    /// Record this link's queue in the time series.
    pub monitor: bool,
    /// Where in `LinkCtx::changes` what events changed of this link is, or [`UNCHANGED`]
    /// (in the padding after `monitor`).
    changes: u32,
    queue_rng: RngStream,
    loss_rng: RngStream,
}

/// The state of a link that events change: down, a rate waiting for the transmission in
/// progress to end, a delivery trace. Kept outside the link (in `LinkCtx::changes`, owned by
/// the timeline) so that a link stays eight cache lines; a link no event touches never
/// reads it.
#[derive(Debug, Clone, Default)]
pub struct LinkChanges {
    down: bool,
    /// The rate the next transmission takes (ns-3's `PointToPointNetDevice::SetDataRate`
    /// changes `m_bps`, which `TransmitStart` reads when a packet starts; the packet on the
    /// wire keeps the rate it started with).
    pending_rate: Option<u64>,
    /// The transmitter follows this trace instead of `rate_bps` (mahimahi's delivery
    /// opportunities, `delivery_trace.rs`); `rate_bps` is then the trace's mean.
    trace: Option<TraceClock>,
    /// Arrivals dropped while the link was down, since the measurement start.
    pub down_drops: u64,
}

/// `Link::changes` of a link no event has touched.
const UNCHANGED: u32 = u32::MAX;

/// `Link::idle_since` while the link transmits (no run reaches this time).
const BUSY: Time = Time::MAX;

/// Everything a link touches outside itself while handling one event.
pub struct LinkCtx<'a> {
    pub id: u32,
    pub events: &'a mut EventQueue,
    pub packets: &'a mut PacketArena,
    pub dropped: &'a mut Vec<PacketId>,
    /// The link's capture and trace, if it is captured or traced (`metrics/tap.rs`).
    pub tap: Option<&'a mut Taps>,
    /// What events changed of the links that they changed (`Link::changes`).
    pub changes: &'a mut Vec<LinkChanges>,
}

impl Link {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: Time,
        loss: f64,
        queue: LinkQueue,
        queue_rng: RngStream,
        loss_rng: RngStream,
    ) -> Self {
        Link {
            name,
            from,
            to,
            rate_bps,
            delay,
            loss,
            queue,
            stats: QueueStats::default(),
            monitor: false,
            queue_rng,
            loss_rng,
            in_service: None,
            tx_started: 0,
            clock: RateClock::default(),
            pipe: Pipe::Constant(VecDeque::new()),
            idle_since: 0,
            changes: UNCHANGED,
        }
    }

    /// Lets the queue discipline act with what it may touch: the clock, the arena, the queue's
    /// random stream, its counters and the drop list; `f` is also given when the link went idle.
    /// `EXTRAS` as in [`Link::arrive`].
    #[inline]
    fn with_queue<const EXTRAS: bool, R>(
        &mut self,
        cx: &mut LinkCtx,
        f: impl FnOnce(&mut LinkQueue, &mut QueueCtx, Option<Time>) -> R,
    ) -> R {
        let mut qcx = QueueCtx {
            now: cx.events.now(),
            packets: cx.packets,
            rng: &mut self.queue_rng,
            stats: &mut self.stats,
            dropped: cx.dropped,
            tap: if EXTRAS { cx.tap.as_deref_mut() } else { None },
        };
        let idle_since = (self.idle_since != BUSY).then_some(self.idle_since);
        f(&mut self.queue, &mut qcx, idle_since)
    }

    /// A packet arrives at this link's queue.
    ///
    /// `EXTRAS`: the run may have taps (`cx.tap`) or `[[events]]` that change links
    /// (`cx.changes`). A run with neither passes false and runs the code it ran before issue
    /// 27: no test of either per packet (issue 36, item 4). With false, `cx.tap` must be
    /// `None` and no link may have changes.
    #[inline]
    pub fn arrive<const EXTRAS: bool>(&mut self, pkt: PacketId, cx: &mut LinkCtx) {
        let now = cx.events.now();
        self.stats.on_arrival(cx.packets.get(pkt));
        if EXTRAS && self.changes != UNCHANGED && cx.changes[self.changes as usize].down {
            cx.changes[self.changes as usize].down_drops += 1;
            if let Some(t) = cx.tap.as_deref_mut() {
                let p = cx.packets.get(pkt);
                t.trace_event(cx.id, now, TraceEvent::Drop, DropReason::LinkDown, p);
            }
            cx.dropped.push(pkt);
            return;
        }
        self.with_queue::<EXTRAS, _>(cx, |queue, qcx, idle_since| {
            queue.enqueue(pkt, qcx, idle_since)
        });
        if let Pipe::Wifi(w) = &mut self.pipe {
            // Its station wants the medium (mac80211 schedules a station's queue when a
            // frame joins it, `ieee80211_queue_skb`).
            let dst = cx.packets.get(pkt).dst;
            if self.queue.len_for(dst) > 0 {
                w.schedule(dst);
            }
        }
        if let Some(t) = cx.tap.as_deref_mut().filter(|_| EXTRAS) {
            // A dropped arrival is still in the arena: the simulator frees drops afterwards.
            let len = (self.queue.len_packets(), self.queue.len_bytes());
            t.after_arrival(cx.id, now, pkt, cx.packets, len);
        }
        if self.in_service.is_none() {
            self.start_next::<EXTRAS>(cx, false);
        } else {
            self.stats
                .on_length_change(now, self.queue.len_packets(), self.queue.len_bytes());
        }
    }

    /// Starts sending the next packet, or marks the link idle. `chained`: the transmitter
    /// has just finished a packet (at this instant, exactly or less than a nanosecond ago),
    /// and the next starts at the exact end of that one.
    /// `EXTRAS` as in [`Link::arrive`].
    fn start_next<const EXTRAS: bool>(&mut self, cx: &mut LinkCtx, chained: bool) {
        let now = cx.events.now();
        if EXTRAS && self.changes != UNCHANGED && self.take_changes_before_start(cx) {
            // Down: what waits stays queued until the link comes up.
            return;
        }
        match self.pipe {
            Pipe::Constant(_) | Pipe::Netem(_) => {}
            Pipe::Wifi(_) => return self.start_txop::<EXTRAS>(cx),
            Pipe::Docsis(_) => {
                // Packets leave only in grants, at the upstream's own times (`docsis_wake`).
                self.stats
                    .on_length_change(now, self.queue.len_packets(), self.queue.len_bytes());
                return;
            }
        }
        let next = self.with_queue::<EXTRAS, _>(cx, |queue, qcx, _| queue.dequeue(qcx));
        match next {
            Some(pkt) => {
                let p = cx.packets.get(pkt);
                let trace = match self.changes {
                    c if !EXTRAS || c == UNCHANGED => None,
                    c => cx.changes[c as usize].trace.as_mut(),
                };
                let end = match trace {
                    Some(trace) => trace.next_end(now, p.size, chained),
                    None => self.clock.next_end(now, p.size, self.rate_bps, chained),
                };
                let tx = end - now;
                self.stats.on_departure(now, p);
                self.in_service = Some((pkt, tx));
                self.tx_started = now;
                self.idle_since = BUSY;
                cx.events.schedule(now + tx, EventKind::LinkTxDone(cx.id));
            }
            None => {
                if self.idle_since == BUSY {
                    self.idle_since = now;
                    self.queue.on_link_idle(now);
                }
                // A shaper holding packets back: the link asks again when it said.
                if let Some(at) = self.queue.wake_at() {
                    cx.events.schedule(at.max(now), EventKind::LinkWake(cx.id));
                }
            }
        }
        self.stats
            .on_length_change(now, self.queue.len_packets(), self.queue.len_bytes());
        if let Some(t) = cx.tap.as_deref_mut().filter(|_| EXTRAS) {
            // What started now is in service (this is only called with the transmitter free).
            let sent = self.in_service.map(|(pkt, _)| pkt);
            let len = (self.queue.len_packets(), self.queue.len_bytes());
            t.after_dequeue(cx.id, now, sent, cx.packets, len);
        }
    }

    /// The transmitter finished the packet in service. `EXTRAS` as in [`Link::arrive`].
    #[inline]
    pub fn tx_done<const EXTRAS: bool>(&mut self, cx: &mut LinkCtx) {
        match self.pipe {
            Pipe::Constant(_) | Pipe::Netem(_) => {}
            Pipe::Wifi(_) => return self.txop_done::<EXTRAS>(cx),
            Pipe::Docsis(_) => return self.docsis_wake::<EXTRAS>(cx),
        }
        let now = cx.events.now();
        let (pkt, tx) = self
            .in_service
            .take()
            .expect("LinkTxDone without a packet in service");
        let p = cx.packets.get(pkt);
        let done = self.transmission(p.size, tx);
        self.stats.on_transmitted(now, p, done);
        if self.loss > 0.0 && self.loss_rng.bernoulli(self.loss) {
            self.stats.link_losses += 1;
            if let Some(t) = cx.tap.as_deref_mut().filter(|_| EXTRAS) {
                t.trace_event(cx.id, now, TraceEvent::Drop, DropReason::LinkLoss, p);
            }
            cx.dropped.push(pkt);
        } else {
            match &mut self.pipe {
                Pipe::Constant(pipe) => {
                    // No packet overtakes another when the delay shrinks (`set_delay`): the
                    // pipe is a FIFO and only its head has an event. Without events the delay
                    // is constant, and `now + delay` is never before the pipe's last.
                    let at = match pipe.back() {
                        Some(&(last, _)) if EXTRAS => (now + self.delay).max(last),
                        _ => now + self.delay,
                    };
                    if pipe.is_empty() {
                        cx.events.schedule(at, EventKind::LinkDeliver(cx.id));
                    }
                    pipe.push_back((at, pkt));
                }
                Pipe::Netem(netem) => {
                    let d = netem.enqueue(now, self.delay, pkt, p.size);
                    schedule_releases(cx.events, cx.id, &d);
                }
                Pipe::Wifi(_) | Pipe::Docsis(_) => {
                    unreachable!("a Wi-Fi or DOCSIS link ends its transmissions itself")
                }
            }
        }
        self.start_next::<EXTRAS>(cx, true);
    }

    /// The head of the pipe reaches the far node; returns it (none when the event was
    /// netem's watchdog and released nothing to deliver now).
    // Always inlined into the event loop, as it was with one kind of pipe: out of line it
    // cost 2 % of a run's instructions (BENCHMARKS.md, "What issue 38 costs").
    #[inline(always)]
    pub fn deliver(&mut self, events: &mut EventQueue, id: u32) -> Option<PacketId> {
        match &mut self.pipe {
            Pipe::Constant(pipe) => Some(pop_wire(pipe, events, id)),
            Pipe::Netem(netem) => {
                let (pkt, d) = netem.deliver(events.now());
                schedule_releases(events, id, &d);
                pkt
            }
            // Out of line: the common arms above stay small enough to inline.
            Pipe::Wifi(w) => Some(pop_burst_wire(&mut w.wire, events, id)),
            Pipe::Docsis(d) => Some(pop_burst_wire(&mut d.wire, events, id)),
        }
    }

    /// Deliveries from now on go through netem's jitter and slots (`netem.rs`).
    pub fn set_netem(&mut self, netem: NetemPipe) {
        debug_assert_eq!(
            self.pipe.len(),
            0,
            "netem set on a link with packets on the wire"
        );
        self.pipe = Pipe::Netem(Box::new(netem));
    }

    /// The time the discipline asked to be dequeued again (`QueueDiscipline::wake_at`):
    /// the transmitter, if free, takes what it releases now. `EXTRAS` as in [`Link::arrive`].
    pub fn wake<const EXTRAS: bool>(&mut self, cx: &mut LinkCtx) {
        if self.in_service.is_none() {
            self.start_next::<EXTRAS>(cx, false);
        }
    }

    /// From now on the link is a Wi-Fi medium (`wifi.rs`): it sends aggregates in transmit
    /// opportunities and delivers them after its delay.
    pub fn set_wifi(&mut self, wifi: WifiLink) {
        debug_assert_eq!(
            self.pipe.len(),
            0,
            "wifi set on a link with packets on the wire"
        );
        self.pipe = Pipe::Wifi(Box::new(wifi));
    }

    /// From now on the link is a DOCSIS upstream (`docsis.rs`): its packets leave in grants.
    pub fn set_docsis(&mut self, upstream: DocsisUpstream) {
        debug_assert_eq!(
            self.pipe.len(),
            0,
            "docsis set on a link with packets on the wire"
        );
        self.pipe = Pipe::Docsis(Box::new(upstream));
    }

    /// Whether the link is a DOCSIS upstream.
    pub fn is_docsis(&self) -> bool {
        matches!(self.pipe, Pipe::Docsis(_))
    }

    /// When a DOCSIS upstream first acts (its first MAP boundary); None for any other link.
    pub fn first_wake(&self) -> Option<Time> {
        match &self.pipe {
            Pipe::Docsis(d) => Some(d.next_wake()),
            _ => None,
        }
    }

    /// A DOCSIS upstream's event: what is due now (`DocsisUpstream::wake`: MAP boundaries,
    /// MAP messages, grants, transmissions' ends); the packets sent go on the wire. A packet
    /// leaves the queue (its departure) when the upstream takes it.
    #[inline(never)]
    fn docsis_wake<const EXTRAS: bool>(&mut self, cx: &mut LinkCtx) {
        let now = cx.events.now();
        let Pipe::Docsis(d) = &mut self.pipe else {
            unreachable!("docsis_wake on a link without docsis")
        };
        let mut modem = ModemQueue {
            queue: &mut self.queue,
            qcx: QueueCtx {
                now,
                packets: cx.packets,
                rng: &mut self.queue_rng,
                stats: &mut self.stats,
                dropped: cx.dropped,
                tap: if EXTRAS { cx.tap.as_deref_mut() } else { None },
            },
        };
        d.wake(now, self.rate_bps, &mut modem);
        for i in 0..d.sent.len() {
            let (pkt, size, started, ends) = d.sent[i];
            let p = cx.packets.get(pkt);
            let t = Transmission {
                started,
                ends,
                lag: 0,
                size,
                rate_bps: self.rate_bps,
            };
            self.stats.on_transmitted(now, p, t);
            if let Some(t) = cx.tap.as_deref_mut().filter(|_| EXTRAS) {
                let len = (self.queue.len_packets(), self.queue.len_bytes());
                t.after_dequeue(cx.id, now, Some(pkt), cx.packets, len);
            }
            if self.loss > 0.0 && self.loss_rng.bernoulli(self.loss) {
                self.stats.link_losses += 1;
                if let Some(t) = cx.tap.as_deref_mut().filter(|_| EXTRAS) {
                    t.trace_event(cx.id, now, TraceEvent::Drop, DropReason::LinkLoss, p);
                }
                cx.dropped.push(pkt);
                continue;
            }
            let at = match d.wire.back() {
                Some(&(last, _)) => (now + self.delay).max(last),
                None => {
                    cx.events
                        .schedule(now + self.delay, EventKind::LinkDeliver(cx.id));
                    now + self.delay
                }
            };
            d.wire.push_back((at, pkt));
        }
        d.sent.clear();
        // Idle between grants: what the AQM is told of the transmitter.
        if d.is_sending() {
            self.idle_since = BUSY;
        } else if self.idle_since == BUSY {
            self.idle_since = now;
            self.queue.on_link_idle(now);
        }
        cx.events
            .schedule(d.next_wake(), EventKind::LinkTxDone(cx.id));
        self.stats
            .on_length_change(now, self.queue.len_packets(), self.queue.len_bytes());
    }

    /// Whether the link is a Wi-Fi medium.
    pub fn is_wifi(&self) -> bool {
        matches!(self.pipe, Pipe::Wifi(_))
    }

    /// A transmit opportunity on a Wi-Fi link whose transmitter is free (`wifi.rs`: where
    /// the AQM sits): the station chosen takes its aggregate from its own queue of the
    /// discipline (`aqm/per_destination.rs`), each packet leaving the queue (its departure)
    /// as the aggregate is built.
    #[inline(never)]
    fn start_txop<const EXTRAS: bool>(&mut self, cx: &mut LinkCtx) {
        let now = cx.events.now();
        let Pipe::Wifi(w) = &mut self.pipe else {
            unreachable!("start_txop on a link without wifi")
        };
        let queue = &mut self.queue;
        let chosen = w.choose(|node| queue.len_for(node) > 0);
        if let Some(s) = chosen {
            let node = w.node(s);
            let mut qcx = QueueCtx {
                now,
                packets: cx.packets,
                rng: &mut self.queue_rng,
                stats: &mut self.stats,
                dropped: cx.dropped,
                tap: if EXTRAS { cx.tap.as_deref_mut() } else { None },
            };
            let tx = w.send(s, self.rate_bps, || {
                let pkt = queue.dequeue_for(node, &mut qcx)?;
                let p = qcx.packets.get(pkt);
                qcx.stats.on_departure(now, p);
                Some((pkt, p.size))
            });
            self.in_service = Some((w.on_air()[0], tx));
            self.tx_started = now;
            self.idle_since = BUSY;
            cx.events.schedule(now + tx, EventKind::LinkTxDone(cx.id));
        } else if self.idle_since == BUSY {
            self.idle_since = now;
            self.queue.on_link_idle(now);
        }
        self.stats
            .on_length_change(now, self.queue.len_packets(), self.queue.len_bytes());
        if let Some(t) = cx.tap.as_deref_mut().filter(|_| EXTRAS) {
            let len = (self.queue.len_packets(), self.queue.len_bytes());
            let Pipe::Wifi(w) = &self.pipe else {
                unreachable!()
            };
            if w.on_air().is_empty() {
                t.after_dequeue(cx.id, now, None, cx.packets, len);
            }
            for &pkt in w.on_air() {
                t.after_dequeue(cx.id, now, Some(pkt), cx.packets, len);
            }
        }
    }

    /// A Wi-Fi link's TXOP ended: each packet of its aggregate is transmitted (or lost on
    /// the link) and reaches the far node after the delay; the next TXOP starts.
    #[inline(never)]
    fn txop_done<const EXTRAS: bool>(&mut self, cx: &mut LinkCtx) {
        let now = cx.events.now();
        self.in_service = None;
        let Pipe::Wifi(w) = &mut self.pipe else {
            unreachable!("txop_done on a link without wifi")
        };
        let at = now + self.delay;
        for i in 0..w.on_air().len() {
            let pkt = w.on_air()[i];
            let p = cx.packets.get(pkt);
            let done = Transmission {
                started: self.tx_started,
                ends: now,
                lag: 0,
                size: p.size,
                rate_bps: self.rate_bps,
            };
            self.stats.on_transmitted(now, p, done);
            if self.loss > 0.0 && self.loss_rng.bernoulli(self.loss) {
                self.stats.link_losses += 1;
                if let Some(t) = cx.tap.as_deref_mut().filter(|_| EXTRAS) {
                    t.trace_event(cx.id, now, TraceEvent::Drop, DropReason::LinkLoss, p);
                }
                cx.dropped.push(pkt);
                continue;
            }
            // The delay is the same for every packet (an event's new delay applies from
            // now): the wire stays in order, a FIFO whose head has an event.
            let at = match w.wire.back() {
                Some(&(last, _)) => at.max(last),
                None => {
                    cx.events.schedule(at, EventKind::LinkDeliver(cx.id));
                    at
                }
            };
            w.wire.push_back((at, pkt));
        }
        let queue = &self.queue;
        w.finish(|node| queue.len_for(node) > 0);
        self.start_next::<EXTRAS>(cx, true);
    }

    /// The queue discipline's periodic timer. `EXTRAS` as in [`Link::arrive`].
    pub fn queue_timer<const EXTRAS: bool>(&mut self, cx: &mut LinkCtx) {
        let now = cx.events.now();
        self.with_queue::<EXTRAS, _>(cx, |queue, qcx, idle_since| queue.on_timer(qcx, idle_since));
        self.stats
            .on_length_change(now, self.queue.len_packets(), self.queue.len_bytes());
        if let Some(t) = cx.tap.as_deref_mut().filter(|_| EXTRAS) {
            let len = (self.queue.len_packets(), self.queue.len_bytes());
            t.after_timer(cx.id, now, cx.packets, len);
        }
        if let Some(iv) = self.queue.timer_interval() {
            cx.events
                .schedule(now + iv.max(1), EventKind::QueueTimer(cx.id));
        }
    }

    /// What events changed of this link, made on first use.
    fn changes<'c>(&mut self, cx: &'c mut LinkCtx) -> &'c mut LinkChanges {
        if self.changes == UNCHANGED {
            self.changes = cx.changes.len() as u32;
            cx.changes.push(LinkChanges::default());
        }
        &mut cx.changes[self.changes as usize]
    }

    /// Before a transmission starts: takes a pending rate; true if the link is down.
    fn take_changes_before_start(&mut self, cx: &mut LinkCtx) -> bool {
        let c = &mut cx.changes[self.changes as usize];
        if c.down {
            return true;
        }
        if let Some(rate) = c.pending_rate.take() {
            self.apply_rate(rate);
        }
        false
    }

    /// The link's rate becomes `rate`: the carried bits counted so far are rescaled so that
    /// busy time (carried / rate) stays what it was, and the exact clock restarts (its lag
    /// is in units of the old rate; less than a nanosecond is lost).
    fn apply_rate(&mut self, rate: u64) {
        let old = self.rate_bps.max(1) as u128;
        self.stats.carried_nanobits = self.stats.carried_nanobits * rate as u128 / old;
        self.rate_bps = rate;
        self.clock = RateClock::default();
        self.queue.set_link_rate(rate);
    }

    /// Sets the rate of the transmissions that start from now on (a fixed rate replaces a
    /// trace).
    pub fn set_rate(&mut self, rate: u64, cx: &mut LinkCtx) {
        let busy = self.in_service.is_some();
        let c = self.changes(cx);
        c.trace = None;
        if busy {
            c.pending_rate = Some(rate);
        } else {
            c.pending_rate = None;
            self.apply_rate(rate);
        }
    }

    /// The transmitter follows `trace` from now on; `rate_bps` becomes its mean rate. The
    /// transmission in progress ends as it was going to.
    pub fn set_trace(&mut self, trace: TraceClock, cx: &mut LinkCtx) {
        let mean = trace.trace().mean_rate_bps();
        let busy = self.in_service.is_some();
        let c = self.changes(cx);
        c.trace = Some(trace);
        if busy {
            c.pending_rate = Some(mean);
        } else {
            c.pending_rate = None;
            self.apply_rate(mean);
        }
    }

    /// The propagation delay of packets that finish transmission from now on; packets on the
    /// wire keep theirs, and none overtakes another.
    pub fn set_delay(&mut self, delay: Time) {
        self.delay = delay;
    }

    /// Takes the link down or brings it up. Down, it stops transmitting: the packet being
    /// sent and those on the wire arrive (as ns-3's channel delivers a reception it has
    /// scheduled), those queued wait, and arrivals are dropped (`down_drops`, as ns-3's
    /// `Ipv4L3Protocol` drops a packet for an interface that is down, DROP_INTERFACE_DOWN).
    pub fn set_down(&mut self, down: bool, cx: &mut LinkCtx) {
        self.changes(cx).down = down;
        if !down && self.in_service.is_none() {
            self.start_next::<true>(cx, false);
        }
    }

    /// Packets waiting in the queue (excluding the one in service).
    pub fn backlog(&self) -> u64 {
        self.queue.len_packets() as u64
    }

    /// Packets held anywhere in this link: queue, transmitter, pipe.
    pub fn packets_held(&self) -> usize {
        match &self.pipe {
            // The aggregate on the air is the Wi-Fi link's, not `in_service`'s.
            Pipe::Wifi(w) => self.queue.len_packets() as usize + w.len(),
            Pipe::Docsis(d) => self.queue.len_packets() as usize + d.len(),
            _ => {
                self.queue.len_packets() as usize
                    + self.in_service.is_some() as usize
                    + self.pipe.len()
            }
        }
    }

    pub fn is_busy(&self) -> bool {
        self.in_service.is_some()
    }

    /// The transmission in service (or just finished): `size` bytes over `tx` ns of events.
    #[inline]
    fn transmission(&self, size: u32, tx: Time) -> Transmission {
        Transmission {
            started: self.tx_started,
            ends: self.tx_started + tx,
            lag: self.clock.lag(),
            size,
            rate_bps: self.rate_bps,
        }
    }

    /// The queue table row at `now`, counting the part of a transmission in progress that
    /// falls inside the measurement window.
    /// `changes`: what events changed of the links (`LinkCtx::changes`).
    pub fn summary(
        &self,
        now: Time,
        packets: &PacketArena,
        changes: &[LinkChanges],
    ) -> QueueSummary {
        // A Wi-Fi link's aggregate on the air counts when its TXOP ends.
        let in_progress = self
            .in_service
            .filter(|_| !self.is_wifi() && !self.is_docsis())
            .map(|(pkt, tx)| self.transmission(packets.get(pkt).size, tx));
        let mut s = self
            .stats
            .summary(now, &self.name, self.backlog(), self.rate_bps, in_progress);
        if self.changes != UNCHANGED {
            s.add_down_drops(changes[self.changes as usize].down_drops);
        }
        s
    }
}

/// Between the transmitter and the far node: a constant delay (a FIFO whose head has an
/// event, as htsim's pipes), or netem's jitter and slots. A Wi-Fi medium's state lives here
/// too (its stations' queues, the aggregate on the air, its constant-delay wire): a variant
/// costs the link no byte, a field would make it a ninth cache line.
enum Pipe {
    Constant(VecDeque<(Time, PacketId)>),
    Netem(Box<NetemPipe>),
    Wifi(Box<WifiLink>),
    /// A DOCSIS upstream's requests, grants and transmissions, and its wire.
    Docsis(Box<DocsisUpstream>),
}

impl Pipe {
    fn len(&self) -> usize {
        match self {
            Pipe::Constant(p) => p.len(),
            Pipe::Netem(n) => n.len(),
            Pipe::Wifi(w) => w.len(),
            Pipe::Docsis(d) => d.len(),
        }
    }
}

/// A DOCSIS modem's queue: the link's discipline, a packet taken being its departure.
struct ModemQueue<'q, 'c> {
    queue: &'q mut LinkQueue,
    qcx: QueueCtx<'c>,
}

impl UpstreamQueue for ModemQueue<'_, '_> {
    fn bytes(&self) -> u64 {
        self.queue.len_bytes()
    }

    fn take(&mut self) -> Option<(PacketId, u32)> {
        let pkt = self.queue.dequeue(&mut self.qcx)?;
        let p = self.qcx.packets.get(pkt);
        self.qcx.stats.on_departure(self.qcx.now, p);
        Some((pkt, p.size))
    }
}

/// The head of a wire of (arrival, packet) in order leaves; the next head's arrival is
/// scheduled (only the head has an event, as in htsim's pipes).
#[inline]
fn pop_wire(wire: &mut VecDeque<(Time, PacketId)>, events: &mut EventQueue, id: u32) -> PacketId {
    let (_, pkt) = wire.pop_front().expect("LinkDeliver with an empty pipe");
    if let Some(&(at, _)) = wire.front() {
        events.schedule(at, EventKind::LinkDeliver(id));
    }
    pkt
}

/// [`pop_wire`] for the Wi-Fi and DOCSIS wires, kept out of the constant pipe's path.
#[inline(never)]
fn pop_burst_wire(
    wire: &mut VecDeque<(Time, PacketId)>,
    events: &mut EventQueue,
    id: u32,
) -> PacketId {
    pop_wire(wire, events, id)
}

/// One delivery event now per packet netem released, and its watchdog.
fn schedule_releases(events: &mut EventQueue, id: u32, d: &Dequeued) {
    let now = events.now();
    for _ in 0..d.released {
        events.schedule(now, EventKind::LinkDeliver(id));
    }
    if let Some(at) = d.wake_at {
        events.schedule(at, EventKind::LinkDeliver(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link is eight cache lines, the fields every event reads (service, clocks, rate,
    /// delay, loss) where they were: issue 24 added the transmitter's exact clock and made
    /// `idle_since` a sentinel, so neither grew (a ninth line cost 64 bytes per link, in
    /// memory and in cache misses at scale). Issue 27's `[[events]]` add only a `u32` in
    /// the padding after `monitor`: what they change lives outside (`LinkChanges`).
    #[test]
    fn a_link_is_eight_cache_lines() {
        assert_eq!(std::mem::offset_of!(Link, queue), 72);
        assert_eq!(std::mem::size_of::<Link>(), 512);
    }
}
