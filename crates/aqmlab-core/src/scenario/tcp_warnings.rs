//! Warnings about a TCP flow's resolved configuration (after its profile is expanded), where
//! the combination of valid fields is most likely not what was meant.
//!
//! Issue 25: PRR's Slow Start Reduction Bound (`prr_bound = "ssrb"`, RFC 6937's default)
//! with RACK-TLP and an RTO restarted by a resent head (`rto_restart` other than `new_ack`)
//! can lock a flow in recovery under heavy loss: each ACK releases a repair and a new packet,
//! the repair lands in the dropped slot every round, RACK marks it again, and resending it
//! re-arms the RTO, so the flow never times out (tests/recovery_loops.rs shows the loop).
//! RFC 9937, which obsoletes RFC 6937, and Linux bound PRR with SafeACK instead.

use super::schema::FlowSpec;
use super::warnings::ScenarioWarning;
use crate::transport::tcp::recovery::prr::PrrBound;
use crate::transport::tcp::{Recovery, RtoRestart};

/// One warning per `flows` entry whose TCP configuration can lock in recovery.
pub fn of(flows: &[FlowSpec]) -> Vec<ScenarioWarning> {
    flows
        .iter()
        .enumerate()
        .filter_map(|(i, flow)| match flow {
            FlowSpec::Tcp { tcp, .. }
                if tcp.recovery == Recovery::Rfc6675
                    && tcp.rack_tlp.enabled
                    && tcp.prr_bound == PrrBound::Ssrb
                    && tcp.rto_restart != RtoRestart::NewAck =>
            {
                Some(ScenarioWarning {
                    path: format!("flows[{i}].tcp.prr_bound"),
                    message: "\"ssrb\" with RACK-TLP and an RTO restarted by retransmissions can \
                              lock a flow in recovery under heavy loss (a segment resent every \
                              round, the RTO never expiring); prr_bound = \"safe_ack\" (RFC 9937, \
                              Linux) cannot"
                        .to_string(),
                })
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    fn warnings(tcp: &str) -> Vec<String> {
        let text = format!(
            "duration = \"1s\"\n[topology]\nkind = \"dumbbell\"\nsenders = 2\n\
             [topology.bottleneck]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
             [topology.access]\nrate = \"100Mbps\"\ndelay = \"1ms\"\n\
             [tcp]\n{tcp}\n[[flows]]\nkind = \"tcp\"\nfrom = \"senders\"\nto = \"receivers\"\n"
        );
        let s = Scenario::from_toml(&text).unwrap();
        s.warnings.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_loop_prone_combination_is_named_and_the_profiles_are_not() {
        let loop_prone = "recovery = \"rfc6675\"\nvariant = \"sack\"\n\
                          rack_tlp = { enabled = true }\nrto_restart = \"head_retransmission\"";
        let w = warnings(loop_prone);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("flows[0].tcp.prr_bound: \"ssrb\" with RACK-TLP")
                && w[0].contains("safe_ack"),
            "{w:?}"
        );
        assert!(warnings(&format!("{loop_prone}\nprr_bound = \"safe_ack\"")).is_empty());
        assert!(warnings(&format!("{loop_prone}\nprr_bound = \"crb\"")).is_empty());
        assert!(warnings(
            "recovery = \"rfc6675\"\nvariant = \"sack\"\nrack_tlp = { enabled = true }"
        )
        .is_empty());
        for profile in ["linux", "ns2", "ns3"] {
            if crate::transport::tcp::profile::profile_fields(profile).is_some() {
                assert!(
                    warnings(&format!("profile = \"{profile}\"")).is_empty(),
                    "{profile}"
                );
            }
        }
    }
}
