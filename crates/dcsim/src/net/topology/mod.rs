//! Builds hosts, switches, ports and routes from a scenario's topology.
//!
//! Every topology kind is first described as one graph (`shapes`), then built the same way:
//! node numbering puts hosts at `0..hosts` and switches after them; each link makes two
//! egress ports, `a->b` then `b->a`; routes come from `net::routing`.

pub mod shapes;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::aqm::{Aqm, Pi, Red, Threshold};
use super::buffer::SharedBuffer;
use super::port::Port;
use super::qdisc::{ClassQueue, Classes, Classify, Discipline, Drr, Scheduler};
use super::routing::{Routes, SwitchLink};
use crate::error::ConfigError;
use crate::ids::{HostId, NodeId, PortId};
use crate::scenario::{AqmConfig, BufferConfig, ClassifyConfig, LinkConfig, MarkAt, Scenario, SchedulerKind};
use crate::units::{Bytes, Rate, Time};
use shapes::Graph;

/// Random stream numbers, one per consumer, so adding one consumer never shifts another.
pub const RNG_STREAM_FLOW_START: u64 = 1;
/// Per-packet ECMP choices (`switch.ecmp = "per_packet"`).
pub const RNG_STREAM_SPRAY: u64 = 2;
pub const RNG_STREAM_PORT_BASE: u64 = 1_000;
pub const RNG_STREAM_WORKLOAD_BASE: u64 = 1_000_000;
/// Traffic generator g draws from stream `RNG_STREAM_TRAFFIC_BASE + g` (g < 2^20).
pub const RNG_STREAM_TRAFFIC_BASE: u64 = 1 << 22;
/// Ports past the 999,000th, which would reach the workloads' streams from the first base.
pub const RNG_STREAM_MANY_PORTS_BASE: u64 = 1 << 40;

pub fn rng_stream(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream);
    rng
}

fn port_rng(seed: u64, port: PortId) -> ChaCha8Rng {
    let port = port.0 as u64;
    if RNG_STREAM_PORT_BASE + port < RNG_STREAM_WORKLOAD_BASE {
        rng_stream(seed, RNG_STREAM_PORT_BASE + port)
    } else {
        rng_stream(seed, RNG_STREAM_MANY_PORTS_BASE + port)
    }
}

#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    pub is_switch: bool,
    /// The packet memory all the switch's ports share, if it has one.
    pub shared: Option<SharedBuffer>,
}

#[derive(Debug)]
pub struct Network {
    /// By `NodeId`: hosts first, then switches.
    pub nodes: Vec<Node>,
    /// By `PortId`.
    pub ports: Vec<Port>,
    /// The NIC port of each host (by `HostId`).
    pub host_port: Vec<PortId>,
    pub routes: Routes,
}

/// K by port speed when the scenario leaves it out: 20 packets up to 1 Gbps, 65 above
/// (DCTCP paper §3.5).
pub fn default_k_packets(rate: Rate) -> u32 {
    if rate.bps() <= 1_000_000_000 {
        20
    } else {
        65
    }
}

