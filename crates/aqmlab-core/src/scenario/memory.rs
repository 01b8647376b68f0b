//! How much memory a scenario will need, estimated from its description before anything is
//! built, so that a run too large for the machine is refused with a message naming the field
//! that makes it large, instead of aborting the process (exit 134) an hour into a sweep.
//!
//! The estimate is the peak of a run made from Python (engine plus the result handed to
//! Python), the sum of:
//! - routing: on a forest of duplex links (every dumbbell), a parent, depth and two links per
//!   node (exact); otherwise one next-hop entry per (node, destination) pair, destinations
//!   being the nodes with an agent (exact: the table is dense);
//! - links: each link's struct and its queue's own state (FQ-CoDel: one sub-queue per
//!   `flows`, exact), plus [`BYTES_PER_LINK_EXTRA`] (measured: its delay histogram, which
//!   grows with the delays seen, its queue buffer, pending events, result row);
//! - a graph's description: [`BYTES_PER_GRAPH_LINK_DESCRIBED`] per link given (measured);
//! - flows: agents, flow table, counters, events and the result row
//!   ([`BYTES_PER_FLOW`], measured);
//! - TCP window state, a bound: a sender keeps state for every packet it has outstanding (its
//!   scoreboard: RFC 6675's flags and send times, ns-2's SACK flags; a count of sends for
//!   each), up to `window` of them,
//!   and its receiver a slot for every packet between the next expected and the highest
//!   held (reassembly), up to `window` too; both are ring buffers that grow by doubling, so
//!   each holds at most twice that ([`window_state_bytes`]). Issue 24: this was left out, and
//!   the linux profile with a window and an initial window of 2^20 on 400 senders was
//!   estimated at 675 MB, passed a 5 GB limit and then aborted (exit 134): its initial
//!   windows alone fill 17 MB of scoreboard per flow;
//! - packets in flight: at most what the senders can have outstanding (a TCP flow: a window of
//!   data and a window of ACKs; a UDP source: everything it sends) and at most what the
//!   network can hold (every queue full plus every link's rate x delay in the smallest
//!   packets), whichever is smaller, plus the largest burst one event can send (a window: the
//!   packets exist together until the first queue drops them);
//! - time series: samples x series ([`BYTES_PER_SAMPLE_POINT`], measured).
//!
//! The measured constants come from `benches/memory_calibration.py`; the test
//! `tests/test_memory_limit.py` checks the estimate against the peak resident memory of real
//! runs that stress each part.

use super::events::RateSetting;
use super::schema::{Endpoints, FlowSpec, GraphSpec, LimitSpec, QueueSpec, Scenario, Topology};
use crate::aqm::{cake, fq, fq_codel, fq_pie};
use crate::link::Link;
use crate::net::routing::TreeRoutes;
use crate::net::{LinkId, NodeId, Packet};
use crate::sim::Time;
use crate::transport::tcp::recovery::rfc6675::SendStamp;
use crate::transport::tcp::{Recovery, TcpConfig};
use crate::units::ScenarioError;
use serde_json::Value;
use std::collections::HashMap;

