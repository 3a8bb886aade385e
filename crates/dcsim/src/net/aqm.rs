//! Active queue management: the mark-or-drop decision a queue takes on a packet, on its
//! arrival (DCTCP threshold marking, DCTCP paper §3.1; RED with ECN, RFC 3168 §7) or when it
//! leaves the queue for the link (threshold marking at dequeue; the PI controller of Hollot et
//! al.). Buffer admission is the queue's job, not the AQM's.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::packet::Ecn;
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

/// The AQMs, dispatched by `match`. An AQM acts on arrival, at dequeue, or both; a port
/// whose AQM acts at dequeue is run by a queue discipline (`net::qdisc`), not the FIFO fast path.
#[derive(Debug, Clone)]
pub enum Aqm {
    DropTail,
    Threshold(Threshold),
    Red(Box<Red>),
    Pi(Box<Pi>),
}

impl Aqm {
    /// `occupancy` is the queue's packet count before this packet joins (per the AQM's own
    /// counting rule, applied by the caller); `now` and `idle_since` serve RED's idle correction.
    #[inline]
    pub fn on_arrival(&mut self, ecn: Ecn, occupancy: u32, now: Time, idle_since: Option<Time>) -> Verdict {
        match self {
            Aqm::DropTail | Aqm::Pi(_) => Verdict::Enqueue,
            Aqm::Threshold(t) if t.at_dequeue => Verdict::Enqueue,
            Aqm::Threshold(t) => t.on_arrival(ecn, occupancy),
            Aqm::Red(r) => r.on_arrival(ecn, occupancy, now, idle_since),
        }
    }

    /// A packet leaves its queue for the link; `behind` packets stay queued after it.
    #[inline]
    pub fn on_dequeue(&mut self, ecn: Ecn, behind: u32) -> Verdict {
        match self {
            Aqm::Threshold(t) if t.at_dequeue => t.on_arrival(ecn, behind),
            Aqm::Pi(pi) => pi.on_dequeue(ecn),
            Aqm::DropTail | Aqm::Threshold(_) | Aqm::Red(_) => Verdict::Enqueue,
        }
    }

    /// The queue held `packets` from the last call until `now` (PI samples it periodically).
    /// Called only on ports with a queue discipline: an AQM that needs it must act at dequeue.
    #[inline]
    pub fn observe(&mut self, now: Time, packets: u32) {
        match self {
            Aqm::Pi(pi) => pi.advance(now, packets),
            Aqm::DropTail | Aqm::Threshold(_) | Aqm::Red(_) => {}
        }
    }

    /// Whether this AQM decides anything when packets leave the queue (its port then runs
    /// a queue discipline; otherwise the FIFO fast path, where `on_dequeue` and `observe`
    /// are never called).
    pub fn acts_at_dequeue(&self) -> bool {
        match self {
            Aqm::Pi(_) => true,
            Aqm::Threshold(t) => t.at_dequeue,
            Aqm::DropTail | Aqm::Red(_) => false,
        }
    }

    /// Whether the packet being serialised counts in the occupancy the AQM sees on arrival.
    pub fn counts_in_service(&self) -> bool {
        match self {
            Aqm::Threshold(t) => t.count_in_service,
            Aqm::DropTail | Aqm::Red(_) | Aqm::Pi(_) => true,
        }
    }
}

/// Mark CE iff the instantaneous queue exceeds K packets on arrival (DCTCP paper §3.1 item 1),
/// or, with `at_dequeue`, iff more than K packets stay behind a packet as it leaves the queue
/// (marking at dequeue: the signal reaches the sender a queueing delay sooner).
#[derive(Debug, Clone)]
pub struct Threshold {
    pub k_packets: u32,
    pub nonect: NonEctPolicy,
    pub count_in_service: bool,
    pub at_dequeue: bool,
}

impl Threshold {
    /// The marking rule on `occupancy` packets: ahead of the packet on arrival, behind it at
    /// dequeue.
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
#[derive(Debug, Clone)]
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

/// The proportional-integral AQM of Hollot, Misra, Towsley and Gong ("On designing improved
/// controllers for AQM routers supporting TCP flows", INFOCOM 2001, §IV): every sampling
/// period T the marking probability follows the difference equation
/// p(kT) = p((k−1)T) + a·(q(kT) − q_ref) − b·(q((k−1)T) − q_ref), clamped to [0, 1];
/// a packet leaving the queue is marked (ECT) or dropped (not ECT) with probability p.
#[derive(Debug, Clone)]
pub struct Pi {
    pub a: f64,
    pub b: f64,
    /// q_ref, packets.
    pub q_ref: f64,
    /// T, the sampling period.
    pub period: Time,
    pub ecn: bool,
    /// The marking probability.
    pub p: f64,
    /// q((k−1)T): the queue at the last sample.
    q_old: f64,
    /// When the next sample is taken.
    next_sample: Time,
    rng: ChaCha8Rng,
}

impl Pi {
    pub fn new(a: f64, b: f64, q_ref: f64, period: Time, ecn: bool, rng: ChaCha8Rng) -> Self {
        Pi {
            a,
            b,
            q_ref,
            period: period.max(Time::from_ps(1)),
            ecn,
            p: 0.0,
            q_old: 0.0,
            next_sample: period.max(Time::from_ps(1)),
            rng,
        }
    }

