//! Queue disciplines: how an egress port holds packets and picks the next one for its link
//! when the link frees (ns-3's `QueueDisc` contract: enqueue, dequeue, and the port's
//! transmit-complete event in between).
//!
//! A port without one is a FIFO whose schedule is fixed when a packet is admitted (the fast
//! path in `net::port`). A port with one runs on events: `Port::offer` enqueues, the link
//! takes the discipline's next packet when it frees, and the simulation's `TxDone` event says
//! when that is. `Classes` is the built-in discipline: several class queues per port
//! (DCTCP paper §1 "Ethernet priorities (Class of Service)"), each with its own limit and AQM,
//! served by strict priority or deficit round robin. A one-class `Classes` is a FIFO with an
//! AQM that acts at dequeue.

use std::collections::VecDeque;

use super::aqm::{Aqm, Verdict};
use super::packet::{Ecn, Packet, ACK, SYN};
use super::port::Offer;
use crate::units::{Bytes, Time};

/// Class queues a port may have (IEEE 802.1Q's eight priorities).
pub const MAX_CLASSES: usize = 8;

/// What a discipline sees of its port when a packet arrives.
#[derive(Debug, Clone, Copy)]
pub struct PortView {
    /// Packets and bytes in the port's buffer, the one being serialised included.
    pub packets: u32,
    pub bytes: Bytes,
    pub limit_packets: u32,
    pub limit_bytes: Bytes,
    /// The class of the packet being serialised, if any.
    pub serving: Option<u8>,
    /// When the link last went idle, if it is idle now (RED's idle correction).
    pub idle_since: Option<Time>,
}

/// A packet taken from a discipline for the link.
#[derive(Debug, Clone, Copy)]
pub struct Dequeued {
    pub pkt: Packet,
    pub class: u8,
    /// The dequeue-time AQM set CE on it.
    pub marked: bool,
}

/// The interface every discipline implements. `Port` dispatches over `Discipline` by `match`.
pub trait QueueDisc {
    /// Admits `pkt` (it joins a queue, perhaps marked: returns whether it was) or refuses it.
    fn enqueue(&mut self, now: Time, pkt: Packet, port: PortView) -> Result<bool, Offer>;
    /// The next packet for the link, if any. Packets an AQM drops at dequeue go to `dropped`.
    fn dequeue(&mut self, now: Time, dropped: &mut Vec<Packet>) -> Option<Dequeued>;
    /// The packet of `class` that was being serialised has left at `now` (before the next
    /// `dequeue`): until now it counted in its queue's occupancy.
    fn sent(&mut self, now: Time, class: u8);
    /// Packets and bytes waiting (not the one being serialised).
    fn packets(&self) -> u32;
    fn bytes(&self) -> Bytes;
    /// Bytes held by the queue `pkt` would join, its packet being serialised included: what a
    /// shared memory's dynamic threshold weighs (its thresholds are per queue).
    fn queue_bytes(&self, pkt: &Packet) -> Bytes;
}

/// The disciplines, dispatched by `match`: a new one is a struct implementing `QueueDisc`
/// and a variant here.
#[derive(Debug, Clone)]
pub enum Discipline {
    Classes(Classes),
}

impl QueueDisc for Discipline {
    #[inline]
    fn enqueue(&mut self, now: Time, pkt: Packet, port: PortView) -> Result<bool, Offer> {
        match self {
            Discipline::Classes(c) => c.enqueue(now, pkt, port),
        }
    }
    #[inline]
    fn dequeue(&mut self, now: Time, dropped: &mut Vec<Packet>) -> Option<Dequeued> {
        match self {
            Discipline::Classes(c) => c.dequeue(now, dropped),
        }
    }
    #[inline]
    fn sent(&mut self, now: Time, class: u8) {
        match self {
            Discipline::Classes(c) => c.sent(now, class),
        }
    }
    #[inline]
    fn packets(&self) -> u32 {
        match self {
            Discipline::Classes(c) => c.packets(),
        }
    }
    #[inline]
    fn bytes(&self) -> Bytes {
        match self {
            Discipline::Classes(c) => c.bytes(),
        }
    }
    #[inline]
    fn queue_bytes(&self, pkt: &Packet) -> Bytes {
        match self {
            Discipline::Classes(c) => c.queue_bytes(pkt),
        }
    }
}

impl Discipline {
    /// Counters of each class queue, for the results.
    pub fn class_counters(&self) -> Vec<ClassCounters> {
        match self {
            Discipline::Classes(c) => c.queues.iter().map(|q| q.counters.clone()).collect(),
        }
    }
}