/// Engine and result memory per flow (two agents, flow info, counters, pending events, the
/// flow's result row and its Arrow columns): 2.3-2.4 KiB measured at 100k TCP flows
/// (2026-11-25, results as Arrow), rounded up.
pub const BYTES_PER_FLOW: u64 = 2560;
/// Memory per link besides its struct (its delay histogram, which grows with the span of
/// delays seen, its node, queue buffer grown to the packets it held, pending events, result
/// row): 0.5 KiB measured on a dumbbell of 4,000 senders whose every link carries a flow
/// (2026-11-25; 4 KiB when every queue's buffer was allocated to its limit and every
/// histogram to 30 KB). The FIFO of a single-queue discipline was a separate allocation then
/// and is part of the struct since (`LinkQueue`), so this now overstates by about 100 B.
pub const BYTES_PER_LINK_EXTRA: u64 = 512;
/// Memory per link of a graph topology's description (the scenario as parsed, and what the
/// parse left in the allocator): 3 KiB measured at 2,000-8,000 links, rounded up.
pub const BYTES_PER_GRAPH_LINK_DESCRIBED: u64 = 3072;
/// Memory per recorded time-series point: 24 bytes in the engine (time, source, variable,
/// value) times the growth of its vectors, plus the result's time column in seconds; the
/// columns cross to Python as Arrow without a copy, the names dictionary-coded. 25 bytes
/// measured (2026-11-25; 280 when the series crossed as Python lists of strings), rounded up
/// to cover a vector's growth.
pub const BYTES_PER_SAMPLE_POINT: u64 = 32;
/// Series recorded per monitored queue and sample: seven counters plus up to eight AQM state
/// variables (the most any AQM reports).
const SERIES_PER_QUEUE: u64 = 15;
/// Series recorded per TCP sender and sample (`sample_flows`): cwnd, ssthresh, srtt, rto, in
/// flight, and CUBIC's W_max and K.
const SERIES_PER_TCP_FLOW: u64 = 7;
/// Series recorded per flow of any kind and sample (`sample_flows`): its bytes received.
const SERIES_PER_FLOW: u64 = 1;
/// The smallest packet on the wire (a 40-byte ACK), for how many packets a link can hold.
const SMALLEST_PACKET_BYTES: u64 = 40;

/// What one TCP flow's window state can take at most, bytes: per packet of `window` (plus
/// one: a tail loss probe may go one past it), the sender's scoreboard entry (RFC 6675
/// recovery: a flag byte and a send stamp, `recovery/rfc6675.rs`; ns-2's agents: a SACK flag
/// byte, `sack_scoreboard.rs`), its count of transmissions (one byte, `transmissions.rs`)
/// and the receiver's reassembly slot (`sink.rs`: the send time of a packet held out of
/// order), each in a ring buffer that doubles when it grows, so at most twice the slots in
/// use. Keep in step with those structures (the calibration's "tcp window state" row checks
/// this against a real run).
pub fn window_state_bytes(tcp: &TcpConfig) -> u64 {
    let transmissions = 1;
    let scoreboard = transmissions
        + match tcp.recovery {
            Recovery::Rfc6675 => 1 + std::mem::size_of::<SendStamp>() as u64,
            Recovery::Ns2 => 1,
        };
    let reassembly = std::mem::size_of::<Option<Time>>() as u64;
    2 * (tcp.window as u64 + 1) * (scoreboard + reassembly)
}

/// One part of the estimate: what it is, the field that sizes it, its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryPart {
    pub what: String,
    /// The scenario field a user would change to shrink this part.
    pub field: String,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MemoryEstimate {
    pub parts: Vec<MemoryPart>,
}

impl MemoryEstimate {
    pub fn total(&self) -> u64 {
        self.parts
            .iter()
            .map(|p| p.bytes)
            .fold(0, u64::saturating_add)
    }

    /// Refuses a scenario whose estimate exceeds `limit` bytes; the error names the field of
    /// the largest part.
    pub fn check(&self, limit: u64) -> Result<(), ScenarioError> {
        let total = self.total();
        if total <= limit {
            return Ok(());
        }
        let largest = self
            .parts
            .iter()
            .max_by_key(|p| p.bytes)
            .expect("an estimate has parts");
        Err(ScenarioError::new(
            largest.field.clone(),
            format!(
                "the run would need about {} of memory, {} of it for {}, above the limit of {}; \
                 make the scenario smaller, or raise the limit with --max-memory or \
                 AQMLAB_MAX_MEMORY if the machine has the memory",
                human_bytes(total),
                human_bytes(largest.bytes),
                largest.what,
                human_bytes(limit)
            ),
        ))
    }
}

