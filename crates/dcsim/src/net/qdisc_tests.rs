//! Tests of the queue disciplines: AQM sampling and class occupancy, strict priority, DRR
//! shares, classifiers, per-class limits.

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
