//! NewReno with RFC 3168 ECN: negotiates ECN and halves once per window on ECN-Echo (the
//! trait's default response, RFC 3168 §6.1.2).

use super::{CcParams, CongestionControl};

#[derive(Debug, Clone)]
pub struct TcpEcn;

impl CongestionControl for TcpEcn {
    fn new(_: &CcParams) -> Self {
        TcpEcn
    }

    fn ecn_capable(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{view, window};
    use super::*;
    use crate::units::Time;

    const MSS: f64 = 1460.0;

    #[test]
    fn tcp_ecn_halves() {
        let mut w = window(40.0 * MSS, f64::INFINITY);
        TcpEcn.on_ecn_echo(&mut w, Time::ZERO, &view(0));
        assert_eq!((w.cwnd, w.ssthresh), (20.0 * MSS, 20.0 * MSS));
        let mut tiny = window(1.5 * MSS, 10.0 * MSS);
        TcpEcn.on_ecn_echo(&mut tiny, Time::ZERO, &view(0));
        assert_eq!(tiny.cwnd, MSS);
    }
}
