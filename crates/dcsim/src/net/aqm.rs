//! Active queue management decisions taken when a packet arrives at an egress port:
//! DCTCP threshold marking (M17) and RED with ECN (M16). Buffer admission is the port's job.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::packet::Ecn;
use crate::scenario::NonEctPolicy;
use crate::units::Time;

/// What AQM decides for an admitted packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Enqueue with the CE codepoint set.
    Mark,
    /// Drop: the packet should have been marked but is not ECN-capable (RFC 3168 §7), or RED drops.
    Drop,
}

#[derive(Debug)]
pub enum Aqm {
    DropTail,
    Threshold(Threshold),
    Red(Box<Red>),
}

impl Aqm {
    /// `occupancy` is the port's packet count before this packet joins (per the AQM's own
    /// counting rule, applied by the caller); `now` and `idle_since` serve RED's idle correction.
    #[inline]
    pub fn on_arrival(&mut self, ecn: Ecn, occupancy: u32, now: Time, idle_since: Option<Time>) -> Verdict {
        match self {
            Aqm::DropTail => Verdict::Enqueue,
            Aqm::Threshold(t) => t.on_arrival(ecn, occupancy),
            Aqm::Red(r) => r.on_arrival(ecn, occupancy, now, idle_since),
        }
    }
}

/// Mark CE iff the instantaneous queue exceeds K packets on arrival (DCTCP paper §3.1 item 1).
#[derive(Debug, Clone)]
pub struct Threshold {
    pub k_packets: u32,
    pub nonect: NonEctPolicy,
    pub count_in_service: bool,
}

impl Threshold {
    #[inline]
    pub fn on_arrival(&self, ecn: Ecn, occupancy: u32) -> Verdict {
        if occupancy <= self.k_packets {
            return Verdict::Enqueue;
        }
        match (ecn, self.nonect) {
            (Ecn::Ect | Ecn::Ce, _) => Verdict::Mark,
            // §7.2: RED-ECN hardware drops what it cannot mark.
            (Ecn::NotEct, NonEctPolicy::Drop) => Verdict::Drop,
            (Ecn::NotEct, NonEctPolicy::Enqueue) => Verdict::Enqueue,
        }
    }
}

/// RED (Floyd & Jacobson 1993) on the EWMA of the queue in packets, counting packets since
/// the last mark so that marks are spaced out (p_a = p_b / (1 - count·p_b)).
#[derive(Debug)]
pub struct Red {
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub ecn: bool,
    pub gentle: bool,
    /// Transmission time of a typical packet: idle periods count as this many arrivals (m).
    pub typical_tx: Time,
    pub avg: f64,
    count: i64,
    rng: ChaCha8Rng,
}

impl Red {
    #[allow(clippy::too_many_arguments)]
    pub fn new(min_th: f64, max_th: f64, max_p: f64, weight_log2: u32, ecn: bool, gentle: bool, typical_tx: Time, rng: ChaCha8Rng) -> Self {
        Red {
            min_th,
            max_th,
            max_p,
            w_q: (0.5f64).powi(weight_log2 as i32),
            ecn,
            gentle,
            typical_tx: typical_tx.max(Time::from_ps(1)),
            avg: 0.0,
            count: -1,
            rng,
        }
    }

