//! TCP profiles: named sets of `tcp` fields, kept as plain TOML files in `profiles/` (copy
//! one into a scenario's `[tcp]` table and change what you like). A `tcp` table that says
//! `profile = "linux"` gets the profile's fields first and its own fields over them; a flow's
//! own `tcp` table may name another profile. Each file documents its fields' sources.

use crate::units::suggest::with_suggestion;
use crate::units::ScenarioError;
use serde_json::{Map, Value};

/// (name, TOML text) of every profile.
pub const PROFILES: [(&str, &str); 6] = [
    ("ns2", include_str!("profiles/ns2.toml")),
    ("linux", include_str!("profiles/linux.toml")),
    ("ns3", include_str!("profiles/ns3.toml")),
    ("dctcp", include_str!("profiles/dctcp.toml")),
    ("prague", include_str!("profiles/prague.toml")),
    ("bbr", include_str!("profiles/bbr.toml")),
];

/// The fields of profile `name`, as the JSON map a `tcp` table is read from. A profile file
/// may itself name a `profile` it builds on (the sender profiles, `dctcp.toml` on `linux`):
/// the base's fields first, then the file's own, merged as a scenario's table is.
pub fn profile_fields(name: &str) -> Option<Map<String, Value>> {
    let (_, text) = PROFILES.iter().find(|(n, _)| *n == name)?;
    let table: toml::Table = toml::from_str(text).expect("a packaged profile is valid TOML");
    let Value::Object(own) = serde_json::to_value(table).expect("TOML maps to JSON") else {
        unreachable!("a TOML table is a JSON object")
    };
    match own.get("profile").and_then(Value::as_str) {
        Some(base) => {
            let base = profile_fields(base).expect("a packaged profile builds on a packaged one");
            Some(merged_over(base, &own))
        }
        None => Some(own),
    }
}