/// "12.3 GB" (decimal units, as `free -h` and the limit option read them).
pub fn human_bytes(b: u64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut v = b as f64;
    let mut i = 0;
    while v >= 1000.0 && i + 1 < units.len() {
        v /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// The counts the estimate is made of, read from the description alone.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScenarioSize {
    pub nodes: u64,
    pub links: u64,
    /// Flows after expanding `count` and node lists, the total and per `flows` entry.
    pub flows: u64,
    pub flows_per_entry: Vec<u64>,
    pub tcp_flows: u64,
    /// Nodes with an agent (routing destinations), at most `nodes`.
    pub destinations: u64,
    /// The links form a short forest of duplex links, routed without a table (every
    /// dumbbell; see `net/routing.rs`).
    pub tree_routed: bool,
    pub monitored_links: u64,
    /// Bytes of queue state beyond the fixed part of a link (FQ-CoDel sub-queues).
    pub queue_state_bytes: u64,
    /// The path of the queue with the largest state, for the error message.
    pub largest_queue_field: String,
    /// Packets every queue full plus every link's rate x delay can hold.
    pub network_packets: u64,
    /// Packets the senders can have outstanding at once.
    pub sender_packets: u64,
    /// The most packets one event can send at once (the largest TCP window; 1 for UDP).
    pub largest_burst: u64,
    /// TCP window state of all flows (bound, bytes), and the `flows` entry with the most.
    pub window_state_bytes: u64,
    pub largest_window_entry: usize,
}

struct LinkGroup<'a> {
    count: u64,
    rate_bps: u64,
    delay_ns: u64,
    limit: LimitSpec,
    /// The queue's AQM; None for the DropTail a duplex link's reverse gets by default.
    aqm: Option<&'a Value>,
    field: String,
}

impl<'a> LinkGroup<'a> {
    fn new(count: u64, rate_bps: u64, delay_ns: u64, queue: &'a QueueSpec, field: String) -> Self {
        LinkGroup {
            count,
            rate_bps,
            delay_ns,
            limit: queue.limit,
            aqm: Some(&queue.aqm),
            field,
        }
    }

    /// The reverse of a duplex link: `reverse_queue`, else DropTail with the forward limit.
    fn reverse(forward: &LinkGroup<'a>, reverse: Option<&'a QueueSpec>, field: String) -> Self {
        match reverse {
            Some(q) => LinkGroup::new(forward.count, forward.rate_bps, forward.delay_ns, q, field),
            None => LinkGroup {
                aqm: None,
                field,
                ..*forward
            },
        }
    }
}

