//! Simulated time is an integer count of picoseconds (u64 covers ~213 days), so that event
//! order never depends on floating-point rounding. Floats appear only at the edges
//! (scenario fields, results).
//!
//! [`Time`] and [`Bytes`] are newtypes whose `+`, `-` and `*` are checked in every build:
//! the scenario limits (`scenario::limits`) keep every legitimate sum far from 2^64, so an
//! overflow is an engine bug, and it panics naming the operation and its operands instead of
//! wrapping to a silently wrong value. The check is one predictable branch on the hot path.
//! Where a computation clamps on purpose it says so with `saturating_*`.

use std::fmt;
use std::num::NonZeroU64;
use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// The panic of an overflowing checked operation, kept off the hot path.
#[cold]
#[inline(never)]
#[track_caller]
fn overflow(kind: &str, a: u64, op: &str, b: u64) -> ! {
    panic!("{kind} overflow: {a} {op} {b}")
}

/// The arithmetic shared by the unsigned quantities: checked `+`, `-` (with the assigning
/// forms), `*` and `/` by a count, the quotient of two quantities as a count, and the explicit
/// saturating and checked forms. A type gives `raw`, `from_raw` (`None` outside its range),
/// `ZERO` and `MAX`.
macro_rules! checked_quantity {
    ($t:ident, $kind:literal, $unit:literal) => {
        impl $t {
            #[inline]
            pub fn checked_add(self, rhs: $t) -> Option<$t> {
                self.raw().checked_add(rhs.raw()).and_then($t::from_raw)
            }
            #[inline]
            pub fn checked_sub(self, rhs: $t) -> Option<$t> {
                self.raw().checked_sub(rhs.raw()).and_then($t::from_raw)
            }
            /// `self - rhs`, or zero if `rhs` is larger.
            #[inline]
            pub fn saturating_sub(self, rhs: $t) -> $t {
                $t::from_raw(self.raw().saturating_sub(rhs.raw())).unwrap_or($t::ZERO)
            }
            /// `self · n`, or `MAX` if that overflows.
            #[inline]
            pub fn saturating_mul(self, n: u64) -> $t {
                $t::from_raw(self.raw().saturating_mul(n)).unwrap_or($t::MAX)
            }
            /// `|self - rhs|`.
            #[inline]
            pub fn abs_diff(self, rhs: $t) -> $t {
                $t::from_raw(self.raw().abs_diff(rhs.raw())).unwrap_or($t::MAX)
            }
            /// How many `unit`s make `self`, rounded up.
            #[inline]
            pub fn div_ceil(self, unit: $t) -> u64 {
                self.raw().div_ceil(unit.raw())
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{} {}", self.raw(), $unit)
            }
        }

        impl Add for $t {
            type Output = $t;
            #[inline]
            #[track_caller]
            fn add(self, rhs: $t) -> $t {
                match self.checked_add(rhs) {
                    Some(v) => v,
                    None => overflow($kind, self.raw(), "+", rhs.raw()),
                }
            }
        }
        impl Sub for $t {
            type Output = $t;
            #[inline]
            #[track_caller]
            fn sub(self, rhs: $t) -> $t {
                match self.checked_sub(rhs) {
                    Some(v) => v,
                    None => overflow($kind, self.raw(), "-", rhs.raw()),
                }
            }
        }
        impl AddAssign for $t {
            #[inline]
            #[track_caller]
            fn add_assign(&mut self, rhs: $t) {
                *self = *self + rhs;
            }
        }
        impl SubAssign for $t {
            #[inline]
            #[track_caller]
            fn sub_assign(&mut self, rhs: $t) {
                *self = *self - rhs;
            }
        }
        impl Mul<u64> for $t {
            type Output = $t;
            #[inline]
            #[track_caller]
            fn mul(self, n: u64) -> $t {
                match self.raw().checked_mul(n).and_then($t::from_raw) {
                    Some(v) => v,
                    None => overflow($kind, self.raw(), "*", n),
                }
            }
        }
        impl Mul<$t> for u64 {
            type Output = $t;
            #[inline]
            #[track_caller]
            fn mul(self, rhs: $t) -> $t {
                rhs * self
            }
        }
        /// Division by a count, rounded down.
        impl Div<u64> for $t {
            type Output = $t;
            #[inline]
            fn div(self, n: u64) -> $t {
                $t::from_raw(self.raw() / n).unwrap_or($t::ZERO)
            }
        }
        /// How many whole `rhs` fit in `self`.
        impl Div for $t {
            type Output = u64;
            #[inline]
            fn div(self, rhs: $t) -> u64 {
                self.raw() / rhs.raw()
            }
        }
    };
}

