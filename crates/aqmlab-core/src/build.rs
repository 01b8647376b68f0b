//! Turns a validated [`Scenario`] into a ready-to-run [`Simulator`]: nodes, links with their
//! queue disciplines, routes, agents and their start and stop events.

use crate::aqm::params::QueueEnv;
use crate::aqm::per_destination::PerDestination;
use crate::aqm::registry::{build_queue, CustomAqmFactory};
use crate::aqm::{LinkQueue, QueueLimit};
use crate::link::docsis::{DocsisParams, DocsisUpstream};
use crate::link::netem::{NetemParams, NetemPipe};
use crate::link::wifi::{WifiLink, WifiParams};
use crate::link::Link;
use crate::metrics::flow_stats::FlowInfo;
use crate::net::link_schedule::LinkSchedule;
use crate::net::{NodeId, RoutingTable};
use crate::scenario::events::flow_window;
use crate::scenario::probe::ProbeSpec;
use crate::scenario::schema::{
    AccessSpec, Endpoints, FlowSpec, LimitSpec, LinkSpec, LossDirection, QueueSpec, Scenario,
    StartSpec, Topology,
};
use crate::sim::{time, EventKind, RngStream, StreamKind, Time, WorkBudget};
use crate::simulator::Error;
use crate::simulator::Simulator;
use crate::timeline::{LinkIndex, Timeline};
use crate::transport::ideal_fct::{ideal_fct_in_force, Transfer};
use crate::transport::probe::{PingEcho, PingSource, RrProbe};
use crate::transport::tcp::{Recovery, Rfc6675Sender, TcpSender, TcpSink};
use crate::transport::udp::{SizeDistribution, UdpPattern, UdpSink, UdpSource};
use crate::transport::workload::{arrivals, Arrival};
use crate::transport::{Agent, Endpoint};
use crate::units::ScenarioError;
use std::collections::{HashMap, HashSet};

struct NetworkBuilder<'a> {
    seed: u64,
    nodes: Vec<String>,
    /// Node name -> id (the first node of that name), so lookups stay O(1) on large graphs.
    node_ids: HashMap<String, NodeId>,
    links: Vec<Link>,
    custom: Option<&'a dyn CustomAqmFactory>,
    /// Each link's `aqm` as given and what its queue was built with, for `[[events]]`.
    queues: Vec<(serde_json::Value, QueueEnv)>,
    /// Each direction of a duplex link and the other, for `[[events]]`.
    partner: HashMap<usize, usize>,
}

