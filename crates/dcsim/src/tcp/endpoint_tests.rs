//! Unit tests of `Endpoint`: two connection ends driven by hand. Packets are moved from one
//! end's `out` to the other's `on_segment`, and the test owns the clock. Every expected
//! value is derived by hand in the comments next to it.
//!
//! Conventions in all tests: MSS = 1460 B, 40 B of headers, SYN = sequence 0, data from 1, so
//! segment i (1-based) covers [1 + (i-1)·1460, 1 + i·1460) and an ACK of "n segments" has
//! ack number 1 + n·1460. The handshake runs with a 50 µs one-way delay: SYN at 0, SYN-ACK
//! at 50 µs, arriving at 100 µs, so the sender's first RTT sample is 100 µs and
//! RTO = max(RTO_min, 100 + 4·50 µs) = RTO_min.

use super::endpoint::{Endpoint, State, Timer};
use super::test_support::*;
use crate::net::packet::{Ecn, Segment, ACK, CWR, ECE, PSH, SYN};
use crate::scenario::{CcKind, DctcpReceiver};
use crate::units::{Rate, Time};

/// Ack number acknowledging the first `n` segments.
fn acked(n: u64) -> u64 {
    1 + n * MSS
}

fn endpoint(cc: CcKind, end: u8) -> Endpoint {
    endpoint_with(params(cc, false), cc, 1.0, end)
}

/// A packet the engine built (a SYN), as the base of hand-made packets, so that fields the
/// tests do not care about keep the engine's neutral values.
fn template() -> Segment {
    let mut e = endpoint(CcKind::NewReno, 0);
    let mut out = Vec::new();
    e.connect(Time::ZERO, &mut out);
    out[0]
}

/// A data segment from end 0 to end 1, crafted so the test controls its CE codepoint.
fn data_pkt(i: u64, ecn: Ecn, flags: u8, now: Time) -> Segment {
    Segment {
        conn: 0,
        dst: 1,
        from_end: 0,
        flags: ACK | flags,
        ecn,
        len: MSS as u32,
        size: MSS as u32 + 40,
        seq: seg(i),
        ack: 1,
        rwnd: RCV_BUF as u32,
        ts_val: now + Time::from_ps(1),
        ts_ecr: Time::ZERO,
        ..template()
    }
}

/// A pure ACK from end 1 to end 0 (no timestamp echo, so no RTT sample is taken).
fn ack_pkt(ack: u64, ece: bool) -> Segment {
    Segment {
        conn: 0,
        dst: 0,
        from_end: 1,
        flags: ACK | if ece { ECE } else { 0 },
        ecn: Ecn::NotEct,
        len: 0,
        size: 40,
        seq: 1,
        ack,
        rwnd: RCV_BUF as u32,
        ts_val: Time::from_ps(1),
        ts_ecr: Time::ZERO,
        ..template()
    }
}

fn segments_acked(p: &Segment) -> u64 {
    assert_eq!((p.ack - 1) % MSS, 0, "ack {} is not on a segment boundary", p.ack);
    (p.ack - 1) / MSS
}

// ====================================================================== 1. handshake (RFC 793, RFC 3168 §6.1.1)

#[test]
fn handshake_syn_synack_ack_and_no_data_before_synack() {
    let mut s = endpoint(CcKind::Dctcp, 0);
    let mut r = endpoint(CcKind::Dctcp, 1);
    s.write(1_000_000);
    let mut out = Vec::new();
    s.connect(Time::ZERO, &mut out);
    // Only the SYN: seq 0, no payload, ECN-setup flags ECE|CWR (RFC 3168 §6.1.1); a DCTCP
    // host sets ECT on control packets (as Linux DCTCP does; Judd's "Connection
    // Establishment" slide).
    assert_eq!(out.len(), 1);
    let syn = out.pop().unwrap();
    assert_eq!(syn.flags, SYN | ECE | CWR);
    assert_eq!((syn.seq, syn.len, syn.size), (0, 0, 40));
    assert_eq!(syn.ecn, Ecn::Ect);
    assert_eq!(s.state(), State::SynSent);
    // Initial RTO 1 s (RFC 6298 §2.1) before any sample.
    assert_eq!(s.deadline(Timer::Rto), Some(S));
    // However often the application pokes it, no data leaves before the SYN-ACK.
    for t in [US, 20 * US, 99 * US] {
        s.try_send(t, &mut out);
        s.write(1460);
        assert!(out.is_empty(), "data sent in SynSent at t = {t} ps");
    }

    r.on_segment(50 * US, &syn, &mut out);
    assert_eq!(out.len(), 1);
    let synack = out.pop().unwrap();
    assert_eq!(synack.flags, SYN | ACK | ECE, "SYN-ACK of an ECN-setup exchange carries ECE only");
    assert_eq!((synack.seq, synack.ack, synack.len), (0, 1, 0));
    assert_eq!(r.state(), State::SynRcvd);
    assert!(r.ecn_negotiated());
    assert_eq!(r.rcv_nxt(), 1);

    s.on_segment(100 * US, &synack, &mut out);
    assert_eq!(s.state(), State::Established);
    assert_eq!(s.established_at(), Some(100 * US));
    assert!(s.ecn_negotiated());
    // First the handshake ACK (seq 1, ack 1, no payload), then IW = 10 full segments.
    assert_eq!(out.len(), 11);
    assert_eq!((out[0].flags, out[0].seq, out[0].ack, out[0].len), (ACK, 1, 1, 0));
    for (i, p) in out[1..].iter().enumerate() {
        assert_eq!(p.seq, seg(i as u64 + 1));
        assert_eq!(p.len as u64, MSS);
        assert_eq!(p.flags & (SYN | CWR), 0);
        assert!(p.has(ACK));
        assert_eq!(p.ecn, Ecn::Ect, "new data of an ECN connection is ECT");
    }
    // RTT sample 100 µs: RTO = max(10 ms, 100 µs + 4·50 µs) = 10 ms, armed at the first send.
    assert_eq!(s.rtt().srtt, Some(100 * US));
    assert_eq!(s.deadline(Timer::Rto), Some(100 * US + 10 * MS));

    let hs_ack = out.remove(0);
    let mut r_out = Vec::new();
    r.on_segment(150 * US, &hs_ack, &mut r_out);
    assert_eq!(r.state(), State::Established);
    assert_eq!(r.established_at(), Some(150 * US));
    assert!(r_out.is_empty());
    // The listener's SYN-ACK timer is cancelled once established.
    assert_eq!(r.deadline(Timer::Rto), None);
}

#[test]
fn ecn_is_negotiated_only_when_both_ends_are_ecn_capable() {
    use CcKind::*;
    // (opener, listener, negotiated?)
    let cases = [
        (Dctcp, Dctcp, true),
        (TcpEcn, TcpEcn, true),
        (TcpEcn, Dctcp, true),
        (Dctcp, TcpEcn, true),
        (NewReno, Dctcp, false),
        (Dctcp, NewReno, false),
        (NewReno, TcpEcn, false),
        (TcpEcn, NewReno, false),
        (NewReno, NewReno, false),
        (Cubic, Dctcp, false), // CUBIC asks for ECN only with `tcp.cubic.ecn`
        (Dctcp, Cubic, false),
        (Cubic, Cubic, false),
    ];
    for (a, b, want) in cases {
        let mut s = endpoint(a, 0);
        let mut r = endpoint(b, 1);
        s.write(100_000);
        let mut out = Vec::new();
        s.connect(Time::ZERO, &mut out);
        let syn = out[0];
        let ecn_setup = matches!(a, TcpEcn | Dctcp);
        assert_eq!(syn.has(ECE) && syn.has(CWR), ecn_setup, "{a:?} SYN flags {:#x}", syn.flags);
        if !ecn_setup {
            assert_eq!(syn.flags, SYN);
        }
        // RFC 3168 §6.1.1 forbids ECT on a SYN; only a DCTCP host (ect_on_control) sets it.
        assert_eq!(syn.ecn == Ecn::Ect, a == Dctcp, "{a:?} SYN codepoint");
        out.clear();
        r.on_segment(50 * US, &syn, &mut out);
        let synack = out[0];
        assert_eq!(synack.has(ECE), want, "{a:?}->{b:?} SYN-ACK ECE");
        assert!(!synack.has(CWR), "a SYN-ACK never carries CWR");
        out.clear();
        s.on_segment(100 * US, &synack, &mut out);
        assert_eq!(s.ecn_negotiated(), want, "{a:?}->{b:?} opener");
        assert_eq!(r.ecn_negotiated(), want, "{a:?}->{b:?} listener");
        let data: Vec<_> = out.iter().filter(|p| p.len > 0).collect();
        assert_eq!(data.len(), 10);
        for p in data {
            let expect = if want { Ecn::Ect } else { Ecn::NotEct };
            assert_eq!(p.ecn, expect, "{a:?}->{b:?} data codepoint");
        }
    }
}

