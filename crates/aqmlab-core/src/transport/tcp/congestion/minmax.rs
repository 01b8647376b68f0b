//! A windowed maximum kept with three samples, as Linux's lib/win_minmax.c (Kathleen
//! Nichols' algorithm, `minmax_running_max`, `minmax_subwin_update`): the best, second best
//! and third best samples in later sub-windows, so the maximum over the last `win` time units
//! is known without keeping every sample. BBR's bottleneck-bandwidth filter, with time in
//! round trips (`bbr_bw_rtts` = 10).

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Sample {
    t: u64,
    v: f64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    /// The maximum over the window.
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    /// `minmax_reset`: forget everything; `meas` at `t` is the maximum.
    pub fn reset(&mut self, t: u64, meas: f64) -> f64 {
        self.s = [Sample { t, v: meas }; 3];
        meas
    }

    /// `minmax_running_max`: a new measurement `meas` at time `t` over a window of `win`.
    pub fn update(&mut self, win: u64, t: u64, meas: f64) -> f64 {
        let val = Sample { t, v: meas };
        // "found new max?" or "nothing left in window?" (even the third choice is too old).
        if val.v >= self.s[0].v || val.t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, meas);
        }
        if val.v >= self.s[1].v {
            self.s[2] = val;
            self.s[1] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// `minmax_subwin_update`: age the samples as the window slides.
    fn subwin_update(&mut self, win: u64, val: Sample) -> f64 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The best sample left the window: the second and third move up.
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = val;
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = val;
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window passed without a second choice: take one.
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window passed without a third choice: take one.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_maximum_of_the_last_ten_rounds_by_hand() {
        let mut m = WindowedMax::default();
        assert_eq!(m.update(10, 0, 5.0), 5.0);
        // Smaller samples do not replace the maximum while it is in the window.
        for t in 1..=10 {
            assert_eq!(m.update(10, t, 3.0 + t as f64 / 100.0), 5.0, "round {t}");
        }
        // Round 11: the 5.0 of round 0 is 11 rounds old. The second and third choices were
        // taken at round 3 (a quarter window without one) and then followed each larger
        // sample (rounds 4..=10): both are round 10's 3.10, which moves up.
        let v = m.update(10, 11, 3.0);
        assert_eq!(v, 3.0 + 10.0 / 100.0);
        // A larger sample resets the filter.
        assert_eq!(m.update(10, 12, 9.0), 9.0);
        assert_eq!(m.get(), 9.0);
        // Nothing for more than a window: the next sample is the maximum.
        assert_eq!(m.update(10, 40, 1.0), 1.0);
    }

    #[test]
    fn a_steady_rate_is_kept_and_a_drop_is_seen_after_the_window() {
        let mut m = WindowedMax::default();
        for t in 0..30 {
            m.update(10, t, 100.0);
        }
        // Equal samples reset the filter (>=): the maximum's time is the latest round.
        for t in 30..=39 {
            assert_eq!(m.update(10, t, 50.0), 100.0, "round {t}");
        }
        // Round 40: 100 was last seen at round 29, 11 rounds ago: out of the window.
        assert_eq!(m.update(10, 40, 50.0), 50.0);
    }
}