impl NetworkBuilder<'_> {
    fn node(&mut self, name: &str) -> NodeId {
        let id = self.nodes.len() as NodeId;
        self.nodes.push(name.to_string());
        self.node_ids.entry(name.to_string()).or_insert(id);
        id
    }

    fn find(&self, name: &str) -> Option<NodeId> {
        self.node_ids.get(name).copied()
    }

    #[allow(clippy::too_many_arguments)]
    fn link(
        &mut self,
        name: String,
        from: NodeId,
        to: NodeId,
        rate: u64,
        delay: Time,
        loss: f64,
        queue: &QueueSpec,
        netem: Option<&NetemParams>,
        wifi: Option<(&WifiParams, String)>,
        docsis: Option<(&DocsisParams, String)>,
        path: &str,
    ) -> Result<usize, ScenarioError> {
        let limit = match queue.limit {
            LimitSpec::Packets(n) => QueueLimit::Packets(n),
            LimitSpec::Bytes(b) => QueueLimit::Bytes(b),
        };
        let env = QueueEnv {
            link_rate_bps: rate,
            link_delay: delay,
            limit,
        };
        let mut disc = build_queue(&queue.aqm, &env, self.custom, &format!("{path}.aqm"))?;
        if wifi.is_some() {
            // A Wi-Fi link queues per station, each its own instance of the discipline
            // (`aqm/per_destination.rs`), built as a station first gets a packet.
            let (aqm, qpath) = (queue.aqm.clone(), format!("{path}.aqm"));
            if build_queue(&aqm, &env, None, &qpath).is_err() {
                return Err(ScenarioError::new(
                    qpath,
                    "a Wi-Fi link builds its AQM once per station, which a Python AQM cannot \
                     be: give a built-in one",
                ));
            }
            disc = LinkQueue::Scheduler(Box::new(PerDestination::new(Box::new(move || {
                build_queue(&aqm, &env, None, &qpath).expect("built once with the link")
            }))));
        }
        self.queues.push((queue.aqm.clone(), env));
        let i = self.links.len() as u64;
        let mut link = Link::new(
            name,
            from,
            to,
            rate,
            delay,
            loss,
            disc,
            RngStream::new(self.seed, StreamKind::Queue, i),
            RngStream::new(self.seed, StreamKind::LinkLoss, i),
        );
        if let Some(n) = netem {
            let rng = RngStream::new(self.seed, StreamKind::LinkNetem, i);
            link.set_netem(NetemPipe::new(*n, rng, 0));
        }
        if let Some((w, wpath)) = wifi {
            let mut rates = HashMap::with_capacity(w.station_rates.len());
            for name in w.station_rates.keys() {
                let node = self.find(name).ok_or_else(|| {
                    ScenarioError::new(
                        format!("{wpath}.station_rates.{name}"),
                        format!("no node is named '{name}'"),
                    )
                })?;
                rates.insert(node, w.station_rate(&wpath, name, rate)?);
            }
            let rng = RngStream::new(self.seed, StreamKind::LinkWifi, i);
            link.set_wifi(WifiLink::new(w.clone(), rates, rng));
        }
        if let Some((d, dpath)) = docsis {
            d.check(&dpath, rate)?;
            let rng = RngStream::new(self.seed, StreamKind::LinkDocsis, i);
            link.set_docsis(DocsisUpstream::new(*d, rng));
        }
        self.links.push(link);
        Ok(self.links.len() - 1)
    }

    fn duplex(
        &mut self,
        a: NodeId,
        b: NodeId,
        spec: &LinkSpec,
        path: &str,
        forward_name: Option<String>,
    ) -> Result<usize, ScenarioError> {
        let (na, nb) = (
            self.nodes[a as usize].clone(),
            self.nodes[b as usize].clone(),
        );
        let (forward_loss, reverse_loss) = spec.loss_direction.split(spec.loss);
        let fwd = self.link(
            forward_name.unwrap_or(format!("{na}->{nb}")),
            a,
            b,
            spec.rate.0,
            spec.delay.0,
            forward_loss,
            &spec.queue,
            spec.netem.as_ref(),
            spec.wifi.as_ref().map(|w| (w, format!("{path}.wifi"))),
            spec.docsis.as_ref().map(|d| (d, format!("{path}.docsis"))),
            &format!("{path}.queue"),
        )?;
        let reverse = spec.reverse_queue.clone().unwrap_or(QueueSpec {
            limit: spec.queue.limit,
            ..QueueSpec::default()
        });
        let rev = self.link(
            format!("{nb}->{na}"),
            b,
            a,
            spec.rate.0,
            spec.delay.0,
            reverse_loss,
            &reverse,
            spec.reverse_netem.as_ref(),
            spec.reverse_wifi
                .as_ref()
                .map(|w| (w, format!("{path}.reverse_wifi"))),
            spec.reverse_docsis
                .as_ref()
                .map(|d| (d, format!("{path}.reverse_docsis"))),
            &format!("{path}.reverse_queue"),
        )?;
        self.partner.insert(fwd, rev);
        self.partner.insert(rev, fwd);
        Ok(fwd)
    }

    fn access(
        &mut self,
        host: NodeId,
        router: NodeId,
        a: &AccessSpec,
        i: usize,
        path: &str,
    ) -> Result<(), ScenarioError> {
        let spec = LinkSpec {
            rate: a.rate.get(i),
            delay: a.delay.get(i),
            loss: 0.0,
            loss_direction: LossDirection::Forward,
            queue: a.queue.clone(),
            reverse_queue: Some(a.queue.clone()),
            netem: a.netem,
            reverse_netem: a.reverse_netem,
            wifi: a.wifi.clone(),
            reverse_wifi: a.reverse_wifi.clone(),
            docsis: a.docsis,
            reverse_docsis: a.reverse_docsis,
        };
        self.duplex(host, router, &spec, path, None)?;
        Ok(())
    }
}