/// An instant of simulated time or a duration, in whole picoseconds, up to 2^64 - 2.
///
/// It is stored complemented in a `NonZeroU64`, so that `Option<Time>` (a deadline, a
/// timestamp not yet taken) takes 8 bytes rather than 16: a connection holds 18 of them.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Time(NonZeroU64);

checked_quantity!(Time, "time", "ps");

impl Time {
    pub const ZERO: Time = Time::from_ps(0);
    pub const MAX: Time = Time::from_ps(u64::MAX - 1);

    #[inline]
    const fn raw(self) -> u64 {
        !self.0.get()
    }
    /// `ps` as a time, unless it is u64::MAX (the one value a `Time` cannot hold).
    #[inline]
    const fn from_raw(ps: u64) -> Option<Time> {
        match NonZeroU64::new(!ps) {
            Some(n) => Some(Time(n)),
            None => None,
        }
    }
    #[inline]
    #[track_caller]
    pub const fn from_ps(ps: u64) -> Time {
        match Time::from_raw(ps) {
            Some(t) => t,
            None => panic!("time overflow: u64::MAX picoseconds is past Time::MAX"),
        }
    }
    pub const fn from_us(us: u64) -> Time {
        Self::whole(us, PS_PER_US)
    }
    pub const fn from_ms(ms: u64) -> Time {
        Self::whole(ms, PS_PER_MS)
    }
    pub const fn from_secs(s: u64) -> Time {
        Self::whole(s, PS_PER_S)
    }
    const fn whole(n: u64, ps_per: u64) -> Time {
        match n.checked_mul(ps_per) {
            Some(ps) => Time::from_ps(ps),
            None => panic!("time overflow: a whole count of units past u64 picoseconds"),
        }
    }

    /// `ps` rounded to the nearest picosecond. Panics unless it is finite and in
    /// [0, 2^64): a negative or huge time is a bug (scenario numbers are bounded).
    #[inline]
    #[track_caller]
    pub fn from_ps_f64(ps: f64) -> Time {
        let rounded = ps.round();
        // 2^64 as f64 is exact; every f64 below it converts without saturating.
        assert!((0.0..18_446_744_073_709_551_616.0).contains(&rounded), "time out of range: {ps} ps");
        Time::from_ps(rounded as u64)
    }
    #[track_caller]
    pub fn from_us_f64(us: f64) -> Time {
        Self::from_ps_f64(us * PS_PER_US as f64)
    }
    #[track_caller]
    pub fn from_ms_f64(ms: f64) -> Time {
        Self::from_ps_f64(ms * PS_PER_MS as f64)
    }
    #[track_caller]
    pub fn from_secs_f64(s: f64) -> Time {
        Self::from_ps_f64(s * PS_PER_S as f64)
    }

    #[inline]
    pub const fn as_ps(self) -> u64 {
        self.raw()
    }
    #[inline]
    pub fn as_secs_f64(self) -> f64 {
        self.raw() as f64 / PS_PER_S as f64
    }
}

impl Default for Time {
    fn default() -> Time {
        Time::ZERO
    }
}

impl PartialOrd for Time {
    #[inline]
    fn partial_cmp(&self, other: &Time) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Time {
    #[inline]
    fn cmp(&self, other: &Time) -> std::cmp::Ordering {
        self.raw().cmp(&other.raw())
    }
}

impl fmt::Debug for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Time").field(&self.raw()).finish()
    }
}

/// The most bytes a connection carries (2^50 B, 1 PiB; the scenario's `limits::MAX_BYTES`
/// bounds every size by it): TCP sequence numbers are `u64` byte offsets that never wrap.
pub const MAX_SEQUENCE_BYTES: u64 = 1 << 50;

/// A byte count of the network layer: packet and frame sizes where they meet a rate, buffer
/// occupancy and limits. (TCP sequence numbers and windows stay `u64`: they are byte offsets
/// bounded by `MAX_SEQUENCE_BYTES` = 2^50 and never wrap. `Packet::size` stays a
/// `u32` to keep packets small; it becomes `Bytes` where a port or memory counts it.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(u64);

checked_quantity!(Bytes, "bytes", "B");

impl Bytes {
    pub const ZERO: Bytes = Bytes(0);
    pub const MAX: Bytes = Bytes(u64::MAX);

