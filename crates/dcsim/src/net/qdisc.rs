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
mod tests {
    use super::*;
    use crate::net::aqm::Threshold;
    use crate::scenario::NonEctPolicy;

    fn pkt(class: u8, size: u16) -> Packet {
        Packet {
            class,
            ..Packet::data(1, size, Ecn::Ect)
        }
    }

    fn view() -> PortView {
        PortView {
            packets: 0,
            bytes: Bytes::ZERO,
            limit_packets: u32::MAX,
            limit_bytes: Bytes::MAX,
            serving: None,
            idle_since: None,
        }
    }

    fn open(n: usize) -> Vec<ClassQueue> {
        (0..n).map(|_| ClassQueue::new(u32::MAX, Bytes::MAX, None, Aqm::DropTail)).collect()
    }

    #[test]
    fn a_sampling_aqm_counts_the_packet_in_service_until_it_leaves() {
        // PI (a = 0.01, b = 0, q_ref = 0, a sample every 1 µs) on one class: a packet admitted
        // and started at t = 0 leaves at 10 µs. Until then the queue held 1 packet, so the ten
        // samples at 1..10 µs each add a·(1 − 0): p = 0.1 (counted without it, p stays 0).
        use crate::net::aqm::Pi;
        use rand::SeedableRng;
        let pi = Pi::new(0.01, 0.0, 0.0, Time::from_us(1), true, rand_chacha::ChaCha8Rng::seed_from_u64(1));
        let mut d = Classes::new(
            Classify::Flow,
            Scheduler::StrictPriority,
            vec![ClassQueue::new(u32::MAX, Bytes::MAX, None, Aqm::Pi(Box::new(pi)))],
        );
        let mut dropped = Vec::new();
        d.enqueue(Time::ZERO, pkt(0, 1500), view()).unwrap();
        d.dequeue(Time::ZERO, &mut dropped).expect("the packet starts");
        d.sent(Time::from_us(10), 0);
        let Aqm::Pi(pi) = &d.queues[0].aqm else { unreachable!() };
        assert!((pi.p - 0.1).abs() < 1e-12, "p = {}", pi.p);
    }

    #[test]
    fn a_class_counts_its_packet_in_service_in_its_bytes_until_it_leaves() {
        // Class 0 may hold 1500 B; class 1 has no limit. A 1500-B packet of class 0 starts at
        // t = 0: a second one is refused while the first is on the wire (the class would hold
        // 3000 B), and admitted once it has left. A class-1 arrival meanwhile weighs 0 B of its
        // own for a shared memory's threshold, not the class-0 packet in service (found by the
        // operation models in `model_tests`).
        let mut queues = open(2);
        queues[0].limit_bytes = Bytes::new(1500);
        let mut d = Classes::new(Classify::Flow, Scheduler::StrictPriority, queues);
        let mut dropped = Vec::new();
        d.enqueue(Time::ZERO, pkt(0, 1500), view()).unwrap();
        let first = d.dequeue(Time::ZERO, &mut dropped).expect("the packet starts");
        let serving = PortView {
            packets: 1,
            bytes: first.pkt.bytes(),
            serving: Some(0),
            ..view()
        };
        assert_eq!(d.queue_bytes(&pkt(0, 1500)), first.pkt.bytes());
        assert_eq!(d.queue_bytes(&pkt(1, 1500)), Bytes::ZERO);
        assert!(matches!(d.enqueue(Time::ZERO, pkt(0, 1500), serving), Err(Offer::DroppedBuffer)));
        d.sent(Time::from_us(12), 0);
        assert_eq!(d.queue_bytes(&pkt(0, 1500)), Bytes::ZERO);
        assert_eq!(d.enqueue(Time::from_us(12), pkt(0, 1500), view()), Ok(false));
    }