#[test]
fn syn_with_ece_but_without_cwr_is_not_an_ecn_setup_syn() {
    // RFC 3168 §6.1.1: an ECN-setup SYN has both ECE and CWR set.
    let mut r = endpoint(CcKind::Dctcp, 1);
    let mut out = Vec::new();
    let syn = Segment {
        flags: SYN | ECE,
        ecn: Ecn::NotEct,
        ..template()
    };
    assert_eq!((syn.seq, syn.len, syn.from_end), (0, 0, 0));
    r.on_segment(Time::ZERO, &syn, &mut out);
    assert_eq!(out.len(), 1);
    assert!(!r.ecn_negotiated());
    assert!(!out[0].has(ECE));
}

#[test]
fn syn_is_retransmitted_with_exponential_backoff() {
    let mut s = endpoint(CcKind::Dctcp, 0);
    let mut r = endpoint(CcKind::Dctcp, 1);
    s.write(1_000_000);
    let mut out = Vec::new();
    s.connect(Time::ZERO, &mut out);
    out.clear(); // the SYN is lost
                 // RTO_initial = 1 s, doubled per retry (RFC 6298 §5.5): retries at 1 s, 1+2 = 3 s,
                 // 3+4 = 7 s, and the next deadline is 7+8 = 15 s.
    let mut t = Time::ZERO;
    for (retry, gap) in [(1u64, 1u64), (2, 2), (3, 4)] {
        assert_eq!(s.deadline(Timer::Rto), Some(t + gap * S), "deadline before retry {retry}");
        t += gap * S;
        s.on_rto_timer(t, &mut out);
        assert_eq!(out.len(), 1, "one SYN per expiry");
        assert_eq!(out[0].flags, SYN | ECE | CWR);
        assert_eq!(out[0].seq, 0);
        assert_eq!(s.counters().syn_retries, retry);
        assert_eq!(s.state(), State::SynSent);
        if retry < 3 {
            out.clear(); // lost again
        }
    }
    assert_eq!(s.deadline(Timer::Rto), Some(7 * S + 8 * S));
    assert_eq!(s.counters().timeouts, 0, "SYN retries are not data timeouts");
    // The third retry gets through: handshake completes 100 µs later.
    let syn = out.pop().unwrap();
    r.on_segment(t + 50 * US, &syn, &mut out);
    let synack = out.pop().unwrap();
    s.on_segment(t + 100 * US, &synack, &mut out);
    assert_eq!(s.state(), State::Established);
    assert_eq!(s.established_at(), Some(t + 100 * US));
    // Backoff cleared, sample = 100 µs: the data RTO is 10 ms again, not 16 s.
    assert_eq!(s.rtt().backoff, 0);
    assert_eq!(s.rtt().srtt, Some(100 * US));
    assert_eq!(s.deadline(Timer::Rto), Some(t + 100 * US + 10 * MS));
    // RFC 5681 §3.1: after a lost SYN the initial window is one segment, not IW = 10.
    assert_eq!(out.iter().filter(|p| p.len > 0).count(), 1);
}

#[test]
fn lost_handshake_ack_is_recovered_by_synack_retransmission() {
    let mut s = endpoint(CcKind::NewReno, 0);
    let mut r = endpoint(CcKind::NewReno, 1);
    let mut out = Vec::new();
    s.connect(Time::ZERO, &mut out);
    let syn = out.pop().unwrap();
    r.on_segment(50 * US, &syn, &mut out);
    let synack = out.pop().unwrap();
    // The listener armed its SYN-ACK timer: RTO_initial = 1 s after 50 µs.
    assert_eq!(r.deadline(Timer::Rto), Some(50 * US + S));
    s.on_segment(100 * US, &synack, &mut out);
    out.clear(); // handshake ACK lost, and the opener has no data to send (app_end = 1)
    r.on_rto_timer(50 * US + S, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].flags & (SYN | ACK), SYN | ACK);
    // Backed off: next deadline 2 s later.
    assert_eq!(r.deadline(Timer::Rto), Some(50 * US + 3 * S));
    let synack2 = out.pop().unwrap();
    s.on_segment(S + 100 * US, &synack2, &mut out);
    assert_eq!(out.len(), 1, "the established opener re-ACKs a retransmitted SYN-ACK");
    assert_eq!((out[0].flags & (SYN | ACK), out[0].ack, out[0].len), (ACK, 1, 0));
    let ack = out.pop().unwrap();
    r.on_segment(S + 150 * US, &ack, &mut out);
    assert_eq!(r.state(), State::Established);
    assert_eq!(r.deadline(Timer::Rto), None);
}

#[test]
fn retransmitted_syn_after_lost_synack_gives_the_true_rtt_sample() {
    let mut s = endpoint(CcKind::Dctcp, 0);
    let mut r = endpoint(CcKind::Dctcp, 1);
    s.write(1_000_000);
    let mut out = Vec::new();
    s.connect(Time::ZERO, &mut out); // SYN #1, TSval = 0 + 1
    let syn1 = out.pop().unwrap();
    r.on_segment(50 * US, &syn1, &mut out);
    out.clear(); // SYN-ACK #1 lost (e.g. a non-ECT SYN-ACK dropped above K, §7.3)
    s.on_rto_timer(S, &mut out); // SYN #2 at 1 s, TSval = 1 s + 1
    let syn2 = out.pop().unwrap();
    r.on_segment(S + 50 * US, &syn2, &mut out);
    let synack2 = out.pop().unwrap();
    s.on_segment(S + 100 * US, &synack2, &mut out);
    // The RTT is 100 µs. (Regression: echoing SYN #1's TSval gave a 1 s + 100 µs sample,
    // SRTT ≈ 1 s and RTO ≈ 3 s instead of 10 ms, so the flow's first loss cost seconds.)
    assert_eq!(s.rtt().srtt, Some(100 * US), "SRTT after the handshake (ps)");
    assert_eq!(s.deadline(Timer::Rto), Some(S + 100 * US + 10 * MS));
    // RFC 7323 §4.3: SYN #2 has SEG.TSval >= TS.Recent and SEG.SEQ (0) <= Last.ACK.sent (1),
    // so TS.Recent = 1 s + 1 and the SYN-ACK echoes it.
    assert_eq!(synack2.ts_ecr, syn2.ts_val, "SYN-ACK must echo the SYN it answers");
}

// ====================================================================== 2. DCTCP receiver (DCTCP paper §3.1, Fig. 10)

/// Feeds 1-based segments with the given CE bits to an established receiver at 10 µs
/// spacing from t = 1 ms. Returns (trigger, acked segments, ECE) per ACK, where trigger is
/// the segment whose arrival emitted the ACK, and 0 for the delayed-ACK timer at the end.
fn run_receiver(variant: Option<DctcpReceiver>, m: u32, ce: &[u8]) -> (Vec<(u64, u64, bool)>, Endpoint) {
    let cc = CcKind::Dctcp;
    let mut p = params(cc, false);
    p.dctcp_receiver = variant;
    p.delack_segments = m;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint_with(p, cc, 1.0, 1);
    establish(&mut s, &mut r);
    let mut acks = Vec::new();
    let mut out = Vec::new();
    let mut t = MS;
    for (k, &c) in ce.iter().enumerate() {
        let i = k as u64 + 1;
        let ecn = if c == 1 { Ecn::Ce } else { Ecn::Ect };
        r.on_segment(t, &data_pkt(i, ecn, 0, t), &mut out);
        for a in out.drain(..) {
            assert_eq!(a.len, 0, "pure ACKs only");
            assert_eq!(a.ecn, Ecn::Ect, "a DCTCP host sets ECT on pure ACKs too");
            acks.push((i, segments_acked(&a), a.has(ECE)));
        }
        if let Some(d) = r.deadline(Timer::DelayedAck) {
            // A delayed run is pending: its timer is 40 ms after the run's first segment,
            // never reached at 10 µs spacing.
            assert!(d > t);
        }
        t += 10 * US;
    }
    if let Some(d) = r.deadline(Timer::DelayedAck) {
        r.on_delack_timer(d, &mut out);
        for a in out.drain(..) {
            acks.push((0, segments_acked(&a), a.has(ECE)));
        }
    }
    (acks, r)
}

const PATTERN: [u8; 9] = [0, 0, 1, 1, 1, 0, 0, 1, 0];

/// Marked segments reconstructed by a sender that counts every segment an ECE ACK covers.
fn reconstructed_marks(acks: &[(u64, u64, bool)]) -> u64 {
    let mut prev = 0;
    let mut marked = 0;
    for &(_, n, ece) in acks {
        if ece {
            marked += n - prev;
        }
        prev = n;
    }
    marked
}