    #[inline]
    const fn raw(self) -> u64 {
        self.0
    }
    #[inline]
    const fn from_raw(bytes: u64) -> Option<Bytes> {
        Some(Bytes(bytes))
    }
    #[inline]
    pub const fn new(bytes: u64) -> Bytes {
        Bytes(bytes)
    }
    #[inline]
    pub const fn as_u64(self) -> u64 {
        self.0
    }
}

impl From<u32> for Bytes {
    #[inline]
    fn from(bytes: u32) -> Bytes {
        Bytes(bytes as u64)
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn frame_too_large(bytes: Bytes) -> ! {
    panic!("tx_time overflow: {bytes} · 8e12 bit·ps passes 2^64 (frames are at most Rate::MAX_TX_BYTES)")
}

/// A line rate in bit/s, at least 1, with exact integer serialisation times. (Non-zero, so
/// that a controller's `Option<Rate>` pacing rate takes 8 bytes.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    bps: NonZeroU64,
}

impl Rate {
    /// The largest frame `tx_time` takes: bytes · 8 · 10^12 must stay below 2^64, so about
    /// 2.3 MB (a frame is at most `tcp.mss` + `tcp.header_bytes` + `MAX_FRAMING`, 85,000 B).
    pub const MAX_TX_BYTES: Bytes = Bytes(u64::MAX / (8 * PS_PER_S));

    /// `gbps` rounded to a whole bit/s, at least 1. Panics unless finite and below 2^64
    /// bit/s (scenario rates are bounded by `limits::MAX_RATE_GBPS`).
    #[track_caller]
    pub fn from_gbps(gbps: f64) -> Self {
        let bps = (gbps * 1e9).round().max(1.0);
        assert!(bps < 18_446_744_073_709_551_616.0, "rate out of range: {gbps} Gbps");
        Rate::from_bps(bps as u64)
    }

    /// `bps` bit/s, at least 1.
    #[inline]
    pub const fn from_bps(bps: u64) -> Self {
        match NonZeroU64::new(bps) {
            Some(bps) => Rate { bps },
            None => Rate { bps: NonZeroU64::MIN },
        }
    }

    /// Bits per second.
    #[inline]
    pub const fn bps(self) -> u64 {
        self.bps.get()
    }

