//! Hand-built traces of the retransmission path after a timeout and during loss recovery
//! (RFC 6298 §5, RFC 5681 §3.1, RFC 6582, RFC 6675 §5 and §5.1, RFC 7323 §4.3). Two ends are
//! driven by hand; a "lost" packet is simply never delivered. Every expected value is derived in
//! the comment next to it.
//!
//! Conventions (test_support): MSS 1460, IW 10, RTO_min 10 ms, no timer tick, NewReno.
//! Segment i covers [seg(i), seg(i+1)). Handshake: SYN at 0, SYN-ACK arrives at 100 µs, so
//! SRTT = 100 µs, RTTVAR = 50 µs and RTO = max(10 ms, 300 µs) = 10 ms; the data leaves at
//! 100 µs. Every later ACK in these traces comes 100 µs after the segment it answers, so RTT
//! samples stay 100 µs and the un-backed-off RTO stays 10 ms.

use super::endpoint::{Endpoint, Timer};
use super::test_support::*;
use crate::net::packet::{Segment, PSH, RETX};
use crate::units::Time;

/// Sender (end 0) and receiver (end 1), NewReno, `sack` on both, ACK every
/// `delack_segments` in-order segments (40 ms delayed-ACK timer).
fn ends(sack: bool, delack_segments: u32) -> (Endpoint, Endpoint) {
    ends_with(sack, |p| p.delack_segments = delack_segments)
}

/// A response of `n` segments on a fresh connection: returns the ends and the n segments,
/// all sent at 100 µs (IW 10 ≥ n).
fn response(sack: bool, delack_segments: u32, n: u64) -> (Endpoint, Endpoint, Vec<Segment>) {
    let (mut s, mut r) = ends(sack, delack_segments);
    s.write(n * MSS);
    let data = establish(&mut s, &mut r);
    assert_eq!(seg_nos(&data), (1..=n).collect::<Vec<_>>());
    assert_eq!(s.rtt().srtt, Some(100 * US));
    assert_eq!(
        s.deadline(Timer::Rto),
        Some(100 * US + 10 * MS),
        "RFC 6298 (5.1): armed at the first send"
    );
    (s, r, data)
}

fn fire_rto(s: &mut Endpoint, now: Time) -> Vec<Segment> {
    assert_eq!(s.deadline(Timer::Rto), Some(now), "the timer fires at its deadline");
    let mut out = Vec::new();
    s.on_rto_timer(now, &mut out);
    out
}

// ====================================================================== (a) tail loss, RTO