/// `own`'s fields (but `profile`) over `base`'s. A parameter table (`cubic`, `rack_tlp`) is
/// merged field by field: changing one of the profile's CUBIC readings must not silently drop
/// the others (issue 25). `hystart` names one algorithm, so the table's own choice replaces it.
fn merged_over(mut base: Map<String, Value>, own: &Map<String, Value>) -> Map<String, Value> {
    for (key, value) in own.iter().filter(|(k, _)| *k != "profile") {
        match (base.get_mut(key), value) {
            (Some(Value::Object(b)), Value::Object(o)) if key != "hystart" => {
                b.extend(o.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            _ => {
                base.insert(key.clone(), value.clone());
            }
        }
    }
    base
}

/// `table` with its `profile` (if any) expanded: the profile's fields, then the table's own.
/// `path` names the table in errors (`tcp`, `flows[3].tcp`).
pub fn expand(table: &Map<String, Value>, path: &str) -> Result<Map<String, Value>, ScenarioError> {
    let Some(name) = table.get("profile") else {
        return Ok(table.clone());
    };
    let field = format!("{path}.profile");
    let Some(name) = name.as_str() else {
        return Err(ScenarioError::new(
            field,
            "must be a profile name (a string)",
        ));
    };
    let names = PROFILES.map(|(n, _)| n);
    let base = profile_fields(name).ok_or_else(|| {
        let msg = format!("unknown TCP profile `{name}`; known: {}", names.join(", "));
        ScenarioError::new(field, with_suggestion(msg, name, names))
    })?;
    Ok(merged_over(base, table))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::TcpConfig;

    #[test]
    fn every_profile_is_a_valid_tcp_table() {
        for (name, _) in PROFILES {
            let fields = profile_fields(name).unwrap();
            let cfg: TcpConfig = serde_json::from_value(Value::Object(fields))
                .unwrap_or_else(|e| panic!("profile {name}: {e}"));
            cfg.validate(name).unwrap();
        }
    }

    #[test]
    fn a_sender_profile_is_the_linux_profile_with_its_own_fields() {
        let linux = profile_fields("linux").unwrap();
        for name in ["dctcp", "prague", "bbr"] {
            let (_, text) = PROFILES.iter().find(|(n, _)| *n == name).unwrap();
            let own: toml::Table = toml::from_str(text).unwrap();
            assert_eq!(own["profile"].as_str(), Some("linux"), "{name}");
            let fields = profile_fields(name).unwrap();
            assert!(!fields.contains_key("profile"), "{name}");
            for (key, value) in &linux {
                match own.get(key) {
                    Some(v) => assert_eq!(fields[key], serde_json::to_value(v).unwrap()),
                    None => assert_eq!(&fields[key], value, "{name}.{key} is linux's"),
                }
            }
        }
        assert_eq!(
            profile_fields("dctcp").unwrap()["congestion_control"],
            "dctcp"
        );
        assert_eq!(profile_fields("dctcp").unwrap()["ecn"], true);
        assert_eq!(profile_fields("prague").unwrap()["ecn_codepoint"], "ect1");
        // The rfc6675 sender, which DCTCP and BBR need, comes from the base.
        assert_eq!(profile_fields("bbr").unwrap()["recovery"], "rfc6675");
    }

    #[test]
    fn the_ns2_profile_is_the_default_configuration() {
        let cfg: TcpConfig =
            serde_json::from_value(Value::Object(profile_fields("ns2").unwrap())).unwrap();
        assert_eq!(
            serde_json::to_value(cfg).unwrap(),
            serde_json::to_value(TcpConfig::default()).unwrap()
        );
    }

    #[test]
    fn own_fields_override_the_profile_and_unknown_names_are_errors() {
        let table: Map<String, Value> =
            serde_json::from_str(r#"{"profile": "linux", "window_init": 4}"#).unwrap();
        let merged = expand(&table, "tcp").unwrap();
        assert_eq!(merged["window_init"], 4);
        assert_eq!(merged["congestion_control"], "cubic");
        assert!(!merged.contains_key("profile"));
        let bad: Map<String, Value> = serde_json::from_str(r#"{"profile": "linx"}"#).unwrap();
        let e = expand(&bad, "flows[2].tcp").unwrap_err().to_string();
        assert!(
            e.contains("flows[2].tcp.profile") && e.contains("did you mean `linux`"),
            "{e}"
        );
    }

    #[test]
    fn a_parameter_table_beside_a_profile_changes_only_its_own_fields() {
        let table: Map<String, Value> = serde_json::from_str(
            r#"{"profile": "linux", "cubic": {"beta": 0.5}, "rack_tlp": {"max_ack_delay": "40ms"},
                "hystart": {"kind": "rfc9406"}}"#,
        )
        .unwrap();
        let cfg: TcpConfig =
            serde_json::from_value(Value::Object(expand(&table, "tcp").unwrap())).unwrap();
        let linux: TcpConfig =
            serde_json::from_value(Value::Object(profile_fields("linux").unwrap())).unwrap();
        assert_eq!(cfg.cubic.beta, 0.5);
        assert_eq!(cfg.cubic.c, linux.cubic.c);
        assert_eq!(cfg.cubic.target_rtt, linux.cubic.target_rtt);
        assert_eq!(cfg.rack_tlp.max_ack_delay.0, 40_000_000);
        assert!(cfg.rack_tlp.enabled);
        assert_eq!(cfg.rack_tlp.pto, linux.rack_tlp.pto);
        // hystart names an algorithm: the table's own replaces the profile's whole.
        assert_eq!(
            cfg.hystart.active(),
            Some(crate::transport::tcp::congestion::HystartKind::Rfc9406)
        );
    }

    #[test]
    fn the_linux_profile_turns_on_linuxs_mechanisms() {
        use crate::transport::tcp::congestion::cubic::{
            GrowthWithoutWmax, RenoFriendly, StateOnRto, TargetRtt,
        };
        use crate::transport::tcp::congestion::{CwndGrowth, HystartKind};
        use crate::transport::tcp::linux_delack::DelayedAckAto;
        use crate::transport::tcp::SsthreshBase;
        let cfg: TcpConfig =
            serde_json::from_value(Value::Object(profile_fields("linux").unwrap())).unwrap();
        assert_eq!(cfg.cwnd_growth, CwndGrowth::PacketsAcked);
        assert_eq!(cfg.ssthresh_base, SsthreshBase::Cwnd);
        assert_eq!(cfg.cubic.target_rtt, TargetRtt::MinRtt);
        assert_eq!(cfg.cubic.reno_friendly, RenoFriendly::Linux);
        assert_eq!(cfg.cubic.growth_without_w_max, GrowthWithoutWmax::Linux);
        assert_eq!(cfg.cubic.state_on_rto, StateOnRto::Reset);
        assert_eq!(
            (cfg.cubic.c, cfg.cubic.beta),
            (410.0 / 1024.0, 717.0 / 1024.0)
        );
        assert!(cfg.cubic.fast_convergence);
        assert_eq!(cfg.hystart.active(), Some(HystartKind::Linux));
        assert!(cfg.quick_ack && cfg.delayed_ack);
        assert_eq!(cfg.delayed_ack_ato, DelayedAckAto::Adaptive);
        assert!(cfg.grow_only_when_cwnd_limited);
        // Reno under the profile keeps the packet counting (Linux's tcp_reno_cong_avoid).
        let table: Map<String, Value> =
            serde_json::from_str(r#"{"profile": "linux", "congestion_control": "reno"}"#).unwrap();
        let reno: TcpConfig =
            serde_json::from_value(Value::Object(expand(&table, "tcp").unwrap())).unwrap();
        assert_eq!(reno.cwnd_growth, CwndGrowth::PacketsAcked);
        reno.validate("tcp").unwrap();
    }
}