#[test]
fn dctcp_receiver_paper_machine_m2() {
    // DCTCP paper Fig. 10 with m = 2. State CE starts 0; "un" = unACKed in-order segments.
    //
    //  seg CE | state  un before | action                                     | un after
    //   1  0  |  0      0        | accept, delay                              | 1
    //   2  0  |  0      1        | accept, un = 2 = m → ACK 2, ECE 0          | 0
    //   3  1  |  0→1    0        | change but nothing pending; accept, delay  | 1
    //   4  1  |  1      1        | un = 2 → ACK 4, ECE 1                      | 0
    //   5  1  |  1      0        | accept, delay                              | 1
    //   6  0  |  1→0    1        | change with 1 pending → ACK 5, ECE 1 now;  |
    //         |                  | accept 6, delay                            | 1
    //   7  0  |  0      1        | un = 2 → ACK 7, ECE 0                      | 0
    //   8  1  |  0→1    0        | change, nothing pending; accept, delay     | 1
    //   9  0  |  1→0    1        | change with 1 pending → ACK 8, ECE 1;      |
    //         |                  | accept 9, delay                            | 1
    //  timer  |                  | ACK 9, ECE 0                               | 0
    let (acks, r) = run_receiver(Some(DctcpReceiver::Paper), 2, &PATTERN);
    let expect = vec![
        (2, 2, false),
        (4, 4, true),
        (6, 5, true),
        (7, 7, false),
        (9, 8, true),
        (0, 9, false),
    ];
    assert_eq!(acks, expect);
    // Each ACK covers a run of equal CE bits, so the sender recovers the 4 marks exactly.
    assert_eq!(reconstructed_marks(&acks), 4);
    assert_eq!(r.rcv_nxt(), acked(9));
    assert_eq!(r.deadline(Timer::DelayedAck), None);
}

#[test]
fn dctcp_receiver_timer_after_state_change_is_armed_at_the_new_run() {
    // After the immediate ACK of segment 8 at segment 9's arrival, the new run {9} has its own
    // delayed-ACK timer: arrival of 9 + 40 ms. Segment 9 arrives at 1 ms + 8·10 µs = 1.08 ms.
    let cc = CcKind::Dctcp;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint(cc, 1);
    establish(&mut s, &mut r);
    let mut out = Vec::new();
    let mut t = MS;
    for (k, &c) in PATTERN.iter().enumerate() {
        let ecn = if c == 1 { Ecn::Ce } else { Ecn::Ect };
        r.on_segment(t, &data_pkt(k as u64 + 1, ecn, 0, t), &mut out);
        t += 10 * US;
    }
    assert_eq!(r.deadline(Timer::DelayedAck), Some(MS + 80 * US + 40 * MS));
    // Nothing is sent before the deadline...
    out.clear();
    r.on_delack_timer(MS + 80 * US + 40 * MS, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, acked(9));
    assert!(!out[0].has(ECE));
    // ... and the timer firing again with nothing pending sends nothing.
    out.clear();
    r.on_delack_timer(MS + 80 * US + 80 * MS, &mut out);
    assert!(out.is_empty());
}

#[test]
fn dctcp_receiver_linux_variant_m2() {
    // Linux dctcp_ece_ack_update: at a CE-state change, ACK the pending run with the old state
    // (if any), then ACK the new segment at once with the new state.
    //
    //  seg CE | un before | ACKs sent                       | un after
    //   1  0  | 0         | -                               | 1
    //   2  0  | 1         | ACK 2 ECE 0 (m reached)         | 0
    //   3  1  | 0         | change: ACK 3 ECE 1 (forced)    | 0
    //   4  1  | 0         | -                               | 1
    //   5  1  | 1         | ACK 5 ECE 1 (m reached)         | 0
    //   6  0  | 0         | change: ACK 6 ECE 0 (forced)    | 0
    //   7  0  | 0         | -                               | 1
    //   8  1  | 1         | change: ACK 7 ECE 0 (old run),  |
    //         |           |         ACK 8 ECE 1 (forced)    | 0
    //   9  0  | 0         | change: ACK 9 ECE 0 (forced)    | 0
    let (acks, r) = run_receiver(Some(DctcpReceiver::Linux), 2, &PATTERN);
    let expect = vec![
        (2, 2, false),
        (3, 3, true),
        (5, 5, true),
        (6, 6, false),
        (8, 7, false),
        (8, 8, true),
        (9, 9, false),
    ];
    assert_eq!(acks, expect);
    assert_eq!(reconstructed_marks(&acks), 4);
    assert_eq!(r.deadline(Timer::DelayedAck), None, "nothing left pending");
}

#[test]
fn dctcp_receiver_m1_echoes_each_segment() {
    // m = 1: every segment is ACKed at once, ECE iff that segment was CE (DCTCP §3.1 item 2).
    for variant in [DctcpReceiver::Paper, DctcpReceiver::Linux] {
        let (acks, _) = run_receiver(Some(variant), 1, &PATTERN);
        let expect: Vec<_> = PATTERN
            .iter()
            .enumerate()
            .map(|(k, &c)| (k as u64 + 1, k as u64 + 1, c == 1))
            .collect();
        assert_eq!(acks, expect, "{variant:?}");
    }
}

#[test]
fn dctcp_receiver_ignores_cwr() {
    // Unlike RFC 3168, a DCTCP receiver does not latch: CE, then CWR-flagged unmarked data →
    // ECE follows the CE bits only (m = 1).
    let cc = CcKind::Dctcp;
    let mut p = params(cc, false);
    p.delack_segments = 1;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint_with(p, cc, 1.0, 1);
    establish(&mut s, &mut r);
    let mut out = Vec::new();
    let seq = [(Ecn::Ce, 0), (Ecn::Ect, 0), (Ecn::Ect, CWR), (Ecn::Ce, CWR), (Ecn::Ect, 0)];
    let mut eces = Vec::new();
    for (k, (ecn, fl)) in seq.into_iter().enumerate() {
        r.on_segment(MS, &data_pkt(k as u64 + 1, ecn, fl, MS), &mut out);
        eces.push(out.drain(..).map(|a| a.has(ECE)).collect::<Vec<_>>());
    }
    assert_eq!(eces, vec![vec![true], vec![false], vec![false], vec![true], vec![false]]);
}

// ====================================================================== 3. RFC 3168 receiver

#[test]
fn rfc3168_receiver_latches_ece_until_cwr() {
    // TCP-ECN receiver (no DCTCP machine), m = 1 so every segment is ACKed.
    //  seg  codepoint CWR | latch after | ACK ECE
    //   1   ECT        -  | 0           | 0
    //   2   CE         -  | 1           | 1
    //   3   ECT        -  | 1           | 1   (latched)
    //   4   ECT        -  | 1           | 1   (latched)
    //   5   ECT        CWR| 0           | 0   (CWR confirms the reduction)
    //   6   ECT        -  | 0           | 0
    //   7   CE         -  | 1           | 1
    //   8   CE         CWR| 1           | 1   (new CE after CWR restarts the echo)
    //   9   ECT        -  | 1           | 1
    //  10   ECT        CWR| 0           | 0
    let cc = CcKind::TcpEcn;
    let mut p = params(cc, false);
    p.delack_segments = 1;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint_with(p, cc, 1.0, 1);
    establish(&mut s, &mut r);
    assert!(r.ecn_negotiated());
    use Ecn::{Ce, Ect};
    let segs = [
        (Ect, 0, false),
        (Ce, 0, true),
        (Ect, 0, true),
        (Ect, 0, true),
        (Ect, CWR, false),
        (Ect, 0, false),
        (Ce, 0, true),
        (Ce, CWR, true),
        (Ect, 0, true),
        (Ect, CWR, false),
    ];
    let mut out = Vec::new();
    for (k, (ecn, fl, want)) in segs.into_iter().enumerate() {
        let i = k as u64 + 1;
        r.on_segment(MS + i * US, &data_pkt(i, ecn, fl, MS), &mut out);
        assert_eq!(out.len(), 1, "segment {i}");
        let a = out.pop().unwrap();
        assert_eq!(a.ack, acked(i));
        assert_eq!(a.has(ECE), want, "segment {i}");
        // RFC 3168 §6.1.4: pure ACKs are not ECT.
        assert_eq!(a.ecn, Ecn::NotEct);
    }
}

#[test]
fn rfc3168_receiver_latched_ece_rides_on_delayed_acks() {
    // m = 2: CE on segment 1, segment 2 completes the pair → ACK 2 with ECE; segment 3 alone,
    // ACKed by the timer 40 ms later, still with ECE (no CWR seen yet); segment 4 with CWR and
    // segment 5 → ACK 5 without ECE.
    let cc = CcKind::TcpEcn;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint(cc, 1);
    establish(&mut s, &mut r);
    let mut out = Vec::new();
    r.on_segment(MS, &data_pkt(1, Ecn::Ce, 0, MS), &mut out);
    assert!(out.is_empty());
    r.on_segment(MS + US, &data_pkt(2, Ecn::Ect, 0, MS), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].ack, out[0].has(ECE)), (acked(2), true));
    out.clear();
    r.on_segment(2 * MS, &data_pkt(3, Ecn::Ect, 0, 2 * MS), &mut out);
    assert!(out.is_empty());
    assert_eq!(r.deadline(Timer::DelayedAck), Some(42 * MS));
    r.on_delack_timer(42 * MS, &mut out);
    assert_eq!((out[0].ack, out[0].has(ECE)), (acked(3), true));
    out.clear();
    r.on_segment(50 * MS, &data_pkt(4, Ecn::Ect, CWR, 50 * MS), &mut out);
    r.on_segment(50 * MS + US, &data_pkt(5, Ecn::Ect, 0, 50 * MS), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].ack, out[0].has(ECE)), (acked(5), false));
}

