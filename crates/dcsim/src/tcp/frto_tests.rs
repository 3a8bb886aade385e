//! Hand-built traces of F-RTO (RFC 5682 §3.1, the SACK-enhanced algorithm), the Eifel
//! response to a spurious timeout (RFC 4015 §3.1), and the classification of every timeout
//! as spurious or not (F-RTO's step 3b, else the Eifel detection's timestamps, RFC 3522 §3.2).
//! Two ends are driven by hand; a "lost" packet is never delivered, a "delayed" one is
//! delivered after the timeout. Every expected value is derived in the comment next to it.
//!
//! Conventions (test_support): MSS 1460, IW 10, RTO_min 10 ms, no timer tick, NewReno, SACK;
//! here the receiver ACKs every segment (delack 1). Segment i covers [seg(i), seg(i+1)). The
//! handshake gives SRTT = 100 µs, RTTVAR = 50 µs, so RTO = max(10 ms, 300 µs) = 10 ms; the
//! first window, segments 1-10 (IW 10), leaves at 100 µs and its timer fires at
//! t1 = 10.1 ms. A timeout then (RFC 5681 eq. 4, RFC 6298 §5.5): FlightSize = 10 segments =
//! 14600 B, ssthresh = max(7300, 2920) = 7300, cwnd = 1460 (the loss window), and only
//! segment 1 is resent; the next timer waits 20 ms.

use super::endpoint::{Endpoint, Timer};
use super::test_support::*;
use crate::net::packet::{Segment, RETX};
use crate::units::Time;

/// The first timeout, 10 ms after the first window left.
const T1: Time = Time::from_ps(10_100_000_000);

/// Sender (end 0) and receiver (end 1), `sack` on both, F-RTO `frto`, ACK every segment;
/// the sender has written `segments` segments and sent the first 10 at 100 µs.
fn start(frto: bool, sack: bool, segments: u64) -> (Endpoint, Endpoint, Vec<Segment>) {
    let (mut s, mut r) = ends_with(sack, |p| {
        p.frto = frto;
        p.delack_segments = 1;
    });
    s.write(segments * MSS);
    let data = establish(&mut s, &mut r);
    assert_eq!(seg_nos(&data), (1..=10).collect::<Vec<_>>());
    assert_eq!(s.deadline(Timer::Rto), Some(T1));
    (s, r, data)
}

fn fire_rto(s: &mut Endpoint, now: Time) -> Vec<Segment> {
    assert_eq!(s.deadline(Timer::Rto), Some(now), "the timer fires at its deadline");
    let mut out = Vec::new();
    s.on_rto_timer(now, &mut out);
    s.check_invariants().unwrap();
    out
}

/// `feed`, then the invariant-checking mode's test of the sender.
fn fed(s: &mut Endpoint, now: Time, p: &Segment) -> Vec<Segment> {
    let out = feed(s, now, p);
    s.check_invariants().unwrap();
    out
}

/// The first timeout, as the module docs derive it: segment 1 resent (returned), cwnd 1460,
/// ssthresh 7300, next timer 20 ms later.
fn first_timeout(s: &mut Endpoint) -> Segment {
    let out = fire_rto(s, T1);
    assert_eq!(seg_nos(&out), vec![1]);
    assert!(out[0].has(RETX));
    assert_eq!((s.cwnd(), s.ssthresh()), (1460.0, 7300.0));
    assert_eq!((s.snd_nxt(), s.snd_max()), (seg(2), seg(11)));
    assert_eq!(s.deadline(Timer::Rto), Some(T1 + 20 * MS));
    assert_eq!((s.counters().timeouts, s.counters().spurious_timeouts), (1, 0));
    assert_eq!(s.timeouts_classified(), 0, "the timeout waits for the ACK after it");
    assert_eq!(out[0].ts_val, T1 + Time::from_ps(1), "RetransmitTS");
    out[0]
}

fn new_data(out: &[Segment]) -> bool {
    out.iter().all(|p| !p.has(RETX))
}

// ======================================================= (a) a delay spike, found by F-RTO