impl ScenarioSize {
    pub fn of(s: &Scenario) -> Self {
        let mut size = ScenarioSize::default();
        let mut groups: Vec<LinkGroup> = vec![];
        // A dumbbell's (senders, receivers), the nodes its endpoint groups denote.
        let (hosts_senders, hosts_receivers) = match &s.topology {
            Topology::Dumbbell(d) => {
                let senders = d.senders as u64;
                let receivers = d.receivers.unwrap_or(d.senders) as u64;
                size.nodes = senders + receivers + 2;
                size.monitored_links = 1;
                size.tree_routed = true;
                let forward = LinkGroup::new(
                    1,
                    d.bottleneck.rate.0,
                    d.bottleneck.delay.0,
                    &d.bottleneck.queue,
                    "topology.bottleneck.queue".into(),
                );
                groups.push(LinkGroup::reverse(
                    &forward,
                    d.bottleneck.reverse_queue.as_ref(),
                    "topology.bottleneck.reverse_queue".into(),
                ));
                groups.push(forward);
                let receiver_access = d.receiver_access.as_ref().unwrap_or(&d.access);
                for (hosts, a, name) in [
                    (senders, &d.access, "access"),
                    (receivers, receiver_access, "receiver_access"),
                ] {
                    let name = if d.receiver_access.is_none() {
                        "access"
                    } else {
                        name
                    };
                    // Both directions of an access link have the access queue.
                    groups.push(LinkGroup::new(
                        2 * hosts,
                        (0..a.rate.len())
                            .map(|i| a.rate.get(i).0)
                            .max()
                            .unwrap_or(0),
                        (0..a.delay.len())
                            .map(|i| a.delay.get(i).0)
                            .max()
                            .unwrap_or(0),
                        &a.queue,
                        format!("topology.{name}.queue"),
                    ));
                }
                (senders, receivers)
            }
            Topology::Graph(g) => {
                size.nodes = g.nodes.len() as u64;
                size.tree_routed = graph_is_tree_routed(g);
                let mut monitored = 0;
                for (i, l) in g.links.iter().enumerate() {
                    let path = format!("topology.links[{i}]");
                    let both = l.duplex as u64 + 1;
                    monitored += both * l.monitor as u64;
                    let forward =
                        LinkGroup::new(1, l.rate.0, l.delay.0, &l.queue, format!("{path}.queue"));
                    if l.duplex {
                        groups.push(LinkGroup::reverse(
                            &forward,
                            l.reverse_queue.as_ref(),
                            format!("{path}.reverse_queue"),
                        ));
                    }
                    groups.push(forward);
                }
                let links: u64 = groups.iter().map(|g| g.count).sum();
                // A graph with no monitored link records every queue.
                size.monitored_links = if monitored == 0 { links } else { monitored };
                (0, 0)
            }
        };

        let mut largest_queue = 0;
        for g in &groups {
            size.links += g.count;
            let state = g.count.saturating_mul(g.aqm.map_or(0, queue_state_bytes));
            if state > largest_queue {
                largest_queue = state;
                size.largest_queue_field = format!("{}.aqm.flows", g.field);
            }
            size.queue_state_bytes = size.queue_state_bytes.saturating_add(state);
            let held = match g.limit {
                LimitSpec::Packets(n) => n as u64,
                LimitSpec::Bytes(b) => b / SMALLEST_PACKET_BYTES,
            };
            let in_flight = (g.rate_bps as u128 * g.delay_ns as u128
                / (8 * SMALLEST_PACKET_BYTES as u128 * 1_000_000_000))
                .min(u64::MAX as u128) as u64;
            size.network_packets = size
                .network_packets
                .saturating_add(g.count.saturating_mul(held.saturating_add(in_flight + 1)));
        }

        let nodes_named = |names: &Endpoints| -> u64 {
            let count = |n: &String| match n.as_str() {
                "senders" if hosts_senders > 0 => hosts_senders,
                "receivers" if hosts_receivers > 0 => hosts_receivers,
                _ => 1,
            };
            match names {
                Endpoints::One(n) => count(n),
                Endpoints::Many(v) => v.iter().map(count).sum(),
            }
        };
        let mut endpoints = 0u64;
        let mut largest_window_state = 0;
        for (i, f) in s.flows.iter().enumerate() {
            let c = f.common();
            let (n, m) = (nodes_named(&c.from), nodes_named(&c.to));
            // The build pairs them one to one, or one to many (anything else is an error there).
            let pairs = if n == 1 || m == 1 { n.max(m) } else { n.min(m) };
            let flows = match f {
                // The arrivals are drawn at build time: bound them by their expected number
                // plus six standard deviations of a Poisson count.
                FlowSpec::Workload {
                    workload, common, ..
                } => workload_flow_bound(workload, common, i, s, fastest_link_rate(s)),
                // A tcp_rr probe is two flows, the requests and the responses.
                FlowSpec::Probe {
                    probe: super::probe::ProbeSpec::TcpRr { .. },
                    ..
                } => pairs.saturating_mul(c.count as u64).saturating_mul(2),
                _ => pairs.saturating_mul(c.count as u64),
            };
            size.flows_per_entry.push(flows);
            size.flows = size.flows.saturating_add(flows);
            endpoints = endpoints.saturating_add(n + m);
            let outstanding = match f {
                FlowSpec::Tcp { tcp, .. } | FlowSpec::Workload { tcp, .. } => {
                    size.tcp_flows = size.tcp_flows.saturating_add(flows);
                    size.largest_burst = size.largest_burst.max(tcp.window as u64);
                    let state = flows.saturating_mul(window_state_bytes(tcp));
                    size.window_state_bytes = size.window_state_bytes.saturating_add(state);
                    if state > largest_window_state {
                        largest_window_state = state;
                        size.largest_window_entry = i;
                    }
                    2 * tcp.window as u64
                }
                FlowSpec::Cbr {
                    rate, packet_size, ..
                }
                | FlowSpec::OnOff {
                    rate, packet_size, ..
                } => sent_packets(rate.0 as f64 / 8.0 / packet_size.0.max(1) as f64, s),
                FlowSpec::Poisson {
                    packets_per_second, ..
                } => sent_packets(*packets_per_second, s),
                FlowSpec::Probe { .. } => 2,
            };
            size.sender_packets = size
                .sender_packets
                .saturating_add(flows.saturating_mul(outstanding));
        }
        size.destinations = endpoints.min(size.nodes);
        size
    }
}