#[test]
fn a_tail_loss_rto_resends_the_first_hole_then_slow_starts() {
    // A 4-segment response; 2, 3, 4 are dropped at a full port. The receiver ACKs every
    // segment (delack 1) so that segment 1 is acknowledged at once.
    let (mut s, mut r, data) = response(true, 1, 4);
    assert!(data[3].has(PSH) && !data[0].has(PSH));
    // 1 arrives at 150 µs -> ACK seg(2), echoing 1's TSval (100 µs).
    let a1 = deliver(&mut r, 150 * US, &data[0]).expect("delack 1: ACK at once");
    assert_eq!(a1.ack, seg(2));
    // At 200 µs: RTT sample 100 µs (SRTT stays 100 µs); RFC 6298 (5.3) restarts the timer:
    // 200 µs + 10 ms. The timer is NOT 10 ms after the last send (100 µs): the ACK restarts it.
    assert!(feed(&mut s, 200 * US, &a1).is_empty());
    assert_eq!(s.deadline(Timer::Rto), Some(200 * US + 10 * MS));
    // No growth: app-limited, flight before the ACK 4 segs, 2·4 < IW 10 (RFC 7661).
    assert_eq!(s.cwnd(), 14600.0);
    // RTO at 10.2 ms (RFC 6298 5.4-5.6): FlightSize = seg(5) - seg(2) = 4380 ->
    // ssthresh = max(2190, 2920) = 2920 (RFC 5681 eq. 4); cwnd = LW = 1460; retransmit the
    // earliest unacknowledged segment, 2, only; RTO doubled: next deadline 10.2 + 20 ms.
    let t_rto = 200 * US + 10 * MS;
    let out = fire_rto(&mut s, t_rto);
    assert_eq!(seg_nos(&out), vec![2]);
    assert!(out[0].has(RETX) && !out[0].has(PSH));
    assert_eq!(out[0].len as u64, MSS);
    assert_eq!((s.cwnd(), s.ssthresh()), (1460.0, 2920.0));
    assert_eq!(s.rtt().backoff, 1);
    assert_eq!(s.deadline(Timer::Rto), Some(t_rto + 20 * MS));
    assert_eq!((s.snd_nxt(), s.snd_max()), (seg(3), seg(5)));
    assert_eq!(s.counters().timeouts, 1);
    // The retransmission arrives; its ACK (seg(3)) echoes ITS TSval (t_rto): with RFC 7323
    // timestamps the sample is unambiguous (RFC 6298 §3), 100 µs, and backoff is cleared.
    let a2 = deliver(&mut r, t_rto + 50 * US, &out[0]).unwrap();
    assert_eq!((a2.ack, a2.ts_ecr), (seg(3), out[0].ts_val));
    let t = t_rto + 100 * US;
    let out = feed(&mut s, t, &a2);
    assert_eq!(s.rtt().backoff, 0);
    assert_eq!(s.rtt().srtt, Some(100 * US));
    // Slow start (1460 < 2920): cwnd = 1460 + 1460 = 2920 -> go-back-N sends 3 and 4 (both
    // resent data: RETX; 4 ends the write: PSH). Timer restarted un-backed-off: t + 10 ms.
    assert_eq!(s.cwnd(), 2920.0);
    assert_eq!(seg_nos(&out), vec![3, 4]);
    assert!(out.iter().all(|p| p.has(RETX)));
    assert!(out[1].has(PSH));
    assert_eq!(s.deadline(Timer::Rto), Some(t + 10 * MS));
    // Both arrive: ACK seg(4) -> congestion avoidance (cwnd = ssthresh): +1460²/2920 = 730
    // -> 3650; ACK seg(5): flight before it 1 segment, 2·1 < 3650/1460 and not cwnd-limited:
    // no growth (RFC 7661). All acknowledged: timer off.
    let a3 = deliver(&mut r, t + 50 * US, &out[0]).unwrap();
    let a4 = deliver(&mut r, t + 60 * US, &out[1]).unwrap();
    assert!(feed(&mut s, t + 100 * US, &a3).is_empty());
    assert!(feed(&mut s, t + 110 * US, &a4).is_empty());
    assert_eq!(s.cwnd(), 3650.0);
    assert_eq!((s.snd_una(), s.deadline(Timer::Rto)), (seg(5), None));
    assert_eq!(
        (s.counters().retransmits, s.counters().timeouts, s.counters().fast_retransmits),
        (3, 1, 0)
    );
    assert_eq!(r.delivered(), 4 * MSS);
}

#[test]
fn a_delayed_ack_longer_than_rto_min_makes_the_rto_resend_a_held_segment() {
    // The same response with the default receiver (ACK every 2nd segment, 40 ms timer).
    // 1 arrives alone at 150 µs: its ACK is delayed to 40.15 ms, after the RTO (10.1 ms).
    let (mut s, mut r, data) = response(true, 2, 4);
    assert!(deliver(&mut r, 150 * US, &data[0]).is_none());
    assert_eq!(r.deadline(Timer::DelayedAck), Some(150 * US + 40 * MS));
    // RTO at 10.1 ms: FlightSize seg(5) - 1 = 5840 -> ssthresh 2920, cwnd 1460; the
    // earliest unacknowledged segment is 1 (RFC 6298 5.4), which the receiver holds.
    let t_rto = 100 * US + 10 * MS;
    let out = fire_rto(&mut s, t_rto);
    assert_eq!(seg_nos(&out), vec![1]);
    assert_eq!((s.cwnd(), s.ssthresh()), (1460.0, 2920.0));
    // The copy is a duplicate: the receiver ACKs at once (ack seg(2)). RFC 7323 §4.3 (2):
    // SEG.SEQ (1) <= Last.ACK.sent (1: nothing was ACKed since the handshake) and SEG.TSval
    // >= TS.Recent, so TS.Recent = the copy's TSval and the ACK echoes the retransmission.
    let a = deliver(&mut r, t_rto + 50 * US, &out[0]).expect("duplicate: ACK at once");
    assert_eq!(a.ack, seg(2));
    assert_eq!(r.deadline(Timer::DelayedAck), None);
    assert_eq!(a.ts_ecr, out[0].ts_val, "RFC 7323 §4.3: echo the copy that covers Last.ACK.sent");
    // So the sender samples 100 µs, not 10.1 ms (which would make SRTT 1.35 ms, RTTVAR
    // 2.54 ms, RTO 11.5 ms): RTO stays 10 ms, restarted at 10.2 ms.
    let t = t_rto + 100 * US;
    let out = feed(&mut s, t, &a);
    assert_eq!(s.rtt().srtt, Some(100 * US));
    assert_eq!(s.deadline(Timer::Rto), Some(t + 10 * MS));
    // Slow start 1460 -> 2920: go-back-N resends 2 and 3.
    assert_eq!(s.cwnd(), 2920.0);
    assert_eq!(seg_nos(&out), vec![2, 3]);
}