#[test]
fn a_delay_spike_is_a_spurious_timeout_found_by_frto_and_undone_by_the_eifel_response() {
    // 14 segments to send; the first window (1-10) is held up on the way (a delay spike),
    // nothing is lost. An earlier reduction left ssthresh at 3 segments (4380 B); cwnd is
    // still the IW, 14600.
    let (mut s, mut r, data) = start(true, true, 14);
    s.cc_mut().win.ssthresh = 4380.0;
    // RFC 4015 step (0) at the timeout: pipe_prev = max(FlightSize 14600, ssthresh 4380) =
    // 14600, SRTT_prev = 100 µs + 2·G (G = 0: no tick), RTTVAR_prev = 50 µs. F-RTO step 1
    // (no recovery underway: RecoveryPoint 0 < SND.UNA): resend 1 only.
    first_timeout(&mut s);
    // The originals arrive late: 1 at 10.2 ms, 2 at 10.21 ms; each ACK echoes its TSval
    // (100 µs + 1 ps) and so samples 10.2 ms at the sender.
    let a1 = deliver(&mut r, T1 + 100 * US, &data[0]).unwrap();
    let a2 = deliver(&mut r, T1 + 110 * US, &data[1]).unwrap();
    assert_eq!((a1.ack, a2.ack), (seg(2), seg(3)));
    // t2 = 10.3 ms, ACK seg(2): step 2, a new ACK: RecoveryPoint = seg(11) (the highest sent).
    // Slow start 1460 -> 2920. It does not cover RecoveryPoint: step 2b, two NEW segments,
    // 11 and 12, where conventional recovery would resend 2 and 3.
    let t2 = T1 + 200 * US;
    let new = fed(&mut s, t2, &a1);
    assert_eq!(seg_nos(&new), vec![11, 12]);
    assert!(new_data(&new), "new data, not retransmissions");
    assert_eq!(s.cwnd(), 2920.0);
    assert_eq!((s.snd_una(), s.snd_nxt(), s.snd_max()), (seg(2), seg(13), seg(13)));
    // The RTT sample 10.2 ms (RFC 6298): RTTVAR = (3·50 + |100 − 10200|)/4 = 2562.5 µs, SRTT
    // = (7·100 + 10200)/8 = 1362.5 µs; RTO = 1362.5 + 4·2562.5 = 11612.5 µs from t2.
    assert_eq!(s.rtt().srtt, Some(Time::from_ps(1_362_500_000)));
    assert_eq!(s.rtt().rttvar, Time::from_ps(2_562_500_000));
    assert_eq!(s.deadline(Timer::Rto), Some(t2 + Time::from_ps(11_612_500_000)));
    assert_eq!(s.counters().spurious_timeouts, 0, "not yet decided");
    // t3 = 10.31 ms, ACK seg(3): step 3, a new cumulative ACK of data sent before the
    // timeout, nothing beyond RecoveryPoint: step 3b, the timeout was spurious.
    let t3 = T1 + 210 * US;
    let out = fed(&mut s, t3, &a2);
    assert_eq!((s.counters().timeouts, s.counters().spurious_timeouts), (1, 1));
    assert_eq!(s.timeouts_classified(), 1);
    // The Eifel response, RFC 4015 step (8): snd.nxt = snd.max (no go-back-N); step (9):
    // cwnd = FlightSize + min(bytes_acked, IW) = (seg(13) − seg(3)) + min(1460, 14600) =
    // 14600 + 1460 = 16060; ssthresh = pipe_prev = 14600. (The controller's slow start to
    // 4380 on this ACK is overwritten.)
    assert_eq!((s.cwnd(), s.ssthresh()), (16060.0, 14600.0));
    // So 1460 B of room: the next new segment, 13.
    assert_eq!(seg_nos(&out), vec![13]);
    assert!(new_data(&out));
    assert_eq!((s.snd_nxt(), s.snd_max()), (seg(14), seg(14)));
    assert_eq!(s.counters().retransmits, 1, "only the timeout's own retransmission");
    // The rest of the first window (3-10), then 11-13, arrive at 10.35 ms; their ACKs reach
    // the sender at t4 = 10.4 ms. The ACKs of 3-10 and 11-12 (sent before the detection) are
    // RFC 6298 samples of the spike, pushing SRTT to milliseconds; the ACK of 13 (seg(14),
    // above seg(13) = snd_max at the detection) is the first sample of data sent after it:
    // 10.4 − 10.31 = 90 µs. RFC 4015: SRTT = max(SRTT_prev 100 µs, 90 µs) = 100 µs, RTTVAR =
    // max(RTTVAR_prev 50 µs, 45 µs) = 50 µs: the estimate of before the timeout; RTO =
    // max(10 ms, 100 + 200 µs) = 10 ms.
    let t4 = T1 + 300 * US;
    let mut sent: Vec<Segment> = data[2..].to_vec();
    sent.extend(new);
    sent.extend(out);
    let mut acks = Vec::new();
    for p in &sent {
        acks.push(deliver(&mut r, t4 - 50 * US, p).unwrap());
    }
    for a in &acks[..acks.len() - 1] {
        fed(&mut s, t4, a);
        assert!(s.rtt().srtt.unwrap() > Time::from_ms(1), "spike samples, RFC 6298 as usual");
    }
    let last = acks.last().unwrap();
    assert_eq!((last.ack, last.ts_ecr), (seg(14), t3 + Time::from_ps(1)));
    fed(&mut s, t4, last);
    assert_eq!(s.rtt().srtt, Some(100 * US));
    assert_eq!(s.rtt().rttvar, 50 * US);
    assert_eq!(s.rtt().rto(&s.params().rto), 10 * MS);
    assert_eq!(s.counters().spurious_timeouts, 1);
}

