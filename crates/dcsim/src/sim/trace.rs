//! Packet traces of chosen ports and flows (`measure.trace_ports`, `measure.trace_flows`,
//! and the connections of `measure.trace_queries`): one record per packet event, the data
//! behind `dcsim run --trace pcap`.
//!
//! - A traced port records each packet as it leaves the port (`Tx`, at the end of its
//!   transmission, with any CE mark the port set) and each packet the port refuses (`Drop`).
//! - A traced flow is seen from its sender's host, as a capture there would: its packets
//!   leaving the host's NIC (`Tx`) and the peer's packets arriving at the host (`Rx`). A
//!   query connection's sender is its server.

use crate::ids::{ConnId, HostId, PortId};
use crate::net::packet::{Ecn, Header, Packet, UDP};
use crate::net::port::Port;
use crate::results::PacketTrace;
use crate::units::Time;

pub const TX: u8 = 0;
pub const RX: u8 = 1;
pub const DROP: u8 = 2;

/// Which capture a record belongs to: a port's, or a flow's (at its sender's host). A packet
/// can be in both, as two records.
pub const PORT_VIEW: u8 = 0;
pub const FLOW_VIEW: u8 = 1;

#[derive(Debug, Default, Clone)]
pub struct Tracer {
    /// Anything traced at all: the one test the untraced hot path pays.
    pub on: bool,
    /// Per port: traced.
    ports: Vec<bool>,
    /// Per connection: the host whose view is traced (its data sender), if traced.
    conn_host: Vec<Option<HostId>>,
    pub records: PacketTrace,
}

impl Tracer {
    /// `ports`: indices of traced ports; `conns`: (connection, its sender's host).
    pub fn new(n_ports: usize, ports: &[PortId], n_conns: usize, conns: &[(ConnId, HostId)]) -> Self {
        let mut t = Self {
            on: !ports.is_empty() || !conns.is_empty(),
            ports: vec![false; n_ports],
            conn_host: vec![None; n_conns],
            records: PacketTrace::default(),
        };
        for &p in ports {
            t.ports[p] = true;
        }
        for &(c, h) in conns {
            t.conn_host[c] = Some(h);
        }
        t
    }

    /// Packet `pkt` (header `h`) finished crossing port `p`'s link at `now`.
    pub fn on_link_arrival(&mut self, now: Time, p: PortId, port: &Port, pkt: &Packet, h: &Header) {
        let left = now - port.delay;
        if self.ports[p] {
            self.push(PORT_VIEW, left, p, TX, pkt, h);
        }
        // Connections opened during the run (one-shot queries) are never traced flows; UDP
        // packets (whose `conn` is their source's index) only appear in port traces.
        if pkt.has(UDP) {
            return;
        }
        if let Some(&Some(host)) = self.conn_host.get(pkt.conn as usize) {
            if !port.is_switch && port.node == host.node() {
                self.push(FLOW_VIEW, left, p, TX, pkt, h);
            } else if port.peer == host.node() {
                self.push(FLOW_VIEW, now, p, RX, pkt, h);
            }
        }
    }

    /// Port `p` refused `pkt` (header `h`) at `now`.
    pub fn on_drop(&mut self, now: Time, p: PortId, pkt: &Packet, h: &Header) {
        if self.ports[p] {
            self.push(PORT_VIEW, now, p, DROP, pkt, h);
        }
    }

    fn push(&mut self, view: u8, t: Time, port: PortId, event: u8, pkt: &Packet, h: &Header) {
        let r = &mut self.records;
        r.view.push(view);
        r.t_s.push(t.as_secs_f64());
        r.port.push(port.0);
        r.event.push(event);
        r.flow.push(pkt.conn);
        r.from_end.push(pkt.from_end);
        r.src.push(pkt.src);
        r.dst.push(pkt.dst);
        r.flags.push(pkt.flags);
        // The IP ECN field's codepoints (RFC 3168 §5): ECT is ECT(0).
        r.ecn.push(match pkt.ecn {
            Ecn::NotEct => 0,
            Ecn::Ect => 2,
            Ecn::Ce => 3,
        });
        r.seq.push(h.seq);
        r.ack.push(h.ack);
        r.rwnd.push(h.rwnd as u64);
        r.len.push(pkt.len as u32);
        r.size.push(pkt.size as u32);
        let mut sack = [0u64; 6];
        for (i, &(start, end)) in h.sack.iter().take(h.sack_blocks as usize).enumerate() {
            sack[2 * i] = h.ack + start as u64;
            sack[2 * i + 1] = h.ack + end as u64;
        }
        r.sack_blocks.push(h.sack_blocks);
        r.sack.push(sack);
    }
}
