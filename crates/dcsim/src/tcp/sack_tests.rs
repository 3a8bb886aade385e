//! Unit tests of selective acknowledgements in `Endpoint`: the receiver's SACK option
//! (RFC 2018) and the sender's SACK-based loss recovery (RFC 6675). Two connection ends are
//! driven by hand: packets are moved from one end's `out` to the other's `on_segment`, and the
//! test owns the clock. Every expected value is derived by hand in the comment next to it.
//!
//! Conventions: MSS = 1460 B, 40 B of headers, IW = 10 segments, delayed ACKs every 2
//! segments, SYN = sequence 0 and data from 1, so segment i (1-based) covers
//! [1 + (i-1)·1460, 1 + i·1460) = [seg(i), seg(i+1)). The handshake runs with a 50 µs one-way
//! delay, so RTO = RTO_min = 10 ms and no timer fires during the few hundred µs a test takes
//! unless the test fires it. The application always has data (write(u64::MAX)) unless a test
//! says otherwise, so the sender never sets PSH and in-order data is ACKed every 2nd segment.
//!
//! The scoreboard, `pipe()`, `in_recovery` and `HighRxt` are private to `endpoint`, so they are
//! observed from outside: `window_in_use` finds, on clones of the sender, the smallest cwnd
//! at which it would send a segment. In SACK recovery the sender sends while
//! cwnd − pipe ≥ 1 SMSS (RFC 6675 §5 step C), so that smallest cwnd is pipe + SMSS; outside
//! recovery it sends while FlightSize + SMSS ≤ cwnd, so it is FlightSize + SMSS. The probe
//! therefore returns RFC 6675 SetPipe() in recovery and FlightSize = snd_nxt − snd_una
//! otherwise, which also tells the two states apart whenever SACKed data is outstanding.

use super::endpoint::{Endpoint, Timer};
use super::test_support::*;
use crate::net::packet::{Segment, ACK};
use crate::scenario::CcKind;
use crate::units::Time;

/// End 0 (host 0, opens the connection) or end 1 (host 1, listens); NewReno, no ECN.
fn endpoint(sack: bool, end: u8) -> Endpoint {
    endpoint_with(params(CcKind::NewReno, sack), CcKind::NewReno, 1.0, end)
}

/// Sender with unlimited data and receiver after the handshake, with the 10 segments of IW.
fn pair(sack: bool) -> (Endpoint, Endpoint, Vec<Segment>) {
    let mut s = endpoint(sack, 0);
    let mut r = endpoint(sack, 1);
    s.write(u64::MAX);
    let data = establish(&mut s, &mut r);
    assert_eq!(seg_nos(&data), (1..=10).collect::<Vec<_>>());
    assert_eq!(s.cwnd(), 10.0 * MSSF);
    (s, r, data)
}

/// Delivers `data` to the receiver except the segments in `lost`, in order, 10 µs apart from
/// `t0`; returns (segment number, ACK it triggered) for each ACK sent.
fn receiver_acks(r: &mut Endpoint, data: &[Segment], lost: &[u64], t0: Time) -> Vec<(u64, Segment)> {
    let mut acks = Vec::new();
    for (k, p) in data.iter().enumerate() {
        let i = seg_no(p);
        if lost.contains(&i) {
            continue;
        }
        if let Some(a) = deliver(r, t0 + k as u64 * 10 * US, p) {
            acks.push((i, a));
        }
    }
    acks
}

/// The SACK blocks of an ACK as absolute [start, end) ranges (ack + offsets), in option order.
fn blocks(p: &Segment) -> Vec<(u64, u64)> {
    assert!(p.sack_blocks <= 3, "at most 3 blocks fit next to timestamps (RFC 2018 §3)");
    p.sack[..p.sack_blocks as usize]
        .iter()
        .map(|&(a, b)| {
            assert!(a > 0, "a SACK block never covers cumulatively acknowledged data: {:?}", p.sack);
            assert!(a < b, "empty SACK block {:?}", p.sack);
            (p.ack + a as u64, p.ack + b as u64)
        })
        .collect()
}

/// The SACK blocks of an ACK as inclusive segment-number ranges (first, last).
fn seg_blocks(p: &Segment) -> Vec<(u64, u64)> {
    blocks(p)
        .into_iter()
        .map(|(a, b)| {
            assert_eq!((a - 1) % MSS, 0);
            assert_eq!((b - 1) % MSS, 0);
            ((a - 1) / MSS + 1, (b - 1) / MSS)
        })
        .collect()
}

