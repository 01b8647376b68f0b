//! Sampled time series in long form (time, series, variable, value): queue length, an AQM's
//! internal state, a TCP sender's window, recorded at a fixed interval.

use crate::sim::Time;

#[derive(Debug, Clone, Default)]
pub struct TimeSeries {
    pub time: Vec<Time>,
    /// Index into `sources` (a queue or flow name).
    pub source: Vec<u32>,
    /// Index into `variables`.
    pub variable: Vec<u32>,
    pub value: Vec<f64>,
    pub sources: Vec<String>,
    pub variables: Vec<String>,
}

impl TimeSeries {
    pub fn source_id(&mut self, name: &str) -> u32 {
        intern(&mut self.sources, name)
    }

    pub fn push(&mut self, time: Time, source: u32, variable: &str, value: f64) {
        let v = intern(&mut self.variables, variable);
        self.time.push(time);
        self.source.push(source);
        self.variable.push(v);
        self.value.push(value);
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

fn intern(names: &mut Vec<String>, name: &str) -> u32 {
    match names.iter().position(|n| n == name) {
        Some(i) => i as u32,
        None => {
            names.push(name.to_string());
            (names.len() - 1) as u32
        }
    }
}
