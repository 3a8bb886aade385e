//! The scenario schema: what a TOML file or a Python dict may say.
//!
//! These serde types are the single source of truth for the scenario format; the JSON
//! Schema in `schema/scenario.schema.json` is generated from them (`Scenario::json_schema`).
//! Every field has a default that matches the DCTCP paper's 1 Gbps testbed unless noted.
//! Times and rates are plain numbers whose unit is in the field name (`_s`, `_us`, `_gbps`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// One simulation: a topology, the switches' queues, the hosts' TCP, and the flows.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free-form name, copied into the results.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub sim: SimConfig,
    pub topology: Topology,
    #[serde(default)]
    pub switch: SwitchConfig,
    #[serde(default)]
    pub host: HostConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    /// ICTCP, the receiver-side incast congestion control, on the hosts it names.
    #[serde(default)]
    pub ictcp: IctcpConfig,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Partition/aggregate query workloads (M23).
    #[serde(default)]
    pub queries: Vec<QuerySpec>,
    #[serde(default)]
    pub measure: MeasureConfig,
}

/// Run length and randomness.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// Seed of every random stream in the run; the same seed gives byte-identical results.
    pub seed: u64,
    /// Simulated time to run, seconds.
    pub duration_s: f64,
    /// Statistics (goodput, queue distribution) ignore the first `warmup_s` seconds.
    pub warmup_s: f64,
    /// End the run the instant every query workload has finished all its rounds; `duration_s`
    /// stays the upper bound. Incast sweeps can then give a generous duration without
    /// simulating background traffic past the last round.
    pub stop_when_queries_done: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            duration_s: 1.0,
            warmup_s: 0.0,
            stop_when_queries_done: false,
        }
    }
}

/// A link: rate, one-way propagation delay, and per-frame overhead on the wire.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LinkConfig {
    /// Line rate, Gbit/s (10^9 bit/s).
    pub rate_gbps: f64,
    /// One-way propagation delay, microseconds.
    pub delay_us: f64,
    /// Bytes each frame costs on the wire beyond the IP packet. 38 = Ethernet header, FCS,
    /// preamble and inter-frame gap [EXT IEEE 802.3]; this is why 1460-B segments give the
    /// DCTCP paper's 0.95 Gbps goodput on a 1 Gbps link (1460/1538). ns-2 uses 0.
    pub framing_bytes: u32,
}

impl Default for LinkConfig {
    fn default() -> Self {
        Self {
            rate_gbps: 1.0,
            delay_us: 25.0,
            framing_bytes: 38,
        }
    }
}

/// The network. Hosts are numbered from 0; flows name hosts by number.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// `hosts` hosts on one switch (`s0`), host `i` on switch port `i`.
    Star {
        /// Number of hosts.
        hosts: u32,
        #[serde(default)]
        link: LinkConfig,
        /// Optional per-host links (host `i` uses entry `i`), overriding `link`.
        #[serde(default)]
        host_links: Vec<LinkConfig>,
    },
    /// Two switches joined by one core link: hosts `0..left` on `s0`, the next `right` on `s1`.
    Dumbbell {
        /// Hosts on the left switch, `s0`.
        left: u32,
        /// Hosts on the right switch, `s1`.
        right: u32,
        #[serde(default)]
        host_link: LinkConfig,
        #[serde(default)]
        core_link: LinkConfig,
    },
}

/// Switch egress ports: buffer limit and active queue management.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchConfig {
    pub buffer: BufferConfig,
    pub aqm: AqmConfig,
}

impl Default for SwitchConfig {
    fn default() -> Self {
        Self {
            buffer: BufferConfig::default(),
            aqm: AqmConfig::DropTail,
        }
    }
}

/// How much a port may hold (M11, M12). A packet that does not fit is dropped.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BufferConfig {
    /// A fixed allocation per port, in packets and/or bytes (whichever is hit first) (M12).
    PerPort {
        /// Packets a port may hold (none = no packet limit).
        #[serde(default)]
        limit_packets: Option<u32>,
        /// Bytes a port may hold (none = no byte limit).
        #[serde(default)]
        limit_bytes: Option<u64>,
    },
    /// One memory shared by all ports of a switch, with dynamic per-port thresholds (M13,
    /// Choudhury–Hahne): a packet of s bytes joins port p iff q_p + s ≤ alpha·(B − Σq) and
    /// Σq + s ≤ B, where B = `total_bytes` and Σq is what all ports hold.
    Shared {
        /// B: the shared memory, bytes.
        total_bytes: u64,
        /// The dynamic threshold's multiplier.
        alpha: f64,
        /// Optional static cap per port as well, packets.
        #[serde(default)]
        limit_packets: Option<u32>,
    },
    /// A switch of the papers' testbeds (see `SwitchPreset`).
    Preset { name: SwitchPreset },
}

