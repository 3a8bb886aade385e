//! CUBIC (RFC 9438), Linux's default congestion control. Windows are kept in bytes (§4.1:
//! "implementations can use bytes", so C is scaled by the MSS) and times in seconds.
//!
//! - Slow start is RFC 5681's (§4.10 allows it; HyStart++ is not modelled), with the stack's
//!   segment counting (RFC 3465, L = 2).
//! - Congestion avoidance follows W_cubic(t) = C·(t − K)³ + W_max (§4.2) towards
//!   target = W_cubic(t + RTT) bounded to [cwnd, 1.5·cwnd], unless the Reno-friendly estimate
//!   W_est is ahead (§4.3). The per-ACK step (target − cwnd)/cwnd of §4.4–§4.5 is taken per
//!   segment acknowledged, as Linux's `tcp_cong_avoid_ai(tp, cnt, acked)` and as W_est counts
//!   (§4.3 eq. 4), so delayed ACKs do not halve the cubic growth against the Reno one.
//! - A loss or an ECN-Echo reduces ssthresh to FlightSize·β and cwnd to it (floors 2 and 1
//!   MSS, §4.6), after fast convergence has set W_max (§4.7); a timeout uses the same
//!   ssthresh and Reno's loss window (§4.8). Full-ACK exit from recovery and restart after
//!   idle are the standard ones (§4.2: CUBIC does not change fast recovery).
//! - Application-limited time (ACKs that may not grow cwnd, and idle time with nothing in
//!   flight) does not count in t (§5.8).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ack, CcParams, CongestionControl, ConnView, Window};
use crate::units::Time;

/// CUBIC's parameters (RFC 9438; used by connections with `cc = "cubic"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C, segments/s³: how fast the window grows away from W_max (RFC 9438 §4.1.1, §5.1: 0.4).
    #[schemars(range(min = 0.0, max = 100.0))]
    pub c: f64,
    /// β_cubic, the window kept at a congestion event (RFC 9438 §4.6: 0.7).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub beta: f64,
    /// Fast convergence: lower W_max further when a congestion event comes below it
    /// (RFC 9438 §4.7, SHOULD: on).
    pub fast_convergence: bool,
    /// Negotiate ECN (RFC 3168) and treat ECN-Echo as a congestion event (RFC 9438 §4.6). Off
    /// like Linux's default (`net.ipv4.tcp_ecn = 2` does not request ECN).
    pub ecn: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            ecn: false,
        }
    }
}

/// CUBIC's state, boxed: every connection end holds the largest of the built-ins inline, and
/// CUBIC's state is about twice DCTCP's.
#[derive(Debug, Clone)]
pub struct Cubic(Box<CubicState>);

impl std::ops::Deref for Cubic {
    type Target = CubicState;
    fn deref(&self) -> &CubicState {
        &self.0
    }
}

impl std::ops::DerefMut for Cubic {
    fn deref_mut(&mut self) -> &mut CubicState {
        &mut self.0
    }
}

#[derive(Debug, Clone)]
pub struct CubicState {
    /// C, segments/s³ (§4.1.1).
    c: f64,
    /// β_cubic (§4.6).
    beta: f64,
    fast_convergence: bool,
    ecn: bool,
    /// α_cubic = 3·(1 − β_cubic)/(1 + β_cubic) (§4.3).
    alpha_cubic: f64,
    /// W_max, bytes (§4.1.2); 0 before the first congestion event.
    w_max: f64,
    /// cwnd_prior, bytes: cwnd when ssthresh was last set (§4.1.2).
    cwnd_prior: f64,
    /// K, seconds (§4.2 eq. 2).
    k: f64,
    /// t_epoch: when the current congestion-avoidance stage started (§4.2); None outside one.
    epoch: Option<Time>,
    /// W_est, bytes (§4.3).
    w_est: f64,
    /// The next stage is the first after a timeout: K = 0, W_max = cwnd_epoch (§4.8).
    after_timeout: bool,
    /// The previous ACK that advanced snd_una, and whether it left nothing in flight (§5.8).
    last_ack: Time,
    idle: bool,
}

