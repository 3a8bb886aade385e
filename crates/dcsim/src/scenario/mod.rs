//! The scenario schema: what a TOML file or a Python dict may say.
//!
//! These serde types are the single source of truth for the scenario format; the JSON
//! Schema in `schema/scenario.schema.json` is generated from them (`Scenario::json_schema`).
//! Every field has a default that matches the DCTCP paper's 1 Gbps testbed unless noted.
//! Times and rates are plain numbers whose unit is in the field name (`_s`, `_us`, `_gbps`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
pub use crate::tcp::cc::{cubic::CubicConfig, CcKind};

mod pinpoint;
pub mod profiles;
mod traffic;
pub use profiles::StackProfile;
pub use traffic::{DestinationRule, FlowArrival, SizeDist, TrafficSpec, MAX_CDF_POINTS};

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
    /// Open-loop flow generators: flows arriving by a random process, with sizes from a
    /// distribution (DCTCP §4.3's background traffic).
    #[serde(default)]
    pub traffic: Vec<TrafficSpec>,
    /// Constant-bit-rate UDP sources (ICTCP §VII-C's 200 Mb/s background), and echoed
    /// probes that measure round-trip latency (a ping).
    #[serde(default)]
    pub udp: Vec<UdpSpec>,
    #[serde(default)]
    pub measure: MeasureConfig,
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
    #[schemars(range(min = 29, max = 65535))]
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
    #[schemars(range(max = 7))]
    pub class: u8,
    /// `dst` sends every packet straight back (an echo, as ping): each reply that reaches
    /// `src` adds its round-trip time to the `probes` table.
    #[serde(default)]
    pub echo: bool,
}

fn default_udp_packet() -> u32 {
    1500
}

/// Run length and randomness.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// Seed of every random stream in the run; the same seed gives byte-identical results.
    pub seed: u64,
    /// Simulated time to run, seconds.
    #[schemars(range(max = "limits::MAX_TIME_S"))]
    pub duration_s: f64,
    /// Statistics (goodput, queue distribution) ignore the first `warmup_s` seconds.
    #[schemars(range(min = 0.0, max = "limits::MAX_TIME_S"))]
    pub warmup_s: f64,
    /// End the run the instant every query workload has finished all its rounds; `duration_s`
    /// stays the upper bound. Incast sweeps can then give a generous duration without
    /// simulating background traffic past the last round. Rounds all done within the warm-up
    /// do not end the run (it would measure nothing): it goes on to `duration_s`.
    pub stop_when_queries_done: bool,
    /// A scenario whose estimated memory (network, connections, recorded time series and,
    /// run from Python, the results' rows Python builds) is above this many gigabytes
    /// (10^9 B) is refused before anything is built, in [0.001, 1000000]. `dcsim run
    /// --memory-limit-gb` sets it.
    #[schemars(range(min = 0.001, max = 1e6))]
    pub memory_limit_gb: f64,
    /// Check the engine's invariants as it runs (`dcsim run --check-invariants`): packets
    /// conserved end to end and at every port, each queue's bytes those of the packets it
    /// holds, shared memory that balances, TCP sequence and acknowledgment numbers that only
    /// move forward, windows within their bounds, no event in the past. A violation stops
    /// the run as an engine bug. It costs about one pass over the network every few events.
    pub check_invariants: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            duration_s: 1.0,
            warmup_s: 0.0,
            stop_when_queries_done: false,
            memory_limit_gb: 8.0,
            check_invariants: false,
        }
    }
}

/// A link: rate, one-way propagation delay, per-frame overhead on the wire, and optionally
/// the buffer of the switch ports that send onto it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LinkConfig {
    /// Line rate, Gbit/s (10^9 bit/s), in [0.000001, 10000].
    #[schemars(range(min = "limits::MIN_RATE_GBPS", max = "limits::MAX_RATE_GBPS"))]
    pub rate_gbps: f64,
    /// One-way propagation delay, microseconds, in [0, 1000000] (one second).
    #[schemars(range(min = 0.0, max = "limits::MAX_DELAY_US"))]
    pub delay_us: f64,
    /// Bytes each frame costs on the wire beyond the IP packet, at most 10000. 38 = Ethernet
    /// header, FCS, preamble and inter-frame gap [EXT IEEE 802.3]; this is why 1460-B segments
    /// give the DCTCP paper's 0.95 Gbps goodput on a 1 Gbps link (1460/1538). ns-2 uses 0.
    #[schemars(range(max = "limits::MAX_FRAMING"))]
    pub framing_bytes: u32,
    /// Packets a switch port sending onto this link may hold, overriding `switch.buffer`'s
    /// per-port limit (with a shared memory, a static cap beside the dynamic threshold). Host
    /// NICs keep `host.nic_queue_packets`.
    #[schemars(range(min = 1, max = "limits::MAX_PACKETS"))]
    pub buffer_packets: Option<u32>,
    /// Bytes a switch port sending onto this link may hold (as `buffer_packets`).
    #[schemars(range(min = 1, max = "limits::MAX_BUFFER_BYTES"))]
    pub buffer_bytes: Option<u64>,
}

impl Default for LinkConfig {
    fn default() -> Self {
        Self {
            rate_gbps: 1.0,
            delay_us: 25.0,
            framing_bytes: 38,
            buffer_packets: None,
            buffer_bytes: None,
        }
    }
}

impl LinkConfig {
    /// A 10 Gbps link with the default delay: the uplinks of the papers' testbeds.
    fn ten_gbps() -> Self {
        Self {
            rate_gbps: 10.0,
            ..Self::default()
        }
    }
}

/// The network. Hosts are numbered from 0 and named `h0`, `h1`, ...; flows name hosts by
/// number. Every host has one link, to a switch. A port is named after the link it sends
/// onto, `node->peer` (`s0->h3`, `h3->s0`); the ports of a second, third, ... link between the
/// same two nodes add `#1`, `#2`, ... Routing is computed when the network is built: shortest
/// paths in hops, with ECMP over equal-cost next hops (`switch.ecmp`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Topology {
    /// `hosts` hosts on one switch (`s0`), host `i` on switch port `i`.
    Star {
        /// Number of hosts, in [2, 1048576].
        #[schemars(range(max = "limits::MAX_HOSTS"))]
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
        #[schemars(range(max = "limits::MAX_HOSTS"))]
        left: u32,
        /// Hosts on the right switch, `s1`.
        #[schemars(range(max = "limits::MAX_HOSTS"))]
        right: u32,
        #[serde(default)]
        host_link: LinkConfig,
        #[serde(default)]
        core_link: LinkConfig,
    },
    /// The DCTCP paper's multi-hop, multi-bottleneck network (§4.1, Fig. 17): switches
    /// `triumph1`, `scorpion` and `triumph2` in a line, joined by `core_link`s. Hosts, numbered
    /// in this order: the `s1` senders and the `s2` senders on `triumph1`; the `s3` senders,
    /// the receiver R1 and the `r2` receivers on `triumph2`. In the paper S1 and S3 send to R1
    /// and the S2 senders each to a receiver in R2.
    MultiBottleneck {
        /// Senders of group S1 (default 10: with S3, the paper's "20 machines").
        #[serde(default = "default_group_10")]
        #[schemars(range(max = "limits::MAX_HOSTS"))]
        s1: u32,
        /// Senders of group S2 (default 20).
        #[serde(default = "default_group_20")]
        #[schemars(range(max = "limits::MAX_HOSTS"))]
        s2: u32,
        /// Senders of group S3 (default 10).
        #[serde(default = "default_group_10")]
        #[schemars(range(max = "limits::MAX_HOSTS"))]
        s3: u32,
        /// Receivers of group R2 (default 20).
        #[serde(default = "default_group_20")]
        #[schemars(range(max = "limits::MAX_HOSTS"))]
        r2: u32,
        /// Host links (default 1 Gbps).
        #[serde(default)]
        host_link: LinkConfig,
        /// The two switch-to-switch links (default 10 Gbps).
        #[serde(default = "LinkConfig::ten_gbps")]
        core_link: LinkConfig,
    },
    /// A rack: `hosts` hosts under one top-of-rack switch `tor`, and `uplinks` more hosts on
    /// `uplink` links standing in for the rest of the datacenter, numbered after the rack's
    /// (DCTCP §4.3: "an additional server is connected to a 10Gbps port of the Triumph to act as
    /// a stand-in for the rest of the data center").
    Rack {
        /// Hosts in the rack.
        #[schemars(range(max = "limits::MAX_HOSTS"))]
        hosts: u32,
        /// Stand-in hosts on uplinks (default 1).
        #[serde(default = "default_one")]
        #[schemars(range(max = "limits::MAX_HOSTS"))]
        uplinks: u32,
        /// The rack hosts' links (default 1 Gbps).
        #[serde(default)]
        host_link: LinkConfig,
        /// The uplinks (default 10 Gbps).
        #[serde(default = "LinkConfig::ten_gbps")]
        uplink: LinkConfig,
    },
    /// Two tiers: `leaves` leaf switches `leaf0`, ... with `hosts_per_leaf` hosts each (leaf 0
    /// has hosts `0..hosts_per_leaf`), every leaf linked to every one of `spines` spine
    /// switches `spine0`, ... The oversubscription is hosts_per_leaf · host rate /
    /// (spines · uplink rate).
    LeafSpine {
        #[schemars(range(min = 1, max = "limits::MAX_SWITCHES"))]
        leaves: u32,
        #[schemars(range(min = 1, max = "limits::MAX_SWITCHES"))]
        spines: u32,
        #[schemars(range(min = 1, max = "limits::MAX_HOSTS"))]
        hosts_per_leaf: u32,
        /// Host links.
        #[serde(default)]
        host_link: LinkConfig,
        /// Leaf-to-spine links.
        #[serde(default)]
        uplink: LinkConfig,
        /// If given, sets the uplinks' rate so that the oversubscription is this (1 = none):
        /// uplink rate = hosts_per_leaf · host rate / (spines · oversubscription).
        #[serde(default)]
        #[schemars(range(min = 0.001, max = 1000.0))]
        oversubscription: Option<f64>,
    },
    /// The k-ary three-tier fat-tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge
    /// switches `edge{pod}_{i}` and k/2 aggregation switches `agg{pod}_{i}`, (k/2)² core
    /// switches `core{i}`, k/2 hosts per edge switch (k³/4 hosts; hosts of edge switch e of pod
    /// p are numbered from (p·k/2 + e)·k/2). Aggregation switch i of every pod links to core
    /// switches i·k/2 .. (i+1)·k/2 − 1. Full bisection bandwidth when all links are equal.
    FatTree {
        /// Ports per switch, even, in [2, 128].
        #[schemars(range(min = 2, max = "limits::MAX_FAT_TREE_K"))]
        k: u32,
        /// Every link, unless a tier below overrides it.
        #[serde(default)]
        link: LinkConfig,
        /// Host-to-edge links (default `link`).
        #[serde(default)]
        host_link: Option<LinkConfig>,
        /// Edge-to-aggregation links (default `link`).
        #[serde(default)]
        edge_link: Option<LinkConfig>,
        /// Aggregation-to-core links (default `link`).
        #[serde(default)]
        core_link: Option<LinkConfig>,
    },
    /// Any other shape: `hosts` hosts (`h0`, ...), the named switches, and the links between
    /// them. Every host needs exactly one link, to a switch; every host must reach every other.
    Graph {
        /// Number of hosts.
        #[schemars(range(max = "limits::MAX_HOSTS"))]
        hosts: u32,
        /// Switch names: letters, digits, `_`, `.` and `-`, not of the form `h<number>`.
        switches: Vec<String>,
        /// What a link leaves out.
        #[serde(default)]
        link: LinkConfig,
        links: Vec<GraphLink>,
    },
}