/// Which node names a flow's `from`/`to` denote.
fn resolve_endpoints(
    e: &Endpoints,
    b: &NetworkBuilder,
    groups: &[(&str, Vec<NodeId>)],
    path: &str,
) -> Result<Vec<NodeId>, ScenarioError> {
    let names: Vec<&String> = match e {
        Endpoints::One(n) => vec![n],
        Endpoints::Many(v) => v.iter().collect(),
    };
    if names.is_empty() {
        return Err(ScenarioError::new(path, "must name at least one node"));
    }
    let mut out = vec![];
    for (i, n) in names.iter().enumerate() {
        if let Some((_, g)) = groups.iter().find(|(gn, _)| gn == n) {
            out.extend(g);
        } else if let Some(id) = b.find(n) {
            out.push(id);
        } else {
            let p = if matches!(e, Endpoints::Many(_)) {
                format!("{path}[{i}]")
            } else {
                path.to_string()
            };
            return Err(ScenarioError::new(p, format!("unknown node '{n}'")));
        }
    }
    Ok(out)
}

/// Builds the simulator for `scenario` with master seed `seed`. `keep_going` is polled
/// every so much work (see [`WorkBudget`]); when it returns false the build stops with
/// [`crate::RunError::Interrupted`].
pub fn build(
    scenario: &Scenario,
    seed: u64,
    custom: Option<&dyn CustomAqmFactory>,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Simulator, Error> {
    let mut budget = WorkBudget::new(keep_going);
    let mut b = NetworkBuilder {
        seed,
        nodes: vec![],
        node_ids: HashMap::new(),
        links: vec![],
        custom,
        queues: vec![],
        partner: HashMap::new(),
    };
    let mut groups: Vec<(&str, Vec<NodeId>)> = vec![];
    match &scenario.topology {
        Topology::Dumbbell(d) => {
            let senders: Vec<NodeId> = (0..d.senders).map(|i| b.node(&format!("s{i}"))).collect();
            let r0 = b.node("r0");
            let r1 = b.node("r1");
            let receivers: Vec<NodeId> = (0..d.receivers.unwrap_or(d.senders))
                .map(|i| b.node(&format!("d{i}")))
                .collect();
            let bottleneck = b.duplex(
                r0,
                r1,
                &d.bottleneck,
                "topology.bottleneck",
                Some("bottleneck".into()),
            )?;
            b.links[bottleneck].monitor = true;
            b.links[bottleneck + 1].name = "bottleneck_reverse".into();
            for (i, &s) in senders.iter().enumerate() {
                budget.spend(2)?;
                b.access(s, r0, &d.access, i, "topology.access")?;
            }
            let ra = d.receiver_access.as_ref().unwrap_or(&d.access);
            for (i, &r) in receivers.iter().enumerate() {
                budget.spend(2)?;
                b.access(r1, r, ra, i, "topology.receiver_access")?;
            }
            groups.push(("senders", senders));
            groups.push(("receivers", receivers));
        }
        Topology::Graph(g) => {
            for n in &g.nodes {
                b.node(n);
            }
            for (i, l) in g.links.iter().enumerate() {
                budget.spend(2)?;
                let path = format!("topology.links[{i}]");
                let (from, to) = (
                    b.find(&l.from).expect("validated"),
                    b.find(&l.to).expect("validated"),
                );
                let spec = LinkSpec {
                    rate: l.rate,
                    delay: l.delay,
                    loss: l.loss,
                    loss_direction: l.loss_direction,
                    queue: l.queue.clone(),
                    reverse_queue: l.reverse_queue.clone(),
                    netem: l.netem,
                    reverse_netem: l.reverse_netem,
                    wifi: l.wifi.clone(),
                    reverse_wifi: l.reverse_wifi.clone(),
                    docsis: l.docsis,
                    reverse_docsis: l.reverse_docsis,
                };
                let idx = if l.duplex {
                    b.duplex(from, to, &spec, &path, l.name.clone())?
                } else {
                    let name = l.name.clone().unwrap_or(format!("{}->{}", l.from, l.to));
                    b.link(
                        name,
                        from,
                        to,
                        l.rate.0,
                        l.delay.0,
                        l.loss,
                        &l.queue,
                        l.netem.as_ref(),
                        l.wifi.as_ref().map(|w| (w, format!("{path}.wifi"))),
                        l.docsis.as_ref().map(|d| (d, format!("{path}.docsis"))),
                        &format!("{path}.queue"),
                    )?
                };
                b.links[idx].monitor = l.monitor;
            }
            // A graph with no monitored link records every queue.
            if !b.links.iter().any(|l| l.monitor) {
                b.links.iter_mut().for_each(|l| l.monitor = true);
            }
        }
    }
    let mut link_names = HashSet::with_capacity(b.links.len());
    for l in &b.links {
        if !link_names.insert(l.name.as_str()) {
            return Err(ScenarioError::new(
                "topology.links",
                format!("two links are named '{}'", l.name),
            )
            .into());
        }
    }

    // The events are resolved before the flows: a workload's offered load and a transfer's
    // ideal FCT follow the rates they set (issue 35, C).
    let (timeline, actions) = Timeline::resolve(
        &scenario.events,
        &LinkIndex {
            links: &b.links,
            partner: &b.partner,
            queues: &b.queues,
            custom: b.custom,
        },
    )?;
    let schedules = timeline.link_schedules(&actions, &b.links);

    // Agents: each flow has a sender (agent 2k) and a receiver (agent 2k+1).
    let mut agents: Vec<Agent> = vec![];
    let mut agent_node: Vec<NodeId> = vec![];
    let mut flows: Vec<FlowInfo> = vec![];
    let mut starts: Vec<(Time, EventKind)> = vec![];
    let mut rr_probes: Vec<RrProbe> = vec![];
    for (fi, spec) in scenario.flows.iter().enumerate() {
        let path = format!("flows[{fi}]");
        let c = spec.common();
        let from = resolve_endpoints(&c.from, &b, &groups, &format!("{path}.from"))?;
        let to = resolve_endpoints(&c.to, &b, &groups, &format!("{path}.to"))?;
        let pairs: Vec<(NodeId, NodeId)> = match (from.len(), to.len()) {
            (n, m) if n == m => from.iter().copied().zip(to.iter().copied()).collect(),
            (1, _) => to.iter().map(|&t| (from[0], t)).collect(),
            (_, 1) => from.iter().map(|&f| (f, to[0])).collect(),
            (n, m) => {
                return Err(ScenarioError::new(
                    format!("{path}.to"),
                    format!(
                        "{n} sources and {m} destinations: give equal numbers, or one of either"
                    ),
                )
                .into())
            }
        };
        let group = c.group.clone().unwrap_or(path.clone());
        let mut k = 0usize;
        if let Some(&(src, _)) = pairs.iter().find(|(s, d)| s == d) {
            return Err(ScenarioError::new(
                format!("{path}.to"),
                format!("a flow from '{}' to itself", b.nodes[src as usize]),
            )
            .into());
        }
        // Each flow of the entry: its pair, and for a workload its arrival.
        let instances: Vec<(NodeId, NodeId, Option<Arrival>)> = match spec {
            FlowSpec::Workload { workload, .. } => {
                let link_rates = match &workload.rate {
                    crate::scenario::workload::ArrivalRate::Load { link, .. } => {
                        let names: Vec<&str> = b.links.iter().map(|l| l.name.as_str()).collect();
                        let l = crate::scenario::capture::link_index(
                            &names,
                            link,
                            &format!("{path}.load_link"),
                        )?;
                        schedules[l].nominal_rates()
                    }
                    _ => vec![],
                };
                let own_start = match c.start {
                    StartSpec::At(t) => t.0,
                    _ => unreachable!("checked by Workload::parse"),
                };
                // Events move when arrivals begin and end, not each transfer's start (issue
                // 35, D: a start at 1 s started every arrival at 1 s; arrivals after a stop
                // were transfers that never sent).
                let (start, stop) =
                    flow_window(&scenario.events, &group, fi, own_start, c.stop.map(|d| d.0));
                if start >= scenario.duration.0 {
                    return Err(ScenarioError::new(
                        format!("{path}.start"),
                        format!(
                            "arrivals begin at {}s, at or after the end of the run",
                            time::to_secs_f64(start)
                        ),
                    )
                    .into());
                }
                if c.stop.is_some_and(|stop| stop.0 <= own_start) {
                    return Err(ScenarioError::new(
                        format!("{path}.stop"),
                        "must be later than `start` (when arrivals begin)",
                    )
                    .into());
                }
                let end = stop.map_or(scenario.duration.0, |s| s.min(scenario.duration.0));
                let rates = workload.arrival_rates(&link_rates);
                arrivals(workload, seed, fi, start, end, &rates, pairs.len())
                    .into_iter()
                    .map(|a| (pairs[a.pair].0, pairs[a.pair].1, Some(a)))
                    .collect()
            }
            _ => pairs
                .iter()
                .flat_map(|&(s, d)| std::iter::repeat_n((s, d, None), c.count as usize))
                .collect(),
        };
        // The block keeps the loop body at the depth it had under the two loops (pairs x
        // count) it replaced, so that concurrent edits to it merge (issue 27).
        {
            for (src, dst, arrival) in instances {
                budget.spend(1)?;
                let flow = flows.len() as u32;
                let (sa, ra) = (agents.len() as u32, agents.len() as u32 + 1);
                let send_ep = Endpoint {
                    flow,
                    agent: sa,
                    node: src,
                    peer_node: dst,
                    peer_agent: ra,
                    dscp: c.dscp,
                };
                // The receiver's socket keeps its own TOS, 0 (`FlowCommon::dscp`).
                let recv_ep = Endpoint {
                    flow,
                    agent: ra,
                    node: dst,
                    peer_node: src,
                    peer_agent: sa,
                    dscp: 0,
                };
                let rng = RngStream::new(seed, StreamKind::Agent, sa as u64);
                let mut transfer = None;
                match spec {
                    FlowSpec::Tcp { tcp, .. } | FlowSpec::Workload { tcp, .. } => {
                        let size = match spec {
                            FlowSpec::Tcp { size, .. } => size.map(|s| s.0),
                            _ => arrival.map(|a| a.size_bytes),
                        };
                        transfer = size.map(|s| (s, 0));
                        let limit = size.map(|s| s.div_ceil(tcp.packet_size as u64));
                        agents.push(tcp_sender(tcp, send_ep, limit, rng));
                        agents.push(Agent::TcpSink(TcpSink::new(tcp, recv_ep)));
                    }
                    FlowSpec::Probe {
                        probe: ProbeSpec::TcpRr { request_bytes, .. },
                        tcp,
                        ..
                    } => {
                        let limit = request_bytes.div_ceil(tcp.packet_size as u64);
                        agents.push(tcp_sender(tcp, send_ep, Some(limit), rng));
                        agents.push(Agent::TcpSink(TcpSink::new(tcp, recv_ep)));
                    }
                    FlowSpec::Cbr {
                        rate, packet_size, ..
                    } => {
                        agents.push(Agent::UdpSource(UdpSource::new(
                            send_ep,
                            UdpPattern::Cbr { rate_bps: rate.0 },
                            packet_size.0 as u32,
                            rng,
                        )));
                        agents.push(Agent::UdpSink(UdpSink));
                    }
                    FlowSpec::Poisson {
                        packets_per_second,
                        packet_size,
                        exponential_sizes,
                        ..
                    } => {
                        let sizes = if *exponential_sizes {
                            SizeDistribution::Exponential
                        } else {
                            SizeDistribution::Constant
                        };
                        agents.push(Agent::UdpSource(UdpSource::new(
                            send_ep,
                            UdpPattern::Poisson {
                                mean_interval_s: 1.0 / packets_per_second,
                                sizes,
                            },
                            packet_size.0 as u32,
                            rng,
                        )));
                        agents.push(Agent::UdpSink(UdpSink));
                    }
                    FlowSpec::OnOff {
                        rate,
                        packet_size,
                        on_time,
                        off_time,
                        ..
                    } => {
                        let pattern = UdpPattern::OnOff {
                            rate_bps: rate.0,
                            on_mean_s: on_time.secs(),
                            off_mean_s: off_time.secs(),
                        };
                        agents.push(Agent::UdpSource(UdpSource::new(
                            send_ep,
                            pattern,
                            packet_size.0 as u32,
                            rng,
                        )));
                        agents.push(Agent::UdpSink(UdpSink));
                    }
                    FlowSpec::Probe {
                        probe:
                            ProbeSpec::Ping {
                                interval,
                                packet_size,
                            },
                        ..
                    } => {
                        agents.push(Agent::PingSource(PingSource::new(
                            send_ep,
                            interval.0.max(1),
                            *packet_size,
                        )));
                        agents.push(Agent::PingEcho(PingEcho::new(recv_ep)));
                    }
                }
                agent_node.push(src);
                agent_node.push(dst);
                let own_start = match &c.start {
                    _ if arrival.is_some() => arrival.map_or(0, |a| a.at),
                    StartSpec::At(t) => t.0,
                    StartSpec::Each(ts) => ts[k % ts.len()].0,
                    StartSpec::Random { uniform: [lo, hi] } => {
                        let mut r = RngStream::new(seed, StreamKind::FlowStart, flow as u64);
                        lo.0 + ((hi.0 - lo.0) as f64 * r.uniform()) as Time
                    }
                };
                let (start, stop) = match arrival {
                    // A transfer starts when it arrives; the workload's own `stop` ends the
                    // arrivals, not the transfers, and a `stop_flows` event stops those
                    // still running (as it stops any flow).
                    Some(a) => (
                        a.at,
                        flow_window(&scenario.events, &group, fi, a.at, None).1,
                    ),
                    None => {
                        flow_window(&scenario.events, &group, fi, own_start, c.stop.map(|d| d.0))
                    }
                };
                if start >= scenario.duration.0 {
                    return Err(ScenarioError::new(
                        format!("{path}.start"),
                        format!(
                            "flow starts at {}s, at or after the end of the run",
                            time::to_secs_f64(start)
                        ),
                    )
                    .into());
                }
                if c.stop.is_some_and(|stop| stop.0 <= own_start) {
                    return Err(ScenarioError::new(
                        format!("{path}.stop"),
                        "must be later than the flow's start",
                    )
                    .into());
                }
                // An event that stops the flow before it starts leaves it idle.
                if stop.is_none_or(|stop| stop > start) {
                    starts.push((start, EventKind::AgentStart(sa)));
                    if let Some(stop) = stop {
                        starts.push((stop, EventKind::AgentStop(sa)));
                    }
                }
                flows.push(FlowInfo {
                    group: group.clone(),
                    kind: spec.kind_name(),
                    src: b.nodes[src as usize].clone(),
                    dst: b.nodes[dst as usize].clone(),
                    sender: sa,
                    start,
                    stop,
                    spec: fi,
                    transfer,
                });
                // A tcp_rr probe's second flow: the responses, server to client, its sender
                // written to by the probe when a request has been read.
                if let FlowSpec::Probe {
                    probe:
                        ProbeSpec::TcpRr {
                            request_bytes,
                            response_bytes,
                        },
                    tcp,
                    ..
                } = spec
                {
                    let flow = flows.len() as u32;
                    let (sb, rb) = (agents.len() as u32, agents.len() as u32 + 1);
                    // The server's responses, like ACKs, carry its socket's TOS, 0.
                    let send_ep = Endpoint {
                        flow,
                        agent: sb,
                        node: dst,
                        peer_node: src,
                        peer_agent: rb,
                        dscp: 0,
                    };
                    let recv_ep = Endpoint {
                        flow,
                        agent: rb,
                        node: src,
                        peer_node: dst,
                        peer_agent: sb,
                        dscp: c.dscp,
                    };
                    let rng = RngStream::new(seed, StreamKind::Agent, sb as u64);
                    agents.push(tcp_sender(tcp, send_ep, Some(0), rng));
                    agents.push(Agent::TcpSink(TcpSink::new(tcp, recv_ep)));
                    agent_node.push(dst);
                    agent_node.push(src);
                    starts.push((start, EventKind::AgentStart(sb)));
                    if let Some(stop) = c.stop {
                        starts.push((stop.0, EventKind::AgentStop(sb)));
                    }
                    flows.push(FlowInfo {
                        group: group.clone(),
                        kind: spec.kind_name(),
                        src: b.nodes[dst as usize].clone(),
                        dst: b.nodes[src as usize].clone(),
                        sender: sb,
                        start,
                        stop: c.stop.map(|d| d.0),
                        spec: fi,
                        transfer: None,
                    });
                    let packets = |bytes: u64| bytes.div_ceil(tcp.packet_size as u64);
                    rr_probes.push(RrProbe::new(
                        sa,
                        sb,
                        packets(*request_bytes),
                        packets(*response_bytes),
                        start,
                    ));
                }
                k += 1;
            }
        }
    }

    let link_ends: Vec<(NodeId, NodeId)> = b.links.iter().map(|l| (l.from, l.to)).collect();
    let mut dests: Vec<NodeId> = agent_node.clone();
    dests.sort_unstable();
    dests.dedup();
    let routing = RoutingTable::compute_within(b.nodes.len(), &link_ends, &dests, &mut budget)?;
    for (fi, f) in flows.iter().enumerate() {
        let (s, d) = (
            agent_node[f.sender as usize],
            agent_node[f.sender as usize + 1],
        );
        for (a, z) in [(s, d), (d, s)] {
            if routing.next_hop(a, z).is_none() {
                return Err(ScenarioError::new(
                    "flows",
                    format!(
                        "flow {fi} ({}): no route from '{}' to '{}'",
                        f.group, b.nodes[a as usize], b.nodes[z as usize]
                    ),
                )
                .into());
            }
        }
    }

    for f in flows.iter_mut() {
        if let Some((size, ideal)) = &mut f.transfer {
            let (s, d) = (
                agent_node[f.sender as usize],
                agent_node[f.sender as usize + 1],
            );
            let tcp = match &scenario.flows[f.spec] {
                FlowSpec::Tcp { tcp, .. } | FlowSpec::Workload { tcp, .. } => tcp,
                _ => unreachable!("only TCP flows have a transfer"),
            };
            let hops = |a: NodeId, z: NodeId| -> Vec<&LinkSchedule> {
                let mut at = a;
                let mut out = vec![];
                while at != z {
                    let l = routing.next_hop(at, z).expect("routes checked") as usize;
                    out.push(&schedules[l]);
                    at = b.links[l].to;
                }
                out
            };
            *ideal = ideal_fct_in_force(
                &hops(s, d),
                &hops(d, s),
                &Transfer {
                    start: f.start,
                    packets: size.div_ceil(tcp.packet_size as u64),
                    data_bytes: tcp.data_size(),
                    ack_bytes: tcp.ack_size,
                    handshake: tcp.handshake != crate::transport::tcp::Handshake::None,
                },
            );
        }
    }

    let names: Vec<&str> = b.links.iter().map(|l| l.name.as_str()).collect();
    let taps = crate::scenario::capture::plan(&scenario.capture, &names, || {
        crate::scenario::flow_wires::flow_wires(&scenario.flows, &flows)
    })?;
    starts.extend(actions);
    let mut sim = Simulator::new(
        scenario, seed, b.nodes, b.links, routing, agents, agent_node, flows, starts,
    );
    sim.timeline = timeline;
    sim.tap_plan = taps;
    sim.set_rr_probes(rr_probes);
    Ok(sim)
}

/// A TCP sender of `tcp`'s recovery, `limit` packets to send (None: an infinite source).
fn tcp_sender(
    tcp: &crate::transport::tcp::TcpConfig,
    ep: Endpoint,
    limit: Option<u64>,
    rng: RngStream,
) -> Agent {
    match tcp.recovery {
        Recovery::Ns2 => Agent::TcpSender(TcpSender::new(tcp.clone(), ep, limit, rng)),
        Recovery::Rfc6675 => Agent::Rfc6675Sender(Rfc6675Sender::new(tcp.clone(), ep, limit, rng)),
    }
}
