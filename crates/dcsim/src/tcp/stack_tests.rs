//! Worked traces of the stack rules a `tcp.profile` chooses: how ACKs count towards growth
//! (per ACK, per segment, RFC 3465 bytes with L), restart after idle (RFC 5681 §4.1 and
//! Linux), when an application-limited sender may grow (RFC 7661, Linux 2.6, none), the
//! window in recovery (RFC 6675, PRR), the tail loss probe (RFC 8985 §7) and early
//! retransmit (RFC 5827). Two ends are driven by hand as in `sack_tests`: MSS 1460, delayed
//! ACKs every 2 segments, RTO = RTO_min = 10 ms, segment i covers [seg(i), seg(i + 1)).

use super::endpoint::{Endpoint, TcpParams, Timer};
use super::test_support::*;
use crate::net::packet::{Segment, PSH, RETX};
use crate::scenario::{AckCounting, CwndValidation, IdleRestart, Recovery};
use crate::units::Time;

/// A NewReno sender (end 0) and receiver (end 1) with SACK, from `params` changed by `tune`.
fn ends(tune: impl Fn(&mut TcpParams)) -> (Endpoint, Endpoint) {
    ends_with(true, tune)
}

/// Delivers a flight to the receiver at `t`, then its ACKs to the sender 50 µs later, each
/// ACK 1 µs after the previous; returns what the sender sent in answer (the next flight).
fn round_trip(s: &mut Endpoint, r: &mut Endpoint, flight: &[Segment], t: Time) -> Vec<Segment> {
    let acks: Vec<Segment> = flight.iter().filter_map(|p| deliver(r, t, p)).collect();
    let mut next = Vec::new();
    for (k, a) in acks.iter().enumerate() {
        next.extend(feed(s, t + 50 * US + k as u64 * US, a));
    }
    next
}

fn cwnd_segments(s: &Endpoint) -> f64 {
    s.cwnd() / MSSF
}

#[test]
fn the_first_round_trips_of_a_transfer_under_each_ack_counting_rule() {
    // IW 10 and an ACK every 2 segments: the first flight of 10 gets 5 ACKs of 2 segments.
    // Per ACK: +1 per ACK, 10 → 15; the 15 segments then sent get 7 ACKs (the 15th waits for
    // the next flight's first segment) → 22; the 21 sent next get 11 ACKs (the first covers
    // segments 15 and 16) → 33. Counting segments or bytes, with L = 2: +2 per ACK,
    // 10 → 20 → 40 → 80 (×2 per RTT, what RFC 3465 §2.2's L = 2 is for).
    for (rule, want) in [
        (AckCounting::PerAck, [15.0, 22.0, 33.0]),
        (AckCounting::Segments, [20.0, 40.0, 80.0]),
        (AckCounting::Delivered, [20.0, 40.0, 80.0]),
        (AckCounting::Bytes, [20.0, 40.0, 80.0]),
    ] {
        let (mut s, mut r) = ends(|_| {});
        s.cc_mut().win.rules.counting = rule;
        s.write(u64::MAX);
        let mut flight = establish(&mut s, &mut r);
        assert_eq!(flight.len(), 10);
        for (k, &cwnd) in want.iter().enumerate() {
            flight = round_trip(&mut s, &mut r, &flight, Time::from_ms(1 + k as u64));
            assert_eq!(cwnd_segments(&s), cwnd, "{rule:?}, round {}", k + 1);
        }
    }
}

