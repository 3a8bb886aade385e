//! Builds hosts, switches, ports and routes from a scenario's topology.
//!
//! Every topology kind is first described as one graph (`shapes`), then laid out the same
//! way (`layout`): node numbering puts hosts at `0..hosts` and switches after them; each link
//! makes two egress ports, `a->b` then `b->a`. A run builds its ports and routes (from
//! `net::routing`) on that layout; checking a scenario needs the layout alone.

pub mod layout;
pub mod shapes;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::aqm::{Aqm, Pi, Red, Threshold};
use super::buffer::SharedBuffer;
use super::port::Port;
use super::qdisc::{ClassQueue, Classes, Classify, Discipline, Drr, Scheduler};
use super::routing::Routes;
use crate::error::ConfigError;
use crate::ids::{HostId, NodeId, PortId};
use crate::scenario::{AqmConfig, BufferConfig, ClassifyConfig, LinkConfig, MarkAt, Scenario, SchedulerKind};
use crate::units::{Bytes, Rate, Time};
use layout::{nic_clock, Layout};

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
/// Partition q of a parallel run sprays packets (per-packet ECMP) from stream
/// `RNG_STREAM_PARTITION_SPRAY_BASE + q`: its own, as its switches are its own.
pub const RNG_STREAM_PARTITION_SPRAY_BASE: u64 = 1 << 42;

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
    /// The network of `s`: its layout, then its ports and routes.
    pub fn build(s: &Scenario) -> Result<Network, ConfigError> {
        Ok(Self::from_layout(s, &Layout::of(s)?))
    }

    /// The ports and routes of `s` on its layout `l` (`Layout::of(s)`).
    pub fn from_layout(s: &Scenario, l: &Layout) -> Network {
        let mut b = Builder {
            s,
            nodes: Vec::with_capacity(l.node_names.len()),
            ports: Vec::with_capacity(l.ports.len()),
        };
        for (n, name) in l.node_names.iter().enumerate() {
            b.add_node(name.clone(), l.is_switch(NodeId::at(n)));
        }
        for (p, ends) in l.ports.iter().enumerate() {
            let link = l.link(PortId::at(p));
            if l.is_switch(ends.node) {
                b.switch_port(ends.node, ends.peer, link, ends.name.clone());
            } else {
                b.host_port(HostId(ends.node.0), ends.peer, link, ends.name.clone());
            }
        }
        let routes = Routes::build(
            l.node_names.len() as u32 - l.hosts,
            l.host_switch.clone(),
            l.host_down.clone(),
            &l.switch_links,
            s.switch.ecmp,
            s.sim.seed,
            rng_stream(s.sim.seed, RNG_STREAM_SPRAY),
        );
        Network {
            nodes: b.nodes,
            ports: b.ports,
            host_port: l.host_port.clone(),
            routes,
        }
    }
}

struct Builder<'a> {
    s: &'a Scenario,
    nodes: Vec<Node>,
    ports: Vec<Port>,
}

impl Builder<'_> {
    fn add_node(&mut self, name: String, is_switch: bool) {
        let shared = match self.s.switch.buffer {
            _ if !is_switch => None,
            BufferConfig::PerPort { .. } => None,
            BufferConfig::Shared { total_bytes, alpha, .. } => Some(SharedBuffer::new(Bytes::new(total_bytes), alpha)),
            BufferConfig::Preset { name } => {
                let (total, alpha) = name.shared_buffer();
                Some(SharedBuffer::new(Bytes::new(total), alpha))
            }
        };
        self.nodes.push(Node { name, is_switch, shared });
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
        let memory_slot = self.nodes[node].shared.as_mut().map(|shared| shared.add_port(id));
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
        let (rate, rng) = nic_clock(self.s.sim.seed, nic, rate, self.s.host.clock_ppm);
        let port = Port::new(name, h.node(), peer, false, rate, delay, framing, limit, Bytes::MAX, Aqm::DropTail);
        self.ports.push(port.with_jitter(jitter, rng));
    }
}