/// The smallest cwnd (bytes) at which the sender would send a segment now, minus one SMSS:
/// RFC 6675 SetPipe() during SACK recovery, FlightSize otherwise (see the module comment).
/// Probed on clones; needs something sendable (new data or an eligible hole).
fn window_in_use(s: &Endpoint, now: Time) -> u64 {
    let sends = |c: u64| {
        let mut e = s.clone();
        e.cc_mut().win.cwnd = c as f64;
        let mut out = Vec::new();
        e.try_send(now, &mut out);
        !out.is_empty()
    };
    let (mut lo, mut hi) = (0u64, 1u64 << 32);
    assert!(!sends(lo), "sends with a zero window");
    assert!(sends(hi), "nothing to send even with an unbounded window");
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if sends(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi - MSS
}

// ====================================================================== receiver (RFC 2018)

#[test]
fn receiver_sack_blocks_most_recent_first_and_option_size() {
    // Segments 1, 2 delivered, 3 dropped, 4, 5 delivered, 6 dropped, 7 delivered.
    let (_s, mut r, data) = pair(true);
    let d = |i: u64| data[i as usize - 1];
    let mut t = 200 * US;
    // 1: in order, first of a delayed pair: no ACK yet.
    assert!(deliver(&mut r, t, &d(1)).is_none());
    // 2: second of the pair → ACK of 2 segments (ack = seg(3)); nothing out of order, so no
    // SACK option: 40 B.
    t += 10 * US;
    let a2 = deliver(&mut r, t, &d(2)).expect("ACK of the delayed pair");
    assert_eq!((a2.ack, a2.sack_blocks, a2.size, a2.len), (seg(3), 0, HDR, 0));
    // 4: out of order → immediate duplicate ACK (RFC 5681 §4.2), ack still seg(3) = 2921,
    // one block [seg(4), seg(5)) = [4381, 5841) → offsets (1460, 2920).
    // Option: 2 + 8·1 = 10 B, padded to 12 → 52 B.
    t += 10 * US;
    let a4 = deliver(&mut r, t, &d(4)).expect("immediate dup ACK");
    assert_eq!(a4.ack, 2921);
    assert_eq!(a4.sack_blocks, 1);
    assert_eq!(a4.sack[0], (1460, 2920));
    assert_eq!(blocks(&a4), vec![(4381, 5841)]);
    assert_eq!(a4.size, HDR + 12);
    assert_eq!((a4.len, a4.flags), (0, ACK));
    // 5: extends the block: [4381, 7301) → offsets (1460, 4380); still 12 B of option.
    t += 10 * US;
    let a5 = deliver(&mut r, t, &d(5)).expect("immediate dup ACK");
    assert_eq!(a5.ack, 2921);
    assert_eq!(a5.sack_blocks, 1);
    assert_eq!(a5.sack[0], (1460, 4380));
    assert_eq!(a5.size, HDR + 12);
    // 6 dropped. 7: a second block. The block holding 7 comes first (RFC 2018 §4: "the first
    // SACK block MUST specify the contiguous block of data containing the segment which
    // triggered this ACK"): [seg(7), seg(8)) = [8761, 10221) → offsets (5840, 7300); then
    // [4381, 7301) → (1460, 4380). Option 2 + 16 = 18 B, padded to 20 → 60 B.
    t += 10 * US;
    let a7 = deliver(&mut r, t, &d(7)).expect("immediate dup ACK");
    assert_eq!(a7.ack, 2921, "the cumulative ACK stays at the start of segment 3");
    assert_eq!(a7.sack_blocks, 2);
    assert_eq!(a7.sack[0], (5840, 7300));
    assert_eq!(a7.sack[1], (1460, 4380));
    assert_eq!(seg_blocks(&a7), vec![(7, 7), (4, 5)]);
    assert_eq!(a7.size, HDR + 20);
    assert_eq!(r.rcv_nxt(), seg(3));
    assert_eq!(r.delivered(), 2 * MSS, "only in-order data is delivered");
}

#[test]
fn receiver_sends_at_most_three_blocks() {
    // 1, 2 delivered; 3, 6, 8, 10 dropped; 4, 5, 7, 9, 11 delivered → four out-of-order
    // ranges [4-5], [7], [9], [11]. The sender is given cwnd = 12 MSS to send 11 and 12.
    let (mut s, mut r, mut data) = pair(true);
    s.cc_mut().win.cwnd = 12.0 * MSSF;
    let mut more = Vec::new();
    s.try_send(160 * US, &mut more);
    assert_eq!(seg_nos(&more), vec![11, 12]);
    data.extend(more);
    let acks = receiver_acks(&mut r, &data[..11], &[3, 6, 8, 10], 200 * US);
    let by_seg = |i: u64| acks.iter().find(|(k, _)| *k == i).map(|(_, a)| *a).unwrap();
    // After 9: three blocks, the one holding 9 first, then the others highest first (which
    // here is also the order in which they were last reported): [9], [7], [4-5].
    // Option 2 + 24 = 26 B → 28 B padded: 68 B.
    let a9 = by_seg(9);
    assert_eq!(a9.ack, seg(3));
    assert_eq!(seg_blocks(&a9), vec![(9, 9), (7, 7), (4, 5)]);
    assert_eq!(a9.size, HDR + 28);
    // After 11: four ranges held, only three fit: [11], [9], [7]; the oldest, [4-5], which
    // was reported in the three previous ACKs (after 4/5, 7 and 9), is left out.
    let a11 = by_seg(11);
    assert_eq!(a11.ack, seg(3));
    assert_eq!(a11.sack_blocks, 3);
    assert_eq!(seg_blocks(&a11), vec![(11, 11), (9, 9), (7, 7)]);
    assert_eq!(a11.size, HDR + 28, "the option never grows beyond 3 blocks");
    // The advertised window shrinks by the 5 segments held out of order.
    assert_eq!(a11.rwnd as u64, RCV_BUF - 5 * MSS);
    // 8 arrives late: it joins 7 and 9 into [7-9], which holds the triggering segment and so
    // comes first although [11] is higher (RFC 2018 §4, MUST); then [11], then [4-5].
    let a8 = deliver(&mut r, 400 * US, &data[7]).expect("immediate dup ACK");
    assert_eq!(a8.ack, seg(3));
    assert_eq!(seg_blocks(&a8), vec![(7, 9), (11, 11), (4, 5)]);
    assert_eq!(a8.size, HDR + 28);
    // Filling hole 3 → ACK at once with ack = seg(6) (3, 4, 5 now in order); [4-5] is covered
    // by the cumulative ACK and no longer reported; [7-9] (holding 8, the most recent
    // out-of-order segment) first, then [11]: 2 blocks, 60 B.
    let a3 = deliver(&mut r, 410 * US, &data[2]).expect("a hole-filling segment is ACKed at once");
    assert_eq!(a3.ack, seg(6));
    assert_eq!(seg_blocks(&a3), vec![(7, 9), (11, 11)]);
    assert_eq!(a3.size, HDR + 20);
    assert_eq!(a3.rwnd as u64, RCV_BUF - 4 * MSS);
}

#[test]
fn receiver_hole_fill_acks_at_once_and_trims_blocks() {
    // The pattern of the first test (1, 2, 4, 5, 7 delivered), then the holes are filled.
    let (_s, mut r, data) = pair(true);
    let acks = receiver_acks(&mut r, &data[..7], &[3, 6], 200 * US);
    assert_eq!(acks.iter().map(|(i, _)| *i).collect::<Vec<_>>(), vec![2, 4, 5, 7]);
    // 3 arrives: 3, 4, 5 become in order → immediate ACK (RFC 5681 §4.2, a segment that fills
    // a hole) with ack = seg(6) = 7301. The [4-5] block is now below the ACK and disappears;
    // [7] = [8761, 10221) remains → offsets (1460, 2920), 52 B.
    let a3 = deliver(&mut r, 300 * US, &data[2]).expect("immediate ACK");
    assert_eq!(a3.ack, 7301);
    assert_eq!(a3.sack_blocks, 1);
    assert_eq!(a3.sack[0], (1460, 2920));
    assert_eq!(blocks(&a3), vec![(8761, 10221)]);
    assert_eq!(a3.size, HDR + 12);
    assert_eq!(r.delivered(), 5 * MSS);
    // 6 arrives: everything up to 7 in order → immediate ACK of seg(8), no SACK option.
    let a6 = deliver(&mut r, 310 * US, &data[5]).expect("immediate ACK");
    assert_eq!(a6.ack, seg(8));
    assert_eq!((a6.sack_blocks, a6.size), (0, HDR));
    assert_eq!(r.delivered(), 7 * MSS);
    assert_eq!(r.rcv_nxt(), seg(8));
    // 8 arrives in order with no hole left: back to delayed ACKs.
    assert!(deliver(&mut r, 320 * US, &data[7]).is_none());
    assert_eq!(r.deadline(Timer::DelayedAck), Some(320 * US + 40 * MS));
}

#[test]
fn receiver_repeats_most_recently_reported_blocks() {
    // Segments arrive 1, 9, 7, 5, 11 (holes 2-4, 6, 8, 10). RFC 2018 §4: after the block of
    // the triggering segment, "the SACK option SHOULD be filled out by repeating the most
    // recently reported SACK blocks (based on first SACK blocks in previous SACK options)",
    // so that each block is reported in at least three successive ACKs.
    // (Regression test: the engine used to order the blocks after the first highest first,
    // sending [5],[9],[7] and then [11],[9],[7], so [5] was reported only once.)
    let (mut s, mut r, mut data) = pair(true);
    s.cc_mut().win.cwnd = 12.0 * MSSF;
    let mut more = Vec::new();
    s.try_send(160 * US, &mut more);
    data.extend(more);
    let mut t = 200 * US;
    let mut next = |i: u64| {
        t += 10 * US;
        deliver(&mut r, t, &data[i as usize - 1])
    };
    assert!(next(1).is_none(), "delayed");
    // 9: first blocks so far: [9].
    assert_eq!(seg_blocks(&next(9).unwrap()), vec![(9, 9)]);
    // 7: [7], then the previously reported [9].
    assert_eq!(seg_blocks(&next(7).unwrap()), vec![(7, 7), (9, 9)]);
    // 5: [5], then [7] (reported first last time), then [9].
    assert_eq!(seg_blocks(&next(5).unwrap()), vec![(5, 5), (7, 7), (9, 9)]);
    // 11: [11], [5], [7]; [9] has had its three reports.
    assert_eq!(seg_blocks(&next(11).unwrap()), vec![(11, 11), (5, 5), (7, 7)]);
}

// ====================================================================== sender (RFC 6675)

#[test]
fn sack_fast_retransmit_no_inflation_and_setpipe() {
    // 10 segments outstanding, segment 1 lost, 2..10 delivered: 9 immediate duplicate ACKs
    // (ack = 1), the k-th SACKing [2, k+1].
    let (mut s, mut r, data) = pair(true);
    let acks = receiver_acks(&mut r, &data, &[1], 200 * US);
    assert_eq!(acks.len(), 9);
    for (k, (i, a)) in acks.iter().enumerate() {
        assert_eq!((*i, a.ack), (k as u64 + 2, 1));
        assert_eq!(seg_blocks(a), vec![(2, k as u64 + 2)]);
    }
    let mut t = 400 * US;
    // Dup ACKs 1, 2: SACKed 1460 then 2920 B above segment 1 — not more than 2·SMSS, one
    // block: IsLost(1) is false, DupAcks < 3: nothing happens (no limited transmit).
    for (_, a) in &acks[..2] {
        t += US;
        assert!(feed(&mut s, t, a).is_empty());
        assert_eq!(s.counters().fast_retransmits, 0);
        assert_eq!(s.cwnd(), 14600.0);
    }
    assert_eq!(window_in_use(&s, t), 14600, "not in recovery: FlightSize");
    // Dup ACK 3 (RFC 6675 §5 step 4): FlightSize = 14601 − 1 = 14600;
    // ssthresh = cwnd = max(14600/2, 2·1460) = 7300 (no +3·SMSS inflation);
    // RecoveryPoint = 14601; retransmit exactly segment 1, HighRxt = 1460 (byte).
    t += US;
    let out = feed(&mut s, t, &acks[2].1);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].seq, out[0].len as u64), (1, MSS));
    assert_eq!(s.ssthresh(), 7300.0);
    assert_eq!(s.cwnd(), 7300.0);
    assert_eq!(s.counters().fast_retransmits, 1);
    assert_eq!(s.counters().retransmits, 1);
    let rtx1 = out[0];
    // SetPipe with scoreboard {[2-4]}: segment 1 is lost (4380 > 2920 SACKed above) but
    // retransmitted → 1460; 2-4 SACKed → 0; 5-10 not lost (nothing SACKed above) → 8760.
    // pipe = 10220 > cwnd 7300, so step C sends nothing else.
    assert_eq!(window_in_use(&s, t), 10220);
    // Dup ACKs 4, 5 (5, 6 SACKed): pipe 8760, 7300; cwnd − pipe < SMSS: nothing; cwnd is
    // not inflated.
    for (k, (_, a)) in acks[3..5].iter().enumerate() {
        t += US;
        assert!(feed(&mut s, t, a).is_empty());
        assert_eq!(s.cwnd(), 7300.0);
        assert_eq!(window_in_use(&s, t), 8760 - 1460 * k as u64);
    }
    // Dup ACKs 6..9 (7..10 SACKed): each takes a segment out of the pipe (5840), leaving room
    // for one: NextSeg rule 1 has nothing (segment 1 is below HighRxt), rule 2 sends new
    // data: 11, 12, 13, 14, and pipe is back to 7300 each time.
    for (k, (_, a)) in acks[5..].iter().enumerate() {
        t += US;
        let out = feed(&mut s, t, a);
        assert_eq!(seg_nos(&out), vec![11 + k as u64]);
        assert_eq!(s.cwnd(), 7300.0);
        assert_eq!(window_in_use(&s, t), 7300);
    }
    assert_eq!(s.ssthresh(), 7300.0);
    assert_eq!(s.counters().retransmits, 1, "no SACKed segment is ever resent");
    assert_eq!(s.counters().fast_retransmits, 1);
    // The retransmission fills the hole: ack = 14601 = RecoveryPoint, recovery ends. With 11-14
    // outstanding (FlightSize 5840), cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = 7300
    // and one more segment (15) fits.
    let full = deliver(&mut r, t + 50 * US, &rtx1).expect("hole filled: immediate ACK");
    assert_eq!((full.ack, full.sack_blocks), (14601, 0));
    let out = feed(&mut s, t + 100 * US, &full);
    assert_eq!(s.snd_una(), 14601);
    assert_eq!(s.cwnd(), 7300.0);
    assert_eq!(seg_nos(&out), vec![15]);
    assert_eq!(s.counters().timeouts, 0);
}