impl Default for BufferConfig {
    fn default() -> Self {
        // The DCTCP testbed's switch (DCTCP paper §4: "the switches used their default
        // dynamic buffer allocation policy").
        BufferConfig::Preset {
            name: SwitchPreset::Triumph,
        }
    }
}

/// Switches of the papers' testbeds. Each is a shared buffer with a dynamic threshold; the
/// allocation policy is NOT GIVEN in the papers, so α comes from calibrating the
/// Choudhury–Hahne model to the one number given (spec algorithms.md §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SwitchPreset {
    /// Broadcom Triumph, 48 × 1 Gbps + 4 × 10 Gbps, 4 MB shared (DCTCP Table 1); one busy
    /// port gets "up to ~700KB" (DCTCP §4.1): α = 700/3300 = 0.212 with B = 4,000,000 B.
    Triumph,
    /// Broadcom Scorpion, 24 × 10 Gbps, 4 MB shared (DCTCP Table 1); α as the Triumph
    /// (ASSUMPTION: same vendor MMU).
    Scorpion,
    /// Cisco CAT4948, 48 × 1 Gbps + 2 × 10 Gbps, 16 MB, no ECN (DCTCP Table 1, footnote 12);
    /// α as the Triumph (ASSUMPTION, spec §2.4): one busy port gets ≈ 2.8 MB.
    Cat4948,
    /// Quanta LB4G, 48 × 1 Gbps, 4 MB (ICTCP §II-C), "dynamic buffer management to allocate a
    /// buffer pool shared by all ports" (ICTCP §V). ASSUMPTION: one busy port holds 128.5 kB,
    /// α = 128,500/3,871,500 = 0.0332. §V gives 85 kB as the equal split (the limit when every
    /// port incasts at once: ≤ 32 senders at 2 MSS) and 128.5 kB as what its own 47-server
    /// experiment needs at 2 MSS; the shared pool is what lets its Figs. 8-9 run up to 46
    /// senders with ≤ 6% timeouts. The Triumph's 700 KB would not let TCP collapse (Fig. 3).
    QuantaLb4g,
}

impl SwitchPreset {
    /// (B bytes, α) of the preset.
    pub fn shared_buffer(self) -> (u64, f64) {
        const ALPHA_TRIUMPH: f64 = 700.0 / 3300.0;
        const ALPHA_LB4G: f64 = 128.5 / 3871.5;
        match self {
            SwitchPreset::Triumph | SwitchPreset::Scorpion => (4_000_000, ALPHA_TRIUMPH),
            SwitchPreset::Cat4948 => (16_000_000, ALPHA_TRIUMPH),
            SwitchPreset::QuantaLb4g => (4_000_000, ALPHA_LB4G),
        }
    }
}

/// What an egress port does on arrival besides the buffer check (M16, M17).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmConfig {
    /// No marking; drop only when the buffer is full (DCTCP paper §4.1, TCP runs).
    DropTail,
    /// DCTCP marking: CE if the instantaneous queue exceeds K packets on arrival (DCTCP §3.1).
    Threshold {
        /// K in packets. Default: 20 on ports up to 1 Gbps, 65 above (DCTCP paper §3.5).
        #[serde(default)]
        k_packets: Option<u32>,
        /// What a non-ECT packet meets above K: `drop` (RED-ECN hardware) or `enqueue`.
        #[serde(default)]
        nonect: NonEctPolicy,
        /// Whether the packet being serialised counts in the occupancy (ns-2 does not).
        #[serde(default = "default_true")]
        count_in_service: bool,
    },
    /// Random Early Detection on the average queue, marking ECT packets (Floyd & Jacobson).
    Red {
        /// Lower threshold, packets.
        min_th: f64,
        /// Upper threshold, packets.
        max_th: f64,
        /// Marking (or drop) probability at `max_th`.
        #[serde(default = "default_max_p")]
        max_p: f64,
        /// EWMA weight w_q = 2^-weight_log2 ("weight = 9", DCTCP paper §4.1).
        #[serde(default = "default_weight_log2")]
        weight_log2: u32,
        /// Mark ECT packets instead of dropping them (DCTCP paper footnote 5).
        #[serde(default = "default_true")]
        ecn: bool,
        /// Gentle RED: probability ramps from max_p to 1 between max_th and 2·max_th.
        #[serde(default)]
        gentle: bool,
    },
}

