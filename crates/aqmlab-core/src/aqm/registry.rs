//! Every queue discipline aqmlab knows, by name, with its source and parameters; the one
//! place a scenario's `aqm = "..."` is turned into a running discipline.

use super::params::{AqmParams, ParamDoc, QueueEnv};
use super::state_docs::{self, StateDoc};
use super::{
    ared, blue, cake, cobalt, codel, droptail, dsred, dualpi2, fq, fq_codel, fq_pie, hybrid_red,
    lpf_oda, newque, orange, pi, pi2, pie, qvared, red, rem, step_marking,
};
use super::{Aqm, FifoQueue, LinkQueue, QueueDiscipline};
use crate::units::check_period;
use crate::units::error::join_path;
use crate::units::ScenarioError;

/// Builds a single-FIFO algorithm from its parameters and the link it serves.
pub type BuildAqm = fn(&AqmParams, &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError>;
/// Builds a whole queue discipline (a scheduler such as FQ-CoDel).
pub type BuildDiscipline =
    fn(&AqmParams, &QueueEnv) -> Result<Box<dyn QueueDiscipline>, ScenarioError>;

/// How an algorithm is built: most are an [`Aqm`] in a [`FifoQueue`]; schedulers such as
/// FQ-CoDel build a whole [`QueueDiscipline`].
#[derive(Clone, Copy)]
pub enum Builder {
    Fifo(BuildAqm),
    Discipline(BuildDiscipline),
}

#[derive(Clone, Copy)]
pub struct AqmInfo {
    pub name: &'static str,
    pub title: &'static str,
    pub source: &'static str,
    pub ecn: bool,
    pub params: &'static [ParamDoc],
    /// The variables it records in the time series (see [`state_docs`]).
    pub state: &'static [StateDoc],
    pub builder: Builder,
    /// The parameter (one of `params`) that sets the period of its periodic timer, if it has
    /// one: where an error about a period below [`crate::units::MIN_PERIOD`] points. Every discipline's
    /// timer is checked, declared or not (`check_timer`); a test checks that the disciplines
    /// with a timer are those that declare one.
    pub timer: Option<&'static str>,
}

fn build_droptail(p: &AqmParams, _env: &QueueEnv) -> Result<Box<dyn Aqm>, ScenarioError> {
    let _: droptail::DropTailParams = p.parse()?;
    Ok(Box::new(droptail::DropTail))
}

/// Every built-in discipline, in the order `aqmlab compare` shows them.
pub static REGISTRY: &[AqmInfo] = &[
    AqmInfo {
        name: "droptail",
        title: "DropTail (tail drop FIFO)",
        source: "ns-2 queue/drop-tail.cc",
        ecn: false,
        params: &[],
        state: &[],
        builder: Builder::Fifo(build_droptail),
        timer: None,
    },
    AqmInfo {
        name: "red",
        title: "Random Early Detection (gentle by default)",
        source: "Floyd & Jacobson, IEEE/ACM ToN 1993; ns-2 queue/red.cc",
        ecn: true,
        params: red::RED_PARAM_DOCS,
        state: state_docs::RED,
        builder: Builder::Fifo(red::build),
        timer: None,
    },
    AqmInfo {
        name: "ared",
        title: "Adaptive RED",
        source: "Floyd, Gummadi & Shenker 2001, Adaptive RED: an algorithm for increasing the robustness of RED's active queue management",
        ecn: true,
        params: ared::PARAMS,
        state: state_docs::ARED,
        builder: Builder::Fifo(ared::build),
        timer: None,
    },
    AqmInfo {
        name: "lpf_oda",
        title: "LPF/ODA: RED with over-drop avoidance",
        source: "Zheng & Atiquzzaman 2001/2002; as described by Haider & Harris (Hybrid RED paper, sec. II)",
        ecn: true,
        params: lpf_oda::PARAMS,
        state: state_docs::HYBRID_RED,
        builder: Builder::Fifo(lpf_oda::build),
        timer: None,
    },
    AqmInfo {
        name: "hybrid_red",
        title: "Hybrid RED",
        source: "Haider & Harris, A Hybrid RED algorithm (seed 002), Algorithm 1, eq. 10",
        ecn: true,
        params: hybrid_red::PARAMS,
        state: state_docs::HYBRID_RED,
        builder: Builder::Fifo(hybrid_red::build),
        timer: None,
    },
    AqmInfo {
        name: "qvared",
        title: "QVARED: queue-variation adaptive RED",
        source: "Seol & Lee, A study on an adaptive AQM using queue length variation (seed 003)",
        ecn: true,
        params: qvared::PARAMS,
        state: state_docs::QVARED,
        builder: Builder::Fifo(qvared::build),
        timer: None,
    },
    AqmInfo {
        name: "dsred",
        title: "DSRED: double-slope RED",
        source: "Zheng & Atiquzzaman, DSRED: a new queue management scheme (seed 004), sec. 3",
        ecn: true,
        params: dsred::PARAMS,
        state: state_docs::DSRED,
        builder: Builder::Fifo(dsred::build),
        timer: None,
    },
    AqmInfo {
        name: "orange",
        title: "Orange: threshold + exponential drop timer",
        source: "Catalkaya & Sis, Analysis of Orange AQM (seed 000), sec. 3",
        ecn: true,
        params: orange::PARAMS,
        state: state_docs::ORANGE,
        builder: Builder::Fifo(orange::build),
        timer: None,
    },
    AqmInfo {
        name: "newque",
        title: "NEWQUE: rate-based marking with front marking",
        source: "Santhi & Natarajan, NEWQUE (seed 001), sec. 3",
        ecn: true,
        params: newque::PARAMS,
        state: state_docs::NEWQUE,
        builder: Builder::Fifo(newque::build),
        timer: None,
    },
    AqmInfo {
        name: "blue",
        title: "BLUE",
        source: "Feng, Kandlur, Saha & Shin 2002, The BLUE active queue management algorithms",
        ecn: true,
        params: blue::PARAMS,
        state: state_docs::BLUE,
        builder: Builder::Fifo(blue::build),
        timer: None,
    },
    AqmInfo {
        name: "pi",
        title: "PI controller",
        source: "Hollot, Misra, Towsley & Gong 2001, On designing improved controllers for AQM routers supporting TCP flows",
        ecn: true,
        params: pi::PARAMS,
        state: state_docs::PI,
        builder: Builder::Fifo(pi::build),
        timer: Some("w"),
    },
    AqmInfo {
        name: "rem",
        title: "REM: random exponential marking",
        source: "Athuraliya, Low, Li & Yin 2001, REM: active queue management",
        ecn: true,
        params: rem::PARAMS,
        state: state_docs::REM,
        builder: Builder::Fifo(rem::build),
        timer: Some("interval"),
    },
    AqmInfo {
        name: "codel",
        title: "CoDel",
        source: "RFC 8289; Linux include/net/codel_impl.h",
        ecn: true,
        params: codel::PARAMS,
        state: state_docs::CODEL,
        builder: Builder::Fifo(codel::build),
        timer: None,
    },
    AqmInfo {
        name: "pie",
        title: "PIE",
        source: "RFC 8033; Linux net/sched/sch_pie.c and include/net/pie.h; Cisco ns-2 queue/pie.cc (burst rule \"ns2\")",
        ecn: true,
        params: pie::PARAMS,
        state: state_docs::PIE,
        builder: Builder::Fifo(pie::build),
        timer: Some("t_update"),
    },
    AqmInfo {
        name: "fq_codel",
        title: "FQ-CoDel",
        source: "RFC 8290; Linux net/sched/sch_fq_codel.c",
        ecn: true,
        params: fq_codel::PARAMS,
        state: state_docs::FQ_CODEL,
        builder: Builder::Discipline(fq_codel::build),
        timer: None,
    },
    AqmInfo {
        name: "step_marking",
        title: "Step marking at K (DCTCP's, L4S's step; alias \"step\")",
        source: "Alizadeh et al., DCTCP, SIGCOMM 2010, sec. 3.1; RFC 8257 sec. 3.1 (Linux RED ecn, min = max = K); RFC 9332 and Linux sch_dualpi2 do_step_aqm (k_sojourn)",
        ecn: true,
        params: step_marking::PARAMS,
        state: state_docs::STEP_MARKING,
        builder: Builder::Fifo(step_marking::build),
        timer: None,
    },
    AqmInfo {
        name: "pi2",
        title: "PI2: PI on queue delay with a squared output",
        source: "De Schepper et al., PI2: a linearized AQM for both Classic and Scalable TCP, CoNEXT 2016; RFC 9332 A.1; Linux net/sched/sch_dualpi2.c",
        ecn: true,
        params: pi2::PARAMS,
        state: state_docs::PI2,
        builder: Builder::Fifo(pi2::build),
        timer: Some("t_update"),
    },
    AqmInfo {
        name: "dualpi2",
        title: "DualPI2: coupled dual-queue AQM for L4S",
        source: "RFC 9332; Linux net/sched/sch_dualpi2.c",
        ecn: true,
        params: dualpi2::PARAMS,
        state: state_docs::DUALPI2,
        builder: Builder::Discipline(dualpi2::build),
        timer: Some("t_update"),
    },
    AqmInfo {
        name: "fq_pie",
        title: "FQ-PIE",
        source: "Linux net/sched/sch_fq_pie.c; PIE per flow queue as RFC 8033 and Linux include/net/pie.h",
        ecn: true,
        params: fq_pie::PARAMS,
        state: state_docs::FQ_PIE,
        builder: Builder::Discipline(fq_pie::build),
        timer: Some("t_update"),
    },
    AqmInfo {
        name: "fq",
        title: "FQ: Linux's fair queue scheduler (at a router), with its CE threshold",
        source: "Linux net/sched/sch_fq.c (fq_classify, fq_enqueue, fq_dequeue, fq_init)",
        // No `ecn` switch: it marks only through ce_threshold, and drops otherwise.
        ecn: false,
        params: fq::PARAMS,
        state: state_docs::FQ,
        builder: Builder::Discipline(fq::build),
        timer: None,
    },
    AqmInfo {
        name: "cobalt",
        title: "COBALT (CoDel + BLUE, single queue)",
        source: "Linux net/sched/sch_cake.c cobalt_* functions; ns-3 traffic-control cobalt-queue-disc.cc",
        ecn: true,
        params: cobalt::PARAMS,
        state: state_docs::COBALT,
        builder: Builder::Fifo(cobalt::build),
        timer: None,
    },
    AqmInfo {
        name: "cake",
        title: "CAKE: DRR++ over flows and hosts in Diffserv tins, COBALT per flow, shaper, ACK filter",
        source: "Linux net/sched/sch_cake.c (cake_enqueue, cake_dequeue, cake_hash, cake_set_rate, cake_ack_filter); Hoeiland-Joergensen, Taht & Morton, Piece of CAKE, IEEE LANMAN 2018",
        // No `ecn` switch: CAKE always CE-marks ECT packets on COBALT's CoDel signal (sch_cake.c
        // has no option to drop them instead).
        ecn: false,
        params: cake::PARAMS,
        state: state_docs::CAKE,
        builder: Builder::Discipline(cake::build),
        timer: None,
    },
];

/// Other names a scenario may use for a built-in algorithm: (alias, name).
pub static ALIASES: &[(&str, &str)] = &[("step", "step_marking")];

/// The registry's name for `name`, which may be an alias.
pub fn canonical_name(name: &str) -> &str {
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, n)| n)
}

