//! Measurement: per-queue and per-flow counters, time-weighted averages, delay histograms and
//! sampled time series, fairness. Counters restart at the end of the warm-up period.

pub mod column_units;
pub mod delay_histogram;
pub mod emulation_fidelity;
pub mod fairness;
pub mod fct;
pub mod flow_stats;
pub mod latency;
pub mod packet_trace;
pub mod queue_delays;
pub mod queue_stats;
pub mod tap;
pub mod time_average;
pub mod timeseries;

pub use delay_histogram::DelayHistogram;
pub use fairness::{jain_index, Fairness, GroupSummary};
pub use flow_stats::FlowStats;
pub use queue_stats::QueueStats;
pub use time_average::TimeAverage;
pub use timeseries::TimeSeries;
