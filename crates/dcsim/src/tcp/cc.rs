//! Congestion control: a small trait over a window the sender owns, and a closed enum of the
//! built-ins (NewReno, TCP-ECN, DCTCP) so the hot path has no dynamic dispatch.
//!
//! The sender (`tcp::endpoint`) does what all of them share: slow start and congestion
//! avoidance growth, loss recovery, and the "at most one reduction per window" guard (M9).
//! A controller only decides how to react to ECN-Echo and keeps its own estimator state.

use crate::scenario::CcKind;

/// Congestion window and slow-start threshold, bytes (fractional: DCTCP cuts by α/2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

impl Window {
    /// RFC 5681 §3.1 growth for an ACK of `acked` new bytes, counted in segments as the
    /// papers' stacks and ns-2 do (spec M3: a short final segment counts as one), capped at
    /// 2 per ACK in slow start (RFC 3465, L = 2) so delayed ACKs still double cwnd per RTT.
    pub fn grow(&mut self, acked: u64, mss: f64) {
        let segments = (acked as f64 / mss).ceil();
        if self.cwnd < self.ssthresh {
            self.cwnd += segments.min(2.0) * mss;
        } else {
            self.cwnd += mss * segments * mss / self.cwnd;
        }
    }
}

/// What an ACK that advanced snd_una tells the controller.
#[derive(Debug, Clone, Copy)]
pub struct AckSample {
    pub newly_acked: u64,
    pub ece: bool,
    pub snd_una: u64,
    pub snd_nxt: u64,
}

pub trait CongestionControl {
    /// Every ACK that advances snd_una, before any reaction: estimator bookkeeping.
    fn on_ack(&mut self, _ack: &AckSample) {}
    /// ECN-Echo arrived and the once-per-window guard allows a reduction.
    fn on_ecn_echo(&mut self, w: &mut Window, mss: f64);
    /// Whether the sender negotiates ECN and marks its data ECT.
    fn ecn_capable(&self) -> bool;
    /// The estimator value to report (DCTCP's α), NaN for the others.
    fn alpha(&self) -> f64 {
        f64::NAN
    }
}

/// RFC 3168 §6.1.2: halve once per window, `cwnd = ssthresh = max(cwnd/2, 1 MSS)`.
fn halve(w: &mut Window, mss: f64) {
    w.cwnd = (w.cwnd / 2.0).max(mss);
    w.ssthresh = w.cwnd;
}

#[derive(Debug, Clone)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn on_ecn_echo(&mut self, w: &mut Window, mss: f64) {
        halve(w, mss); // unreachable in practice: NewReno never negotiates ECN
    }
    fn ecn_capable(&self) -> bool {
        false
    }
}

#[derive(Debug, Clone)]
pub struct TcpEcn;

impl CongestionControl for TcpEcn {
    fn on_ecn_echo(&mut self, w: &mut Window, mss: f64) {
        halve(w, mss);
    }
    fn ecn_capable(&self) -> bool {
        true
    }
}

/// DCTCP sender (DCTCP paper §3.1 item 3, M20).
#[derive(Debug, Clone)]
pub struct Dctcp {
    pub g: f64,
    pub alpha: f64,
    bytes_acked: u64,
    bytes_marked: u64,
    /// snd_una must pass this for the current observation window to close.
    window_end: u64,
    min_cwnd: f64,
}

impl Dctcp {
    pub fn new(g: f64, alpha_init: f64, min_cwnd: f64) -> Self {
        // window_end = 1 = snd_nxt after the SYN, as Linux's dctcp_init sets next_seq = snd_nxt.
        Dctcp {
            g,
            alpha: alpha_init,
            bytes_acked: 0,
            bytes_marked: 0,
            window_end: 1,
            min_cwnd,
        }
    }
}

impl CongestionControl for Dctcp {
    fn on_ack(&mut self, ack: &AckSample) {
        self.bytes_acked += ack.newly_acked;
        if ack.ece {
            self.bytes_marked += ack.newly_acked;
        }
        if ack.snd_una >= self.window_end {
            // Eq. (1): α ← (1 − g)·α + g·F, once per window of data.
            let f = self.bytes_marked as f64 / self.bytes_acked.max(1) as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
            self.window_end = ack.snd_nxt;
        }
    }

    fn on_ecn_echo(&mut self, w: &mut Window, _mss: f64) {
        // Eq. (2): cwnd ← cwnd·(1 − α/2); leave slow start (ssthresh = cwnd).
        w.cwnd = (w.cwnd * (1.0 - self.alpha / 2.0)).max(self.min_cwnd);
        w.ssthresh = w.cwnd;
    }

    fn ecn_capable(&self) -> bool {
        true
    }

    fn alpha(&self) -> f64 {
        self.alpha
    }
}

/// The built-in controllers, dispatched by `match`.
#[derive(Debug, Clone)]
pub enum Cc {
    NewReno(NewReno),
    TcpEcn(TcpEcn),
    Dctcp(Dctcp),
}

impl Cc {
    pub fn new(kind: CcKind, g: f64, alpha_init: f64, min_cwnd: f64) -> Self {
        match kind {
            CcKind::Newreno => Cc::NewReno(NewReno),
            CcKind::TcpEcn => Cc::TcpEcn(TcpEcn),
            CcKind::Dctcp => Cc::Dctcp(Dctcp::new(g, alpha_init, min_cwnd)),
        }
    }

    #[inline]
    pub fn on_ack(&mut self, ack: &AckSample) {
        match self {
            Cc::NewReno(c) => c.on_ack(ack),
            Cc::TcpEcn(c) => c.on_ack(ack),
            Cc::Dctcp(c) => c.on_ack(ack),
        }
    }