#[test]
fn sack_two_holes_nextseg_rules_and_recovery_point() {
    // Segments 1 and 4 of 10 lost. Receiver ACKs (all dup, ack = 1):
    // after 2: [2]; 3: [2-3]; 5: [5],[2-3]; 6: [5-6],[2-3]; 7: [5-7],[2-3]; ... 10: [5-10],[2-3].
    let (mut s, mut r, data) = pair(true);
    let acks = receiver_acks(&mut r, &data, &[1, 4], 200 * US);
    assert_eq!(acks.iter().map(|(i, _)| *i).collect::<Vec<_>>(), vec![2, 3, 5, 6, 7, 8, 9, 10]);
    assert_eq!(seg_blocks(&acks[2].1), vec![(5, 5), (2, 3)]);
    assert_eq!(seg_blocks(&acks[7].1), vec![(5, 10), (2, 3)]);
    let mut sent: Vec<Segment> = data.clone();
    let mut t = 400 * US;
    let step = |s: &mut Endpoint, a: &Segment, t: &mut Time| {
        *t += US;
        feed(s, *t, a)
    };
    // Dup ACKs 1, 2: SACKed 1460, 2920 B (exactly 2·SMSS is not "more than"): nothing.
    assert!(step(&mut s, &acks[0].1, &mut t).is_empty());
    assert!(step(&mut s, &acks[1].1, &mut t).is_empty());
    // Dup ACK 3: enter recovery, ssthresh = cwnd = 7300, retransmit segment 1 only.
    let out = step(&mut s, &acks[2].1, &mut t);
    assert_eq!(seg_nos(&out), vec![1]);
    assert_eq!((s.cwnd(), s.ssthresh()), (7300.0, 7300.0));
    let rtx1 = out[0];
    // SetPipe, scoreboard {[2-3], [5]}: 1 lost + retransmitted 1460; 4 not lost (1460 B and one
    // block above it) 1460; 6-10 7300 → 10220.
    assert_eq!(window_in_use(&s, t), 10220);
    // Dup ACK 4, scoreboard {[2-3], [5-6]}: 4 has 2920 B SACKed above — still not lost.
    // pipe = 1460 + 1460 + 5840 (7-10) = 8760 > 7300 − 1460: nothing sent.
    assert!(step(&mut s, &acks[3].1, &mut t).is_empty());
    assert_eq!(window_in_use(&s, t), 8760);
    {
        // Were there room for one segment now (cwnd = pipe + SMSS, on a clone), NextSeg would
        // not pick segment 4: rule 1 needs IsLost(4); rule 2 (new data) comes first → 11.
        let mut c = s.clone();
        c.cc_mut().win.cwnd = 10220.0;
        let mut out = Vec::new();
        c.try_send(t, &mut out);
        assert_eq!(seg_nos(&out), vec![11], "rule 2 before an un-lost hole");
        // Without new data to send, rule 3 (SHOULD) offers the un-SACKed hole below the highest
        // SACKed byte that is above HighRxt: segment 4.
        let mut c = s.clone();
        c.stop_writing();
        c.cc_mut().win.cwnd = 10220.0;
        c.try_send(t, &mut out);
        assert_eq!(seg_nos(&out[1..]), vec![4], "rule 3 when there is no new data");
        assert_eq!(c.counters().retransmits, 2);
    }
    // Dup ACK 5, scoreboard {[2-3], [5-7]}: 4380 B above 4 > 2·SMSS → IsLost(4).
    // pipe = 1460 + 0 + 4380 (8-10) = 5840, room for one: rule 1 → retransmit 4 (before any
    // new data). HighRxt = end of 4; pipe = 7300.
    let out = step(&mut s, &acks[4].1, &mut t);
    assert_eq!(seg_nos(&out), vec![4]);
    let rtx4 = out[0];
    assert_eq!(s.counters().retransmits, 2);
    assert_eq!(window_in_use(&s, t), 7300);
    // Dup ACKs 6, 7, 8 (8, 9, 10 SACKed): both holes are below HighRxt, so rule 1 and rule 3
    // have nothing; each frees one segment of pipe → rule 2: 11, 12, 13.
    for (k, (_, a)) in acks[5..].iter().enumerate() {
        let out = step(&mut s, a, &mut t);
        assert_eq!(seg_nos(&out), vec![11 + k as u64]);
        sent.extend(out);
    }
    assert_eq!(s.cwnd(), 7300.0, "no inflation");
    assert_eq!(s.counters().retransmits, 2, "nothing SACKed is resent");
    // The retransmitted 1 arrives: the receiver holds 1-3 → ack = seg(4) = 4381, block [5-10].
    let partial = deliver(&mut r, t + 50 * US, &rtx1).expect("immediate ACK");
    assert_eq!(partial.ack, 4381);
    assert_eq!(seg_blocks(&partial), vec![(5, 10)]);
    // Partial ACK: 4381 < RecoveryPoint 14601 — recovery continues, cwnd is not touched.
    // pipe = 4 (lost, retransmitted) 1460 + 11-13 4380 = 5840 → rule 2 sends 14.
    t += 100 * US;
    let out = feed(&mut s, t, &partial);
    assert_eq!(s.snd_una(), 4381);
    assert_eq!(seg_nos(&out), vec![14]);
    sent.extend(out);
    assert_eq!(s.cwnd(), 7300.0);
    assert_eq!(s.counters().fast_retransmits, 1);
    // Still in recovery: sending follows pipe (7300), not FlightSize (seg(15) − 4381 = 16060).
    assert_eq!(s.snd_max() - s.snd_una(), 16060);
    assert_eq!(window_in_use(&s, t), 7300);
    // 12 reaches the receiver before 11: dup ACK 4381 with [12], [5-10]. Scoreboard
    // {[5-10], [12]}: 4 lost+retransmitted 1460; 11 not lost (one segment above) 1460;
    // 13-14 2920 → pipe 5840 → rule 1 has no lost hole above HighRxt, rule 2 sends 15.
    let a12 = deliver(&mut r, t + 10 * US, &sent[11]).expect("dup ACK");
    assert_eq!((a12.ack, seg_blocks(&a12)), (4381, vec![(12, 12), (5, 10)]));
    t += 20 * US;
    let out = feed(&mut s, t, &a12);
    assert_eq!(seg_nos(&out), vec![15]);
    // The retransmitted 4 arrives: ack = seg(11) = 14601 = RecoveryPoint, block [12].
    let full = deliver(&mut r, t + 50 * US, &rtx4).expect("immediate ACK");
    assert_eq!((full.ack, seg_blocks(&full)), (14601, vec![(12, 12)]));
    // RFC 6675 §5 (A): the cumulative ACK covers RecoveryPoint: recovery ends. ssthresh stays
    // 7300; cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(7300, 8760) = 7300.
    // Out of recovery the sender counts FlightSize = seg(16) − 14601 = 7300 (11-15), not pipe
    // (which would be 11 + 13-15 = 5840 and leave room for a segment): nothing is sent.
    t += 100 * US;
    let out = feed(&mut s, t, &full);
    assert_eq!(s.snd_una(), 14601);
    assert_eq!((s.cwnd(), s.ssthresh()), (7300.0, 7300.0));
    assert!(out.is_empty(), "recovery over: FlightSize = cwnd, no room: {:?}", seg_nos(&out));
    assert_eq!(window_in_use(&s, t), 7300);
    assert_eq!(s.snd_max() - s.snd_una(), 7300);
    assert_eq!(s.counters().fast_retransmits, 1);
    assert_eq!(s.counters().retransmits, 2);
    assert_eq!(s.counters().timeouts, 0);
}

