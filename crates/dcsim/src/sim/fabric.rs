//! The fabric: the nodes, their ports with links and queues, switches' shared memories,
//! routes, the transport headers of the packets inside, and the packet traces. It moves
//! packets from port to port; what reaches a host goes back to the simulation, and so does
//! what a port refused or dropped (`Fabric::take_dropped`), for its sender to hear.

use super::calendar::Calendar;
use super::trace::Tracer;
use super::Event;
use crate::ids::{HostId, NodeId, PortId};
use crate::net::buffer::Refusal;
use crate::net::packet::{HeaderPool, Packet, Segment};
use crate::net::port::Port;
use crate::net::routing::Routes;
use crate::net::topology::{Network, Node};
use crate::units::{Bytes, Time};

#[derive(Clone)]
pub(super) struct Fabric {
    pub(super) nodes: Vec<Node>,
    pub(super) ports: Vec<Port>,
    /// Each host's NIC port.
    pub(super) host_port: Vec<PortId>,
    pub(super) routes: Routes,
    /// The transport headers of the packets in the network.
    pub(super) headers: HeaderPool,
    /// The start of the measurement window, for the ports' counters.
    warmup: Time,
    /// Packets refused or dropped during the current operation whose senders have not heard
    /// yet, oldest first (reused: no allocation per event).
    dropped: Vec<Packet>,
    /// Packets that crossed a link.
    pub(super) hops: u64,
    /// The packet traces of the traced ports and flows (`measure.trace_*`), recorded as
    /// packets cross links and are dropped.
    pub(super) tracer: Tracer,
    /// In a partition of a parallel run: the links that leave it, and the packets crossing
    /// them (None in a whole network: its fast path never looks further).
    pub(super) cut: Option<Box<Cut>>,
}

/// The partition a port's peer is in, when it is this one.
pub(super) const HERE: u16 = u16::MAX;

/// A partition's side of the cut: its ports whose peers other partitions simulate, the
/// packets admitted to them (sent at the end of each window), and the packets from other
/// partitions waiting for their arrival.
#[derive(Clone)]
pub(super) struct Cut {
    /// Per port: its peer's partition, or `HERE`.
    pub(super) peer_part: Vec<u16>,
    /// Per partition: the packets on their way there, in the order they were admitted.
    pub(super) outbox: Vec<Vec<Crossing>>,
    /// Packets from other partitions, by the slot their `Inbound` event names.
    inbox: Vec<Crossing>,
    free: Vec<u32>,
    /// Packets that left through the cut, and that came in through it and arrived.
    pub(super) crossings: u64,
    received: u64,
}

/// A packet crossing the cut: when it reaches the peer of `port`, and all of it (its header
/// leaves the sender's pool and enters the receiver's).
#[derive(Clone, Copy, Debug)]
pub(super) struct Crossing {
    pub(super) time: Time,
    pub(super) port: PortId,
    pub(super) seg: Segment,
}

impl Cut {
    pub(super) fn new(peer_part: Vec<u16>, partitions: usize) -> Self {
        Cut {
            peer_part,
            outbox: vec![Vec::new(); partitions],
            inbox: Vec::new(),
            free: Vec::new(),
            crossings: 0,
            received: 0,
        }
    }

    /// The ports whose peers other partitions simulate.
    fn crossing_ports(&self) -> impl Iterator<Item = PortId> + '_ {
        self.peer_part
            .iter()
            .enumerate()
            .filter(|&(_, &to)| to != HERE)
            .map(|(p, _)| PortId::at(p))
    }

    /// Puts packets from other partitions in the calendar, each as an `Inbound` event at its
    /// arrival, in the order given.
    pub(super) fn receive(&mut self, packets: impl Iterator<Item = Crossing>, cal: &mut Calendar<Event>) {
        for c in packets {
            let slot = match self.free.pop() {
                Some(s) => {
                    self.inbox[s as usize] = c;
                    s
                }
                None => {
                    self.inbox.push(c);
                    u32::try_from(self.inbox.len() - 1).expect("fewer than 2^32 packets crossing at once")
                }
            };
            cal.schedule(c.time, Event::Inbound(slot));
        }
    }
}