    pub fn on_ecn_echo(&mut self, w: &mut Window, mss: f64) {
        match self {
            Cc::NewReno(c) => c.on_ecn_echo(w, mss),
            Cc::TcpEcn(c) => c.on_ecn_echo(w, mss),
            Cc::Dctcp(c) => c.on_ecn_echo(w, mss),
        }
    }

    pub fn ecn_capable(&self) -> bool {
        match self {
            Cc::NewReno(c) => c.ecn_capable(),
            Cc::TcpEcn(c) => c.ecn_capable(),
            Cc::Dctcp(c) => c.ecn_capable(),
        }
    }

    pub fn alpha(&self) -> f64 {
        match self {
            Cc::NewReno(c) => c.alpha(),
            Cc::TcpEcn(c) => c.alpha(),
            Cc::Dctcp(c) => c.alpha(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: f64 = 1460.0;

    #[test]
    fn slow_start_doubles_per_rtt_with_delayed_acks() {
        // 10 segments acked by 5 ACKs of 2 segments each: +2 MSS per ACK -> cwnd 10 -> 20 MSS.
        let mut w = Window {
            cwnd: 10.0 * MSS,
            ssthresh: f64::INFINITY,
        };
        for _ in 0..5 {
            w.grow(2 * 1460, MSS);
        }
        assert_eq!(w.cwnd, 20.0 * MSS);
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_window() {
        let mut w = Window {
            cwnd: 10.0 * MSS,
            ssthresh: 5.0 * MSS,
        };
        w.grow(1460, MSS);
        assert!((w.cwnd - (10.0 * MSS + MSS / 10.0)).abs() < 1e-9);
    }

    #[test]
    fn growth_counts_a_short_segment_as_one() {
        // After a timeout (cwnd 1 MSS) the ACK of a 340-B final segment opens the window to
        // 2 MSS, as in a packet-counting stack; 3 segments in one ACK still add only 2.
        let mut w = Window {
            cwnd: MSS,
            ssthresh: 10.0 * MSS,
        };
        w.grow(340, MSS);
        assert_eq!(w.cwnd, 2.0 * MSS);
        w.grow(3 * 1460, MSS);
        assert_eq!(w.cwnd, 4.0 * MSS);
        // Congestion avoidance: 1460 + 340 B = 2 segments -> +2·MSS²/cwnd.
        let mut ca = Window {
            cwnd: 10.0 * MSS,
            ssthresh: 5.0 * MSS,
        };
        ca.grow(1800, MSS);
        assert!((ca.cwnd - (10.0 * MSS + 2.0 * MSS / 10.0)).abs() < 1e-9);
    }

    #[test]
    fn dctcp_alpha_sequence_hand_computed() {
        // g = 1/16, α0 = 1. Windows of 10 segments with 0, 10, 5 marked:
        // α1 = 15/16 = 0.9375; α2 = 0.9375·15/16 + 1/16 = 0.94140625;
        // α3 = 0.94140625·15/16 + 0.5/16 = 0.913818359375.
        let seg = 1460u64;
        let mut d2 = Dctcp::new(1.0 / 16.0, 1.0, 2.0 * MSS);
        d2.window_end = 10 * seg;
        d2.on_ack(&AckSample {
            newly_acked: 10 * seg,
            ece: false,
            snd_una: 10 * seg,
            snd_nxt: 20 * seg,
        });
        assert_eq!(d2.alpha, 0.9375);
        d2.on_ack(&AckSample {
            newly_acked: 10 * seg,
            ece: true,
            snd_una: 20 * seg,
            snd_nxt: 30 * seg,
        });
        assert_eq!(d2.alpha, 0.94140625);
        d2.on_ack(&AckSample {
            newly_acked: 5 * seg,
            ece: true,
            snd_una: 25 * seg,
            snd_nxt: 35 * seg,
        });
        assert_eq!(d2.alpha, 0.94140625, "window not closed yet");
        d2.on_ack(&AckSample {
            newly_acked: 5 * seg,
            ece: false,
            snd_una: 30 * seg,
            snd_nxt: 40 * seg,
        });
        assert_eq!(d2.alpha, 0.913818359375);
    }

    #[test]
    fn dctcp_cut_uses_alpha_and_floor() {
        let mut d = Dctcp::new(1.0 / 16.0, 0.5, 2.0 * MSS);
        let mut w = Window {
            cwnd: 40.0 * MSS,
            ssthresh: f64::INFINITY,
        };
        d.on_ecn_echo(&mut w, MSS);
        assert_eq!(w.cwnd, 30.0 * MSS); // 40·(1 − 0.25)
        assert_eq!(w.ssthresh, 30.0 * MSS);
        d.alpha = 1.0;
        let mut small = Window {
            cwnd: 3.0 * MSS,
            ssthresh: 3.0 * MSS,
        };
        d.on_ecn_echo(&mut small, MSS);
        assert_eq!(small.cwnd, 2.0 * MSS); // 1.5 MSS floored at 2 MSS
    }

    #[test]
    fn tcp_ecn_halves() {
        let mut w = Window {
            cwnd: 40.0 * MSS,
            ssthresh: f64::INFINITY,
        };
        TcpEcn.on_ecn_echo(&mut w, MSS);
        assert_eq!((w.cwnd, w.ssthresh), (20.0 * MSS, 20.0 * MSS));
        let mut tiny = Window {
            cwnd: 1.5 * MSS,
            ssthresh: 10.0 * MSS,
        };
        TcpEcn.on_ecn_echo(&mut tiny, MSS);
        assert_eq!(tiny.cwnd, MSS);
    }
}