/// How a packet's class is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classify {
    /// The class its sending host gave the flow (`flows[].class`; a DSCP / 802.1p priority).
    Flow,
    /// By ECN capability: ECT or CE packets to one class, not-ECT to another (DCTCP and TCP
    /// segregated, Judd's "Segregate DCTCP traffic using QoS").
    Ecn { ect: u8, not_ect: u8 },
    /// By packet type: SYN or SYN-ACK, pure ACK, data.
    PacketType { syn: u8, ack: u8, data: u8 },
}

impl Classify {
    #[inline]
    pub fn class(&self, pkt: &Packet) -> u8 {
        match *self {
            Classify::Flow => pkt.class,
            Classify::Ecn { ect, not_ect } => {
                if pkt.ecn == Ecn::NotEct {
                    not_ect
                } else {
                    ect
                }
            }
            Classify::PacketType { syn, ack, data } => {
                if pkt.has(SYN) {
                    syn
                } else if pkt.len == 0 && pkt.has(ACK) {
                    ack
                } else {
                    data
                }
            }
        }
    }
}

/// Which waiting class the link serves next.
#[derive(Debug, Clone)]
pub enum Scheduler {
    /// The lowest-numbered class holding a packet, always (IEEE 802.1Q strict priority).
    StrictPriority,
    /// Deficit round robin (Shreedhar and Varghese, SIGCOMM 1995): each round a backlogged
    /// class may send up to its quantum plus what it left unused, so bytes are shared in the
    /// ratio of the quanta.
    Drr(Drr),
}

#[derive(Debug, Clone)]
pub struct Drr {
    /// Quantum of each class, bytes.
    pub quantum: Vec<u64>,
    deficit: Vec<u64>,
    /// Backlogged classes in round order; the front one is being visited.
    active: VecDeque<u8>,
    /// Whether the front class has had its quantum for this visit.
    topped_up: bool,
}

impl Drr {
    pub fn new(quantum: Vec<u64>) -> Self {
        let n = quantum.len();
        Drr {
            quantum,
            deficit: vec![0; n],
            active: VecDeque::with_capacity(n),
            topped_up: false,
        }
    }
}

/// Per-class counters, reported in the results' `classes` table.
#[derive(Debug, Clone, Default)]
pub struct ClassCounters {
    pub arrived: u64,
    pub enqueued: u64,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub drops_buffer: u64,
    pub drops_aqm: u64,
    pub marks: u64,
    pub max_packets: u64,
}

#[derive(Debug, Clone)]
pub struct ClassQueue {
    pkts: VecDeque<Packet>,
    /// Bytes waiting.
    bytes: Bytes,
    /// Bytes of this class's packet being serialised, if it is this class's: it counts in
    /// the class's occupancy until it has left, as it does in its packet count and in the
    /// port's bytes.
    in_service: Bytes,
    pub limit_packets: u32,
    pub limit_bytes: Bytes,
    /// A dynamic share of the port's buffer: the class may hold up to alpha × the bytes the
    /// port still has free (Choudhury and Hahne's rule, within one port).
    pub alpha: Option<f64>,
    pub aqm: Aqm,
    pub counters: ClassCounters,
}

impl ClassQueue {
    pub fn new(limit_packets: u32, limit_bytes: Bytes, alpha: Option<f64>, aqm: Aqm) -> Self {
        ClassQueue {
            pkts: VecDeque::new(),
            bytes: Bytes::ZERO,
            in_service: Bytes::ZERO,
            limit_packets,
            limit_bytes,
            alpha,
            aqm,
            counters: ClassCounters::default(),
        }
    }
}

/// Class queues behind one link.
#[derive(Debug, Clone)]
pub struct Classes {
    pub classify: Classify,
    pub scheduler: Scheduler,
    pub queues: Vec<ClassQueue>,
    packets: u32,
    bytes: Bytes,
}

impl Classes {
    pub fn new(classify: Classify, scheduler: Scheduler, queues: Vec<ClassQueue>) -> Self {
        assert!(!queues.is_empty() && queues.len() <= MAX_CLASSES, "1 to {MAX_CLASSES} classes");
        Classes {
            classify,
            scheduler,
            queues,
            packets: 0,
            bytes: Bytes::ZERO,
        }
    }

    /// The class `pkt` belongs to (a class past the last is served as the last).
    #[inline]
    fn class_of(&self, pkt: &Packet) -> usize {
        (self.classify.class(pkt) as usize).min(self.queues.len() - 1)
    }

    /// The class the scheduler serves next, if any is backlogged.
    fn pick(&mut self) -> Option<usize> {
        match &mut self.scheduler {
            Scheduler::StrictPriority => self.queues.iter().position(|q| !q.pkts.is_empty()),
            Scheduler::Drr(d) => loop {
                let &c = d.active.front()?;
                let c = c as usize;
                if !d.topped_up {
                    d.deficit[c] += d.quantum[c];
                    d.topped_up = true;
                }
                let head = self.queues[c].pkts.front().expect("an active class holds a packet").size as u64;
                if head <= d.deficit[c] {
                    return Some(c);
                }
                // Its quantum is spent for this round: to the back, keeping the deficit.
                d.active.rotate_left(1);
                d.topped_up = false;
            },
        }
    }
}