/// A link of an explicit graph between nodes `a` and `b` (host names `h0`, ... or switch
/// names); the fields left out come from the graph's `link`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    pub a: String,
    pub b: String,
    #[serde(default)]
    #[schemars(range(min = "limits::MIN_RATE_GBPS", max = "limits::MAX_RATE_GBPS"))]
    pub rate_gbps: Option<f64>,
    #[serde(default)]
    #[schemars(range(min = 0.0, max = "limits::MAX_DELAY_US"))]
    pub delay_us: Option<f64>,
    #[serde(default)]
    #[schemars(range(max = "limits::MAX_FRAMING"))]
    pub framing_bytes: Option<u32>,
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_PACKETS"))]
    pub buffer_packets: Option<u32>,
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_BUFFER_BYTES"))]
    pub buffer_bytes: Option<u64>,
}

impl GraphLink {
    /// The link's settings, the graph's `link` filling in what it leaves out.
    pub fn resolve(&self, base: &LinkConfig) -> LinkConfig {
        LinkConfig {
            rate_gbps: self.rate_gbps.unwrap_or(base.rate_gbps),
            delay_us: self.delay_us.unwrap_or(base.delay_us),
            framing_bytes: self.framing_bytes.unwrap_or(base.framing_bytes),
            buffer_packets: self.buffer_packets.or(base.buffer_packets),
            buffer_bytes: self.buffer_bytes.or(base.buffer_bytes),
        }
    }
}

fn default_group_10() -> u32 {
    10
}
fn default_group_20() -> u32 {
    20
}
fn default_one() -> u32 {
    1
}

/// Switch egress ports: buffer limit and active queue management.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchConfig {
    pub buffer: BufferConfig,
    /// The AQM of every switch port's queue (of every class queue without its own `aqm`).
    pub aqm: AqmConfig,
    /// How a switch chooses among equal-cost next hops.
    pub ecmp: Ecmp,
    /// Several class queues per switch port (M18; none: one FIFO queue per port).
    pub classes: Option<ClassesConfig>,
}

impl Default for SwitchConfig {
    fn default() -> Self {
        Self {
            buffer: BufferConfig::default(),
            aqm: AqmConfig::DropTail,
            ecmp: Ecmp::PerFlow,
            classes: None,
        }
    }
}

/// Class queues on every switch port (M18: DCTCP paper §1 "Ethernet priorities (Class of
/// Service)"). A packet is classified on arrival, joins its class queue (the class's limit
/// and AQM apply, within the port's buffer or the switch's shared memory), and the scheduler
/// picks the class the link serves next.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassesConfig {
    /// Which class the link serves next.
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// How a packet's class is chosen.
    #[serde(default)]
    pub classify: ClassifyConfig,
    /// DRR: bytes a class of weight 1 may send per round (default: one full-size packet,
    /// `tcp.mss + tcp.header_bytes`).
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_BUFFER_BYTES"))]
    pub quantum_bytes: Option<u64>,
    /// The class queues, class 0 first (strict priority: the highest). 1 to 8.
    pub queues: Vec<ClassQueueConfig>,
}

/// Which backlogged class the link serves next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    /// Deficit round robin by `weight` (Shreedhar and Varghese 1995); equal weights by
    /// default (M18's assumption).
    #[default]
    Drr,
    /// Always the lowest-numbered backlogged class (IEEE 802.1Q strict priority).
    StrictPriority,
}

/// How a switch port chooses a packet's class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClassifyConfig {
    /// The class its host gave the flow (`flows[].class`, `queries[].class`: a DSCP).
    #[default]
    Flow,
    /// ECN-capable (ECT or CE) packets to class `ect`, the others to class `not_ect`.
    Ecn {
        #[schemars(range(max = 7))]
        ect: u8,
        #[schemars(range(max = 7))]
        not_ect: u8,
    },
    /// SYN and SYN-ACK to class `syn`, pure ACKs to class `ack`, data to class `data`.
    PacketType {
        #[schemars(range(max = 7))]
        syn: u8,
        #[schemars(range(max = 7))]
        ack: u8,
        #[schemars(range(max = 7))]
        data: u8,
    },
}

/// One class queue of a switch port.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassQueueConfig {
    /// DRR weight: the class's quantum is `weight × quantum_bytes`.
    #[serde(default = "default_weight")]
    #[schemars(range(min = 1, max = 1000))]
    pub weight: u32,
    /// Packets this class may hold (default: only the port's limit).
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_PACKETS"))]
    pub limit_packets: Option<u32>,
    /// Bytes this class may hold (default: only the port's limit).
    #[serde(default)]
    #[schemars(range(min = 1, max = "limits::MAX_BUFFER_BYTES"))]
    pub limit_bytes: Option<u64>,
    /// Share the port's buffer dynamically: the class may hold up to `alpha` × the bytes the
    /// port still has free (needs a port byte limit). Default: a static limit only.
    #[serde(default)]
    #[schemars(range(min = 0.0, max = 1e6))]
    pub alpha: Option<f64>,
    /// The class's AQM (default: `switch.aqm`).
    #[serde(default)]
    pub aqm: Option<AqmConfig>,
}

fn default_weight() -> u32 {
    1
}

/// Equal-cost multi-path forwarding (RFC 2992).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ecmp {
    /// Hash of the packet's 5-tuple (source and destination host, TCP ports, protocol) and
    /// `sim.seed`, salted per switch: every packet of a connection's direction takes one path.
    #[default]
    PerFlow,
    /// Each packet picks a next hop at random (seeded): random packet spraying (Dixit et al.,
    /// INFOCOM 2013).
    PerPacket,
    /// Each packet takes the next of the switch's equal-cost next hops in turn: deterministic
    /// spraying (round robin, as DRB, Cao et al., CoNEXT 2013).
    RoundRobin,
}

