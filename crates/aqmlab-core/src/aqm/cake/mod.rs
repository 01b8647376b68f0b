//! CAKE: Common Applications Kept Enhanced, Linux's `sch_cake` (Hoeiland-Joergensen, Taht,
//! Morton, "Piece of CAKE: a comprehensive queue management solution for home gateways",
//! IEEE LANMAN 2018).
//!
//! Source: Linux 6.1 `net/sched/sch_cake.c` (the reference kernel's), function by function:
//! `cake_init` and `cake_change` (parameters and defaults), `cake_reconfigure` (the tins and
//! the memory limit), `cake_enqueue`, `cake_dequeue`, `cake_drop` ([`qdisc`]); `cake_hash`
//! ([`hash`], [`set_ways`], [`hosts`]); `cake_get_flow_quantum` ([`hosts`]);
//! `cake_config_*`, `cake_set_rate`, `cake_select_tin` ([`tins`]); `cake_calc_overhead`,
//! `cake_advance_shaper` ([`shaper`]); `cake_ack_filter` ([`ack_filter`]); the `cobalt_*`
//! AQM, one per flow queue, is aqmlab's COBALT (`aqm/cobalt.rs`) at each tin's parameters.
//! Each module's header says what it reads and how it maps onto the model: a flow is the
//! packet's `flow` id (the 5-tuple's stand-in), a host its `src` / `dst` node, a DSCP the
//! packet's `dscp` (set per flow, `[[flows]] dscp`).
//!
//! The shaper: with `bandwidth` set, CAKE sends at most that rate (of adjusted lengths) and
//! holds packets back between departures; the link then takes them when CAKE says
//! (`QueueDiscipline::wake_at`, Linux's qdisc watchdog). Unset (Linux's default,
//! "unlimited"), CAKE does not shape: the link's transmitter paces, COBALT runs at the given
//! target and interval (no MTU-time rules: `cake_set_rate` with rate 0) and the tins share by
//! DRR with their weights.
//!
//! The memory limit (`buffer_limit`, `cake_reconfigure`): `memlimit` if set; else, with a
//! bandwidth, max(4 x bandwidth (bytes/s) x rtt, 4 MiB), unlimited without; then at most
//! max(the qdisc's packet limit x `mtu`, memlimit). The packet limit is the queue's
//! (`limit`, as every aqmlab discipline takes it; Linux's `sch->limit` is 10240); a byte limit
//! is taken as it is. Over it, the fattest queue loses its head.
//!
//! Parameters (Linux's defaults and units, tc-cake(8)'s names):
//! - `bandwidth` (unset: unlimited; bit/s): the shaper's rate (above the link's, the link paces);
//! - `rtt` (100 ms, at most 4.29 s): COBALT's interval before `cake_set_rate`; `target` (5 ms);
//! - `diffserv` ("diffserv3"): "besteffort", "diffserv3", "diffserv4", "diffserv8",
//!   "precedence";
//! - `isolation` ("triple-isolate"): "flowblind", "srchost", "dsthost", "hosts", "flows",
//!   "dual-srchost", "dual-dsthost", "triple-isolate";
//! - `ack_filter` ("off"): "off", "on", "aggressive";
//! - `overhead` (unset: raw; bytes, -64..=256), `mpu` (0 bytes, 0..=256), `atm` ("none"):
//!   "none", "atm", "ptm";
//! - `memlimit` (unset; bytes); `wash` (false); `mtu` (1514 bytes: `psched_mtu` of an
//!   Ethernet device, the MTU time's and the memory limit's); `perturbation` (0: the hash's).
//!
//! No `ce_threshold` or other L4S option: sch_cake 6.1 has none (its COBALT marks CE on
//! CoDel's schedule only).

pub mod ack_filter;
pub mod hash;
pub mod hosts;
pub mod lists;
pub mod qdisc;
pub mod set_ways;
pub mod shaper;
pub mod tins;

#[cfg(test)]
mod qdisc_tests;