#[test]
fn receiver_without_negotiated_ecn_never_echoes() {
    // A NewReno receiver that sees CE (a confused switch) must not set ECE (RFC 3168 §6.1.1:
    // ECN is used only if negotiated).
    let cc = CcKind::NewReno;
    let mut p = params(cc, false);
    p.delack_segments = 1;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint_with(p, cc, 1.0, 1);
    establish(&mut s, &mut r);
    let mut out = Vec::new();
    r.on_segment(MS, &data_pkt(1, Ecn::Ce, 0, MS), &mut out);
    assert_eq!(out.len(), 1);
    assert!(!out[0].has(ECE));
}

// ====================================================================== 4. sender ECN reaction (RFC 3168 §6.1.2, DCTCP paper §3.1)

#[test]
fn dctcp_sender_cuts_once_per_window_with_current_alpha() {
    // g = 1/16, α_init = 0.5 (so that the DCTCP cut differs from a halving), IW = 10.
    // After the handshake: cwnd = 14600, snd_una = 1, snd_nxt = 14601, window_end = 1.
    let cc = CcKind::Dctcp;
    let mut s = endpoint_with(params(cc, false), cc, 0.5, 0);
    let mut r = endpoint(cc, 1);
    s.write(u64::MAX);
    let data = establish(&mut s, &mut r);
    assert_eq!(data.len(), 10);
    assert_eq!(s.cwnd(), 14600.0);
    assert!(s.ssthresh().is_infinite());
    let mut out = Vec::new();

    // A1: ack 2 segments, ECE. α update first (snd_una 2921 ≥ window_end 1):
    //   F = 2920/2920 = 1, α = 0.5·15/16 + 1/16 = 0.53125; window_end = snd_nxt = 14601.
    // Then the cut with that α: cwnd = 14600·(1 − 0.265625) = 10721.875 = ssthresh.
    // (Cutting with the stale α = 0.5 would give 10950.) flight 11680 > cwnd: nothing sent.
    s.on_segment(200 * US, &ack_pkt(acked(2), true), &mut out);
    assert_eq!(s.alpha(), 0.53125);
    assert_eq!(s.cwnd(), 10721.875);
    assert_eq!(s.ssthresh(), 10721.875);
    assert_eq!(s.counters().ecn_reductions, 1);
    assert_eq!(s.counters().ece_acks, 1);
    assert!(out.is_empty());

    // A2: ack 4 segments, ECE. snd_una 5841 ≤ guard 14601: no cut; the ACK grows cwnd in
    // congestion avoidance: 10721.875 + 1460·2920/10721.875 = 11119.492…
    // flight 14601 − 5841 = 8760, + 1460 = 10220 ≤ 11119 → one new segment (seq 14601),
    // the first new data after the cut: it carries CWR (RFC 3168 §6.1.2).
    s.on_segment(210 * US, &ack_pkt(acked(4), true), &mut out);
    let c2 = 10721.875 + 1460.0 * 2920.0 / 10721.875;
    assert!((s.cwnd() - c2).abs() < 1e-9, "cwnd {} vs {c2}", s.cwnd());
    assert_eq!(s.counters().ecn_reductions, 1);
    assert_eq!(s.counters().ece_acks, 2);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, seg(11));
    assert!(out[0].has(CWR), "CWR on the first new segment after the cut");
    assert_eq!(out[0].ecn, Ecn::Ect);
    out.clear();

    // A3: ack 6 segments, ECE: still no cut; cwnd = c2 + 1460·2920/c2 = 11502.89…;
    // flight 16061 − 8761 = 7300 → two more segments (8760, 10220 ≤ 11502), no CWR.
    s.on_segment(220 * US, &ack_pkt(acked(6), true), &mut out);
    let c3 = c2 + 1460.0 * 2920.0 / c2;
    assert!((s.cwnd() - c3).abs() < 1e-9);
    assert_eq!(s.counters().ecn_reductions, 1, "three ECE ACKs in one window: one cut");
    assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![seg(12), seg(13)]);
    assert!(out.iter().all(|p| !p.has(CWR)), "CWR only once");
    out.clear();

    // A4: ack 10 segments, no ECE: snd_una 14601 ≥ window_end 14601 closes the window:
    //   acked 2920 + 2920 + 5840 = 11680 B (A2..A4), marked 5840 B (A2, A3), F = 1/2,
    //   α = 0.53125·15/16 + 0.5/16 = 0.529296875; window_end = snd_nxt = 18981.
    // Growth: c4 = c3 + 1460·5840/c3 = 12244.13…; 5 new segments (seq 18981..).
    s.on_segment(230 * US, &ack_pkt(acked(10), false), &mut out);
    let a2 = 0.529296875;
    assert_eq!(s.alpha(), a2);
    let c4 = c3 + 1460.0 * 5840.0 / c3;
    assert!((s.cwnd() - c4).abs() < 1e-9);
    assert_eq!(out.len(), 5);
    out.clear();

    // A5: ack 11 segments (the CWR segment, sent after the first cut), ECE: snd_una 16061 >
    // guard 14601 → second cut, with α unchanged (16061 < window_end 18981):
    //   cwnd = 12244.13…·(1 − 0.529296875/2) = 9003.74…
    s.on_segment(240 * US, &ack_pkt(acked(11), true), &mut out);
    assert_eq!(s.counters().ecn_reductions, 2);
    let c5 = c4 * (1.0 - a2 / 2.0);
    assert!((s.cwnd() - c5).abs() < 1e-9, "cwnd {} vs {c5}", s.cwnd());
    assert!((s.ssthresh() - c5).abs() < 1e-9);
    assert!((c5 - 9003.740559).abs() < 1e-5);
}

#[test]
fn tcp_ecn_sender_halves_once_per_window_and_sets_cwr_once() {
    let cc = CcKind::TcpEcn;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint(cc, 1);
    s.write(u64::MAX);
    let data = establish(&mut s, &mut r);
    assert_eq!(data.len(), 10);
    assert!(data.iter().all(|p| !p.has(CWR)));
    let mut out = Vec::new();
    // A1 ECE: cwnd = ssthresh = 14600/2 = 7300 (RFC 3168 §6.1.2); nothing retransmitted.
    s.on_segment(200 * US, &ack_pkt(acked(2), true), &mut out);
    assert_eq!((s.cwnd(), s.ssthresh()), (7300.0, 7300.0));
    assert!(out.is_empty());
    // A2 ECE (same window): no cut; CA growth 7300 + 1460·2920/7300 = 7884; flight 8760 > 7884.
    s.on_segment(210 * US, &ack_pkt(acked(4), true), &mut out);
    assert_eq!(s.cwnd(), 7884.0);
    assert!(out.is_empty());
    // A3 ECE: 7884 + 1460·2920/7884 = 8424.74…; flight 5840 → one new segment with CWR.
    s.on_segment(220 * US, &ack_pkt(acked(6), true), &mut out);
    assert!((s.cwnd() - (7884.0 + 1460.0 * 2920.0 / 7884.0)).abs() < 1e-9);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, seg(11));
    assert!(out[0].has(CWR));
    assert_eq!(out[0].ecn, Ecn::Ect);
    out.clear();
    // A4 no ECE: growth to 8930.77…; flight 4380 → 3 segments, none with CWR.
    s.on_segment(230 * US, &ack_pkt(acked(8), false), &mut out);
    assert_eq!(out.len(), 3);
    assert!(out.iter().all(|p| !p.has(CWR)));
    let c4 = s.cwnd();
    assert!((c4 - 8930.774116863975).abs() < 1e-6);
    out.clear();
    assert_eq!(s.counters().ecn_reductions, 1);
    assert_eq!(s.counters().ece_acks, 3);
    // A5 acks segment 11 (sent after the cut) with ECE: a new window → second halving.
    s.on_segment(240 * US, &ack_pkt(acked(11), true), &mut out);
    assert_eq!(s.counters().ecn_reductions, 2);
    assert_eq!(s.cwnd(), c4 / 2.0);
    assert_eq!(s.ssthresh(), c4 / 2.0);
    // No retransmission for an ECN cut.
    assert_eq!(s.counters().retransmits, 0);
}

