//! `[[events]]` in a run: what each event does to which link or queue, resolved when the
//! network is built (names become indices, AQM changes become algorithms built and checked
//! then), and carried out when its time comes. Flow starts and stops need no run-time
//! action: they move the flows' own start and stop (`scenario::events::flow_window`).

use crate::aqm::params::QueueEnv;
use crate::aqm::registry::{build_queue, CustomAqmFactory};
use crate::aqm::Aqm;
use crate::link::{Link, LinkChanges, LinkCtx};
use crate::net::delivery_trace::{DeliveryTrace, TraceClock};
use crate::net::link_schedule::{LinkSchedule, Regime};
use crate::scenario::events::{AqmState, EventDirection, EventSpec, LinkState, RateSetting};
use crate::sim::{EventKind, Time};
use crate::units::ScenarioError;
use std::collections::HashMap;
use std::sync::Arc;

/// The algorithms whose parameters an event may change: those that implement
/// [`Aqm::reconfigure`] (a test checks the two agree). Others (ARED adapts max_p itself;
/// FQ-CoDel and FQ-PIE are schedulers of many queues; the rest keep derived state that a
/// change would leave inconsistent) are refused when the scenario is built.
pub const RECONFIGURABLE: &[&str] = &[
    "red",
    "pi",
    "pie",
    "codel",
    "blue",
    "step_marking",
    "step",
    "pi2",
    "cobalt",
];

/// Whether a change of `kind`'s parameters resets its state unless the event says
/// (`aqm_state`): as Linux's `tc qdisc change` does. `red_change` (net/sched/sch_red.c) calls
/// `red_set_vars`, which zeroes the average and the count; `pie_change` (sch_pie.c) and
/// `codel_change` (sch_codel.c) replace the parameters and keep the variables. PI and BLUE
/// have no Linux qdisc; they keep theirs, as PIE, their closest kin, does. COBALT keeps its
/// variables too: `cake_change` calls `cake_reconfigure`, which sets the tins' parameters
/// (`cake_set_rate`) and leaves each flow's `cobalt_vars` alone (net/sched/sch_cake.c).
pub fn resets_by_default(kind: &str) -> bool {
    kind == "red"
}

/// One change to one link or queue.
pub(crate) enum Action {
    Rate(u32, u64),
    Trace(u32, Arc<DeliveryTrace>),
    Delay(u32, Time),
    Loss(u32, f64),
    State(u32, LinkState),
    /// Taken when carried out; true: the algorithm starts again from the new one's state.
    Aqm(u32, Option<Box<dyn Aqm>>, bool),
}

/// The actions of a run's events, by the index their [`EventKind::Timeline`] carries.
#[derive(Default)]
pub struct Timeline {
    actions: Vec<Action>,
    /// Per link, the highest rate it may send at during the run (its own, the events',
    /// a trace's busiest millisecond), for the bounds the run checks its results against.
    peak_rate: Vec<u64>,
    /// Per link, whether a trace drives it: its utilization is then relative to the trace's
    /// mean rate and may exceed 1 over a window shorter than the trace.
    traced: Vec<bool>,
    /// What events changed of each link they changed (`Link::changes`).
    pub(crate) link_changes: Vec<LinkChanges>,
}

/// What the builder knows of the links to resolve events against.
pub(crate) struct LinkIndex<'a> {
    pub links: &'a [Link],
    /// Each direction of a duplex link and the other.
    pub partner: &'a HashMap<usize, usize>,
    /// Each link's queue as the scenario gave it (`aqm`) and what it was built with.
    pub queues: &'a [(serde_json::Value, QueueEnv)],
    pub custom: Option<&'a dyn CustomAqmFactory>,
}

