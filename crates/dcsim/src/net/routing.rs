//! Forwarding tables computed when the network is built: shortest paths in hops, with ECMP
//! over the equal-cost next hops (RFC 2992).
//!
//! Every host hangs off one switch, its leaf. A switch forwards a packet for host `d` down
//! the port to `d` if `d` is one of its own hosts, and otherwise to one of the next hops
//! towards `d`'s leaf. Tables are therefore indexed by (switch, leaf), not by host: memory
//! grows with switches × leaves and ports, not hosts × nodes. Equal next-hop sets are stored
//! once.

use std::collections::{HashMap, VecDeque};

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::packet::{Packet, UDP};
use crate::ids::{HostId, NodeId, PortId};

const NONE: u32 = u32::MAX;

/// A switch port and the switch it leads to.
#[derive(Debug, Clone, Copy)]
pub struct SwitchLink {
    pub from: NodeId,
    pub port: PortId,
    pub to: NodeId,
}

#[derive(Debug, Clone)]
pub struct Routes {
    hosts: u32,
    /// Per host: its switch and that switch's port down to it.
    host_switch: Vec<NodeId>,
    host_down: Vec<PortId>,
    /// Per switch (node − hosts): its index among the leaves, or NONE if it has no hosts.
    leaf_index: Vec<u32>,
    leaves: u32,
    /// `table[switch · leaves + leaf]`: the next-hop group towards that leaf (NONE where the
    /// switch is the leaf, or cannot reach it).
    table: Vec<u32>,
    /// Next-hop groups as (start, len) into `group_ports`.
    groups: Vec<(u32, u32)>,
    group_ports: Vec<PortId>,
    ecmp: Ecmp,
    seed: u64,
    spray: ChaCha8Rng,
    /// Per switch: the round-robin position (`Ecmp::RoundRobin`).
    turn: Vec<u32>,
}

impl Routes {
    /// Computes the tables. `host_switch`/`host_down` give each host's attachment (hosts are
    /// nodes `0..host_switch.len()`); `links` lists every switch-to-switch port. Every leaf
    /// must reach every other (`Layout::of` checks it).
    pub fn build(
        switches: u32,
        host_switch: Vec<NodeId>,
        host_down: Vec<PortId>,
        links: &[SwitchLink],
        ecmp: Ecmp,
        seed: u64,
        spray: ChaCha8Rng,
    ) -> Routes {
        let hosts = host_switch.len() as u32;
        let s = switches as usize;
        // Adjacency of the switch graph, compressed: ports of switch i are adj[start[i]..start[i+1]].
        let mut start = vec![0u32; s + 1];
        for l in links {
            start[(l.from.0 - hosts) as usize + 1] += 1;
        }
        for i in 0..s {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut adj = vec![(PortId(0), 0u32); links.len()];
        for l in links {
            let i = (l.from.0 - hosts) as usize;
            adj[fill[i] as usize] = (l.port, l.to.0 - hosts);
            fill[i] += 1;
        }
        let mut leaf_index = vec![NONE; s];
        let mut leaf_switches = Vec::new();
        for &sw in &host_switch {
            let i = (sw.0 - hosts) as usize;
            if leaf_index[i] == NONE {
                leaf_index[i] = leaf_switches.len() as u32;
                leaf_switches.push(i as u32);
            }
        }
        let leaves = leaf_switches.len();
        let mut table = vec![NONE; s * leaves];
        let mut groups = Vec::new();
        let mut group_ports = Vec::new();
        let mut group_of: HashMap<Vec<PortId>, u32> = HashMap::new();
        let mut dist = vec![NONE; s];
        let mut queue = VecDeque::with_capacity(s);
        let mut hops = Vec::new();
        for (li, &leaf) in leaf_switches.iter().enumerate() {
            // Hops from every switch to this leaf (links run both ways).
            dist.fill(NONE);
            dist[leaf as usize] = 0;
            queue.push_back(leaf);
            while let Some(u) = queue.pop_front() {
                for &(_, v) in &adj[start[u as usize] as usize..start[u as usize + 1] as usize] {
                    if dist[v as usize] == NONE {
                        dist[v as usize] = dist[u as usize] + 1;
                        queue.push_back(v);
                    }
                }
            }
            // `Layout::of` refused a network where some host cannot reach another.
            debug_assert!(leaf_switches.iter().all(|&l| dist[l as usize] != NONE), "a leaf cannot be reached");
            for u in 0..s {
                if u == leaf as usize || dist[u] == NONE {
                    continue;
                }
                hops.clear();
                hops.extend(
                    adj[start[u] as usize..start[u + 1] as usize]
                        .iter()
                        // Links run both ways, so a neighbour is one hop nearer, as near, or
                        // one hop farther: the nearer ones are the next hops.
                        .filter(|&&(_, v)| dist[v as usize] < dist[u])
                        .map(|&(p, _)| p),
                );
                table[u * leaves + li] = match group_of.get(&hops) {
                    Some(&g) => g,
                    None => {
                        groups.push((group_ports.len() as u32, hops.len() as u32));
                        group_ports.extend_from_slice(&hops);
                        group_of.insert(hops.clone(), groups.len() as u32 - 1);
                        groups.len() as u32 - 1
                    }
                };
            }
        }
        Routes {
            hosts,
            host_switch,
            host_down,
            leaf_index,
            leaves: leaves as u32,
            table,
            groups,
            group_ports,
            ecmp,
            seed,
            spray,
            turn: if ecmp == Ecmp::RoundRobin { vec![0; s] } else { Vec::new() },
        }
    }

    /// The equal-cost ports of switch `node` towards host `dst` (one port: the way down).
    #[inline]
    pub fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        let leaf = self.host_switch[dst];
        if leaf == node {
            return std::slice::from_ref(&self.host_down[dst]);
        }
        let row = (node.0 - self.hosts) as usize * self.leaves as usize;
        let g = self.table[row + self.leaf_index[(leaf.0 - self.hosts) as usize] as usize];
        if g == NONE {
            return &[];
        }
        let (start, len) = self.groups[g as usize];
        &self.group_ports[start as usize..(start + len) as usize]
    }

