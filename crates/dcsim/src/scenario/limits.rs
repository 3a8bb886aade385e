//! The bounds of the scenario's numbers, and the checks that hold a field to them.

use crate::error::ConfigError;

/// Hosts of a network: at least two, a sender and a receiver.
pub const MIN_HOSTS: u32 = 2;
/// Hosts of a network (2^20).
pub const MAX_HOSTS: u32 = 1 << 20;
/// Switches of a network.
pub const MAX_SWITCHES: u32 = 1 << 20;
/// Links of a network (each makes two ports).
pub const MAX_LINKS: u32 = 1 << 22;
/// Smallest fat-tree: k = 2, two pods of one edge and one aggregation switch each, one core
/// switch and two hosts (k must be even: a switch gives half its ports to the tier above).
pub const MIN_FAT_TREE_K: u32 = 2;
/// Largest fat-tree: k = 128 has 524,288 hosts.
pub const MAX_FAT_TREE_K: u32 = 128;
/// A leaf-spine network's oversubscription: three orders of magnitude either side of none
/// (1), from uplinks a thousand times the hosts' traffic to a thousandth of it; real networks
/// run from 1 to a few tens.
pub const MIN_OVERSUBSCRIPTION: f64 = 0.001;
/// See `MIN_OVERSUBSCRIPTION`.
pub const MAX_OVERSUBSCRIPTION: f64 = 1000.0;
/// Flows, and UDP sources, a scenario lists (2^24 each).
pub const MAX_FLOWS: usize = 1 << 24;
/// Query workloads, and traffic generators, a scenario lists (2^20 each).
pub const MAX_QUERY_WORKLOADS: usize = 1 << 20;
/// Queries of one workload (2^24).
pub const MAX_ROUNDS: u32 = 1 << 24;
/// Slowest link and UDP rate, Gbit/s: 1 kbit/s (a 1500-B packet takes 12 s on the wire).
pub const MIN_RATE_GBPS: f64 = 1e-6;
/// Fastest link and UDP rate, Gbit/s: 10 Tbit/s (a 1500-B packet takes 1.2 ns).
pub const MAX_RATE_GBPS: f64 = 10_000.0;
/// One second: the longest link delay and host jitter, µs.
pub const MAX_DELAY_US: f64 = 1e6;
/// Run length and start and stop times, s (11.6 days).
pub const MAX_TIME_S: f64 = 1e6;
/// One hour: timers (RTO, delayed ACK, tick), ms; the same in µs and ns.
pub const MAX_TIMER_MS: f64 = 3.6e6;
/// `MAX_TIMER_MS` in µs.
pub const MAX_TIMER_US: f64 = MAX_TIMER_MS * 1e3;
/// `MAX_TIMER_MS` in ns.
pub const MAX_TIMER_NS: f64 = MAX_TIMER_MS * 1e6;
/// Sampling intervals, µs: the longest run.
pub const MAX_SAMPLE_US: f64 = 1e12;
/// Flow, request and response sizes (2^50 B, 1 PiB).
pub const MAX_BYTES: u64 = crate::units::MAX_SEQUENCE_BYTES;
/// Switch buffers (2^40 B).
pub const MAX_BUFFER_BYTES: u64 = 1 << 40;
/// Packet counts of queues.
pub const MAX_PACKETS: u32 = 1 << 24;
/// Largest TCP window (RFC 7323 §2.3: 2^30 B with window scaling).
pub const MAX_RCV_BUFFER: u64 = 1 << 30;
/// Segment counts (windows, burst sizes, delayed-ACK count).
pub const MAX_SEGMENTS: u32 = 1 << 16;
/// Per-frame wire overhead, bytes.
pub const MAX_FRAMING: u32 = 10_000;
/// Traffic classes, 0 to 7: the eight priorities of an IEEE 802.1p tag (and a switch port's
/// eight class queues at most).
pub const MAX_TRAFFIC_CLASS: u8 = 7;
/// Fractions, probabilities and the weights of running averages: at most 1, the whole.
pub const MAX_FRACTION: f64 = 1.0;

/// The lower end of a range: included or not.
#[derive(Clone, Copy)]
pub(crate) enum Bound {
    From(f64),
    Above(f64),
}

/// A finite real in [lo, hi] or (lo, hi].
pub(crate) fn real(field: &dyn AsRef<str>, v: f64, lo: Bound, hi: f64, unit: &str) -> Result<(), ConfigError> {
    let (ok, low) = match lo {
        Bound::From(lo) => (v >= lo, format!("[{lo}")),
        Bound::Above(lo) => (v > lo, format!("({lo}")),
    };
    if v.is_finite() && ok && v <= hi {
        return Ok(());
    }
    let unit = if unit.is_empty() { String::new() } else { format!(" {unit}") };
    let kind = if v.is_finite() { "" } else { "a finite number " };
    Err(ConfigError::new(
        field.as_ref().to_string(),
        format!("must be {kind}in {low}, {hi}]{unit}, got {v}"),
    ))
}

/// An optional stop time: after `start` and at most `MAX_TIME_S`.
pub(crate) fn stop_after(field: &dyn AsRef<str>, stop: Option<f64>, start: f64) -> Result<(), ConfigError> {
    let Some(stop) = stop else { return Ok(()) };
    if stop.is_nan() || stop <= start {
        return Err(ConfigError::new(
            field.as_ref().to_string(),
            format!("must be after start_s, got {stop}"),
        ));
    }
    real(field, stop, Bound::Above(0.0), MAX_TIME_S, "s")
}

/// A list of at most `max` entries (`what`: what an entry is, plural).
pub(crate) fn at_most(field: &str, n: usize, max: usize, what: &str) -> Result<(), ConfigError> {
    if n > max {
        return Err(ConfigError::new(
            field.to_string(),
            format!("{n} {what}; at most {max} are allowed"),
        ));
    }
    Ok(())
}

/// A traffic class, 0 to `MAX_TRAFFIC_CLASS`.
pub(crate) fn traffic_class(field: &dyn AsRef<str>, class: u8) -> Result<(), ConfigError> {
    whole(field, class as u64, 0, MAX_TRAFFIC_CLASS as u64, "")
}

/// A whole number in [lo, hi].
pub(crate) fn whole(field: &dyn AsRef<str>, v: u64, lo: u64, hi: u64, unit: &str) -> Result<(), ConfigError> {
    if (lo..=hi).contains(&v) {
        return Ok(());
    }
    let reason = if v < lo && lo == 1 {
        format!("must be at least 1 {unit}, got {v}")
    } else {
        format!("must be in [{lo}, {hi}] {unit}, got {v}")
    };
    Err(ConfigError::new(
        field.as_ref().to_string(),
        reason.replace("  ", " ").replace(" ,", ","),
    ))
}