impl Cubic {
    pub fn with(p: &CubicConfig) -> Self {
        Cubic(Box::new(CubicState {
            c: p.c,
            beta: p.beta,
            fast_convergence: p.fast_convergence,
            ecn: p.ecn,
            alpha_cubic: 3.0 * (1.0 - p.beta) / (1.0 + p.beta),
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch: None,
            w_est: 0.0,
            after_timeout: false,
            last_ack: Time::ZERO,
            idle: false,
        }))
    }
}

impl CubicState {

    /// §4.2 eq. 1, W_cubic(t) = C·(t − K)³ + W_max, in bytes (C·MSS bytes/s³).
    fn w_cubic(&self, t: f64, mss: f64) -> f64 {
        let d = t - self.k;
        self.c * mss * d * d * d + self.w_max
    }

    /// A congestion-avoidance stage starts at this ACK with cwnd_epoch = `cwnd`.
    fn start_epoch(&mut self, now: Time, cwnd: f64, mss: f64) -> Time {
        self.epoch = Some(now); // §4.2 t_epoch
        self.w_est = cwnd; // §4.3: W_est = cwnd_epoch at the start of the stage
        if self.after_timeout || self.w_max <= cwnd {
            // §4.8 (first stage after a timeout), §4.10 (no W_max yet, or already above it):
            // the curve starts at cwnd_epoch with K = 0.
            self.w_max = cwnd;
            self.k = 0.0;
            self.after_timeout = false;
        } else {
            self.k = ((self.w_max - cwnd) / (self.c * mss)).cbrt(); // §4.2 eq. 2
        }
        now
    }

    /// t excludes an application-limited period of length `d` (§5.8).
    fn shift_epoch(&mut self, d: Time) {
        if let Some(e) = &mut self.epoch {
            *e += d;
        }
    }

    /// A congestion event (§4.6), with cwnd at least `floor` segments: 2 on loss, 1 on ECE.
    fn reduce(&mut self, w: &mut Window, c: &ConnView, floor: f64) {
        // §4.7 fast convergence, before the reduction.
        self.w_max = if self.fast_convergence && w.cwnd < self.w_max {
            w.cwnd * (1.0 + self.beta) / 2.0
        } else {
            w.cwnd
        };
        let ssthresh = c.reduce_from as f64 * self.beta; // §4.6: ssthresh = flight_size·β_cubic (or the stack's base)
        self.cwnd_prior = w.cwnd; // §4.6: cwnd_prior = cwnd
        w.cwnd = ssthresh.max(floor * c.mss); // §4.6: cwnd = max(ssthresh, 2 or 1 MSS)
        w.ssthresh = ssthresh.max(2.0 * c.mss); // §4.6: ssthresh ≥ 2 MSS
        self.epoch = None; // §4.2: a new congestion-avoidance stage follows the event
    }
}

impl CongestionControl for Cubic {
    fn new(p: &CcParams) -> Self {
        Cubic::with(&p.cubic)
    }

    fn ecn_capable(&self) -> bool {
        self.ecn
    }

