//! A network as its nodes and the ends of its ports, before any port, queue or route exists:
//! what checking a scenario needs (port names, each host's switch and NIC, whether every host
//! reaches every other, the ports data crosses), at the cost of the topology's graph.
//! `Network::from_layout` builds the ports and routes of a run from it.

use std::collections::{HashMap, VecDeque};

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::shapes::{Graph, Link};
use super::{port_rng, HostId, NodeId, PortId};
use crate::error::ConfigError;
use crate::net::routing::SwitchLink;
use crate::scenario::{LinkConfig, Scenario};
use crate::units::{Bytes, Rate};

/// One egress port: where it is, where it leads, and its link.
#[derive(Debug, Clone)]
pub struct PortEnds {
    /// `node->peer`, with `#k` for the k-th parallel link.
    pub name: String,
    pub node: NodeId,
    pub peer: NodeId,
    /// Index of its link in `Layout::links`.
    pub link: u32,
    /// The link's rate, or for a host's NIC its own clock's (IEEE 802.3's ±100 ppm).
    pub rate: Rate,
}

#[derive(Debug)]
pub struct Layout {
    pub hosts: u32,
    /// By `NodeId`: `h0 .. h{hosts-1}`, then the switches.
    pub node_names: Vec<String>,
    pub links: Vec<Link>,
    /// By `PortId`: each link makes `a->b`, then `b->a`.
    pub ports: Vec<PortEnds>,
    /// Per host: its NIC, the switch it hangs off, and that switch's port down to it.
    pub host_port: Vec<PortId>,
    pub host_switch: Vec<NodeId>,
    pub host_down: Vec<PortId>,
    /// Every switch port that leads to another switch, in port order.
    pub switch_links: Vec<SwitchLink>,
    /// By `NodeId`: its partition, when the topology can be cut for a parallel run
    /// (`Topology::partitions`).
    pub partition: Option<Vec<u16>>,
}

/// The transmit rate of host NIC `nic` on a link of `rate`, and the NIC's random stream after
/// drawing it: each NIC's clock is within ±`ppm` of nominal, its own (IEEE 802.3).
pub fn nic_clock(seed: u64, nic: PortId, rate: Rate, ppm: f64) -> (Rate, ChaCha8Rng) {
    let mut rng = port_rng(seed, nic);
    let offset = if ppm > 0.0 { rng.gen_range(-ppm..=ppm) * 1e-6 } else { 0.0 };
    (Rate::from_bps(((rate.bps() as f64) * (1.0 + offset)).round() as u64), rng)
}

impl Layout {
    /// The layout of `s`'s topology; refuses a graph the topology kind cannot make and a
    /// network where some host cannot reach another.
    pub fn of(s: &Scenario) -> Result<Layout, ConfigError> {
        let graph = s.topology.graph()?;
        let partition = s.topology.partitions(&graph)?;
        let Graph { hosts, switches, links } = graph;
        let mut node_names: Vec<String> = (0..hosts).map(|h| format!("h{h}")).collect();
        node_names.extend(switches);
        let mut l = Layout {
            hosts,
            node_names,
            ports: Vec::with_capacity(2 * links.len()),
            links: Vec::new(),
            host_port: vec![PortId(u32::MAX); hosts as usize],
            host_switch: vec![NodeId(u32::MAX); hosts as usize],
            host_down: vec![PortId(u32::MAX); hosts as usize],
            switch_links: Vec::new(),
            partition,
        };
        for (i, link) in links.iter().enumerate() {
            for (from, to) in [(NodeId(link.a), NodeId(link.b)), (NodeId(link.b), NodeId(link.a))] {
                let mut name = format!("{}->{}", l.node_names[from], l.node_names[to]);
                if link.parallel > 0 {
                    name.push_str(&format!("#{}", link.parallel));
                }
                let id = PortId::at(l.ports.len());
                let mut rate = Rate::from_gbps(link.config.rate_gbps);
                if !l.is_switch(from) {
                    rate = nic_clock(s.sim.seed, id, rate, s.host.clock_ppm).0;
                    l.host_port[from] = id;
                } else if !l.is_switch(to) {
                    l.host_switch[to] = from;
                    l.host_down[to] = id;
                } else {
                    l.switch_links.push(SwitchLink { from, port: id, to });
                }
                l.ports.push(PortEnds {
                    name,
                    node: from,
                    peer: to,
                    link: i as u32,
                    rate,
                });
            }
        }
        l.links = links;
        l.check_connected()?;
        Ok(l)
    }

    /// Hosts are the first nodes, switches the rest.
    pub fn is_switch(&self, node: NodeId) -> bool {
        node.0 >= self.hosts
    }

    /// The settings of `port`'s link.
    pub fn link(&self, port: PortId) -> &LinkConfig {
        &self.links[self.ports[port].link as usize].config
    }

    /// Bytes of link framing each packet on `port`'s link carries.
    pub fn framing(&self, port: PortId) -> Bytes {
        Bytes::from(self.link(port).framing_bytes)
    }

    /// The switches hosts hang off (the leaves), in order of their first host.
    fn leaves(&self) -> Vec<NodeId> {
        let mut seen = vec![false; self.node_names.len()];
        self.host_switch
            .iter()
            .copied()
            .filter(|&sw| !std::mem::replace(&mut seen[sw], true))
            .collect()
    }

