//! NewReno (RFC 5681, RFC 6582; with SACK, RFC 6675): every decision is the trait's default.

use super::{CcParams, CongestionControl};

#[derive(Debug, Clone)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn new(_: &CcParams) -> Self {
        NewReno
    }

    fn ecn_capable(&self) -> bool {
        false // so its `on_ecn_echo` (RFC 3168 halving by default) is never called
    }
}