/// The most arrivals a workload entry is expected to have: `flows`, or its rate over its
/// span plus six standard deviations (the link `load` names is looked up by name, the
/// dumbbell's bottleneck when the topology is a dumbbell; an unknown link counts as the
/// fastest link of the scenario, the build then reports it). With `load`, the arrival rate
/// follows the link's rate in force (issue 35, C): the bound takes the highest rate an event
/// gives either direction of it, a trace at its mean.
fn workload_flow_bound(
    w: &super::workload::Workload,
    common: &super::schema::FlowCommon,
    entry: usize,
    s: &Scenario,
    fastest: u64,
) -> u64 {
    let rate = match &w.rate {
        super::workload::ArrivalRate::Load { link, .. } => {
            // The link's own rate, and the name of its other direction.
            let named = match &s.topology {
                Topology::Dumbbell(d) if link == "bottleneck" => {
                    Some((d.bottleneck.rate.0, "bottleneck_reverse".to_string()))
                }
                Topology::Graph(g) => g
                    .links
                    .iter()
                    .find(|l| {
                        l.name.as_deref() == Some(link) || format!("{}->{}", l.from, l.to) == *link
                    })
                    .map(|l| (l.rate.0, format!("{}->{}", l.to, l.from))),
                _ => None,
            };
            Some(match named {
                Some((own, reverse)) => s
                    .events
                    .iter()
                    .filter(|e| e.link.as_deref().is_some_and(|n| n == link || n == reverse))
                    .filter_map(|e| match &e.rate {
                        Some(RateSetting::Fixed(r)) => Some(r.0),
                        Some(RateSetting::Trace { trace, .. }) => {
                            trace.as_ref().map(|t| t.mean_rate_bps())
                        }
                        None => None,
                    })
                    .fold(own, u64::max),
                None => fastest,
            })
        }
        _ => None,
    };
    let own_start = match common.start {
        super::schema::StartSpec::At(t) => t.0,
        _ => 0,
    };
    // Arrivals run over the window the events leave them (`flow_window`), as when built.
    let group = common.group.clone().unwrap_or(format!("flows[{entry}]"));
    let own_stop = common.stop.map(|t| t.0);
    let (start, stop) = super::events::flow_window(&s.events, &group, entry, own_start, own_stop);
    let end = stop.map_or(s.duration.0, |t| t.min(s.duration.0));
    let expected =
        w.arrivals_per_second(rate) * crate::sim::time::to_secs_f64(end.saturating_sub(start));
    let bound = (expected + 6.0 * expected.sqrt() + 1.0).min(u64::MAX as f64) as u64;
    bound.min(w.max_flows.unwrap_or(u64::MAX))
}

/// The fastest link rate of a scenario, bits/s.
fn fastest_link_rate(s: &Scenario) -> u64 {
    match &s.topology {
        Topology::Dumbbell(d) => d.bottleneck.rate.0.max(
            (0..d.access.rate.len())
                .map(|i| d.access.rate.get(i).0)
                .max()
                .unwrap_or(0),
        ),
        Topology::Graph(g) => g.links.iter().map(|l| l.rate.0).max().unwrap_or(0),
    }
}

/// Every packet a source sending `per_second` packets sends over the run (the float-to-integer
/// conversion saturates).
fn sent_packets(per_second: f64, s: &Scenario) -> u64 {
    (per_second * s.duration.secs() + 1.0) as u64
}