impl Fabric {
    pub(super) fn new(net: Network, warmup: Time, tracer: Tracer) -> Self {
        Fabric {
            nodes: net.nodes,
            ports: net.ports,
            host_port: net.host_port,
            routes: net.routes,
            headers: HeaderPool::default(),
            warmup,
            dropped: Vec::new(),
            hops: 0,
            tracer,
            cut: None,
        }
    }

    /// Host `h`'s NIC port.
    #[inline]
    pub(super) fn nic(&self, h: HostId) -> &Port {
        &self.ports[self.host_port[h]]
    }

    /// Packets host `h`'s NIC queue can take now.
    #[inline]
    pub(super) fn nic_free_slots(&mut self, h: HostId, now: Time) -> usize {
        self.ports[self.host_port[h]].free_slots(now, self.warmup)
    }

    /// A host sends a packet: its header joins the network and it is offered to the host's
    /// NIC; its departure time if the NIC took it.
    #[inline(always)]
    pub(super) fn send(&mut self, now: Time, host: HostId, seg: &Segment, cal: &mut Calendar<Event>) -> Option<Time> {
        let pkt = self.headers.send(seg);
        self.enqueue(now, self.host_port[host], pkt, cal)
    }

    /// Whether packets were refused or dropped since the last `take_dropped`.
    #[inline(always)]
    pub(super) fn has_dropped(&self) -> bool {
        !self.dropped.is_empty()
    }

    /// The packets refused or dropped since the last call, oldest first: `f` is told each.
    pub(super) fn take_dropped(&mut self, mut f: impl FnMut(&Packet)) {
        let mut dropped = std::mem::take(&mut self.dropped);
        dropped.iter().for_each(&mut f);
        dropped.clear();
        self.dropped = dropped;
    }

    /// Offers a packet to FIFO port `p` (a host NIC, or a switch port without a queue
    /// discipline); its departure time if admitted.
    #[inline]
    fn enqueue(&mut self, now: Time, p: PortId, pkt: Packet, cal: &mut Calendar<Event>) -> Option<Time> {
        let ws = self.warmup;
        let size = pkt.bytes();
        if !self.admit_to_memory(now, p, &pkt, |port| port.occupancy_bytes(now, ws)) {
            return None;
        }
        let Ok((departure, next_arrival)) = self.ports[p].offer(now, pkt, ws) else {
            self.refused(now, p, &pkt);
            return None;
        };
        let port = &self.ports[p];
        if let Some(slot) = port.memory_slot {
            self.nodes[port.node]
                .shared
                .as_mut()
                .expect("a port with a memory slot has a shared memory")
                .hold(slot, size, departure);
        }
        if self.cut.as_ref().is_some_and(|c| c.peer_part[p] != HERE) {
            self.cross(now, p, departure);
            return Some(departure);
        }
        if let Some(arrive) = next_arrival {
            cal.schedule(arrive, Event::LinkArrive(p));
        }
        Some(departure)
    }

    /// The packet port `p` just admitted leaves this partition: it is told to the peer's
    /// (its arrival is fixed now, a FIFO link's schedule being fixed at admission). Its slot
    /// stays on the port, for the queue's accounting, until it has arrived. Out of line:
    /// a whole network never comes here.
    #[inline(never)]
    fn cross(&mut self, now: Time, p: PortId, departure: Time) {
        // The packets that reached the peer before this one leave the wire (they left the
        // buffer before it came, so the queue this packet met is the same).
        self.ports[p].forget_arrived(now, self.warmup);
        let pkt = self.ports[p].last_admitted();
        let seg = self.headers.receive(&pkt);
        let time = departure + self.ports[p].delay;
        let cut = self.cut.as_mut().expect("a crossing port is on a cut");
        cut.outbox[cut.peer_part[p] as usize].push(Crossing { time, port: p, seg });
        cut.crossings += 1;
    }

