//! `[topology]`: the network's shape and its links.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::limits;
use crate::error::ConfigError;

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
    /// header, FCS, preamble and inter-frame gap (IEEE 802.3); this is why 1460-B segments
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
        #[schemars(range(min = "limits::MIN_HOSTS", max = "limits::MAX_HOSTS"))]
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
        #[schemars(range(min = 1, max = "limits::MAX_HOSTS"))]
        left: u32,
        /// Hosts on the right switch, `s1`.
        #[schemars(range(min = 1, max = "limits::MAX_HOSTS"))]
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
        #[schemars(range(min = 1, max = "limits::MAX_HOSTS"))]
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
        #[schemars(range(min = "limits::MIN_OVERSUBSCRIPTION", max = "limits::MAX_OVERSUBSCRIPTION"))]
        oversubscription: Option<f64>,
    },
    /// The k-ary three-tier fat-tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge
    /// switches `edge{pod}_{i}` and k/2 aggregation switches `agg{pod}_{i}`, (k/2)² core
    /// switches `core{i}`, k/2 hosts per edge switch (k³/4 hosts; hosts of edge switch e of pod
    /// p are numbered from (p·k/2 + e)·k/2). Aggregation switch i of every pod links to core
    /// switches i·k/2 .. (i+1)·k/2 − 1. Full bisection bandwidth when all links are equal.
    FatTree {
        /// Ports per switch, even, in [2, 128].
        #[schemars(range(min = "limits::MIN_FAT_TREE_K", max = "limits::MAX_FAT_TREE_K"))]
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
        #[schemars(range(min = "limits::MIN_HOSTS", max = "limits::MAX_HOSTS"))]
        hosts: u32,
        /// Switch names: letters, digits, `_`, `.` and `-`, not of the form `h<number>`.
        switches: Vec<String>,
        /// What a link leaves out.
        #[serde(default)]
        link: LinkConfig,
        links: Vec<GraphLink>,
        /// How a run may cut the network to run on several threads (`sim.threads`): lists of
        /// switch names, one list per partition, every switch in exactly one; each host goes
        /// with the switch it links to. At most 1,024 partitions. Empty: the network stays
        /// whole. A cut runs in windows of the shortest delay of a link between partitions
        /// (plus its shortest frame's serialisation), so cut along links with delay.
        #[serde(default)]
        partitions: Vec<Vec<String>>,
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

impl Topology {
    /// Ranges of every link's settings; the shape's own checks are `Topology::check`.
    pub(super) fn check_links(&self) -> Result<(), ConfigError> {
        for (field, l) in self.links() {
            check_link(&field, l)?;
        }
        if let Topology::Graph { link, links, .. } = self {
            for (i, l) in links.iter().enumerate() {
                check_link(&format!("topology.links[{i}]"), &l.resolve(link))?;
            }
        }
        Ok(())
    }
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
