//! Tests of the port: its invariant check, and one class queue running exactly as the FIFO
//! fast path.

use super::*;
use crate::net::aqm::Threshold;
use crate::net::qdisc::{ClassQueue, Classes, Classify, Scheduler};
use crate::scenario::NonEctPolicy;
use rand::SeedableRng;

fn threshold(k_packets: u32, count_in_service: bool) -> Aqm {
    Aqm::Threshold(Threshold {
        k_packets,
        nonect: NonEctPolicy::Drop,
        count_in_service,
        at_dequeue: false,
    })
}

fn port(aqm: Aqm) -> Port {
    let name = "s0->h0".to_string();
    Port::new(
        name,
        NodeId(0),
        NodeId(1),
        true,
        Rate::from_gbps(1.0),
        Time::from_us(5),
        Bytes::new(38),
        30,
        Bytes::new(40_000),
        aqm,
    )
}

/// The invariant check passes on a port in use, and names each kind of broken count.
#[test]
fn the_invariant_check_catches_a_miscounted_port() {
    let mut p = port(threshold(5, true));
    let (t, w) = (Time::ZERO, Time::ZERO);
    for i in 0..40 {
        let _ = p.offer(t, Packet::data(i, 1500, Ecn::Ect), w);
    }
    assert!(p.counters.drops_buffer > 0 && p.counters.marks > 0);
    p.check_invariants(Time::from_us(30), w)
        .expect("a port in use holds its invariants");
    let mut bytes = p.clone();
    bytes.buffered_bytes += Bytes::new(1);
    assert!(bytes
        .check_invariants(Time::from_us(30), w)
        .unwrap_err()
        .contains("holds packets of"));
    let mut arrived = p.clone();
    arrived.counters.arrived += 1;
    assert!(arrived.check_invariants(Time::from_us(30), w).unwrap_err().contains("arrived"));
    let mut sent = p.clone();
    sent.counters.sent_packets += 1;
    assert!(sent.check_invariants(Time::from_us(30), w).unwrap_err().contains("were sent"));
    let mut order = p.clone();
    let (a, b) = (order.departed, order.departed + 1);
    order.queue.swap(a, b);
    assert!(order
        .check_invariants(Time::from_us(30), w)
        .unwrap_err()
        .contains("transmission ends"));
}

/// One class queue with the same arrival-time AQM is the FIFO fast path, run on events:
/// the same packets reach the peer at the same times with the same marks, and every
/// counter (drops, marks, the time-weighted occupancy, busy time) is equal.
#[test]
fn one_class_discipline_runs_exactly_as_the_fifo_fast_path() {
    for count_in_service in [true, false] {
        let mut fifo = port(threshold(8, count_in_service));
        let queue = ClassQueue::new(u32::MAX, Bytes::MAX, None, threshold(8, count_in_service));
        let classes = Classes::new(Classify::Flow, Scheduler::StrictPriority, vec![queue]);
        let mut events = port(Aqm::DropTail).with_discipline(Discipline::Classes(classes));
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (mut now, window) = (Time::ZERO, Time::from_us(100));
        let mut tx_done: Option<Time> = None;
        let (mut out_fifo, mut out_events) = (Vec::new(), Vec::new());
        for i in 0..5_000u32 {
            // Bursts and gaps around the 12-µs service time, mixed sizes and ECN.
            if rng.gen_bool(0.3) {
                now += Time::from_ps(rng.gen_range(0..60_000_000));
            }
            while let Some(t) = tx_done.filter(|&t| t <= now) {
                tx_done = events.tx_done(t, window).1;
            }
            let size = [1500, 64, 1500, 700][rng.gen_range(0..4)];
            let ecn = if rng.gen_bool(0.8) { Ecn::Ect } else { Ecn::NotEct };
            let a = fifo.offer(now, Packet::data(i, size, ecn), window);
            let b = events.offer_to_discipline(now, Packet::data(i, size, ecn), window);
            assert_eq!(a.is_ok(), b.is_ok(), "packet {i}");
            if let Ok((started, _)) = b {
                tx_done = tx_done.or(started);
            }
            assert!(events.pop_dequeue_drop().is_none());
        }
        while let Some(t) = tx_done {
            tx_done = events.tx_done(t, window).1;
        }
        for (p, out) in [(&mut fifo, &mut out_fifo), (&mut events, &mut out_events)] {
            p.close(now + Time::from_ms(10), window);
            while let Some(t) = p.queue.front().map(|s| s.end + p.delay) {
                let (pkt, _) = p.pop_wire(t, window);
                out.push((t, pkt.header, pkt.ecn));
            }
        }
        assert_eq!(out_fifo, out_events);
        let (a, b) = (&fifo.counters, &events.counters);
        assert!(a.marks > 100 && a.drops_buffer > 20 && a.drops_aqm > 10, "{a:?}");
        assert_eq!(
            (
                a.arrived,
                a.enqueued,
                a.sent_packets,
                a.sent_bytes,
                a.drops_buffer,
                a.drops_aqm,
                a.marks
            ),
            (
                b.arrived,
                b.enqueued,
                b.sent_packets,
                b.sent_bytes,
                b.drops_buffer,
                b.drops_aqm,
                b.marks
            )
        );
        assert_eq!(
            (a.max_packets, a.max_bytes, a.byte_ps, a.busy),
            (b.max_packets, b.max_bytes, b.byte_ps, b.busy)
        );
        let trim = |v: &[Time]| v.iter().rposition(|&t| t > Time::ZERO).map_or(vec![], |n| v[..=n].to_vec());
        assert_eq!(trim(&a.occupancy), trim(&b.occupancy));
    }
}
