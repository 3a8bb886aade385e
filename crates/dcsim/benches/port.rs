//! A FIFO port's enqueue and dequeue (`net::port::Port::offer` and `Port::pop_wire`, the
//! fast path every packet takes at every hop), with drop-tail and with DCTCP's threshold
//! AQM. A 10 Gb/s switch port (1 µs link, 100-packet limit, K = 15, as `examples/bench.rs`'s
//! fabric) is offered 1500-byte packets at exactly its line rate after a burst of 20, so its
//! queue holds a steady 20 packets; packets come off the wire when they reach the peer.
//! One element = one offer and one pop, in time order, as the event loop calls them. With
//! the threshold AQM every packet is marked (19 ahead of it > K), the costlier verdict.
//!
//! ```text
//! cargo bench -p dcsim --bench port
//! ```

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dcsim::ids::NodeId;
use dcsim::net::aqm::{Aqm, Threshold};
use dcsim::net::packet::{Ecn, Packet};
use dcsim::net::port::Port;
use dcsim::scenario::NonEctPolicy;
use dcsim::units::{Bytes, Rate, Time};

/// IP packet bytes of a full segment.
const PACKET_BYTES: u16 = 1500;
/// The standing queue: packets in the buffer after each offer.
const QUEUE: u32 = 20;
/// Measurement starts at time zero: the occupancy distribution is accounted on every change.
const WINDOW_START: Time = Time::ZERO;

fn switch_port(aqm: Aqm) -> Port {
    Port::new(
        "s0->h1".to_string(),
        NodeId(0),
        NodeId(1),
        true,
        Rate::from_gbps(10.0),
        Time::from_us(1),
        Bytes::new(38), // Ethernet framing: preamble, header, FCS, inter-frame gap
        100,
        Bytes::new(100 * PACKET_BYTES as u64),
        aqm,
    )
}

/// An ECN-capable full data segment from host 0 to host 1.
fn data_packet(seq: u64) -> Packet {
    Packet::data(seq as u32, PACKET_BYTES, Ecn::Ect)
}

/// A port with its standing queue, and the clock and pending link arrival that the event
/// loop would keep for it.
struct SteadyPort {
    port: Port,
    now: Time,
    /// Time of one packet's serialisation: the offered load is exactly the line rate.
    gap: Time,
    next_arrival: Option<Time>,
    next_seq: u64,
}

impl SteadyPort {
    fn new(aqm: Aqm) -> Self {
        let mut port = switch_port(aqm);
        let gap = port.rate.tx_time(Bytes::from(PACKET_BYTES as u32) + port.framing);
        let mut next_arrival = None;
        for seq in 0..QUEUE as u64 {
            let (_, arrival) = port.offer(Time::ZERO, data_packet(seq), WINDOW_START).expect("room for the burst");
            next_arrival = next_arrival.or(arrival);
        }
        let mut steady = SteadyPort {
            port,
            now: Time::ZERO,
            gap,
            next_arrival,
            next_seq: QUEUE as u64,
        };
        // Until the first packets reach the peer, offers outnumber pops: run past that.
        for _ in 0..1000 {
            steady.step();
        }
        assert_eq!(steady.port.occupancy_packets(steady.now, WINDOW_START), QUEUE);
        steady
    }

    /// One line-rate interval: the packet that reached the peer by now comes off the wire,
    /// then the next packet is offered (the calendar's order at equal times: arrivals were
    /// scheduled first).
    #[inline(always)]
    fn step(&mut self) {
        self.now += self.gap;
        if let Some(t) = self.next_arrival.filter(|&t| t <= self.now) {
            let (pkt, next) = self.port.pop_wire(t, WINDOW_START);
            black_box(pkt);
            self.next_arrival = next;
        }
        let pkt = data_packet(self.next_seq);
        self.next_seq += 1;
        match self.port.offer(self.now, pkt, WINDOW_START) {
            Ok((_, arrival)) => self.next_arrival = self.next_arrival.or(arrival),
            Err(why) => panic!("a steady queue refused a packet: {why:?}"),
        }
    }
}

fn bench_port(c: &mut Criterion) {
    let threshold = Aqm::Threshold(Threshold {
        k_packets: 15,
        nonect: NonEctPolicy::Drop,
        count_in_service: true,
        at_dequeue: false,
    });
    let mut group = c.benchmark_group("port_offer_pop");
    group.throughput(Throughput::Elements(1));
    for (name, aqm) in [("drop_tail", Aqm::DropTail), ("threshold", threshold)] {
        let mut steady = SteadyPort::new(aqm);
        let on_the_way = steady.port.in_flight();
        group.bench_function(name, |b| b.iter(|| steady.step()));
        // One packet in and one off the wire per step: the queue and the wire stayed as they
        // were (also when a filter or `--list` skipped the measurement).
        let c = &steady.port.counters;
        assert_eq!(c.drops(), 0);
        assert_eq!(c.marks > 0, name == "threshold");
        assert_eq!(steady.port.in_flight(), on_the_way);
        assert_eq!(steady.port.occupancy_packets(steady.now, WINDOW_START), QUEUE);
    }
    group.finish();
}

criterion_group!(benches, bench_port);
criterion_main!(benches);
