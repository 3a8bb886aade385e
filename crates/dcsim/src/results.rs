//! What a run returns: counters and tables, serialised to JSON for the bindings.
//!
//! Tables are columnar (one Vec per column) so Python turns them into pandas frames without
//! reshaping. Times are seconds, rates bit/s, sizes bytes or packets as the name says.

use serde::Serialize;

#[derive(Debug, Clone, Serialize, Default)]
pub struct Results {
    pub name: String,
    pub seed: u64,
    pub duration_s: f64,
    pub warmup_s: f64,
    /// Events taken off the calendar.
    pub events: u64,
    /// Packets that finished crossing a link (one packet over one link = one hop).
    pub packet_hops: u64,
    pub ports: Vec<PortStats>,
    pub switches: Vec<SwitchStats>,
    pub flows: Vec<FlowStats>,
    pub queries: Vec<QueryStats>,
    pub queue_samples: QueueSamples,
    pub pool_samples: PoolSamples,
    pub ictcp_samples: IctcpSamples,
    pub flow_samples: FlowSamples,
    /// Packet records of `measure.trace_ports` and `measure.trace_flows` (empty otherwise).
    pub trace: PacketTrace,
    pub conservation: Conservation,
}

/// One egress port (switch port or host NIC).
#[derive(Debug, Clone, Serialize, Default)]
pub struct PortStats {
    /// `node->peer`, e.g. `s0->h0`.
    pub name: String,
    pub node: String,
    pub peer: String,
    pub is_switch: bool,
    pub rate_bps: f64,
    pub arrived_packets: u64,
    pub enqueued_packets: u64,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    /// Refused by the port's limit (static, or the shared memory's dynamic threshold).
    pub drops_buffer: u64,
    /// Refused because the switch's shared memory was full.
    pub drops_pool: u64,
    pub drops_aqm: u64,
    pub marks: u64,
    /// Packets still queued when the run ended.
    pub queued_at_end: u64,
    pub max_packets: u64,
    pub max_bytes: u64,
    /// Time-weighted mean over the measurement window.
    pub mean_packets: f64,
    pub mean_bytes: f64,
    /// Busy fraction of the link over the measurement window.
    pub utilization: f64,
    /// `occupancy_time_s[n]` = seconds the queue held exactly n packets in the window.
    pub occupancy_time_s: Vec<f64>,
}

/// One switch and its shared memory (zeros for per-port buffers).
#[derive(Debug, Clone, Serialize, Default)]
pub struct SwitchStats {
    pub name: String,
    /// B of the shared memory, bytes (0: per-port buffers).
    pub shared_bytes: u64,
    pub alpha: f64,
    /// Highest shared-memory occupancy, bytes.
    pub max_used_bytes: u64,
}

/// One partition/aggregate query.
#[derive(Debug, Clone, Serialize, Default)]
pub struct QueryStats {
    /// Index into the scenario's `queries`.
    pub workload: u32,
    /// 0-based number of the query within its workload.
    pub query: u32,
    pub client: u32,
    pub servers: u32,
    pub issued_s: f64,
    /// NaN if the query had not completed when the run ended.
    pub completed_s: f64,
    /// Query completion time: issue to last response byte (DCTCP §4.2.1).
    pub qct_s: f64,
    /// Response bytes of the whole query.
    pub response_bytes: u64,
    /// Retransmission timeouts and SYN retries on the query's connections while it ran.
    pub timeouts: u64,
}

/// One connection. `src` sends its main data (the opener of a bulk flow, the server of a
/// query connection); packet counters cover both directions; cwnd, alpha and srtt are the
/// data sender's.
#[derive(Debug, Clone, Serialize, Default)]
pub struct FlowStats {
    pub id: u32,
    /// The query workload the connection belongs to (null for a bulk flow).
    pub workload: Option<u32>,
    pub src: u32,
    pub dst: u32,
    pub cc: String,
    /// Time the SYN was sent.
    pub start_s: f64,
    /// Time the handshake completed at the sender (NaN if it never did).
    pub established_s: f64,
    /// Time the last byte reached the receiver (NaN for a flow that did not finish).
    pub completion_s: f64,
    /// Application bytes delivered in order to the receiver, whole run.
    pub bytes_delivered: u64,
    /// Delivered bytes per second over the measurement window.
    pub goodput_bps: f64,
    pub data_packets_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub syn_retries: u64,
    pub ecn_reductions: u64,
    pub ece_acks: u64,
    pub final_cwnd_bytes: f64,
    pub final_alpha: f64,
    pub srtt_s: f64,
}