#[test]
fn ece_on_a_connection_without_ecn_is_ignored() {
    let cc = CcKind::NewReno;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint(cc, 1);
    s.write(u64::MAX);
    establish(&mut s, &mut r);
    let mut out = Vec::new();
    // Slow start: +min(2920, 2·1460) = 2920 per ACK, no ECN reaction.
    s.on_segment(200 * US, &ack_pkt(acked(2), true), &mut out);
    assert_eq!(s.cwnd(), 14600.0 + 2920.0);
    assert_eq!(s.counters().ecn_reductions, 0);
    assert_eq!(s.counters().ece_acks, 0);
}

// ====================================================================== 5. NewReno (RFC 5681 §3.2, RFC 6582)

/// Sender (application-limited to 10 segments) and receiver after the handshake.
/// Delivers all 10 segments except those in `lost`; returns the receiver's ACKs.
fn newreno_window_with_losses(lost: &[u64]) -> (Endpoint, Endpoint, Vec<Segment>, Vec<Segment>) {
    let cc = CcKind::NewReno;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint(cc, 1);
    s.write(10 * MSS);
    let data = establish(&mut s, &mut r);
    assert_eq!(data.len(), 10);
    assert!(data[9].has(PSH) && !data[8].has(PSH), "PSH marks the end of the write");
    assert_eq!(s.snd_max(), acked(10));
    let mut acks = Vec::new();
    let mut t = 200 * US;
    for p in &data {
        let i = (p.seq - 1) / MSS + 1;
        if !lost.contains(&i) {
            r.on_segment(t, p, &mut acks);
        }
        t += 12 * US;
    }
    (s, r, data, acks)
}

#[test]
fn newreno_fast_retransmit_and_full_ack() {
    // Window of 10 segments, segment 3 lost. Receiver (m = 2): 1, 2 → ACK 2 (delayed pair);
    // 4..10 out of order → 7 immediate duplicate ACKs of 2 segments.
    let (mut s, mut r, data, acks) = newreno_window_with_losses(&[3]);
    assert_eq!(acks.len(), 8);
    assert!(acks.iter().all(|a| a.ack == acked(2) && a.len == 0));
    let mut out = Vec::new();
    let mut t = 400 * US;
    // New ACK: snd_una = 2921. The sender is application-limited (all it has was sent) but
    // the window is validated (10 segments in flight ≥ cwnd/2, RFC 7661 §4.3): slow start
    // adds 2 segments.
    s.on_segment(t, &acks[0], &mut out);
    assert_eq!(s.snd_una(), acked(2));
    assert_eq!(s.cwnd(), 14600.0 + 2920.0);
    // Dup ACKs 1 and 2: nothing happens (no limited transmit).
    for a in &acks[1..3] {
        t += US;
        s.on_segment(t, a, &mut out);
        assert!(out.is_empty());
        assert_eq!(s.cwnd(), 17520.0);
    }
    // Dup ACK 3: FlightSize = 14601 − 2921 = 11680; ssthresh = max(5840, 2920) = 5840;
    // cwnd = 5840 + 3·1460 = 10220; retransmit exactly segment 3.
    t += US;
    s.on_segment(t, &acks[3], &mut out);
    assert_eq!(s.ssthresh(), 5840.0);
    assert_eq!(s.cwnd(), 10220.0);
    assert_eq!(out.len(), 1);
    let rtx = out.pop().unwrap();
    assert_eq!((rtx.seq, rtx.len as u64), (seg(3), MSS));
    assert_eq!(rtx.ecn, Ecn::NotEct);
    assert_eq!(s.counters().fast_retransmits, 1);
    assert_eq!(s.counters().retransmits, 1);
    assert_eq!(s.counters().timeouts, 0);
    // The application writes one more segment, so that data is outstanding at the full ACK.
    s.write(MSS);
    // Dup ACKs 4..7 inflate cwnd by 1 MSS each: 11680, 13140, 14600, 16060.
    // flight = snd_nxt − snd_una = 11680; the new segment 11 fits once cwnd = 13140.
    let mut sent = Vec::new();
    for (k, a) in acks[4..8].iter().enumerate() {
        t += US;
        s.on_segment(t, a, &mut out);
        assert_eq!(s.cwnd(), 10220.0 + 1460.0 * (k as f64 + 1.0));
        sent.extend(out.drain(..).map(|p| (k, p.seq)));
    }
    assert_eq!(sent, vec![(1, seg(11))], "segment 11 leaves at the 5th dup ACK");
    assert_eq!(s.ssthresh(), 5840.0, "inflation leaves ssthresh alone");
    // The retransmission fills the hole: the receiver ACKs 10 segments at once.
    let mut r_out = Vec::new();
    r.on_segment(t + 50 * US, &rtx, &mut r_out);
    assert_eq!(r_out.len(), 1);
    assert_eq!(r_out[0].ack, acked(10));
    assert_eq!(r.delivered(), 10 * MSS);
    // Full ACK (≥ recover = 14601): FlightSize = 16061 − 14601 = 1460;
    // cwnd = min(ssthresh 5840, 1460 + 1460) = 2920 (RFC 6582 §3.2 step 3, option 1).
    s.on_segment(t + 100 * US, &r_out[0], &mut out);
    assert_eq!(s.snd_una(), acked(10));
    assert_eq!(s.cwnd(), 2920.0);
    assert_eq!(s.ssthresh(), 5840.0);
    assert!(out.is_empty());
    // Recovery is over: a new window's triple dup ACK would trigger a new fast retransmit,
    // but further dup ACKs of the same ack do not inflate any more.
    let before = s.cwnd();
    s.on_segment(t + 101 * US, &ack_pkt(acked(10), false), &mut out);
    assert_eq!(s.cwnd(), before, "no inflation outside recovery");
    let _ = data;
}

#[test]
fn newreno_full_ack_with_nothing_outstanding_deflates_to_two_segments() {
    let (mut s, mut r, _, acks) = newreno_window_with_losses(&[3]);
    let mut out = Vec::new();
    for (k, a) in acks.iter().enumerate() {
        s.on_segment(400 * US + k as u64 * US, a, &mut out);
    }
    assert_eq!(out.len(), 1);
    let rtx = out.pop().unwrap();
    assert_eq!(s.ssthresh(), 5840.0);
    let mut r_out = Vec::new();
    r.on_segment(600 * US, &rtx, &mut r_out);
    s.on_segment(700 * US, &r_out[0], &mut out);
    assert_eq!(s.snd_una(), s.snd_max(), "everything acknowledged");
    // FlightSize = 0: cwnd = min(5840, max(0, 1460) + 1460) = 2920 (RFC 6582 §3.2 step 3
    // option 1; regression: min(ssthresh, FlightSize + SMSS) gave 1 MSS).
    assert_eq!(s.cwnd(), 2920.0);
}

#[test]
fn newreno_partial_ack_retransmits_the_next_hole() {
    // Segments 3 and 6 lost. Receiver: ACK 2 after 1, 2; dup ACKs for 4, 5, 7, 8, 9, 10.
    let (mut s, mut r, _, acks) = newreno_window_with_losses(&[3, 6]);
    assert_eq!(acks.len(), 7);
    let mut out = Vec::new();
    let mut t = 400 * US;
    for a in &acks {
        t += US;
        s.on_segment(t, a, &mut out);
    }
    // Fast retransmit of 3 at the third dup ACK: ssthresh 5840, cwnd 10220, then three more
    // dup ACKs inflate to 14600.
    assert_eq!(out.len(), 1);
    let rtx3 = out.pop().unwrap();
    assert_eq!(rtx3.seq, seg(3));
    assert_eq!(s.cwnd(), 14600.0);
    // The receiver gets 3: in order up to 5 (4 and 5 were buffered), still a hole at 6 →
    // immediate ACK of 5 segments (RFC 5681 §4.2: a segment that fills a hole).
    let mut r_out = Vec::new();
    r.on_segment(t + 50 * US, &rtx3, &mut r_out);
    assert_eq!(r_out.len(), 1);
    assert_eq!(r_out[0].ack, acked(5));
    // Partial ACK (7301 < recover 14601): retransmit segment 6 at once; deflate by the 4380 B
    // acked, add back 1 MSS: cwnd = 14600 − 4380 + 1460 = 11680; RTO restarted.
    let t_partial = t + 100 * US;
    s.on_segment(t_partial, &r_out[0], &mut out);
    assert_eq!(out.len(), 1);
    let rtx6 = out.pop().unwrap();
    assert_eq!((rtx6.seq, rtx6.len as u64), (seg(6), MSS));
    assert_eq!(s.cwnd(), 11680.0);
    assert_eq!(s.ssthresh(), 5840.0);
    assert_eq!(s.counters().fast_retransmits, 1, "a partial ACK does not start a new recovery");
    assert_eq!(s.counters().retransmits, 2);
    assert_eq!(s.deadline(Timer::Rto), Some(t_partial + s.rtt().rto(&s.params().rto)));
    // 6 arrives: everything in order → ACK 10 segments; the full ACK ends recovery.
    r_out.clear();
    r.on_segment(t + 150 * US, &rtx6, &mut r_out);
    assert_eq!(r_out[0].ack, acked(10));
    s.on_segment(t + 200 * US, &r_out[0], &mut out);
    assert_eq!(s.snd_una(), acked(10));
    assert!(s.cwnd() <= s.ssthresh(), "window deflated at the full ACK");
    assert_eq!(s.deadline(Timer::Rto), None, "nothing outstanding");
    assert_eq!(s.counters().timeouts, 0);
    assert_eq!(r.delivered(), 10 * MSS);
}

