//! A flow size distribution, payload bytes (a workload's `sizes`, read in
//! `scenario/workload.rs`): its mean, clipped or not, its tail and its quantiles, by which
//! `workload.rs` draws one size from one uniform.

/// A flow size distribution, payload bytes, ready to sample.
#[derive(Debug, Clone, PartialEq)]
pub enum SizeDistribution {
    Constant(f64),
    /// P(X > x) = (scale / x)^shape for x >= scale.
    Pareto {
        shape: f64,
        scale: f64,
    },
    /// ln X is normal with mean `mu` and standard deviation `sigma`.
    Lognormal {
        mu: f64,
        sigma: f64,
    },
    /// Points (size, cumulative probability), strictly increasing in size, non-decreasing in
    /// probability, the last at 1; sampled by inverting the piecewise-linear CDF.
    Empirical(Vec<(f64, f64)>),
}

impl SizeDistribution {
    /// The smallest size it draws, bytes (before rounding up to a whole byte).
    pub fn min(&self) -> f64 {
        match self {
            SizeDistribution::Constant(s) => *s,
            SizeDistribution::Pareto { scale, .. } => *scale,
            SizeDistribution::Lognormal { .. } => 0.0,
            SizeDistribution::Empirical(pts) => {
                // The first point with probability mass above it.
                let i = pts.iter().rposition(|p| p.1 == 0.0).unwrap_or(0);
                pts[i].0
            }
        }
    }

    /// E[min(X, cap)] (E[X] without a cap); infinite where the mean is.
    pub fn mean_clipped(&self, cap: Option<f64>) -> f64 {
        let cap = cap.unwrap_or(f64::INFINITY);
        match self {
            SizeDistribution::Constant(s) => s.min(cap),
            // E[min(X, M)] = integral over [0, M] of P(X > x): scale + scale/(shape-1) *
            // (1 - (scale/M)^(shape-1)); shape 1 gives scale * (1 + ln(M / scale)).
            SizeDistribution::Pareto { shape, scale } => {
                if cap <= *scale {
                    cap
                } else if (shape - 1.0).abs() < 1e-12 {
                    scale * (1.0 + (cap / scale).ln())
                } else if cap.is_infinite() {
                    if *shape > 1.0 {
                        shape * scale / (shape - 1.0)
                    } else {
                        f64::INFINITY
                    }
                } else {
                    scale + scale / (shape - 1.0) * (1.0 - (scale / cap).powf(shape - 1.0))
                }
            }
            // E[min(X, M)] = e^(mu + sigma^2/2) Phi((ln M - mu - sigma^2)/sigma)
            //               + M (1 - Phi((ln M - mu)/sigma)).
            SizeDistribution::Lognormal { mu, sigma } => {
                let full = (mu + sigma * sigma / 2.0).exp();
                if cap.is_infinite() {
                    full
                } else {
                    let l = cap.ln();
                    full * normal_cdf((l - mu - sigma * sigma) / sigma)
                        + cap * (1.0 - normal_cdf((l - mu) / sigma))
                }
            }
            // Piecewise-linear CDF: uniform within each segment, so each contributes its
            // probability times its midpoint (as the HPCC generator's getAvg), clipped; and
            // the first point is an atom of its cdf (`quantile` returns its size for every
            // draw below it; HPCC's getAvg and the bundled CDFs start at cdf 0, where it
            // weighs nothing; issue 35, A: `10000 0.9` / `20000 1` has mean 10,500, not 1,500).
            SizeDistribution::Empirical(pts) => {
                pts[0].1 * pts[0].0.min(cap)
                    + pts
                        .windows(2)
                        .map(|w| {
                            let ((x0, p0), (x1, p1)) = (w[0], w[1]);
                            let dp = p1 - p0;
                            if x1 <= cap {
                                dp * (x0 + x1) / 2.0
                            } else if x0 >= cap {
                                dp * cap
                            } else {
                                let f = (cap - x0) / (x1 - x0);
                                dp * (f * (x0 + cap) / 2.0 + (1.0 - f) * cap)
                            }
                        })
                        .sum::<f64>()
            }
        }
    }

    /// P(X > x): the share of draws beyond `x` (before any clipping).
    pub fn tail_beyond(&self, x: f64) -> f64 {
        match self {
            SizeDistribution::Constant(s) => (*s > x) as u8 as f64,
            SizeDistribution::Pareto { shape, scale } => {
                if x <= *scale {
                    1.0
                } else {
                    (scale / x).powf(*shape)
                }
            }
            SizeDistribution::Lognormal { mu, sigma } => {
                0.5 * erfc((x.ln() - mu) / (sigma * std::f64::consts::SQRT_2))
            }
            SizeDistribution::Empirical(pts) => {
                let i = pts.partition_point(|p| p.0 <= x);
                match i {
                    0 => 1.0,
                    _ if i == pts.len() => 0.0,
                    _ => {
                        let ((x0, p0), (x1, p1)) = (pts[i - 1], pts[i]);
                        1.0 - (p0 + (p1 - p0) * (x - x0) / (x1 - x0))
                    }
                }
            }
        }
    }

    /// The distribution in words, for errors.
    pub fn describe(&self) -> String {
        match self {
            SizeDistribution::Constant(s) => format!("a constant size of {s} bytes"),
            SizeDistribution::Pareto { shape, .. } => {
                format!("a Pareto distribution of shape {shape} (<= 1)")
            }
            SizeDistribution::Lognormal { mu, sigma } => {
                format!("a lognormal distribution of mu {mu} and sigma {sigma}")
            }
            SizeDistribution::Empirical(_) => "the CDF".into(),
        }
    }

    /// The size at quantile `u` in [0, 1).
    pub fn quantile(&self, u: f64) -> f64 {
        match self {
            SizeDistribution::Constant(s) => *s,
            SizeDistribution::Pareto { shape, scale } => scale * (1.0 - u).powf(-1.0 / shape),
            SizeDistribution::Lognormal { mu, sigma } => (mu + sigma * normal_quantile(u)).exp(),
            SizeDistribution::Empirical(pts) => {
                let i = pts.partition_point(|p| p.1 <= u).min(pts.len() - 1);
                if i == 0 {
                    return pts[0].0;
                }
                let ((x0, p0), (x1, p1)) = (pts[i - 1], pts[i]);
                x0 + (x1 - x0) * (u - p0) / (p1 - p0)
            }
        }
    }
}

/// The standard normal CDF, through erfc (Numerical Recipes' erfcc, fractional error below
/// 1.2e-7): only the mean of a clipped lognormal reads it.
fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The standard normal quantile: Acklam's rational approximation (relative error below
/// 1.2e-9), so one uniform draw gives one lognormal size by inversion, as for the others.
fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_quantile_inverts_the_cdf() {
        for p in [1e-6, 0.01, 0.3, 0.5, 0.9, 0.999] {
            assert!((normal_cdf(normal_quantile(p)) - p).abs() < 1e-6 * p.max(0.01));
        }
    }
}