impl Timeline {
    /// Resolves the scenario's events against the built links: the actions and the events
    /// that carry them out, in the order written (events at the same time happen in that
    /// order).
    pub(crate) fn resolve(
        events: &[EventSpec],
        ix: &LinkIndex,
    ) -> Result<(Timeline, Vec<(Time, EventKind)>), ScenarioError> {
        let mut t = Timeline {
            actions: vec![],
            peak_rate: ix.links.iter().map(|l| l.rate_bps).collect(),
            traced: vec![false; ix.links.len()],
            link_changes: vec![],
        };
        let mut scheduled = vec![];
        for (i, e) in events.iter().enumerate() {
            let path = format!("events[{i}]");
            let mut act = |a: Action| {
                scheduled.push((e.at.0, EventKind::Timeline(t.actions.len() as u32)));
                t.actions.push(a);
            };
            if let Some(name) = &e.link {
                let one = find_link(ix.links, name, &format!("{path}.link"))?;
                let dirs = |field: &str| -> Result<Vec<u32>, ScenarioError> {
                    let other = || {
                        ix.partner.get(&one).copied().ok_or_else(|| {
                            ScenarioError::new(
                                format!("{path}.direction"),
                                format!("link '{name}' has no reverse direction"),
                            )
                        })
                    };
                    Ok(match e.direction_of(field) {
                        EventDirection::Forward => vec![one as u32],
                        EventDirection::Reverse => vec![other()? as u32],
                        EventDirection::Both => match ix.partner.get(&one) {
                            Some(&o) => vec![one as u32, o as u32],
                            None => vec![one as u32],
                        },
                    })
                };
                if let Some(r) = &e.rate {
                    for l in dirs("rate")? {
                        let link = &ix.links[l as usize];
                        if link.is_wifi() || link.is_docsis() {
                            // A Wi-Fi link's rates are its stations' PHY rates
                            // (`link/wifi.rs`); a DOCSIS upstream's grants were checked
                            // against its rate (`link/docsis.rs`).
                            let kind = if link.is_wifi() {
                                "a Wi-Fi link"
                            } else {
                                "a DOCSIS upstream"
                            };
                            return Err(ScenarioError::new(
                                format!("{path}.rate"),
                                format!(
                                    "link '{}' is {kind}: changing its rate is not supported",
                                    link.name
                                ),
                            ));
                        }
                        match r {
                            RateSetting::Fixed(rate) => {
                                t.peak_rate[l as usize] = t.peak_rate[l as usize].max(rate.0);
                                act(Action::Rate(l, rate.0));
                            }
                            RateSetting::Trace { trace, .. } => {
                                let trace = trace.clone().expect("read with the scenario");
                                let peak = trace.peak_rate_bps().max(trace.mean_rate_bps());
                                t.peak_rate[l as usize] = t.peak_rate[l as usize].max(peak);
                                t.traced[l as usize] = true;
                                act(Action::Trace(l, trace));
                            }
                        }
                    }
                }
                if let Some(d) = e.delay {
                    for l in dirs("delay")? {
                        act(Action::Delay(l, d.0));
                    }
                }
                if let Some(p) = e.loss {
                    for l in dirs("loss")? {
                        act(Action::Loss(l, p));
                    }
                }
                if let Some(s) = e.state {
                    for l in dirs("state")? {
                        if ix.links[l as usize].is_docsis() {
                            // Its grants run on their own timers (`link/docsis.rs`).
                            return Err(ScenarioError::new(
                                format!("{path}.state"),
                                format!(
                                    "link '{}' is a DOCSIS upstream: taking it down is not \
                                     supported",
                                    ix.links[l as usize].name
                                ),
                            ));
                        }
                        act(Action::State(l, s));
                    }
                }
            }
            if let (Some(name), Some(set)) = (&e.queue, &e.set) {
                let l = find_link(ix.links, name, &format!("{path}.queue"))?;
                if ix.links[l].is_wifi() {
                    // Its queue is one instance per station (`aqm/per_destination.rs`).
                    return Err(ScenarioError::new(
                        format!("{path}.queue"),
                        format!(
                            "link '{name}' is a Wi-Fi link: changing its AQM's parameters is \
                             not supported"
                        ),
                    ));
                }
                let (aqm, kind) = changed_aqm(&ix.queues[l], set, ix.custom, &path)?;
                let reset = match e.aqm_state {
                    Some(s) => s == AqmState::Reset,
                    None => resets_by_default(&kind),
                };
                act(Action::Aqm(l as u32, Some(aqm), reset));
            }
        }
        Ok((t, scheduled))
    }

    /// Each link's rates and delays over the run, from its own and the changes `scheduled`
    /// (what [`Timeline::resolve`] returned with this timeline) make.
    pub(crate) fn link_schedules(
        &self,
        scheduled: &[(Time, EventKind)],
        links: &[Link],
    ) -> Vec<LinkSchedule> {
        let mut out: Vec<LinkSchedule> = links
            .iter()
            .map(|l| LinkSchedule::new(l.rate_bps, l.delay))
            .collect();
        for &(at, kind) in scheduled {
            let EventKind::Timeline(i) = kind else {
                continue;
            };
            match &self.actions[i as usize] {
                Action::Rate(l, r) => out[*l as usize].set_rate(at, Regime::Fixed(*r)),
                Action::Trace(l, t) => out[*l as usize].set_rate(at, Regime::Trace(t.clone())),
                Action::Delay(l, d) => out[*l as usize].set_delay(at, *d),
                Action::Loss(..) | Action::State(..) | Action::Aqm(..) => {}
            }
        }
        out
    }

    /// True when the scenario has no `[[events]]` acting during the run: no link is ever
    /// changed (the simulator's plain event loop relies on it).
    pub(crate) fn is_empty(&self) -> bool {
        self.actions.is_empty() && self.link_changes.is_empty()
    }

    pub(crate) fn link_changes(&self) -> &[LinkChanges] {
        &self.link_changes
    }

    /// The measurement restarts (end of the warm-up).
    pub(crate) fn restart_measurement(&mut self) {
        for c in &mut self.link_changes {
            c.down_drops = 0;
        }
    }

