//! The scenario's network, driven by real packets and a real clock: the simulator's own links,
//! queue disciplines, routes and counters, with the hosts' kernels in place of the simulated
//! agents.
//!
//! The driver (the TUN loop of `aqmlab-emulator`, or a test) alternates two calls:
//! [`EmulatedNetwork::advance`] runs every event due by the clock's time (a transmission's end,
//! a packet leaving a link's delay line, an AQM's timer, a sample) and hands each packet that
//! reached its destination host to `deliver`; [`EmulatedNetwork::inject`] puts a packet a host
//! sent on the first link of its path at the current time. Events keep their scheduled
//! times, so the links' departure clocks run on exact time however late the driver handles
//! them: lateness delays the real packet but never changes the schedule, and it is recorded
//! ([`crate::metrics::emulation_fidelity`]).

use super::ipv4::{self, NotCarried, PROTO_TCP, PROTO_UDP};
use super::plan::{self, EmulationPlan, MAX_FLOWS, MAX_HOSTS};
use super::reassembly::InOrderDelivery;
use super::report::{FlowReport, SeriesSample};
use crate::aqm::registry::CustomAqmFactory;
use crate::metrics::emulation_fidelity::{EmulationFidelity, LagRecorder};
use crate::net::{Packet, PacketId, PacketKind};
use crate::result::RunResult;
use crate::scenario::Scenario;
use crate::sim::{time, EventKind, Time};
use crate::simulator::{Error, RunError, Simulator};
use crate::units::ScenarioError;
use std::collections::HashMap;

/// One flow as the router tells its packets apart: by protocol and the port its receiver
/// listens on (the destination port of data, the source port of what the receiver sends back).
#[derive(Debug, Clone, Copy)]
struct FlowRoute {
    src_host: u32,
    dst_host: u32,
    receiver_agent: u32,
}

pub struct EmulatedNetwork {
    sim: Simulator,
    plan: EmulationPlan,
    /// Host index -> node id.
    host_nodes: Vec<u32>,
    host_by_address: HashMap<u32, u32>,
    flows: Vec<FlowRoute>,
    flow_by_port: HashMap<(u8, u16), u32>,
    /// The real bytes of each packet in flight, by packet id (the arena recycles ids, and these
    /// buffers with them: no allocation per packet once the network is warm).
    bytes: Vec<Vec<u8>>,
    /// Per flow: one past the highest TCP sequence number sent so far, to tell
    /// retransmissions (RFC 9293 3.4: SYN and FIN take a number each).
    next_new_seq: Vec<Option<u32>>,
    /// Per flow: the receiver's in-order delivery, for the goodput.
    in_order: Vec<InOrderDelivery>,
    departure_lag: LagRecorder,
    delivery_lag: LagRecorder,
    not_carried: u64,
    egress: Vec<PacketId>,
}

/// `a` is after `b` in sequence space (RFC 9293 3.4's modular comparison).
fn seq_after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

impl EmulatedNetwork {
    /// The network of `scenario` with master seed `seed` (the AQMs' and links' random streams
    /// are the simulation's).
    pub fn new(
        scenario: &Scenario,
        seed: u64,
        custom: Option<&dyn CustomAqmFactory>,
    ) -> Result<Self, Error> {
        let mut sim = crate::build::build(scenario, seed, custom, &mut || true)?;
        sim.host_egress = Some(Vec::with_capacity(64));
        if sim.flows.len() > MAX_FLOWS {
            return Err(ScenarioError::new(
                "flows",
                format!(
                    "{} flows: an emulation gives each flow a port, at most {MAX_FLOWS}",
                    sim.flows.len()
                ),
            )
            .into());
        }
        let node_id = |name: &str| sim.nodes.iter().position(|n| n == name).expect("built") as u32;
        let mut host_nodes: Vec<u32> = sim
            .flows
            .iter()
            .flat_map(|f| [node_id(&f.src), node_id(&f.dst)])
            .collect();
        host_nodes.sort_unstable();
        host_nodes.dedup();
        if host_nodes.len() > MAX_HOSTS {
            return Err(ScenarioError::new(
                "topology",
                format!(
                    "{} hosts: an emulation has at most {MAX_HOSTS}",
                    host_nodes.len()
                ),
            )
            .into());
        }
        let host_names: Vec<String> = host_nodes
            .iter()
            .map(|&n| sim.nodes[n as usize].clone())
            .collect();
        let host_of = |name: &str| {
            let n = node_id(name);
            host_nodes
                .binary_search(&n)
                .expect("every endpoint is a host")
        };
        let plan = plan::plan(scenario, &sim.flows, &host_names, &host_of);
        let mut flow_by_port = HashMap::new();
        let flows = sim
            .flows
            .iter()
            .zip(&plan.flows)
            .map(|(f, p)| {
                let proto = if f.kind == "tcp" {
                    PROTO_TCP
                } else {
                    PROTO_UDP
                };
                flow_by_port.insert((proto, p.port), p.flow);
                FlowRoute {
                    src_host: host_of(&f.src) as u32,
                    dst_host: host_of(&f.dst) as u32,
                    receiver_agent: f.sender + 1,
                }
            })
            .collect();
        let host_by_address = (0..host_nodes.len() as u32)
            .map(|h| (plan::host_address(h as usize), h))
            .collect();
        let n_flows = sim.flows.len();
        Ok(EmulatedNetwork {
            sim,
            plan,
            host_nodes,
            host_by_address,
            flows,
            flow_by_port,
            bytes: Vec::new(),
            next_new_seq: vec![None; n_flows],
            in_order: vec![InOrderDelivery::default(); n_flows],
            departure_lag: LagRecorder::default(),
            delivery_lag: LagRecorder::default(),
            not_carried: 0,
            egress: Vec::with_capacity(64),
        })
    }