#[test]
fn sack_islost_enters_recovery_before_three_dupacks() {
    // RFC 6675 §5 step 2: if DupAcks < DupThresh but IsLost(HighACK + 1), enter recovery.
    // (a) Byte rule: more than (DupThresh − 1)·SMSS = 2920 B SACKed above segment 1.
    let (mut s, _r, _) = pair(true);
    let t = 300 * US;
    // Dup ACK 1 SACKing [2-3] = 2920 B: not more than 2920 → nothing.
    assert!(feed(&mut s, t, &sack_ack(1, &[(seg(2), seg(4))])).is_empty());
    assert_eq!(s.counters().fast_retransmits, 0);
    // Dup ACK 2 SACKing [2-4] = 4380 B > 2920 → IsLost(1): fast retransmit of segment 1 on the
    // second duplicate ACK; ssthresh = cwnd = 14600/2 = 7300.
    let out = feed(&mut s, t + US, &sack_ack(1, &[(seg(2), seg(5))]));
    assert_eq!(seg_nos(&out), vec![1]);
    assert_eq!(s.counters().fast_retransmits, 1);
    assert_eq!((s.cwnd(), s.ssthresh()), (7300.0, 7300.0));

    // (b) Block rule: DupThresh = 3 discontiguous SACKed ranges above segment 1, however small.
    // Two 100 B blocks: neither rule holds → nothing on the first dup ACK.
    let (mut s, _r, _) = pair(true);
    let b = |i: u64| (seg(i), seg(i) + 100);
    assert!(feed(&mut s, t, &sack_ack(1, &[b(2), b(3)])).is_empty());
    assert_eq!(s.counters().fast_retransmits, 0);
    // A third 100 B block (300 B in all, far below 2·SMSS) → IsLost(1) on the 2nd dup ACK.
    // The retransmission of the first hole [1, seg(2)) is a full segment.
    let out = feed(&mut s, t + US, &sack_ack(1, &[b(4), b(3), b(2)]));
    assert_eq!(seg_nos(&out), vec![1]);
    assert_eq!(s.counters().fast_retransmits, 1);
    // SetPipe: [1, 1461) lost, retransmitted → 1460; [1561, 2921) (200 B, 2 blocks above) not
    // lost → 1360; [3021, 4381) (100 B, 1 block above) → 1360; [4481, 14601) → 10120.
    // pipe = 14300.
    assert_eq!(window_in_use(&s, t + US), 14300);
}

