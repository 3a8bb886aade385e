//! What a run returns: counters and tables.
//!
//! The bindings take the tables out as columns ([`Results::take_tables`]), which become NumPy
//! arrays without a per-row step; `to_json` serves the engine's own tests and tools. Times
//! are seconds, rates bit/s, sizes bytes or packets as the name says.

use serde::Serialize;

/// One column of a table, in the engine's own types; the bindings choose how each crosses.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    Bool(Vec<bool>),
    U8(Vec<u8>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F64(Vec<f64>),
    Str(Vec<String>),
    /// A number or none (a bulk flow's query workload).
    OptU32(Vec<Option<u32>>),
    /// `width` numbers per row, row after row (a packet's SACK edges).
    U64Rows {
        width: usize,
        values: Vec<u64>,
    },
    /// A list of numbers per row (a port's occupancy histogram).
    F64Lists(Vec<Vec<f64>>),
}

/// A table: named columns of equal length, in order.
pub type Table = Vec<(&'static str, Column)>;

macro_rules! column_from {
    ($($ty:ty => $variant:ident),* $(,)?) => {
        $(impl From<Vec<$ty>> for Column {
            fn from(values: Vec<$ty>) -> Self {
                Column::$variant(values)
            }
        })*
    };
}
column_from!(bool => Bool, u8 => U8, u32 => U32, u64 => U64, f64 => F64, String => Str, Option<u32> => OptU32, Vec<f64> => F64Lists);

impl<const N: usize> From<Vec<[u64; N]>> for Column {
    fn from(rows: Vec<[u64; N]>) -> Self {
        Column::U64Rows {
            width: N,
            values: rows.into_iter().flatten().collect(),
        }
    }
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::Bool(v) => v.len(),
            Column::U8(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::OptU32(v) => v.len(),
            Column::U64Rows { width, values } => values.len() / (*width).max(1),
            Column::F64Lists(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows in the order `order` gives (indices of rows).
    fn reorder(&mut self, order: &[usize]) {
        fn pick<T: Clone>(v: &[T], order: &[usize]) -> Vec<T> {
            order.iter().map(|&i| v[i].clone()).collect()
        }
        match self {
            Column::Bool(v) => *v = pick(v, order),
            Column::U8(v) => *v = pick(v, order),
            Column::U32(v) => *v = pick(v, order),
            Column::U64(v) => *v = pick(v, order),
            Column::F64(v) => *v = pick(v, order),
            Column::Str(v) => *v = pick(v, order),
            Column::OptU32(v) => *v = pick(v, order),
            Column::F64Lists(v) => *v = pick(v, order),
            Column::U64Rows { width, values } => {
                let w = *width;
                *values = order.iter().flat_map(|&i| values[i * w..(i + 1) * w].iter().copied()).collect();
            }
        }
    }
}

/// Declares a results struct and its conversion to a [`Table`] (one column per field, in
/// declaration order, so the two cannot drift apart). `rows` structs are one row each and
/// `Self::table` gathers a slice of them; `columns` structs hold one Vec per column and
/// `into_table` moves them out.
macro_rules! table {
    (@struct $(#[$meta:meta])* $name:ident { $($(#[$fmeta:meta])* $field:ident : $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Serialize, Default)]
        pub struct $name {
            $($(#[$fmeta])* pub $field: $ty,)*
        }
    };
    (rows $(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident : $ty:ty,)* }) => {
        table!(@struct $(#[$meta])* $name { $($(#[$fmeta])* $field: $ty,)* });
        impl $name {
            pub fn table(rows: Vec<Self>) -> Table {
                $(let mut $field: Vec<$ty> = Vec::with_capacity(rows.len());)*
                for row in rows {
                    $($field.push(row.$field);)*
                }
                vec![$((stringify!($field), Column::from($field)),)*]
            }
        }
    };
    (columns $(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* pub $field:ident : $ty:ty,)* }) => {
        table!(@struct $(#[$meta])* $name { $($(#[$fmeta])* $field: $ty,)* });
        impl $name {
            pub fn into_table(self) -> Table {
                vec![$((stringify!($field), Column::from(self.$field)),)*]
            }
        }
    };
}

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
    /// One row per class queue of the switch ports with a queue discipline.
    pub classes: Vec<ClassStats>,
    pub switches: Vec<SwitchStats>,
    pub flows: Vec<FlowStats>,
    pub queries: Vec<QueryStats>,
    pub queue_samples: QueueSamples,
    pub pool_samples: PoolSamples,
    pub ictcp_samples: IctcpSamples,
    pub flow_samples: FlowSamples,
    /// One row per UDP source (`udp[]`).
    pub udp: Vec<UdpStats>,
    /// The round trips of the echoed UDP packets (`udp[].echo`).
    pub probes: ProbeSamples,
    /// Packet records of `measure.trace_ports` and `measure.trace_flows` (empty otherwise).
    pub trace: PacketTrace,
    pub conservation: Conservation,
}

table! {
    rows
    /// One egress port (switch port or host NIC).
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
        /// Dropped by the AQM, on arrival or as they left the queue.
        pub drops_aqm: u64,
        /// Of `drops_aqm`, those dropped as they left the queue (an AQM acting at dequeue):
        /// arrived = enqueued + drops_buffer + drops_pool + drops_aqm − drops_dequeue, and
        /// enqueued = sent + queued_at_end + drops_dequeue.
        pub drops_dequeue: u64,
        /// Of all drops (buffer, pool, AQM), those of packets that were not ECN-capable.
        pub drops_nonect: u64,
        /// Of all drops, SYNs and SYN-ACKs.
        pub drops_syn: u64,
        /// Of all drops, pure ACKs (no payload, no SYN).
        pub drops_ack: u64,
        /// Of all drops, retransmitted data.
        pub drops_retransmit: u64,
        pub marks: u64,
        /// Drops (buffer, pool, AQM) after the warm-up (`sim.warmup_s`): in the measurement
        /// window, where the other counters cover the whole run.
        pub drops_after_warmup: u64,
        /// Marks after the warm-up.
        pub marks_after_warmup: u64,
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
}

table! {
    rows
    /// One class queue of a port with a queue discipline (`switch.classes`, or a dequeue AQM).
    pub struct ClassStats {
        /// Index into `ports`.
        pub port: u32,
        pub class: u8,
        /// Packets that reached the class queue (the shared memory's refusals count on the
        /// port only).
        pub arrived_packets: u64,
        pub enqueued_packets: u64,
        /// Packets that left the class queue for the link (the port counts them when their
        /// last bit has left).
        pub sent_packets: u64,
        pub sent_bytes: u64,
        /// Refused by the class's or the port's limit, or its share of the buffer.
        pub drops_buffer: u64,
        /// Dropped by the class's AQM, on arrival or at dequeue.
        pub drops_aqm: u64,
        pub marks: u64,
        pub max_packets: u64,
    }
}

table! {
    rows
    /// One switch and its shared memory (zeros for per-port buffers).
    pub struct SwitchStats {
        pub name: String,
        /// B of the shared memory, bytes (0: per-port buffers).
        pub shared_bytes: u64,
        pub alpha: f64,
        /// Highest shared-memory occupancy, bytes.
        pub max_used_bytes: u64,
    }
}

table! {
    rows
    /// One partition/aggregate query.
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
        /// Those that delayed it, the data having been lost: `timeouts − spurious_timeouts`.
        pub timeouts: u64,
        /// Of `timeouts`, the retransmission timeouts found spurious: the data had arrived,
        /// or was on its way, so the retransmission was not needed (F-RTO's verdict where it
        /// decides, else the echoed timestamps', the Eifel detection of RFC 3522). A receiver
        /// that still holds a delayed ACK when the copy arrives echoes the copy's timestamp, so
        /// such a timeout counts as not spurious.
        pub spurious_timeouts: u64,
    }
}

table! {
    rows
    /// One connection. `src` sends its main data (the opener of a bulk flow, the server of a
    /// query connection); packet counters cover both directions; cwnd, alpha and srtt are the
    /// data sender's.
    pub struct FlowStats {
        pub id: u32,
        /// The query workload the connection belongs to (null for a bulk flow).
        pub workload: Option<u32>,
        /// The traffic generator that started the flow (null for a flow the scenario lists).
        pub generator: Option<u32>,
        /// Traffic class its packets carried (0-7).
        pub class: u8,
        /// Bytes the flow was to send (0: a long-lived flow, or a query connection).
        pub size_bytes: u64,
        pub src: u32,
        pub dst: u32,
        pub cc: String,
        /// Time the SYN was sent.
        pub start_s: f64,
        /// Time the handshake completed at the sender (NaN if it never did).
        pub established_s: f64,
        /// Connection setup time: from the first SYN to the SYN-ACK's arrival at the end that
        /// opened the connection, SYN retries included (NaN if it never arrived).
        pub setup_s: f64,
        /// The handshake gave up after `tcp.syn_retries` (or `synack_retries`) resends.
        pub failed: bool,
        /// Time the last byte reached the receiver (NaN for a flow that did not finish).
        pub completion_s: f64,
        /// Flow completion time: `completion_s` − `start_s` (from the SYN).
        pub fct_s: f64,
        /// The completion time the same flow has alone on the idle network
        /// (`measure.ideal_fct`; NaN when off or unfinished).
        pub ideal_fct_s: f64,
        /// `fct_s` / `ideal_fct_s`: 1 for a flow nothing slowed.
        pub slowdown: f64,
        /// Application bytes delivered in order to the receiver, whole run.
        pub bytes_delivered: u64,
        /// Delivered bytes per second over the measurement window.
        pub goodput_bps: f64,
        pub data_packets_sent: u64,
        pub retransmits: u64,
        pub fast_retransmits: u64,
        pub timeouts: u64,
        /// Of `timeouts`, those found spurious (the data had not been lost): by F-RTO where it
        /// decides (`tcp.frto`, RFC 5682), else by the timestamp the first ACK after the timeout
        /// echoes (the Eifel detection, RFC 3522). A timeout's data timing out again shares its
        /// verdict.
        pub spurious_timeouts: u64,
        pub syn_retries: u64,
        /// Tail loss probes sent (`tcp.tail_loss_probe`; a probe that resends also counts in
        /// `retransmits`).
        pub tail_loss_probes: u64,
        /// Retransmissions and timeouts after the warm-up (`sim.warmup_s`): in the
        /// measurement window, where the columns above cover the whole run.
        pub retransmits_after_warmup: u64,
        pub timeouts_after_warmup: u64,
        pub ecn_reductions: u64,
        pub ece_acks: u64,
        pub final_cwnd_bytes: f64,
        pub final_alpha: f64,
        pub srtt_s: f64,
        /// The receiver's buffer at the end, bytes (grown by `tcp.rcv_autotune`, or fixed).
        pub rcv_buffer_bytes: u64,
    }
}

table! {
    rows
    /// One constant-bit-rate UDP source (`udp[]`).
    pub struct UdpStats {
        pub id: u32,
        pub src: u32,
        pub dst: u32,
        pub class: u8,
        /// Its destination echoes every packet back (`probes` has their round trips).
        pub echo: bool,
        /// The configured rate, bit/s, and IP packet size, bytes.
        pub rate_bps: f64,
        pub packet_bytes: u32,
        /// Packets sent, received by the destination and dropped on the way (in its host's
        /// NIC queue or in the network), whole run; sent = received + dropped + in flight.
        pub sent_packets: u64,
        pub received_packets: u64,
        pub dropped_packets: u64,
        /// Echoes back at the source, and echoes dropped on their way back.
        pub replies: u64,
        pub echoes_dropped: u64,
        /// IP bits sent and received per second over the measurement window.
        pub send_rate_bps: f64,
        pub receive_rate_bps: f64,
    }
}

table! {
    columns
    /// One row per echoed UDP packet back at its source.
    pub struct ProbeSamples {
        /// Index into `udp`.
        pub udp: Vec<u32>,
        /// When the packet left its source.
        pub t_s: Vec<f64>,
        /// Its round trip, to the echo's arrival.
        pub rtt_s: Vec<f64>,
    }
}

table! {
    columns
    /// One record per traced packet event, in the order they were recorded (not sorted by time).
    pub struct PacketTrace {
        /// 0 = a port's capture, 1 = a flow's capture at its sender's host.
        pub view: Vec<u8>,
        pub t_s: Vec<f64>,
        /// Index into `ports`: the port whose link the packet crossed (or that refused it).
        pub port: Vec<u32>,
        /// 0 = left the port or the host (end of transmission), 1 = arrived at the host,
        /// 2 = refused by the port.
        pub event: Vec<u8>,
        /// Connection index (flows first, then query connections); for a UDP packet (flag
        /// 128), the index of its source in `udp`.
        pub flow: Vec<u32>,
        /// Which end sent it: 0 = the end that opened the connection.
        pub from_end: Vec<u8>,
        /// Sending and receiving host.
        pub src: Vec<u32>,
        pub dst: Vec<u32>,
        /// TCP flags: SYN 1, ACK 2, FIN 4, PSH 8, ECE 16, CWR 32; and 64 (not a TCP flag) on a
        /// retransmitted segment, 128 on a UDP source's packet (`from_end` 1: an echo).
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
}

table! {
    columns
    pub struct QueueSamples {
        /// Index into `ports`.
        pub port: Vec<u32>,
        pub t_s: Vec<f64>,
        pub packets: Vec<u32>,
        pub bytes: Vec<u64>,
    }
}

table! {
    columns
    /// Shared-memory occupancy over time, sampled with the queues.
    pub struct PoolSamples {
        /// Index into `switches`.
        pub switch: Vec<u32>,
        pub t_s: Vec<f64>,
        pub bytes: Vec<u64>,
    }
}

table! {
    columns
    pub struct FlowSamples {
        pub flow: Vec<u32>,
        pub t_s: Vec<f64>,
        pub delivered_bytes: Vec<u64>,
        pub cwnd_bytes: Vec<f64>,
        pub alpha: Vec<f64>,
        /// The receiver's buffer, bytes (it grows with `tcp.rcv_autotune`).
        pub rcv_buffer_bytes: Vec<u64>,
        /// ICTCP at the receiving end (NaN where its host runs no ICTCP): the receive window it
        /// allows, the measured throughput b^m (Eq. 2), the expected throughput b^e (Eq. 3), and
        /// the receiver-side smoothed RTT.
        pub ictcp_rwnd_bytes: Vec<f64>,
        pub ictcp_measured_bps: Vec<f64>,
        pub ictcp_expected_bps: Vec<f64>,
        pub ictcp_rtt_s: Vec<f64>,
    }
}

table! {
    columns
    /// ICTCP's interface state over time, sampled with the flows, one row per ICTCP host:
    /// BW_T and BW_A of the last completed first sub-slot (Eq. 1) and the sub-slot length T.
    pub struct IctcpSamples {
        pub host: Vec<u32>,
        pub t_s: Vec<f64>,
        pub bw_t_bps: Vec<f64>,
        pub bw_a_bps: Vec<f64>,
        /// What is left of BW_A for increases in the current second sub-slot (NaN in a first).
        pub quota_bps: Vec<f64>,
        pub subslot_s: Vec<f64>,
    }
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
    /// Moves every table out as columns, leaving the scalars: what the bindings hand to
    /// Python. The ports' occupancy histograms become `queue_occupancy`, a long table
    /// (`port`, `packets`, `seconds`: seconds port `port` held exactly `packets` packets), and
    /// the trace is sorted by time (stable: records of one instant keep their order).
    pub fn take_tables(&mut self) -> Vec<(&'static str, Table)> {
        let (mut port, mut packets, mut seconds) = (Vec::new(), Vec::new(), Vec::new());
        for (i, p) in self.ports.iter_mut().enumerate() {
            for (n, s) in std::mem::take(&mut p.occupancy_time_s).into_iter().enumerate() {
                port.push(i as u32);
                packets.push(n as u32);
                seconds.push(s);
            }
        }
        let mut ports = PortStats::table(std::mem::take(&mut self.ports));
        ports.retain(|(name, _)| *name != "occupancy_time_s");
        let occupancy = vec![("port", port.into()), ("packets", packets.into()), ("seconds", seconds.into())];
        let trace = std::mem::take(&mut self.trace);
        let order = trace.time_order();
        let mut trace = trace.into_table();
        if let Some(order) = order {
            trace.iter_mut().for_each(|(_, column)| column.reorder(&order));
        }
        vec![
            ("ports", ports),
            ("classes", ClassStats::table(std::mem::take(&mut self.classes))),
            ("switches", SwitchStats::table(std::mem::take(&mut self.switches))),
            ("flows", FlowStats::table(std::mem::take(&mut self.flows))),
            ("queries", QueryStats::table(std::mem::take(&mut self.queries))),
            ("queue_occupancy", occupancy),
            ("queue_samples", std::mem::take(&mut self.queue_samples).into_table()),
            ("pool_samples", std::mem::take(&mut self.pool_samples).into_table()),
            ("flow_samples", std::mem::take(&mut self.flow_samples).into_table()),
            ("ictcp_samples", std::mem::take(&mut self.ictcp_samples).into_table()),
            ("udp", UdpStats::table(std::mem::take(&mut self.udp))),
            ("probes", std::mem::take(&mut self.probes).into_table()),
            ("trace", trace),
        ]
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results serialise")
    }
}

impl PacketTrace {
    /// The record indices in time order (stable), or None if they already are.
    fn time_order(&self) -> Option<Vec<usize>> {
        if self.t_s.windows(2).all(|w| w[0] <= w[1]) {
            return None;
        }
        let mut order: Vec<usize> = (0..self.t_s.len()).collect();
        order.sort_by(|&a, &b| self.t_s[a].total_cmp(&self.t_s[b]));
        Some(order)
    }
}

#[cfg(test)]
#[path = "results_tests.rs"]
mod tests;