    /// Per node: its ports to other switches, and where each leads.
    fn adjacency(&self) -> Vec<Vec<(PortId, NodeId)>> {
        let mut adj = vec![Vec::new(); self.node_names.len()];
        for l in &self.switch_links {
            adj[l.from].push((l.port, l.to));
        }
        adj
    }

    /// Hops from every node to switch `to` over switch links (u32::MAX where it cannot reach).
    fn hops_to(adj: &[Vec<(PortId, NodeId)>], to: NodeId) -> Vec<u32> {
        let mut dist = vec![u32::MAX; adj.len()];
        dist[to] = 0;
        let mut queue = VecDeque::from([to]);
        while let Some(u) = queue.pop_front() {
            for &(_, v) in &adj[u] {
                if dist[v] == u32::MAX {
                    dist[v] = dist[u] + 1;
                    queue.push_back(v);
                }
            }
        }
        dist
    }

    /// Links run both ways, so every host reaches every other if every leaf is reached from
    /// the first.
    fn check_connected(&self) -> Result<(), ConfigError> {
        let leaves = self.leaves();
        let Some(&first) = leaves.first() else {
            return Ok(());
        };
        let dist = Self::hops_to(&self.adjacency(), first);
        match leaves.iter().find(|&&leaf| dist[leaf] == u32::MAX) {
            None => Ok(()),
            Some(&other) => {
                let host_of = |sw: NodeId| self.host_switch.iter().position(|&x| x == sw).unwrap_or(0);
                Err(ConfigError::new(
                    "topology".into(),
                    format!(
                        "host h{} cannot reach host h{}: the network is not connected",
                        host_of(other),
                        host_of(first)
                    ),
                ))
            }
        }
    }

    /// The switch ports on any shortest path (in hops; what `net::routing` forwards on) from
    /// each `(src, dst)` host pair, in port order.
    pub fn path_ports(&self, pairs: &[(HostId, HostId)]) -> Vec<PortId> {
        let adj = self.adjacency();
        let mut hops: HashMap<NodeId, Vec<u32>> = HashMap::new();
        let mut taken = vec![false; self.ports.len()];
        let mut visited = vec![usize::MAX; self.node_names.len()];
        let mut frontier = Vec::new();
        for (k, &(src, dst)) in pairs.iter().enumerate() {
            let leaf = self.host_switch[dst];
            let dist = hops.entry(leaf).or_insert_with(|| Self::hops_to(&adj, leaf));
            frontier.push(self.host_switch[src]);
            while let Some(node) = frontier.pop() {
                if std::mem::replace(&mut visited[node], k) == k {
                    continue;
                }
                if node == leaf {
                    taken[self.host_down[dst]] = true;
                    continue;
                }
                // The next hops are the neighbours one hop nearer (`Routes::build`).
                for &(p, v) in &adj[node] {
                    if dist[v] < dist[node] {
                        taken[p] = true;
                        frontier.push(v);
                    }
                }
            }
        }
        PortId::all(self.ports.len()).filter(|&p| taken[p]).collect()
    }

    /// Indices of the ports named in `names` (scenario field `field`); a name with `*`
    /// matches every port it fits (`s0->*`), and must fit at least one.
    pub fn port_indices(&self, field: &str, names: &[String]) -> Result<Vec<PortId>, ConfigError> {
        let mut out: Vec<PortId> = Vec::new();
        let mut taken = vec![false; if names.is_empty() { 0 } else { self.ports.len() }];
        for (i, name) in names.iter().enumerate() {
            let found: Vec<PortId> = if name.contains('*') {
                PortId::all(self.ports.len()).filter(|&p| glob(name, &self.ports[p].name)).collect()
            } else {
                self.ports
                    .iter()
                    .position(|p| &p.name == name)
                    .map(PortId::at)
                    .into_iter()
                    .collect()
            };
            if found.is_empty() {
                let mut some: Vec<&str> = self.ports.iter().take(8).map(|p| p.name.as_str()).collect();
                if self.ports.len() > 8 {
                    some.push("...");
                }
                return Err(ConfigError::new(
                    format!("{field}[{i}]"),
                    format!("no port named {name:?} (ports are named node->peer: {})", some.join(", ")),
                ));
            }
            // In the order given, each port once.
            for p in found {
                if !std::mem::replace(&mut taken[p], true) {
                    out.push(p);
                }
            }
        }
        Ok(out)
    }
}

/// Whether `name` fits `pattern`, where `*` stands for any run of characters.
fn glob(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let mut parts: Vec<&str> = parts.collect();
    let last = parts.pop();
    for part in parts {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    match last {
        Some(last) => rest.len() >= last.len() && rest.ends_with(last),
        None => rest.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn glob_patterns() {
        assert!(glob("s0->*", "s0->h3"));
        assert!(!glob("s0->*", "s1->h3"));
        assert!(glob("*->h0", "tor->h0"));
        assert!(!glob("*->h0", "tor->h01"));
        assert!(glob("edge*->agg*", "edge0_1->agg0_0"));
        assert!(glob("*", "anything"));
        assert!(!glob("a*b*c", "acb"));
    }
}