#[test]
fn sack_new_recovery_right_after_one_that_ended_at_recovery_point() {
    // An application-limited burst of 10 segments, segment 1 lost; recovery; the retransmission
    // fills the hole and the full ACK is exactly RecoveryPoint = 14601 (nothing new was sent).
    // RFC 6675 §5: a sender not in loss recovery enters it on DupThresh duplicate ACKs; RFC 6582
    // §3.2 step 1 (NewReno's guard) allows it once the ACK covers the highest byte sent, i.e.
    // snd_una >= recover. (Regression test: the engine used to require snd_una > recover.)
    let mut s = endpoint(true, 0);
    let mut r = endpoint(true, 1);
    s.write(10 * MSS);
    let data = establish(&mut s, &mut r);
    assert_eq!(data.len(), 10);
    let acks = receiver_acks(&mut r, &data, &[1], 200 * US);
    let mut t = 400 * US;
    let mut rtx = Vec::new();
    for (_, a) in &acks {
        t += US;
        rtx.extend(feed(&mut s, t, a));
    }
    // Segment 1 only: no new data and no hole below the highest SACK, and no rescue of 10
    // (which is on its way) while HighACK has not passed RescueRxt = end of the first
    // retransmission (RFC 6675 §5 step 4.3, NextSeg rule 4).
    assert_eq!(seg_nos(&rtx), vec![1], "segment 1, no premature rescue");
    let full = deliver(&mut r, t + 50 * US, &rtx[0]).unwrap();
    assert_eq!(full.ack, 14601);
    t += 100 * US;
    assert!(feed(&mut s, t, &full).is_empty());
    assert_eq!((s.snd_una(), s.snd_max()), (14601, 14601));
    assert_eq!(s.counters().fast_retransmits, 1);
    // At the full ACK the engine deflates as RFC 6582 §3.2 step 3 does (RFC 6675 says nothing
    // on cwnd at exit): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(7300, 2920).
    assert_eq!((s.cwnd(), s.ssthresh()), (2920.0, 7300.0));
    // The next burst: 10 more segments (cwnd set to 10 segments so that they all leave).
    s.write(10 * MSS);
    s.cc_mut().win.cwnd = 10.0 * MSSF;
    let mut burst = Vec::new();
    s.try_send(t, &mut burst);
    assert_eq!(seg_nos(&burst), (11..=20).collect::<Vec<_>>());
    // Segment 11 lost; 12, 13, 14 arrive → three dup ACKs of 14601 SACKing [12], [12-13],
    // [12-14]. Not in recovery, DupAcks = 3 (and IsLost(11)): fast retransmit of 11.
    let acks = receiver_acks(&mut r, &burst[..4], &[11], t + 50 * US);
    assert_eq!(acks.len(), 3);
    let mut out = Vec::new();
    for (_, a) in &acks {
        t += US;
        out.extend(feed(&mut s, t, a));
    }
    assert_eq!(s.counters().fast_retransmits, 2, "a second, separate recovery");
    assert_eq!(seg_nos(&out), vec![11]);
    // FlightSize = seg(21) − 14601 = 14600 → ssthresh = cwnd = 7300.
    assert_eq!((s.cwnd(), s.ssthresh()), (7300.0, 7300.0));
}