// ======================================================= (b) a real loss, F-RTO on

#[test]
fn b_a_real_loss_falls_back_to_conventional_recovery_after_the_new_segments() {
    // The first window is lost at a full port, with and without SACK. F-RTO resends 1; its
    // ACK (seg(2)) leads to two new segments; the receiver, missing 2-10, answers 11 with a
    // duplicate ACK (SACKing 11 with SACK): step 3a.
    for sack in [true, false] {
        let (mut s, mut r, _lost) = start(true, sack, 14);
        let resent1 = first_timeout(&mut s);
        // The retransmission of 1 arrives at 10.15 ms; the ACK (seg(2)) echoes it and samples
        // 100 µs. Step 2b: 11 and 12, new; cwnd 2920 by slow start.
        let a = deliver(&mut r, T1 + 50 * US, &resent1).unwrap();
        assert_eq!((a.ack, a.ts_ecr), (seg(2), T1 + Time::from_ps(1)));
        let out = fed(&mut s, T1 + 100 * US, &a);
        assert_eq!(seg_nos(&out), vec![11, 12], "sack {sack}");
        assert!(new_data(&out));
        assert_eq!(s.cwnd(), 2920.0);
        // 11 arrives out of order: a duplicate ACK of seg(2), SACKing [seg(11), seg(12)) with
        // SACK. Step 3a: SACK beyond RecoveryPoint seg(11), or (without SACK) a duplicate
        // acknowledging nothing new: cwnd = min(2920, 3·1460) = 2920, conventional recovery:
        // go-back-N from snd_una, 2 and 3 resent (cwnd 2920, nothing counted in flight).
        let d = deliver(&mut r, T1 + 150 * US, &out[0]).unwrap();
        assert_eq!((d.ack, d.sack_blocks), (seg(2), if sack { 1 } else { 0 }));
        let out = fed(&mut s, T1 + 200 * US, &d);
        assert_eq!(seg_nos(&out), vec![2, 3], "sack {sack}");
        assert!(out.iter().all(|p| p.has(RETX)));
        assert_eq!((s.cwnd(), s.ssthresh()), (2920.0, 7300.0));
        assert_eq!((s.snd_nxt(), s.snd_max()), (seg(4), seg(13)));
        assert_eq!((s.counters().timeouts, s.counters().spurious_timeouts), (1, 0));
        assert_eq!(s.timeouts_classified(), 1);
        assert_eq!(s.counters().retransmits, 3);
    }
}

// ======================================================= (c) nothing new to send

