//! `[[flows]]`, `[[queries]]` and `[[udp]]`: the connections and sources the scenario lists
//! (the open-loop generators, `[[traffic]]`, are in `traffic.rs`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{check_host, check_rcv_buffer, default_true, limits, CcKind};
use crate::error::ConfigError;

/// The smallest UDP packet, bytes: 20 B of IPv4 header, 8 B of UDP header and 1 B of payload.
const MIN_UDP_PACKET_BYTES: u32 = 29;
/// The largest UDP packet, bytes: 65,535, IPv4's largest (its total-length field is 16 bits).
const MAX_UDP_PACKET_BYTES: u32 = 65_535;

/// One TCP connection carrying data from `src` to `dst`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Sending host.
    #[schemars(range(max = "limits::MAX_HOSTS"))]
    pub src: u32,
    /// Receiving host.
    #[schemars(range(max = "limits::MAX_HOSTS"))]
    pub dst: u32,
    /// Congestion control of this flow (default: `tcp.cc`).
    #[serde(default)]
    pub cc: Option<CcKind>,
    /// When the connection opens (SYN), seconds.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub start_s: f64,
    /// A uniform random delay in [0, start_jitter_us] added to `start_s`, drawn from the seed.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_DELAY_US"))]
    pub start_jitter_us: f64,
    /// The application stops writing at this time (default: never).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub stop_s: Option<f64>,
    /// Bytes to send (default: unlimited, a long-lived bulk flow).
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_BYTES"))]
    pub bytes: Option<u64>,
    /// Receive buffer of this connection, bytes (default: `tcp.rcv_buffer_bytes`).
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_RCV_BUFFER"))]
    pub rcv_buffer_bytes: Option<u64>,
    /// Traffic class its packets carry, 0-7 (a DSCP or 802.1p priority; `switch.classes`
    /// classifying by flow puts them in that class queue).
    #[serde(default)]
    #[schemars(range(max = "limits::MAX_TRAFFIC_CLASS"))]
    pub class: u8,
}

/// Partition/aggregate (DCTCP §2.1, §2.3.2): a client sends a small request to each server,
/// each server answers with `response_bytes`; a query completes when every response has arrived.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuerySpec {
    /// The aggregator.
    #[schemars(range(max = "limits::MAX_HOSTS"))]
    pub client: u32,
    /// The workers.
    pub servers: Vec<u32>,
    /// Request size, bytes (our choice, the papers do not say: one 100-B segment).
    #[serde(default = "default_request_bytes")]
    #[schemars(range(min = 1, max = "limits::MAX_BYTES"))]
    pub request_bytes: u64,
    /// Response size per server, bytes.
    #[schemars(range(min = 1, max = "limits::MAX_BYTES"))]
    pub response_bytes: u64,
    /// Number of queries.
    #[schemars(range(min = 1, max = "limits::MAX_ROUNDS"))]
    pub rounds: u32,
    /// When the first query is issued, seconds. Persistent connections open at time 0.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub start_s: f64,
    /// No query is issued at or after this time, seconds (default: none; `rounds` is the
    /// count either way). With Poisson arrivals, queries then cover [start_s, stop_s) evenly.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub stop_s: Option<f64>,
    /// `barrier`: the next query is issued when the previous one completes (DCTCP §4.2.1,
    /// ICTCP §II-A); or Poisson arrivals with the given mean interval.
    #[serde(default)]
    pub arrival: Arrival,
    /// Each server waits a uniform random time in [0, response_jitter_us] before answering
    /// (application jitter, DCTCP §2.3.2).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_DELAY_US"))]
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
    #[schemars(range(min = 1, max = "limits::MAX_RCV_BUFFER"))]
    pub rcv_buffer_bytes: Option<u64>,
    /// Traffic class of the query connections' packets, 0-7 (see `flows[].class`).
    #[serde(default)]
    #[schemars(range(max = "limits::MAX_TRAFFIC_CLASS"))]
    pub class: u8,
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
        #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
        mean_interval_ms: f64,
    },
}

/// A UDP source sending `packet_bytes` datagrams from `src` to `dst` at a constant bit rate,
/// whatever happens to them: no congestion control, no retransmission. A packet its host's
/// NIC queue cannot take is dropped there.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    #[schemars(range(max = "limits::MAX_HOSTS"))]
    pub src: u32,
    #[schemars(range(max = "limits::MAX_HOSTS"))]
    pub dst: u32,
    /// Bit rate of the IP packets it sends, Gbit/s: one packet every packet_bytes · 8 / rate.
    #[schemars(range(min = "limits::MIN_RATE_GBPS", max = "limits::MAX_RATE_GBPS"))]
    pub rate_gbps: f64,
    /// IP packet bytes (20 B IP + 8 B UDP headers + payload), in [29, 65535]. Default 1500.
    #[serde(default = "default_udp_packet")]
    #[schemars(range(min = "MIN_UDP_PACKET_BYTES", max = "MAX_UDP_PACKET_BYTES"))]
    pub packet_bytes: u32,
    /// First packet, seconds.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub start_s: f64,
    /// No packet is sent at or after this time, seconds (default: until the run ends).
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub stop_s: Option<f64>,
    /// Traffic class of its packets, 0-7 (see `flows[].class`).
    #[serde(default)]
    #[schemars(range(max = "limits::MAX_TRAFFIC_CLASS"))]
    pub class: u8,
    /// `dst` sends every packet straight back (an echo, as ping): each reply that reaches
    /// `src` adds its round-trip time to the `probes` table.
    #[serde(default)]
    pub echo: bool,
}