// ====================================================================== RTO with a scoreboard

#[test]
fn rto_goes_back_n_but_skips_sacked_segments() {
    // Segments 2 and 4 delivered, all others lost: scoreboard {[2], [4]} after two dup ACKs
    // (2920 B, two blocks above segment 1: not lost, DupAcks 2 → no fast retransmit).
    let (mut s, mut r, data) = pair(true);
    let acks = receiver_acks(&mut r, &data, &[1, 3, 5, 6, 7, 8, 9, 10], 200 * US);
    assert_eq!(acks.len(), 2);
    assert_eq!(seg_blocks(&acks[1].1), vec![(4, 4), (2, 2)]);
    let mut t = 400 * US;
    for (_, a) in &acks {
        t += US;
        assert!(feed(&mut s, t, a).is_empty());
    }
    assert_eq!(s.counters().fast_retransmits, 0);
    // The RTO (armed at 100 µs + 10 ms) fires: FlightSize 14600 → ssthresh 7300, cwnd 1 SMSS,
    // go back to snd_una = 1: segment 1 only.
    let t_rto = s.deadline(Timer::Rto).expect("timer armed");
    assert_eq!(t_rto, 100 * US + 10 * MS);
    let mut out = Vec::new();
    s.on_rto_timer(t_rto, &mut out);
    assert_eq!(s.counters().timeouts, 1);
    assert_eq!((s.cwnd(), s.ssthresh()), (1460.0, 7300.0));
    assert_eq!(seg_nos(&out), vec![1]);
    assert_eq!(s.counters().retransmits, 1);
    // The receiver now holds 1-2 and 4: ACK seg(3) = 2921 with block [4].
    let a = deliver(&mut r, t_rto + 50 * US, &out[0]).expect("immediate ACK");
    assert_eq!((a.ack, seg_blocks(&a)), (2921, vec![(4, 4)]));
    // Slow start: cwnd = 1460 + min(2920, 2·1460) = 4380. Going back N from 3: send 3; 4 is
    // SACKed → skipped; 5 fits (FlightSize counted from snd_una: 3-4-5 = 4380 ≤ cwnd); 6 does
    // not. Segment 4 is never resent.
    let out = feed(&mut s, t_rto + 100 * US, &a);
    assert_eq!(s.snd_una(), 2921);
    assert_eq!(s.cwnd(), 4380.0);
    assert_eq!(seg_nos(&out), vec![3, 5]);
    assert_eq!(s.counters().retransmits, 3);
    assert_eq!(s.snd_max(), seg(11), "resending does not move snd_max");
}