impl Network {
    pub fn build(s: &Scenario) -> Result<Network, ConfigError> {
        let graph = s.topology.graph()?;
        let hosts = graph.hosts;
        let mut b = Builder {
            s,
            net_nodes: Vec::with_capacity(hosts as usize + graph.switches.len()),
            ports: Vec::with_capacity(2 * graph.links.len()),
            host_port: vec![PortId(u32::MAX); hosts as usize],
            host_switch: vec![NodeId(u32::MAX); hosts as usize],
            host_down: vec![PortId(u32::MAX); hosts as usize],
            switch_links: Vec::new(),
        };
        for h in 0..hosts {
            b.net_nodes.push(Node {
                name: format!("h{h}"),
                is_switch: false,
                shared: None,
            });
        }
        let Graph { switches, links, .. } = graph;
        for name in switches {
            b.add_switch(name);
        }
        for l in &links {
            b.add_link(NodeId(l.a), NodeId(l.b), &l.config, l.parallel);
        }
        let switches = (b.net_nodes.len() as u32) - hosts;
        let routes = Routes::build(
            switches,
            b.host_switch,
            b.host_down,
            &b.switch_links,
            s.switch.ecmp,
            s.sim.seed,
            rng_stream(s.sim.seed, RNG_STREAM_SPRAY),
        )?;
        Ok(Network {
            nodes: b.net_nodes,
            ports: b.ports,
            host_port: b.host_port,
            routes,
        })
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

    /// The switch ports on any shortest path from each `(src, dst)` host pair, in port order.
    pub fn path_ports(&self, pairs: &[(HostId, HostId)]) -> Vec<PortId> {
        // Per node, the last pair whose walk visited it; per port, whether it is taken.
        let mut visited = vec![usize::MAX; self.nodes.len()];
        let mut taken = vec![false; self.ports.len()];
        let mut frontier = Vec::new();
        for (k, &(src, dst)) in pairs.iter().enumerate() {
            frontier.push(self.ports[self.host_port[src]].peer);
            while let Some(node) = frontier.pop() {
                if std::mem::replace(&mut visited[node], k) == k {
                    continue;
                }
                for &p in self.routes.next_hops(node, dst) {
                    taken[p] = true;
                    let peer = self.ports[p].peer;
                    if self.nodes[peer].is_switch {
                        frontier.push(peer);
                    }
                }
            }
        }
        PortId::all(self.ports.len()).filter(|&p| taken[p]).collect()
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

struct Builder<'a> {
    s: &'a Scenario,
    net_nodes: Vec<Node>,
    ports: Vec<Port>,
    host_port: Vec<PortId>,
    host_switch: Vec<NodeId>,
    host_down: Vec<PortId>,
    switch_links: Vec<SwitchLink>,
}

impl Builder<'_> {
    fn add_switch(&mut self, name: String) {
        let shared = match self.s.switch.buffer {
            BufferConfig::PerPort { .. } => None,
            BufferConfig::Shared { total_bytes, alpha, .. } => Some(SharedBuffer::new(Bytes::new(total_bytes), alpha)),
            BufferConfig::Preset { name } => {
                let (total, alpha) = name.shared_buffer();
                Some(SharedBuffer::new(Bytes::new(total), alpha))
            }
        };
        self.net_nodes.push(Node {
            name,
            is_switch: true,
            shared,
        });
    }

    fn is_host(&self, node: NodeId) -> bool {
        !self.net_nodes[node].is_switch
    }

    /// The two ports of a link: `a->b`, then `b->a`.
    fn add_link(&mut self, a: NodeId, b: NodeId, l: &LinkConfig, parallel: u32) {
        for (from, to) in [(a, b), (b, a)] {
            let mut name = format!("{}->{}", self.net_nodes[from].name, self.net_nodes[to].name);
            if parallel > 0 {
                name.push_str(&format!("#{parallel}"));
            }
            let id = PortId::at(self.ports.len());
            if self.is_host(from) {
                self.host_port(HostId(from.0), to, l, name);
            } else {
                self.switch_port(from, to, l, name);
                if self.is_host(to) {
                    self.host_switch[to] = from;
                    self.host_down[to] = id;
                } else {
                    self.switch_links.push(SwitchLink { from, port: id, to });
                }
            }
        }
    }

    fn link_params(l: &LinkConfig) -> (Rate, Time, Bytes) {
        (
            Rate::from_gbps(l.rate_gbps),
            Time::from_us_f64(l.delay_us),
            Bytes::from(l.framing_bytes),
        )
    }

    fn switch_port(&mut self, node: NodeId, peer: NodeId, l: &LinkConfig, name: String) {
        let (rate, delay, framing) = Self::link_params(l);
        let id = PortId::at(self.ports.len());
        let (limit_packets, limit_bytes) = match &self.s.switch.buffer {
            BufferConfig::PerPort {
                limit_packets,
                limit_bytes,
            } => (limit_packets.unwrap_or(u32::MAX), limit_bytes.unwrap_or(u64::MAX)),
            // The shared memory's dynamic threshold is checked by the simulation.
            BufferConfig::Shared { limit_packets, .. } => (limit_packets.unwrap_or(u32::MAX), u64::MAX),
            BufferConfig::Preset { .. } => (u32::MAX, u64::MAX),
        };
        // The link's own buffer, if it gives one, replaces the switch-wide per-port limit.
        let limit_packets = l.buffer_packets.unwrap_or(limit_packets);
        let limit_bytes = Bytes::new(l.buffer_bytes.unwrap_or(limit_bytes));
        let memory_slot = self.net_nodes[node].shared.as_mut().map(|shared| shared.add_port(id));
        let mut port = Port::new(
            name,
            node,
            peer,
            true,
            rate,
            delay,
            framing,
            limit_packets,
            limit_bytes,
            self.aqm(&self.s.switch.aqm, rate, framing, id, 0),
        );
        port.memory_slot = memory_slot;
        let port = match self.discipline(rate, framing, id) {
            Some(d) => port.with_discipline(d),
            None => port,
        };
        self.ports.push(port);
    }

    /// The AQM `cfg` for switch port `id` (class `class`), its random stream drawn from the
    /// port's (one far-apart block per class).
    fn aqm(&self, cfg: &AqmConfig, rate: Rate, framing: Bytes, id: PortId, class: u8) -> Aqm {
        let rng = || {
            let mut rng = port_rng(self.s.sim.seed, id);
            rng.set_word_pos((class as u128) << 64);
            rng
        };
        match cfg {
            AqmConfig::DropTail => Aqm::DropTail,
            AqmConfig::Threshold {
                k_packets,
                nonect,
                count_in_service,
                at,
            } => Aqm::Threshold(Threshold {
                k_packets: k_packets.unwrap_or_else(|| default_k_packets(rate)),
                nonect: *nonect,
                count_in_service: *count_in_service,
                at_dequeue: *at == MarkAt::Dequeue,
            }),
            AqmConfig::Red {
                min_th,
                max_th,
                max_p,
                weight_log2,
                ecn,
                gentle,
            } => {
                let typical = rate.tx_time(Bytes::from(self.s.tcp.packet_bytes()) + framing);
                Aqm::Red(Box::new(Red::new(
                    *min_th,
                    *max_th,
                    *max_p,
                    *weight_log2,
                    *ecn,
                    *gentle,
                    typical,
                    rng(),
                )))
            }
            AqmConfig::Pi {
                a,
                b,
                q_ref_packets,
                sample_hz,
                ecn,
            } => {
                let period = Time::from_secs_f64(1.0 / sample_hz);
                Aqm::Pi(Box::new(Pi::new(*a, *b, *q_ref_packets, period, *ecn, rng())))
            }
        }
    }

    /// The queue discipline of switch port `id`: its class queues (`switch.classes`), or one
    /// queue when the port's AQM acts at dequeue; None for the FIFO fast path.
    fn discipline(&self, rate: Rate, framing: Bytes, id: PortId) -> Option<Discipline> {
        let sw = &self.s.switch;
        let Some(c) = &sw.classes else {
            let aqm = self.aqm(&sw.aqm, rate, framing, id, 0);
            if !aqm.acts_at_dequeue() {
                return None;
            }
            let queue = ClassQueue::new(u32::MAX, Bytes::MAX, None, aqm);
            return Some(Discipline::Classes(Classes::new(
                Classify::Flow,
                Scheduler::StrictPriority,
                vec![queue],
            )));
        };
        let queues = c
            .queues
            .iter()
            .enumerate()
            .map(|(i, q)| {
                let aqm = self.aqm(q.aqm.as_ref().unwrap_or(&sw.aqm), rate, framing, id, i as u8);
                ClassQueue::new(
                    q.limit_packets.unwrap_or(u32::MAX),
                    Bytes::new(q.limit_bytes.unwrap_or(u64::MAX)),
                    q.alpha,
                    aqm,
                )
            })
            .collect();
        let quantum = c.quantum_bytes.unwrap_or(self.s.tcp.packet_bytes() as u64);
        let scheduler = match c.scheduler {
            SchedulerKind::StrictPriority => Scheduler::StrictPriority,
            SchedulerKind::Drr => Scheduler::Drr(Drr::new(c.queues.iter().map(|q| q.weight as u64 * quantum).collect())),
        };
        let classify = match c.classify {
            ClassifyConfig::Flow => Classify::Flow,
            ClassifyConfig::Ecn { ect, not_ect } => Classify::Ecn { ect, not_ect },
            ClassifyConfig::PacketType { syn, ack, data } => Classify::PacketType { syn, ack, data },
        };
        Some(Discipline::Classes(Classes::new(classify, scheduler, queues)))
    }

    /// Host `h`'s NIC, onto the link to `peer`.
    fn host_port(&mut self, h: HostId, peer: NodeId, l: &LinkConfig, name: String) {
        let (rate, delay, framing) = Self::link_params(l);
        let nic = PortId::at(self.ports.len());
        let limit = self.s.host.nic_queue_packets;
        let jitter = Time::from_us_f64(self.s.host.tx_jitter_us);
        let mut rng = port_rng(self.s.sim.seed, nic);
        // IEEE 802.3: each NIC's transmit clock is within ±100 ppm of nominal (its own).
        let ppm = self.s.host.clock_ppm;
        let offset = if ppm > 0.0 { rng.gen_range(-ppm..=ppm) * 1e-6 } else { 0.0 };
        let rate = Rate::from_bps(((rate.bps() as f64) * (1.0 + offset)).round() as u64);
        let port = Port::new(name, h.node(), peer, false, rate, delay, framing, limit, Bytes::MAX, Aqm::DropTail);
        self.ports.push(port.with_jitter(jitter, rng));
        self.host_port[h] = nic;
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
