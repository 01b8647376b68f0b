//! Test-only: a controller that records each hook call, to check the order and the points at
//! which the sender calls them (`rfc6675_sender/hook_tests.rs`). With `sets_cwnd` it claims
//! `cong_control` (and rate samples) and holds cwnd there, as a BBR-like controller would.

use super::ops::{
    AckEvent, AckInfo, Acked, CaEvent, CaState, CongestionOps, Signal, StateCtx, Window,
};
use crate::sim::Time;
use crate::transport::tcp::delivery_rate::DeliveryRate;
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, Default)]
pub struct Recorder {
    pub log: Arc<Mutex<Vec<String>>>,
    pub sets_cwnd: Option<f64>,
}

impl Recorder {
    fn push(&self, s: String) {
        self.log.lock().unwrap().push(s);
    }
}

impl CongestionOps for Recorder {
    fn ssthresh(&mut self, _: &Window, base: i64, signal: Signal, _: Time) -> Option<i64> {
        self.push(format!("ssthresh {signal:?}"));
        Some(base / 2)
    }

    fn cong_avoid(&mut self, w: &mut Window, _: Acked, _: Time, _: Time) {
        self.push("cong_avoid".into());
        w.cwnd += 1.0;
    }

    fn has_cong_control(&self) -> bool {
        self.sets_cwnd.is_some()
    }

    fn cong_control(&mut self, _: &mut DeliveryRate, ack: &AckInfo, w: &mut Window) {
        self.push(format!("cong_control {:?}", ack.ca_state));
        w.cwnd = self.sets_cwnd.expect("only with cong_control");
    }

    fn wants_rate_sample(&self) -> bool {
        self.sets_cwnd.is_some()
    }

    fn in_ack_event(&mut self, ack: &AckEvent) {
        self.push(format!("in_ack_event ece={}", ack.ece));
    }

    fn after_ecn_response(&mut self, _: &AckEvent, _: &mut Window) {
        self.push("after_ecn_response".into());
    }

    fn pkts_acked(&mut self, _: Time, _: &AckEvent, _: &mut Window) {
        self.push("pkts_acked".into());
    }

    fn set_state(&mut self, state: CaState, _: &mut Window, _: &StateCtx) {
        self.push(format!("set_state {state:?}"));
    }

    fn cwnd_event(&mut self, event: CaEvent, _: &mut Window) {
        self.push(format!("cwnd_event {event:?}"));
    }

    fn undo_cwnd(&mut self, w: &Window, prior_cwnd: f64) -> f64 {
        self.push("undo_cwnd".into());
        w.cwnd.max(prior_cwnd)
    }
}