use super::params::{doc, AqmParams, ParamDoc, QueueEnv};
use super::{QueueDiscipline, QueueLimit};
use crate::units::{Bytes, Duration, Rate, ScenarioError};
use ack_filter::AckFilter;
use hash::Isolation;
use qdisc::{Cake, CakeConfig, Flow};
use serde::{Deserialize, Serialize};
use shaper::{Framing, Overhead};
use tins::Diffserv;

pub const PARAMS: &[ParamDoc] = &[
    doc(
        "bandwidth",
        "unset",
        "bit/s",
        "the shaper's rate (of adjusted lengths); unset: unlimited, the link paces",
    ),
    doc("rtt", "100ms", "s", "COBALT's interval before the low-rate scaling (tc rtt)")
        .with_plausible(1e-3, 4.0),
    doc("target", "5ms", "s", "COBALT's target before the low-rate scaling").with_plausible(1e-5, 0.5),
    doc(
        "diffserv",
        "diffserv3",
        "\"besteffort\" | \"diffserv3\" | \"diffserv4\" | \"diffserv8\" | \"precedence\"",
        "the tins and the DSCP-to-tin map",
    ),
    doc(
        "isolation",
        "triple-isolate",
        "\"flowblind\" | \"srchost\" | \"dsthost\" | \"hosts\" | \"flows\" | \"dual-srchost\" | \"dual-dsthost\" | \"triple-isolate\"",
        "what is isolated: flows (flow ids), hosts (src/dst nodes), or flows with per-host fairness",
    ),
    doc(
        "ack_filter",
        "off",
        "\"off\" | \"on\" | \"aggressive\"",
        "drop pure ACKs a later ACK of the same flow makes redundant",
    ),
    doc(
        "overhead",
        "unset",
        "bytes",
        "bytes added to each IP packet's size (-64..256); unset: raw, the 14-byte Ethernet header counted",
    ),
    doc("mpu", "0", "bytes", "the least length a packet is charged (0..256)"),
    doc(
        "atm",
        "none",
        "\"none\" | \"atm\" | \"ptm\"",
        "link-layer framing: ATM cells (48 in 53) or PTM (64/65)",
    ),
    doc(
        "memlimit",
        "unset",
        "bytes",
        "the memory limit; unset: 4 x bandwidth x rtt (at least 4 MiB), or none unshaped, capped by limit x mtu",
    ),
    doc(
        "wash",
        "false",
        "bool",
        "clear the DSCP after choosing the tin",
    ),
    doc(
        "mtu",
        "1514",
        "bytes",
        "the device MTU with its header (psched_mtu): MTU time and memory limit",
    ),
    doc("perturbation", "0", "integer", "flow and host hash perturbation"),
];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct CakeParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Rate>,
    pub rtt: Duration,
    pub target: Duration,
    pub diffserv: Diffserv,
    pub isolation: Isolation,
    pub ack_filter: AckFilter,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overhead: Option<i32>,
    pub mpu: u32,
    pub atm: Framing,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memlimit: Option<Bytes>,
    pub wash: bool,
    pub mtu: u32,
    pub perturbation: u64,
}

/// `cake_init`'s defaults.
impl Default for CakeParams {
    fn default() -> Self {
        CakeParams {
            bandwidth: None,
            rtt: Duration(100_000_000),
            target: Duration(5_000_000),
            diffserv: Diffserv::Diffserv3,
            isolation: Isolation::TripleIsolate,
            ack_filter: AckFilter::Off,
            overhead: None,
            mpu: 0,
            atm: Framing::None,
            memlimit: None,
            wash: false,
            mtu: 1514,
            perturbation: 0,
        }
    }
}

/// Memory of one tin's flow state, allocated up front: per queue its flow (packets' ring
/// header, deficit, COBALT), its slot (tag, state, hosts), a host entry (two tags, two counts:
/// 12 bytes) and its list links (6 bytes).
pub const BYTES_PER_TIN: u64 = (set_ways::CAKE_QUEUES
    * (std::mem::size_of::<Flow>() + std::mem::size_of::<hash::FlowSlot>() + 12 + 6))
    as u64;
