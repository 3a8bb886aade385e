//! Builds hosts, switches, ports and static routes from a scenario's topology.
//!
//! Node numbering: hosts are nodes `0..hosts`, switches follow. Every node has a route table
//! indexed by destination host giving its egress port.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::aqm::{Aqm, Red, Threshold};
use super::buffer::SharedBuffer;
use super::port::Port;
use crate::error::ConfigError;
use crate::scenario::{AqmConfig, BufferConfig, LinkConfig, Scenario, Topology};
use crate::units::{ps_from_us, Rate};

/// Random stream numbers, one per consumer, so adding one consumer never shifts another.
pub const RNG_STREAM_FLOW_START: u64 = 1;
pub const RNG_STREAM_PORT_BASE: u64 = 1_000;
pub const RNG_STREAM_WORKLOAD_BASE: u64 = 1_000_000;

fn port_rng(seed: u64, port: u32) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(RNG_STREAM_PORT_BASE + port as u64);
    rng
}

#[derive(Debug)]
pub struct Node {
    pub name: String,
    pub is_switch: bool,
    /// Egress port index for each destination host.
    pub route: Vec<u32>,
    /// The packet memory all the switch's ports share, if it has one.
    pub shared: Option<SharedBuffer>,
}

#[derive(Debug)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// The NIC port of each host.
    pub host_port: Vec<u32>,
}

/// K by port speed when the scenario leaves it out: 20 packets up to 1 Gbps, 65 above
/// (DCTCP paper §3.5).
pub fn default_k_packets(rate: Rate) -> u32 {
    if rate.bps <= 1_000_000_000 {
        20
    } else {
        65
    }
}

impl Network {
    pub fn build(s: &Scenario) -> Result<Network, ConfigError> {
        let hosts = s.host_count();
        let mut b = Builder {
            s,
            net: Network {
                nodes: Vec::new(),
                ports: Vec::new(),
                host_port: vec![u32::MAX; hosts as usize],
            },
        };
        for h in 0..hosts {
            b.net.nodes.push(Node {
                name: format!("h{h}"),
                is_switch: false,
                route: vec![u32::MAX; hosts as usize],
                shared: None,
            });
        }
        match &s.topology {
            Topology::Star { hosts, link, host_links } => {
                let sw = b.add_switch("s0");
                for h in 0..*hosts {
                    let l = host_links.get(h as usize).unwrap_or(link);
                    b.attach_host(h, sw, l);
                }
            }
            Topology::Dumbbell {
                left,
                right,
                host_link,
                core_link,
            } => {
                let s0 = b.add_switch("s0");
                let s1 = b.add_switch("s1");
                for h in 0..*left {
                    b.attach_host(h, s0, host_link);
                }
                for h in *left..(*left + *right) {
                    b.attach_host(h, s1, host_link);
                }
                let (p01, p10) = b.connect_switches(s0, s1, core_link);
                for h in 0..hosts {
                    let left_side = h < *left;
                    if left_side {
                        b.net.nodes[s1 as usize].route[h as usize] = p10;
                    } else {
                        b.net.nodes[s0 as usize].route[h as usize] = p01;
                    }
                }
            }
        }
        Ok(b.net)
    }
}

struct Builder<'a> {
    s: &'a Scenario,
    net: Network,
}