fn default_udp_packet() -> u32 {
    1500
}

/// The flows: how many, their hosts, times and sizes; `hosts`: hosts of the network, `mss`:
/// the segment size.
pub(super) fn check_flows(flows: &[FlowSpec], hosts: u32, mss: u32) -> Result<(), ConfigError> {
    use limits::*;
    let err = |field: &str, reason: String| Err(ConfigError::new(field.to_string(), reason));
    at_most("flows", flows.len(), MAX_FLOWS, "flows")?;
    for (i, f) in flows.iter().enumerate() {
        let field = |name: &str| format!("flows[{i}].{name}");
        check_host(&field("src"), f.src, hosts)?;
        check_host(&field("dst"), f.dst, hosts)?;
        if f.src == f.dst {
            return err(&field("dst"), "a flow needs two different hosts".to_string());
        }
        traffic_class(&field("class"), f.class)?;
        real(&field("start_s"), f.start_s, Bound::From(0.0), MAX_TIME_S, "s")?;
        real(&field("start_jitter_us"), f.start_jitter_us, Bound::From(0.0), MAX_DELAY_US, "µs")?;
        stop_after(&field("stop_s"), f.stop_s, f.start_s)?;
        if let Some(b) = f.rcv_buffer_bytes {
            check_rcv_buffer(&field("rcv_buffer_bytes"), b, mss)?;
        }
        if f.bytes == Some(0) {
            return err(
                &field("bytes"),
                "must be at least 1 byte (omit it for a long-lived flow)".to_string(),
            );
        }
        if let Some(b) = f.bytes {
            whole(&field("bytes"), b, 1, MAX_BYTES, "bytes")?;
        }
    }
    Ok(())
}

/// The UDP sources: how many, their hosts, rates and times; `hosts`: hosts of the network.
pub(super) fn check_udp(udp: &[UdpSpec], hosts: u32) -> Result<(), ConfigError> {
    use limits::*;
    let err = |field: &str, reason: String| Err(ConfigError::new(field.to_string(), reason));
    at_most("udp", udp.len(), MAX_FLOWS, "sources")?;
    for (i, u) in udp.iter().enumerate() {
        let field = |name: &str| format!("udp[{i}].{name}");
        check_host(&field("src"), u.src, hosts)?;
        check_host(&field("dst"), u.dst, hosts)?;
        if u.src == u.dst {
            return err(&field("dst"), "a UDP source needs two different hosts".to_string());
        }
        real(&field("rate_gbps"), u.rate_gbps, Bound::From(MIN_RATE_GBPS), MAX_RATE_GBPS, "Gbps")?;
        whole(
            &field("packet_bytes"),
            u.packet_bytes as u64,
            MIN_UDP_PACKET_BYTES as u64,
            MAX_UDP_PACKET_BYTES as u64,
            "bytes",
        )?;
        traffic_class(&field("class"), u.class)?;
        real(&field("start_s"), u.start_s, Bound::From(0.0), MAX_TIME_S, "s")?;
        stop_after(&field("stop_s"), u.stop_s, u.start_s)?;
    }
    Ok(())
}

/// The query workloads: how many, their client and servers, sizes and times; `hosts`: hosts
/// of the network, `mss`: the segment size.
pub(super) fn check_queries(queries: &[QuerySpec], hosts: u32, mss: u32) -> Result<(), ConfigError> {
    use limits::*;
    let err = |field: &str, reason: String| Err(ConfigError::new(field.to_string(), reason));
    at_most("queries", queries.len(), MAX_QUERY_WORKLOADS, "workloads")?;
    for (i, q) in queries.iter().enumerate() {
        let field = |name: &str| format!("queries[{i}].{name}");
        check_host(&field("client"), q.client, hosts)?;
        traffic_class(&field("class"), q.class)?;
        if q.servers.is_empty() {
            return err(&field("servers"), "needs at least one server".to_string());
        }
        if q.servers.len() > hosts as usize {
            return err(&field("servers"), format!("{} servers for {hosts} hosts", q.servers.len()));
        }
        for (j, &h) in q.servers.iter().enumerate() {
            check_host(&field(&format!("servers[{j}]")), h, hosts)?;
            if h == q.client {
                return err(&field(&format!("servers[{j}]")), "a server cannot be the client".to_string());
            }
        }
        whole(&field("request_bytes"), q.request_bytes, 1, MAX_BYTES, "bytes")?;
        whole(&field("response_bytes"), q.response_bytes, 1, MAX_BYTES, "bytes")?;
        if let Some(b) = q.rcv_buffer_bytes {
            check_rcv_buffer(&field("rcv_buffer_bytes"), b, mss)?;
        }
        whole(&field("rounds"), q.rounds as u64, 1, MAX_ROUNDS as u64, "")?;
        real(&field("start_s"), q.start_s, Bound::From(0.0), MAX_TIME_S, "s")?;
        stop_after(&field("stop_s"), q.stop_s, q.start_s)?;
        real(
            &field("response_jitter_us"),
            q.response_jitter_us,
            Bound::From(0.0),
            MAX_DELAY_US,
            "µs",
        )?;
        if let Arrival::Poisson { mean_interval_ms } = q.arrival {
            real(
                &field("arrival.mean_interval_ms"),
                mean_interval_ms,
                Bound::Above(0.0),
                MAX_TIMER_MS,
                "ms",
            )?;
        }
    }
    Ok(())
}