/// The most tins (`CAKE_MAX_TINS`).
pub const MAX_TINS: u64 = 8;

/// `cake_reconfigure`'s `buffer_limit`, bytes, for a qdisc of `rate` bytes/s.
pub fn buffer_limit(cfg: &CakeParams, rate: u64, limit: QueueLimit) -> u64 {
    let auto = match (cfg.memlimit, rate) {
        (Some(m), _) => m.0,
        // rate x interval (us) / (10^6 / 4): four times the bytes of an rtt at the rate.
        (None, r) if r > 0 => {
            ((r as u128 * (cfg.rtt.0 / 1_000) as u128 / 250_000) as u64).max(4 << 20)
        }
        (None, _) => u64::MAX,
    };
    let sized = match limit {
        QueueLimit::Packets(n) => n as u64 * cfg.mtu as u64,
        QueueLimit::Bytes(b) => b,
    };
    auto.min(sized.max(cfg.memlimit.map_or(0, |m| m.0)))
}

pub fn build(p: &AqmParams, env: &QueueEnv) -> Result<Box<dyn QueueDiscipline>, ScenarioError> {
    Ok(Box::new(cake(p, env)?))
}

/// The qdisc from its parameters, checked.
pub fn cake(p: &AqmParams, env: &QueueEnv) -> Result<Cake, ScenarioError> {
    let cfg: CakeParams = p.parse()?;
    p.require(cfg.rtt.0 > 0, "rtt", || "must be > 0".into())?;
    p.require(cfg.target.0 > 0, "target", || "must be > 0".into())?;
    p.require(cfg.mtu > 0, "mtu", || "must be > 0".into())?;
    if let Some(o) = cfg.overhead {
        p.require((-64..=256).contains(&o), "overhead", || {
            format!("must be in -64..=256 bytes (tc-cake's range), got {o}")
        })?;
    }
    p.require(cfg.mpu <= 256, "mpu", || {
        format!(
            "must be in 0..=256 bytes (tc-cake's range), got {}",
            cfg.mpu
        )
    })?;
    if let Some(m) = cfg.memlimit {
        p.require(m.0 > 0, "memlimit", || "must be > 0 bytes".into())?;
    }
    // tc gives the kernel bytes per second.
    let rate = cfg.bandwidth.map_or(0, |r| r.0 / 8);
    if let Some(b) = cfg.bandwidth {
        p.require(rate > 0, "bandwidth", || {
            format!(
                "must be at least 8 bit/s (CAKE counts bytes per second), got {}",
                b.0
            )
        })?;
    }
    let tins = tins::configure(cfg.diffserv, rate, cfg.mtu, cfg.target.0, cfg.rtt.0);
    // `reciprocal_scale` takes the interval as a u32 of nanoseconds: a longer rtt is refused,
    // as COBALT's interval is. A tin's interval raised past it by `cake_set_rate` at a very
    // low rate (diffserv3's bulk tin below 135 kb/s) is run as Linux runs it: truncated to 32
    // bits in the control law (`cobalt.rs`'s `scaled`), whole in the activity timeout.
    p.require(cfg.rtt.0 <= u32::MAX as u64, "rtt", || {
        format!(
            "must be at most 4.294967295 s (CAKE scales it in 32 bits of ns), got {} s",
            cfg.rtt.secs()
        )
    })?;
    let config = CakeConfig {
        diffserv: cfg.diffserv,
        isolation: cfg.isolation,
        ack_filter: cfg.ack_filter,
        overhead: Overhead {
            overhead: cfg.overhead,
            mpu: cfg.mpu,
            framing: cfg.atm,
        },
        wash: cfg.wash,
        perturbation: cfg.perturbation,
        rate,
        tins,
        buffer_limit: buffer_limit(&cfg, rate, env.limit),
    };
    Ok(Cake::new(config))
}