#[test]
fn a_short_final_segment_and_stretch_acks_under_each_rule() {
    // A 4-segment-and-340-B write: ACKs of segments 1-2, 3-4, and of the short fifth at once
    // (PSH). The sender is application-limited, so window validation is off here (every ACK
    // may grow; the rules are tested on their own below). Per ACK: 10 + 3 = 13; segments: +2 +2 +1 = 15 (the short one counts as one);
    // bytes: +2 +2 + 340/1460 → 14 segments and 340 B.
    for (rule, want) in [
        (AckCounting::PerAck, 13.0 * MSSF),
        (AckCounting::Segments, 15.0 * MSSF),
        (AckCounting::Bytes, 14.0 * MSSF + 340.0),
    ] {
        let (mut s, mut r) = ends(|p| p.cwnd_validation = CwndValidation::Off);
        s.cc_mut().win.rules.counting = rule;
        s.write(4 * MSS + 340);
        let flight = establish(&mut s, &mut r);
        assert_eq!(flight.len(), 5);
        assert_eq!(flight[4].len, 340);
        round_trip(&mut s, &mut r, &flight, Time::from_ms(1));
        assert_eq!(s.cwnd(), want, "{rule:?}");
    }
    // Stretch ACKs (one per 4 segments): L = 2 adds 2 segments per ACK, no limit (L = 0,
    // current Linux) the 4 each covers: 10 segments → ACKs of 4, 4 and (the PSH) 2.
    for (limit, want) in [(2.0, 16.0), (f64::INFINITY, 20.0)] {
        let (mut s, mut r) = ends(|p| {
            p.delack_segments = 4;
            p.cwnd_validation = CwndValidation::Off;
        });
        s.cc_mut().win.rules.abc_limit = limit;
        s.write(10 * MSS);
        let flight = establish(&mut s, &mut r);
        round_trip(&mut s, &mut r, &flight, Time::from_ms(1));
        assert_eq!(cwnd_segments(&s), want, "L = {limit}");
    }
}

#[test]
fn data_sacked_earlier_counts_when_sacked_under_delivered_counting() {
    // Segments 1-4 leave; 1 is delayed behind 2 and 3, which arrive first and are SACKed (two
    // duplicate ACKs, no growth). Then 1 arrives: the ACK of 1-3 newly acknowledges 3
    // segments but newly delivers only 1 (2 and 3 were delivered when SACKed). Counting
    // segments acknowledged (L = 2): +2; counting segments delivered (Linux): +1.
    for (rule, want) in [(AckCounting::Segments, 12.0), (AckCounting::Delivered, 11.0)] {
        let (mut s, mut r) = ends(|p| p.cwnd_validation = CwndValidation::Off);
        s.cc_mut().win.rules.counting = rule;
        s.write(4 * MSS);
        let flight = establish(&mut s, &mut r);
        let t = Time::from_ms(1);
        for p in [&flight[1], &flight[2]] {
            let dup = deliver(&mut r, t, p).expect("out of order: ACKed at once");
            assert!(feed(&mut s, t + 50 * US, &dup).is_empty());
        }
        assert_eq!(cwnd_segments(&s), 10.0, "duplicate ACKs do not grow the window");
        let ack = deliver(&mut r, t + US, &flight[0]).expect("the hole is filled: ACKed at once");
        assert_eq!(ack.ack, seg(4));
        feed(&mut s, t + 51 * US, &ack);
        assert_eq!(cwnd_segments(&s), want, "{rule:?}");
    }
}

#[test]
fn restart_after_idle_rfc5681_and_linux() {
    // A 10-segment write is sent and acknowledged (cwnd 10 → 20 in slow start); then cwnd is
    // set to 40 segments, ssthresh to 20, and after an idle time the application writes 60
    // segments. The RTO is RTO_min, 10 ms (SRTT ≈ 100 µs). Idle is measured from the last
    // data sent, at 100 µs.
    // - 8 ms idle (< RTO): no restart, 40 segments leave.
    // - 15 ms, RFC 5681 §4.1: cwnd = min(IW, cwnd) = 10.
    // - 15 ms, Linux: ssthresh = max(20, ¾·40) = 30; 15 > 10 halves to 20 (5 ms left, < RTO).
    // - 35 ms, Linux: 40 → 20 → 10 (then cwnd is min(IW, cwnd) and halving stops).
    for (rule, idle_ms, cwnd, ssthresh) in [
        (IdleRestart::Rfc5681, 8, 40.0, 20.0),
        (IdleRestart::Rfc5681, 15, 10.0, 20.0),
        (IdleRestart::Linux, 8, 40.0, 20.0),
        (IdleRestart::Linux, 15, 20.0, 30.0),
        (IdleRestart::Linux, 35, 10.0, 30.0),
    ] {
        let (mut s, mut r) = ends(|p| p.slow_start_after_idle = true);
        s.cc_mut().win.rules.idle_restart = rule;
        s.write(10 * MSS);
        let flight = establish(&mut s, &mut r);
        round_trip(&mut s, &mut r, &flight, Time::from_us(200));
        assert_eq!(s.snd_una(), s.snd_max(), "all acknowledged");
        assert_eq!(s.rtt().rto(&s.params().rto), 10 * MS);
        s.cc_mut().win.cwnd = 40.0 * MSSF;
        s.cc_mut().win.ssthresh = 20.0 * MSSF;
        s.write(60 * MSS);
        let mut out = Vec::new();
        s.try_send(100 * US + Time::from_ms(idle_ms), &mut out);
        assert_eq!(cwnd_segments(&s), cwnd, "{rule:?} after {idle_ms} ms");
        assert_eq!(s.ssthresh() / MSSF, ssthresh, "{rule:?} after {idle_ms} ms");
        assert_eq!(out.len() as f64, cwnd, "the restarted window leaves");
        // The idle period is spent: a second attempt does not restart (or halve) again.
        s.try_send(200 * US + Time::from_ms(idle_ms), &mut out);
        assert_eq!(cwnd_segments(&s), cwnd);
    }
}

