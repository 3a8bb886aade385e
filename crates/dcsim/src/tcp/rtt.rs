//! Retransmission timer computation, RFC 6298 §2, with the minimum (RTO_min) and the timer
//! granularity of the DCTCP testbed (DCTCP paper §4.2.1: "10ms ... is the tick granularity").

use crate::units::Time;

#[derive(Debug, Clone)]
pub struct RttEstimator {
    pub srtt: Option<Time>,
    pub rttvar: Time,
    rto_min: Time,
    rto_initial: Time,
    rto_max: Time,
    tick: Time,
    /// Consecutive timeouts: the RTO doubles with each (RFC 6298 §5.5).
    pub backoff: u32,
}

impl RttEstimator {
    pub fn new(rto_min: Time, rto_initial: Time, rto_max: Time, tick: Time) -> Self {
        Self {
            srtt: None,
            rttvar: Time::ZERO,
            rto_min,
            rto_initial,
            rto_max,
            tick,
            backoff: 0,
        }
    }

    /// RFC 6298 §2.2–2.3: first sample sets SRTT = R, RTTVAR = R/2; later ones use
    /// α = 1/8, β = 1/4.
    pub fn on_sample(&mut self, r: Time) {
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

    /// A timer's duration rounded up to the timer tick.
    #[inline]
    pub fn ticked(&self, d: Time) -> Time {
        if self.tick > Time::ZERO {
            d.div_ceil(self.tick) * self.tick
        } else {
            d
        }
    }

    /// The current timeout: max(RTO_min, SRTT + 4·RTTVAR) rounded up to the tick, doubled per
    /// consecutive timeout, capped at RTO_max. RFC 6298's clock-granularity term G is
    /// represented by the rounding alone: adding it as well would make a 10 ms tick with
    /// RTO_min = 10 ms fire at 20 ms, while the DCTCP paper (§4.2.1) chose 10 ms as the
    /// smallest timeout its tick allows.
    #[inline]
    pub fn rto(&self) -> Time {
        let base = match self.srtt {
            None => self.rto_initial,
            Some(srtt) => (srtt + 4 * self.rttvar).max(self.rto_min),
        };
        let ticked = self.ticked(base);
        // Saturating: a long backoff may pass 2^64 ps before the cap at `rto_max` applies.
        ticked.saturating_mul(1u64 << self.backoff.min(30)).min(self.rto_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const US: Time = Time::from_us(1);
    const MS: Time = Time::from_ms(1);

    fn est(tick_ms: u64) -> RttEstimator {
        RttEstimator::new(10 * MS, 1000 * MS, 60_000 * MS, tick_ms * MS)
    }

    #[test]
    fn initial_rto_before_samples() {
        assert_eq!(est(0).rto(), 1000 * MS);
    }

    #[test]
    fn rfc6298_vectors() {
        let mut e = est(0);
        e.on_sample(100 * US);
        assert_eq!(e.srtt, Some(100 * US));
        assert_eq!(e.rttvar, 50 * US);
        // 100 µs + 4·50 µs = 300 µs < RTO_min 10 ms.
        assert_eq!(e.rto(), 10 * MS);
        e.on_sample(200 * US);
        // RTTVAR = 3/4·50 + 1/4·|100−200| = 62.5 µs; SRTT = 7/8·100 + 1/8·200 = 112.5 µs.
        assert_eq!(e.rttvar, Time::from_ps(62_500_000));
        assert_eq!(e.srtt, Some(Time::from_ps(112_500_000)));
        // A 20 ms RTT dominates RTO_min: after one sample RTO = 20 + 4·10 = 60 ms.
        let mut big = est(0);
        big.on_sample(20 * MS);
        assert_eq!(big.rto(), 60 * MS);
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = est(0);
        e.on_sample(100 * US);
        e.backoff = 3;
        assert_eq!(e.rto(), 80 * MS);
        e.backoff = 20;
        assert_eq!(e.rto(), 60_000 * MS);
    }

    #[test]
    fn tick_rounds_up() {
        // RTO_min 10 ms, tick 10 ms: SRTT 12 ms, RTTVAR 6 ms -> 12 + 24 = 36 ms -> 40 ms.
        let mut e = est(10);
        e.on_sample(12 * MS);
        assert_eq!(e.rto(), 40 * MS);
        // Small RTT: 300 µs -> RTO_min 10 ms, already a multiple of the tick.
        let mut s = est(10);
        s.on_sample(100 * US);
        assert_eq!(s.rto(), 10 * MS);
    }
}