// ====================================================================== (b) retransmission lost

#[test]
fn b_a_lost_rto_retransmission_waits_for_the_doubled_timer() {
    // As (a) up to the first RTO; the retransmission of 2 is dropped again, twice.
    let (mut s, mut r, data) = response(true, 1, 4);
    let a1 = deliver(&mut r, 150 * US, &data[0]).unwrap();
    feed(&mut s, 200 * US, &a1);
    let t1 = 200 * US + 10 * MS;
    assert_eq!(seg_nos(&fire_rto(&mut s, t1)), vec![2]); // dropped
                                                         // 2nd RTO at t1 + 20 ms (RFC 6298 5.5: doubled). ssthresh is not lowered again: FlightSize
                                                         // is still seg(5) - seg(2) = 4380 -> 2920 (RFC 5681: held for a segment already resent by
                                                         // the timer). cwnd 1460, segment 2 again, next wait 40 ms.
    let t2 = t1 + 20 * MS;
    assert_eq!(seg_nos(&fire_rto(&mut s, t2)), vec![2]); // dropped
    assert_eq!((s.cwnd(), s.ssthresh(), s.rtt().backoff), (1460.0, 2920.0, 2));
    assert_eq!(s.deadline(Timer::Rto), Some(t2 + 40 * MS));
    // 3rd RTO at t2 + 40 ms; next wait 80 ms. This copy gets through.
    let t3 = t2 + 40 * MS;
    let out = fire_rto(&mut s, t3);
    assert_eq!(seg_nos(&out), vec![2]);
    assert_eq!(s.deadline(Timer::Rto), Some(t3 + 80 * MS));
    assert_eq!(s.counters().timeouts, 3);
    assert_eq!(t3, 200 * US + 70 * MS, "10 + 20 + 40 ms after the last ACK");
    // Its ACK echoes t3: sample 100 µs, backoff cleared, RTO 10 ms again; slow start 2920:
    // 3 and 4 leave.
    let a = deliver(&mut r, t3 + 50 * US, &out[0]).unwrap();
    let t = t3 + 100 * US;
    let out = feed(&mut s, t, &a);
    assert_eq!((s.rtt().backoff, s.rtt().srtt), (0, Some(100 * US)));
    assert_eq!(s.deadline(Timer::Rto), Some(t + 10 * MS));
    assert_eq!(s.cwnd(), 2920.0);
    assert_eq!(seg_nos(&out), vec![3, 4]);
    assert_eq!(s.counters().retransmits, 5);
}

