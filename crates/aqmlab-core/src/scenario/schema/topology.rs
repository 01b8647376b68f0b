//! The topology section: a dumbbell or a graph, its links and their queues.

use crate::link::docsis::DocsisParams;
use crate::link::netem::NetemParams;
use crate::link::wifi::WifiParams;
use crate::units::error::{from_value, ScenarioError};
use crate::units::limits::{MAX_GRAPH_LINKS, MAX_NODES};
use crate::units::{Bytes, Duration, Rate};
use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::kind_of;
use crate::scenario::flow_common::one_or_list;

// A scenario holds one topology, read once; boxing the larger variant would save nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Topology {
    Dumbbell(DumbbellSpec),
    Graph(GraphSpec),
}

/// How many packets or bytes a queue may hold waiting: a number of packets, or a string with
/// a unit ("50p", "64KB", "60000B").
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LimitSpec {
    Packets(u32),
    Bytes(u64),
}

/// A number of packets, or bytes with their unit ("64KB"), as written.
impl Serialize for LimitSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LimitSpec::Packets(n) => s.serialize_u32(*n),
            LimitSpec::Bytes(b) => Bytes(*b).serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for LimitSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = Value::deserialize(d)?;
        let bad = || {
            D::Error::custom(format!(
                "expected a number of packets (e.g. 50) or a size such as \"64KB\", got {v}"
            ))
        };
        match &v {
            Value::Number(n) => {
                let k = n.as_u64().ok_or_else(bad)?;
                if k == 0 || k > u32::MAX as u64 {
                    return Err(D::Error::custom(format!(
                        "must be between 1 and {} packets, got {k}",
                        u32::MAX
                    )));
                }
                Ok(LimitSpec::Packets(k as u32))
            }
            Value::String(s) => {
                let t = s.trim();
                for suffix in ["packets", "pkts", "p"] {
                    if let Some(num) = t.strip_suffix(suffix) {
                        let k: u32 = num.trim().parse().map_err(|_| bad())?;
                        if k == 0 {
                            return Err(D::Error::custom("must be at least 1 packet"));
                        }
                        return Ok(LimitSpec::Packets(k));
                    }
                }
                let b = crate::units::parse_bytes(t).map_err(D::Error::custom)?;
                if b == 0 {
                    return Err(D::Error::custom("must be at least 1 byte"));
                }
                Ok(LimitSpec::Bytes(b))
            }
            _ => Err(bad()),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    /// Waiting packets (or bytes) the buffer holds, excluding the packet in service.
    #[serde(default = "default_limit")]
    pub limit: LimitSpec,
    /// The algorithm: a name ("red") or a table with `kind` and its parameters.
    #[serde(default = "default_aqm")]
    pub aqm: Value,
}

fn default_limit() -> LimitSpec {
    LimitSpec::Packets(50)
}

fn default_aqm() -> Value {
    Value::String("droptail".into())
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec {
            limit: default_limit(),
            aqm: default_aqm(),
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub rate: Rate,
    #[serde(default)]
    pub delay: Duration,
    /// Bernoulli loss probability of each transmitted packet.
    #[serde(default)]
    pub loss: f64,
    /// Which direction(s) `loss` applies to (default: forward only).
    #[serde(default)]
    pub loss_direction: LossDirection,
    #[serde(default)]
    pub queue: QueueSpec,
    /// Queue of the opposite direction (default: DropTail with `queue`'s limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverse_queue: Option<QueueSpec>,
    /// Jitter and slots on the forward direction's delivery, as Linux's netem (`link/netem.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netem: Option<NetemParams>,
    /// The same on the reverse direction (the ACKs of the forward's data).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_netem: Option<NetemParams>,
    /// The forward direction is a Wi-Fi medium: aggregates to stations in transmit
    /// opportunities (`link/wifi.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wifi: Option<WifiParams>,
    /// The same on the reverse direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_wifi: Option<WifiParams>,
    /// The forward direction is a DOCSIS upstream: packets leave in grants (`link/docsis.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docsis: Option<DocsisParams>,
    /// The same on the reverse direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_docsis: Option<DocsisParams>,
}

/// The direction(s) of a duplex link that its random `loss` applies to. Forward is the
/// link's from -> to direction (the dumbbell's bottleneck: senders to receivers, where the
/// data goes); reverse carries the ACKs. Before issue 10 the loss applied to both, so a
/// "1 % loss" bottleneck also lost 1 % of the ACKs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LossDirection {
    #[default]
    Forward,
    Reverse,
    Both,
}