/// One record per traced packet event, in the order they were recorded (not sorted by time).
#[derive(Debug, Clone, Serialize, Default)]
pub struct PacketTrace {
    /// 0 = a port's capture, 1 = a flow's capture at its sender's host.
    pub view: Vec<u8>,
    pub t_s: Vec<f64>,
    /// Index into `ports`: the port whose link the packet crossed (or that refused it).
    pub port: Vec<u32>,
    /// 0 = left the port or the host (end of transmission), 1 = arrived at the host,
    /// 2 = refused by the port.
    pub event: Vec<u8>,
    /// Connection index (flows first, then query connections).
    pub flow: Vec<u32>,
    /// Which end sent it: 0 = the end that opened the connection.
    pub from_end: Vec<u8>,
    /// Sending and receiving host.
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    /// TCP flags: SYN 1, ACK 2, FIN 4, PSH 8, ECE 16, CWR 32.
    pub flags: Vec<u8>,
    /// IP ECN field: 0 not-ECT, 2 ECT(0), 3 CE.
    pub ecn: Vec<u8>,
    pub seq: Vec<u64>,
    pub ack: Vec<u64>,
    /// Advertised receive window, bytes.
    pub rwnd: Vec<u64>,
    /// Payload bytes, and bytes of the IP packet.
    pub len: Vec<u32>,
    pub size: Vec<u32>,
    /// SACK blocks as absolute [start, end) sequence numbers, the first `sack_blocks` pairs.
    pub sack_blocks: Vec<u8>,
    pub sack: Vec<[u64; 6]>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct QueueSamples {
    /// Index into `ports`.
    pub port: Vec<u32>,
    pub t_s: Vec<f64>,
    pub packets: Vec<u32>,
    pub bytes: Vec<u64>,
}

/// Shared-memory occupancy over time, sampled with the queues.
#[derive(Debug, Clone, Serialize, Default)]
pub struct PoolSamples {
    /// Index into `switches`.
    pub switch: Vec<u32>,
    pub t_s: Vec<f64>,
    pub bytes: Vec<u64>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct FlowSamples {
    pub flow: Vec<u32>,
    pub t_s: Vec<f64>,
    pub delivered_bytes: Vec<u64>,
    pub cwnd_bytes: Vec<f64>,
    pub alpha: Vec<f64>,
    /// ICTCP at the receiving end (NaN where its host runs no ICTCP): the receive window it
    /// allows, the measured throughput b^m (Eq. 2), the expected throughput b^e (Eq. 3), and
    /// the receiver-side smoothed RTT.
    pub ictcp_rwnd_bytes: Vec<f64>,
    pub ictcp_measured_bps: Vec<f64>,
    pub ictcp_expected_bps: Vec<f64>,
    pub ictcp_rtt_s: Vec<f64>,
}

/// ICTCP's interface state over time, sampled with the flows, one row per ICTCP host:
/// BW_T and BW_A of the last completed first sub-slot (Eq. 1) and the sub-slot length T.
#[derive(Debug, Clone, Serialize, Default)]
pub struct IctcpSamples {
    pub host: Vec<u32>,
    pub t_s: Vec<f64>,
    pub bw_t_bps: Vec<f64>,
    pub bw_a_bps: Vec<f64>,
    /// What is left of BW_A for increases in the current second sub-slot (NaN in a first).
    pub quota_bps: Vec<f64>,
    pub subslot_s: Vec<f64>,
}

/// End-to-end packet accounting: injected = delivered + dropped + in_flight.
#[derive(Debug, Clone, Serialize, Default, PartialEq, Eq)]
pub struct Conservation {
    pub injected: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub in_flight: u64,
}

impl Results {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results serialise")
    }
}