    fn on_ack(&mut self, w: &mut Window, now: Time, ack: &Ack, c: &ConnView) {
        let (since, was_idle) = (self.last_ack, self.idle);
        self.last_ack = now;
        self.idle = c.flight == 0;
        if !ack.may_grow(c) {
            if !c.in_recovery && !ack.ecn_cut {
                // §5.8: application-limited, no growth, and t does not advance.
                self.shift_epoch(now - since);
            }
            return;
        }
        if was_idle {
            // §5.8: nor the idle time until this ACK's segment was sent (now − RTT sample).
            if let Some(r) = ack.rtt {
                self.shift_epoch(now.saturating_sub(r).saturating_sub(since));
            }
        }
        let mss = c.mss;
        let mut acked = ack.counted(w.rules.counting);
        if w.in_slow_start() {
            self.epoch = None; // §4.2: the congestion-avoidance stage starts when slow start ends
            acked = w.slow_start(acked, mss); // §4.10: RFC 5681 slow start
            if acked == 0 {
                return;
            }
        }
        let segments = w.rules.segments(acked, mss);
        let epoch = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(now, w.cwnd, mss),
        };
        let t = (now - epoch).as_secs_f64(); // §4.2: t = t_current − t_epoch
        // §4.3 eq. 4, with α_cubic = 1 once W_est has reached cwnd_prior.
        let alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { self.alpha_cubic };
        self.w_est += alpha * segments * mss * mss / w.cwnd;
        if self.w_cubic(t, mss) < self.w_est {
            // §4.3 Reno-friendly region: cwnd = W_est (never lowered by an ACK).
            w.cwnd = w.cwnd.max(self.w_est);
        } else {
            // §4.2 target = W_cubic(t + RTT) within [cwnd, 1.5·cwnd], RTT the smoothed RTT.
            let rtt = c.srtt.map_or(0.0, Time::as_secs_f64);
            let target = self.w_cubic(t + rtt, mss).clamp(w.cwnd, 1.5 * w.cwnd);
            // §4.4 concave (cwnd < W_max), §4.5 convex: cwnd += (target − cwnd)/cwnd.
            w.cwnd += segments * mss * (target - w.cwnd) / w.cwnd;
        }
    }

    fn on_ecn_echo(&mut self, w: &mut Window, _now: Time, c: &ConnView) {
        self.reduce(w, c, 1.0); // §4.6, reduction on ECE: cwnd at least 1 MSS
    }

    fn on_recovery_start(&mut self, w: &mut Window, _now: Time, c: &ConnView) {
        self.reduce(w, c, 2.0); // §4.6, reduction on loss: cwnd at least 2 MSS
    }

    fn on_rto(&mut self, w: &mut Window, _now: Time, c: &ConnView) {
        self.reduce(w, c, 2.0); // §4.8: ssthresh by β_cubic as in §4.6 ...
        w.cwnd = c.mss; // ... and cwnd as Reno, RFC 5681's loss window
        self.after_timeout = true; // §4.8: the next stage starts with K = 0
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ack, view, window};
    use super::*;

    const MSS: f64 = 1460.0;
    const SEG: u64 = 1460;
    const T0: Time = Time::from_secs(10);

    fn ms(n: u64) -> Time {
        Time::from_ms(n)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    /// An ACK of `n` segments, cwnd-limited, with RFC 6298 SRTT `srtt`.
    fn ack_segments(cu: &mut Cubic, w: &mut Window, now: Time, n: u64, srtt: Option<Time>) {
        let c = ConnView {
            srtt,
            ..view(20 * SEG)
        };
        cu.on_ack(w, now, &ack(n * SEG), &c);
    }

    /// A loss at cwnd = flight = 36 segments, then the full ACK: cwnd = ssthresh = 25.2.
    fn after_loss_at_36() -> (Cubic, Window) {
        let mut cu = Cubic::with(&CubicConfig::default());
        let mut w = window(36.0 * MSS, f64::INFINITY);
        cu.on_recovery_start(&mut w, T0, &view(36 * SEG));
        cu.on_recovery_end(&mut w, T0, &view(30 * SEG));
        (cu, w)
    }

    #[test]
    fn window_follows_the_cubic_curve_hand_computed() {
        // β = 0.7, C = 0.4. A loss at cwnd = FlightSize = 36 segments: W_max = 36 (§4.7, the
        // first event), ssthresh = cwnd = 36·0.7 = 25.2 segments (§4.6); the full ACK with 30
        // segments out keeps cwnd = min(25.2, 31) = 25.2. The first ACK in congestion
        // avoidance starts the epoch, cwnd_epoch = 25.2:
        //   K = cbrt((W_max − cwnd_epoch)/C) = cbrt(10.8/0.4) = cbrt(27) = 3 s   (eq. 2)
        //   W_cubic(0)       = 0.4·(−3)³ + 36   = −10.8 + 36 = 25.2 = cwnd_epoch
        //   W_cubic(K/2=1.5) = 0.4·(−1.5)³ + 36 = −1.35 + 36  = 34.65
        //   W_cubic(K=3)     = 36 = W_max (the plateau)
        //   W_cubic(2K=6)    = 0.4·3³ + 36      = 10.8 + 36   = 46.8
        let (mut cu, mut w) = after_loss_at_36();
        assert!(close(w.cwnd, 25.2 * MSS) && close(w.ssthresh, 25.2 * MSS));
        assert_eq!(cu.w_max, 36.0 * MSS);
        // The first ACK in congestion avoidance (t = 0) starts the stage.
        ack_segments(&mut cu, &mut w, T0, 1, None);
        assert_eq!(cu.epoch, Some(T0));
        assert!(close(cu.k, 3.0), "K = {}", cu.k);
        for (t, want) in [(0.0, 25.2), (1.5, 34.65), (3.0, 36.0), (6.0, 46.8)] {
            assert!(close(cu.w_cubic(t, MSS) / MSS, want), "W_cubic({t}) = {}", cu.w_cubic(t, MSS) / MSS);
        }

        // One ACK at t = K/2 = 1.5 s with cwnd = 30 segments and SRTT 0.5 s:
        // target = W_cubic(2.0) = 0.4·(−1)³ + 36 = 35.6 ∈ [30, 45] (§4.2), concave region
        // (§4.4): cwnd += (35.6 − 30)/30 = 0.18666… segments.
        w.cwnd = 30.0 * MSS;
        cu.w_est = 0.0; // keep the Reno estimate out of the way
        ack_segments(&mut cu, &mut w, T0 + ms(1500), 1, Some(ms(500)));
        assert!(close(w.cwnd / MSS, 30.0 + 5.6 / 30.0), "{}", w.cwnd / MSS);
        // At t = 2K = 6 s, cwnd = 40, SRTT 0: target = W_cubic(6) = 46.8 (convex, §4.5):
        // cwnd += 6.8/40 = 0.17 per segment; an ACK of 2 segments adds 0.34.
        w.cwnd = 40.0 * MSS;
        cu.w_est = 0.0;
        ack_segments(&mut cu, &mut w, T0 + ms(6000), 2, None);
        assert!(close(w.cwnd / MSS, 40.34), "{}", w.cwnd / MSS);
        // With cwnd = 20 (above ssthresh 15) the curve (46.8) is above 1.5·cwnd = 30:
        // target = 30, cwnd += 10/20 = 0.5 segment.
        w.cwnd = 20.0 * MSS;
        w.ssthresh = 15.0 * MSS;
        cu.w_est = 0.0;
        ack_segments(&mut cu, &mut w, T0 + ms(6000), 1, None);
        assert!(close(w.cwnd / MSS, 20.5), "{}", w.cwnd / MSS);
    }

    #[test]
    fn an_ack_clocked_window_tracks_w_cubic() {
        // After the loss above, one ACK per segment and cwnd segments per RTT of 200 ms (long
        // enough that W_est, +0.53 segment per RTT, is below the curve at these points):
        // cwnd, aiming one RTT ahead, stays within 1% of W_cubic(t) at K/2, K and 2K.
        let (mut cu, mut w) = after_loss_at_36();
        let rtt = 0.2;
        let mut t = 0.0;
        let mut checks = vec![(6.0, 46.8), (3.0, 36.0), (1.5, 34.65)];
        while let Some(&(at, want)) = checks.last() {
            ack_segments(&mut cu, &mut w, T0 + Time::from_secs_f64(t), 1, Some(Time::from_secs_f64(rtt)));
            if t >= at {
                assert!(cu.w_est < cu.w_cubic(t, MSS), "Reno-friendly at {t}");
                let got = w.cwnd / MSS;
                assert!((got - want).abs() < 0.01 * want, "t = {t}: cwnd {got} vs W_cubic {want}");
                checks.pop();
            }
            t += rtt * MSS / w.cwnd;
        }
    }

    #[test]
    fn reno_friendly_region_takes_over_when_w_est_is_ahead() {
        // A timeout at cwnd = FlightSize = 20 segments: ssthresh = 14, cwnd = 1 (§4.8),
        // cwnd_prior = 20. Back at cwnd = 14 (slow start), the first ACK in congestion
        // avoidance starts a stage with K = 0 and W_max = cwnd_epoch = 14 (§4.8), so
        // W_cubic(t) = 14 + 0.4·t³ is flat at first, while W_est = 14 grows by
        // α_cubic/cwnd per segment, α_cubic = 3·0.3/1.7 = 0.52941176…:
        //   ACK 1 (t = 0):     W_est = 14 + 0.52941176/14 = 14.03781513 > W_cubic(0) = 14
        //   ACK 2 (t = 10 ms): W_est = 14.03781513 + 0.52941176/14.03781513 = 14.07552839
        //                      > W_cubic(0.01) = 14.0000004: cwnd = W_est each time (§4.3).
        let mut cu = Cubic::with(&CubicConfig::default());
        let mut w = window(20.0 * MSS, f64::INFINITY);
        cu.on_rto(&mut w, T0, &view(20 * SEG));
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 14.0 * MSS));
        assert_eq!(cu.cwnd_prior, 20.0 * MSS);
        w.cwnd = 14.0 * MSS;
        let alpha = 0.9 / 1.7;
        ack_segments(&mut cu, &mut w, T0, 1, Some(ms(100)));
        assert_eq!((cu.w_max, cu.k), (14.0 * MSS, 0.0));
        let w1 = 14.0 + alpha / 14.0;
        assert!(close(w.cwnd / MSS, w1), "{}", w.cwnd / MSS);
        ack_segments(&mut cu, &mut w, T0 + ms(10), 1, Some(ms(100)));
        let w2 = w1 + alpha / w1;
        assert!(close(w.cwnd / MSS, w2) && (w2 - 14.07552839).abs() < 1e-8, "{}", w.cwnd / MSS);
        // Once W_est reaches cwnd_prior (20 segments), α_cubic = 1: +1/cwnd per segment.
        cu.w_est = 20.0 * MSS;
        w.cwnd = 20.0 * MSS;
        ack_segments(&mut cu, &mut w, T0 + ms(20), 1, Some(ms(100)));
        assert!(close(w.cwnd / MSS, 20.05));
        // At t = 3 s the curve is ahead again: W_cubic(3) = 14 + 0.4·27 = 24.8 > W_est
        // (20 + 1/20 = 20.05, + 1/20.05 = 20.0999); with SRTT 100 ms the target is
        // W_cubic(3.1) = 14 + 0.4·29.791 = 25.9164, and cwnd += (25.9164 − 20.05)/20.05
        // = 0.292589 → 20.342589 segments (§4.4).
        ack_segments(&mut cu, &mut w, T0 + ms(3000), 1, Some(ms(100)));
        let want = 20.05 + (14.0 + 0.4 * 3.1f64.powi(3) - 20.05) / 20.05;
        assert!(close(w.cwnd / MSS, want) && (want - 20.342589).abs() < 1e-6, "{}", w.cwnd / MSS);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        // First loss at cwnd = FlightSize = 100 segments: W_max = 100, cwnd = ssthresh = 70.
        // Second at cwnd = 80 < W_max: W_max = 80·(1 + 0.7)/2 = 68 (§4.7), cwnd = 56;
        // without fast convergence W_max = 80.
        for (fast_convergence, w_max) in [(true, 68.0), (false, 80.0)] {
            let mut cu = Cubic::with(&CubicConfig {
                fast_convergence,
                ..CubicConfig::default()
            });
            let mut w = window(100.0 * MSS, f64::INFINITY);
            cu.on_recovery_start(&mut w, T0, &view(100 * SEG));
            assert_eq!(cu.w_max, 100.0 * MSS);
            assert!(close(w.cwnd / MSS, 70.0) && close(w.ssthresh / MSS, 70.0));
            w.cwnd = 80.0 * MSS;
            cu.on_recovery_start(&mut w, T0, &view(80 * SEG));
            assert!(close(cu.w_max / MSS, w_max), "{}", cu.w_max / MSS);
            assert!(close(w.cwnd / MSS, 56.0));
        }
    }

    #[test]
    fn reductions_use_flight_size_and_their_floors() {
        let mut cu = Cubic::with(&CubicConfig::default());
        // cwnd 50 segments but 30 in flight: ssthresh = cwnd = 30·0.7 = 21 (§4.6).
        let mut w = window(50.0 * MSS, f64::INFINITY);
        cu.on_recovery_start(&mut w, T0, &view(30 * SEG));
        assert!(close(w.cwnd / MSS, 21.0) && close(w.ssthresh / MSS, 21.0));
        assert_eq!(cu.cwnd_prior, 50.0 * MSS);
        // One segment in flight: 0.7 segment, floored at 1 on ECE and 2 on loss; ssthresh 2.
        w.cwnd = MSS;
        cu.on_ecn_echo(&mut w, T0, &view(SEG));
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 2.0 * MSS));
        cu.on_recovery_start(&mut w, T0, &view(SEG));
        assert_eq!((w.cwnd, w.ssthresh), (2.0 * MSS, 2.0 * MSS));
        assert!(!cu.ecn_capable());
        assert!(Cubic::with(&CubicConfig {
            ecn: true,
            ..CubicConfig::default()
        })
        .ecn_capable());
    }

    #[test]
    fn parameters_are_checked_against_their_bounds() {
        // The scenario checks the table's bounds.
        let with = |c: f64, beta: f64| {
            crate::Scenario::from_toml(&format!(
                "[sim]\nduration_s = 0.01\n[topology]\nkind = \"star\"\nhosts = 2\n[tcp.cubic]\nc = {c:?}\nbeta = {beta:?}\n"
            ))
        };
        assert!(with(0.4, 0.7).is_ok() && with(100.0, 1.0).is_ok() && with(1e-9, 1e-9).is_ok());
        for (c, beta, field) in [(0.0, 0.7, "tcp.cubic.c"), (100.5, 0.7, "tcp.cubic.c"), (0.4, 0.0, "tcp.cubic.beta"), (0.4, 1.5, "tcp.cubic.beta")] {
            let e = with(c, beta).expect_err("out of bounds");
            assert_eq!(e.field, field, "{e}");
        }
        assert!(with(f64::NAN, 0.7).is_err());
    }

    #[test]
    fn application_limited_time_does_not_count() {
        let (mut cu, mut w) = after_loss_at_36();
        ack_segments(&mut cu, &mut w, T0, 1, None);
        let cwnd = w.cwnd;
        // An ACK 2 s later that may not grow cwnd (neither cwnd-limited nor validated, RFC
        // 7661): no growth, and t_epoch moves 2 s later (§5.8).
        let limited = ConnView {
            cwnd_limited: false,
            window_validated: false,
            ..view(5 * SEG)
        };
        let ack = ack(SEG);
        cu.on_ack(&mut w, T0 + ms(2000), &ack, &limited);
        assert_eq!(w.cwnd, cwnd);
        assert_eq!(cu.epoch, Some(T0 + ms(2000)));
        // Everything acknowledged at 3 s (also application-limited: epoch 3 s), then idle
        // until a segment sent at 10 s is acknowledged at 10.1 s: its RTT sample (100 ms)
        // shows 7 s of idle time, which t does not count either.
        cu.on_ack(&mut w, T0 + ms(3000), &ack, &ConnView { flight: 0, ..limited });
        assert_eq!(cu.epoch, Some(T0 + ms(3000)));
        let after_idle = Ack {
            rtt: Some(ms(100)),
            ..ack
        };
        cu.on_ack(&mut w, T0 + ms(10_100), &after_idle, &view(5 * SEG));
        assert_eq!(cu.epoch, Some(T0 + ms(10_000)));
    }
}