/// Builds algorithms the core does not know, e.g. ones prototyped in Python. Returns None for
/// names it does not know either.
pub trait CustomAqmFactory: Send + Sync {
    fn build(
        &self,
        name: &str,
        params: &AqmParams,
        env: &QueueEnv,
    ) -> Option<Result<Box<dyn Aqm>, ScenarioError>>;
}

pub fn lookup(name: &str) -> Option<&'static AqmInfo> {
    let name = canonical_name(name);
    REGISTRY.iter().find(|i| i.name == name)
}

/// Builds the discipline a queue spec names. `aqm` is either a name ("red") or a table with
/// `kind` and the parameters; `path` locates it in the scenario for error messages.
pub fn build_queue(
    aqm: &serde_json::Value,
    env: &QueueEnv,
    custom: Option<&dyn CustomAqmFactory>,
    path: &str,
) -> Result<LinkQueue, ScenarioError> {
    let (name, params) = match aqm {
        serde_json::Value::String(s) => (s.clone(), serde_json::Value::Object(Default::default())),
        serde_json::Value::Object(map) => {
            let kind = map.get("kind").ok_or_else(|| {
                ScenarioError::new(
                    format!("{path}.kind"),
                    "missing: name the algorithm, e.g. kind = \"red\"",
                )
            })?;
            let kind = kind
                .as_str()
                .ok_or_else(|| ScenarioError::new(format!("{path}.kind"), "must be a string"))?;
            let mut rest = map.clone();
            rest.remove("kind");
            (kind.to_string(), serde_json::Value::Object(rest))
        }
        _ => {
            return Err(ScenarioError::new(
                path,
                "expected an algorithm name such as \"red\" or a table with `kind`",
            ))
        }
    };
    let params = AqmParams::new(params, path);
    if let Some(info) = lookup(&name) {
        let queue = match info.builder {
            Builder::Fifo(f) => LinkQueue::Fifo(FifoQueue::new(
                f(&params, env)?,
                env.limit,
                env.link_rate_bps,
            )),
            Builder::Discipline(f) => LinkQueue::Scheduler(f(&params, env)?),
        };
        check_timer(&queue, info, &params)?;
        return Ok(queue);
    }
    if let Some(factory) = custom {
        if let Some(result) = factory.build(&name, &params, env) {
            let queue = LinkQueue::Fifo(FifoQueue::new(result?, env.limit, env.link_rate_bps));
            if let Some(period) = queue.timer_interval() {
                check_period(path, period)?;
            }
            return Ok(queue);
        }
    }
    let known: Vec<&str> = REGISTRY.iter().map(|i| i.name).collect();
    Err(ScenarioError::new(
        if matches!(aqm, serde_json::Value::Object(_)) {
            format!("{path}.kind")
        } else {
            path.to_string()
        },
        crate::units::suggest::with_suggestion(
            format!("unknown AQM '{name}'; known: {}", known.join(", ")),
            &name,
            known.iter().copied(),
        ),
    ))
}