#[test]
fn b_after_an_rto_dupacks_below_recovery_point_start_no_fast_recovery() {
    // 10 segments (app-limited), all dropped at a full port. ACK every segment (delack 1).
    let (mut s, mut r, _data) = response(true, 1, 10);
    // RTO1 at 10.1 ms: FlightSize 14600 -> ssthresh 7300, cwnd 1460, RecoveryPoint (recover)
    // = HighData = seg(11); resend 1.
    let t1 = 100 * US + 10 * MS;
    let out = fire_rto(&mut s, t1);
    assert_eq!(seg_nos(&out), vec![1]);
    assert_eq!((s.cwnd(), s.ssthresh()), (1460.0, 7300.0));
    // 1 arrives; its ACK (seg(2)) at t1 + 100 µs: slow start 2920, go-back-N 2, 3.
    let a = deliver(&mut r, t1 + 50 * US, &out[0]).unwrap();
    let out = feed(&mut s, t1 + 100 * US, &a);
    assert_eq!(seg_nos(&out), vec![2, 3]);
    assert_eq!(s.cwnd(), 2920.0);
    let (a2, a3) = (
        deliver(&mut r, t1 + 150 * US, &out[0]).unwrap(),
        deliver(&mut r, t1 + 160 * US, &out[1]).unwrap(),
    );
    // ACK seg(3): cwnd 4380, flight = seg(4) - seg(3) = 1460 -> 4, 5.
    let out45 = feed(&mut s, t1 + 200 * US, &a2);
    assert_eq!(seg_nos(&out45), vec![4, 5]);
    // ACK seg(4): cwnd 5840, flight 2920 -> 6, 7. Timer restarted: t1 + 210 µs + 10 ms.
    let t_last = t1 + 210 * US;
    let out = feed(&mut s, t_last, &a3);
    assert_eq!(seg_nos(&out), vec![6, 7]);
    assert_eq!(s.cwnd(), 5840.0);
    assert_eq!(s.deadline(Timer::Rto), Some(t_last + 10 * MS));
    // Outstanding: 4 5 6 7. The retransmission of 4 is dropped again; 5, 6, 7 arrive: three
    // dup ACKs of seg(4) SACKing [5], [5-6], [5-7].
    let sent5 = [out45[1]];
    let d5 = deliver(&mut r, t_last + 50 * US, &sent5[0]).unwrap();
    let d6 = deliver(&mut r, t_last + 60 * US, &out[0]).unwrap();
    let d7 = deliver(&mut r, t_last + 70 * US, &out[1]).unwrap();
    for (k, d) in [d5, d6, d7].iter().enumerate() {
        assert_eq!(d.ack, seg(4));
        let t = t_last + (100 + k as u64) * US;
        // RFC 6675 §5.1: no new recovery until HighACK >= RecoveryPoint (seg(11)), although
        // at the 3rd, DupAcks = 3 and IsLost(4) (4380 B SACKed above). Nothing is sent:
        // cwnd 5840 = FlightSize seg(8) - seg(4); no inflation, no timer restart.
        assert!(feed(&mut s, t, d).is_empty(), "dup ACK {k}");
        assert_eq!(s.counters().fast_retransmits, 0);
        assert_eq!(s.cwnd(), 5840.0);
        assert_eq!(s.deadline(Timer::Rto), Some(t_last + 10 * MS));
    }
    // RTO2 at t_last + 10 ms (backoff was cleared by the ACKs): FlightSize = seg(11) - seg(4)
    // = 10220 -> ssthresh 5110; cwnd 1460; resend 4; 5-7 are SACKed and skipped.
    let t2 = t_last + 10 * MS;
    let out = fire_rto(&mut s, t2);
    assert_eq!(seg_nos(&out), vec![4]);
    assert_eq!((s.cwnd(), s.ssthresh()), (1460.0, 5110.0));
    assert_eq!(s.deadline(Timer::Rto), Some(t2 + 20 * MS));
    // 4 fills the hole: ACK seg(8). Slow start: +2 segments (L = 2) -> 4380: 8, 9, 10.
    let a = deliver(&mut r, t2 + 50 * US, &out[0]).unwrap();
    assert_eq!((a.ack, a.sack_blocks), (seg(8), 0));
    let out = feed(&mut s, t2 + 100 * US, &a);
    assert_eq!(s.cwnd(), 4380.0);
    assert_eq!(seg_nos(&out), vec![8, 9, 10]);
    // Resent: 1, 2-3, 4-5, 6-7, 4, 8-10 = 11; 5, 6, 7 were never resent after being SACKed.
    assert_eq!(s.counters().retransmits, 11);
    assert_eq!((s.counters().timeouts, s.counters().fast_retransmits), (2, 0));
}