    #[test]
    fn strict_priority_never_serves_a_lower_class_while_a_higher_one_waits() {
        let mut d = Classes::new(Classify::Flow, Scheduler::StrictPriority, open(3));
        // Interleave arrivals and departures; at every dequeue no higher class may hold a packet.
        let mut dropped = Vec::new();
        let mut served = Vec::new();
        let skip = [true, false, false];
        for round in 0..200usize {
            for c in [2u8, 0, 1, 2, 1] {
                // Skip one class in three rounds, a different one each time.
                if !skip[(round + c as usize) % 3] {
                    d.enqueue(Time::ZERO, pkt(c, 1500), view()).unwrap();
                }
            }
            for _ in 0..4 {
                let Some(x) = d.dequeue(Time::ZERO, &mut dropped) else { break };
                for higher in 0..x.class as usize {
                    assert!(
                        d.queues[higher].pkts.is_empty(),
                        "served class {} while class {higher} waits",
                        x.class
                    );
                }
                served.push(x.class);
            }
        }
        while let Some(x) = d.dequeue(Time::ZERO, &mut dropped) {
            served.push(x.class);
        }
        assert!(served.contains(&2) && d.packets() == 0 && dropped.is_empty());
    }

    #[test]
    fn drr_shares_bytes_in_the_ratio_of_its_quanta_within_one_quantum_per_round() {
        // Quanta 1500 : 3000 : 4500 B, all three backlogged with mixed sizes: after every
        // complete round each class has sent r·quantum bytes within one quantum (DRR Lemma 2:
        // 0 ≤ deficit < max packet size).
        let quantum = vec![1500, 3000, 4500];
        let mut d = Classes::new(Classify::Flow, Scheduler::Drr(Drr::new(quantum.clone())), open(3));
        let sizes = [1500u16, 64, 900, 1500, 300];
        for i in 0..3000 {
            for c in 0..3u8 {
                d.enqueue(Time::ZERO, pkt(c, sizes[(i + c as usize) % sizes.len()].max(100)), view())
                    .unwrap();
            }
        }
        let mut sent = [0u64; 3];
        let mut dropped = Vec::new();
        let total: u64 = quantum.iter().sum();
        let mut bytes_out = 0u64;
        for _ in 0..4000 {
            let x = d.dequeue(Time::ZERO, &mut dropped).unwrap();
            sent[x.class as usize] += x.pkt.size as u64;
            bytes_out += x.pkt.size as u64;
            let rounds = bytes_out as f64 / total as f64;
            for c in 0..3 {
                let fair = rounds * quantum[c] as f64;
                assert!(
                    (sent[c] as f64 - fair).abs() <= (quantum[c] + 1500 + 4500) as f64,
                    "class {c}: {} B against {fair:.0} B",
                    sent[c]
                );
            }
        }
        let ratio = sent[2] as f64 / sent[0] as f64;
        assert!((ratio - 3.0).abs() < 0.01, "{ratio}");
    }

    #[test]
    fn drr_gives_an_idle_class_no_credit_and_serves_a_lone_class() {
        let mut d = Classes::new(Classify::Flow, Scheduler::Drr(Drr::new(vec![1500, 1500])), open(2));
        let mut dropped = Vec::new();
        for _ in 0..5 {
            d.enqueue(Time::ZERO, pkt(1, 1500), view()).unwrap();
        }
        let served: Vec<u8> = std::iter::from_fn(|| d.dequeue(Time::ZERO, &mut dropped).map(|x| x.class)).collect();
        assert_eq!(served, vec![1; 5]);
        // Class 0 then alternates with class 1 packet by packet.
        for _ in 0..3 {
            d.enqueue(Time::ZERO, pkt(0, 1500), view()).unwrap();
            d.enqueue(Time::ZERO, pkt(1, 1500), view()).unwrap();
        }
        let served: Vec<u8> = std::iter::from_fn(|| d.dequeue(Time::ZERO, &mut dropped).map(|x| x.class)).collect();
        assert_eq!(served, vec![0, 1, 0, 1, 0, 1]);
    }