    /// Takes every sample due by `now`, the queue having held `packets` since the last call.
    /// Samples are computed, not scheduled: after the first, q(kT) = q((k−1)T), so each adds
    /// the same (a − b)·(q − q_ref) and a monotone run clamps like its end point.
    pub fn advance(&mut self, now: Time, packets: u32) {
        if now < self.next_sample {
            return;
        }
        let n = (now - self.next_sample) / self.period + 1;
        let q = packets as f64;
        self.p = (self.p + self.a * (q - self.q_ref) - self.b * (self.q_old - self.q_ref)).clamp(0.0, 1.0);
        if n > 1 {
            self.p = (self.p + (n - 1) as f64 * (self.a - self.b) * (q - self.q_ref)).clamp(0.0, 1.0);
        }
        self.q_old = q;
        // n ≤ now / period + 1, so the product stays below now + period.
        self.next_sample += self.period * n;
    }

    pub fn on_dequeue(&mut self, ecn: Ecn) -> Verdict {
        if self.p <= 0.0 || self.rng.gen::<f64>() >= self.p {
            return Verdict::Enqueue;
        }
        match ecn {
            Ecn::Ect | Ecn::Ce if self.ecn => Verdict::Mark,
            _ => Verdict::Drop,
        }
    }
}

/// When the threshold AQM looks at the queue.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MarkAt {
    #[default]
    Enqueue,
    Dequeue,
}

/// Treatment of non-ECN-capable packets when a marking queue is above K (Judd, "Coexistence
/// with TCP" and "RED-ECN AQM Implementation").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NonEctPolicy {
    /// RED-ECN hardware: a packet that cannot be marked is dropped.
    #[default]
    Drop,
    /// Mark-only: the packet is queued (up to the buffer limit).
    Enqueue,
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
            at_dequeue: false,
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

    #[test]
    fn threshold_at_dequeue_looks_behind_and_not_on_arrival() {
        let mut aqm = Aqm::Threshold(Threshold {
            k_packets: 20,
            nonect: NonEctPolicy::Drop,
            count_in_service: true,
            at_dequeue: true,
        });
        assert!(aqm.acts_at_dequeue());
        assert_eq!(aqm.on_arrival(Ecn::Ect, 500, Time::ZERO, None), Verdict::Enqueue);
        assert_eq!(aqm.on_dequeue(Ecn::Ect, 20), Verdict::Enqueue);
        assert_eq!(aqm.on_dequeue(Ecn::Ect, 21), Verdict::Mark);
        assert_eq!(aqm.on_dequeue(Ecn::NotEct, 21), Verdict::Drop);
    }

    fn pi() -> Pi {
        // Hollot et al.'s coefficients, q_ref = 200 packets, T = 1/160 s.
        Pi::new(
            1.822e-5,
            1.816e-5,
            200.0,
            Time::from_ps(6_250_000_000),
            true,
            ChaCha8Rng::seed_from_u64(3),
        )
    }

    #[test]
    fn pi_follows_its_difference_equation_by_hand() {
        let mut c = pi();
        let t = |k: u64| Time::from_ps(6_250_000_000 * k);
        // Before the first sample nothing changes.
        c.advance(t(1) - Time::from_ps(1), 300);
        assert_eq!(c.p, 0.0);
        // k = 1: q = 300, q_old = 0: p = 0 + 1.822e-5·100 − 1.816e-5·(−200) = 0.001822 + 0.003632.
        c.advance(t(1), 300);
        assert!((c.p - 0.005454).abs() < 1e-12, "{}", c.p);
        // k = 2: q = 250, q_old = 300: p += 1.822e-5·50 − 1.816e-5·100 = 0.000911 − 0.001816.
        c.advance(t(2), 250);
        assert!((c.p - 0.004549).abs() < 1e-12, "{}", c.p);
        // k = 3..5 in one call, q = 400 throughout: first 1.822e-5·200 − 1.816e-5·50 = 0.002736,
        // then twice (1.822e-5 − 1.816e-5)·200 = 0.000012: p = 0.004549 + 0.002736 + 0.000024.
        c.advance(t(5) + Time::from_ps(7), 400);
        assert!((c.p - 0.007309).abs() < 1e-12, "{}", c.p);
        // An empty queue for long drives p down to 0 and no lower.
        c.advance(t(1_000_000), 0);
        assert_eq!(c.p, 0.0);
        // The same sequence one sample at a time gives the same p (the closed form is exact).
        let (mut one, mut many) = (pi(), pi());
        for k in 1..=40 {
            one.advance(t(k), 260);
        }
        many.advance(t(40), 260);
        assert!((one.p - many.p).abs() < 1e-12, "{} vs {}", one.p, many.p);
        assert_eq!(one.next_sample, many.next_sample);
    }

    #[test]
    fn pi_marks_with_its_probability_at_dequeue() {
        let mut c = pi();
        c.p = 0.25;
        let n = 100_000;
        let marks = (0..n).filter(|_| c.on_dequeue(Ecn::Ect) == Verdict::Mark).count();
        assert!((marks as f64 / n as f64 - 0.25).abs() < 0.01, "{marks}");
        c.p = 1.0;
        assert_eq!(c.on_dequeue(Ecn::NotEct), Verdict::Drop);
        c.ecn = false;
        assert_eq!(c.on_dequeue(Ecn::Ect), Verdict::Drop);
        c.p = 0.0;
        assert_eq!(c.on_dequeue(Ecn::NotEct), Verdict::Enqueue);
    }
}
