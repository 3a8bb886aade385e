//! DCTCP sender (DCTCP paper §3.1 item 3): the fraction of marked bytes per window of
//! data feeds α (Eq. 1); an ECN-Echo the once-per-window guard lets through cuts cwnd by α/2
//! (Eq. 2). Growth, loss recovery, timeouts and restarts are the standard ones.

use super::{Ack, CcParams, CongestionControl, ConnView, Window};
use crate::units::Time;

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
    pub fn with(g: f64, alpha_init: f64, min_cwnd: f64) -> Self {
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
    fn new(p: &CcParams) -> Self {
        Dctcp::with(p.dctcp_g, p.dctcp_alpha_init, (p.dctcp_min_cwnd_segments * p.mss) as f64)
    }

    fn ecn_capable(&self) -> bool {
        true
    }

    fn on_ack(&mut self, w: &mut Window, _now: Time, ack: &Ack, c: &ConnView) {
        self.bytes_acked += ack.newly_acked;
        if ack.ece {
            self.bytes_marked += ack.newly_acked;
        }
        if c.snd_una >= self.window_end {
            // Eq. (1): α ← (1 − g)·α + g·F, once per window of data.
            let f = self.bytes_marked as f64 / self.bytes_acked.max(1) as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
            self.window_end = c.snd_nxt;
        }
        w.grow_on(ack, c); // RFC 5681 growth, as NewReno (§3.1: "the rest is TCP")
    }

    fn on_ecn_echo(&mut self, w: &mut Window, _now: Time, _c: &ConnView) {
        // Eq. (2): cwnd ← cwnd·(1 − α/2); leave slow start (ssthresh = cwnd).
        w.cwnd = (w.cwnd * (1.0 - self.alpha / 2.0)).max(self.min_cwnd);
        w.ssthresh = w.cwnd;
    }

    fn alpha(&self) -> f64 {
        self.alpha
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{ack, view, window};
    use super::*;

    const MSS: f64 = 1460.0;

    /// An ACK of `newly` bytes that leaves snd_una at `una` and snd_nxt at `nxt`.
    fn ack_at(d: &mut Dctcp, newly: u64, ece: bool, una: u64, nxt: u64) {
        let mut w = window(10.0 * MSS, f64::INFINITY);
        let ack = Ack { ece, ..ack(newly) };
        let c = ConnView {
            snd_una: una,
            snd_nxt: nxt,
            snd_max: nxt,
            ..view(nxt - una)
        };
        d.on_ack(&mut w, Time::ZERO, &ack, &c);
    }

    #[test]
    fn dctcp_alpha_sequence_hand_computed() {
        // g = 1/16, α0 = 1. Windows of 10 segments with 0, 10, 5 marked:
        // α1 = 15/16 = 0.9375; α2 = 0.9375·15/16 + 1/16 = 0.94140625;
        // α3 = 0.94140625·15/16 + 0.5/16 = 0.913818359375.
        let seg = 1460u64;
        let mut d2 = Dctcp::with(1.0 / 16.0, 1.0, 2.0 * MSS);
        d2.window_end = 10 * seg;
        ack_at(&mut d2, 10 * seg, false, 10 * seg, 20 * seg);
        assert_eq!(d2.alpha, 0.9375);
        ack_at(&mut d2, 10 * seg, true, 20 * seg, 30 * seg);
        assert_eq!(d2.alpha, 0.94140625);
        ack_at(&mut d2, 5 * seg, true, 25 * seg, 35 * seg);
        assert_eq!(d2.alpha, 0.94140625, "window not closed yet");
        ack_at(&mut d2, 5 * seg, false, 30 * seg, 40 * seg);
        assert_eq!(d2.alpha, 0.913818359375);
    }

    #[test]
    fn dctcp_cut_uses_alpha_and_floor() {
        let mut d = Dctcp::with(1.0 / 16.0, 0.5, 2.0 * MSS);
        let mut w = window(40.0 * MSS, f64::INFINITY);
        d.on_ecn_echo(&mut w, Time::ZERO, &view(0));
        assert_eq!(w.cwnd, 30.0 * MSS); // 40·(1 − 0.25)
        assert_eq!(w.ssthresh, 30.0 * MSS);
        d.alpha = 1.0;
        let mut small = window(3.0 * MSS, 3.0 * MSS);
        d.on_ecn_echo(&mut small, Time::ZERO, &view(0));
        assert_eq!(small.cwnd, 2.0 * MSS); // 1.5 MSS floored at 2 MSS
    }

    #[test]
    fn dctcp_grows_as_newreno_after_its_estimator() {
        // The α update does not touch the window; growth is RFC 5681's (slow start: +2 MSS).
        let mut d = Dctcp::with(1.0 / 16.0, 1.0, 2.0 * MSS);
        let mut w = window(10.0 * MSS, f64::INFINITY);
        d.on_ack(&mut w, Time::ZERO, &Ack { ece: true, ..ack(2920) }, &view(10 * 1460));
        assert_eq!(w.cwnd, 12.0 * MSS);
        assert_eq!(d.alpha, 1.0, "one window: F = 1, α stays 1");
    }
}