/// How much a port may hold (M11, M12). A packet that does not fit is dropped.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BufferConfig {
    /// A fixed allocation per port, in packets and/or bytes (whichever is hit first) (M12).
    PerPort {
        /// Packets a port may hold (none = no packet limit).
        #[serde(default)]
        #[schemars(range(min = 1, max = "limits::MAX_PACKETS"))]
        limit_packets: Option<u32>,
        /// Bytes a port may hold (none = no byte limit).
        #[serde(default)]
        #[schemars(range(min = 1, max = "limits::MAX_BUFFER_BYTES"))]
        limit_bytes: Option<u64>,
    },
    /// One memory shared by all ports of a switch, with dynamic per-port thresholds (M13,
    /// Choudhury–Hahne): a packet of s bytes joins port p iff q_p + s ≤ alpha·(B − Σq) and
    /// Σq + s ≤ B, where B = `total_bytes` and Σq is what all ports hold.
    Shared {
        /// B: the shared memory, bytes.
        #[schemars(range(min = 1, max = "limits::MAX_BUFFER_BYTES"))]
        total_bytes: u64,
        /// The dynamic threshold's multiplier.
        #[schemars(range(min = 0.0, max = 1e6))]
        alpha: f64,
        /// Optional static cap per port as well, packets.
        #[serde(default)]
        #[schemars(range(min = 1, max = "limits::MAX_PACKETS"))]
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
        #[schemars(range(max = "limits::MAX_PACKETS"))]
        k_packets: Option<u32>,
        /// What a non-ECT packet meets above K: `drop` (RED-ECN hardware) or `enqueue`.
        #[serde(default)]
        nonect: NonEctPolicy,
        /// Whether the packet being serialised counts in the occupancy (ns-2 does not).
        #[serde(default = "default_true")]
        count_in_service: bool,
        /// `enqueue`: a packet is marked if more than K packets are ahead of it when it
        /// arrives (DCTCP §3.1). `dequeue`: if more than K stay behind it when it leaves the
        /// queue for the link (the mark reaches the sender a queueing delay sooner).
        #[serde(default)]
        at: MarkAt,
    },
    /// The proportional-integral controller of Hollot, Misra, Towsley and Gong (INFOCOM
    /// 2001): every 1/`sample_hz` s, p += a·(q − q_ref) − b·(q_old − q_ref); a packet leaving
    /// the queue is marked (ECT) or dropped with probability p. Defaults: the paper's design
    /// example (a = 1.822e-5, b = 1.816e-5, 160 Hz, q_ref = 200 packets), tuned for a 15 Mb/s
    /// link with 60 flows; a datacenter port needs its own (DCTCP §3.5 gives none).
    Pi {
        #[serde(default = "default_pi_a")]
        #[schemars(range(min = 0.0, max = 1.0))]
        a: f64,
        #[serde(default = "default_pi_b")]
        #[schemars(range(min = 0.0, max = 1.0))]
        b: f64,
        /// q_ref, packets.
        #[serde(default = "default_pi_q_ref")]
        #[schemars(range(min = 0.0, max = "limits::MAX_PACKETS"))]
        q_ref_packets: f64,
        /// Sampling frequency, Hz.
        #[serde(default = "default_pi_hz")]
        #[schemars(range(min = 1e-3, max = 1e9))]
        sample_hz: f64,
        /// Mark ECT packets instead of dropping them.
        #[serde(default = "default_true")]
        ecn: bool,
    },
    /// Random Early Detection on the average queue, marking ECT packets (Floyd & Jacobson).
    Red {
        /// Lower threshold, packets.
        #[schemars(range(min = 0.0, max = "limits::MAX_PACKETS"))]
        min_th: f64,
        /// Upper threshold, packets.
        #[schemars(range(min = 0.0, max = "limits::MAX_PACKETS"))]
        max_th: f64,
        /// Marking (or drop) probability at `max_th`.
        #[serde(default = "default_max_p")]
        #[schemars(range(min = 0.0, max = 1.0))]
        max_p: f64,
        /// EWMA weight w_q = 2^-weight_log2 ("weight = 9", DCTCP paper §4.1).
        #[serde(default = "default_weight_log2")]
        #[schemars(range(max = 30))]
        weight_log2: u32,
        /// Mark ECT packets instead of dropping them (DCTCP paper footnote 5).
        #[serde(default = "default_true")]
        ecn: bool,
        /// Gentle RED: probability ramps from max_p to 1 between max_th and 2·max_th.
        #[serde(default)]
        gentle: bool,
    },
}

/// When the threshold AQM looks at the queue.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MarkAt {
    #[default]
    Enqueue,
    Dequeue,
}

fn default_pi_a() -> f64 {
    1.822e-5
}
fn default_pi_b() -> f64 {
    1.816e-5
}
fn default_pi_q_ref() -> f64 {
    200.0
}
fn default_pi_hz() -> f64 {
    160.0
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
    #[schemars(range(min = 0.0, max = 10000.0))]
    pub clock_ppm: f64,
    /// Segmentation offload burst: the sender waits until it may send this many segments
    /// and sends them back to back (0 = off). 30-40 mimics the 10G hosts (DCTCP paper §3.5).
    #[schemars(range(max = "limits::MAX_SEGMENTS"))]
    pub offload_burst_segments: u32,
    /// Receive interrupt moderation, µs: the NIC raises a receive interrupt at most once per
    /// this interval (Intel's ITR; Windows drivers' "interrupt moderation"). Packets arriving
    /// sooner after the last interrupt wait for the next one and reach the stack together; a
    /// packet after a quiet interval goes at once. 0 = every packet on arrival.
    #[schemars(range(min = 0.0, max = 10000.0))]
    pub rx_interrupt_interval_us: f64,
    /// Per-packet receive processing, µs: after its interrupt, each received packet occupies
    /// the host's receive path (driver and stack) for this long, one after another, before its
    /// TCP end sees it; a packet arriving while earlier ones are processed waits for them.
    /// 0 = none. At most 1000.
    #[schemars(range(min = 0.0, max = 1000.0))]
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
    #[schemars(range(min = 0.0, max = 1.0))]
    pub alpha: f64,
    /// Measured-throughput filter β (Eq. 2, §IV-C).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub beta: f64,
    /// Grow a window when the throughput difference ratio is at most γ1 (§IV-C).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub gamma1: f64,
    /// Shrink a window by one MSS after three RTTs with the ratio above γ2 (§IV-C).
    #[schemars(range(min = 0.0, max = 1.0))]
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
    #[schemars(range(min = 0.0, max = 1.0))]
    pub fairness_fraction: f64,
    /// Connections with an RTT at or above this are left alone (§III).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub rtt_limit_ms: f64,
    /// Sub-slot length before any connection has an RTT, µs (spec ASSUMPTION: the testbed's
    /// 100 µs base RTT; afterwards T is the traffic-weighted mean RTT, §IV-B).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_US"))]
    pub initial_subslot_us: f64,
    /// Tick of the receiver's timestamp clock, ns (§VI-C).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_NS"))]
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

/// How an ACK counts towards window growth (`tcp.ack_counting`; M3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AckCounting {
    /// Every ACK that advances snd_una counts as one segment, however much it covers: slow
    /// start adds 1 MSS per ACK (×1.5 per RTT with delayed ACKs), congestion avoidance
    /// MSS²/cwnd (RFC 5681 §3.1 as written; Linux 2.6 with `tcp_abc` = 0, ns-2).
    PerAck,
    /// The segments it newly acknowledges, a short one counting as one, up to
    /// `abc_limit_segments` per ACK in slow start (M3, the spec's assumption for the papers'
    /// stacks).
    #[default]
    Segments,
    /// The segments newly delivered by its account, as Linux ≥ 3.13 counts
    /// (`tcp_newly_delivered`): those newly SACKed plus those newly acknowledged that were
    /// not SACKed before (RFC 6937's DeliveredData), up to `abc_limit_segments`.
    Delivered,
    /// Appropriate byte counting (RFC 3465): the bytes it acknowledges, up to
    /// `abc_limit_segments`·SMSS per ACK in slow start (§2.2), and in congestion avoidance
    /// SMSS·bytes/cwnd (§2.1's byte counter, in its fractional form).
    Bytes,
}

/// What restarts the window after an idle period longer than the RTO (`tcp.idle_restart`,
/// when `slow_start_after_idle`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IdleRestart {
    /// RFC 5681 §4.1: cwnd = min(IW, cwnd).
    #[default]
    Rfc5681,
    /// Linux `tcp_cwnd_restart`: ssthresh = max(ssthresh, ¾·cwnd), then cwnd halves once per
    /// RTO of idle time, not below min(IW, cwnd).
    Linux,
}