/// A built discipline's timer period against [`crate::units::MIN_PERIOD`], whichever parameter (or
/// default, or combination) set it: checked here, where every scenario's queue and every
/// event's `set` is built, so that no algorithm can leave it out. The error names the
/// parameter the algorithm declares (`AqmInfo::timer`).
fn check_timer(queue: &LinkQueue, info: &AqmInfo, params: &AqmParams) -> Result<(), ScenarioError> {
    let Some(period) = queue.timer_interval() else {
        return Ok(());
    };
    let Some(name) = info.timer else {
        return check_period(&params.path, period);
    };
    let in_seconds = info.params.iter().any(|d| d.name == name && d.unit == "s");
    check_period(&join_path(&params.path, name), period).map_err(|e| {
        if in_seconds {
            e
        } else {
            // A frequency (PI's `w`): say that it is the period it gives that is refused.
            ScenarioError::new(e.path, format!("sets the timer's period: {}", e.message))
        }
    })
}

#[cfg(test)]
mod tests {
    /// A parameter's error names its field under the queue's path (PI's `q_ref` here).
    #[test]
    fn invalid_parameters_name_the_field() {
        let env = crate::aqm::test_rig::env(300);
        let e = super::build_queue(
            &serde_json::json!({"kind": "pi", "q_ref": -3}),
            &env,
            None,
            "q.aqm",
        )
        .err()
        .unwrap();
        assert_eq!(e.path, "q.aqm.q_ref");
    }
}