// ====================================================================== 6. RTO (RFC 6298)

#[test]
fn rto_collapses_window_backs_off_and_goes_back_n() {
    let cc = CcKind::NewReno;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint(cc, 1);
    s.write(u64::MAX);
    let data = establish(&mut s, &mut r);
    assert_eq!(data.len(), 10);
    // RTT sample 100 µs → SRTT + 4·RTTVAR = 300 µs, below RTO_min = 10 ms: the timer is
    // 10 ms after the first data segment left at 100 µs.
    let t0 = 100 * US;
    assert_eq!(s.deadline(Timer::Rto), Some(t0 + 10 * MS));
    let mut out = Vec::new();
    // Whole window lost. First expiry: FlightSize = 14600, ssthresh = max(7300, 2920) = 7300,
    // cwnd = 1 MSS; retransmit from snd_una = 1; next RTO doubled to 20 ms.
    let t1 = t0 + 10 * MS;
    s.on_rto_timer(t1, &mut out);
    assert_eq!(s.counters().timeouts, 1);
    assert_eq!(s.ssthresh(), 7300.0);
    assert_eq!(s.cwnd(), 1460.0);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].seq, out[0].len as u64), (1, MSS));
    assert_eq!(s.counters().retransmits, 1);
    assert_eq!(s.deadline(Timer::Rto), Some(t1 + 20 * MS));
    out.clear();
    // Second expiry: ssthresh stays 7300 (RFC 5681 §3.1: a segment already resent by the
    // timer does not lower ssthresh again; FlightSize = snd_max − snd_una is still 14600),
    // cwnd 1 MSS, segment 1 again, RTO 40 ms.
    let t2 = t1 + 20 * MS;
    s.on_rto_timer(t2, &mut out);
    assert_eq!(s.counters().timeouts, 2);
    assert_eq!((s.cwnd(), s.ssthresh()), (1460.0, 7300.0));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, 1);
    assert_eq!(s.deadline(Timer::Rto), Some(t2 + 40 * MS));
    let rtx = out.pop().unwrap();
    // The retransmission is ACKed 100 µs later (echoing its timestamp): backoff cleared, slow
    // start from 1 MSS: cwnd = 1460 + min(1460, 2920) = 2920 → go-back-N resends 2 and 3.
    let mut ack = ack_pkt(acked(1), false);
    ack.ts_ecr = rtx.ts_val;
    let t3 = t2 + 100 * US;
    s.on_segment(t3, &ack, &mut out);
    assert_eq!(s.rtt().backoff, 0);
    assert_eq!(s.cwnd(), 2920.0);
    assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![seg(2), seg(3)]);
    // Segment 1 twice (one per timeout), then 2 and 3: 4 retransmissions.
    assert_eq!(s.counters().retransmits, 4, "segments 2, 3 are resent data");
    // RTO back to max(10 ms, SRTT + 4·RTTVAR) = 10 ms after the un-backed-off timer restart.
    assert_eq!(s.deadline(Timer::Rto), Some(t3 + 10 * MS));
    assert_eq!(s.snd_max(), acked(10), "resending does not move snd_max");
}

#[test]
fn rto_ssthresh_floor_is_two_segments_and_rto_min_is_respected() {
    // IW = 2: FlightSize = 2920 → ssthresh = max(1460, 2920) = 2920.
    // RTO_min = 300 ms (the DCTCP testbed default): the deadline is 300 ms, not 300 µs.
    let cc = CcKind::NewReno;
    let mut p = params(cc, false);
    p.init_cwnd_segments = 2;
    p.rto.min = 300 * MS;
    let mut s = endpoint_with(p.clone(), cc, 1.0, 0);
    let mut r = endpoint_with(p, cc, 1.0, 1);
    s.write(u64::MAX);
    let data = establish(&mut s, &mut r);
    assert_eq!(data.len(), 2);
    let t0 = 100 * US;
    assert_eq!(s.deadline(Timer::Rto), Some(t0 + 300 * MS));
    let mut out = Vec::new();
    s.on_rto_timer(t0 + 300 * MS, &mut out);
    assert_eq!(s.ssthresh(), 2920.0);
    assert_eq!(s.cwnd(), 1460.0);
    assert_eq!(s.deadline(Timer::Rto), Some(t0 + 300 * MS + 600 * MS));
    assert_eq!(s.counters().timeouts, 1);
}

#[test]
fn rto_timer_with_nothing_outstanding_does_nothing() {
    let cc = CcKind::NewReno;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint(cc, 1);
    s.write(2 * MSS);
    let data = establish(&mut s, &mut r);
    let mut out = Vec::new();
    r.on_segment(200 * US, &data[0], &mut out);
    r.on_segment(201 * US, &data[1], &mut out);
    assert_eq!(out.len(), 1);
    let ack = out.pop().unwrap();
    s.on_segment(300 * US, &ack, &mut out);
    assert_eq!(s.deadline(Timer::Rto), None, "all data acknowledged: timer stopped");
    s.on_rto_timer(20 * MS, &mut out);
    assert!(out.is_empty());
    assert_eq!(s.counters().timeouts, 0);
    assert_eq!(s.cwnd(), 14600.0);
}

// ====================================================================== 7. delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2)

#[test]
fn delayed_acks_timer_pairs_out_of_order_and_hole_filling() {
    let cc = CcKind::NewReno;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint(cc, 1);
    establish(&mut s, &mut r);
    let mut out = Vec::new();
    // A lone segment at 1 ms: no ACK yet, timer at 1 ms + 40 ms.
    r.on_segment(MS, &data_pkt(1, Ecn::NotEct, 0, MS), &mut out);
    assert!(out.is_empty());
    assert_eq!(r.deadline(Timer::DelayedAck), Some(41 * MS));
    // The timer fires: ACK of segment 1.
    r.on_delack_timer(41 * MS, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].ack, out[0].len, out[0].flags), (acked(1), 0, ACK));
    assert_eq!(r.deadline(Timer::DelayedAck), None);
    out.clear();
    // Two segments: the second is ACKed at once (m = 2), covering both.
    r.on_segment(50 * MS, &data_pkt(2, Ecn::NotEct, 0, 50 * MS), &mut out);
    assert!(out.is_empty());
    assert_eq!(r.deadline(Timer::DelayedAck), Some(90 * MS));
    r.on_segment(50 * MS + 12 * US, &data_pkt(3, Ecn::NotEct, 0, 50 * MS), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, acked(3));
    assert_eq!(r.deadline(Timer::DelayedAck), None, "timer cancelled by the ACK");
    out.clear();
    // Segment 4 arrives in order and is held; then 6 arrives out of order: an immediate ACK
    // (RFC 5681 §4.2) of everything in order, i.e. 4 segments; 7 → duplicate of that ACK.
    r.on_segment(60 * MS, &data_pkt(4, Ecn::NotEct, 0, 60 * MS), &mut out);
    assert!(out.is_empty());
    r.on_segment(60 * MS + 12 * US, &data_pkt(6, Ecn::NotEct, 0, 60 * MS), &mut out);
    assert_eq!(out.len(), 1, "out-of-order segment → immediate ACK");
    assert_eq!(out[0].ack, acked(4));
    assert_eq!(r.deadline(Timer::DelayedAck), None);
    out.clear();
    r.on_segment(60 * MS + 24 * US, &data_pkt(7, Ecn::NotEct, 0, 60 * MS), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, acked(4), "duplicate ACK");
    out.clear();
    // 5 fills the hole: 5, 6, 7 in order → immediate ACK of 7 segments.
    r.on_segment(60 * MS + 36 * US, &data_pkt(5, Ecn::NotEct, 0, 60 * MS), &mut out);
    assert_eq!(out.len(), 1, "hole filled → immediate ACK");
    assert_eq!(out[0].ack, acked(7));
    assert_eq!(r.delivered(), 7 * MSS);
    assert_eq!(r.deadline(Timer::DelayedAck), None);
    out.clear();
    // An old duplicate (segment 2 again) is re-ACKed at once.
    r.on_segment(70 * MS, &data_pkt(2, Ecn::NotEct, 0, 70 * MS), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, acked(7));
    out.clear();
    // A lone segment with PSH (end of the application's write) is ACKed at once.
    r.on_segment(80 * MS, &data_pkt(8, Ecn::NotEct, PSH, 80 * MS), &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, acked(8));
    assert_eq!(r.deadline(Timer::DelayedAck), None);
    out.clear();
    // The timer firing with nothing pending sends nothing.
    r.on_delack_timer(200 * MS, &mut out);
    assert!(out.is_empty());
}