// ====================================================================== (c) SACK recovery

#[test]
fn c_a_lost_fast_retransmission_is_repaired_by_the_rto_not_the_dupacks() {
    // Unlimited data, ACK every 2nd segment. Segment 1 dropped, 2-10 arrive: 9 dup ACKs.
    let (mut s, mut r) = ends(true, 2);
    s.write(u64::MAX);
    let data = establish(&mut s, &mut r);
    let mut acks = Vec::new();
    for (k, p) in data[1..].iter().enumerate() {
        acks.push(deliver(&mut r, 200 * US + k as u64 * 10 * US, p).unwrap());
    }
    let mut t = 400 * US;
    let mut sent = Vec::new();
    for a in &acks {
        t += US;
        sent.extend(feed(&mut s, t, a));
    }
    // RFC 6675 step 4 at the 3rd dup ACK (403 µs): ssthresh = cwnd = 7300, resend 1, timer
    // restarted (403 µs + 10 ms); dup ACKs 6-9 send new data 11-14 (rule 2).
    assert_eq!(seg_nos(&sent), vec![1, 11, 12, 13, 14]);
    assert_eq!(s.deadline(Timer::Rto), Some(403 * US + 10 * MS));
    // The retransmission of 1 is dropped. 11-14 arrive: 4 more dup ACKs (SACK [2-11] ...
    // [2-14]); each takes a segment out of the pipe and rule 2 sends one new segment. Segment
    // 1 is below HighRxt: never chosen again (RFC 6675 has no lost-retransmission detection).
    let mut more = Vec::new();
    for (k, p) in sent[1..].iter().enumerate() {
        let a = deliver(&mut r, 500 * US + k as u64 * 10 * US, p).unwrap();
        assert_eq!(a.ack, 1);
        t += US;
        more.extend(feed(&mut s, t, &a));
    }
    assert_eq!(seg_nos(&more), vec![15, 16, 17, 18]);
    assert_eq!(s.counters().retransmits, 1, "1 is not resent by the dup ACKs");
    assert_eq!(s.cwnd(), 7300.0);
    // The timer was never restarted (snd_una never moved): RTO at 10.403 ms. FlightSize =
    // seg(19) - 1 = 26280 -> ssthresh 13140 (RFC 5681 eq. 4: 1 was resent by fast retransmit,
    // not by the timer); cwnd 1460; resend 1 only (2-14 SACKed), backoff 1.
    let t_rto = 403 * US + 10 * MS;
    let out = fire_rto(&mut s, t_rto);
    assert_eq!(seg_nos(&out), vec![1]);
    assert_eq!((s.cwnd(), s.ssthresh()), (1460.0, 13140.0));
    assert_eq!(s.deadline(Timer::Rto), Some(t_rto + 20 * MS));
    // 1 arrives: ACK seg(15). Slow start +2: 4380 -> go-back-N 15, 16, 17 (in flight, not
    // known lost: resent anyway, as RFC 5681/6298 go-back-N must).
    let a = deliver(&mut r, t_rto + 50 * US, &out[0]).unwrap();
    assert_eq!(a.ack, seg(15));
    let out = feed(&mut s, t_rto + 100 * US, &a);
    assert_eq!(s.cwnd(), 4380.0);
    assert_eq!(seg_nos(&out), vec![15, 16, 17]);
    assert_eq!((s.counters().timeouts, s.counters().fast_retransmits), (1, 1));
}