#[test]
fn c_without_new_data_to_send_frto_falls_back_at_step_2b() {
    // (c1) Application-limited: exactly 10 segments written, all out. The same delay spike as
    // in (a): the original 1's ACK (seg(2)) arrives first. Step 2b cannot send anything new:
    // conventional recovery, go-back-N: slow start 2920, 2 and 3 resent. F-RTO gives no
    // verdict, so the ACK's timestamp does (RFC 3522 §3.2): it echoes the original 1
    // (100 µs), older than the retransmission: spurious.
    let (mut s, mut r, data) = start(true, true, 10);
    first_timeout(&mut s);
    let a1 = deliver(&mut r, T1 + 100 * US, &data[0]).unwrap();
    let out = fed(&mut s, T1 + 200 * US, &a1);
    assert_eq!(seg_nos(&out), vec![2, 3]);
    assert!(out.iter().all(|p| p.has(RETX)));
    assert_eq!((s.cwnd(), s.ssthresh()), (2920.0, 7300.0));
    assert_eq!((s.counters().spurious_timeouts, s.timeouts_classified()), (1, 1));

    // (c2) Limited by the receiver's window: 14 segments written, but the ACK of 1 offers
    // 9 segments, and 9 (2-10) are out: FlightSize + 1460 > 13140, nothing new fits. The
    // same fallback: 2 and 3 go again (cwnd 2920 < the window); the ACK echoes the original
    // 1, so the timestamps find the timeout spurious.
    let (mut s, _r, data) = start(true, true, 14);
    first_timeout(&mut s);
    let a1 = Segment {
        rwnd: 9 * MSS as u32,
        ts_ecr: data[0].ts_val,
        ..sack_ack(seg(2), &[])
    };
    let out = fed(&mut s, T1 + 200 * US, &a1);
    assert_eq!(seg_nos(&out), vec![2, 3]);
    assert!(out.iter().all(|p| p.has(RETX)));
    assert_eq!((s.counters().spurious_timeouts, s.timeouts_classified()), (1, 1));
}

// ======================================================= (d) F-RTO off: the timestamps decide

#[test]
fn d_without_frto_the_echoed_timestamp_classifies_and_the_sender_is_unchanged() {
    // (d1) The delay spike of (a) with F-RTO off. RetransmitTS = T1 + 1 ps (TSval of the
    // retransmission of 1). The first ACK above snd_una (seg(2)) echoes the original's TSval,
    // 100 µs + 1 ps < RetransmitTS: the original arrived, the timeout was spurious (RFC 3522
    // §3.2). The sender goes on as before the classification existed: slow start 2920,
    // go-back-N 2 and 3; no restoration of cwnd or ssthresh.
    let (mut s, mut r, data) = start(false, true, 14);
    s.cc_mut().win.ssthresh = 4380.0;
    first_timeout(&mut s);
    let a1 = deliver(&mut r, T1 + 100 * US, &data[0]).unwrap();
    let a2 = deliver(&mut r, T1 + 110 * US, &data[1]).unwrap();
    assert!(a1.ts_ecr < T1 + Time::from_ps(1));
    let out = fed(&mut s, T1 + 200 * US, &a1);
    assert_eq!((s.counters().timeouts, s.counters().spurious_timeouts), (1, 1));
    assert_eq!(seg_nos(&out), vec![2, 3]);
    assert!(out.iter().all(|p| p.has(RETX)));
    assert_eq!((s.cwnd(), s.ssthresh()), (2920.0, 7300.0));
    // ACK seg(3): slow start 4380; flight = seg(4) − seg(3) = 1460: 4 and 5 resent.
    let out = fed(&mut s, T1 + 210 * US, &a2);
    assert_eq!(seg_nos(&out), vec![4, 5]);
    assert!(out.iter().all(|p| p.has(RETX)));
    assert_eq!((s.cwnd(), s.ssthresh()), (4380.0, 7300.0));
    assert_eq!(s.counters().spurious_timeouts, 1, "classified once");

    // (d2) A real loss: the first window is lost; the resent 1 arrives and its ACK echoes the
    // retransmission's TSval, = RetransmitTS, not older: not spurious. Go-back-N as in (d1).
    let (mut s, mut r, _lost) = start(false, true, 14);
    let resent1 = first_timeout(&mut s);
    let a = deliver(&mut r, T1 + 50 * US, &resent1).unwrap();
    assert_eq!(a.ts_ecr, T1 + Time::from_ps(1));
    let out = fed(&mut s, T1 + 100 * US, &a);
    assert_eq!(seg_nos(&out), vec![2, 3]);
    assert_eq!((s.counters().timeouts, s.counters().spurious_timeouts), (1, 0));
    assert_eq!(s.timeouts_classified(), 1);
    assert_eq!(s.spurious_among_first(1), 0);
}

// ======================================================= (e) a timeout again in step 2

