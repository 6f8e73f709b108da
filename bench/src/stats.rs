//! Quantiles of per-call latencies and median / min-max over rounds.

use serde_json::{json, Value};

/// The `q`-quantile (0..=1) of sorted samples, nearest rank.
pub fn quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64
}

pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

pub fn min_max(values: &[f64]) -> (f64, f64) {
    values.iter().filter(|x| x.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| (lo.min(x), hi.max(x)))
}

/// Median and min-max of one figure over rounds.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    pub fn of(values: &[f64]) -> Self {
        let (min, max) = min_max(values);
        Summary { median: median(values), min, max }
    }
    /// `f` applied to every round.
    pub fn over<R>(rounds: &[R], f: impl Fn(&R) -> f64) -> Self {
        Self::of(&rounds.iter().map(f).collect::<Vec<_>>())
    }
    pub fn json(&self) -> Value {
        json!({ "median": self.median, "min": self.min, "max": self.max })
    }
    /// `median [min - max]` with `prec` decimals.
    pub fn text(&self, prec: usize) -> String {
        format!("{:.p$} [{:.p$} - {:.p$}]", self.median, self.min, self.max, p = prec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_and_medians() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(quantile(&v, 0.5), 50.0);
        assert_eq!(quantile(&v, 0.99), 99.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        let s = Summary::of(&[3.0, f64::NAN, 1.0, 2.0]);
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
    }
}