#[test]
fn c_the_rescue_retransmission_waits_until_highack_passes_the_first_retransmission() {
    // RFC 6675 §5 (4.3): "To prevent repeated retransmission of the same data or a premature
    // rescue retransmission, set both HighRxt and RescueRxt to the highest sequence number in
    // the retransmitted segment"; NextSeg (4): rescue only "if HighACK > RescueRxt".
    //
    // Part 1: 10 segments (app-limited), only 1 dropped; 2-10 arrive: 9 dup ACKs.
    let (mut s, mut r, data) = response(true, 2, 10);
    let mut acks = Vec::new();
    for (k, p) in data[1..].iter().enumerate() {
        acks.push(deliver(&mut r, 200 * US + k as u64 * 10 * US, p).unwrap());
    }
    let mut t = 400 * US;
    let mut sent = Vec::new();
    for a in &acks {
        t += US;
        sent.extend(feed(&mut s, t, a));
    }
    // Recovery at the 3rd dup ACK: resend 1 (HighRxt = RescueRxt = seg(2) - 1). Later dup
    // ACKs: no lost hole above HighRxt, no new data, no hole below the highest SACK, and
    // HighACK (1) is not > RescueRxt: nothing. Segment 10 is in flight (it arrives) - a
    // rescue of it now would be a pure duplicate.
    assert_eq!(seg_nos(&sent), vec![1], "no premature rescue");
    let full = deliver(&mut r, t + 50 * US, &sent[0]).unwrap();
    assert_eq!(full.ack, seg(11));
    assert!(feed(&mut s, t + 100 * US, &full).is_empty());
    assert_eq!((s.counters().retransmits, s.counters().timeouts), (1, 0));

    // Part 2: 1 and 10 dropped (a tail loss). 2-9 arrive: 8 dup ACKs -> resend 1 only.
    let (mut s, mut r, data) = response(true, 2, 10);
    let mut acks = Vec::new();
    for (k, p) in data[1..9].iter().enumerate() {
        acks.push(deliver(&mut r, 200 * US + k as u64 * 10 * US, p).unwrap());
    }
    let mut t = 400 * US;
    let mut sent = Vec::new();
    for a in &acks {
        t += US;
        sent.extend(feed(&mut s, t, a));
    }
    assert_eq!(seg_nos(&sent), vec![1]);
    // 1 arrives: partial ACK seg(10) (< RecoveryPoint seg(11)). Now HighACK > RescueRxt:
    // NextSeg (4) returns the highest un-SACKed segment, 10, once; no RTO is needed.
    let partial = deliver(&mut r, t + 50 * US, &sent[0]).unwrap();
    assert_eq!((partial.ack, partial.sack_blocks), (seg(10), 0));
    let out = feed(&mut s, t + 100 * US, &partial);
    assert_eq!(seg_nos(&out), vec![10]);
    let full = deliver(&mut r, t + 150 * US, &out[0]).unwrap();
    assert!(feed(&mut s, t + 200 * US, &full).is_empty());
    assert_eq!((s.snd_una(), s.deadline(Timer::Rto)), (seg(11), None));
    assert_eq!((s.counters().retransmits, s.counters().timeouts), (2, 0));
}

// ====================================================================== (d) NewReno timer

