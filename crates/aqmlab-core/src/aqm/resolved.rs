//! An AQM table with every parameter the scenario left out filled in with its default: what
//! `Result.scenario` and `aqmlab run --dry-run` show (issue 27, item 5). Each algorithm's
//! parameter struct is read exactly as its builder reads it and written back, so that the
//! table, given to a run again, builds the same discipline.
//!
//! A parameter whose default is computed from the link or from other parameters (RED's
//! `min_th`, `max_th`; DSRED's `k_m`) is an `Option` left unset: it stays out, so that the
//! value is still computed by the run, from the same link.

use super::params::AqmParams;
use super::{
    ared, blue, cake, cobalt, codel, droptail, dsred, dualpi2, fq, fq_codel, fq_pie, hybrid_red,
    lpf_oda, newque, orange, pi, pi2, pie, qvared, red, rem, step_marking,
};
use crate::units::ScenarioError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

/// `aqm` (a name or a table with `kind`) with its defaults filled in, as a table with `kind`.
/// An algorithm the core does not know (one written in Python) is returned as written: only
/// its own code knows its defaults. Errors name the parameter under `path`, as a run's would.
pub fn resolve(aqm: &Value, path: &str) -> Result<Value, ScenarioError> {
    let (name, params) = match aqm {
        Value::String(s) => (s.as_str(), Value::Object(Map::new())),
        Value::Object(map) => match map.get("kind").and_then(Value::as_str) {
            Some(kind) => {
                let mut rest = map.clone();
                rest.remove("kind");
                (kind, Value::Object(rest))
            }
            // No kind, or not a string: the run's own error says which.
            None => return Ok(aqm.clone()),
        },
        _ => return Ok(aqm.clone()),
    };
    let p = AqmParams::new(params, path);
    let name = super::registry::canonical_name(name);
    let fields = match name {
        "droptail" => plain::<droptail::DropTailParams>(&p)?,
        "red" => plain::<red::RedParams>(&p)?,
        "ared" => {
            let (adapt, red) = ared::parse_params(&p)?;
            merged(&[to_map(&adapt), to_map(&red)])
        }
        "lpf_oda" => {
            let (own, red): (lpf_oda::LpfOdaParams, _) =
                red::parse_variant(&p, &["reduction"], &[])?;
            merged(&[to_map(&own), to_map(&red)])
        }
        "hybrid_red" => {
            let (own, red): (hybrid_red::HybridParams, _) =
                red::parse_variant(&p, hybrid_red::OWN_KEYS, &[])?;
            merged(&[to_map(&own), to_map(&red)])
        }
        "qvared" => {
            let (adapt, own) = qvared::parse_variant_own(&p)?;
            merged(&[to_map(&adapt), to_map(&own)])
        }
        "dsred" => plain::<dsred::DsredParams>(&p)?,
        "orange" => plain::<orange::OrangeParams>(&p)?,
        "newque" => plain::<newque::NewqueParams>(&p)?,
        "blue" => plain::<blue::BlueParams>(&p)?,
        "pi" => plain::<pi::PiParams>(&p)?,
        "rem" => plain::<rem::RemParams>(&p)?,
        "codel" => plain::<codel::CodelParams>(&p)?,
        "pie" => plain::<pie::PieParams>(&p)?,
        "fq_codel" => plain::<fq_codel::FqCodelParams>(&p)?,
        "step_marking" => to_map(&p.parse::<step_marking::StepParams>()?.with_defaults(&p)?),
        "pi2" => plain::<pi2::Pi2Params>(&p)?,
        "dualpi2" => plain::<dualpi2::DualPi2Params>(&p)?,
        "fq_pie" => plain::<fq_pie::FqPieParams>(&p)?,
        "fq" => plain::<fq::FqParams>(&p)?,
        "cobalt" => plain::<cobalt::CobaltParams>(&p)?,
        "cake" => plain::<cake::CakeParams>(&p)?,
        _ => return Ok(aqm.clone()),
    };
    let mut out = Map::new();
    out.insert("kind".into(), Value::String(name.into()));
    out.extend(fields);
    Ok(Value::Object(out))
}

fn plain<T: DeserializeOwned + Serialize>(
    p: &AqmParams,
) -> Result<Map<String, Value>, ScenarioError> {
    Ok(to_map(&p.parse::<T>()?))
}

/// A parameter struct as a table; unset options (computed defaults) left out, as TOML has no
/// null.
fn to_map<T: Serialize>(t: &T) -> Map<String, Value> {
    match serde_json::to_value(t).expect("AQM parameters serialize") {
        Value::Object(m) => m.into_iter().filter(|(_, v)| !v.is_null()).collect(),
        _ => Map::new(),
    }
}

fn merged(parts: &[Map<String, Value>]) -> Map<String, Value> {
    parts.iter().flat_map(|m| m.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::registry::REGISTRY;
    use serde_json::json;

    /// Every built-in algorithm resolves, names itself, and is a fixed point: its resolved
    /// table resolves to itself.
    #[test]
    fn every_builtin_resolves_to_a_fixed_point() {
        for info in REGISTRY {
            let once = resolve(&json!(info.name), "aqm").unwrap();
            assert_eq!(once["kind"], info.name);
            assert_eq!(resolve(&once, "aqm").unwrap(), once, "{}", info.name);
        }
    }

    #[test]
    fn given_values_are_kept_and_defaults_added() {
        let r = resolve(&json!({"kind": "red", "max_p": 0.2}), "q.aqm").unwrap();
        assert_eq!(r["max_p"], 0.2);
        assert_eq!(r["w_q"], 0.002);
        assert_eq!(r["target_delay"], "5ms");
        assert!(
            r.get("min_th").is_none(),
            "computed from the link: left out"
        );
        let a = resolve(&json!("ared"), "q.aqm").unwrap();
        assert_eq!(a["w_q"], "auto", "ARED's own default for RED's w_q");
        assert_eq!(a["interval"], "500ms");
    }

    #[test]
    fn errors_name_the_parameter_and_custom_algorithms_pass_through() {
        let e = resolve(
            &json!({"kind": "pie", "targett": "5ms"}),
            "topology.bottleneck.queue.aqm",
        )
        .unwrap_err();
        assert_eq!(e.path, "topology.bottleneck.queue.aqm.targett");
        assert!(e.message.contains("did you mean `target`"), "{e}");
        let custom = json!({"kind": "my_aqm", "x": 1});
        assert_eq!(resolve(&custom, "aqm").unwrap(), custom);
    }
}
