//! Simulated time is an integer count of picoseconds (u64 covers ~213 days), so that event
//! order never depends on floating-point rounding. Floats appear only at the edges
//! (scenario fields, results).

/// Simulated time or a duration, picoseconds.
pub type Ps = u64;

pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

pub fn ps_from_s(s: f64) -> Ps {
    (s * PS_PER_S as f64).round() as Ps
}
pub fn ps_from_ms(ms: f64) -> Ps {
    (ms * PS_PER_MS as f64).round() as Ps
}
pub fn ps_from_us(us: f64) -> Ps {
    (us * PS_PER_US as f64).round() as Ps
}
pub fn s_from_ps(ps: Ps) -> f64 {
    ps as f64 / PS_PER_S as f64
}

/// A line rate in bit/s, with exact integer serialisation times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub bps: u64,
}

impl Rate {
    pub fn from_gbps(gbps: f64) -> Self {
        Rate {
            bps: (gbps * 1e9).round().max(1.0) as u64,
        }
    }

    /// Time to serialise `bytes` on the wire, rounded up to a whole picosecond.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> Ps {
        // bytes <= 2^24 keeps bytes * 8e12 below 2^64.
        (bytes * 8 * PS_PER_S).div_ceil(self.bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_times_hand_computed() {
        // 1538 B (1500-B packet + 38 B Ethernet framing) at 1 Gbps = 12.304 µs.
        assert_eq!(Rate::from_gbps(1.0).tx_time(1538), 12_304_000);
        // 1500 B at 10 Gbps = 1.2 µs; at 100 Mbps = 120 µs.
        assert_eq!(Rate::from_gbps(10.0).tx_time(1500), 1_200_000);
        assert_eq!(Rate::from_gbps(0.1).tx_time(1500), 120_000_000);
        // 64 B at 400 Gbps = 1.28 ns.
        assert_eq!(Rate::from_gbps(400.0).tx_time(64), 1_280);
        // Rounded up: 1 B at 3 bit/s is 2.67 s -> 2_666_666_666_667 ps.
        assert_eq!(Rate { bps: 3 }.tx_time(1), 2_666_666_666_667);
    }

    #[test]
    fn unit_conversions() {
        assert_eq!(ps_from_us(25.0), 25_000_000);
        assert_eq!(ps_from_ms(10.0), 10_000_000_000);
        assert_eq!(ps_from_s(1.5), 1_500_000_000_000);
        assert_eq!(s_from_ps(PS_PER_S / 4), 0.25);
    }
}