/// Treatment of non-ECN-capable packets when a marking queue is above K (§7.1–7.2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NonEctPolicy {
    /// RED-ECN hardware: a packet that cannot be marked is dropped.
    #[default]
    Drop,
    /// Mark-only: the packet is queued (up to the buffer limit).
    Enqueue,
}

fn default_true() -> bool {
    true
}
fn default_max_p() -> f64 {
    0.1
}
fn default_weight_log2() -> u32 {
    9
}

/// End-host NIC model (M10).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// NIC transmit queue, packets (FIFO serialised at the NIC rate). 1000 = Linux's default
    /// `txqueuelen` [EXT]. When it is full the host's TCP senders wait for room (the OS's
    /// backpressure) rather than drop their own segments; only pure ACKs can be dropped here.
    pub nic_queue_packets: u32,
    /// Bytes one connection may have waiting in its host's NIC queue before its sender waits
    /// (0 = no limit). 131072 = Linux's `tcp_limit_output_bytes` when TCP small queues came
    /// in [EXT]; it keeps a backlogged sender from filling the NIC queue, so the host's ACKs
    /// do not wait behind (or get dropped by) its own standing queue.
    pub queue_bytes_per_conn: u64,
    /// Each packet a host sends waits a random time, uniform in [0, tx_jitter_us], before
    /// its NIC may start it (order is kept). Real hosts' timing noise; without it, senders
    /// with equal paths stay phase-locked and one can lose every same-instant race for the
    /// last buffer slot (Floyd & Jacobson's "phase effects"). 0 = perfectly regular hosts.
    pub tx_jitter_us: f64,
    /// Each host's NIC clock is off its nominal rate by a fixed amount drawn from the seed,
    /// uniform in ±clock_ppm parts per million (IEEE 802.3 allows ±100 ppm). A host whose NIC
    /// is its bottleneck then does not feed a switch port at exactly its drain rate: without
    /// it, such a sender keeps any queue it meets standing forever and wins every freed slot
    /// from other senders. 0 = every clock exact.
    pub clock_ppm: f64,
    /// Segmentation offload burst: the sender waits until it may send this many segments
    /// and sends them back to back (0 = off). 30-40 mimics the 10G hosts (DCTCP paper §3.5).
    pub offload_burst_segments: u32,
    /// Receive interrupt moderation, µs: the NIC raises a receive interrupt at most once per
    /// this interval (Intel's ITR; Windows drivers' "interrupt moderation"). Packets arriving
    /// sooner after the last interrupt wait for the next one and reach the stack together; a
    /// packet after a quiet interval goes at once. 0 = every packet on arrival.
    pub rx_interrupt_interval_us: f64,
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
        }
    }
}

/// ICTCP (ICTCP paper §IV-VI; spec algorithms.md §6): a driver on each named host that
/// measures the interface's incoming traffic and rewrites the receive window of the segments
/// the host sends, for every TCP connection whose RTT is below `rtt_limit_ms`. It composes with
/// any sender congestion control. Defaults are the paper's values.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct IctcpConfig {
    /// Hosts that run ICTCP (empty = none).
    pub hosts: Vec<u32>,
    /// BW_A = max(0, α·C − BW_T) (Eq. 1, §IV-A).
    pub alpha: f64,
    /// Measured-throughput filter β (Eq. 2, §IV-C).
    pub beta: f64,
    /// Grow a window when the throughput difference ratio is at most γ1 (§IV-C).
    pub gamma1: f64,
    /// Shrink a window by one MSS after three RTTs with the ratio above γ2 (§IV-C).
    pub gamma2: f64,
    /// Consecutive RTTs with the ratio above γ2 that cost one MSS (§IV-C: three).
    pub decrease_after_rtts: u32,
    /// Control interval, RTTs: a window changes at most once per this many RTTs (§IV-B: two,
    /// one for a change to take effect and one to measure it).
    pub control_interval_rtts: u32,
    /// Smallest receive window, segments: 2 (§IV-C) or 1 (the §VII-A-2 variant).
    pub min_rwnd_segments: u32,
    /// Windows above the average lose one MSS while BW_A < this fraction of C (§IV-D).
    pub fairness_fraction: f64,
    /// Connections with an RTT at or above this are left alone (§III).
    pub rtt_limit_ms: f64,
    /// Sub-slot length before any connection has an RTT, µs (spec ASSUMPTION: the testbed's
    /// 100 µs base RTT; afterwards T is the traffic-weighted mean RTT, §IV-B).
    pub initial_subslot_us: f64,
    /// Tick of the receiver's timestamp clock, ns (§VI-C).
    pub timestamp_tick_ns: f64,
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