    /// The rate a link's throughput may not exceed, and whether its utilization is bounded
    /// by 1 (not for a trace-driven link, see `traced`).
    pub(crate) fn bounds(&self, link: usize, rate_bps: u64) -> (u64, bool) {
        match self.peak_rate.get(link) {
            Some(&peak) => (peak.max(rate_bps), !self.traced[link]),
            None => (rate_bps, true),
        }
    }
}

fn find_link(links: &[Link], name: &str, path: &str) -> Result<usize, ScenarioError> {
    let names: Vec<&str> = links.iter().map(|l| l.name.as_str()).collect();
    crate::scenario::capture::link_index(&names, name, path)
}

/// The queue's algorithm built again from its parameters with `set` applied: the same
/// checks as the scenario's own (names, bounds), with errors at `events[i].set.<name>`; and
/// its kind.
fn changed_aqm(
    queue: &(serde_json::Value, QueueEnv),
    set: &serde_json::Map<String, serde_json::Value>,
    custom: Option<&dyn CustomAqmFactory>,
    path: &str,
) -> Result<(Box<dyn Aqm>, String), ScenarioError> {
    let (aqm, env) = queue;
    let mut table = match aqm {
        serde_json::Value::String(kind) => {
            let mut m = serde_json::Map::new();
            m.insert("kind".into(), kind.clone().into());
            m
        }
        serde_json::Value::Object(m) => m.clone(),
        _ => unreachable!("the queue was built from it"),
    };
    let kind = table
        .get("kind")
        .and_then(|k| k.as_str())
        .unwrap_or_default()
        .to_string();
    if !RECONFIGURABLE.contains(&kind.as_str()) {
        return Err(ScenarioError::new(
            format!("{path}.queue"),
            format!(
                "the parameters of '{kind}' cannot change during a run; those of {} can",
                RECONFIGURABLE.join(", ")
            ),
        ));
    }
    table.extend(set.clone());
    let built = build_queue(
        &serde_json::Value::Object(table),
        env,
        custom,
        &format!("{path}.set"),
    )?;
    Ok((built.into_aqm().expect("a FIFO algorithm"), kind))
}

/// What an action does to its link when its time comes.
pub(crate) enum Change {
    Rate(u64),
    Trace(TraceClock),
    Delay(Time),
    Loss(f64),
    Down(bool),
    Aqm(Box<dyn Aqm>, bool),
}

impl Change {
    pub(crate) fn apply(self, link: &mut Link, cx: &mut LinkCtx) {
        match self {
            Change::Rate(r) => link.set_rate(r, cx),
            Change::Trace(clock) => link.set_trace(clock, cx),
            Change::Delay(d) => link.set_delay(d),
            Change::Loss(p) => link.loss = p,
            Change::Down(down) => link.set_down(down, cx),
            Change::Aqm(aqm, true) => link.queue.replace_aqm(aqm),
            Change::Aqm(aqm, false) => {
                let ok = link.queue.reconfigure_aqm(aqm);
                debug_assert!(ok, "checked when the scenario was built");
            }
        }
    }
}

impl Timeline {
    /// Action `i` of the timeline, due at `now`: its link and what it does to it (the
    /// simulator applies it, `Simulator::run_timeline_action`).
    pub(crate) fn take_change(&mut self, i: u32, now: Time) -> (u32, Change) {
        match &mut self.actions[i as usize] {
            Action::Rate(l, r) => (*l, Change::Rate(*r)),
            // The trace's time 0 is the event's time.
            Action::Trace(l, tr) => (*l, Change::Trace(TraceClock::new(tr.clone(), now))),
            Action::Delay(l, d) => (*l, Change::Delay(*d)),
            Action::Loss(l, p) => (*l, Change::Loss(*p)),
            Action::State(l, s) => (*l, Change::Down(*s == LinkState::Down)),
            Action::Aqm(l, aqm, reset) => (
                *l,
                Change::Aqm(aqm.take().expect("an event runs once"), *reset),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::params::QueueEnv;
    use crate::aqm::QueueLimit;

    fn built(kind: &str) -> crate::aqm::LinkQueue {
        let env = QueueEnv {
            link_rate_bps: 10_000_000,
            link_delay: 10_000_000,
            limit: QueueLimit::Packets(50),
        };
        build_queue(&serde_json::json!(kind), &env, None, "q").unwrap()
    }

    /// The list of changeable algorithms is the list of those that implement `reconfigure`.
    #[test]
    fn reconfigurable_is_what_implements_reconfigure() {
        for info in crate::aqm::registry::REGISTRY {
            let mut q = built(info.name);
            let Some(next) = built(info.name).into_aqm() else {
                assert!(!RECONFIGURABLE.contains(&info.name), "{}", info.name);
                continue;
            };
            assert_eq!(
                q.reconfigure_aqm(next),
                RECONFIGURABLE.contains(&info.name),
                "{}",
                info.name
            );
        }
    }
}
