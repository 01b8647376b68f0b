//! The unit of every column of the result tables (issue 27: units in every column name or in
//! the schema): a column whose name ends in a unit (`_bps`, `_ms`, `_s`, `_packets`, `_bytes`)
//! has that one; the others are listed here. The binding puts each in its Arrow field's
//! metadata as `{"unit": ...}`, where renaming the column would break its readers.

/// Name suffixes that are units, longest first where one ends another.
const SUFFIXES: &[(&str, &str)] = &[
    ("_bps", "bit/s"),
    ("_ms", "ms"),
    ("_s", "s"),
    ("_packets", "packets"),
    ("_bytes", "bytes"),
];

/// Columns whose name carries no unit suffix.
const NAMED: &[(&str, &str)] = &[
    // packets counted
    ("arrivals", "packets"),
    ("departures", "packets"),
    ("early_drops", "packets"),
    ("forced_drops", "packets"),
    ("drops", "packets"),
    ("marks", "packets"),
    ("link_losses", "packets"),
    ("down_drops", "packets"),
    ("backlog_at_start", "packets"),
    ("backlog_at_end", "packets"),
    ("packets", "packets"),
    ("packets_sent", "packets"),
    ("packets_received", "packets"),
    ("retransmissions", "packets"),
    ("spurious_retransmissions", "packets"),
    ("tail_loss_probes", "packets"),
    ("marks_received", "packets"),
    // events counted
    ("timeouts", "count"),
    ("fast_recoveries", "count"),
    ("ecn_reductions", "count"),
    ("rto_backoffs", "count"),
    ("max_transmissions_of_a_segment", "count"),
    ("flows", "count"),
    ("started", "transfers"),
    ("completed", "transfers"),
    ("samples", "count"),
    ("lost", "count"),
    // ratios
    ("loss_rate", "fraction"),
    ("utilization", "fraction"),
    ("jain_index", "index (1/n to 1)"),
    ("slowdown", "ratio"),
    ("slowdown_p50", "ratio"),
    ("slowdown_mean", "ratio"),
    ("slowdown_p99", "ratio"),
    // identifiers and the long time series' value, whose unit is its variable's
    ("flow", "id"),
    ("value", "the variable's (docs/aqms.md, State variables)"),
];

/// Text columns: names and labels, no unit.
pub const TEXT: &[&str] = &[
    "name", "queue", "group", "kind", "src", "dst", "source", "variable", "bin",
];

/// The unit of column `name` of a result table; None for a text column or one not known.
pub fn unit(name: &str) -> Option<&'static str> {
    if let Some((_, u)) = NAMED.iter().find(|(n, _)| *n == name) {
        return Some(u);
    }
    SUFFIXES
        .iter()
        .find(|(s, _)| name.ends_with(s))
        .map(|(_, u)| *u)
}

#[cfg(test)]
mod tests {
    use super::unit;

    #[test]
    fn suffixes_and_names() {
        assert_eq!(unit("goodput_bps"), Some("bit/s"));
        assert_eq!(unit("mean_queue_packets"), Some("packets"));
        assert_eq!(unit("time_in_recovery_s"), Some("s"));
        assert_eq!(unit("p99_delay_ms"), Some("ms"));
        assert_eq!(unit("drops"), Some("packets"));
        assert_eq!(unit("loss_rate"), Some("fraction"));
        assert_eq!(unit("name"), None);
    }
}