    pub fn plan(&self) -> &EmulationPlan {
        &self.plan
    }

    pub fn hosts(&self) -> usize {
        self.host_nodes.len()
    }

    /// The scenario's duration: the driver stops there.
    pub fn duration(&self) -> Time {
        self.sim.duration
    }

    /// When the next event is due, if any is before the end of the run.
    pub fn next_event_time(&mut self) -> Option<Time> {
        self.sim
            .events
            .peek_time()
            .filter(|&t| t <= self.sim.duration)
    }

    /// Runs every event due by `clock()` (read once at the start; no later than the end of the
    /// run) and hands each packet that reached its host to `deliver(host, bytes)`. A departure
    /// (a transmission's end) and a delivery (a packet leaving a delay line) are handled
    /// `clock()` - their time late, read as each is handled: the emulator's lag.
    pub fn advance(
        &mut self,
        clock: &mut dyn FnMut() -> Time,
        deliver: &mut dyn FnMut(u32, &[u8]),
    ) {
        let until = clock().min(self.sim.duration);
        while let Some(ev) = self.sim.events.pop_until(until) {
            match ev.kind {
                EventKind::LinkTxDone(_) => self.departure_lag.record(clock(), ev.time),
                EventKind::LinkDeliver(_) => self.delivery_lag.record(clock(), ev.time),
                // The lag is measured over the measurement window, as every other figure.
                EventKind::WarmupEnd => {
                    self.departure_lag.restart();
                    self.delivery_lag.restart();
                }
                _ => {}
            }
            self.sim.dispatch(ev.kind);
            if !self.sim.host_egress.as_ref().is_some_and(|e| e.is_empty()) {
                self.hand_over(deliver);
            }
        }
        self.sim.events.advance_to(until);
    }

    /// Packets that reached their destination host: counted for their flow as a simulated
    /// receiver counts them, CE written into the real header if an AQM marked, handed over,
    /// freed.
    fn hand_over(&mut self, deliver: &mut dyn FnMut(u32, &[u8])) {
        let now = self.sim.events.now();
        std::mem::swap(
            &mut self.egress,
            self.sim.host_egress.as_mut().expect("emulated"),
        );
        for id in self.egress.drain(..) {
            let p = self.sim.packets.get(id);
            let bytes = &mut self.bytes[id.0 as usize];
            if p.ecn.ce && bytes[1] & 0b11 != 0b11 {
                ipv4::mark_ce(bytes);
            }
            let s = &mut self.sim.flow_stats[p.flow as usize];
            let in_window = p.sent_at >= s.start;
            if p.kind != PacketKind::TcpAck && in_window {
                s.packets_received += 1;
                s.bytes_received += p.size as u64;
                s.marks_received += p.ecn.ce as u64;
                s.delay_sum_ns += (now - p.sent_at) as f64;
                s.delay_samples += 1;
            }
            // Goodput as the simulator's receivers count it: new payload in order (TCP), every
            // datagram's payload (UDP), of packets sent inside the window.
            if let Ok(h) = ipv4::parse(bytes) {
                match p.kind {
                    PacketKind::TcpData => {
                        let d = &mut self.in_order[p.flow as usize];
                        if h.tcp_syn {
                            d.syn(h.tcp_seq);
                        }
                        let seq = h.tcp_seq.wrapping_add(h.tcp_syn as u32);
                        s.goodput_bytes += d.segment(seq, h.tcp_payload, p.sent_at, s.start);
                    }
                    PacketKind::Udp if in_window => {
                        s.goodput_bytes += (h.total_len - h.payload_offset) as u64;
                    }
                    _ => {}
                }
            }
            let to = self
                .host_nodes
                .binary_search(&p.dst)
                .expect("delivered to a host");
            deliver(to as u32, bytes);
            self.sim.packets.free(id);
        }
    }