/// Congestion control by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// RFC 5681 + RFC 6582, no ECN.
    Newreno,
    /// NewReno with RFC 3168 ECN: halve once per window on ECN-Echo.
    TcpEcn,
    /// DCTCP (DCTCP paper §3.1).
    Dctcp,
}

impl CcKind {
    pub fn name(self) -> &'static str {
        match self {
            CcKind::Newreno => "newreno",
            CcKind::TcpEcn => "tcp_ecn",
            CcKind::Dctcp => "dctcp",
        }
    }
}

/// Which DCTCP receiver ACK machine to run (M19).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DctcpReceiver {
    /// DCTCP paper Fig. 10: one immediate ACK at a CE-state change.
    #[default]
    Paper,
    /// Linux `dctcp_ece_ack_update`: the paper's ACK, then an immediate ACK of the new packet.
    Linux,
}

/// Whether control packets (SYN, SYN-ACK, pure ACKs, retransmissions) carry ECT (M8, §7.3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EctOnControl {
    /// DCTCP hosts mark every packet ECT, RFC 3168 hosts only new data.
    #[default]
    Auto,
    /// RFC 3168 §6.1: ECT on new data only.
    Rfc3168,
    /// ECT on every packet.
    All,
}

/// The TCP stack of every host (flows may override `cc`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    pub cc: CcKind,
    /// Payload bytes per segment (MTU 1500 minus 40 B of headers).
    pub mss: u32,
    /// IP + TCP header bytes added to every segment.
    pub header_bytes: u32,
    /// Initial congestion window, segments (ASSUMPTION 2, as ns-2 `windowInit_`).
    pub init_cwnd_segments: u32,
    /// Minimum retransmission timeout, ms (300 = DCTCP testbed default, 10 = tuned).
    pub rto_min_ms: f64,
    /// Initial RTO before any RTT sample, also for SYNs, ms (RFC 6298: 1 s).
    pub rto_initial_ms: f64,
    /// Upper bound of the backed-off RTO, ms.
    pub rto_max_ms: f64,
    /// Timer granularity: RTOs round up to a multiple of this, ms (0 = exact).
    pub timer_tick_ms: f64,
    /// Delayed ACKs: one ACK every m in-order segments (DCTCP paper §3.1: m = 2).
    pub delayed_ack_segments: u32,
    /// Delayed-ACK timeout, ms.
    pub delayed_ack_timeout_ms: f64,
    /// Receive buffer, bytes: the advertised window is the free space in it.
    pub rcv_buffer_bytes: u64,
    /// DCTCP estimation gain g (DCTCP paper §3.5: 1/16).
    pub dctcp_g: f64,
    /// DCTCP initial alpha (ASSUMPTION 1.0, Linux `dctcp_alpha_on_init`).
    pub dctcp_alpha_init: f64,
    /// Smallest cwnd after a DCTCP cut, segments (ASSUMPTION 2, Linux).
    pub dctcp_min_cwnd_segments: u32,
    pub dctcp_receiver: DctcpReceiver,
    pub ect_on_control: EctOnControl,
    /// SACK (RFC 2018) with RFC 6675 loss recovery; off = NewReno recovery (RFC 6582). Both
    /// papers' baselines were "NewReno with SACK" (DCTCP §4, ICTCP §VII).
    pub sack: bool,
    /// Limited transmit (RFC 3042). Not mentioned by the papers: off by default (spec §1.4).
    pub limited_transmit: bool,
    /// RFC 5681 §4.1: restart from the initial window after an idle period longer than the RTO.
    pub slow_start_after_idle: bool,
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            cc: CcKind::Newreno,
            mss: 1460,
            header_bytes: 40,
            init_cwnd_segments: 2,
            rto_min_ms: 300.0,
            rto_initial_ms: 1000.0,
            rto_max_ms: 60_000.0,
            timer_tick_ms: 0.0,
            delayed_ack_segments: 2,
            delayed_ack_timeout_ms: 40.0,
            rcv_buffer_bytes: 8_000_000,
            dctcp_g: 1.0 / 16.0,
            dctcp_alpha_init: 1.0,
            dctcp_min_cwnd_segments: 2,
            dctcp_receiver: DctcpReceiver::Paper,
            ect_on_control: EctOnControl::Auto,
            sack: true,
            limited_transmit: false,
            slow_start_after_idle: true,
        }
    }
}

