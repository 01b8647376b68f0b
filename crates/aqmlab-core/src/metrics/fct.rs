//! Flow completion times (issue 27, item 3): one row per finite TCP transfer, and their
//! summary by size bin.
//!
//! FCT is measured from the flow's start (its first segment, or its SYN with
//! `tcp.handshake = "syn"`) to the sender's receipt of the ACK that covers the last byte:
//! when the sender knows the transfer is done, as the HPCC simulator measures it
//! (simulation/scratch/third.cc `qp_finish`, "invoked when receiving the ack of the last
//! packet"). Dukkipati and McKeown ("Why flow-completion time is the
//! right metric for congestion control", CCR 2006) end it when the last packet is received,
//! half an RTT earlier: docs/workloads.md. Slowdown is FCT over the transfer's FCT on an
//! empty network (`transport::workload::ideal_fct`, whose end is the same ACK).
//!
//! Transfers still running at the end of the run are counted (`started`) but have no FCT:
//! percentiles are over the completed ones only, which biases them low when many large
//! transfers are unfinished; `completed` / `started` says how much.

use serde::{Deserialize, Serialize};

/// One row of the FCT table.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FctRow {
    /// The flow's id, the same as in the flow table.
    pub flow: u32,
    pub group: String,
    pub size_bytes: u64,
    pub start_s: f64,
    /// NaN if the transfer had not completed at the end of the run.
    pub fct_s: f64,
    pub completed: bool,
    /// The transfer's FCT on an empty network.
    pub ideal_fct_s: f64,
    /// fct_s / ideal_fct_s; NaN if not completed.
    pub slowdown: f64,
    /// Counted inside the measurement window (after any warm-up), as in the flow table.
    pub retransmissions: u64,
    pub timeouts: u64,
}

/// One size bin of the FCT summary: transfers with lo_bytes < size <= hi_bytes.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct FctBinSummary {
    pub bin: String,
    pub lo_bytes: f64,
    /// Infinite for the last bin.
    pub hi_bytes: f64,
    pub started: u64,
    pub completed: u64,
    pub fct_p50_s: f64,
    pub fct_mean_s: f64,
    pub fct_p99_s: f64,
    pub slowdown_p50: f64,
    pub slowdown_mean: f64,
    pub slowdown_p99: f64,
}

/// The default bins: (0, 100 KB], (100 KB, 10 MB], above 10 MB (the short, medium and long
/// flows of the pFabric and HPCC evaluations' FCT breakdowns).
pub fn default_bins() -> Vec<(String, u64)> {
    vec![
        ("small".into(), 100_000),
        ("medium".into(), 10_000_000),
        ("large".into(), u64::MAX),
    ]
}

/// The summary of `rows` per bin (`bins`: (name, upper bound in bytes), increasing, the last
/// unbounded), then one bin "all".
pub fn summarize(rows: &[FctRow], bins: &[(String, u64)]) -> Vec<FctBinSummary> {
    let mut out = vec![];
    let mut lo = 0u64;
    for (name, hi) in bins {
        let (lo_now, hi_now) = (lo, *hi);
        out.push(summary_of(
            name,
            lo_now as f64,
            if hi_now == u64::MAX {
                f64::INFINITY
            } else {
                hi_now as f64
            },
            rows.iter()
                .filter(|r| r.size_bytes > lo_now && r.size_bytes <= hi_now),
        ));
        lo = *hi;
    }
    out.push(summary_of("all", 0.0, f64::INFINITY, rows.iter()));
    out
}

fn summary_of<'a>(
    bin: &str,
    lo: f64,
    hi: f64,
    rows: impl Iterator<Item = &'a FctRow>,
) -> FctBinSummary {
    let mut started = 0;
    let mut fct = vec![];
    let mut slowdown = vec![];
    for r in rows {
        started += 1;
        if r.completed {
            fct.push(r.fct_s);
            slowdown.push(r.slowdown);
        }
    }
    fct.sort_by(f64::total_cmp);
    slowdown.sort_by(f64::total_cmp);
    FctBinSummary {
        bin: bin.to_string(),
        lo_bytes: lo,
        hi_bytes: hi,
        started,
        completed: fct.len() as u64,
        fct_p50_s: quantile(&fct, 0.5),
        fct_mean_s: mean(&fct),
        fct_p99_s: quantile(&fct, 0.99),
        slowdown_p50: quantile(&slowdown, 0.5),
        slowdown_mean: mean(&slowdown),
        slowdown_p99: quantile(&slowdown, 0.99),
    }
}

pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The q-quantile of sorted values, interpolated linearly between the closest ranks
/// (Hyndman and Fan's type 7, numpy's and pandas' default); NaN when empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        n => {
            let h = (n - 1) as f64 * q;
            let (i, f) = (h.floor() as usize, h - h.floor());
            if i + 1 < n {
                sorted[i] + f * (sorted[i + 1] - sorted[i])
            } else {
                sorted[n - 1]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(size: u64, fct: Option<f64>) -> FctRow {
        FctRow {
            size_bytes: size,
            fct_s: fct.unwrap_or(f64::NAN),
            completed: fct.is_some(),
            ideal_fct_s: 0.5,
            slowdown: fct.map_or(f64::NAN, |f| f / 0.5),
            ..Default::default()
        }
    }

    #[test]
    fn quantiles_are_numpys() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert!((quantile(&v, 0.99) - 3.97).abs() < 1e-12);
        assert_eq!(quantile(&[7.0], 0.99), 7.0);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn bins_split_by_size_and_unfinished_transfers_are_counted_not_ranked() {
        let rows = [
            row(100_000, Some(1.0)),
            row(100_001, Some(3.0)),
            row(50, None),
            row(20_000_000, Some(9.0)),
        ];
        let s = summarize(&rows, &default_bins());
        let names: Vec<&str> = s.iter().map(|b| b.bin.as_str()).collect();
        assert_eq!(names, ["small", "medium", "large", "all"]);
        assert_eq!((s[0].started, s[0].completed), (2, 1));
        assert_eq!(s[0].fct_p50_s, 1.0);
        assert_eq!(s[1].fct_mean_s, 3.0);
        assert_eq!(s[2].slowdown_p99, 18.0);
        assert_eq!((s[3].started, s[3].completed), (4, 3));
        assert!(s[2].hi_bytes.is_infinite());
    }
}