/// When an application-limited sender may still grow cwnd (`tcp.cwnd_validation`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CwndValidation {
    /// RFC 7661 §4.3: while the window is validated, what was in flight ≥ cwnd/2.
    #[default]
    Rfc7661,
    /// Current Linux's `tcp_is_cwnd_limited`: in slow start while cwnd < 2 × what was in
    /// flight; in congestion avoidance only while the sender is cwnd-limited.
    Linux,
    /// Linux 2.6's `tcp_is_cwnd_limited`: while cwnd − what was in flight ≤ 3 segments
    /// (`tcp_max_burst`, the reordering degree).
    MaxBurst,
    /// Only a cwnd-limited sender grows, in slow start too: ns-3's `m_isCwndLimited`, set at
    /// each send when cwnd < what is in flight + 1 SMSS, which its CUBIC checks.
    CwndLimited,
    /// Every ACK may grow cwnd, whether the sender used its window or not.
    Off,
}

/// How the window is set during SACK loss recovery (`tcp.recovery`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// RFC 6675 §5: cwnd = ssthresh at once, send while pipe < cwnd.
    #[default]
    Rfc6675,
    /// Proportional rate reduction (RFC 6937, PRR-SSRB): what is sent in recovery follows
    /// what is delivered, converging on ssthresh by the end of recovery.
    Prr,
}

/// What the slow-start threshold is computed from when loss is detected (`tcp.ssthresh_from`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFrom {
    /// FlightSize, the data sent and not cumulatively acknowledged (RFC 5681 §3.2 eq. (4),
    /// RFC 6675 §5 step 4.2, RFC 9438 §4.6).
    #[default]
    FlightSize,
    /// The congestion window: Linux's `tcp_reno_ssthresh` and CUBIC's
    /// `bictcp_recalc_ssthresh` take `snd_cwnd` (RFC 9438 §4.6 notes such implementations).
    Cwnd,
    /// min(cwnd, the peer's receive buffer): ns-2's `slowdown()` halves `window()`, the
    /// smaller of `cwnd_` and the receiver's configured `window_`.
    Window,
    /// RFC 6675's pipe, the data estimated still in the network (SACKed and lost segments
    /// left out, retransmissions counted): ns-3's `TcpSocketBase`, which passes
    /// `BytesInFlight()` to the controller's `GetSsThresh`.
    Pipe,
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
    /// A named stack (`docs/stacks.md`) whose fields, each with its source, fill in what
    /// this table does not set. Default: none, the engine's defaults (the papers' assumptions).
    pub profile: Option<StackProfile>,
    pub cc: CcKind,
    /// Payload bytes per segment. Default: 1460 (MTU 1500 minus 40 B of headers), or
    /// `mtu_bytes − header_bytes` when `mtu_bytes` is set.
    #[schemars(range(min = 64, max = 65000))]
    pub mss: Option<u32>,
    /// The IP MTU, bytes, instead of `mss`: the MSS becomes `mtu_bytes − header_bytes`
    /// (jumbo frames: 9000, so 8960-B segments). Links still add `framing_bytes` per frame,
    /// so a 9000-B frame spends 0.4% of the wire on framing where a 1500-B one spends 2.5%.
    /// Set `mss` or `mtu_bytes`, not both. In [576, 65040] (IPv4's minimum; the MSS bound).
    #[schemars(range(min = 576, max = 65040))]
    pub mtu_bytes: Option<u32>,
    /// IP + TCP header bytes added to every segment.
    #[schemars(range(max = 10000))]
    pub header_bytes: u32,
    /// Initial congestion window, segments (ASSUMPTION 2, as ns-2 `windowInit_`).
    #[schemars(range(min = 1, max = "limits::MAX_SEGMENTS"))]
    pub init_cwnd_segments: u32,
    /// Minimum retransmission timeout, ms (300 = DCTCP testbed default, 10 = tuned).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub rto_min_ms: f64,
    /// Initial RTO before any RTT sample, also for SYNs, ms (RFC 6298: 1 s).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub rto_initial_ms: f64,
    /// Upper bound of the backed-off RTO, ms.
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub rto_max_ms: f64,
    /// Timer granularity: RTOs round up to a multiple of this, ms (0 = exact).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub timer_tick_ms: f64,
    /// Delayed ACKs: one ACK every m in-order segments (DCTCP paper §3.1: m = 2).
    #[schemars(range(min = 1, max = "limits::MAX_SEGMENTS"))]
    pub delayed_ack_segments: u32,
    /// Delayed-ACK timeout, ms.
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub delayed_ack_timeout_ms: f64,
    /// Receive buffer, bytes: the advertised window is the free space in it. With
    /// `rcv_autotune` on, only the connections whose flow, query or generator sets its own
    /// `rcv_buffer_bytes` keep a fixed buffer (as Linux's SO_RCVBUF turns tuning off).
    #[schemars(range(min = 1, max = "limits::MAX_RCV_BUFFER"))]
    pub rcv_buffer_bytes: u64,
    /// Receive-buffer auto-tuning, Linux's dynamic right-sizing (`tcp_rcv_space_adjust`,
    /// spec §7.5): each receiver starts at `rcv_autotune_initial_bytes` and, once per RTT it
    /// measures from echoed timestamps, grows its buffer to twice the bytes it read in that
    /// RTT plus 16 segments (more while the sender's rate grows), up to
    /// `rcv_autotune_max_bytes`.
    /// Off (the default): every buffer is `rcv_buffer_bytes` ("Receive Buffer Tuning Off").
    pub rcv_autotune: bool,
    /// Auto-tuning's initial buffer, bytes: 43,690, the window Linux (≥ 3.4, whose
    /// `tcp_adv_win_scale` = 1 offers half of a socket's memory as window) gets from its
    /// default `tcp_rmem[1]` = 87,380 B.
    #[schemars(range(min = 1, max = "limits::MAX_RCV_BUFFER"))]
    pub rcv_autotune_initial_bytes: u64,
    /// Auto-tuning's cap, bytes: 3 MiB, the window of Linux's `tcp_rmem[2]` = 6 MiB of memory
    /// (half of it, as for the initial buffer; spec §7.5 names the 6 MiB).
    #[schemars(range(min = 1, max = "limits::MAX_RCV_BUFFER"))]
    pub rcv_autotune_max_bytes: u64,
    /// DCTCP estimation gain g (DCTCP paper §3.5: 1/16).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub dctcp_g: f64,
    /// DCTCP initial alpha (ASSUMPTION 1.0, Linux `dctcp_alpha_on_init`).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub dctcp_alpha_init: f64,
    /// Smallest cwnd after a DCTCP cut, segments (ASSUMPTION 2, Linux).
    #[schemars(range(max = "limits::MAX_SEGMENTS"))]
    pub dctcp_min_cwnd_segments: u32,
    pub dctcp_receiver: DctcpReceiver,
    pub ect_on_control: EctOnControl,
    /// ECT on SYN and SYN-ACK, overriding `ect_on_control` (default: as it). `true` is
    /// Linux's later fix for DCTCP (ECT(0) SYNs); RFC 3168 §6.1.1 hosts send none, and a
    /// RED-ECN queue above K drops them (spec §7.3).
    pub ect_on_syn: Option<bool>,
    /// ECT on pure ACKs, overriding `ect_on_control` (default: as it; RFC 3168 §6.1.4: none).
    pub ect_on_ack: Option<bool>,
    /// SYNs sent again, with the RTO doubling from `rto_initial_ms` up to `rto_max_ms`,
    /// before the connection gives up: Linux's `tcp_syn_retries`, 6. With a 1 s initial RTO
    /// Linux gives up 127 s after the first SYN; with the default `rto_max_ms` of 60 s (RFC
    /// 6298's floor for a cap; Linux's is 120 s) the last wait is 60 s, so 123 s. At most
    /// 127 (Linux's bound).
    #[schemars(range(max = 127))]
    pub syn_retries: u32,
    /// SYN-ACKs sent again before the listener drops a half-open connection (and listens
    /// again, as Linux drops the request): Linux's `tcp_synack_retries`, 5. At most 127.
    #[schemars(range(max = 127))]
    pub synack_retries: u32,
    /// SACK (RFC 2018) with RFC 6675 loss recovery; off = NewReno recovery (RFC 6582). Both
    /// papers' baselines were "NewReno with SACK" (DCTCP §4, ICTCP §VII).
    pub sack: bool,
    /// Limited transmit (RFC 3042). Not mentioned by the papers: off by default (spec §1.4).
    pub limited_transmit: bool,
    /// DupThresh: duplicate ACKs (or SACKed segments above a hole) that start loss recovery,
    /// in [1, 1000] (RFC 5681 §3.2 and RFC 6675 §2: 3). Networks that reorder, such as packet
    /// spraying (`switch.ecmp = "per_packet"`), need more (Linux raises its `reordering` up to
    /// `tcp_max_reordering` = 300 as it sees reordering).
    #[schemars(range(min = 1, max = 1000))]
    pub dupack_threshold: u32,
    /// RFC 5681 §4.1: restart from the initial window after an idle period longer than the RTO.
    pub slow_start_after_idle: bool,
    /// How the window restarts after idle (`slow_start_after_idle`): RFC 5681 §4.1, or
    /// Linux's halving per idle RTO.
    pub idle_restart: IdleRestart,
    /// How ACKs count towards window growth: per ACK, per segment acknowledged, or
    /// appropriate byte counting (RFC 3465).
    pub ack_counting: AckCounting,
    /// L: the most an ACK may add in slow start, segments (RFC 3465 §2.2: 2), with
    /// `ack_counting` = `segments`, `delivered` or `bytes`; 0 = no limit, as current Linux, whose slow start
    /// then stops at ssthresh and counts the rest of the ACK in congestion avoidance. At most
    /// 1000.
    #[schemars(range(max = 1000))]
    pub abc_limit_segments: u32,
    /// When an application-limited sender may still grow cwnd.
    pub cwnd_validation: CwndValidation,
    /// The window during SACK loss recovery: RFC 6675, or proportional rate reduction
    /// (RFC 6937). Without SACK, recovery is NewReno's (RFC 6582) either way.
    pub recovery: Recovery,
    /// Tail loss probe (RFC 8985 §7): with SACK, outside recovery and with an RTT sample, a
    /// probe timeout of 2·SRTT (plus the worst-case delayed ACK, 200 ms, when one segment
    /// is out; never beyond the RTO) sends new data or resends the last segment, so a tail
    /// loss is repaired by SACK recovery instead of the RTO. Loss detection stays RFC 6675's
    /// (RACK's time-based detection, RFC 8985 §6, is not modelled).
    pub tail_loss_probe: bool,
    /// Early retransmit (RFC 5827): with fewer than 4 segments out and nothing new the
    /// windows let it send, DupThresh falls to the segments out minus one, so a short
    /// response's loss is repaired by fast retransmit instead of the RTO. With it, as in
    /// Linux, any ACK bringing new SACK information (not only a duplicate) may start
    /// recovery when the segment after it is deemed lost.
    pub early_retransmit: bool,
    /// What a loss's reduction (the slow-start threshold on entering recovery and at a
    /// timeout, and PRR's RecoverFS) is computed from: FlightSize (RFC 5681 §3.2 eq. (4)),
    /// RFC 6675's pipe (ns-3), cwnd (Linux) or min(cwnd, the peer's buffer) (ns-2). The
    /// controller's rule is unchanged: NewReno halves it, CUBIC multiplies it by β. With many
    /// segments SACKed when recovery starts, pipe is the smallest. A timeout of data that
    /// already timed out holds ssthresh (RFC 5681 §3.1), except under ns-2's rule.
    pub ssthresh_from: SsthreshFrom,
    /// cwnd never grows past the largest window the peer can advertise: its receive buffer,
    /// or auto-tuning's cap (as FreeBSD's NewReno bounds cwnd by `TCP_MAXWIN << snd_scale`,
    /// the largest window the peer's window scale allows). A window beyond it can never be
    /// used, yet without the clamp a sender whose growth is not validated (`cwnd_validation`
    /// = "off") keeps growing it while its NIC or the peer's window holds it back, and a
    /// halving then leaves it above what the network can take. Linux has no such clamp
    /// (`snd_cwnd_clamp` is unlimited unless a route sets it) but grows only a cwnd-limited
    /// window; ns-2 clamps only when `maxcwnd_` is set. Default: on.
    pub cwnd_clamp: bool,
    /// F-RTO (RFC 5682 §3, the SACK-enhanced algorithm, which also runs without SACK): after
    /// a retransmission timeout the sender resends only the first unacknowledged segment; if
    /// the first new ACK does not cover everything outstanding, it sends up to two new
    /// segments instead of further retransmissions, and if the next ACK acknowledges data
    /// sent before the timeout without showing a loss, the timeout was spurious: the sender
    /// goes on with new data and restores the window and threshold saved at the timeout
    /// (the Eifel response, RFC 4015 §3). Otherwise, or when no new data can be sent, the
    /// usual RTO recovery goes on. Off (the default): the papers assume plain RFC 6298 and
    /// RFC 5681 timeouts. Every timeout is classified as spurious or not either way
    /// (`spurious_timeouts` in the results).
    pub frto: bool,
    /// CUBIC's parameters (`cc = "cubic"`).
    pub cubic: CubicConfig,
}

