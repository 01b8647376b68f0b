//! The run loop: pops events in (time, sequence) order and hands each to the link or agent it
//! names. Entities live in arenas (`Vec`s) and are addressed by index; packets are recycled.

use crate::aqm::QueueDiscipline;
use crate::link::{Link, LinkCtx};
use crate::metrics::flow_stats::{FlowInfo, FlowSummary};
use crate::metrics::queue_stats::QueueSummary;
use crate::metrics::tap::{TapPlan, Taps};
use crate::metrics::{Fairness, FlowStats, TimeSeries};
use crate::net::{AgentId, NodeId, PacketArena, PacketId, RoutingTable};
use crate::result::{RunResult, SeriesColumns, Timings};
use crate::scenario::Scenario;
use crate::sim::{advise_huge_pages, time, EventKind, EventQueue, PollPacer, Time};
use crate::transport::probe::RrProbe;
use crate::transport::{Agent, AgentCtx};
use crate::units::ScenarioError;

// What a run asserts about itself before it reports (packet accounting, physical bounds): a
// child module, for the simulator's fields, in a file beside this one.
#[path = "run_checks.rs"]
mod run_checks;

/// Any reason a run did not produce a result.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    Scenario(ScenarioError),
    Run(RunError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Scenario(e) => write!(f, "{e}"),
            Error::Run(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ScenarioError> for Error {
    fn from(e: ScenarioError) -> Self {
        Error::Scenario(e)
    }
}

impl From<crate::sim::Stopped> for Error {
    fn from(_: crate::sim::Stopped) -> Self {
        Error::Run(RunError::Interrupted)
    }
}

impl From<RunError> for Error {
    fn from(e: RunError) -> Self {
        Error::Run(e)
    }
}

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The progress callback asked to stop (e.g. Ctrl-C).
    Interrupted,
    /// An internal invariant failed; this is a bug in aqmlab.
    Invariant(String),
    /// A capture file could not be written.
    Output(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Interrupted => write!(f, "run interrupted"),
            RunError::Invariant(m) => write!(f, "internal error (please report): {m}"),
            RunError::Output(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for RunError {}

pub struct Simulator {
    pub(crate) name: String,
    pub(crate) seed: u64,
    pub(crate) duration: Time,
    pub(crate) warmup: Time,
    sample_interval: Option<Time>,
    sample_flows: bool,
    pub(crate) events: EventQueue,
    pub(crate) packets: PacketArena,
    pub(crate) nodes: Vec<String>,
    pub(crate) links: Vec<Link>,
    routing: RoutingTable,
    agents: Vec<Agent>,
    agent_node: Vec<NodeId>,
    pub(crate) flows: Vec<FlowInfo>,
    pub(crate) flow_stats: Vec<FlowStats>,
    outbox: Vec<PacketId>,
    dropped: Vec<PacketId>,
    pub(crate) series: TimeSeries,
    /// Emulation (`crate::emulation`): packets that reached their destination host, for the
    /// emulator to hand to the real host, instead of to the simulated agents. `None` in a
    /// simulation.
    pub(crate) host_egress: Option<Vec<PacketId>>,
    /// The links the scenario captures or traces, until `open_taps` opens them.
    pub(crate) tap_plan: Option<TapPlan>,
    /// Open captures and the packet trace; `None` (nothing to do per event) without them.
    taps: Option<Box<Taps>>,
    /// What the scenario's `[[events]]` do (`crate::timeline`).
    pub(crate) timeline: crate::timeline::Timeline,
    /// The FCT summary's size bins: (name, upper bound in bytes), the last unbounded.
    fct_bins: Vec<(String, u64)>,
    /// tcp_rr probes, and (receiver agent, probe index) sorted by agent: a receiver's
    /// in-order delivery may make its probe's other side write.
    rr_probes: Vec<RrProbe>,
    rr_receivers: Vec<(AgentId, u32)>,
}

impl Simulator {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        scenario: &Scenario,
        seed: u64,
        nodes: Vec<String>,
        links: Vec<Link>,
        routing: RoutingTable,
        agents: Vec<Agent>,
        agent_node: Vec<NodeId>,
        flows: Vec<FlowInfo>,
        starts: Vec<(Time, EventKind)>,
    ) -> Self {
        let mut events = EventQueue::for_pending(4 * links.len() + 2 * agents.len() + 16);
        for (t, k) in starts {
            events.schedule(t, k);
        }
        for (i, l) in links.iter().enumerate() {
            if let Some(iv) = l.queue.timer_interval() {
                events.schedule(iv.max(1), EventKind::QueueTimer(i as u32));
            }
            // A DOCSIS upstream's MAP intervals run from the start (`link/docsis.rs`).
            if let Some(at) = l.first_wake() {
                events.schedule(at, EventKind::LinkTxDone(i as u32));
            }
        }
        if scenario.warmup.0 > 0 {
            events.schedule(scenario.warmup.0, EventKind::WarmupEnd);
        }
        if scenario.sample_interval.is_some() {
            events.schedule(0, EventKind::Sample);
        }
        let n_flows = flows.len();
        let flow_stats = vec![FlowStats::default(); n_flows];
        // The arenas every event indexes at random: huge pages spare most TLB misses at scale.
        advise_huge_pages(&links, true);
        advise_huge_pages(&agents, true);
        advise_huge_pages(&flow_stats, true);
        Simulator {
            name: scenario.name.clone(),
            seed,
            duration: scenario.duration.0,
            warmup: scenario.warmup.0,
            sample_interval: scenario.sample_interval.map(|d| d.0),
            sample_flows: scenario.sample_flows,
            events,
            packets: PacketArena::new(),
            nodes,
            links,
            routing,
            agents,
            agent_node,
            flows,
            flow_stats,
            outbox: Vec::with_capacity(64),
            dropped: Vec::with_capacity(64),
            series: TimeSeries::default(),
            host_egress: None,
            tap_plan: None,
            taps: None,
            timeline: Default::default(),
            fct_bins: scenario.fct_bins.clone(),
            rr_probes: vec![],
            rr_receivers: vec![],
        }
    }

    /// Couples the tcp_rr probes' connections (`transport/probe.rs`).
    pub(crate) fn set_rr_probes(&mut self, probes: Vec<RrProbe>) {
        self.rr_receivers = probes
            .iter()
            .enumerate()
            .flat_map(|(i, p)| [(p.server_sink, i as u32), (p.client_sink, i as u32)])
            .collect();
        self.rr_receivers.sort_unstable();
        self.rr_probes = probes;
    }

    /// A tcp_rr receiver read more: the probe's other side writes its request or response.
    #[cold]
    fn rr_delivery(&mut self, agent: AgentId) {
        let Ok(k) = self.rr_receivers.binary_search_by_key(&agent, |r| r.0) else {
            return;
        };
        let probe = self.rr_receivers[k].1 as usize;
        let delivered = self.agents[agent as usize].delivered_packets();
        let now = self.now();
        if let Some((sender, packets)) = self.rr_probes[probe].on_delivery(agent, delivered, now) {
            self.with_agent::<true>(sender, |ag, cx| ag.write_more(cx, packets));
        }
    }

    /// Opens the scenario's capture files in `dir` (created if missing) and its trace. A file
    /// that cannot be created is an output path the run was given that does not work: bad
    /// input (the scenario's error, at `capture_dir`), found before the run starts.
    pub fn open_taps(&mut self, dir: &std::path::Path) -> Result<(), ScenarioError> {
        if let Some(plan) = self.tap_plan.take() {
            let names: Vec<&str> = self.links.iter().map(|l| l.name.as_str()).collect();
            let taps = Taps::open(plan, &names, dir)
                .map_err(|e| ScenarioError::new("capture_dir", e.to_string()))?;
            self.taps = Some(Box::new(taps));
        }
        Ok(())
    }

    /// Runs to the end.
    pub fn run(self) -> Result<RunResult, RunError> {
        self.run_with_progress(&mut |_| true)
    }

    /// Runs to the end, calling `progress(fraction done)` after the first event and then once
    /// per [`PollPacer::INTERVAL`] of wall-clock time (or after the event that passes it, if
    /// one event takes longer); the run stops with [`RunError::Interrupted`] when it returns
    /// false.
    pub fn run_with_progress(
        mut self,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<RunResult, RunError> {
        let started = std::time::Instant::now();
        let end = self.duration;
        // A run without captures, traces, `[[events]]` and tcp_rr probes runs a loop with
        // none of their tests (issue 36, item 4).
        if self.uses_extras() {
            self.event_loop::<true>(started, progress)?;
        } else {
            self.event_loop::<false>(started, progress)?;
        }
        self.events.advance_to(end);
        self.finish_agents();
        if let Some(t) = &mut self.taps {
            t.finish().map_err(RunError::Output)?;
        }
        progress(1.0);
        let wall = started.elapsed().as_secs_f64();
        let collecting = std::time::Instant::now();
        self.check_packet_accounting()?;
        let events = self.events.processed();
        let mut result = self.collect_result(events, wall);
        self.check_bounds(&result)?;
        result.timings.collect_s = collecting.elapsed().as_secs_f64();
        result.peak_rss_bytes = crate::result::peak_rss_bytes();
        Ok(result)
    }

    /// Whether the run has anything the plain event loop leaves out: captures or a packet
    /// trace (`taps`), `[[events]]` (the timeline's actions: only they change a link, see
    /// `LinkChanges`) or tcp_rr probes.
    fn uses_extras(&self) -> bool {
        self.taps.is_some() || !self.timeline.is_empty() || !self.rr_probes.is_empty()
    }

    /// Pops and dispatches events until the run's end. `EXTRAS`: see
    /// [`Simulator::uses_extras`]; false compiles the taps', the events' and the probes'
    /// tests out of every packet's path.
    fn event_loop<const EXTRAS: bool>(
        &mut self,
        started: std::time::Instant,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<(), RunError> {
        debug_assert!(EXTRAS || !self.uses_extras());
        let end = self.duration;
        let mut pacer = PollPacer::new(started);
        while let Some(ev) = self.events.pop_until(end) {
            self.dispatch_as::<EXTRAS>(ev.kind);
            if pacer.step() && !progress(ev.time as f64 / end as f64) {
                return Err(RunError::Interrupted);
            }
        }
        Ok(())
    }

    /// Gathers the result; the series move out of the simulator rather than being copied.
    pub(crate) fn collect_result(&mut self, events: u64, wall: f64) -> RunResult {
        let now = self.now();
        let queues: Vec<QueueSummary> = self
            .links
            .iter()
            .filter(|l| l.monitor || l.stats.arrivals > 0 || l.stats.backlog_at_start > 0)
            .map(|l| l.summary(now, &self.packets, self.timeline.link_changes()))
            .collect();
        let conserved = self.links.iter().all(|l| {
            l.summary(now, &self.packets, self.timeline.link_changes())
                .is_conserved()
        });
        let flows = self.flow_summaries();
        let fct = self.fct_rows(&flows);
        let fct_summary = if fct.is_empty() {
            vec![]
        } else {
            crate::metrics::fct::summarize(&fct, &self.fct_bins)
        };
        let (latency, lost) = self.latency_samples();
        let latency_summary = crate::metrics::latency::summarize(&latency, &lost);
        let fairness = Fairness::of(&flows);
        let mut warnings = crate::run_warnings::of(&self.flow_stats, now - self.warmup.min(now));
        let (trace, capture_files) = match self.taps.take() {
            Some(t) => {
                let links = self.links.iter().map(|l| l.name.clone()).collect();
                let files = t.files.iter().map(|p| p.display().to_string()).collect();
                if t.trace.rows_dropped > 0 {
                    warnings.push(crate::scenario::warnings::ScenarioWarning {
                        path: "trace_max_rows".into(),
                        message: format!(
                            "the packet trace is cut: it holds its first {} events, {} more \
                             were not recorded; raise trace_max_rows or trace fewer links",
                            t.trace.len(),
                            t.trace.rows_dropped
                        ),
                    });
                }
                let traced = t.traced_any().then_some(crate::result::TraceTable {
                    rows: t.trace,
                    link_names: links,
                });
                (traced, files)
            }
            None => (None, vec![]),
        };
        let s = std::mem::take(&mut self.series);
        let timeseries = SeriesColumns {
            // In place: a Vec<u64> collected into a Vec<f64> keeps its allocation, so a long
            // series is not held twice.
            time_s: s.time.into_iter().map(time::to_secs_f64).collect(),
            source: s.source,
            variable: s.variable,
            value: s.value,
            source_names: s.sources,
            variable_names: s.variables,
        };
        RunResult {
            name: self.name.clone(),
            seed: self.seed,
            duration_s: time::to_secs_f64(self.duration),
            warmup_s: time::to_secs_f64(self.warmup),
            events,
            wall_time_s: wall,
            events_per_second: if wall > 0.0 {
                events as f64 / wall
            } else {
                f64::NAN
            },
            timings: Timings {
                setup_s: 0.0,
                loop_s: wall,
                collect_s: 0.0,
            },
            peak_rss_bytes: None,
            queues,
            flows,
            groups: fairness.groups,
            jain_index: fairness.jain_index,
            jain_index_over: fairness.jain_index_over,
            jain_index_tcp: fairness.jain_index_tcp,
            jain_index_all_flows: fairness.jain_index_all_flows,
            conserved,
            warnings,
            emulation: None,
            timeseries,
            trace,
            capture_files,
            fct,
            fct_summary,
            latency,
            latency_summary,
            queue_delays: self
                .links
                .iter()
                .filter(|l| l.monitor)
                .flat_map(|l| crate::metrics::queue_delays::rows(&l.name, &l.stats.sojourn))
                .collect(),
        }
    }

    /// The FCT table: one row per flow with a finite transfer.
    fn fct_rows(&self, summaries: &[FlowSummary]) -> Vec<crate::metrics::fct::FctRow> {
        self.flows
            .iter()
            .zip(&self.flow_stats)
            .zip(summaries)
            .enumerate()
            .filter_map(|(i, ((f, s), sum))| {
                let (size, ideal) = f.transfer?;
                let fct = s.completed_at.map(|t| time::to_secs_f64(t - f.start));
                let ideal_s = time::to_secs_f64(ideal);
                Some(crate::metrics::fct::FctRow {
                    flow: i as u32,
                    group: f.group.clone(),
                    size_bytes: size,
                    start_s: time::to_secs_f64(f.start),
                    fct_s: fct.unwrap_or(f64::NAN),
                    completed: fct.is_some(),
                    ideal_fct_s: ideal_s,
                    slowdown: fct.map_or(f64::NAN, |x| x / ideal_s),
                    retransmissions: sum.retransmissions,
                    timeouts: sum.timeouts,
                })
            })
            .collect()
    }

    /// Every probe's RTT samples, and each probe's lost requests.
    fn latency_samples(
        &self,
    ) -> (
        Vec<crate::metrics::latency::LatencySample>,
        Vec<(String, String, u64)>,
    ) {
        let mut samples = vec![];
        let mut lost = vec![];
        // A probe's samples and its unanswered requests, under flow `flow`'s labels.
        let mut add = |flow: usize, rtts: &[(Time, Time)], unanswered: u64| {
            let f = &self.flows[flow];
            samples.extend(
                rtts.iter()
                    .map(|&(at, rtt)| crate::metrics::latency::LatencySample {
                        flow: flow as u32,
                        group: f.group.clone(),
                        kind: f.kind.to_string(),
                        time_s: time::to_secs_f64(at),
                        rtt_ms: rtt as f64 / 1e6,
                    }),
            );
            lost.push((f.group.clone(), f.kind.to_string(), unanswered));
        };
        for (i, f) in self.flows.iter().enumerate() {
            if let Agent::PingSource(p) = &self.agents[f.sender as usize] {
                add(i, &p.samples, p.lost());
            }
        }
        for p in &self.rr_probes {
            add((p.client_sender / 2) as usize, &p.samples, p.lost());
        }
        (samples, lost)
    }

    /// Lets every sender close what it measures over spans still open at the end.
    fn finish_agents(&mut self) {
        for a in 0..self.agents.len() {
            if self.agents[a].is_sender() {
                self.with_agent::<true>(a as AgentId, |ag, cx| ag.finish(cx));
            }
        }
    }

    /// Handles one event (any run: taps, events and probes included).
    #[inline]
    pub(crate) fn dispatch(&mut self, kind: EventKind) {
        self.dispatch_as::<true>(kind)
    }

    /// Handles one event; `EXTRAS`: see [`Simulator::uses_extras`].
    #[inline]
    fn dispatch_as<const EXTRAS: bool>(&mut self, kind: EventKind) {
        match kind {
            EventKind::LinkTxDone(l) => {
                self.with_link::<EXTRAS>(l, |link, cx| link.tx_done::<EXTRAS>(cx))
            }
            EventKind::LinkDeliver(l) => {
                let link = &mut self.links[l as usize];
                if let Some(pkt) = link.deliver(&mut self.events, l) {
                    let at = link.to;
                    self.arrive_at_node::<EXTRAS>(at, pkt);
                }
            }
            EventKind::QueueTimer(l) => {
                self.with_link::<EXTRAS>(l, |link, cx| link.queue_timer::<EXTRAS>(cx))
            }
            EventKind::LinkWake(l) => {
                self.with_link::<EXTRAS>(l, |link, cx| link.wake::<EXTRAS>(cx))
            }
            // In an emulation the hosts' kernels run the flows; the simulated agents stay idle.
            EventKind::AgentStart(_) | EventKind::AgentStop(_) if self.host_egress.is_some() => {}
            EventKind::AgentStart(a) => self.with_agent::<EXTRAS>(a, |ag, cx| ag.start(cx)),
            EventKind::AgentStop(a) => self.with_agent::<EXTRAS>(a, |ag, cx| ag.stop(cx)),
            EventKind::AgentTimer { agent, timer } => {
                self.with_agent::<EXTRAS>(agent, |ag, cx| ag.timer(cx, timer))
            }
            EventKind::Sample => self.sample(),
            EventKind::WarmupEnd => self.restart_measurement(),
            EventKind::Timeline(i) => self.run_timeline_action(i),
        }
    }
    /// Carries out action `i` of the timeline.
    fn run_timeline_action(&mut self, i: u32) {
        let (l, change) = self.timeline.take_change(i, self.events.now());
        self.with_link::<true>(l, |link, cx| change.apply(link, cx));
    }

    /// Lets link `l` act, then charges and frees whatever it dropped. Without `EXTRAS` the
    /// link is given no taps.
    #[inline]
    pub(crate) fn with_link<const EXTRAS: bool>(
        &mut self,
        l: u32,
        f: impl FnOnce(&mut Link, &mut LinkCtx),
    ) {
        let mut cx = LinkCtx {
            id: l,
            events: &mut self.events,
            packets: &mut self.packets,
            dropped: &mut self.dropped,
            tap: if EXTRAS {
                self.taps.as_deref_mut()
            } else {
                None
            },
            changes: &mut self.timeline.link_changes,
        };
        f(&mut self.links[l as usize], &mut cx);
        self.settle_drops();
    }

    /// Lets agent `a` act, then forwards whatever it sent.
    #[inline]
    fn with_agent<const EXTRAS: bool>(
        &mut self,
        a: AgentId,
        f: impl FnOnce(&mut Agent, &mut AgentCtx),
    ) {
        let flow = (a / 2) as usize;
        let mut cx = AgentCtx {
            now: self.events.now(),
            agent: a,
            events: &mut self.events,
            packets: &mut self.packets,
            stats: &mut self.flow_stats[flow],
            outbox: &mut self.outbox,
        };
        f(&mut self.agents[a as usize], &mut cx);
        self.flush_outbox::<EXTRAS>(self.agent_node[a as usize]);
    }

    #[inline]
    fn flush_outbox<const EXTRAS: bool>(&mut self, node: NodeId) {
        if self.outbox.is_empty() {
            return;
        }
        // Agents rarely send more than a window at once; take the buffer to iterate freely.
        let mut out = std::mem::take(&mut self.outbox);
        for pkt in out.drain(..) {
            self.forward_as::<EXTRAS>(node, pkt);
        }
        self.outbox = out;
    }

    #[inline]
    fn arrive_at_node<const EXTRAS: bool>(&mut self, node: NodeId, pkt: PacketId) {
        let p = self.packets.get(pkt);
        if p.dst == node {
            if let Some(egress) = &mut self.host_egress {
                egress.push(pkt);
                return;
            }
            let agent = p.dst_agent;
            self.with_agent::<EXTRAS>(agent, |ag, cx| ag.receive(cx, pkt));
            if EXTRAS && !self.rr_probes.is_empty() {
                self.rr_delivery(agent);
            }
        } else {
            self.forward_as::<EXTRAS>(node, pkt);
        }
    }

    /// Puts a packet on the next link towards its destination (any run).
    #[inline]
    pub(crate) fn forward(&mut self, node: NodeId, pkt: PacketId) {
        self.forward_as::<true>(node, pkt)
    }

    /// Puts a packet on the next link towards its destination; `EXTRAS`: see
    /// [`Simulator::uses_extras`].
    #[inline]
    fn forward_as<const EXTRAS: bool>(&mut self, node: NodeId, pkt: PacketId) {
        let dst = self.packets.get(pkt).dst;
        match self.routing.next_hop(node, dst) {
            Some(l) => self.with_link::<EXTRAS>(l, |link, cx| link.arrive::<EXTRAS>(pkt, cx)),
            None => {
                // Routes were checked when the scenario was built, so this is unreachable;
                // count it rather than lose the packet silently.
                debug_assert!(false, "no route from {node} to {dst}");
                self.dropped.push(pkt);
                self.settle_drops();
            }
        }
    }

    /// Charges dropped packets to their flows and frees them.
    #[inline]
    fn settle_drops(&mut self) {
        // Called after every link operation; almost always there is nothing to settle.
        if self.dropped.is_empty() {
            return;
        }
        self.settle_drops_slow();
    }

    #[cold]
    #[inline(never)]
    fn settle_drops_slow(&mut self) {
        for id in self.dropped.drain(..) {
            let p = self.packets.get(id);
            let s = &mut self.flow_stats[p.flow as usize];
            s.drops += 1;
            let sender = self.flows[p.flow as usize].sender;
            // The loss rate is of the packets the flow's sender sent (its `packets_sent`),
            // those leaving the sender's node, whatever their kind: TCP's data, not its ACKs;
            // a ping's requests, not the echo's replies. And over the window's own packets: a
            // drop inside the window of a packet sent before it is not one of them (else loss
            // rates above 1 after a warm-up).
            if p.src == self.agent_node[sender as usize] && p.sent_at >= s.start {
                s.data_drops += 1;
            }
            if let Agent::PingSource(ping) = &mut self.agents[sender as usize] {
                ping.on_drop();
            }
            self.packets.free(id);
        }
    }

    fn restart_measurement(&mut self) {
        let now = self.events.now();
        for l in &mut self.links {
            let backlog = l.backlog();
            l.stats.restart(now, backlog);
        }
        for s in &mut self.flow_stats {
            s.restart(now);
        }
        self.timeline.restart_measurement();
    }

    fn sample(&mut self) {
        let now = self.events.now();
        for l in self.links.iter().filter(|l| l.monitor) {
            let src = self.series.source_id(&l.name);
            let series = &mut self.series;
            series.push(now, src, "queue_packets", l.queue.len_packets() as f64);
            series.push(now, src, "queue_bytes", l.queue.len_bytes() as f64);
            // The link's summary so far (since the measurement start: the end of the warm-up,
            // or 0 before it): what the queue table would say if the run ended now. Running
            // time averages (the DSRED paper's Figs 7-18) are read from these.
            let st = &l.stats;
            series.push(now, src, "arrivals", st.arrivals as f64);
            series.push(now, src, "drops", st.drops() as f64);
            series.push(now, src, "marks", st.marks as f64);
            series.push(now, src, "mean_queue_packets", st.mean_queue_packets(now));
            let d = st.sojourn.mean();
            series.push(now, src, "mean_delay_ms", d / 1e6);
            l.queue.state(&mut |name, v| series.push(now, src, name, v));
        }
        if !self.flow_stats.is_empty() {
            // Packets sent / received by all flows so far (since the measurement start), for
            // running ratios such as the DSRED paper's normalized throughput (Figs 19-22).
            let src = self.series.source_id("flows");
            let sent: u64 = self.flow_stats.iter().map(|s| s.packets_sent).sum();
            let recv: u64 = self.flow_stats.iter().map(|s| s.packets_received).sum();
            self.series.push(now, src, "packets_sent", sent as f64);
            self.series.push(now, src, "packets_received", recv as f64);
        }
        if self.sample_flows && self.host_egress.is_none() {
            for (fi, f) in self.flows.iter().enumerate() {
                // Every flow, whatever its kind: its delivered bytes give its throughput over
                // time (issue 27); "flow<i>" is row i of the flows table.
                let src = self.series.source_id(&format!("flow{fi}"));
                let received = self.flow_stats[fi].bytes_received as f64;
                self.series.push(now, src, "bytes_received", received);
                let agent = &self.agents[f.sender as usize];
                if agent.is_tcp_sender() {
                    let series = &mut self.series;
                    agent.state(&mut |name, v| series.push(now, src, name, v));
                }
            }
        }
        if let Some(iv) = self.sample_interval {
            let next = now + iv;
            if next <= self.duration {
                self.events.schedule(next, EventKind::Sample);
            }
        }
    }

    /// Node names, indexed by node id.
    pub fn node_names(&self) -> &[String] {
        &self.nodes
    }

    pub(crate) fn now(&self) -> Time {
        self.events.now()
    }

    pub(crate) fn flow_summaries(&self) -> Vec<FlowSummary> {
        let end = self.now();
        let span_s = time::to_secs_f64(end - self.warmup.min(end)).max(1e-12);
        self.flows
            .iter()
            .zip(&self.flow_stats)
            .enumerate()
            .map(|(i, (f, s))| FlowSummary {
                flow: i as u32,
                group: f.group.clone(),
                kind: f.kind.to_string(),
                src: f.src.clone(),
                dst: f.dst.clone(),
                packets_sent: s.packets_sent,
                packets_received: s.packets_received,
                retransmissions: s.retransmissions,
                timeouts: s.timeouts,
                fast_recoveries: s.fast_recoveries,
                ecn_reductions: s.ecn_reductions,
                spurious_retransmissions: s.spurious_retransmissions,
                tail_loss_probes: s.tail_loss_probes,
                max_transmissions_of_a_segment: s.max_transmissions,
                rto_backoffs: s.rto_backoffs,
                time_in_recovery_s: time::to_secs_f64(s.time_in_recovery_ns),
                drops: s.drops,
                marks_received: s.marks_received,
                goodput_bps: s.goodput_bytes as f64 * 8.0 / span_s,
                throughput_bps: s.bytes_received as f64 * 8.0 / span_s,
                loss_rate: if s.packets_sent > 0 {
                    s.data_drops as f64 / s.packets_sent as f64
                } else {
                    0.0
                },
                mean_rtt_ms: if s.rtt_samples > 0 {
                    s.rtt_sum_ns / s.rtt_samples as f64 / 1e6
                } else {
                    f64::NAN
                },
                mean_delay_ms: if s.delay_samples > 0 {
                    s.delay_sum_ns / s.delay_samples as f64 / 1e6
                } else {
                    f64::NAN
                },
                completion_time_s: s
                    .completed_at
                    .map(|t| time::to_secs_f64(t - f.start))
                    .unwrap_or(f64::NAN),
            })
            .collect()
    }
}