#[test]
fn delayed_ack_deadline_is_not_pushed_back_by_later_segments() {
    // m = 3: segments at 1 ms and 2 ms; the timer stays at 1 ms + 40 ms (first unACKed
    // arrival), the ACK it sends covers both.
    let cc = CcKind::NewReno;
    let mut p = params(cc, false);
    p.delack_segments = 3;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint_with(p, cc, 1.0, 1);
    establish(&mut s, &mut r);
    let mut out = Vec::new();
    r.on_segment(MS, &data_pkt(1, Ecn::NotEct, 0, MS), &mut out);
    r.on_segment(2 * MS, &data_pkt(2, Ecn::NotEct, 0, 2 * MS), &mut out);
    assert!(out.is_empty());
    assert_eq!(r.deadline(Timer::DelayedAck), Some(41 * MS));
    r.on_delack_timer(41 * MS, &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].ack, acked(2));
    // The ACK echoes the earliest unACKed segment's timestamp (RFC 7323 §4.3): 1 ms + 1.
    assert_eq!(out[0].ts_ecr, MS + Time::from_ps(1));
}

#[test]
fn a_segment_that_fills_the_advertised_window_is_acked_at_once() {
    // m = 2. The receiver advertised a window ending one segment past rcv_nxt (a 1-MSS ICTCP
    // window): the first segment fills it and is ACKed at once, not after the 40 ms timer.
    // With the edge two segments away the first segment waits as usual.
    let cc = CcKind::NewReno;
    for (edge_segments, acked_at_once) in [(1u64, true), (2, false)] {
        let mut s = endpoint(cc, 0);
        let mut r = endpoint(cc, 1);
        establish(&mut s, &mut r);
        r.on_window_advertised(r.rcv_nxt() + edge_segments * 1460);
        let mut out = Vec::new();
        r.on_segment(MS, &data_pkt(1, Ecn::NotEct, 0, MS), &mut out);
        assert_eq!(out.len(), usize::from(acked_at_once), "edge {edge_segments} segments");
        assert_eq!(r.deadline(Timer::DelayedAck).is_some(), !acked_at_once);
    }
}

/// A sender with a 64-segment offload burst (DCTCP paper §3.5), its peer's window
/// `rwnd_segments`, IW `iw`; returns the ends after the handshake and the data sent with it.
fn offload_pair(rwnd_segments: u64, iw: u32) -> (Endpoint, Vec<Segment>) {
    let cc = CcKind::NewReno;
    let mut ps = params(cc, false);
    ps.offload_burst_segments = 64;
    ps.init_cwnd_segments = iw;
    let mut pr = params(cc, false);
    pr.rcv_buffer = rwnd_segments * MSS;
    let mut s = endpoint_with(ps, cc, 1.0, 0);
    let mut r = endpoint_with(pr, cc, 1.0, 1);
    s.write(10_000_000);
    let sent = establish(&mut s, &mut r);
    (s, sent)
}

#[test]
fn offload_waits_for_a_burst_but_never_for_more_than_a_third_of_the_window() {
    // Peer window 3 MSS: 3 segments go out; the receiver ACKs two (its delayed ACK holds the
    // third). 2 MSS of room is less than a burst but more than a third of the window, so the
    // sender sends at once (Linux tcp_tso_win_divisor = 3); waiting for a 3-MSS room would
    // wait for the receiver's 40 ms timer.
    let (mut s, sent) = offload_pair(3, 10);
    assert_eq!(sent.len(), 3);
    let mut out = Vec::new();
    let mut a = ack_pkt(acked(2), false);
    a.rwnd = (3 * MSS) as u32;
    s.on_segment(300 * US, &a, &mut out);
    assert_eq!(out.len(), 2, "sent as soon as a third of the window is free");
    // A 300-MSS window: the first 300 segments leave at once (IW 300). ACKs that open 4 MSS
    // are held (a burst is 64, a third of the window 100); the one that opens ≥ 64 sends them
    // back to back.
    let (mut s, sent) = offload_pair(1_000, 300);
    assert_eq!(sent.len(), 300);
    let mut out = Vec::new();
    s.on_segment(300 * US, &ack_pkt(acked(2), false), &mut out);
    assert!(out.is_empty(), "4 MSS of room: held for the burst");
    s.on_segment(310 * US, &ack_pkt(acked(66), false), &mut out);
    assert!(out.len() >= 64, "a whole burst: {}", out.len());
}

// ====================================================================== pacing

#[test]
fn a_pacing_rate_releases_each_data_segment_one_transmission_time_after_the_last() {
    // The controller asks for 1 Gbps: a 1500-B segment (1460 + 40 B of headers) takes 12 µs
    // at that rate. With IW 10 the window would send 10 segments at once when the SYN-ACK
    // arrives (100 µs); paced, one leaves and the next waits until 112 µs.
    let cc = CcKind::NewReno;
    let mut s = endpoint(cc, 0);
    let mut r = endpoint(cc, 1);
    s.cc_mut().win.pacing = Some(Rate::from_gbps(1.0));
    s.write(100_000);
    let sent = establish(&mut s, &mut r);
    assert_eq!(sent.len(), 1);
    assert_eq!(s.pace_deadline(), Some(112 * US));
    // An ACK arriving before then (it acknowledges nothing new) sends nothing.
    let mut out = Vec::new();
    s.on_segment(105 * US, &ack_pkt(1, false), &mut out);
    assert!(out.is_empty());
    assert_eq!(s.pace_deadline(), Some(112 * US));
    // The deadline lets exactly one more go, and sets the next 12 µs later.
    for k in 1..=3u64 {
        let now = (100 + 12 * k) * US;
        s.on_pace_timer(now, &mut out);
        assert_eq!(out.len(), 1, "at {now}");
        assert_eq!(out[0].seq, seg(k + 1));
        assert_eq!(s.pace_deadline(), Some(now + 12 * US));
        out.clear();
    }
    // Without a rate the same sender sends the rest of its window at once and sets no deadline.
    s.cc_mut().win.pacing = None;
    s.on_pace_timer(140 * US, &mut out);
    assert_eq!(out.len(), 6);
    assert_eq!(s.pace_deadline(), None);
}

#[test]
fn a_dropped_syn_costs_the_initial_rto_then_its_backoff_and_the_last_retry_gives_up() {
    // RTO_initial = 1 s (params), syn_retries = 6: SYNs at 0, 1, 3, 7, 15, 31, 63 s (each
    // wait doubles, RFC 6298 §5.5); the last wait, 64 s, is capped at RTO_max = 60 s
    // (params), so it ends at 123 s and the connection fails.
    let mut s = endpoint(CcKind::NewReno, 0);
    let mut out = Vec::new();
    s.connect(Time::ZERO, &mut out);
    let mut sent_at = vec![Time::ZERO];
    out.clear();
    for _ in 0..6 {
        let t = s.deadline(Timer::Rto).expect("the SYN timer");
        s.on_rto_timer(t, &mut out);
        assert_eq!(out.len(), 1);
        assert!(out[0].has(SYN));
        out.clear();
        sent_at.push(t);
    }
    let secs: Vec<u64> = sent_at.iter().map(|t| t.as_ps() / S.as_ps()).collect();
    assert_eq!(secs, [0, 1, 3, 7, 15, 31, 63]);
    assert!(sent_at.iter().all(|t| t.as_ps() % S.as_ps() == 0), "exact multiples of 1 s");
    let last = s.deadline(Timer::Rto).expect("the last wait");
    assert_eq!(last, 123 * S);
    s.on_rto_timer(last, &mut out);
    assert!(out.is_empty() && s.failed() && s.deadline(Timer::Rto).is_none());
    assert_eq!(s.counters().syn_retries, 6);
    // A SYN-ACK arriving after it gave up changes nothing.
    let mut r = endpoint(CcKind::NewReno, 1);
    let mut syn_out = Vec::new();
    let mut s2 = endpoint(CcKind::NewReno, 0);
    s2.connect(Time::ZERO, &mut syn_out);
    r.on_segment(50 * US, &syn_out[0], &mut out);
    let synack = out.pop().unwrap();
    s.on_segment(last + US, &synack, &mut out);
    assert!(out.is_empty() && s.failed());
}