const DEFAULT_MSS: u32 = 1460;

impl TcpConfig {
    /// Payload bytes per segment: `mss`, or from `mtu_bytes`, or 1460.
    pub fn segment_bytes(&self) -> u32 {
        match (self.mss, self.mtu_bytes) {
            (Some(mss), _) => mss,
            (None, Some(mtu)) => mtu.saturating_sub(self.header_bytes),
            (None, None) => DEFAULT_MSS,
        }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            profile: None,
            cc: CcKind::NewReno,
            mss: None,
            mtu_bytes: None,
            header_bytes: 40,
            init_cwnd_segments: 2,
            rto_min_ms: 300.0,
            rto_initial_ms: 1000.0,
            rto_max_ms: 60_000.0,
            timer_tick_ms: 0.0,
            delayed_ack_segments: 2,
            delayed_ack_timeout_ms: 40.0,
            rcv_buffer_bytes: 8_000_000,
            rcv_autotune: false,
            rcv_autotune_initial_bytes: 43_690,
            rcv_autotune_max_bytes: 3 << 20,
            dctcp_g: 1.0 / 16.0,
            dctcp_alpha_init: 1.0,
            dctcp_min_cwnd_segments: 2,
            dctcp_receiver: DctcpReceiver::Paper,
            ect_on_control: EctOnControl::Auto,
            ect_on_syn: None,
            ect_on_ack: None,
            syn_retries: 6,
            synack_retries: 5,
            sack: true,
            limited_transmit: false,
            dupack_threshold: 3,
            slow_start_after_idle: true,
            idle_restart: IdleRestart::Rfc5681,
            ack_counting: AckCounting::Segments,
            abc_limit_segments: 2,
            cwnd_validation: CwndValidation::Rfc7661,
            recovery: Recovery::Rfc6675,
            tail_loss_probe: false,
            early_retransmit: false,
            ssthresh_from: SsthreshFrom::FlightSize,
            cwnd_clamp: true,
            frto: false,
            cubic: CubicConfig::default(),
        }
    }
}

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
    #[schemars(range(max = 7))]
    pub class: u8,
}

/// Partition/aggregate (M23): a client sends a small request to each server, each server
/// answers with `response_bytes`; a query completes when every response has arrived.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuerySpec {
    /// The aggregator.
    #[schemars(range(max = "limits::MAX_HOSTS"))]
    pub client: u32,
    /// The workers.
    pub servers: Vec<u32>,
    /// Request size, bytes (NOT GIVEN in the papers; ASSUMPTION one 100-B segment).
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
    /// (application jitter, M24).
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
    #[schemars(range(max = 7))]
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

/// What to record besides the always-on counters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MeasureConfig {
    /// Queue-length time series of the sampled ports (`queue_ports`), one sample per
    /// interval, µs (0 = off).
    #[schemars(range(min = 0.0, max = "limits::MAX_SAMPLE_US"))]
    pub queue_sample_us: f64,
    /// Ports to sample, by name (`s0->h0`, `*` a wildcard); empty = the switch ports on the
    /// paths data takes (every switch port when traffic generators pick the hosts).
    pub queue_ports: Vec<String>,
    /// Per-flow time series (delivered bytes, cwnd, DCTCP alpha) every interval, µs (0 = off).
    #[schemars(range(min = 0.0, max = "limits::MAX_SAMPLE_US"))]
    pub flow_sample_us: f64,
    /// Ports whose packets are traced, by name (`s0->h0`): each packet leaving the port,
    /// and each it refuses (`dcsim run --trace`).
    pub trace_ports: Vec<String>,
    /// Flows (indices into `flows`) whose packets are traced at their sender's host: what
    /// it sends and what it receives.
    pub trace_flows: Vec<u32>,
    /// Query workloads (indices into `queries`, persistent ones) whose connections are traced
    /// at each server, their data sender: the responses it sends, and the requests and ACKs
    /// it receives (DCTCP Fig. 9's "RTT+Queue" is a response's send to its ACK).
    pub trace_queries: Vec<u32>,
    /// Each finished flow's ideal completion time (`flows.ideal_fct_s`): the time the same
    /// flow takes alone on the idle network, found by running it so; `slowdown` is its
    /// completion time over that. Costs about one more simulation of each finite flow.
    pub ideal_fct: bool,
}

