//! NewReno with RFC 3168 ECN: negotiates ECN and halves once per window on ECN-Echo (the
//! trait's default response, RFC 3168 §6.1.2).

use super::CongestionControl;
use crate::scenario::TcpConfig;

#[derive(Debug, Clone)]
pub struct TcpEcn;

impl CongestionControl for TcpEcn {
    fn new(_: &TcpConfig) -> Self {
        TcpEcn
    }

    fn ecn_capable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::{tests::view, Window};
    use super::*;
    use crate::units::Time;

    const MSS: f64 = 1460.0;

    #[test]
    fn tcp_ecn_halves() {
        let mut w = Window {
            cwnd: 40.0 * MSS,
            ssthresh: f64::INFINITY,
            pacing: None,
        };
        TcpEcn.on_ecn_echo(&mut w, Time::ZERO, &view(0));
        assert_eq!((w.cwnd, w.ssthresh), (20.0 * MSS, 20.0 * MSS));
        let mut tiny = Window {
            cwnd: 1.5 * MSS,
            ssthresh: 10.0 * MSS,
            pacing: None,
        };
        TcpEcn.on_ecn_echo(&mut tiny, Time::ZERO, &view(0));
        assert_eq!(tiny.cwnd, MSS);
    }
}