    /// A packet host `host` sent, now (after [`Self::advance`]): put on the first link of its
    /// path. A packet that is not IPv4, not to another host or not of a flow of the scenario
    /// is not carried (and counted: [`EmulationFidelity::packets_not_carried`]).
    pub fn inject(&mut self, host: u32, b: &[u8]) -> Result<(), NotCarried> {
        let s = match ipv4::parse(b) {
            Ok(s) => s,
            Err(e) => {
                self.not_carried += 1;
                return Err(e);
            }
        };
        let flow = self
            .flow_by_port
            .get(&(s.protocol, s.dst_port))
            .map(|&f| (f, false))
            .or_else(|| {
                self.flow_by_port
                    .get(&(s.protocol, s.src_port))
                    .map(|&f| (f, true))
            });
        let dst_host = self.host_by_address.get(&s.dst).copied();
        let (Some((flow, reverse)), Some(dst_host)) = (flow, dst_host) else {
            self.not_carried += 1;
            return Err(NotCarried::NotAFlow);
        };
        let route = self.flows[flow as usize];
        let (from, to) = if reverse {
            (route.dst_host, route.src_host)
        } else {
            (route.src_host, route.dst_host)
        };
        if from != host || to != dst_host {
            self.not_carried += 1;
            return Err(NotCarried::NotAFlow);
        }
        let now = self.sim.events.now();
        let kind = match (s.protocol, reverse) {
            (PROTO_TCP, false) => PacketKind::TcpData,
            (PROTO_TCP, true) => PacketKind::TcpAck,
            _ => PacketKind::Udp,
        };
        let mut p = Packet::new(
            kind,
            flow,
            self.host_nodes[from as usize],
            self.host_nodes[to as usize],
            route.receiver_agent,
            s.total_len as u32,
        );
        p.seq = s.tcp_seq as i64;
        p.ecn.ect = s.ecn == 0b01 || s.ecn == 0b10;
        p.ecn.ect1 = s.ecn == 0b01;
        p.ecn.ce = s.ecn == 0b11;
        p.dscp = s.dscp;
        p.sent_at = now;
        let stats = &mut self.sim.flow_stats[flow as usize];
        if kind != PacketKind::TcpAck {
            stats.packets_sent += 1;
        }
        if kind == PacketKind::TcpData {
            let end = s
                .tcp_seq
                .wrapping_add(s.tcp_payload)
                .wrapping_add(s.tcp_syn_or_fin as u32);
            let next = &mut self.next_new_seq[flow as usize];
            match *next {
                Some(n) if end != s.tcp_seq && !seq_after(end, n) => stats.retransmissions += 1,
                Some(n) if !seq_after(end, n) => {}
                _ => *next = Some(end),
            }
        }
        let id = self.sim.packets.alloc(p);
        let slot = id.0 as usize;
        if slot >= self.bytes.len() {
            self.bytes.resize_with(slot + 1, Vec::new);
        }
        let buf = &mut self.bytes[slot];
        buf.clear();
        buf.extend_from_slice(&b[..s.total_len as usize]);
        let node = self.host_nodes[from as usize];
        self.sim.forward(node, id);
        Ok(())
    }

    /// Ends the run at the clock's time (the scenario's end, or earlier if it was stopped) and
    /// gathers the result in the simulation's schema: the hosts' own measurements (`reports`,
    /// `series`) merged into the flow table and the time series, and the emulator's fidelity
    /// against `max_lag`. Fails, as a simulation does, if a packet went unaccounted or a
    /// metric is out of its physical bounds.
    pub fn finish(
        mut self,
        reports: &[FlowReport],
        series: &[SeriesSample],
        max_lag: Time,
        wall_time_s: f64,
    ) -> Result<RunResult, RunError> {
        for r in reports {
            let Some(s) = self.sim.flow_stats.get_mut(r.flow as usize) else {
                return Err(RunError::Invariant(format!(
                    "a host reported flow {}, of {} flows",
                    r.flow,
                    self.flows.len()
                )));
            };
            r.merge_into(s, self.sim.flows[r.flow as usize].start);
        }
        for x in series {
            let src = self.sim.series.source_id(&format!("flow{}", x.flow));
            self.sim
                .series
                .push(time::from_secs_f64(x.time_s), src, &x.variable, x.value);
        }
        self.sim.check_packet_accounting()?;
        let events = self.sim.events.processed();
        let mut result = self.sim.collect_result(events, wall_time_s);
        self.sim.check_bounds(&result)?;
        result.emulation = Some(EmulationFidelity::new(
            &self.departure_lag,
            &self.delivery_lag,
            max_lag,
            self.not_carried,
        ));
        Ok(result)
    }
}

#[cfg(test)]
#[path = "network_tests.rs"]
mod tests;