#[test]
fn once_the_retried_syn_gets_through_setup_takes_one_initial_rto_plus_the_rtt() {
    let mut s = endpoint(CcKind::NewReno, 0);
    let mut r = endpoint(CcKind::NewReno, 1);
    let mut out = Vec::new();
    s.connect(Time::ZERO, &mut out);
    out.clear(); // the first SYN is dropped
    s.on_rto_timer(S, &mut out);
    let syn = out.pop().unwrap();
    r.on_segment(S + 50 * US, &syn, &mut out);
    let synack = out.pop().unwrap();
    s.on_segment(S + 100 * US, &synack, &mut out);
    assert_eq!(s.established_at(), Some(S + 100 * US));
}

#[test]
fn a_listener_whose_syn_acks_are_lost_drops_the_request_after_its_synack_retries() {
    // synack_retries = 5: SYN-ACKs at 50 µs + 0, 1, 3, 7, 15, 31 s; at 63 s it drops the
    // half-open request (Linux) and listens again: a later SYN is answered afresh.
    let mut s = endpoint(CcKind::NewReno, 0);
    let mut r = endpoint(CcKind::NewReno, 1);
    let mut out = Vec::new();
    s.connect(Time::ZERO, &mut out);
    let syn = out.pop().unwrap();
    r.on_segment(50 * US, &syn, &mut out);
    out.clear();
    for _ in 0..5 {
        let t = r.deadline(Timer::Rto).unwrap();
        r.on_rto_timer(t, &mut out);
        assert!(out.pop().unwrap().has(SYN | ACK));
    }
    let t = r.deadline(Timer::Rto).unwrap();
    assert_eq!(t, 50 * US + 63 * S);
    r.on_rto_timer(t, &mut out);
    assert!(out.is_empty() && r.state() == State::Listen && !r.failed() && r.deadline(Timer::Rto).is_none());
    r.on_segment(t + S, &syn, &mut out);
    let synack = out.pop().expect("a new SYN-ACK");
    assert!(synack.has(SYN | ACK) && r.state() == State::SynRcvd);
    // Its timer starts again from the initial RTO.
    assert_eq!(r.deadline(Timer::Rto), Some(t + S + S));
}

#[test]
fn the_ect_switches_choose_the_codepoint_of_syns_and_of_pure_acks_separately() {
    // A DCTCP pair of RFC 3168 hosts (no ECT on control packets) with ECT on SYNs only, then
    // on pure ACKs only: new data is ECT either way.
    for (syn_ect, ack_ect) in [(true, false), (false, true), (false, false), (true, true)] {
        let mut p = params(CcKind::Dctcp, false);
        p.ect_on_syn = syn_ect;
        p.ect_on_ack = ack_ect;
        p.ect_on_retransmit = false;
        let mut s = endpoint_with(p.clone(), CcKind::Dctcp, 1.0, 0);
        let mut r = endpoint_with(p, CcKind::Dctcp, 1.0, 1);
        s.write(100_000);
        let mut out = Vec::new();
        s.connect(Time::ZERO, &mut out);
        let syn = out.pop().unwrap();
        assert_eq!(syn.ecn == Ecn::Ect, syn_ect, "SYN");
        r.on_segment(50 * US, &syn, &mut out);
        let synack = out.pop().unwrap();
        assert_eq!(synack.ecn == Ecn::Ect, syn_ect, "SYN-ACK");
        s.on_segment(100 * US, &synack, &mut out);
        let hs_ack = out.remove(0);
        assert_eq!(hs_ack.ecn == Ecn::Ect, ack_ect, "handshake ACK");
        assert!(out.iter().all(|p| p.len > 0 && p.ecn == Ecn::Ect), "new data is ECT");
        let first = out[0];
        let second = out[1];
        let mut acks = Vec::new();
        r.on_segment(150 * US, &first, &mut acks);
        r.on_segment(151 * US, &second, &mut acks);
        assert!(!acks.is_empty());
        assert!(acks.iter().all(|a| a.len == 0 && (a.ecn == Ecn::Ect) == ack_ect), "pure ACKs");
    }
}

#[test]
fn receive_buffer_auto_tuning_grows_once_per_rtt_by_linux_rule() {
    // A receiver with auto-tuning (initial 65535 B, cap 1 MB), IW 10: its first measurement
    // expects at most 10 segments (space = 14,600 B). Data echo the receiver's timestamps
    // so that it measures RTT = 100 µs.
    let mut p = params(CcKind::NewReno, false);
    p.rcv_buffer = 65_535;
    p.rcv_autotune_max = Some(1_000_000);
    p.init_cwnd_segments = 2; // the receiver expects Linux's TCP_INIT_CWND = 10 whatever this is
    let mut s = endpoint(CcKind::NewReno, 0);
    let mut r = endpoint_with(p, CcKind::NewReno, 1.0, 1);
    establish(&mut s, &mut r); // the receiver is established at 150 µs
    assert_eq!(r.rcv_buffer(), 65_535);
    let mut out = Vec::new();
    let mut feed = |r: &mut Endpoint, i: u64, now: Time| {
        let mut d = data_pkt(i, Ecn::NotEct, 0, now);
        d.ts_ecr = now - 100 * US + Time::from_ps(1); // an ACK sent 100 µs ago
        r.on_segment(now, &d, &mut out);
    };
    // 30 segments in the first RTT (150 µs .. 250 µs): no decision before an RTT has passed.
    for i in 1..=29 {
        feed(&mut r, i, 150 * US + i * US);
        assert_eq!(r.rcv_buffer(), 65_535, "segment {i}");
    }
    feed(&mut r, 30, 250 * US);
    assert_eq!(r.receiver_rtt(), Some(100 * US));
    // copied = 43,800 > 14,600: base = 2·43,800 + 16·1,460 = 110,960;
    // grow = 110,960 · (43,800 − 14,600) / 14,600 = 221,920; buffer = 110,960 + 2·221,920.
    assert_eq!(r.rcv_buffer(), 554_800);
    // The next RTT reads as much again: not more than the last growth's 43,800, no change.
    for i in 31..=60 {
        feed(&mut r, i, 250 * US + (i - 30) * 10 * US / 3);
    }
    assert_eq!(r.rcv_buffer(), 554_800);
    // A faster RTT (60 segments) grows it again, up to the 1 MB cap: base = 2·87,600 +
    // 23,360 = 198,560; grow = 198,560 · 43,800 / 43,800 → 198,560 + 397,120 = 595,680.
    for i in 61..=120 {
        feed(&mut r, i, 350 * US + (i - 60) * 10 * US / 6);
    }
    assert_eq!(r.rcv_buffer(), 595_680);
    for i in 121..=400 {
        feed(&mut r, i, 450 * US + (i - 120) * 10 * US / 28);
    }
    assert_eq!(r.rcv_buffer(), 1_000_000, "capped");
}

#[test]
fn auto_tuning_takes_one_rtt_sample_per_echoed_timestamp() {
    // A burst of segments echoing the same timestamp is one sample (Linux
    // `rcv_rtt_last_tsecr`): the later ones, which left the sender later, do not inflate it.
    let mut p = params(CcKind::NewReno, false);
    p.rcv_autotune_max = Some(1_000_000);
    let mut s = endpoint(CcKind::NewReno, 0);
    let mut r = endpoint_with(p, CcKind::NewReno, 1.0, 1);
    establish(&mut s, &mut r);
    let mut out = Vec::new();
    let echo = 100 * US + Time::from_ps(1); // an ACK sent at 100 µs
    for i in 1..=10 {
        let mut d = data_pkt(i, Ecn::NotEct, 0, 200 * US + i * 10 * US);
        d.ts_ecr = echo;
        r.on_segment(200 * US + i * 10 * US, &d, &mut out);
    }
    assert_eq!(r.receiver_rtt(), Some(110 * US), "the first segment's 110 µs only");
}

/// The invariant check passes on ends in use and names each broken bound.
#[test]
fn the_invariant_check_catches_a_disordered_sequence_space_and_bad_windows() {
    let (mut s, mut r) = ends_with(true, |_| {});
    s.write(10 * 1460);
    let data = establish(&mut s, &mut r);
    for p in &data {
        deliver(&mut r, 150 * US, p);
    }
    s.check_invariants().expect("a sender in use");
    r.check_invariants().expect("a receiver in use");
    let mut behind = s.clone();
    behind.set_snd_nxt(behind.snd_una() - 1);
    assert!(behind.check_invariants().unwrap_err().contains("snd_nxt"));
    let mut past_written = s.clone();
    past_written.set_snd_max(past_written.app_end() + 1);
    assert!(past_written.check_invariants().unwrap_err().contains("written up to"));
    let mut over_delivered = r.clone();
    over_delivered.set_delivered(over_delivered.rcv_nxt() + 1);
    assert!(over_delivered.check_invariants().unwrap_err().contains("delivered"));
    let mut no_window = s.clone();
    no_window.cc_mut().win.cwnd = 0.0;
    assert!(no_window.check_invariants().unwrap_err().contains("cwnd"));
    let mut nan_window = s;
    nan_window.cc_mut().win.cwnd = f64::NAN;
    assert!(nan_window.check_invariants().unwrap_err().contains("cwnd"));
}