/// Queue state beyond a link's fixed part: FQ-CoDel's and FQ-PIE's sub-queues (`flows`, 1024
/// by default; a value above the maximum is refused when the queue is built, so it is counted
/// at the maximum here and the user sees that error rather than this estimate).
fn queue_state_bytes(aqm: &Value) -> u64 {
    let per_queue = |name: &str| match name {
        "fq_codel" => Some((
            fq_codel::DEFAULT_FLOWS,
            fq_codel::MAX_FLOWS,
            fq_codel::BYTES_PER_FLOW_QUEUE,
        )),
        "fq_pie" => Some((
            fq_pie::DEFAULT_FLOWS,
            fq_pie::MAX_FLOWS,
            fq_pie::BYTES_PER_FLOW_QUEUE,
        )),
        "fq" => Some((fq::DEFAULT_BUCKETS, fq::MAX_BUCKETS, fq::BYTES_PER_FLOW)),
        _ => None,
    };
    // CAKE's flow state is per tin (1024 queues each), as many tins as its Diffserv mode.
    let cake_tins = |diffserv: Option<&str>| match diffserv {
        Some("besteffort") => 1,
        Some("diffserv4") => 4,
        Some("diffserv8" | "precedence") => 8,
        _ => 3,
    };
    if aqm.as_str() == Some("cake") {
        return cake_tins(None) * cake::BYTES_PER_TIN;
    }
    if aqm.get("kind").and_then(Value::as_str) == Some("cake") {
        return cake_tins(aqm.get("diffserv").and_then(Value::as_str)) * cake::BYTES_PER_TIN;
    }
    let Some(obj) = aqm.as_object() else {
        return aqm
            .as_str()
            .and_then(per_queue)
            .map_or(0, |(default, _, bytes)| default as u64 * bytes);
    };
    let Some((default, max, bytes)) = obj.get("kind").and_then(Value::as_str).and_then(per_queue)
    else {
        return 0;
    };
    // sch_fq has orphan_mask + 1 flows.
    let flows = match obj.get("orphan_mask").and_then(Value::as_u64) {
        Some(mask) => Some(mask.saturating_add(1)),
        None => obj.get("flows").and_then(Value::as_u64),
    };
    flows.unwrap_or(default as u64).min(max as u64) * bytes
}

/// Whether the build will route `g` as a forest (the same test, on the same links).
fn graph_is_tree_routed(g: &GraphSpec) -> bool {
    let index: HashMap<&str, NodeId> = g
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as NodeId))
        .collect();
    let mut ends = Vec::with_capacity(2 * g.links.len());
    for l in &g.links {
        let (Some(&a), Some(&b)) = (index.get(l.from.as_str()), index.get(l.to.as_str())) else {
            return false; // refused by validation anyway
        };
        ends.push((a, b));
        if l.duplex {
            ends.push((b, a));
        }
    }
    TreeRoutes::new(g.nodes.len(), &ends).is_some()
}

