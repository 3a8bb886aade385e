//! `[host]`: the end hosts' NICs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::limits;
use crate::error::ConfigError;

/// A NIC clock's largest offset, ppm: 1%, a hundred times the ±100 ppm IEEE 802.3 allows.
const MAX_CLOCK_PPM: f64 = 10_000.0;
/// The longest receive interrupt moderation interval, µs: 10 ms, far above the tens to
/// hundreds of µs NICs use.
const MAX_RX_INTERRUPT_INTERVAL_US: f64 = 10_000.0;
/// The longest receive processing per packet, µs: 1 ms, a host that takes only a thousand
/// packets a second.
const MAX_RX_PROCESSING_US: f64 = 1000.0;

/// End-host NIC model (DCTCP paper §3.5, ICTCP paper §II-B).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// NIC transmit queue, packets (FIFO serialised at the NIC rate). 1000 = Linux's default
    /// `txqueuelen`. When it is full the host's TCP senders wait for room (the OS's
    /// backpressure) rather than drop their own segments; only pure ACKs can be dropped here.
    #[schemars(range(min = 1, max = "limits::MAX_PACKETS"))]
    pub nic_queue_packets: u32,
    /// Bytes one connection may have waiting in its host's NIC queue before its sender waits
    /// (0 = no limit). 131072 = Linux's `tcp_limit_output_bytes` when TCP small queues came
    /// in (Linux 3.6); it keeps a backlogged sender from filling the NIC queue, so the host's ACKs
    /// do not wait behind (or get dropped by) its own standing queue.
    #[schemars(range(max = "limits::MAX_BUFFER_BYTES"))]
    pub queue_bytes_per_conn: u64,
    /// Each packet a host sends waits a random time, uniform in [0, tx_jitter_us], before
    /// its NIC may start it (order is kept). Real hosts' timing noise; without it, senders
    /// with equal paths stay phase-locked and one can lose every same-instant race for the
    /// last buffer slot (Floyd & Jacobson's "phase effects"). 0 = perfectly regular hosts.
    #[schemars(range(min = 0.0, max = "limits::MAX_DELAY_US"))]
    pub tx_jitter_us: f64,
    /// Each host's NIC clock is off its nominal rate by a fixed amount drawn from the seed,
    /// uniform in ±clock_ppm parts per million (IEEE 802.3 allows ±100 ppm). A host whose NIC
    /// is its bottleneck then does not feed a switch port at exactly its drain rate: without
    /// it, such a sender keeps any queue it meets standing forever and wins every freed slot
    /// from other senders. 0 = every clock exact.
    #[schemars(range(min = 0.0, max = "MAX_CLOCK_PPM"))]
    pub clock_ppm: f64,
    /// Segmentation offload burst: the sender waits until it may send this many segments
    /// and sends them back to back (0 = off). 30-40 mimics the 10G hosts (DCTCP paper §3.5).
    #[schemars(range(max = "limits::MAX_SEGMENTS"))]
    pub offload_burst_segments: u32,
    /// Receive interrupt moderation, µs: the NIC raises a receive interrupt at most once per
    /// this interval (Intel's ITR; Windows drivers' "interrupt moderation"). Packets arriving
    /// sooner after the last interrupt wait for the next one and reach the stack together; a
    /// packet after a quiet interval goes at once. 0 = every packet on arrival.
    #[schemars(range(min = 0.0, max = "MAX_RX_INTERRUPT_INTERVAL_US"))]
    pub rx_interrupt_interval_us: f64,
    /// Per-packet receive processing, µs: after its interrupt, each received packet occupies
    /// the host's receive path (driver and stack) for this long, one after another, before its
    /// TCP end sees it; a packet arriving while earlier ones are processed waits for them.
    /// 0 = none. At most 1000.
    #[schemars(range(min = 0.0, max = "MAX_RX_PROCESSING_US"))]
    pub rx_processing_us: f64,
}

impl Default for HostConfig {
    fn default() -> Self {
        Self {
            nic_queue_packets: 1000,
            queue_bytes_per_conn: 131_072,
            tx_jitter_us: 1.0,
            clock_ppm: 100.0,
            offload_burst_segments: 0,
            rx_interrupt_interval_us: 0.0,
            rx_processing_us: 0.0,
        }
    }
}

impl HostConfig {
    /// Ranges of the NIC model's settings.
    pub(super) fn check(&self) -> Result<(), ConfigError> {
        use limits::*;
        real(&"host.tx_jitter_us", self.tx_jitter_us, Bound::From(0.0), MAX_DELAY_US, "µs")?;
        real(&"host.clock_ppm", self.clock_ppm, Bound::From(0.0), MAX_CLOCK_PPM, "ppm")?;
        real(
            &"host.rx_interrupt_interval_us",
            self.rx_interrupt_interval_us,
            Bound::From(0.0),
            MAX_RX_INTERRUPT_INTERVAL_US,
            "µs",
        )?;
        real(
            &"host.rx_processing_us",
            self.rx_processing_us,
            Bound::From(0.0),
            MAX_RX_PROCESSING_US,
            "µs",
        )?;
        whole(
            &"host.nic_queue_packets",
            self.nic_queue_packets as u64,
            1,
            MAX_PACKETS as u64,
            "packets",
        )?;
        whole(&"host.queue_bytes_per_conn", self.queue_bytes_per_conn, 0, MAX_BUFFER_BYTES, "B")?;
        whole(
            &"host.offload_burst_segments",
            self.offload_burst_segments as u64,
            0,
            MAX_SEGMENTS as u64,
            "segments",
        )?;
        Ok(())
    }
}