impl QueueDisc for Classes {
    fn enqueue(&mut self, now: Time, pkt: Packet, port: PortView) -> Result<bool, Offer> {
        let c = self.class_of(&pkt);
        let q = &mut self.queues[c];
        q.counters.arrived += 1;
        let size = pkt.bytes();
        let waiting = q.pkts.len() as u32;
        let in_service = u32::from(port.serving == Some(c as u8));
        q.aqm.observe(now, waiting + in_service);
        // Drop-tail on the port's buffer (DCTCP paper §2.3.1), then the class's own limit and share.
        let over_port = port.packets + 1 > port.limit_packets || port.bytes + size > port.limit_bytes;
        let held = q.bytes + q.in_service;
        let over_class = waiting + in_service + 1 > q.limit_packets || held + size > q.limit_bytes;
        let over_share = q.alpha.is_some_and(|alpha| {
            let free = port.limit_bytes.saturating_sub(port.bytes);
            (held + size).as_u64() as f64 > alpha * free.as_u64() as f64
        });
        if over_port || over_class || over_share {
            q.counters.drops_buffer += 1;
            return Err(Offer::DroppedBuffer);
        }
        let occupancy = if q.aqm.counts_in_service() { waiting + in_service } else { waiting };
        let mut pkt = pkt;
        let idle_since = if waiting + in_service == 0 { port.idle_since } else { None };
        let marked = match q.aqm.on_arrival(pkt.ecn, occupancy, now, idle_since) {
            Verdict::Enqueue => false,
            Verdict::Mark => {
                pkt.ecn = Ecn::Ce;
                q.counters.marks += 1;
                true
            }
            Verdict::Drop => {
                q.counters.drops_aqm += 1;
                return Err(Offer::DroppedAqm);
            }
        };
        let was_empty = q.pkts.is_empty();
        q.pkts.push_back(pkt);
        q.bytes += size;
        q.counters.enqueued += 1;
        q.counters.max_packets = q.counters.max_packets.max((q.pkts.len() as u32 + in_service) as u64);
        self.packets += 1;
        self.bytes += size;
        if let (Scheduler::Drr(d), true) = (&mut self.scheduler, was_empty) {
            d.active.push_back(c as u8);
        }
        Ok(marked)
    }

    fn sent(&mut self, now: Time, class: u8) {
        let q = &mut self.queues[class as usize];
        q.aqm.observe(now, q.pkts.len() as u32 + 1);
        q.in_service = Bytes::ZERO;
    }

    fn dequeue(&mut self, now: Time, dropped: &mut Vec<Packet>) -> Option<Dequeued> {
        loop {
            let c = self.pick()?;
            let q = &mut self.queues[c];
            q.aqm.observe(now, q.pkts.len() as u32);
            let mut pkt = q.pkts.pop_front().expect("the scheduler picks a backlogged class");
            let size = pkt.bytes();
            q.bytes -= size;
            self.packets -= 1;
            self.bytes -= size;
            let verdict = q.aqm.on_dequeue(pkt.ecn, q.pkts.len() as u32);
            let emptied = q.pkts.is_empty();
            if let Scheduler::Drr(d) = &mut self.scheduler {
                if verdict != Verdict::Drop {
                    d.deficit[c] -= size.as_u64();
                }
                if emptied {
                    // An emptied class leaves the round and keeps no credit (DRR's rule).
                    d.deficit[c] = 0;
                    d.active.pop_front();
                    d.topped_up = false;
                }
            }
            let q = &mut self.queues[c];
            match verdict {
                Verdict::Drop => {
                    q.counters.drops_aqm += 1;
                    dropped.push(pkt);
                }
                v => {
                    let marked = v == Verdict::Mark;
                    if marked {
                        pkt.ecn = Ecn::Ce;
                        q.counters.marks += 1;
                    }
                    q.counters.sent_packets += 1;
                    q.counters.sent_bytes += size.as_u64();
                    q.in_service = size;
                    return Some(Dequeued {
                        pkt,
                        class: c as u8,
                        marked,
                    });
                }
            }
        }
    }

    fn packets(&self) -> u32 {
        self.packets
    }

    fn bytes(&self) -> Bytes {
        self.bytes
    }

    fn queue_bytes(&self, pkt: &Packet) -> Bytes {
        let q = &self.queues[self.class_of(pkt)];
        q.bytes + q.in_service
    }
}

#[cfg(test)]
#[path = "qdisc_tests.rs"]
mod tests;