/// Estimates the memory `scenario` needs (see the module documentation).
pub fn estimate(scenario: &Scenario) -> MemoryEstimate {
    let size = ScenarioSize::of(scenario);
    let mut parts = vec![];
    parts.push(MemoryPart {
        what: if size.tree_routed {
            format!("the routes ({} nodes of a forest)", size.nodes)
        } else {
            format!(
                "the routing table ({} nodes x {} destinations)",
                size.nodes, size.destinations
            )
        },
        field: match scenario.topology {
            Topology::Dumbbell(_) => "topology.senders".into(),
            Topology::Graph(_) => "topology.nodes".into(),
        },
        bytes: if size.tree_routed {
            size.nodes.saturating_mul(TreeRoutes::BYTES_PER_NODE)
        } else {
            size.nodes
                .saturating_mul(size.destinations)
                .saturating_mul(std::mem::size_of::<LinkId>() as u64)
        },
    });
    let per_link = std::mem::size_of::<Link>() as u64 + BYTES_PER_LINK_EXTRA;
    parts.push(MemoryPart {
        what: format!("{} links and their queue statistics", size.links),
        field: match scenario.topology {
            Topology::Dumbbell(_) => "topology.senders".into(),
            Topology::Graph(_) => "topology.links".into(),
        },
        bytes: size.links.saturating_mul(per_link),
    });
    if let Topology::Graph(g) = &scenario.topology {
        parts.push(MemoryPart {
            what: format!("the description of {} links", g.links.len()),
            field: "topology.links".into(),
            bytes: (g.links.len() as u64).saturating_mul(BYTES_PER_GRAPH_LINK_DESCRIBED),
        });
    }
    if size.queue_state_bytes > 0 {
        parts.push(MemoryPart {
            what: "FQ-CoDel sub-queues".into(),
            field: size.largest_queue_field.clone(),
            bytes: size.queue_state_bytes,
        });
    }
    let largest_entry = size
        .flows_per_entry
        .iter()
        .enumerate()
        .max_by_key(|(_, &n)| n)
        .map(|(i, _)| i)
        .unwrap_or(0);
    parts.push(MemoryPart {
        what: format!("{} flows", size.flows),
        field: format!("flows[{largest_entry}].count"),
        bytes: size.flows.saturating_mul(BYTES_PER_FLOW),
    });
    if size.window_state_bytes > 0 {
        parts.push(MemoryPart {
            what: format!(
                "the TCP window state of {} flows (scoreboards and reassembly buffers)",
                size.tcp_flows
            ),
            field: format!("flows[{}].tcp.window", size.largest_window_entry),
            bytes: size.window_state_bytes,
        });
    }
    let packets = size
        .network_packets
        .min(size.sender_packets)
        .saturating_add(size.largest_burst.max(1));
    parts.push(MemoryPart {
        what: format!("up to {packets} packets in flight"),
        field: if size.network_packets <= size.sender_packets {
            "queue limits (topology.*.queue.limit)".into()
        } else {
            format!("flows[{largest_entry}]")
        },
        // The packet arena and the event queue entry of each, with vector growth.
        bytes: packets.saturating_mul(2 * (std::mem::size_of::<Packet>() as u64 + 32)),
    });
    if let Some(iv) = scenario.sample_interval {
        let samples = scenario.duration.0 / iv.0.max(1) + 1;
        let series = 2
            + size.monitored_links * SERIES_PER_QUEUE
            + if scenario.sample_flows {
                size.tcp_flows * SERIES_PER_TCP_FLOW + size.flows * SERIES_PER_FLOW
            } else {
                0
            };
        parts.push(MemoryPart {
            what: format!("the time series ({samples} samples x {series} series)"),
            field: "sample_interval".into(),
            bytes: samples
                .saturating_mul(series)
                .saturating_mul(BYTES_PER_SAMPLE_POINT),
        });
    }
    MemoryEstimate { parts }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// FQ-PIE's sub-queues are counted like FQ-CoDel's (each with its own per-queue size),
    /// by name or table, capped at Linux's 65536; other disciplines have none.
    #[test]
    fn flow_queue_state_of_cake_is_per_tin() {
        let tin = cake::BYTES_PER_TIN;
        assert_eq!(queue_state_bytes(&json!("cake")), 3 * tin);
        assert_eq!(
            queue_state_bytes(&json!({"kind": "cake", "diffserv": "diffserv8"})),
            8 * tin
        );
        assert_eq!(
            queue_state_bytes(&json!({"kind": "cake", "diffserv": "besteffort"})),
            tin
        );
    }

    #[test]
    fn flow_queue_state_of_fq_codel_and_fq_pie() {
        let pie = fq_pie::BYTES_PER_FLOW_QUEUE;
        assert_eq!(queue_state_bytes(&json!("fq_pie")), 1024 * pie);
        assert_eq!(
            queue_state_bytes(&json!({"kind": "fq_pie", "flows": 16})),
            16 * pie
        );
        assert_eq!(
            queue_state_bytes(&json!({"kind": "fq_pie", "flows": 1u64 << 40})),
            65536 * pie
        );
        assert_eq!(
            queue_state_bytes(&json!("fq_codel")),
            1024 * fq_codel::BYTES_PER_FLOW_QUEUE
        );
        assert_eq!(queue_state_bytes(&json!("cobalt")), 0);
        assert_eq!(queue_state_bytes(&json!({"kind": "pie"})), 0);
    }
}
