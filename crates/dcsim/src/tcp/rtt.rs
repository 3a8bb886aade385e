//! Retransmission timer computation, RFC 6298 §2, with the minimum (RTO_min) and the timer
//! granularity of the DCTCP testbed (DCTCP paper §4.2.1: "10ms ... is the tick granularity").

use crate::units::Time;

/// The stack's timer settings: RTO_min, the RTO before any sample, the backoff cap, and the
/// timer tick. Part of `TcpParams`, shared by every end built alike.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RtoBounds {
    pub min: Time,
    pub initial: Time,
    pub max: Time,
    pub tick: Time,
}

impl RtoBounds {
    /// A timer's duration rounded up to the timer tick.
    #[inline]
    pub fn ticked(&self, d: Time) -> Time {
        if self.tick > Time::ZERO {
            d.div_ceil(self.tick) * self.tick
        } else {
            d
        }
    }
}

/// One end's RTT estimate and timeout backoff (its bounds are the stack's `RtoBounds`).
#[derive(Debug, Clone, Default)]
pub struct RttEstimator {
    pub srtt: Option<Time>,
    pub rttvar: Time,
    /// Consecutive timeouts: the RTO doubles with each (RFC 6298 §5.5).
    pub backoff: u32,
}

impl RttEstimator {
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

    /// The current timeout: max(RTO_min, SRTT + 4·RTTVAR) rounded up to the tick, doubled per
    /// consecutive timeout, capped at RTO_max. RFC 6298's clock-granularity term G is
    /// represented by the rounding alone: adding it as well would make a 10 ms tick with
    /// RTO_min = 10 ms fire at 20 ms, while the DCTCP paper (§4.2.1) chose 10 ms as the
    /// smallest timeout its tick allows.
    #[inline]
    pub fn rto(&self, b: &RtoBounds) -> Time {
        let base = match self.srtt {
            None => b.initial,
            Some(srtt) => (srtt + 4 * self.rttvar).max(b.min),
        };
        let ticked = b.ticked(base);
        // Saturating: a long backoff may pass 2^64 ps before the cap at `max` applies.
        ticked.saturating_mul(1u64 << self.backoff.min(30)).min(b.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const US: Time = Time::from_us(1);
    const MS: Time = Time::from_ms(1);

    fn bounds(tick_ms: u64) -> RtoBounds {
        RtoBounds { tick: tick_ms * MS, ..B }
    }
    const B: RtoBounds = RtoBounds {
        min: Time::from_ms(10),
        initial: Time::from_ms(1000),
        max: Time::from_ms(60_000),
        tick: Time::ZERO,
    };

    #[test]
    fn initial_rto_before_samples() {
        assert_eq!(RttEstimator::default().rto(&B), 1000 * MS);
    }

    #[test]
    fn rfc6298_vectors() {
        let mut e = RttEstimator::default();
        e.on_sample(100 * US);
        assert_eq!(e.srtt, Some(100 * US));
        assert_eq!(e.rttvar, 50 * US);
        // 100 µs + 4·50 µs = 300 µs < RTO_min 10 ms.
        assert_eq!(e.rto(&B), 10 * MS);
        e.on_sample(200 * US);
        // RTTVAR = 3/4·50 + 1/4·|100−200| = 62.5 µs; SRTT = 7/8·100 + 1/8·200 = 112.5 µs.
        assert_eq!(e.rttvar, Time::from_ps(62_500_000));
        assert_eq!(e.srtt, Some(Time::from_ps(112_500_000)));
        // A 20 ms RTT dominates RTO_min: after one sample RTO = 20 + 4·10 = 60 ms.
        let mut big = RttEstimator::default();
        big.on_sample(20 * MS);
        assert_eq!(big.rto(&B), 60 * MS);
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = RttEstimator::default();
        e.on_sample(100 * US);
        e.backoff = 3;
        assert_eq!(e.rto(&B), 80 * MS);
        e.backoff = 20;
        assert_eq!(e.rto(&B), 60_000 * MS);
    }

    #[test]
    fn tick_rounds_up() {
        // RTO_min 10 ms, tick 10 ms: SRTT 12 ms, RTTVAR 6 ms -> 12 + 24 = 36 ms -> 40 ms.
        let mut e = RttEstimator::default();
        e.on_sample(12 * MS);
        assert_eq!(e.rto(&bounds(10)), 40 * MS);
        // Small RTT: 300 µs -> RTO_min 10 ms, already a multiple of the tick.
        let mut s = RttEstimator::default();
        s.on_sample(100 * US);
        assert_eq!(s.rto(&bounds(10)), 10 * MS);
    }
}