    #[test]
    fn classifiers_by_flow_ecn_and_packet_type() {
        let data = pkt(3, 1500);
        assert_eq!(Classify::Flow.class(&data), 3);
        let by_ecn = Classify::Ecn { ect: 0, not_ect: 1 };
        assert_eq!(by_ecn.class(&data), 0);
        assert_eq!(by_ecn.class(&Packet { ecn: Ecn::NotEct, ..data }), 1);
        assert_eq!(by_ecn.class(&Packet { ecn: Ecn::Ce, ..data }), 0);
        let by_type = Classify::PacketType { syn: 0, ack: 1, data: 2 };
        assert_eq!(by_type.class(&data), 2);
        assert_eq!(by_type.class(&Packet { len: 0, size: 40, ..data }), 1);
        assert_eq!(
            by_type.class(&Packet {
                len: 0,
                size: 40,
                flags: SYN | ACK,
                ..data
            }),
            0
        );
        assert_eq!(
            by_type.class(&Packet {
                len: 0,
                size: 40,
                flags: SYN,
                ..data
            }),
            0
        );
    }

    #[test]
    fn each_class_has_its_limit_and_its_aqm_within_the_port_buffer() {
        let k = |k_packets| {
            Aqm::Threshold(Threshold {
                k_packets,
                nonect: NonEctPolicy::Drop,
                count_in_service: true,
                at_dequeue: false,
            })
        };
        let queues = vec![
            ClassQueue::new(3, Bytes::MAX, None, k(1)),
            ClassQueue::new(10, Bytes::MAX, None, Aqm::DropTail),
        ];
        let mut d = Classes::new(Classify::Flow, Scheduler::StrictPriority, queues);
        let marks: Vec<bool> = (0..3).map(|_| d.enqueue(Time::ZERO, pkt(0, 1500), view()).unwrap()).collect();
        assert_eq!(marks, vec![false, false, true]); // K = 1: the third sees 2 ahead
        assert_eq!(d.enqueue(Time::ZERO, pkt(0, 1500), view()), Err(Offer::DroppedBuffer));
        assert_eq!(d.enqueue(Time::ZERO, pkt(1, 1500), view()), Ok(false));
        // The port's own limit binds every class.
        let full = PortView {
            packets: 4,
            limit_packets: 4,
            ..view()
        };
        assert_eq!(d.enqueue(Time::ZERO, pkt(1, 1500), full), Err(Offer::DroppedBuffer));
        // A dynamic share: alpha = 1 of 10 kB free admits 6 kB, not 7.5 kB (past the first 4.5 kB held).
        let shared = vec![ClassQueue::new(u32::MAX, Bytes::MAX, Some(1.0), Aqm::DropTail)];
        let mut s = Classes::new(Classify::Flow, Scheduler::StrictPriority, shared);
        let mut port = PortView {
            limit_bytes: Bytes::new(10_000),
            ..view()
        };
        let mut admitted = 0;
        while s.enqueue(Time::ZERO, pkt(0, 1500), port).is_ok() {
            port.bytes += Bytes::new(1500);
            port.packets += 1;
            admitted += 1;
        }
        // n-th admitted while n·1500 ≤ 10,000 − (n−1)·1500: n ≤ 3.83, so 3.
        assert_eq!(admitted, 3);
    }

    #[test]
    fn dequeue_marking_and_drops_count_per_class() {
        let aqm = Aqm::Threshold(Threshold {
            k_packets: 2,
            nonect: NonEctPolicy::Drop,
            count_in_service: true,
            at_dequeue: true,
        });
        let mut d = Classes::new(
            Classify::Flow,
            Scheduler::StrictPriority,
            vec![ClassQueue::new(u32::MAX, Bytes::MAX, None, aqm)],
        );
        for i in 0..5 {
            let mut p = pkt(0, 1500);
            if i == 1 {
                p.ecn = Ecn::NotEct;
            }
            assert_eq!(d.enqueue(Time::ZERO, p, view()), Ok(false), "no marking on arrival");
        }
        let mut dropped = Vec::new();
        // First leaves 4 behind: marked. Second (not ECT) leaves 3: dropped, then the third
        // leaves 2: not marked.
        let x = d.dequeue(Time::ZERO, &mut dropped).unwrap();
        assert!(x.marked && x.pkt.ecn == Ecn::Ce);
        let y = d.dequeue(Time::ZERO, &mut dropped).unwrap();
        assert!(!y.marked);
        assert_eq!(dropped.len(), 1);
        let c = &d.queues[0].counters;
        assert_eq!((c.marks, c.drops_aqm, c.sent_packets), (1, 1, 2));
        assert_eq!(d.packets(), 2);
    }
}