#[test]
fn rto_during_sack_recovery_resends_only_the_holes() {
    // As in the single-loss test: segment 1 lost, recovery entered at the 3rd dup ACK, 11-14
    // sent during recovery. The retransmission of 1 and segments 11-14 are lost too.
    let (mut s, mut r, data) = pair(true);
    let acks = receiver_acks(&mut r, &data, &[1], 200 * US);
    let mut t = 400 * US;
    let mut sent = Vec::new();
    for (_, a) in &acks {
        t += US;
        sent.extend(feed(&mut s, t, a));
    }
    assert_eq!(seg_nos(&sent), vec![1, 11, 12, 13, 14]);
    // The timer was restarted at entry (the 3rd dup ACK, at 403 µs): RTO 10 ms later.
    let t_rto = s.deadline(Timer::Rto).expect("timer armed");
    assert_eq!(t_rto, 403 * US + 10 * MS);
    // RTO: FlightSize = seg(15) − 1 = 20440 → ssthresh 10220, cwnd 1460; recovery abandoned;
    // back to snd_una: resend 1, skip the SACKed [2-10]; 11 would exceed cwnd.
    let mut out = Vec::new();
    s.on_rto_timer(t_rto, &mut out);
    assert_eq!((s.cwnd(), s.ssthresh()), (1460.0, 10220.0));
    assert_eq!(seg_nos(&out), vec![1]);
    // The receiver acks everything up to 10 (no SACK left: 11-14 were lost).
    let a = deliver(&mut r, t_rto + 50 * US, &out[0]).expect("immediate ACK");
    assert_eq!((a.ack, a.sack_blocks), (seg(11), 0));
    // snd_una = seg(11). Slow start: cwnd = 1460 + min(13140, 2920) = 4380 → resend 11, 12, 13
    // (already sent once: retransmissions). 2-10 were never resent: 1 fast retransmit + 1 RTO
    // retransmission + 3 = 5 retransmissions in all.
    let out = feed(&mut s, t_rto + 100 * US, &a);
    assert_eq!(s.cwnd(), 4380.0);
    assert_eq!(seg_nos(&out), vec![11, 12, 13]);
    assert_eq!(s.counters().retransmits, 5);
    assert_eq!(s.counters().timeouts, 1);
    assert_eq!(s.counters().fast_retransmits, 1);
}

// ====================================================================== SACK off: NewReno

#[test]
fn sack_off_behaves_as_newreno() {
    // Same loss pattern as `sack_fast_retransmit_no_inflation_and_setpipe` with sack = false on
    // both ends: the receiver sends no SACK option, the sender inflates cwnd (RFC 6582).
    let (mut s, mut r, data) = pair(false);
    let acks = receiver_acks(&mut r, &data, &[1], 200 * US);
    assert_eq!(acks.len(), 9);
    for (_, a) in &acks {
        assert_eq!((a.ack, a.sack_blocks, a.size), (1, 0, HDR), "no SACK option without SACK");
    }
    let mut t = 400 * US;
    for (_, a) in &acks[..2] {
        t += US;
        assert!(feed(&mut s, t, a).is_empty());
    }
    // 3rd dup ACK: ssthresh = 7300, cwnd = ssthresh + 3·SMSS = 11680 (SACK: 7300).
    t += US;
    let out = feed(&mut s, t, &acks[2].1);
    assert_eq!(seg_nos(&out), vec![1]);
    assert_eq!(s.ssthresh(), 7300.0);
    assert_eq!(s.cwnd(), 11680.0);
    assert_eq!(s.counters().fast_retransmits, 1);
    // Dup ACKs 4..9 inflate by one SMSS each: 13140, 14600, 16060, 17520, 18980, 20440; new
    // data leaves once FlightSize (14600, then +1460 per new segment) + SMSS ≤ cwnd.
    let mut sent = Vec::new();
    for (k, (_, a)) in acks[3..].iter().enumerate() {
        t += US;
        let out = feed(&mut s, t, a);
        assert_eq!(s.cwnd(), 11680.0 + 1460.0 * (k as f64 + 1.0));
        sent.extend(out.iter().map(|p| (k + 4, seg_no(p))));
    }
    assert_eq!(sent, vec![(6, 11), (7, 12), (8, 13), (9, 14)]);
    // Probe: without SACK the window in use is FlightSize (seg(15) − 1 = 20440), not a pipe.
    assert_eq!(window_in_use(&s, t), 20440);

    // A non-SACK sender ignores SACK blocks even if the peer sends them: one dup ACK SACKing
    // 3 segments (IsLost(1) for a SACK sender) does not trigger a fast retransmit.
    let (mut s, _r, _) = pair(false);
    assert!(feed(&mut s, 300 * US, &sack_ack(1, &[(seg(2), seg(5))])).is_empty());
    assert_eq!(s.counters().fast_retransmits, 0);
    let (mut s_sack, _r, _) = pair(true);
    assert_eq!(seg_nos(&feed(&mut s_sack, 300 * US, &sack_ack(1, &[(seg(2), seg(5))]))), vec![1]);
    assert_eq!(s_sack.counters().fast_retransmits, 1);
}