    /// A packet from another partition reaches the peer of its port (the `Inbound` event of
    /// `slot`): as `link_arrive`, without the port, whose partition took it off its wire.
    pub(super) fn inbound(&mut self, now: Time, slot: u32, cal: &mut Calendar<Event>) -> Option<(HostId, Segment)> {
        let cut = self.cut.as_mut().expect("inbound packets come across a cut");
        let c = cut.inbox[slot as usize];
        cut.free.push(slot);
        cut.received += 1;
        self.hops += 1;
        let node = self.ports[c.port].peer;
        if self.nodes[node].is_switch {
            let pkt = self.headers.send(&c.seg);
            self.forward(now, node, pkt, cal);
            return None;
        }
        Some((HostId(node.0), c.seg))
    }

    /// The packets on the ports of this partition's side of the cut that reached their peers
    /// by `end` leave their wires (the end of a parallel run).
    pub(super) fn settle_cut(&mut self, end: Time) {
        let Some(cut) = self.cut.as_ref() else { return };
        for p in cut.crossing_ports() {
            self.ports[p].forget_arrived(end, self.warmup);
        }
    }

    /// The switch's shared memory, if it has one, admits `pkt` to the queue of port `p`
    /// holding `queue_bytes(port)` (DCTCP paper §2.3.1); a refusal is counted on the port and
    /// the packet accounted.
    #[inline(always)]
    fn admit_to_memory(&mut self, now: Time, p: PortId, pkt: &Packet, queue_bytes: impl FnOnce(&mut Port) -> Bytes) -> bool {
        let port = &self.ports[p];
        if port.memory_slot.is_none() {
            return true;
        }
        let shared = self.nodes[port.node]
            .shared
            .as_mut()
            .expect("a port with a memory slot has a shared memory");
        let used = shared.used_at(now, &mut self.ports, self.warmup);
        let held = queue_bytes(&mut self.ports[p]);
        match shared.admit(used, held, pkt.bytes()) {
            Ok(()) => true,
            Err(refusal) => {
                self.ports[p].refuse(refusal == Refusal::PoolFull);
                self.refused(now, p, pkt);
                false
            }
        }
    }

    /// `enqueue` on a port with a queue discipline: the packet waits in its class queue
    /// (holding the shared memory until it leaves), and starts at once if the link is idle.
    #[cold]
    #[inline(never)]
    fn enqueue_to_discipline(&mut self, now: Time, p: PortId, pkt: Packet, cal: &mut Calendar<Event>) {
        let ws = self.warmup;
        if self.ports[p].tx_due(now) {
            self.tx_done(now, p, cal); // a tie: the transmission ending now goes first
        }
        if !self.admit_to_memory(now, p, &pkt, |port| port.threshold_bytes(&pkt)) {
            return;
        }
        let Ok((tx_done, arrive)) = self.ports[p].offer_to_discipline(now, pkt, ws) else {
            self.refused(now, p, &pkt);
            return;
        };
        let node = self.ports[p].node;
        if let Some(shared) = &mut self.nodes[node].shared {
            shared.hold_until_released(pkt.bytes());
        }
        if let Some(t) = arrive {
            cal.schedule(t, Event::LinkArrive(p));
        }
        self.after_discipline(now, p, tx_done, cal);
    }

    /// A port with a queue discipline acted: its next transmission end goes in the calendar,
    /// and the packets its AQM dropped at dequeue leave the switch's memory and their
    /// connections' flight. Out of line: the FIFO fast path never comes here.
    #[cold]
    #[inline(never)]
    fn after_discipline(&mut self, now: Time, p: PortId, tx_done: Option<Time>, cal: &mut Calendar<Event>) {
        if let Some(t) = tx_done {
            cal.schedule(t, Event::TxDone(p));
        }
        while let Some(pkt) = self.ports[p].pop_dequeue_drop() {
            let node = self.ports[p].node;
            if let Some(shared) = &mut self.nodes[node].shared {
                shared.release(pkt.bytes());
            }
            self.refused(now, p, &pkt);
        }
    }