    /// Time to serialise `bytes` on the wire, rounded up to a whole picosecond.
    #[inline]
    #[track_caller]
    pub fn tx_time(self, bytes: Bytes) -> Time {
        match bytes.0.checked_mul(8 * PS_PER_S) {
            Some(bit_ps) => Time::from_ps(bit_ps.div_ceil(self.bps())),
            None => frame_too_large(bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_times_hand_computed() {
        let tx = |r: Rate, b: u64| r.tx_time(Bytes::new(b)).as_ps();
        // 1538 B (1500-B packet + 38 B Ethernet framing) at 1 Gbps = 12.304 µs.
        assert_eq!(tx(Rate::from_gbps(1.0), 1538), 12_304_000);
        // 1500 B at 10 Gbps = 1.2 µs; at 100 Mbps = 120 µs.
        assert_eq!(tx(Rate::from_gbps(10.0), 1500), 1_200_000);
        assert_eq!(tx(Rate::from_gbps(0.1), 1500), 120_000_000);
        // 64 B at 400 Gbps = 1.28 ns.
        assert_eq!(tx(Rate::from_gbps(400.0), 64), 1_280);
        // Rounded up: 1 B at 3 bit/s is 2.67 s -> 2_666_666_666_667 ps.
        assert_eq!(tx(Rate::from_bps(3), 1), 2_666_666_666_667);
        // The largest frame, 2,305,843 B = 18,446,744 bit, takes 18,446,744 ps at 1 Tbps (1 ps a bit).
        assert_eq!(Rate::MAX_TX_BYTES, Bytes::new(2_305_843));
        assert_eq!(tx(Rate::from_gbps(1000.0), 2_305_843), 18_446_744);
    }

    #[test]
    #[should_panic(expected = "tx_time overflow")]
    fn a_frame_above_the_bound_panics() {
        Rate::from_gbps(1.0).tx_time(Bytes::new(2_305_844));
    }

    #[test]
    fn unit_conversions() {
        assert_eq!(Time::from_us_f64(25.0).as_ps(), 25_000_000);
        assert_eq!(Time::from_ms_f64(10.0).as_ps(), 10_000_000_000);
        assert_eq!(Time::from_secs_f64(1.5).as_ps(), 1_500_000_000_000);
        // Rounded to the nearest picosecond.
        assert_eq!(Time::from_us_f64(0.0000004).as_ps(), 0);
        assert_eq!(Time::from_us_f64(0.0000006).as_ps(), 1);
        assert_eq!(Time::from_ps_f64(2.5).as_ps(), 3);
        assert_eq!(Time::from_ps(PS_PER_S / 4).as_secs_f64(), 0.25);
        assert_eq!(Time::from_us(25), Time::from_ps(25_000_000));
        assert_eq!(Time::from_ms(3), Time::from_us(3_000));
        assert_eq!(Time::from_secs(2), Time::from_ms(2_000));
        assert_eq!(Time::MAX.as_ps(), u64::MAX - 1);
        // The one value a time cannot hold is its niche: an absent time costs nothing.
        assert_eq!(std::mem::size_of::<Option<Time>>(), 8);
        assert_eq!(Time::from_ps(5).cmp(&Time::from_ps(7)), std::cmp::Ordering::Less);
        assert_eq!(Time::MAX.checked_add(Time::ZERO), Some(Time::MAX));
        assert_eq!(Time::MAX.checked_sub(Time::MAX), Some(Time::ZERO));
        assert_eq!(format!("{:?} {}", Time::from_ps(3), Time::from_ps(3)), "Time(3) 3 ps");
        assert_eq!(Rate::from_gbps(2.5).bps(), 2_500_000_000);
        assert_eq!(Rate::from_gbps(0.0).bps(), 1, "at least 1 bit/s");
        assert_eq!(Rate::from_bps(0).bps(), 1, "at least 1 bit/s");
        assert_eq!(std::mem::size_of::<Option<Rate>>(), 8);
    }

    #[test]
    fn arithmetic_hand_computed() {
        let (a, b) = (Time::from_us(7), Time::from_us(2));
        assert_eq!(a + b, Time::from_us(9));
        assert_eq!(a - b, Time::from_us(5));
        assert_eq!(3 * b, Time::from_us(6));
        assert_eq!(b * 3, Time::from_us(6));
        assert_eq!(a / 2, Time::from_ps(3_500_000));
        assert_eq!(a / b, 3);
        assert_eq!(a.div_ceil(b), 4);
        assert_eq!(b.abs_diff(a), Time::from_us(5));
        let mut t = a;
        t += b;
        t -= Time::from_us(1);
        assert_eq!(t, Time::from_us(8));
        assert_eq!(Bytes::new(1500) + Bytes::from(38u32), Bytes::new(1538));
        assert_eq!(format!("{} {}", Time::from_ps(5), Bytes::new(7)), "5 ps 7 B");
    }

    #[test]
    fn saturating_and_checked_forms() {
        let (a, b) = (Time::from_ps(3), Time::from_ps(5));
        assert_eq!(a.saturating_sub(b), Time::ZERO);
        assert_eq!(b.saturating_sub(a), Time::from_ps(2));
        assert_eq!(Time::MAX.saturating_mul(2), Time::MAX);
        assert_eq!(a.checked_sub(b), None);
        assert_eq!(Time::MAX.checked_add(a), None);
        assert_eq!(a.checked_add(b), Some(Time::from_ps(8)));
        assert_eq!(Bytes::new(3).saturating_sub(Bytes::new(5)), Bytes::ZERO);
        assert_eq!(Bytes::new(5).checked_sub(Bytes::new(3)), Some(Bytes::new(2)));
    }

    #[test]
    #[should_panic(expected = "time overflow: 18446744073709551614 + 1")]
    fn overflowing_add_panics() {
        let _ = Time::MAX + Time::from_ps(1);
    }

    #[test]
    #[should_panic(expected = "time overflow: 3 - 5")]
    fn underflowing_sub_panics() {
        let _ = Time::from_ps(3) - Time::from_ps(5);
    }

    #[test]
    #[should_panic(expected = "time overflow: 18446744073709551614 * 2")]
    fn overflowing_mul_panics() {
        let _ = Time::MAX * 2;
    }

    #[test]
    #[should_panic(expected = "time overflow")]
    fn overflowing_add_assign_panics() {
        let mut t = Time::MAX;
        t += Time::from_ps(1);
    }

    #[test]
    #[should_panic(expected = "bytes overflow: 1 - 2")]
    fn underflowing_bytes_panic() {
        let mut b = Bytes::new(1);
        b -= Bytes::new(2);
    }

    #[test]
    #[should_panic(expected = "time out of range")]
    fn negative_time_panics() {
        Time::from_us_f64(-1.0);
    }
}