#[test]
fn sack_rescue_retransmits_a_lost_tail_once_per_recovery() {
    // An application-limited burst of 10 segments; segments 2 and 10 (the last) are lost.
    // 3..9 arrive: 7 dup ACKs SACKing them. Recovery starts on the 3rd (IsLost(2)): retransmit
    // 2 (rule 1); RescueRxt = end of that retransmission (RFC 6675 §5 step 4.3). Nothing is
    // above the highest SACK but segment 10 and there is no new data; the rule-4 rescue of 10
    // waits for HighACK > RescueRxt: the partial ACK that the retransmitted 2 brings.
    // Without the rescue only the RTO would resend 10.
    let mut s = endpoint(true, 0);
    let mut r = endpoint(true, 1);
    s.write(10 * MSS);
    let data = establish(&mut s, &mut r);
    let acks = receiver_acks(&mut r, &data, &[2, 10], 200 * US);
    let mut t = 400 * US;
    let mut sent = Vec::new();
    for (_, a) in &acks {
        t += US;
        sent.extend(feed(&mut s, t, a));
    }
    assert_eq!(seg_nos(&sent), vec![2], "segment 2; no rescue before HighACK > RescueRxt");
    assert_eq!(s.counters().fast_retransmits, 1);
    // 2 arrives: partial ACK seg(10) < RecoveryPoint seg(11): now the rescue resends 10.
    let a1 = deliver(&mut r, t + 50 * US, &sent[0]).unwrap();
    assert_eq!(a1.ack, seg(10));
    let rescue = feed(&mut s, t + 100 * US, &a1);
    assert_eq!(seg_nos(&rescue), vec![10]);
    // One rescue per recovery: a duplicate of that ACK brings no second copy of segment 10.
    assert!(feed(&mut s, t + 101 * US, &a1).is_empty());
    // The rescue fills the last hole: the full ACK ends recovery with no timeout.
    let a2 = deliver(&mut r, t + 150 * US, &rescue[0]).unwrap();
    feed(&mut s, t + 200 * US, &a2);
    assert_eq!((s.snd_una(), s.snd_max()), (14601, 14601));
    assert_eq!(s.counters().timeouts, 0);
    assert_eq!(s.deadline(Timer::Rto), None);
}

#[test]
fn ssthresh_on_entering_recovery_from_each_base() {
    use crate::scenario::SsthreshFrom;
    // cwnd 10 segments (IW) but the application wrote only 9: FlightSize 13,140 B. Segment 1
    // is lost; 2-4 arrive and are SACKed (3 duplicate ACKs): recovery starts at the third.
    //   FlightSize: ssthresh = max(13140/2, 2·1460) = 6570 (RFC 5681 §3.2 eq. (4));
    //   pipe: segment 1 lost (4380 B SACKed above it > 2·SMSS), nothing retransmitted yet,
    //     2-4 SACKed, 5-9 not lost: 7300 → 3650 (ns-3);
    //   cwnd: 14600/2 = 7300 (Linux); window: min(14600, 8,000,000)/2 = 7300 (ns-2).
    // With the receiver's buffer at 5 segments (7300 B), only 5 segments leave: FlightSize
    // 7300 → 3650; window: min(14600, 7300)/2 = 3650 (the buffer, not the 2920 B the
    // receiver advertises while it holds 2-4 out of order); cwnd still 7300.
    for (rule, buffer, want) in [
        (SsthreshFrom::FlightSize, RCV_BUF, 6570.0),
        (SsthreshFrom::Pipe, RCV_BUF, 3650.0),
        (SsthreshFrom::Cwnd, RCV_BUF, 7300.0),
        (SsthreshFrom::Window, RCV_BUF, 7300.0),
        (SsthreshFrom::FlightSize, 5 * MSS, 3650.0),
        (SsthreshFrom::Window, 5 * MSS, 3650.0),
        (SsthreshFrom::Cwnd, 5 * MSS, 7300.0),
    ] {
        let (mut s, mut r) = ends_with(true, |p| {
            p.ssthresh_from = rule;
            p.rcv_buffer = buffer;
        });
        s.write(9 * MSS);
        let data = establish(&mut s, &mut r);
        assert_eq!(data.len() as u64, (buffer / MSS).min(9));
        let acks = receiver_acks(&mut r, &data, &[1], 200 * US);
        let mut t = 400 * US;
        for (_, a) in &acks[..3] {
            t += US;
            feed(&mut s, t, a);
        }
        assert_eq!(s.counters().fast_retransmits, 1, "{rule:?}");
        assert_eq!(s.ssthresh(), want, "{rule:?}, buffer {buffer}");
    }
}