    /// The marking probability p_b for an average queue `avg` (before the count correction).
    pub fn base_probability(&self, avg: f64) -> f64 {
        if avg < self.min_th {
            0.0
        } else if avg < self.max_th {
            self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle && avg < 2.0 * self.max_th {
            self.max_p + (1.0 - self.max_p) * (avg - self.max_th) / self.max_th
        } else {
            1.0
        }
    }

    pub fn on_arrival(&mut self, ecn: Ecn, occupancy: u32, now: Time, idle_since: Option<Time>) -> Verdict {
        // Floyd & Jacobson: after an idle period the average decays as if m small packets had
        // arrived to an empty queue, m = idle time / typical transmission time.
        match idle_since {
            Some(since) if occupancy == 0 => {
                // An empty port's link freed at or before `now`: saturating is only a guard. The
                // count is clamped (not wrapped) into i32; past ~2^31 it makes avg 0 either way.
                let m = (now.saturating_sub(since) / self.typical_tx).min(i32::MAX as u64 - 1) as i32;
                // m idle "arrivals" plus this one, all seeing an empty queue.
                self.avg *= (1.0 - self.w_q).powi(m + 1);
            }
            _ => self.avg = (1.0 - self.w_q) * self.avg + self.w_q * occupancy as f64,
        }
        let p_b = self.base_probability(self.avg);
        let congested = if p_b <= 0.0 {
            self.count = -1;
            false
        } else if p_b >= 1.0 {
            self.count = 0;
            true
        } else {
            self.count += 1;
            let denom = 1.0 - self.count as f64 * p_b;
            let p_a = if denom <= 0.0 { 1.0 } else { (p_b / denom).min(1.0) };
            if self.rng.gen::<f64>() < p_a {
                self.count = 0;
                true
            } else {
                false
            }
        };
        match (congested, ecn) {
            (false, _) => Verdict::Enqueue,
            (true, Ecn::Ect | Ecn::Ce) if self.ecn => Verdict::Mark,
            (true, _) => Verdict::Drop,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn threshold_marks_strictly_above_k() {
        let t = Threshold {
            k_packets: 20,
            nonect: NonEctPolicy::Drop,
            count_in_service: true,
        };
        assert_eq!(t.on_arrival(Ecn::Ect, 20), Verdict::Enqueue);
        assert_eq!(t.on_arrival(Ecn::Ect, 21), Verdict::Mark);
        assert_eq!(t.on_arrival(Ecn::Ce, 21), Verdict::Mark);
        assert_eq!(t.on_arrival(Ecn::NotEct, 20), Verdict::Enqueue);
        assert_eq!(t.on_arrival(Ecn::NotEct, 21), Verdict::Drop);
        let lenient = Threshold {
            nonect: NonEctPolicy::Enqueue,
            ..t
        };
        assert_eq!(lenient.on_arrival(Ecn::NotEct, 500), Verdict::Enqueue);
    }

    fn red(gentle: bool) -> Red {
        Red::new(20.0, 60.0, 0.1, 9, true, gentle, Time::from_us(12), ChaCha8Rng::seed_from_u64(1))
    }

    #[test]
    fn red_probability_ramp_hand_computed() {
        let r = red(false);
        assert_eq!(r.w_q, 1.0 / 512.0);
        assert_eq!(r.base_probability(19.9), 0.0);
        assert!((r.base_probability(40.0) - 0.05).abs() < 1e-12); // 0.1·(40−20)/(60−20)
        assert!((r.base_probability(50.0) - 0.075).abs() < 1e-12);
        assert_eq!(r.base_probability(60.0), 1.0);
        let g = red(true);
        assert!((g.base_probability(90.0) - 0.55).abs() < 1e-12); // 0.1 + 0.9·(90−60)/60
        assert_eq!(g.base_probability(120.0), 1.0);
    }

    #[test]
    fn red_average_follows_ewma() {
        let mut r = red(false);
        // Queue of 10 packets seen by 3 arrivals: avg = 10·(1 − (1 − 1/512)^3).
        for _ in 0..3 {
            r.on_arrival(Ecn::Ect, 10, Time::ZERO, None);
        }
        let expect = 10.0 * (1.0 - (1.0 - 1.0 / 512.0f64).powi(3));
        assert!((r.avg - expect).abs() < 1e-12);
        // An idle period of 100 typical transmissions decays it by (1 − w_q)^101.
        let before = r.avg;
        r.on_arrival(Ecn::Ect, 0, Time::from_us(1200), Some(Time::ZERO));
        assert!((r.avg - before * (1.0 - 1.0 / 512.0f64).powi(101)).abs() < 1e-12);
    }

    #[test]
    fn red_marks_ect_and_drops_non_ect_above_max_th() {
        let mut r = red(false);
        r.avg = 100.0;
        assert_eq!(r.on_arrival(Ecn::Ect, 100, Time::ZERO, None), Verdict::Mark);
        assert_eq!(r.on_arrival(Ecn::NotEct, 100, Time::ZERO, None), Verdict::Drop);
        let mut no_ecn = red(false);
        no_ecn.ecn = false;
        no_ecn.avg = 100.0;
        assert_eq!(no_ecn.on_arrival(Ecn::Ect, 100, Time::ZERO, None), Verdict::Drop);
    }

    #[test]
    fn red_mark_rate_in_ramp_is_near_uniformised_probability() {
        // Floyd & Jacobson's pseudo-code (count reset to 0 on a mark, incremented before
        // p_a = p_b/(1 − count·p_b)) spaces marks uniformly over {1, …, 1/p_b − 1}: each gap
        // has probability p_b/(1 − p_b), the mean gap is 1/(2·p_b), the mark fraction 2·p_b.
        let mut r = red(false);
        let n = 200_000;
        let mut marks = 0;
        for _ in 0..n {
            r.avg = 40.0; // pin the average: p_b = 0.05
            r.w_q = 0.0;
            if r.on_arrival(Ecn::Ect, 40, Time::ZERO, None) == Verdict::Mark {
                marks += 1;
            }
        }
        let frac = marks as f64 / n as f64;
        let expect = 2.0 * 0.05;
        assert!((frac - expect).abs() < 0.004, "mark fraction {frac}, expected {expect}");
    }
}