impl Default for MeasureConfig {
    fn default() -> Self {
        Self {
            queue_sample_us: 1000.0,
            queue_ports: Vec::new(),
            flow_sample_us: 0.0,
            trace_ports: Vec::new(),
            trace_flows: Vec::new(),
            trace_queries: Vec::new(),
            ideal_fct: true,
        }
    }
}

/// Refuses a NaN or infinite float anywhere in a TOML document, naming its field.
fn finite_floats(v: &toml::Value, path: &mut String) -> Result<(), ConfigError> {
    let child = |path: &mut String, part: String, v: &toml::Value| {
        let len = path.len();
        path.push_str(&part);
        let r = finite_floats(v, path);
        path.truncate(len);
        r
    };
    match v {
        toml::Value::Float(x) if !x.is_finite() => Err(ConfigError::new(path.clone(), format!("{x} is not a finite number"))),
        toml::Value::Table(t) => t.iter().try_for_each(|(k, v)| {
            let key = path_key(k);
            let part = if path.is_empty() { key } else { format!(".{key}") };
            child(path, part, v)
        }),
        toml::Value::Array(a) => a.iter().enumerate().try_for_each(|(i, v)| child(path, format!("[{i}]"), v)),
        _ => Ok(()),
    }
}

/// A field's path as messages name it (`flows[0].bytes`), with a key that is not a plain name
/// quoted as JSON (`flows[0]."a b"`), so that the path always ends before the first ": ".
fn field_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&path_key(key));
            }
            Segment::Unknown => out.push_str(if out.is_empty() { "?" } else { ".?" }),
        }
    }
    out
}

/// A key as a field path names it: a plain name as it is, any other quoted as JSON (which
/// also escapes control characters).
fn path_key(key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        key.to_string()
    } else {
        serde_json::to_string(key).expect("a string serialises")
    }
}

/// A TOML syntax error on one line, with where it is (toml's own message spans lines).
fn toml_syntax(text: &str, e: &toml::de::Error) -> String {
    let reason = e.message().trim().lines().map(str::trim).collect::<Vec<_>>().join("; ");
    match e.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("TOML syntax at line {line}, column {column}: {reason}")
        }
        None => format!("TOML syntax: {reason}"),
    }
}