#[test]
fn e_a_timeout_again_in_step_2_goes_back_to_step_1_and_shares_the_verdict() {
    // The delay spike lasts longer: neither the first window nor the retransmission of 1
    // is through when the doubled timer fires at t = T1 + 20 ms = 30.1 ms.
    let (mut s, mut r, data) = start(true, true, 14);
    first_timeout(&mut s);
    // RFC 5682 step 2: "If the retransmission timeout expires again, go to step 1": resend 1
    // again; FlightSize is still 14600, so ssthresh 7300 and cwnd 1460 again; backoff 2, the
    // next timer 40 ms later. The state saved for the response (step (0)) is that of the
    // first timeout (RFC 4015: not reinitiated for the same segment): pipe_prev =
    // max(14600, ssthresh ∞ before the first timeout) = ∞.
    let t_2 = T1 + 20 * MS;
    let out = fire_rto(&mut s, t_2);
    assert_eq!(seg_nos(&out), vec![1]);
    assert_eq!((s.cwnd(), s.ssthresh(), s.rtt().backoff), (1460.0, 7300.0, 2));
    assert_eq!(s.deadline(Timer::Rto), Some(t_2 + 40 * MS));
    assert_eq!((s.counters().timeouts, s.timeouts_classified()), (2, 0));
    // The originals arrive at last: 1's ACK (seg(2)) at 30.2 ms is step 2's new ACK: two new
    // segments (slow start 2920).
    let a1 = deliver(&mut r, t_2 + 50 * US, &data[0]).unwrap();
    let a2 = deliver(&mut r, t_2 + 60 * US, &data[1]).unwrap();
    let out = fed(&mut s, t_2 + 100 * US, &a1);
    assert_eq!(seg_nos(&out), vec![11, 12]);
    assert!(new_data(&out));
    // 2's ACK (seg(3)): step 3b, spurious. Both timeouts were of this one episode (the same
    // segment timing out twice): both spurious. Response: cwnd = (seg(13) − seg(3)) +
    // min(1460, 14600) = 16060, ssthresh = pipe_prev = ∞ (slow start again, as before the
    // spike); 13 goes.
    let out = fed(&mut s, t_2 + 110 * US, &a2);
    assert_eq!((s.counters().timeouts, s.counters().spurious_timeouts), (2, 2));
    assert_eq!(
        (s.timeouts_classified(), s.spurious_among_first(1), s.spurious_among_first(2)),
        (2, 1, 2)
    );
    assert_eq!(s.cwnd(), 16060.0);
    assert_eq!(s.ssthresh(), f64::INFINITY);
    assert_eq!(seg_nos(&out), vec![13]);
}

#[test]
fn e_a_timeout_in_step_3_ends_the_detection_without_a_spurious_verdict() {
    // As (b) up to the two new segments; then nothing arrives and the timer fires again.
    // RFC 5682 step 1: RecoveryPoint (seg(11), set in step 2) ≥ SND.UNA (seg(2)): no F-RTO,
    // conventional recovery (resend 2). The first timeout's episode ends not spurious; the
    // second waits for its own ACK, and F-RTO's rule does not call it spurious either.
    let (mut s, mut r, _lost) = start(true, true, 14);
    let resent1 = first_timeout(&mut s);
    let a = deliver(&mut r, T1 + 50 * US, &resent1).unwrap();
    let t = T1 + 100 * US;
    let new = fed(&mut s, t, &a);
    assert_eq!(seg_nos(&new), vec![11, 12]);
    // RTT sample 100 µs: SRTT 100 µs, RTTVAR 37.5 µs, RTO 10 ms from t, backoff cleared.
    let out = fire_rto(&mut s, t + 10 * MS);
    assert_eq!(seg_nos(&out), vec![2]);
    assert!(out[0].has(RETX));
    assert_eq!(
        (s.counters().timeouts, s.timeouts_classified(), s.counters().spurious_timeouts),
        (2, 1, 0)
    );
    // 2 arrives (3-10 are lost): ACK seg(3) SACKing 11-12 (they arrived meanwhile).
    for p in &new {
        deliver(&mut r, t + 10 * MS, p);
    }
    let a = deliver(&mut r, t + 10 * MS + 50 * US, &out[0]).unwrap();
    assert_eq!(a.ack, seg(3));
    let out = fed(&mut s, t + 10 * MS + 100 * US, &a);
    assert_eq!(
        (s.counters().timeouts, s.timeouts_classified(), s.counters().spurious_timeouts),
        (2, 2, 0)
    );
    // Conventional go-back-N: slow start 2920, 3 and 4.
    assert_eq!(seg_nos(&out), vec![3, 4]);
}
