//! The sender's ACK processing (`tcp::Endpoint::on_segment` on the data sender): a
//! cumulative ACK that acknowledges one or two new full segments, and the new segments
//! that it lets the sender emit, with NewReno and with DCTCP (unmarked, and with ECN-Echo on
//! one ACK in 16, which makes DCTCP cut its window about once per window as in its steady
//! state). The ends run the default stack (`TcpConfig::default()`: MSS 1460, SACK, RFC 7661
//! window validation); the sender writes without end and stays cwnd-limited in congestion
//! avoidance (the advertised window never binds: unmarked, the window grows by a segment a
//! window, to thousands over a run, which the per-ACK cost does not depend on; marked, DCTCP
//! settles near 31 segments with α ≈ 1/16). ACKs echo timestamps (an RTT sample of 100 µs
//! each) and arrive a 10 Gb/s serialisation time per segment apart. One element = one ACK
//! (building it, `on_segment`, and clearing the segments the sender sent).
//!
//! ```text
//! cargo bench -p dcsim --bench tcp_ack
//! ```

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dcsim::net::packet::{Segment, ACK, ECE};
use dcsim::scenario::{CcKind, TcpConfig};
use dcsim::tcp::cc::Cc;
use dcsim::tcp::{Endpoint, State};
use dcsim::units::{Bytes, Rate, Time};

const RTT: Time = Time::from_us(100);
/// The largest window an ACK may advertise (RFC 7323 §2.3): the receiver never limits.
const RWND: u32 = (1 << 30) - 1;

/// A sender after its handshake with a real receiving end (SYN at 0, SYN-ACK back one RTT
/// later), with an initial window of data out and no end to what it has to send.
fn established_sender(cc: CcKind) -> Endpoint {
    let t = TcpConfig {
        cc,
        ..TcpConfig::default()
    };
    let p = t.endpoint_params(cc, None, 0);
    let end = |e: u8| Endpoint::new(p.clone(), Cc::new(cc, &t.cc_params()), 0, e, (e as u32, 1 - e as u32));
    let (mut sender, mut receiver) = (end(0), end(1));
    sender.write(u64::MAX); // "unlimited"
    let mut out = Vec::new();
    sender.connect(Time::ZERO, &mut out);
    let syn = out.pop().expect("a SYN");
    receiver.on_segment(RTT / 2, &syn, &mut out);
    let syn_ack = out.pop().expect("a SYN-ACK");
    sender.on_segment(RTT, &syn_ack, &mut out);
    assert_eq!(sender.state(), State::Established);
    assert_eq!(sender.ecn_negotiated(), cc == CcKind::Dctcp);
    sender
}

/// A sender and the stream of ACKs its receiver returns.
struct AckStream {
    sender: Endpoint,
    now: Time,
    /// Between two ACKs: the wire time of the segments each acknowledges.
    gap: Time,
    segments_per_ack: u64,
    /// ECN-Echo on one ACK in this many, if on any.
    mark_every: Option<u64>,
    acks: u64,
    template: Segment,
    out: Vec<Segment>,
}

impl AckStream {
    fn new(cc: CcKind, segments_per_ack: u64, mark_every: Option<u64>) -> Self {
        let mut sender = established_sender(cc);
        // Congestion avoidance from 64 segments on: with no loss to end it, slow start would
        // double the flight every window.
        let mss = sender.params().mss as f64;
        sender.cc_mut().win.ssthresh = 64.0 * mss;
        let ethernet_framing = 38;
        let frame = Bytes::new(sender.params().mss as u64 + sender.params().header_bytes as u64 + ethernet_framing);
        let template = Segment {
            rwnd: RWND,
            ..Segment::pure_ack(1, sender.params().header_bytes)
        };
        let mut stream = AckStream {
            sender,
            now: Time::from_ms(1),
            gap: Rate::from_gbps(10.0).tx_time(frame) * segments_per_ack,
            segments_per_ack,
            mark_every,
            acks: 0,
            template,
            out: Vec::new(),
        };
        // Out of slow start, and DCTCP's α and window settled.
        for _ in 0..100_000 {
            stream.step();
        }
        stream
    }

    /// The next ACK arrives: it acknowledges the next `segments_per_ack` segments and echoes
    /// the timestamp of a segment sent one RTT ago.
    #[inline(always)]
    fn step(&mut self) {
        self.now += self.gap;
        let s = &self.sender;
        let ack = (s.snd_una() + self.segments_per_ack * s.params().mss as u64).min(s.snd_max());
        let marked = self.mark_every.is_some_and(|k| self.acks % k == 0);
        self.acks += 1;
        let pkt = Segment {
            flags: if marked { ACK | ECE } else { ACK },
            ack,
            // Timestamps are sent as time + 1 ps (0 means "no echo").
            ts_val: self.now + Time::from_ps(1),
            ts_ecr: self.now - RTT + Time::from_ps(1),
            ..self.template
        };
        self.out.clear();
        self.sender.on_segment(self.now, black_box(&pkt), &mut self.out);
        black_box(&self.out);
    }
}

fn bench_ack(c: &mut Criterion) {
    let mut group = c.benchmark_group("tcp_ack");
    group.throughput(Throughput::Elements(1));
    let variants = [
        ("newreno", CcKind::NewReno, None),
        ("dctcp", CcKind::Dctcp, None),
        ("dctcp_ece_1_in_16", CcKind::Dctcp, Some(16)),
    ];
    for (name, cc, mark_every) in variants {
        for segments in [1u64, 2] {
            let mut stream = AckStream::new(cc, segments, mark_every);
            let label = if segments == 1 { "1_segment" } else { "2_segments" };
            group.bench_function(BenchmarkId::new(name, label), |b| b.iter(|| stream.step()));
            // Only new data was acknowledged, and nothing was sent again.
            let counters = stream.sender.counters();
            assert_eq!((counters.retransmits, counters.timeouts), (0, 0));
            assert_eq!(counters.ecn_reductions > 0, mark_every.is_some());
            assert!(stream.sender.snd_max() > stream.sender.snd_una());
        }
    }
    group.finish();
}

criterion_group!(benches, bench_ack);
criterion_main!(benches);