    /// The port switch `node` forwards `pkt` on.
    #[inline]
    /// Per-packet ECMP draws from `rng` from now on (a parallel run's partition, whose
    /// switches spray from a stream of their own).
    pub fn set_spray(&mut self, rng: ChaCha8Rng) {
        self.spray = rng;
    }

    pub fn egress(&mut self, node: NodeId, pkt: &Packet) -> PortId {
        // The last hop, down to one of the switch's own hosts, first: every packet takes it.
        let dst = HostId(pkt.dst);
        if self.host_switch[dst] == node {
            return self.host_down[dst];
        }
        self.egress_up(node, pkt)
    }

    /// The next hop of a packet whose destination hangs off another switch.
    #[inline]
    fn egress_up(&mut self, node: NodeId, pkt: &Packet) -> PortId {
        let dst = HostId(pkt.dst);
        let hops = self.next_hops(node, dst);
        match hops.len() {
            // Build checked that every leaf reaches every other.
            0 => unreachable!("switch {node} has no route to host {}", pkt.dst),
            1 => hops[0],
            n => {
                let i = match self.ecmp {
                    Ecmp::PerFlow => pick(flow_hash(self.seed, node, pkt), n),
                    Ecmp::PerPacket => self.spray.gen_range(0..n),
                    Ecmp::RoundRobin => {
                        let turn = &mut self.turn[(node.0 - self.hosts) as usize];
                        *turn = turn.wrapping_add(1);
                        *turn as usize % n
                    }
                };
                self.next_hops(node, dst)[i]
            }
        }
    }

    /// Number of distinct next-hop groups (for the memory figures).
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }
}

/// TCP port of end `end` of connection `conn`: the opener uses 49152 + (conn mod 16384), the
/// other end 5001 (as the pcap writer, `python/dcsim/pcap.py`).
#[inline]
pub fn tcp_port(conn: u32, end: u8) -> u16 {
    if end == 0 {
        49_152 + (conn % 16_384) as u16
    } else {
        5001
    }
}

/// Hash of a packet's 5-tuple (source host, destination host, ports, protocol: 6 for TCP, 17
/// for a UDP source's packets, whose ports are numbered as a connection's), the run's seed and
/// the switch: one path per connection direction; the switch salt keeps the tiers of a
/// multi-stage network from making the same choice (hash polarisation).
#[inline]
pub fn flow_hash(seed: u64, switch: NodeId, pkt: &Packet) -> u64 {
    let ports = (tcp_port(pkt.conn, pkt.from_end) as u64) << 16 | tcp_port(pkt.conn, 1 - pkt.from_end) as u64;
    let protocol: u64 = if pkt.has(UDP) { 17 } else { 6 };
    let mut h = mix(seed ^ 0x5bd1_e995_9e37_79b9);
    for word in [(pkt.src as u64) << 32 | pkt.dst as u64, ports | protocol << 32, switch.0 as u64] {
        h = mix(h ^ word);
    }
    h
}

/// SplitMix64's finaliser (Steele, Lea and Flood, OOPSLA 2014): every input bit affects every
/// output bit.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One of `n` choices from a 64-bit hash, without modulo bias beyond 2^-32.
#[inline]
fn pick(h: u64, n: usize) -> usize {
    (((h >> 32) * n as u64) >> 32) as usize
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_matches_splitmix64() {
        // SplitMix64 with state 0: the first output is mix(0) = 0xe220a8397b1dcdaf.
        assert_eq!(mix(0), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn pick_covers_every_choice_in_order() {
        assert_eq!(pick(0, 4), 0);
        assert_eq!(pick(u64::MAX, 4), 3);
        assert_eq!(pick(1 << 63, 4), 2);
        assert_eq!(pick(1 << 62, 4), 1);
    }

    #[test]
    fn tcp_ports_as_the_pcap_writer() {
        assert_eq!(tcp_port(0, 0), 49_152);
        assert_eq!(tcp_port(16_385, 0), 49_153);
        assert_eq!(tcp_port(7, 1), 5001);
    }
}