#[test]
fn growth_of_an_application_limited_sender_under_each_validation_rule() {
    // IW 20 and a 17-segment write: all 17 leave at once, so the sender is never
    // cwnd-limited. ACKs of 2 segments each (the last of segment 17 alone, PSH) arrive with
    // 17, 15, ..., 3, 1 segments in flight before them.
    // - RFC 7661: grow while 2·in flight ≥ cwnd: 34 ≥ 20 → 22, 30 ≥ 22 → 24, 26 ≥ 24 → 26,
    //   22 < 26: stop. 26.
    // - Linux 2.6 (cwnd − in flight ≤ 3): 20 − 17 = 3 → 22; 22 − 15 = 7: stop. 22.
    // - None: 8 ACKs of 2 (+2 each) and one of 1: 20 + 17 = 37.
    for (rule, want) in [
        (CwndValidation::Rfc7661, 26.0),
        (CwndValidation::MaxBurst, 22.0),
        (CwndValidation::Off, 37.0),
    ] {
        let (mut s, mut r) = ends(|p| {
            p.init_cwnd_segments = 20;
            p.cwnd_validation = rule;
        });
        s.write(17 * MSS);
        let flight = establish(&mut s, &mut r);
        assert_eq!(flight.len(), 17);
        round_trip(&mut s, &mut r, &flight, Time::from_ms(1));
        assert_eq!(cwnd_segments(&s), want, "{rule:?}");
    }
}

#[test]
fn prr_spreads_the_reduction_where_rfc6675_waits_for_the_pipe() {
    // IW 20, segment 1 lost; the receiver SACKs 2, 3, 4, ... one ACK each (no timestamps, so
    // no RTT samples). The third SACKed segment makes segment 1 lost (RFC 6675 IsLost: more
    // than 2·SMSS SACKed above it): recovery, the fast retransmit of segment 1, ssthresh =
    // 20/2 = 10 segments. RecoverFS = 20 segments. The k-th ACK of recovery (k = 1 is the
    // entry) has SACKed up to segment k + 3.
    // - RFC 6675: cwnd = 10 at once; pipe = 1 (the retransmission) + 17 − k un-SACKed ones
    //   above; it sends while cwnd − pipe ≥ 1, first at k = 9 (pipe 9): segment 21.
    // - PRR: prr_delivered = k segments, prr_out = 1 + new ones; while pipe > ssthresh,
    //   sndcnt = ⌈k·10/20⌉ − prr_out: 0, 0, 1 (k = 3), 0, 1 (k = 5), ...: a new segment at
    //   every odd k from 3, pipe staying above 10 (at k = 9: 17 − 8 + 3 = 12).
    for (recovery, want) in [
        (Recovery::Rfc6675, vec![(9, 21)]),
        (Recovery::Prr, vec![(3, 21), (5, 22), (7, 23), (9, 24)]),
    ] {
        let (mut s, mut r) = ends(|p| {
            p.init_cwnd_segments = 20;
            p.recovery = recovery;
        });
        s.write(u64::MAX);
        let flight = establish(&mut s, &mut r);
        assert_eq!(flight.len(), 20);
        drop(r);
        let mut sent = Vec::new();
        for last in 2..=12u64 {
            let ack = sack_ack(seg(1), &[(seg(2), seg(last + 1))]);
            let out = feed(&mut s, Time::from_ms(1) + last * US, &ack);
            if last == 4 {
                assert_eq!(seg_no(&out[0]), 1, "{recovery:?}: the fast retransmit");
                assert!(out[0].has(RETX));
            }
            for p in out.iter().filter(|p| !p.has(RETX)) {
                sent.push((last - 3, seg_no(p)));
            }
        }
        assert_eq!(sent, want, "{recovery:?}: (k, new segment)");
        assert_eq!(s.ssthresh(), 10.0 * MSSF);
    }
}

