//! `[ictcp]`: the receiver-side incast congestion control.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{check_host, limits, TcpConfig};
use crate::error::ConfigError;
use crate::tcp::ictcp::IctcpParams;
use crate::units::Time;

/// ICTCP (ICTCP paper §IV-VI, IEEE/ACM ToN 2013): a driver on each named host that
/// measures the interface's incoming traffic and rewrites the receive window of the segments
/// the host sends, for every TCP connection whose RTT is below `rtt_limit_ms`. It composes with
/// any sender congestion control. Defaults are the paper's values.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IctcpConfig {
    /// Hosts that run ICTCP (empty = none).
    pub hosts: Vec<u32>,
    /// BW_A = max(0, α·C − BW_T) (Eq. 1, §IV-A).
    #[schemars(range(min = 0.0, max = "limits::MAX_FRACTION"))]
    pub alpha: f64,
    /// Measured-throughput filter β (Eq. 2, §IV-C).
    #[schemars(range(min = 0.0, max = "limits::MAX_FRACTION"))]
    pub beta: f64,
    /// Grow a window when the throughput difference ratio is at most γ1 (§IV-C).
    #[schemars(range(min = 0.0, max = "limits::MAX_FRACTION"))]
    pub gamma1: f64,
    /// Shrink a window by one MSS after three RTTs with the ratio above γ2 (§IV-C).
    #[schemars(range(min = 0.0, max = "limits::MAX_FRACTION"))]
    pub gamma2: f64,
    /// Consecutive RTTs with the ratio above γ2 that cost one MSS (§IV-C: three).
    #[schemars(range(min = 1, max = "limits::MAX_SEGMENTS"))]
    pub decrease_after_rtts: u32,
    /// Control interval, RTTs: a window changes at most once per this many RTTs (§IV-B: two,
    /// one for a change to take effect and one to measure it).
    #[schemars(range(min = 1, max = "limits::MAX_SEGMENTS"))]
    pub control_interval_rtts: u32,
    /// Smallest receive window, segments: 2 (§IV-C) or 1 (the §VII-A-2 variant).
    #[schemars(range(min = 1, max = "limits::MAX_SEGMENTS"))]
    pub min_rwnd_segments: u32,
    /// Windows above the average lose one MSS while BW_A < this fraction of C (§IV-D).
    #[schemars(range(min = 0.0, max = "limits::MAX_FRACTION"))]
    pub fairness_fraction: f64,
    /// Connections with an RTT at or above this are left alone (§III).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub rtt_limit_ms: f64,
    /// Sub-slot length before any connection has an RTT, µs (our choice, the paper does not
    /// say: the testbed's 100 µs base RTT; afterwards T is the traffic-weighted mean RTT, §IV-B).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_US"))]
    pub initial_subslot_us: f64,
    /// Tick of the receiver's timestamp clock, ns (§VI-C).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_NS"))]
    pub timestamp_tick_ns: f64,
}

impl IctcpConfig {
    /// ICTCP's parameters on an interface of `capacity_bps` under the `tcp` table `t`: the
    /// table's values in the engine's units, with the segment size and idle threshold of `t`.
    pub fn params(&self, capacity_bps: f64, t: &TcpConfig) -> IctcpParams {
        IctcpParams {
            capacity_bps,
            alpha: self.alpha,
            beta: self.beta,
            gamma1: self.gamma1,
            gamma2: self.gamma2,
            decrease_after_rtts: self.decrease_after_rtts,
            control_interval_rtts: self.control_interval_rtts,
            mss: t.segment_bytes(),
            min_rwnd_segments: self.min_rwnd_segments,
            fairness_fraction: self.fairness_fraction,
            rtt_limit: Time::from_ms_f64(self.rtt_limit_ms),
            initial_subslot: Time::from_us_f64(self.initial_subslot_us).max(Time::from_ps(1)),
            timestamp_tick: Time::from_us_f64(self.timestamp_tick_ns / 1000.0).max(Time::from_ps(1)),
            // Our choice, the paper does not say: "prolonged idle" = longer than RTO_min (and two slots).
            idle_restart: Time::from_ms_f64(t.rto_min_ms),
        }
    }
}

impl Default for IctcpConfig {
    fn default() -> Self {
        Self {
            hosts: Vec::new(),
            alpha: 0.9,
            beta: 0.75,
            gamma1: 0.1,
            gamma2: 0.5,
            decrease_after_rtts: 3,
            control_interval_rtts: 2,
            min_rwnd_segments: 2,
            fairness_fraction: 0.2,
            rtt_limit_ms: 2.0,
            initial_subslot_us: 100.0,
            timestamp_tick_ns: 100.0,
        }
    }
}

impl IctcpConfig {
    /// Ranges of the parameters; `hosts`: hosts of the network.
    pub(super) fn check(&self, hosts: u32) -> Result<(), ConfigError> {
        use limits::*;
        let err = |field: &str, reason: String| Err(ConfigError::new(field.to_string(), reason));
        if self.hosts.len() > hosts as usize {
            return err("ictcp.hosts", format!("{} entries for {hosts} hosts", self.hosts.len()));
        }
        for (j, &h) in self.hosts.iter().enumerate() {
            check_host(&format!("ictcp.hosts[{j}]"), h, hosts)?;
        }
        for (name, v) in [
            ("ictcp.alpha", self.alpha),
            ("ictcp.beta", self.beta),
            ("ictcp.gamma1", self.gamma1),
            ("ictcp.gamma2", self.gamma2),
            ("ictcp.fairness_fraction", self.fairness_fraction),
        ] {
            real(&name, v, Bound::From(0.0), MAX_FRACTION, "")?;
        }
        if self.gamma1 > self.gamma2 {
            return err(
                "ictcp.gamma1",
                format!("must not exceed gamma2 ({}), got {}", self.gamma2, self.gamma1),
            );
        }
        for (name, v) in [
            ("ictcp.min_rwnd_segments", self.min_rwnd_segments),
            ("ictcp.decrease_after_rtts", self.decrease_after_rtts),
            ("ictcp.control_interval_rtts", self.control_interval_rtts),
        ] {
            whole(&name, v as u64, 1, MAX_SEGMENTS as u64, "")?;
        }
        real(&"ictcp.rtt_limit_ms", self.rtt_limit_ms, Bound::Above(0.0), MAX_TIMER_MS, "ms")?;
        real(
            &"ictcp.initial_subslot_us",
            self.initial_subslot_us,
            Bound::Above(0.0),
            MAX_TIMER_US,
            "µs",
        )?;
        real(
            &"ictcp.timestamp_tick_ns",
            self.timestamp_tick_ns,
            Bound::Above(0.0),
            MAX_TIMER_NS,
            "ns",
        )?;
        Ok(())
    }
}
