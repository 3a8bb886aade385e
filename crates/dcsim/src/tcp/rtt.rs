//! Retransmission timer computation, RFC 6298 §2, with the minimum (RTO_min) and the timer
//! granularity of the DCTCP testbed (DCTCP paper §4.2.1: "10ms ... is the tick granularity").

use crate::units::Ps;

#[derive(Debug, Clone)]
pub struct RttEstimator {
    pub srtt: Option<Ps>,
    pub rttvar: Ps,
    rto_min: Ps,
    rto_initial: Ps,
    rto_max: Ps,
    tick: Ps,
    /// Consecutive timeouts: the RTO doubles with each (RFC 6298 §5.5).
    pub backoff: u32,
}

impl RttEstimator {
    pub fn new(rto_min: Ps, rto_initial: Ps, rto_max: Ps, tick: Ps) -> Self {
        Self {
            srtt: None,
            rttvar: 0,
            rto_min,
            rto_initial,
            rto_max,
            tick,
            backoff: 0,
        }
    }

    /// RFC 6298 §2.2–2.3: first sample sets SRTT = R, RTTVAR = R/2; later ones use
    /// α = 1/8, β = 1/4.
    pub fn on_sample(&mut self, r: Ps) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                let err = srtt.abs_diff(r);
                self.rttvar = (3 * self.rttvar + err) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
    }

    /// The current timeout: max(RTO_min, SRTT + 4·RTTVAR) rounded up to the tick, doubled per
    /// consecutive timeout, capped at RTO_max. RFC 6298's clock-granularity term G is
    /// represented by the rounding alone: adding it as well would make a 10 ms tick with
    /// RTO_min = 10 ms fire at 20 ms, while the DCTCP paper (§4.2.1) chose 10 ms as the
    /// smallest timeout its tick allows.
    pub fn rto(&self) -> Ps {
        let base = match self.srtt {
            None => self.rto_initial,
            Some(srtt) => (srtt + 4 * self.rttvar).max(self.rto_min),
        };
        let ticked = if self.tick > 0 {
            base.div_ceil(self.tick) * self.tick
        } else {
            base
        };
        ticked.saturating_mul(1u64 << self.backoff.min(30)).min(self.rto_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{PS_PER_MS, PS_PER_US};

    fn est(tick_ms: u64) -> RttEstimator {
        RttEstimator::new(10 * PS_PER_MS, 1000 * PS_PER_MS, 60_000 * PS_PER_MS, tick_ms * PS_PER_MS)
    }

    #[test]
    fn initial_rto_before_samples() {
        assert_eq!(est(0).rto(), 1000 * PS_PER_MS);
    }

    #[test]
    fn rfc6298_vectors() {
        let mut e = est(0);
        e.on_sample(100 * PS_PER_US);
        assert_eq!(e.srtt, Some(100 * PS_PER_US));
        assert_eq!(e.rttvar, 50 * PS_PER_US);
        // 100 µs + 4·50 µs = 300 µs < RTO_min 10 ms.
        assert_eq!(e.rto(), 10 * PS_PER_MS);
        e.on_sample(200 * PS_PER_US);
        // RTTVAR = 3/4·50 + 1/4·|100−200| = 62.5 µs; SRTT = 7/8·100 + 1/8·200 = 112.5 µs.
        assert_eq!(e.rttvar, 62_500_000);
        assert_eq!(e.srtt, Some(112_500_000));
        // A 20 ms RTT dominates RTO_min: after one sample RTO = 20 + 4·10 = 60 ms.
        let mut big = est(0);
        big.on_sample(20 * PS_PER_MS);
        assert_eq!(big.rto(), 60 * PS_PER_MS);
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = est(0);
        e.on_sample(100 * PS_PER_US);
        e.backoff = 3;
        assert_eq!(e.rto(), 80 * PS_PER_MS);
        e.backoff = 20;
        assert_eq!(e.rto(), 60_000 * PS_PER_MS);
    }

    #[test]
    fn tick_rounds_up() {
        // RTO_min 10 ms, tick 10 ms: SRTT 12 ms, RTTVAR 6 ms -> 12 + 24 = 36 ms -> 40 ms.
        let mut e = est(10);
        e.on_sample(12 * PS_PER_MS);
        assert_eq!(e.rto(), 40 * PS_PER_MS);
        // Small RTT: 300 µs -> RTO_min 10 ms, already a multiple of the tick.
        let mut s = est(10);
        s.on_sample(100 * PS_PER_US);
        assert_eq!(s.rto(), 10 * PS_PER_MS);
    }
}