    /// A port with a queue discipline finished sending a packet: it leaves the buffer (and the
    /// switch's memory) and the next one starts.
    pub(super) fn tx_done(&mut self, now: Time, p: PortId, cal: &mut Calendar<Event>) {
        if !self.ports[p].tx_due(now) {
            return; // completed already, by an arrival at the same instant
        }
        let (size, tx_done, arrive) = self.ports[p].tx_done(now, self.warmup);
        let node = self.ports[p].node;
        if let Some(shared) = &mut self.nodes[node].shared {
            shared.release(size);
        }
        if let Some(t) = arrive {
            cal.schedule(t, Event::LinkArrive(p));
        }
        self.after_discipline(now, p, tx_done, cal);
    }

    /// Port `p` refused `pkt`: counted on the port, recorded if the port is traced, its header
    /// freed, and its sender told later (`take_dropped`).
    #[inline]
    fn refused(&mut self, now: Time, p: PortId, pkt: &Packet) {
        self.ports[p].counters.drops_by_kind.count(pkt);
        if self.tracer.on {
            self.tracer.on_drop(now, p, pkt, self.headers.get(pkt));
        }
        self.headers.dropped(pkt);
        self.dropped.push(*pkt);
    }

    /// The head packet on port `p`'s link reaches the peer node: a switch forwards it; a host's
    /// NIC holds it whole, and it is returned with the host.
    #[inline]
    pub(super) fn link_arrive(&mut self, now: Time, p: PortId, cal: &mut Calendar<Event>) -> Option<(HostId, Segment)> {
        self.hops += 1;
        let port = &mut self.ports[p];
        let (pkt, next) = port.pop_wire(now, self.warmup);
        let node = port.peer;
        if self.tracer.on {
            self.tracer.on_link_arrival(now, p, &self.ports[p], &pkt, self.headers.get(&pkt));
        }
        if self.nodes[node].is_switch {
            if let Some(t) = next {
                cal.schedule(t, Event::LinkArrive(p));
            }
            self.forward(now, node, pkt, cal);
            return None;
        }
        // The packet leaves the network at a host's NIC, which holds it whole. Its header (a
        // cold line in a large network) is read before the calendar work, which overlaps it.
        let seg = self.headers.receive(&pkt);
        if let Some(t) = next {
            cal.schedule(t, Event::LinkArrive(p));
        }
        Some((HostId(node.0), seg))
    }

    /// Switch `node` forwards `pkt` to its egress port.
    #[inline(always)]
    fn forward(&mut self, now: Time, node: NodeId, pkt: Packet, cal: &mut Calendar<Event>) {
        let egress = self.routes.egress(node, &pkt);
        if self.ports[egress].discipline().is_some() {
            self.enqueue_to_discipline(now, egress, pkt, cal);
        } else {
            self.enqueue(now, egress, pkt, cal);
        }
    }

    /// A partition's traffic across the cut: packets received (arrived), packets sent, and
    /// the sent ones still on this side's ports until they arrive (zeros in a whole network).
    pub(super) fn cut_balance(&self) -> (u64, u64, u64) {
        let Some(cut) = &self.cut else { return (0, 0, 0) };
        let on_ports = cut.crossing_ports().map(|p| self.ports[p].in_flight() as u64).sum();
        (cut.received, cut.crossings, on_ports)
    }

    /// Packets on ports: queued or on a wire.
    pub(super) fn in_flight(&self) -> u64 {
        self.ports.iter().map(|p| p.in_flight() as u64).sum()
    }

    /// Packets ports refused or dropped.
    pub(super) fn dropped_packets(&self) -> u64 {
        self.ports.iter().map(|p| p.counters.drops()).sum()
    }

    /// The warm-up ends: the ports' counters start the measurement window.
    pub(super) fn mark_warmup(&mut self) {
        self.ports.iter_mut().for_each(|p| p.counters.mark_warmup());
    }
}