impl LossDirection {
    /// The loss probabilities of the forward and the reverse direction.
    pub fn split(self, loss: f64) -> (f64, f64) {
        match self {
            LossDirection::Forward => (loss, 0.0),
            LossDirection::Reverse => (0.0, loss),
            LossDirection::Both => (loss, loss),
        }
    }
}

/// One value for all, or one per item (cycled if shorter).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(
            match one_or_list(Value::deserialize(d)?).map_err(D::Error::custom)? {
                Ok(one) => OneOrMany::One(one),
                Err(many) => OneOrMany::Many(many),
            },
        )
    }
}

impl<T: Clone> OneOrMany<T> {
    pub fn get(&self, i: usize) -> T {
        match self {
            OneOrMany::One(v) => v.clone(),
            OneOrMany::Many(vs) => vs[i % vs.len()].clone(),
        }
    }
    pub fn len(&self) -> usize {
        match self {
            OneOrMany::One(_) => 1,
            OneOrMany::Many(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AccessSpec {
    /// Rate of each access link (one for all, or a list per host).
    pub rate: OneOrMany<Rate>,
    /// One-way delay of each access link (one for all, or a list per host).
    #[serde(default = "zero_delay")]
    pub delay: OneOrMany<Duration>,
    /// Queue of each access link, both directions (default DropTail, 1000 packets, so that
    /// access links do not drop in a bottleneck study).
    #[serde(default = "access_queue")]
    pub queue: QueueSpec,
    /// Jitter and slots toward the receivers (host to router on the senders' side, router to
    /// host on the receivers'), as Linux's netem (`link/netem.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netem: Option<NetemParams>,
    /// The same in the other direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_netem: Option<NetemParams>,
    /// Toward the receivers, a Wi-Fi medium (`link/wifi.rs`; each access link its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wifi: Option<WifiParams>,
    /// The same in the other direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_wifi: Option<WifiParams>,
    /// Toward the receivers, a DOCSIS upstream (`link/docsis.rs`): on the senders' side, the
    /// modem's upstream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docsis: Option<DocsisParams>,
    /// The same in the other direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_docsis: Option<DocsisParams>,
}

fn zero_delay() -> OneOrMany<Duration> {
    OneOrMany::One(Duration(0))
}

fn access_queue() -> QueueSpec {
    QueueSpec {
        limit: LimitSpec::Packets(1000),
        aqm: default_aqm(),
    }
}

/// Senders s0..s(N-1) attached to router r0, receivers d0..d(M-1) attached to router r1,
/// and the bottleneck r0 -> r1 (link name "bottleneck"; the reverse is "bottleneck_reverse").
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    pub senders: u32,
    /// Number of receivers (default: one per sender).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receivers: Option<u32>,
    pub bottleneck: LinkSpec,
    pub access: AccessSpec,
    /// Links between r1 and the receivers (default: the same as `access`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receiver_access: Option<AccessSpec>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLinkSpec {
    pub from: String,
    pub to: String,
    pub rate: Rate,
    #[serde(default)]
    pub delay: Duration,
    #[serde(default)]
    pub loss: f64,
    /// Which direction(s) `loss` applies to (default: forward only).
    #[serde(default)]
    pub loss_direction: LossDirection,
    #[serde(default)]
    pub queue: QueueSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverse_queue: Option<QueueSpec>,
    /// Jitter and slots on the forward direction's delivery, as Linux's netem (`link/netem.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netem: Option<NetemParams>,
    /// The same on the reverse direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_netem: Option<NetemParams>,
    /// The forward direction is a Wi-Fi medium: aggregates to stations in transmit
    /// opportunities (`link/wifi.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wifi: Option<WifiParams>,
    /// The same on the reverse direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_wifi: Option<WifiParams>,
    /// The forward direction is a DOCSIS upstream: packets leave in grants (`link/docsis.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docsis: Option<DocsisParams>,
    /// The same on the reverse direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_docsis: Option<DocsisParams>,
    /// Create the opposite direction too (default true, as ns-2's duplex-link).
    #[serde(default = "super::yes")]
    pub duplex: bool,
    /// Name of the forward direction (default "from->to").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Record this link's queue in the time series.
    #[serde(default)]
    pub monitor: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    pub nodes: Vec<String>,
    pub links: Vec<GraphLinkSpec>,
}

fn check_link(l: &LinkSpec, path: &str) -> Result<(), ScenarioError> {
    check_loss(l.loss, &format!("{path}.loss"))?;
    check_netem(&l.netem, &l.reverse_netem, path)?;
    check_wifi(
        [&l.netem, &l.reverse_netem],
        [&l.wifi, &l.reverse_wifi],
        path,
    )?;
    check_docsis(
        [l.netem.is_some(), l.reverse_netem.is_some()],
        [l.wifi.is_some(), l.reverse_wifi.is_some()],
        [l.docsis.is_some(), l.reverse_docsis.is_some()],
        path,
    )
}

/// A DOCSIS upstream sends and delivers its packets itself: not with netem or Wi-Fi on the
/// same direction. Its parameters are checked against its link's rate when it is built.
fn check_docsis(
    netem: [bool; 2],
    wifi: [bool; 2],
    docsis: [bool; 2],
    path: &str,
) -> Result<(), ScenarioError> {
    for (i, field) in ["docsis", "reverse_docsis"].into_iter().enumerate() {
        if docsis[i] && (netem[i] || wifi[i]) {
            return Err(ScenarioError::new(
                format!("{path}.{field}"),
                "a DOCSIS upstream sends and delivers its packets itself: netem or wifi on the \
                 same direction is not supported",
            ));
        }
    }
    Ok(())
}

/// Each direction's `wifi` (`WifiParams::check`), and not with netem on the same direction:
/// a Wi-Fi link delivers its aggregates itself.
fn check_wifi(
    netem: [&Option<NetemParams>; 2],
    wifi: [&Option<WifiParams>; 2],
    path: &str,
) -> Result<(), ScenarioError> {
    for ((field, n), w) in [("wifi", netem[0]), ("reverse_wifi", netem[1])]
        .into_iter()
        .zip(wifi)
    {
        if let Some(w) = w {
            w.check(&format!("{path}.{field}"))?;
            if n.is_some() {
                return Err(ScenarioError::new(
                    format!("{path}.{field}"),
                    "a Wi-Fi link delivers its aggregates itself: netem on the same direction \
                     is not supported",
                ));
            }
        }
    }
    Ok(())
}

fn check_netem(
    forward: &Option<NetemParams>,
    reverse: &Option<NetemParams>,
    path: &str,
) -> Result<(), ScenarioError> {
    for (field, n) in [("netem", forward), ("reverse_netem", reverse)] {
        if let Some(n) = n {
            n.check(&format!("{path}.{field}"))?;
        }
    }
    Ok(())
}

fn check_loss(p: f64, path: &str) -> Result<(), ScenarioError> {
    if !(0.0..=1.0).contains(&p) || !p.is_finite() {
        return Err(ScenarioError::new(
            path,
            format!("must be a probability in [0, 1], got {p}"),
        ));
    }
    Ok(())
}

pub(super) fn parse_topology(v: &Value) -> Result<Topology, ScenarioError> {
    match kind_of(v, "topology")? {
        "dumbbell" => {
            let mut obj = v.as_object().cloned().unwrap_or_default();
            obj.remove("kind");
            let d: DumbbellSpec = from_value(&Value::Object(obj), "topology")?;
            if d.senders == 0 {
                return Err(ScenarioError::new("topology.senders", "must be at least 1"));
            }
            for (field, n) in [("senders", Some(d.senders)), ("receivers", d.receivers)] {
                if n.is_some_and(|n| n > MAX_NODES) {
                    return Err(ScenarioError::new(
                        format!("topology.{field}"),
                        format!("must be at most {MAX_NODES}, got {}", n.unwrap_or(0)),
                    ));
                }
            }
            if d.receivers == Some(0) {
                return Err(ScenarioError::new(
                    "topology.receivers",
                    "must be at least 1",
                ));
            }
            check_link(&d.bottleneck, "topology.bottleneck")?;
            for (name, a) in [
                ("access", Some(&d.access)),
                ("receiver_access", d.receiver_access.as_ref()),
            ] {
                if let Some(a) = a {
                    if a.rate.is_empty() {
                        return Err(ScenarioError::new(
                            format!("topology.{name}.rate"),
                            "must not be an empty list",
                        ));
                    }
                    if a.delay.is_empty() {
                        return Err(ScenarioError::new(
                            format!("topology.{name}.delay"),
                            "must not be an empty list",
                        ));
                    }
                    let p = format!("topology.{name}");
                    check_netem(&a.netem, &a.reverse_netem, &p)?;
                    check_wifi([&a.netem, &a.reverse_netem], [&a.wifi, &a.reverse_wifi], &p)?;
                    check_docsis(
                        [a.netem.is_some(), a.reverse_netem.is_some()],
                        [a.wifi.is_some(), a.reverse_wifi.is_some()],
                        [a.docsis.is_some(), a.reverse_docsis.is_some()],
                        &p,
                    )?;
                }
            }
            Ok(Topology::Dumbbell(d))
        }
        "graph" => {
            let mut obj = v.as_object().cloned().unwrap_or_default();
            obj.remove("kind");
            let g: GraphSpec = from_value(&Value::Object(obj), "topology")?;
            if g.nodes.len() > MAX_NODES as usize {
                return Err(ScenarioError::new(
                    "topology.nodes",
                    format!("must list at most {MAX_NODES} nodes, got {}", g.nodes.len()),
                ));
            }
            if g.links.len() > MAX_GRAPH_LINKS {
                return Err(ScenarioError::new(
                    "topology.links",
                    format!(
                        "must list at most {MAX_GRAPH_LINKS} links, got {}",
                        g.links.len()
                    ),
                ));
            }
            let mut names = std::collections::HashSet::with_capacity(g.nodes.len());
            for (i, n) in g.nodes.iter().enumerate() {
                if !names.insert(n.as_str()) {
                    return Err(ScenarioError::new(
                        format!("topology.nodes[{i}]"),
                        format!("duplicate node name '{n}'"),
                    ));
                }
            }
            for (i, l) in g.links.iter().enumerate() {
                let p = format!("topology.links[{i}]");
                for (f, n) in [("from", &l.from), ("to", &l.to)] {
                    if !names.contains(n.as_str()) {
                        return Err(ScenarioError::new(
                            format!("{p}.{f}"),
                            format!("unknown node '{n}'"),
                        ));
                    }
                }
                if l.from == l.to {
                    return Err(ScenarioError::new(
                        format!("{p}.to"),
                        "a link must join two different nodes",
                    ));
                }
                check_loss(l.loss, &format!("{p}.loss"))?;
                check_netem(&l.netem, &l.reverse_netem, &p)?;
                check_wifi([&l.netem, &l.reverse_netem], [&l.wifi, &l.reverse_wifi], &p)?;
                check_docsis(
                    [l.netem.is_some(), l.reverse_netem.is_some()],
                    [l.wifi.is_some(), l.reverse_wifi.is_some()],
                    [l.docsis.is_some(), l.reverse_docsis.is_some()],
                    &p,
                )?;
                for (field, given) in [
                    ("reverse_netem", l.reverse_netem.is_some()),
                    ("reverse_wifi", l.reverse_wifi.is_some()),
                    ("reverse_docsis", l.reverse_docsis.is_some()),
                ] {
                    if !l.duplex && given {
                        return Err(ScenarioError::new(
                            format!("{p}.{field}"),
                            "a link with duplex = false has no reverse direction",
                        ));
                    }
                }
                if !l.duplex && l.loss_direction != LossDirection::Forward {
                    return Err(ScenarioError::new(
                        format!("{p}.loss_direction"),
                        "a link with duplex = false has no reverse direction; use \"forward\"",
                    ));
                }
            }
            Ok(Topology::Graph(g))
        }
        other => Err(ScenarioError::new(
            "topology.kind",
            crate::units::suggest::with_suggestion(
                format!("unknown topology '{other}'; known: dumbbell, graph"),
                other,
                ["dumbbell", "graph"],
            ),
        )),
    }
}