/// One TCP connection carrying data from `src` to `dst`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// Congestion control of this flow (default: `tcp.cc`).
    #[serde(default)]
    pub cc: Option<CcKind>,
    /// When the connection opens (SYN), seconds.
    #[serde(default)]
    pub start_s: f64,
    /// A uniform random delay in [0, start_jitter_us] added to `start_s`, drawn from the seed.
    #[serde(default)]
    pub start_jitter_us: f64,
    /// The application stops writing at this time (default: never).
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Bytes to send (default: unlimited, a long-lived bulk flow).
    #[serde(default)]
    pub bytes: Option<u64>,
    /// Receive buffer of this connection, bytes (default: `tcp.rcv_buffer_bytes`).
    #[serde(default)]
    pub rcv_buffer_bytes: Option<u64>,
}

/// Partition/aggregate (M23): a client sends a small request to each server, each server
/// answers with `response_bytes`; a query completes when every response has arrived.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuerySpec {
    /// The aggregator.
    pub client: u32,
    /// The workers.
    pub servers: Vec<u32>,
    /// Request size, bytes (NOT GIVEN in the papers; ASSUMPTION one 100-B segment).
    #[serde(default = "default_request_bytes")]
    pub request_bytes: u64,
    /// Response size per server, bytes.
    pub response_bytes: u64,
    /// Number of queries.
    pub rounds: u32,
    /// When the first query is issued, seconds. Persistent connections open at time 0.
    #[serde(default)]
    pub start_s: f64,
    /// `barrier`: the next query is issued when the previous one completes (DCTCP §4.2.1,
    /// ICTCP §II-A); or Poisson arrivals with the given mean interval.
    #[serde(default)]
    pub arrival: Arrival,
    /// Each server waits a uniform random time in [0, response_jitter_us] before answering
    /// (application jitter, M24).
    #[serde(default)]
    pub response_jitter_us: f64,
    /// One long-lived connection per server (the papers' applications) or a new connection,
    /// with its handshake, for every request.
    #[serde(default = "default_true")]
    pub persistent: bool,
    /// Congestion control of the query connections (default: `tcp.cc`).
    #[serde(default)]
    pub cc: Option<CcKind>,
    /// Receive buffer of the query connections, bytes (default: `tcp.rcv_buffer_bytes`): a
    /// static cap on each response's window (ICTCP §II-B).
    #[serde(default)]
    pub rcv_buffer_bytes: Option<u64>,
}

fn default_request_bytes() -> u64 {
    100
}

/// How queries follow one another.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Arrival {
    /// The next query is issued when the previous one has completed.
    #[default]
    Barrier,
    /// Queries are issued at exponentially distributed intervals, whether or not the
    /// previous ones have completed.
    Poisson {
        /// Mean interval between queries, milliseconds.
        mean_interval_ms: f64,
    },
}

/// What to record besides the always-on counters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MeasureConfig {
    /// Queue-length time series of every switch port, one sample per interval, µs (0 = off).
    pub queue_sample_us: f64,
    /// Ports to sample, by name (`s0->h0`); empty = every switch port.
    pub queue_ports: Vec<String>,
    /// Per-flow time series (delivered bytes, cwnd, DCTCP alpha) every interval, µs (0 = off).
    pub flow_sample_us: f64,
    /// Ports whose packets are traced, by name (`s0->h0`): each packet leaving the port,
    /// and each it refuses (`dcsim run --trace`).
    pub trace_ports: Vec<String>,
    /// Flows (indices into `flows`) whose packets are traced at their sender's host: what
    /// it sends and what it receives.
    pub trace_flows: Vec<u32>,
}

impl Default for MeasureConfig {
    fn default() -> Self {
        Self {
            queue_sample_us: 1000.0,
            queue_ports: Vec::new(),
            flow_sample_us: 0.0,
            trace_ports: Vec::new(),
            trace_flows: Vec::new(),
        }
    }
}