impl Scenario {
    /// Parse TOML text; errors name the field path and the reason.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| ConfigError::new(String::new(), toml_syntax(text, &e)))?;
        // JSON has no NaN or infinity: refuse them here, where the field is still known.
        table.iter().try_for_each(|(k, v)| finite_floats(v, &mut k.clone()))?;
        let doc = serde_json::to_value(table).map_err(|e| ConfigError::new(String::new(), e.to_string()))?;
        Self::from_document(doc)
    }

    /// Parse JSON text (what the Python bindings pass).
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| ConfigError::new(String::new(), e.to_string()))?;
        Self::from_document(doc)
    }

    /// The typed reading of a parsed document, after its stack profile filled in `tcp`.
    fn from_document(mut doc: serde_json::Value) -> Result<Self, ConfigError> {
        profiles::apply(&mut doc);
        let scenario: Scenario = serde_path_to_error::deserialize(&doc).map_err(|e| {
            let path = field_path(e.path());
            pinpoint::pinpoint(&doc, e.path(), &path).unwrap_or_else(|| ConfigError::new(path, e.into_inner().to_string()))
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
        self.topology.host_count()
    }

    /// Checks serde cannot express: ranges, cross references. Every number has an upper
    /// bound (`limits`), so no time or size the engine derives from it can overflow.
    fn check_classes(&self, c: &ClassesConfig) -> Result<(), ConfigError> {
        use limits::*;
        let n = c.queues.len();
        if !(1..=8).contains(&n) {
            return Err(ConfigError::new(
                "switch.classes.queues".into(),
                format!("must list 1 to 8 class queues, got {n}"),
            ));
        }
        let class = |field: &str, v: u8| -> Result<(), ConfigError> {
            if (v as usize) < n {
                return Ok(());
            }
            Err(ConfigError::new(
                field.into(),
                format!("class {v} does not exist: the ports have {n} class queues (0 to {})", n - 1),
            ))
        };
        match c.classify {
            ClassifyConfig::Flow => {
                for (i, f) in self.flows.iter().enumerate() {
                    class(&format!("flows[{i}].class"), f.class)?;
                }
                for (i, q) in self.queries.iter().enumerate() {
                    class(&format!("queries[{i}].class"), q.class)?;
                }
                for (i, g) in self.traffic.iter().enumerate() {
                    class(&format!("traffic[{i}].class"), g.class)?;
                }
                for (i, u) in self.udp.iter().enumerate() {
                    class(&format!("udp[{i}].class"), u.class)?;
                }
            }
            ClassifyConfig::Ecn { ect, not_ect } => {
                class("switch.classes.classify.ect", ect)?;
                class("switch.classes.classify.not_ect", not_ect)?;
            }
            ClassifyConfig::PacketType { syn, ack, data } => {
                class("switch.classes.classify.syn", syn)?;
                class("switch.classes.classify.ack", ack)?;
                class("switch.classes.classify.data", data)?;
            }
        }
        if let Some(q) = c.quantum_bytes {
            whole(&"switch.classes.quantum_bytes", q, 1, MAX_BUFFER_BYTES, "bytes")?;
        }
        let drr_only = |field: String| {
            Err(ConfigError::new(
                field,
                format!(
                    "applies to scheduler = \"drr\" only, not {}",
                    serde_json::to_string(&c.scheduler).unwrap_or_default()
                ),
            ))
        };
        if c.scheduler != SchedulerKind::Drr {
            if c.quantum_bytes.is_some() {
                return drr_only("switch.classes.quantum_bytes".into());
            }
            if let Some(i) = c.queues.iter().position(|q| q.weight != 1) {
                return drr_only(format!("switch.classes.queues[{i}].weight"));
            }
        }
        for (i, q) in c.queues.iter().enumerate() {
            let f = |name: &str| format!("switch.classes.queues[{i}].{name}");
            whole(&f("weight"), q.weight as u64, 1, 1000, "")?;
            if let Some(p) = q.limit_packets {
                whole(&f("limit_packets"), p as u64, 1, MAX_PACKETS as u64, "packets")?;
            }
            if let Some(b) = q.limit_bytes {
                whole(&f("limit_bytes"), b, 1, MAX_BUFFER_BYTES, "bytes")?;
            }
            if let Some(alpha) = q.alpha {
                real(&f("alpha"), alpha, Bound::Above(0.0), 1e6, "")?;
                if !matches!(self.switch.buffer, BufferConfig::PerPort { limit_bytes: Some(_), .. }) {
                    return Err(ConfigError::new(
                        f("alpha"),
                        "a dynamic share of the port's buffer needs switch.buffer = { kind = \"per_port\", limit_bytes = ... } (on a shared-memory switch the switch's own dynamic threshold applies to each class queue)".into(),
                    ));
                }
            }
            if let Some(aqm) = &q.aqm {
                check_aqm(&f("aqm"), aqm)?;
            }
        }
        Ok(())
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        use limits::*;
        let err = |field: &str, reason: String| Err(ConfigError::new(field.to_string(), reason));
        let s = &self.sim;
        real(&"sim.duration_s", s.duration_s, Bound::Above(0.0), MAX_TIME_S, "s")?;
        if !(s.warmup_s >= 0.0 && s.warmup_s < s.duration_s) {
            return err("sim.warmup_s", format!("must be in [0, duration_s), got {}", s.warmup_s));
        }
        real(&"sim.memory_limit_gb", s.memory_limit_gb, Bound::From(0.001), 1e6, "GB")?;
        self.topology.check()?;
        for (field, l) in self.topology.links() {
            check_link(&field, l)?;
        }
        if let Topology::Graph { link, links, .. } = &self.topology {
            for (i, l) in links.iter().enumerate() {
                check_link(&format!("topology.links[{i}]"), &l.resolve(link))?;
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
                if let Some(p) = limit_packets {
                    whole(&"switch.buffer.limit_packets", *p as u64, 1, MAX_PACKETS as u64, "packets")?;
                }
                if let Some(b) = limit_bytes {
                    let pkt = (self.tcp.segment_bytes() + self.tcp.header_bytes) as u64;
                    if *b < pkt {
                        return err("switch.buffer.limit_bytes", format!("{b} B cannot hold one {pkt}-B packet"));
                    }
                    whole(&"switch.buffer.limit_bytes", *b, 1, MAX_BUFFER_BYTES, "B")?;
                }
            }
            BufferConfig::Shared {
                total_bytes,
                alpha,
                limit_packets,
            } => {
                let pkt = (self.tcp.segment_bytes() + self.tcp.header_bytes) as u64;
                if *total_bytes < pkt {
                    return err(
                        "switch.buffer.total_bytes",
                        format!("{total_bytes} B cannot hold one {pkt}-B packet"),
                    );
                }
                whole(&"switch.buffer.total_bytes", *total_bytes, 1, MAX_BUFFER_BYTES, "B")?;
                real(&"switch.buffer.alpha", *alpha, Bound::Above(0.0), 1e6, "")?;
                if let Some(p) = limit_packets {
                    whole(&"switch.buffer.limit_packets", *p as u64, 1, MAX_PACKETS as u64, "packets")?;
                }
            }
            BufferConfig::Preset { .. } => {}
        }
        check_aqm("switch.aqm", &self.switch.aqm)?;
        if let Some(c) = &self.switch.classes {
            self.check_classes(c)?;
        }
        let h = &self.host;
        real(&"host.tx_jitter_us", h.tx_jitter_us, Bound::From(0.0), MAX_DELAY_US, "µs")?;
        real(&"host.clock_ppm", h.clock_ppm, Bound::From(0.0), 10_000.0, "ppm")?;
        real(
            &"host.rx_interrupt_interval_us",
            h.rx_interrupt_interval_us,
            Bound::From(0.0),
            10_000.0,
            "µs",
        )?;
        real(&"host.rx_processing_us", h.rx_processing_us, Bound::From(0.0), 1000.0, "µs")?;
        whole(
            &"host.nic_queue_packets",
            h.nic_queue_packets as u64,
            1,
            MAX_PACKETS as u64,
            "packets",
        )?;
        whole(&"host.queue_bytes_per_conn", h.queue_bytes_per_conn, 0, MAX_BUFFER_BYTES, "B")?;
        whole(
            &"host.offload_burst_segments",
            h.offload_burst_segments as u64,
            0,
            MAX_SEGMENTS as u64,
            "segments",
        )?;
        let t = &self.tcp;
        if let Some(mss) = t.mss {
            whole(&"tcp.mss", mss as u64, 64, 65_000, "bytes")?;
        }
        if let Some(mtu) = t.mtu_bytes {
            if let Some(mss) = t.mss {
                return err(
                    "tcp.mtu_bytes",
                    format!("set either tcp.mss ({mss}) or tcp.mtu_bytes ({mtu}), not both"),
                );
            }
            whole(&"tcp.mtu_bytes", mtu as u64, 576, 65_040, "bytes")?;
            let mss = mtu.saturating_sub(t.header_bytes);
            if !(64..=65_000).contains(&mss) {
                return err(
                    "tcp.mtu_bytes",
                    format!(
                        "{mtu} B minus {} B of headers leaves an MSS of {mss} B, outside [64, 65000]",
                        t.header_bytes
                    ),
                );
            }
        }
        whole(&"tcp.header_bytes", t.header_bytes as u64, 0, 10_000, "bytes")?;
        whole(
            &"tcp.init_cwnd_segments",
            t.init_cwnd_segments as u64,
            1,
            MAX_SEGMENTS as u64,
            "segments",
        )?;
        for (name, v) in [
            ("tcp.rto_min_ms", t.rto_min_ms),
            ("tcp.rto_initial_ms", t.rto_initial_ms),
            ("tcp.rto_max_ms", t.rto_max_ms),
            ("tcp.delayed_ack_timeout_ms", t.delayed_ack_timeout_ms),
        ] {
            real(&name, v, Bound::Above(0.0), MAX_TIMER_MS, "ms")?;
        }
        real(&"tcp.timer_tick_ms", t.timer_tick_ms, Bound::From(0.0), MAX_TIMER_MS, "ms")?;
        whole(
            &"tcp.delayed_ack_segments",
            t.delayed_ack_segments as u64,
            1,
            MAX_SEGMENTS as u64,
            "segments (1 = ACK every segment)",
        )?;
        check_rcv_buffer("tcp.rcv_buffer_bytes", t.rcv_buffer_bytes, t.segment_bytes())?;
        // Auto-tuning's sizes matter (and must hold a segment) only when it is on.
        let autotune_mss = if t.rcv_autotune { t.segment_bytes() } else { 1 };
        check_rcv_buffer("tcp.rcv_autotune_initial_bytes", t.rcv_autotune_initial_bytes, autotune_mss)?;
        check_rcv_buffer("tcp.rcv_autotune_max_bytes", t.rcv_autotune_max_bytes, autotune_mss)?;
        if t.rcv_autotune_max_bytes < t.rcv_autotune_initial_bytes {
            return err(
                "tcp.rcv_autotune_max_bytes",
                format!(
                    "{} is below rcv_autotune_initial_bytes ({})",
                    t.rcv_autotune_max_bytes, t.rcv_autotune_initial_bytes
                ),
            );
        }
        whole(&"tcp.dupack_threshold", t.dupack_threshold as u64, 1, 1000, "")?;
        whole(&"tcp.abc_limit_segments", t.abc_limit_segments as u64, 0, 1000, "")?;
        whole(&"tcp.syn_retries", t.syn_retries as u64, 0, 127, "resends")?;
        whole(&"tcp.synack_retries", t.synack_retries as u64, 0, 127, "resends")?;
        real(&"tcp.dctcp_g", t.dctcp_g, Bound::Above(0.0), 1.0, "")?;
        real(&"tcp.dctcp_alpha_init", t.dctcp_alpha_init, Bound::From(0.0), 1.0, "")?;
        whole(
            &"tcp.dctcp_min_cwnd_segments",
            t.dctcp_min_cwnd_segments as u64,
            0,
            MAX_SEGMENTS as u64,
            "segments",
        )?;
        t.cubic.check("tcp.cubic")?;
        let hosts = self.host_count();
        let check_host = |field: &str, h: u32| -> Result<(), ConfigError> {
            if h >= hosts {
                return err(field, format!("host {h} does not exist (hosts are 0..{})", hosts - 1));
            }
            Ok(())
        };
        let ic = &self.ictcp;
        if ic.hosts.len() > hosts as usize {
            return err("ictcp.hosts", format!("{} entries for {hosts} hosts", ic.hosts.len()));
        }
        for (j, &h) in ic.hosts.iter().enumerate() {
            check_host(&format!("ictcp.hosts[{j}]"), h)?;
        }
        for (name, v) in [
            ("ictcp.alpha", ic.alpha),
            ("ictcp.beta", ic.beta),
            ("ictcp.gamma1", ic.gamma1),
            ("ictcp.gamma2", ic.gamma2),
            ("ictcp.fairness_fraction", ic.fairness_fraction),
        ] {
            real(&name, v, Bound::From(0.0), 1.0, "")?;
        }
        if ic.gamma1 > ic.gamma2 {
            return err("ictcp.gamma1", format!("must not exceed gamma2 ({}), got {}", ic.gamma2, ic.gamma1));
        }
        for (name, v) in [
            ("ictcp.min_rwnd_segments", ic.min_rwnd_segments),
            ("ictcp.decrease_after_rtts", ic.decrease_after_rtts),
            ("ictcp.control_interval_rtts", ic.control_interval_rtts),
        ] {
            whole(&name, v as u64, 1, MAX_SEGMENTS as u64, "")?;
        }
        real(&"ictcp.rtt_limit_ms", ic.rtt_limit_ms, Bound::Above(0.0), MAX_TIMER_MS, "ms")?;
        real(
            &"ictcp.initial_subslot_us",
            ic.initial_subslot_us,
            Bound::Above(0.0),
            MAX_TIMER_MS * 1e3,
            "µs",
        )?;
        real(
            &"ictcp.timestamp_tick_ns",
            ic.timestamp_tick_ns,
            Bound::Above(0.0),
            MAX_TIMER_MS * 1e6,
            "ns",
        )?;
        if self.flows.len() > MAX_FLOWS {
            return err("flows", format!("{} flows; at most {MAX_FLOWS} are allowed", self.flows.len()));
        }
        for (i, f) in self.flows.iter().enumerate() {
            let field = |name: &str| format!("flows[{i}].{name}");
            check_host(&field("src"), f.src)?;
            check_host(&field("dst"), f.dst)?;
            if f.src == f.dst {
                return err(&field("dst"), "a flow needs two different hosts".to_string());
            }
            whole(&field("class"), f.class as u64, 0, 7, "")?;
            real(&field("start_s"), f.start_s, Bound::From(0.0), MAX_TIME_S, "s")?;
            real(&field("start_jitter_us"), f.start_jitter_us, Bound::From(0.0), MAX_DELAY_US, "µs")?;
            stop_after(&field("stop_s"), f.stop_s, f.start_s)?;
            if let Some(b) = f.rcv_buffer_bytes {
                check_rcv_buffer(&field("rcv_buffer_bytes"), b, t.segment_bytes())?;
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
        if self.udp.len() > MAX_FLOWS {
            return err("udp", format!("{} sources; at most {MAX_FLOWS} are allowed", self.udp.len()));
        }
        for (i, u) in self.udp.iter().enumerate() {
            let field = |name: &str| format!("udp[{i}].{name}");
            check_host(&field("src"), u.src)?;
            check_host(&field("dst"), u.dst)?;
            if u.src == u.dst {
                return err(&field("dst"), "a UDP source needs two different hosts".to_string());
            }
            real(&field("rate_gbps"), u.rate_gbps, Bound::From(MIN_RATE_GBPS), MAX_RATE_GBPS, "Gbps")?;
            whole(&field("packet_bytes"), u.packet_bytes as u64, 29, 65_535, "bytes")?;
            whole(&field("class"), u.class as u64, 0, 7, "")?;
            real(&field("start_s"), u.start_s, Bound::From(0.0), MAX_TIME_S, "s")?;
            stop_after(&field("stop_s"), u.stop_s, u.start_s)?;
        }
        if self.traffic.len() > MAX_QUERY_WORKLOADS {
            return err(
                "traffic",
                format!("{} generators; at most {MAX_QUERY_WORKLOADS} are allowed", self.traffic.len()),
            );
        }
        for (i, g) in self.traffic.iter().enumerate() {
            g.check(&format!("traffic[{i}]"), hosts, t.segment_bytes())?;
        }
        if self.queries.len() > MAX_QUERY_WORKLOADS {
            return err(
                "queries",
                format!("{} workloads; at most {MAX_QUERY_WORKLOADS} are allowed", self.queries.len()),
            );
        }
        for (i, q) in self.queries.iter().enumerate() {
            let field = |name: &str| format!("queries[{i}].{name}");
            check_host(&field("client"), q.client)?;
            whole(&field("class"), q.class as u64, 0, 7, "")?;
            if q.servers.is_empty() {
                return err(&field("servers"), "needs at least one server".to_string());
            }
            if q.servers.len() > hosts as usize {
                return err(&field("servers"), format!("{} servers for {hosts} hosts", q.servers.len()));
            }
            for (j, &h) in q.servers.iter().enumerate() {
                check_host(&field(&format!("servers[{j}]")), h)?;
                if h == q.client {
                    return err(&field(&format!("servers[{j}]")), "a server cannot be the client".to_string());
                }
            }
            whole(&field("request_bytes"), q.request_bytes, 1, MAX_BYTES, "bytes")?;
            whole(&field("response_bytes"), q.response_bytes, 1, MAX_BYTES, "bytes")?;
            if let Some(b) = q.rcv_buffer_bytes {
                check_rcv_buffer(&field("rcv_buffer_bytes"), b, t.segment_bytes())?;
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
        for (name, v) in [
            ("measure.queue_sample_us", self.measure.queue_sample_us),
            ("measure.flow_sample_us", self.measure.flow_sample_us),
        ] {
            if !(v.is_finite() && (v == 0.0 || (0.001..=MAX_SAMPLE_US).contains(&v))) {
                return err(name, format!("must be 0 (off) or in [0.001, {MAX_SAMPLE_US}] µs, got {v}"));
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
        for (i, &w) in self.measure.trace_queries.iter().enumerate() {
            let field = format!("measure.trace_queries[{i}]");
            match self.queries.get(w as usize) {
                None => {
                    return err(
                        &field,
                        match self.queries.len() {
                            0 => format!("query workload {w} does not exist (the scenario has no queries)"),
                            1 => format!("query workload {w} does not exist (the only one is 0)"),
                            n => format!("query workload {w} does not exist (workloads are 0..{})", n - 1),
                        },
                    )
                }
                Some(q) if !q.persistent => {
                    return err(
                        &field,
                        format!(
                            "query workload {w} opens a new connection per request; only persistent \
                             connections can be traced"
                        ),
                    )
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// Upper bounds of the scenario's numbers, each stated in its field's documentation. Times
/// are bounded so that any sum the engine forms (a start time, a timeout, a link delay, a
/// serialisation time) stays far below the 213 days that u64 picoseconds hold.
pub mod limits {
    /// Hosts of a network (2^20).
    pub const MAX_HOSTS: u32 = 1 << 20;
    /// Switches of a network.
    pub const MAX_SWITCHES: u32 = 1 << 20;
    /// Links of a network (each makes two ports).
    pub const MAX_LINKS: u32 = 1 << 22;
    /// Largest fat-tree: k = 128 has 524,288 hosts.
    pub const MAX_FAT_TREE_K: u32 = 128;
    pub const MAX_FLOWS: usize = 1 << 24;
    pub const MAX_QUERY_WORKLOADS: usize = 1 << 20;
    pub const MAX_ROUNDS: u32 = 1 << 24;
    pub const MIN_RATE_GBPS: f64 = 1e-6;
    pub const MAX_RATE_GBPS: f64 = 10_000.0;
    /// One second: the longest link delay and host jitter, µs.
    pub const MAX_DELAY_US: f64 = 1e6;
    /// Run length and start and stop times, s (11.6 days).
    pub const MAX_TIME_S: f64 = 1e6;
    /// One hour: timers (RTO, delayed ACK, tick), ms; the same in µs and ns.
    pub const MAX_TIMER_MS: f64 = 3.6e6;
    pub const MAX_TIMER_US: f64 = 3.6e9;
    pub const MAX_TIMER_NS: f64 = 3.6e12;
    /// Sampling intervals, µs: the longest run.
    pub const MAX_SAMPLE_US: f64 = 1e12;
    /// Flow, request and response sizes (2^50 B, 1 PiB).
    pub const MAX_BYTES: u64 = 1 << 50;
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
}

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
    real(field, stop, Bound::Above(0.0), limits::MAX_TIME_S, "s")
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

fn check_link(field: &str, l: &LinkConfig) -> Result<(), ConfigError> {
    use limits::*;
    real(
        &format!("{field}.rate_gbps"),
        l.rate_gbps,
        Bound::From(MIN_RATE_GBPS),
        MAX_RATE_GBPS,
        "Gbit/s",
    )?;
    real(&format!("{field}.delay_us"), l.delay_us, Bound::From(0.0), MAX_DELAY_US, "µs")?;
    whole(
        &format!("{field}.framing_bytes"),
        l.framing_bytes as u64,
        0,
        MAX_FRAMING as u64,
        "bytes",
    )?;
    if let Some(p) = l.buffer_packets {
        whole(&format!("{field}.buffer_packets"), p as u64, 1, MAX_PACKETS as u64, "packets")?;
    }
    if let Some(b) = l.buffer_bytes {
        whole(&format!("{field}.buffer_bytes"), b, 1, MAX_BUFFER_BYTES, "bytes")?;
    }
    Ok(())
}

fn check_aqm(field: &str, aqm: &AqmConfig) -> Result<(), ConfigError> {
    use limits::*;
    let f = |name: &str| format!("{field}.{name}");
    match aqm {
        AqmConfig::Red {
            min_th,
            max_th,
            max_p,
            weight_log2,
            ..
        } => {
            real(&f("min_th"), *min_th, Bound::From(0.0), MAX_PACKETS as f64, "packets")?;
            real(&f("max_th"), *max_th, Bound::From(0.0), MAX_PACKETS as f64, "packets")?;
            if !(*min_th >= 0.0 && max_th > min_th) {
                return Err(ConfigError::new(
                    f("max_th"),
                    format!("need 0 ≤ min_th < max_th, got {min_th} and {max_th}"),
                ));
            }
            real(&f("max_p"), *max_p, Bound::Above(0.0), 1.0, "")?;
            whole(&f("weight_log2"), *weight_log2 as u64, 0, 30, "")?;
        }
        AqmConfig::Threshold { k_packets: Some(k), .. } => {
            // K = 0 is legal (mark whenever anything is queued).
            whole(&f("k_packets"), *k as u64, 0, MAX_PACKETS as u64, "packets")?;
        }
        AqmConfig::Pi {
            a,
            b,
            q_ref_packets,
            sample_hz,
            ..
        } => {
            real(&f("a"), *a, Bound::From(0.0), 1.0, "")?;
            real(&f("b"), *b, Bound::From(0.0), 1.0, "")?;
            real(&f("q_ref_packets"), *q_ref_packets, Bound::From(0.0), MAX_PACKETS as f64, "packets")?;
            real(&f("sample_hz"), *sample_hz, Bound::From(1e-3), 1e9, "Hz")?;
        }
        // Every variant is listed, so a new one is not left unchecked by accident.
        AqmConfig::DropTail | AqmConfig::Threshold { k_packets: None, .. } => {}
    }
    Ok(())
}

pub(crate) fn check_rcv_buffer(field: &str, bytes: u64, mss: u32) -> Result<(), ConfigError> {
    if bytes < mss as u64 {
        return Err(ConfigError::new(
            field.to_string(),
            format!("must hold at least 1 segment ({mss} B), got {bytes}"),
        ));
    }
    whole(&field, bytes, 1, limits::MAX_RCV_BUFFER, "bytes")
}