impl Builder<'_> {
    fn add_switch(&mut self, name: &str) -> u32 {
        let hosts = self.net.host_port.len();
        let shared = match self.s.switch.buffer {
            BufferConfig::PerPort { .. } => None,
            BufferConfig::Shared { total_bytes, alpha, .. } => Some(SharedBuffer::new(total_bytes, alpha)),
            BufferConfig::Preset { name } => {
                let (total, alpha) = name.shared_buffer();
                Some(SharedBuffer::new(total, alpha))
            }
        };
        self.net.nodes.push(Node {
            name: name.to_string(),
            is_switch: true,
            route: vec![u32::MAX; hosts],
            shared,
        });
        (self.net.nodes.len() - 1) as u32
    }

    fn link_params(l: &LinkConfig) -> (Rate, u64, u32) {
        (Rate::from_gbps(l.rate_gbps), ps_from_us(l.delay_us), l.framing_bytes)
    }

    fn switch_port(&mut self, node: u32, peer: u32, l: &LinkConfig) -> u32 {
        let (rate, delay, framing) = Self::link_params(l);
        let id = self.net.ports.len() as u32;
        let (limit_packets, limit_bytes) = match &self.s.switch.buffer {
            BufferConfig::PerPort {
                limit_packets,
                limit_bytes,
            } => (limit_packets.unwrap_or(u32::MAX), limit_bytes.unwrap_or(u64::MAX)),
            // The shared memory's dynamic threshold is checked by the simulation.
            BufferConfig::Shared { limit_packets, .. } => (limit_packets.unwrap_or(u32::MAX), u64::MAX),
            BufferConfig::Preset { .. } => (u32::MAX, u64::MAX),
        };
        if let Some(shared) = &mut self.net.nodes[node as usize].shared {
            shared.ports.push(id);
        }
        let aqm = match &self.s.switch.aqm {
            AqmConfig::DropTail => Aqm::DropTail,
            AqmConfig::Threshold {
                k_packets,
                nonect,
                count_in_service,
            } => Aqm::Threshold(Threshold {
                k_packets: k_packets.unwrap_or_else(|| default_k_packets(rate)),
                nonect: *nonect,
                count_in_service: *count_in_service,
            }),
            AqmConfig::Red {
                min_th,
                max_th,
                max_p,
                weight_log2,
                ecn,
                gentle,
            } => {
                let rng = port_rng(self.s.sim.seed, id);
                let typical = rate.tx_time((self.s.tcp.mss + self.s.tcp.header_bytes + framing) as u64);
                Aqm::Red(Box::new(Red::new(
                    *min_th,
                    *max_th,
                    *max_p,
                    *weight_log2,
                    *ecn,
                    *gentle,
                    typical,
                    rng,
                )))
            }
        };
        let name = format!("{}->{}", self.net.nodes[node as usize].name, self.net.nodes[peer as usize].name);
        self.net.ports.push(Port::new(
            name,
            node,
            peer,
            true,
            rate,
            delay,
            framing,
            limit_packets,
            limit_bytes,
            aqm,
        ));
        id
    }

    fn attach_host(&mut self, h: u32, sw: u32, l: &LinkConfig) {
        let (rate, delay, framing) = Self::link_params(l);
        let nic = self.net.ports.len() as u32;
        let name = format!("h{h}->{}", self.net.nodes[sw as usize].name);
        let limit = self.s.host.nic_queue_packets;
        let jitter = ps_from_us(self.s.host.tx_jitter_us);
        let mut rng = port_rng(self.s.sim.seed, nic);
        // IEEE 802.3: each NIC's transmit clock is within ±100 ppm of nominal (its own).
        let ppm = self.s.host.clock_ppm;
        let offset = if ppm > 0.0 { rng.gen_range(-ppm..=ppm) * 1e-6 } else { 0.0 };
        let rate = Rate {
            bps: ((rate.bps as f64) * (1.0 + offset)).round() as u64,
        };
        let port = Port::new(name, h, sw, false, rate, delay, framing, limit, u64::MAX, Aqm::DropTail);
        self.net.ports.push(port.with_jitter(jitter, rng));
        self.net.host_port[h as usize] = nic;
        let hosts = self.net.host_port.len();
        self.net.nodes[h as usize].route = vec![nic; hosts];
        let down = self.switch_port(sw, h, l);
        self.net.nodes[sw as usize].route[h as usize] = down;
    }

    fn connect_switches(&mut self, a: u32, b: u32, l: &LinkConfig) -> (u32, u32) {
        (self.switch_port(a, b, l), self.switch_port(b, a, l))
    }
}