impl Scenario {
    /// Parse TOML text; errors name the field path and the reason.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let de = toml::Deserializer::new(text);
        let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            ConfigError::new(path, inner.message().trim().to_string())
        })?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// Parse JSON text (what the Python bindings pass).
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let mut de = serde_json::Deserializer::from_str(text);
        let scenario: Scenario = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let msg = e.into_inner().to_string();
            // serde_json appends " at line X column Y": meaningless for a dict built in Python.
            let msg = match msg.find(" at line ") {
                Some(i) => msg[..i].to_string(),
                None => msg,
            };
            ConfigError::new(path, msg)
        })?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// The JSON Schema of the scenario format.
    pub fn json_schema() -> String {
        let schema = schemars::schema_for!(Scenario);
        serde_json::to_string_pretty(&schema).expect("schema serialises")
    }

    /// Number of hosts the topology creates.
    pub fn host_count(&self) -> u32 {
        match &self.topology {
            Topology::Star { hosts, .. } => *hosts,
            Topology::Dumbbell { left, right, .. } => left + right,
        }
    }

    /// Checks serde cannot express: ranges, cross references.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |field: &str, reason: String| Err(ConfigError::new(field.to_string(), reason));
        let s = &self.sim;
        if !(s.duration_s.is_finite() && s.duration_s > 0.0) {
            return err(
                "sim.duration_s",
                format!("must be a positive number of seconds, got {}", s.duration_s),
            );
        }
        if !(s.warmup_s >= 0.0 && s.warmup_s < s.duration_s) {
            return err("sim.warmup_s", format!("must be in [0, duration_s), got {}", s.warmup_s));
        }
        let check_link = |field: &str, l: &LinkConfig| -> Result<(), ConfigError> {
            if !(l.rate_gbps.is_finite() && l.rate_gbps > 0.0 && l.rate_gbps <= 10_000.0) {
                return err(
                    &format!("{field}.rate_gbps"),
                    format!("must be in (0, 10000] Gbit/s, got {}", l.rate_gbps),
                );
            }
            if !(l.delay_us.is_finite() && l.delay_us >= 0.0) {
                return err(&format!("{field}.delay_us"), format!("must be >= 0, got {}", l.delay_us));
            }
            Ok(())
        };
        match &self.topology {
            Topology::Star { hosts, link, host_links } => {
                if *hosts < 2 {
                    return err("topology.hosts", format!("a star needs at least 2 hosts, got {hosts}"));
                }
                check_link("topology.link", link)?;
                if host_links.len() > *hosts as usize {
                    return err("topology.host_links", format!("{} entries for {} hosts", host_links.len(), hosts));
                }
                for (i, l) in host_links.iter().enumerate() {
                    check_link(&format!("topology.host_links[{i}]"), l)?;
                }
            }
            Topology::Dumbbell {
                left,
                right,
                host_link,
                core_link,
            } => {
                if *left == 0 || *right == 0 {
                    return err("topology", "a dumbbell needs at least one host on each side".to_string());
                }
                check_link("topology.host_link", host_link)?;
                check_link("topology.core_link", core_link)?;
            }
        }
        match &self.switch.buffer {
            BufferConfig::PerPort {
                limit_packets,
                limit_bytes,
            } => {
                if limit_packets.is_none() && limit_bytes.is_none() {
                    return err("switch.buffer", "give limit_packets or limit_bytes".to_string());
                }
                if *limit_packets == Some(0) {
                    return err("switch.buffer.limit_packets", "must be at least 1 packet".to_string());
                }
                if let Some(b) = limit_bytes {
                    let pkt = (self.tcp.mss + self.tcp.header_bytes) as u64;
                    if *b < pkt {
                        return err("switch.buffer.limit_bytes", format!("{b} B cannot hold one {pkt}-B packet"));
                    }
                }
            }
            BufferConfig::Shared {
                total_bytes,
                alpha,
                limit_packets,
            } => {
                let pkt = (self.tcp.mss + self.tcp.header_bytes) as u64;
                if *total_bytes < pkt {
                    return err(
                        "switch.buffer.total_bytes",
                        format!("{total_bytes} B cannot hold one {pkt}-B packet"),
                    );
                }
                if !(alpha.is_finite() && *alpha > 0.0) {
                    return err("switch.buffer.alpha", format!("must be a positive number, got {alpha}"));
                }
                if *limit_packets == Some(0) {
                    return err("switch.buffer.limit_packets", "must be at least 1 packet".to_string());
                }
            }
            BufferConfig::Preset { .. } => {}
        }
        if let AqmConfig::Red {
            min_th,
            max_th,
            max_p,
            weight_log2,
            ..
        } = &self.switch.aqm
        {
            if !(*min_th >= 0.0 && max_th > min_th) {
                return err("switch.aqm.max_th", format!("need 0 <= min_th < max_th, got {min_th} and {max_th}"));
            }
            if !(*max_p > 0.0 && *max_p <= 1.0) {
                return err("switch.aqm.max_p", format!("must be in (0, 1], got {max_p}"));
            }
            if *weight_log2 > 30 {
                return err("switch.aqm.weight_log2", format!("must be <= 30, got {weight_log2}"));
            }
        }
        if let AqmConfig::Threshold { k_packets: Some(0), .. } = &self.switch.aqm {
            // K = 0 is legal (mark whenever anything is queued).
        }
        if !(self.host.tx_jitter_us.is_finite() && self.host.tx_jitter_us >= 0.0) {
            return err("host.tx_jitter_us", format!("must be >= 0, got {}", self.host.tx_jitter_us));
        }
        if !(self.host.clock_ppm.is_finite() && (0.0..=10_000.0).contains(&self.host.clock_ppm)) {
            return err("host.clock_ppm", format!("must be in [0, 10000], got {}", self.host.clock_ppm));
        }
        let itr = self.host.rx_interrupt_interval_us;
        if !(itr.is_finite() && (0.0..=10_000.0).contains(&itr)) {
            return err("host.rx_interrupt_interval_us", format!("must be in [0, 10000], got {itr}"));
        }
        if self.host.nic_queue_packets == 0 {
            return err("host.nic_queue_packets", "must be at least 1".to_string());
        }
        let t = &self.tcp;
        if t.mss < 64 || t.mss > 65_000 {
            return err("tcp.mss", format!("must be in [64, 65000] bytes, got {}", t.mss));
        }
        if t.init_cwnd_segments == 0 {
            return err("tcp.init_cwnd_segments", "must be at least 1".to_string());
        }
        for (name, v) in [
            ("tcp.rto_min_ms", t.rto_min_ms),
            ("tcp.rto_initial_ms", t.rto_initial_ms),
            ("tcp.rto_max_ms", t.rto_max_ms),
            ("tcp.delayed_ack_timeout_ms", t.delayed_ack_timeout_ms),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return err(name, format!("must be a positive number of ms, got {v}"));
            }
        }
        if !(t.timer_tick_ms.is_finite() && t.timer_tick_ms >= 0.0) {
            return err("tcp.timer_tick_ms", format!("must be >= 0, got {}", t.timer_tick_ms));
        }
        if t.delayed_ack_segments == 0 {
            return err("tcp.delayed_ack_segments", "must be at least 1 (1 = ACK every segment)".to_string());
        }
        if t.rcv_buffer_bytes < t.mss as u64 {
            return err(
                "tcp.rcv_buffer_bytes",
                format!("must hold at least 1 segment, got {}", t.rcv_buffer_bytes),
            );
        }
        if !(t.dctcp_g > 0.0 && t.dctcp_g <= 1.0) {
            return err("tcp.dctcp_g", format!("must be in (0, 1], got {}", t.dctcp_g));
        }
        if !(0.0..=1.0).contains(&t.dctcp_alpha_init) {
            return err("tcp.dctcp_alpha_init", format!("must be in [0, 1], got {}", t.dctcp_alpha_init));
        }
        let hosts = self.host_count();
        let check_host = |field: &str, h: u32| -> Result<(), ConfigError> {
            if h >= hosts {
                return err(field, format!("host {h} does not exist (hosts are 0..{})", hosts - 1));
            }
            Ok(())
        };
        let ic = &self.ictcp;
        for (j, &h) in ic.hosts.iter().enumerate() {
            check_host(&format!("ictcp.hosts[{j}]"), h)?;
        }
        for (name, v, lo, hi) in [
            ("ictcp.alpha", ic.alpha, 0.0, 1.0),
            ("ictcp.beta", ic.beta, 0.0, 1.0),
            ("ictcp.gamma1", ic.gamma1, 0.0, 1.0),
            ("ictcp.gamma2", ic.gamma2, 0.0, 1.0),
            ("ictcp.fairness_fraction", ic.fairness_fraction, 0.0, 1.0),
        ] {
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return err(name, format!("must be in [{lo}, {hi}], got {v}"));
            }
        }
        if ic.gamma1 > ic.gamma2 {
            return err("ictcp.gamma1", format!("must not exceed gamma2 ({}), got {}", ic.gamma2, ic.gamma1));
        }
        for (name, v) in [
            ("ictcp.min_rwnd_segments", ic.min_rwnd_segments),
            ("ictcp.decrease_after_rtts", ic.decrease_after_rtts),
            ("ictcp.control_interval_rtts", ic.control_interval_rtts),
        ] {
            if v == 0 {
                return err(name, "must be at least 1".to_string());
            }
        }
        for (name, v) in [
            ("ictcp.rtt_limit_ms", ic.rtt_limit_ms),
            ("ictcp.initial_subslot_us", ic.initial_subslot_us),
            ("ictcp.timestamp_tick_ns", ic.timestamp_tick_ns),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return err(name, format!("must be a positive number, got {v}"));
            }
        }
        for (i, f) in self.flows.iter().enumerate() {
            let field = |name: &str| format!("flows[{i}].{name}");
            check_host(&field("src"), f.src)?;
            check_host(&field("dst"), f.dst)?;
            if f.src == f.dst {
                return err(&field("dst"), "a flow needs two different hosts".to_string());
            }
            if !(f.start_s.is_finite() && f.start_s >= 0.0) {
                return err(&field("start_s"), format!("must be >= 0, got {}", f.start_s));
            }
            if !(f.start_jitter_us.is_finite() && f.start_jitter_us >= 0.0) {
                return err(&field("start_jitter_us"), format!("must be >= 0, got {}", f.start_jitter_us));
            }
            if let Some(stop) = f.stop_s {
                if stop.is_nan() || stop <= f.start_s {
                    return err(&field("stop_s"), format!("must be after start_s, got {stop}"));
                }
            }
            if f.rcv_buffer_bytes.is_some_and(|b| b < t.mss as u64) {
                return err(&field("rcv_buffer_bytes"), format!("must hold at least 1 segment ({} B)", t.mss));
            }
            if f.bytes == Some(0) {
                return err(
                    &field("bytes"),
                    "must be at least 1 byte (omit it for a long-lived flow)".to_string(),
                );
            }
        }
        for (i, q) in self.queries.iter().enumerate() {
            let field = |name: &str| format!("queries[{i}].{name}");
            check_host(&field("client"), q.client)?;
            if q.servers.is_empty() {
                return err(&field("servers"), "needs at least one server".to_string());
            }
            for (j, &h) in q.servers.iter().enumerate() {
                check_host(&field(&format!("servers[{j}]")), h)?;
                if h == q.client {
                    return err(&field(&format!("servers[{j}]")), "a server cannot be the client".to_string());
                }
            }
            if q.request_bytes == 0 {
                return err(&field("request_bytes"), "must be at least 1 byte".to_string());
            }
            if q.response_bytes == 0 {
                return err(&field("response_bytes"), "must be at least 1 byte".to_string());
            }
            if q.rcv_buffer_bytes.is_some_and(|b| b < t.mss as u64) {
                return err(&field("rcv_buffer_bytes"), format!("must hold at least 1 segment ({} B)", t.mss));
            }
            if q.rounds == 0 {
                return err(&field("rounds"), "must be at least 1".to_string());
            }
            if !(q.start_s.is_finite() && q.start_s >= 0.0) {
                return err(&field("start_s"), format!("must be >= 0, got {}", q.start_s));
            }
            if !(q.response_jitter_us.is_finite() && q.response_jitter_us >= 0.0) {
                return err(&field("response_jitter_us"), format!("must be >= 0, got {}", q.response_jitter_us));
            }
            if let Arrival::Poisson { mean_interval_ms } = q.arrival {
                if !(mean_interval_ms.is_finite() && mean_interval_ms > 0.0) {
                    return err(&field("arrival.mean_interval_ms"), format!("must be > 0, got {mean_interval_ms}"));
                }
            }
        }
        for (name, v) in [
            ("measure.queue_sample_us", self.measure.queue_sample_us),
            ("measure.flow_sample_us", self.measure.flow_sample_us),
        ] {
            if !(v.is_finite() && (v == 0.0 || v >= 0.001)) {
                return err(name, format!("must be 0 (off) or >= 0.001 µs, got {v}"));
            }
        }
        for (i, &f) in self.measure.trace_flows.iter().enumerate() {
            if f as usize >= self.flows.len() {
                return err(
                    &format!("measure.trace_flows[{i}]"),
                    match self.flows.len() {
                        0 => format!("flow {f} does not exist (the scenario has no flows)"),
                        1 => format!("flow {f} does not exist (the only flow is 0)"),
                        n => format!("flow {f} does not exist (flows are 0..{})", n - 1),
                    },
                );
            }
        }
        Ok(())
    }
}