#[test]
fn d_newreno_partial_acks_restart_the_timer_each_time() {
    // No SACK, 10 segments (app-limited), 3, 6 and 9 dropped, ACK every 2nd segment.
    // Receiver: 1, 2 -> ACK seg(3); 4, 5, 7, 8, 10 -> five immediate dup ACKs.
    let (mut s, mut r, data) = response(false, 2, 10);
    let mut acks = Vec::new();
    for (k, p) in data.iter().enumerate() {
        if ![3, 6, 9].contains(&seg_no(p)) {
            acks.extend(deliver(&mut r, 200 * US + k as u64 * 10 * US, p));
        }
    }
    assert_eq!(
        acks.iter().map(|a| a.ack).collect::<Vec<_>>(),
        vec![seg(3), seg(3), seg(3), seg(3), seg(3), seg(3)]
    );
    let mut t = 400 * US;
    let mut sent = Vec::new();
    for a in &acks {
        t += US;
        sent.extend(feed(&mut s, t, a));
    }
    // ACK seg(3): slow start +2 -> 17520. 3rd dup ACK (404 µs): FlightSize seg(11) - seg(3) =
    // 11680 -> ssthresh 5840, cwnd 5840 + 3·1460 = 10220, resend 3, timer 404 µs + 10 ms;
    // dup ACKs 4, 5 inflate to 13140.
    assert_eq!(seg_nos(&sent), vec![3]);
    assert_eq!((s.cwnd(), s.ssthresh()), (13140.0, 5840.0));
    assert_eq!(s.deadline(Timer::Rto), Some(404 * US + 10 * MS));
    // 3 arrives: partial ACK seg(6) at tp1. RFC 6582 §3.2 step 3: resend 6, deflate by 4380
    // and add 1460: 10220; timer reset (first partial ACK, both variants): tp1 + 10 ms.
    let a = deliver(&mut r, t + 50 * US, &sent[0]).unwrap();
    assert_eq!(a.ack, seg(6));
    let tp1 = t + 100 * US;
    let out = feed(&mut s, tp1, &a);
    assert_eq!(seg_nos(&out), vec![6]);
    assert_eq!(s.cwnd(), 10220.0);
    assert_eq!(s.deadline(Timer::Rto), Some(tp1 + 10 * MS));
    // 6 arrives: partial ACK seg(9) at tp2 = tp1 + 200 µs: resend 9, cwnd 10220 - 4380 + 1460
    // = 7300. The timer is restarted again (RFC 6298 5.3; RFC 6582's Slow-but-Steady
    // variant): tp2 + 10 ms, where the Impatient variant would keep tp1 + 10 ms.
    let a = deliver(&mut r, tp1 + 50 * US, &out[0]).unwrap();
    assert_eq!(a.ack, seg(9));
    let tp2 = tp1 + 200 * US;
    let out = feed(&mut s, tp2, &a);
    assert_eq!(seg_nos(&out), vec![9]);
    assert_eq!(s.cwnd(), 7300.0);
    assert_eq!(s.deadline(Timer::Rto), Some(tp2 + 10 * MS));
    // 9 arrives: full ACK seg(11): cwnd = min(5840, max(0, 1460) + 1460) = 2920; timer off.
    let a = deliver(&mut r, tp2 + 50 * US, &out[0]).unwrap();
    assert!(feed(&mut s, tp2 + 100 * US, &a).is_empty());
    assert_eq!((s.snd_una(), s.cwnd(), s.deadline(Timer::Rto)), (seg(11), 2920.0, None));
    assert_eq!(
        (s.counters().fast_retransmits, s.counters().retransmits, s.counters().timeouts),
        (1, 3, 0)
    );
}

#[test]
fn d_newreno_lost_retransmission_then_rto_then_no_fast_retransmit_from_duplicates() {
    // No SACK, 10 segments, 3 dropped; the fast retransmission of 3 is dropped too.
    let (mut s, mut r, data) = response(false, 2, 10);
    let mut acks = Vec::new();
    for (k, p) in data.iter().enumerate() {
        if seg_no(p) != 3 {
            acks.extend(deliver(&mut r, 200 * US + k as u64 * 10 * US, p));
        }
    }
    assert_eq!(acks.len(), 8); // ACK seg(3), then 7 dup ACKs (4-10)
    let mut t = 400 * US;
    let mut sent = Vec::new();
    for a in &acks {
        t += US;
        sent.extend(feed(&mut s, t, a));
    }
    // Fast retransmit at the 3rd dup ACK (404 µs); dup ACKs 4-7 inflate cwnd
    // 10220 -> 16060 but send nothing (no new data); 3 is never resent by them.
    assert_eq!(seg_nos(&sent), vec![3]);
    assert_eq!(s.cwnd(), 16060.0);
    // RTO at 404 µs + 10 ms: FlightSize seg(11) - seg(3) = 11680 -> ssthresh 5840, cwnd 1460,
    // recover = seg(11), recovery left; resend 3.
    let t_rto = 404 * US + 10 * MS;
    let out = fire_rto(&mut s, t_rto);
    assert_eq!(seg_nos(&out), vec![3]);
    assert_eq!((s.cwnd(), s.ssthresh()), (1460.0, 5840.0));
    // 3 arrives: ACK seg(11) (4-10 were held): everything acknowledged, timer off.
    let a = deliver(&mut r, t_rto + 50 * US, &out[0]).unwrap();
    assert_eq!(a.ack, seg(11));
    assert!(feed(&mut s, t_rto + 100 * US, &a).is_empty());
    assert_eq!((s.snd_una(), s.deadline(Timer::Rto)), (seg(11), None));
    assert_eq!(
        (s.counters().timeouts, s.counters().fast_retransmits, s.counters().retransmits),
        (1, 1, 2)
    );
}