#[test]
fn a_tail_loss_is_repaired_by_the_probe_instead_of_the_rto() {
    // A 10-segment response (PSH on the last) whose last segment is lost. The receiver ACKs
    // 2, 4, 6, 8 and holds 9 for its delayed-ACK timer. With the probe, after the ACK of 8
    // the sender arms the probe timeout 2·SRTT + 2 ms (Linux) ahead instead of the RTO;
    // when it fires, nothing new is left, so it resends the last segment (RFC 8985 §7.3)
    // and arms the RTO. The receiver now has 9 and 10 and ACKs everything at once (PSH). That
    // ACK reaches exactly the probe's end, which (without DSACK) cannot tell a repaired loss
    // from a late ACK: the episode stays open (RFC 8985 §7.4.2, Linux tcp_process_tlp_ack).
    // The next write's ACK goes past it: a loss was repaired, and the window is reduced as
    // for a loss in the 2 segments out at the probe: ssthresh = max(2/2, 2) = 2 segments =
    // cwnd. Without the probe the sender waits for the RTO, 10 ms.
    for tlp in [true, false] {
        let (mut s, mut r) = ends(|p| p.tail_loss_probe = tlp);
        s.write(10 * MSS);
        let flight = establish(&mut s, &mut r);
        assert!(flight[9].has(PSH));
        let t = Time::from_ms(1);
        let acks: Vec<Segment> = flight[..9].iter().filter_map(|p| deliver(&mut r, t, p)).collect();
        assert_eq!(acks.len(), 4);
        let t_ack = t + 50 * US;
        for a in &acks {
            assert!(feed(&mut s, t_ack, a).is_empty());
        }
        assert_eq!(s.snd_una(), seg(9));
        let srtt = s.rtt().srtt.unwrap();
        let deadline = s.deadline(Timer::Rto).unwrap();
        if !tlp {
            assert_eq!(deadline, t_ack + 10 * MS, "the RTO");
            continue;
        }
        assert_eq!(deadline, t_ack + 2 * srtt + 2 * MS, "the probe timeout, 2·SRTT + 2 ms");
        let mut out = Vec::new();
        s.on_rto_timer(deadline, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((seg_no(&out[0]), out[0].has(RETX)), (10, true), "the last segment, resent");
        assert_eq!(s.counters().tail_loss_probes, 1);
        assert_eq!(s.counters().timeouts, 0);
        assert_eq!(s.deadline(Timer::Rto), Some(deadline + 10 * MS), "the RTO, not another probe");
        let ack = deliver(&mut r, deadline + 50 * US, &out[0]).expect("ACK of everything");
        assert_eq!(ack.ack, seg(11));
        let cwnd = s.cwnd();
        assert!(feed(&mut s, deadline + 100 * US, &ack).is_empty());
        assert_eq!(s.snd_una(), s.snd_max());
        assert_eq!(s.deadline(Timer::Rto), None);
        assert_eq!(
            s.cwnd(),
            cwnd,
            "no reduction yet (nor growth: 2 segments out of 14 do not validate it)"
        );
        s.write(MSS);
        let mut next = Vec::new();
        s.try_send(deadline + 1 * MS, &mut next);
        assert_eq!(seg_nos(&next), [11]);
        let ack = deliver(&mut r, deadline + 1 * MS + 50 * US, &next[0]).expect("PSH: ACKed at once");
        feed(&mut s, deadline + 1 * MS + 100 * US, &ack);
        assert_eq!((s.ssthresh(), s.cwnd()), (2.0 * MSSF, 2.0 * MSSF), "the loss's reduction");
    }
}

#[test]
fn early_retransmit_repairs_a_short_flights_loss_without_the_rto() {
    // A 3-segment response whose first segment is lost: segments 2 and 3 arrive and are
    // SACKed (two duplicate ACKs). With fewer than 4 segments out and nothing more to send,
    // early retransmit lowers DupThresh to 3 − 1 = 2 (RFC 5827 §3.1): the second duplicate
    // ACK starts recovery and resends segment 1. Without it, 2 < 3 duplicate ACKs and 2 SACKed
    // segments (not more than 2·SMSS) leave segment 1 to the RTO.
    for er in [true, false] {
        let (mut s, mut r) = ends(|p| p.early_retransmit = er);
        s.write(3 * MSS);
        let flight = establish(&mut s, &mut r);
        let t = Time::from_ms(1);
        let dupacks: Vec<Segment> = flight[1..].iter().filter_map(|p| deliver(&mut r, t, p)).collect();
        assert_eq!(dupacks.len(), 2, "out-of-order segments are ACKed at once");
        let mut out = Vec::new();
        for a in &dupacks {
            out.extend(feed(&mut s, t + 50 * US, a));
        }
        if er {
            assert_eq!(seg_nos(&out), [1]);
            assert_eq!(s.counters().fast_retransmits, 1);
        } else {
            assert!(out.is_empty());
            assert_eq!(s.deadline(Timer::Rto), Some(100 * US + 10 * MS), "the RTO, armed at the first send");
        }
    }
}

#[test]
fn with_early_retransmit_a_cumulative_ack_with_new_sacks_starts_recovery() {
    // Segments 1-5 of a response; 4 is lost. The receiver ACKs 1-2, holds 3 for its delayed
    // ACK, and answers the out-of-order 5 at once: ACK of 1-3 with a SACK of 5. That ACK
    // advances snd_una (not a duplicate) and leaves 2 segments out with nothing more to send:
    // early retransmit's DupThresh is 1 and the SACKed 5 makes 4 lost, so, as Linux does on
    // any ACK with new SACK information, recovery starts and 4 is resent at once. RFC 6675
    // alone looks for loss on duplicate ACKs only: no more come, and 4 waits for the RTO.
    for er in [true, false] {
        let (mut s, mut r) = ends(|p| p.early_retransmit = er);
        s.write(5 * MSS);
        let flight = establish(&mut s, &mut r);
        let t = Time::from_ms(1);
        let acks: Vec<Segment> = [0, 1, 2, 4].iter().filter_map(|&i| deliver(&mut r, t, &flight[i])).collect();
        assert_eq!(acks.len(), 2);
        assert_eq!((acks[1].ack, acks[1].sack_blocks), (seg(4), 1));
        assert!(feed(&mut s, t + 50 * US, &acks[0]).is_empty());
        let out = feed(&mut s, t + 51 * US, &acks[1]);
        if er {
            assert_eq!(seg_nos(&out), [4]);
            assert_eq!(s.counters().fast_retransmits, 1);
        } else {
            assert!(out.is_empty());
            assert_eq!(s.counters().fast_retransmits, 0);
        }
    }
}

#[test]
fn cwnd_clamp_stops_growth_at_the_peers_largest_window() {
    // The receiver's buffer is 12 segments (17,520 B): no window above it can ever be used.
    // With growth not validated (`cwnd_validation` off, as Windows), an rwnd-limited sender
    // still grows cwnd by 2 segments an ACK (L = 2): the IW's 10 segments bring 5 ACKs,
    // 10 → 20; each later flight is the 12 segments rwnd allows, 6 ACKs: 20 → 32 → 44. With
    // the clamp, growth stops at 12 segments.
    for (clamp, want) in [(f64::INFINITY, [20.0, 32.0, 44.0]), (12.0 * MSSF, [12.0, 12.0, 12.0])] {
        let (mut s, mut r) = ends(|p| {
            p.rcv_buffer = 12 * MSS;
            p.cwnd_validation = CwndValidation::Off;
            p.cwnd_clamp = clamp;
        });
        s.write(u64::MAX);
        let mut flight = establish(&mut s, &mut r);
        assert_eq!(flight.len(), 10);
        for (k, &cwnd) in want.iter().enumerate() {
            flight = round_trip(&mut s, &mut r, &flight, Time::from_ms(1 + k as u64));
            assert_eq!(cwnd_segments(&s), cwnd, "clamp {clamp}, round {}", k + 1);
            assert_eq!(flight.len(), 12, "rwnd-limited either way");
        }
    }
}

#[test]
fn cwnd_clamp_is_the_largest_buffer_the_peer_can_have() {
    use crate::scenario::{CcKind, TcpConfig};
    let t = TcpConfig::default();
    let clamp = |t: &TcpConfig, app: Option<u64>| t.endpoint_params(CcKind::NewReno, app, 0).cwnd_clamp;
    assert_eq!(clamp(&t, None), 8_000_000.0, "rcv_buffer_bytes");
    assert_eq!(clamp(&t, Some(65_536)), 65_536.0, "a buffer the application set");
    let tuned = TcpConfig {
        rcv_autotune: true,
        ..TcpConfig::default()
    };
    assert_eq!(clamp(&tuned, None), (3u64 << 20) as f64, "auto-tuning's cap");
    assert_eq!(clamp(&tuned, Some(65_536)), 65_536.0, "a set buffer is not tuned");
    let off = TcpConfig {
        cwnd_clamp: false,
        ..TcpConfig::default()
    };
    assert_eq!(clamp(&off, None), f64::INFINITY);
}

#[test]
fn a_repeated_timeout_holds_ssthresh_except_in_ns2() {
    use crate::scenario::SsthreshFrom;
    // IW 10 segments out, nothing comes back. The first timeout reduces from its base:
    // FlightSize or cwnd, both 14,600 B → ssthresh 7300 (RFC 5681 §3.1 eq. (4)), cwnd 1 SMSS.
    // The second timeout of the same segment holds ssthresh at 7300 (RFC 5681 §3.1), except
    // ns-2's rule, which halves window() = min(cwnd, buffer) = 1460 again: max(730, 2920) = 2920.
    for (rule, second) in [
        (SsthreshFrom::FlightSize, 7300.0),
        (SsthreshFrom::Cwnd, 7300.0),
        (SsthreshFrom::Window, 2920.0),
    ] {
        let (mut s, mut r) = ends(|p| p.ssthresh_from = rule);
        s.write(10 * MSS);
        let flight = establish(&mut s, &mut r);
        assert_eq!(flight.len(), 10);
        let mut out = Vec::new();
        let first = s.deadline(Timer::Rto).expect("armed");
        s.on_rto_timer(first, &mut out);
        assert_eq!((s.ssthresh(), s.cwnd()), (7300.0, MSSF), "{rule:?}, first timeout");
        let again = s.deadline(Timer::Rto).expect("re-armed");
        s.on_rto_timer(again, &mut out);
        assert_eq!((s.ssthresh(), s.cwnd()), (second, MSSF), "{rule:?}, second timeout");
        assert_eq!(s.counters().timeouts, 2);
    }
}

#[test]
fn an_application_limited_slow_start_under_each_validation_rule() {
    // IW 10, the application writes 6 segments: ACKs of 2, 2 and 2 segments (the last has
    // PSH), each counted +2 (L = 2) if it may grow. In flight when each arrives: 6, 4, 2.
    // RFC 7661 (2·6 ≥ 10, then 8 < 12) and Linux (slow start, 2·6 > 10, then 8 < 12): only
    // the first grows, 12. ns-3's rule (only while cwnd-limited): none, 10. None: 16.
    for (rule, want) in [
        (CwndValidation::Rfc7661, 12.0),
        (CwndValidation::Linux, 12.0),
        (CwndValidation::CwndLimited, 10.0),
        (CwndValidation::Off, 16.0),
    ] {
        let (mut s, mut r) = ends(|p| p.cwnd_validation = rule);
        s.write(6 * MSS);
        let flight = establish(&mut s, &mut r);
        assert_eq!(flight.len(), 6);
        round_trip(&mut s, &mut r, &flight, Time::from_ms(1));
        assert_eq!(cwnd_segments(&s), want, "{rule:?}");
    }
}

#[test]
fn a_buffer_the_application_sets_is_fixed_and_every_controller_has_its_place() {
    use crate::scenario::{CcKind, TcpConfig};
    let tuned = TcpConfig {
        rcv_autotune: true,
        ..TcpConfig::default()
    };
    let stack = tuned.stack_params(CcKind::Dctcp, 0);
    assert_eq!(
        (stack.rcv_buffer, stack.rcv_autotune_max),
        (tuned.rcv_autotune_initial_bytes, Some(3 << 20))
    );
    let set = stack.with_app_rcv_buffer(65_536);
    assert_eq!((set.rcv_buffer, set.rcv_autotune_max, set.cwnd_clamp), (65_536, None, 65_536.0));
    assert_eq!(set.ect_on_syn, stack.ect_on_syn, "the rest is the stack's");
    // The connection factory finds a controller's settings at `cc as usize`.
    for (i, &cc) in CcKind::ALL.iter().enumerate() {
        assert_eq!(cc as usize, i, "{}", cc.name());
    }
}
