//! ICTCP unit tests: hand-computed vectors for the throughput filter, the difference ratio,
//! the slot clock and quota, and each window rule (spec algorithms.md §6).

use super::ictcp::{IctcpParams, Interface, Phase};
use crate::net::packet::{Ecn, Packet, ACK};
use crate::units::{Ps, PS_PER_MS, PS_PER_US};

const MSS: u64 = 1460;
const US: Ps = PS_PER_US;
/// The RTT of the connections in the quota tests: the testbed's base RTT.
const RTT: Ps = 100 * US;
/// The RTT of the connections in the window-growth tests: long enough that a window of tens
/// of MSS stays far below C (the quota never binds unless a test wants it to).
const SLOW: Ps = PS_PER_MS;

fn params() -> IctcpParams {
    IctcpParams {
        capacity_bps: 1e9,
        alpha: 0.9,
        beta: 0.75,
        gamma1: 0.1,
        gamma2: 0.5,
        mss: MSS as u32,
        min_rwnd_segments: 2,
        fairness_fraction: 0.2,
        rtt_limit: 2 * PS_PER_MS,
        initial_subslot: 100 * US,
        timestamp_tick: 100_000, // 100 ns
        idle_restart: 300 * PS_PER_MS,
    }
}

/// `len` payload bytes of connection `c` arrive at `now`, echoing a TSval sent `rtt` ago.
fn data_rtt(i: &mut Interface, now: Ps, c: u32, len: u32, rtt: Ps) {
    i.on_receive(now, len + 40, Some(c), len, now + 1 - rtt);
}

fn data(i: &mut Interface, now: Ps, c: u32, len: u32) {
    data_rtt(i, now, c, len, RTT);
}

/// The host sends an ACK for `ack` on connection `c` at `now`; returns the window it carries.
fn ack(i: &mut Interface, now: Ps, c: u32, ack: u64) -> u64 {
    let mut p = Packet {
        conn: c,
        dst: 0,
        from_end: 0,
        flags: ACK,
        ecn: Ecn::NotEct,
        len: 0,
        size: 40,
        seq: 1,
        ack,
        rwnd: 8_000_000,
        ts_val: now + 1,
        ts_ecr: 0,
        sack: [(0, 0); 3],
        sack_blocks: 0,
    };
    i.on_send(now, c, &mut p);
    p.rwnd
}

#[test]
fn throughput_filter_follows_eq_2() {
    // b^m = max(b^s, 0.75·b^m + 0.25·b^s)
    assert_eq!(Interface::filter_throughput(100e6, 40e6, 0.75), 85e6);
    // A doubled window: the sample wins at once.
    assert_eq!(Interface::filter_throughput(100e6, 200e6, 0.75), 200e6);
    assert_eq!(Interface::filter_throughput(0.0, 50e6, 0.75), 50e6);
}

#[test]
fn difference_ratio_follows_eqs_3_and_4() {
    // rwnd 8 MSS over 100 µs: b^e = 11,680 B·8/100 µs = 934.4 Mb/s; b^m = 300 Mb/s.
    let d = Interface::difference_ratio(300e6, 8 * MSS, RTT);
    assert!((d - (934.4e6 - 300e6) / 934.4e6).abs() < 1e-12, "{d}");
    // b^m above rwnd/RTT: b^e = b^m, d = 0.
    assert_eq!(Interface::difference_ratio(1e9, 8 * MSS, RTT), 0.0);
    // Nothing measured: d = 1.
    assert_eq!(Interface::difference_ratio(0.0, 2 * MSS, RTT), 1.0);
}

#[test]
fn the_first_subslot_measures_bw_t_and_sets_the_quota() {
    let mut i = Interface::new(params());
    // 5,000 B arrive in the first 100 µs sub-slot: BW_T = 400 Mb/s, BW_A = 900 − 400.
    i.on_receive(10 * US, 2_000, None, 0, 0);
    i.on_receive(90 * US, 3_000, None, 0, 0);
    assert!(!i.in_second_subslot());
    i.advance(100 * US);
    assert!(i.in_second_subslot());
    assert!((i.bw_t_bps - 400e6).abs() < 1e-3);
    assert!((i.bw_a_bps - 500e6).abs() < 1e-3);
    assert!((i.quota_bps() - 500e6).abs() < 1e-3);
    // Traffic in the second sub-slot does not count; the next slot starts at 200 µs.
    i.on_receive(150 * US, 50_000, None, 0, 0);
    i.advance(300 * US);
    assert!(i.bw_a_bps >= 900e6 - 1e-3, "an idle first sub-slot leaves all of α·C");
    // BW_A never goes below zero: 15,000 B in 100 µs is 1.2 Gb/s.
    i.on_receive(410 * US, 15_000, None, 0, 0);
    i.advance(500 * US);
    assert_eq!(i.bw_a_bps, 0.0);
}

#[test]
fn receiver_rtt_comes_from_the_echoed_timestamp_on_a_100_ns_clock() {
    let mut i = Interface::new(params());
    let c = i.add_conn(0);
    // TSval sent at 1,000.05 µs (+1 ps offset), data back at 1,100.00 µs: on the 100 ns clock
    // that is tick 11,000 − tick 10,000 = 100.0 µs (the 50 ns remainder is not seen).
    let sent = 1_000 * US + 50_000;
    i.on_receive(1_100 * US, 1500, Some(c), 1460, sent + 1);
    assert_eq!(i.conns[c as usize].srtt, Some(100 * US));
    // Second sample 180 µs: srtt = 100 + (180 − 100)/8 = 110 µs.
    i.on_receive(1_500 * US, 1500, Some(c), 1460, 1_320 * US + 1);
    assert_eq!(i.conns[c as usize].srtt, Some(110 * US));
}

/// A connection whose sender fills its window every RTT (`SLOW`): `rwnd` bytes spread over
/// the RTT, one ACK per 2 segments. Runs from `from` for `rtts` RTTs; returns the time reached
/// and the last ACK.
fn feed_full_window(i: &mut Interface, c: u32, from: Ps, rtts: u32, mut acked: u64) -> (Ps, u64) {
    let mut t = from;
    for _ in 0..rtts {
        let rwnd = i.conns[c as usize].rwnd;
        let segs = rwnd.div_ceil(MSS);
        for k in 0..segs {
            let now = t + k * SLOW / segs;
            data_rtt(i, now, c, MSS as u32, SLOW);
            acked += MSS;
            if k % 2 == 1 || k + 1 == segs {
                ack(i, now, c, acked);
            }
        }
        t += SLOW;
    }
    (t, acked)
}

/// Start of the growth tests (a TSval cannot predate the run).
const T0: Ps = 10 * PS_PER_MS;

/// Grows connection `c` by feeding full windows until it holds `target` (bounded).
fn grow_to(i: &mut Interface, c: u32, target: u64, mut t: Ps, mut acked: u64) -> (Ps, u64) {
    for _ in 0..100 {
        if i.conns[c as usize].rwnd >= target {
            break;
        }
        (t, acked) = feed_full_window(i, c, t, 1, acked);
    }
    assert_eq!(i.conns[c as usize].rwnd, target);
    (t, acked)
}

#[test]
fn slow_start_doubles_in_second_subslots_only_and_not_faster_than_every_two_rtts() {
    let mut i = Interface::new(params());
    let c = i.add_conn(0);
    assert_eq!(ack(&mut i, T0, c, 1), 2 * MSS, "a new connection starts at the 2-MSS minimum");
    let mut last = 2 * MSS;
    let (mut t, mut acked) = (T0, 1);
    let mut changes = vec![];
    for _ in 0..40 {
        (t, acked) = feed_full_window(&mut i, c, t, 1, acked);
        let w = i.conns[c as usize].rwnd;
        if w != last {
            changes.push((t, w));
            assert_eq!(w, 2 * last, "slow start doubles");
            last = w;
        }
        if w >= 32 * MSS {
            break;
        }
    }
    assert_eq!(last, 32 * MSS, "{changes:?}");
    assert_eq!(i.conns[c as usize].phase, Phase::SlowStart);
    for pair in changes.windows(2) {
        assert!(pair[1].0 - pair[0].0 >= 2 * SLOW, "increases ≥ 2·RTT apart: {changes:?}");
    }
}

#[test]
fn no_increase_in_a_first_subslot() {
    let mut i = Interface::new(params());
    let c = i.add_conn(T0);
    // Three RTTs of a full 2-MSS window: measured = expected, d = 0.
    let (t, acked) = feed_full_window(&mut i, c, T0, 3, 1);
    let before = i.conns[c as usize].rwnd;
    let mut t1 = t;
    while {
        i.advance(t1);
        i.in_second_subslot()
    } {
        t1 += 10 * US;
    }
    data_rtt(&mut i, t1, c, MSS as u32, SLOW);
    ack(&mut i, t1, c, acked + MSS);
    assert_eq!(i.conns[c as usize].rwnd, before, "no increase in a first sub-slot");
    let mut t2 = t1;
    while {
        i.advance(t2);
        !i.in_second_subslot()
    } {
        t2 += 10 * US;
    }
    data_rtt(&mut i, t2, c, MSS as u32, SLOW);
    ack(&mut i, t2, c, acked + 2 * MSS);
    assert_eq!(i.conns[c as usize].rwnd, 2 * before, "the second sub-slot allows it");
}

#[test]
fn the_quota_is_never_overspent_first_come_first_served() {
    // Two connections at 2 MSS over 100 µs ask for a doubling each: 2,920 B·8/100 µs =
    // 233.6 Mb/s of quota. Background traffic of 7,500 B in the first sub-slot (600 Mb/s)
    // leaves BW_A = 300 Mb/s: the first ACK gets it, the second finds 66.4 Mb/s and moves to
    // congestion avoidance without growing.
    let mut i = Interface::new(params());
    let a = i.add_conn(0);
    let b = i.add_conn(0);
    // Times from 1 ms on (a TSval cannot predate the run); slots are 200 µs long.
    let z = PS_PER_MS;
    for c in [a, b] {
        // Throughput sampled at 233.6 Mb/s: 2 MSS in each of two RTTs.
        data(&mut i, z + 10 * US, c, MSS as u32);
        data(&mut i, z + 20 * US, c, MSS as u32);
    }
    i.on_receive(z + 50 * US, 7_500 - 4 * 1500, None, 0, 0);
    // The previous slot [1.0, 1.2) ms had its quota; the test's slot is [1.2, 1.4) ms.
    for c in [a, b] {
        data(&mut i, z + 210 * US, c, MSS as u32);
        data(&mut i, z + 220 * US, c, MSS as u32);
    }
    i.on_receive(z + 250 * US, 7_500 - 4 * 1500, None, 0, 0);
    i.advance(z + 300 * US);
    assert!((i.bw_a_bps - 300e6).abs() < 1e-3, "BW_A {}", i.bw_a_bps);
    ack(&mut i, z + 310 * US, a, 1 + 4 * MSS);
    ack(&mut i, z + 311 * US, b, 1 + 4 * MSS);
    assert_eq!(i.conns[a as usize].rwnd, 4 * MSS);
    assert_eq!(i.conns[b as usize].rwnd, 2 * MSS);
    assert_eq!(i.conns[b as usize].phase, Phase::CongestionAvoidance);
    assert!((i.quota_bps() - (300e6 - 233.6e6)).abs() < 1.0);
}

#[test]
fn three_rtts_over_gamma2_cost_one_mss_and_never_below_the_minimum() {
    // Other traffic fills the link (BW_A = 0), so no window can grow and the vector is exact.
    let mut i = Interface::new(params());
    let c = i.add_conn(T0);
    i.set_rwnd(c, 8 * MSS);
    let (mut t, mut acked) = (T0, 1);
    // Long enough for Eq. 2 to settle on the window's rate (the first sample's excess decays
    // by 0.75 per RTT).
    for _ in 0..60 {
        i.on_receive(t, 125_000, None, 0, 0);
        (t, acked) = feed_full_window(&mut i, c, t, 1, acked);
    }
    assert_eq!(i.conns[c as usize].rwnd, 8 * MSS);
    assert!((i.conns[c as usize].measured_bps - 93.44e6).abs() < 1.0);
    // Now the application sends 1 MSS per RTT: b^s = 11.68 Mb/s against b^e = 8 MSS/RTT =
    // 93.44 Mb/s. Eq. 2 takes b^m down: 73.00, 57.67, 46.17 (d = 0.506 > γ2), 37.55, 31.08:
    // the third sample in a row over γ2 (the 5th) costs one MSS. At 7 MSS (b^e 81.76) the next
    // three samples are all over γ2 (26.23, 22.57, 19.84): the 8th costs one more; and so on
    // every third sample down to 2 MSS, where d ≤ MSS/rwnd asks for growth but there is no
    // quota.
    let mut cuts = vec![];
    for k in 1..=40u64 {
        i.on_receive(t, 125_000, None, 0, 0);
        t += SLOW;
        data_rtt(&mut i, t, c, MSS as u32, SLOW);
        acked += MSS;
        let before = i.conns[c as usize].rwnd;
        ack(&mut i, t, c, acked);
        let after = i.conns[c as usize].rwnd;
        assert!(after >= 2 * MSS, "never below the minimum");
        if after != before {
            assert_eq!(after, before - MSS, "one MSS at a time");
            cuts.push(k);
        }
    }
    // The first sample straddles the change of pace (it may still hold part of the last full
    // window), so the first cut comes at the 5th or 6th RTT; after that, exactly every third.
    assert_eq!(cuts.len(), 6, "8 → 2 MSS: {cuts:?}");
    assert!(cuts[0] == 5 || cuts[0] == 6, "{cuts:?}");
    assert!(cuts.windows(2).all(|p| p[1] - p[0] == 3), "{cuts:?}");
    assert_eq!(i.conns[c as usize].rwnd, 2 * MSS);
}

#[test]
fn a_decrease_waits_for_an_ack_that_covers_one_mss() {
    let mut i = Interface::new(params());
    let c = i.add_conn(T0);
    let (mut t, mut acked) = grow_to(&mut i, c, 4 * MSS, T0, 1);
    // Starve it for eight RTTs (100 B each): d > γ2 from the third sample on.
    for _ in 0..8 {
        t += SLOW;
        data_rtt(&mut i, t, c, 100, SLOW);
        acked += 100;
        ack(&mut i, t, c, acked);
    }
    // The ACKs above each covered 100 B, so the window is still 4 MSS.
    assert_eq!(i.conns[c as usize].rwnd, 4 * MSS);
    t += 10 * US;
    data_rtt(&mut i, t, c, MSS as u32, SLOW);
    assert_eq!(ack(&mut i, t, c, acked + MSS), 3 * MSS);
}

/// Connections a (10 MSS) and b (4 MSS) while other traffic fills the link (BW_A = 0 < 0.2·C),
/// each sender filling its window every RTT (1 ms) so that d stays near 0 (rule 1 wants to
/// grow but finds no quota). b stops sending after `b_rtts` RTTs; at RTT `reset_a_at` a is
/// given 10 MSS again. Returns the interface, a, b and the RTTs in which a was cut.
fn fairness_run(rtts: u64, b_rtts: u64, reset_a_at: Option<u64>) -> (Interface, u32, u32, Vec<u64>) {
    let mut i = Interface::new(params());
    let a = i.add_conn(0);
    let b = i.add_conn(0);
    i.set_rwnd(a, 10 * MSS);
    i.set_rwnd(b, 4 * MSS);
    let (mut t, mut acked) = (T0, [1u64, 1]);
    let mut cuts = vec![];
    for rtt in 0..rtts {
        if reset_a_at == Some(rtt) {
            i.set_rwnd(a, 10 * MSS);
        }
        // 125,000 B of other traffic per RTT fills the link.
        i.on_receive(t, 125_000, None, 0, 0);
        for (k, c) in [a, b].into_iter().enumerate() {
            if c == b && rtt >= b_rtts {
                continue;
            }
            let w = i.conns[c as usize].rwnd;
            for s in 0..w / MSS {
                data_rtt(&mut i, t + s * US, c, MSS as u32, SLOW);
            }
            acked[k] += w;
            ack(&mut i, t + 50 * US, c, acked[k]);
            if c == a && i.conns[a as usize].rwnd < w {
                cuts.push(rtt);
            }
        }
        t += SLOW;
    }
    assert_eq!(i.bw_a_bps, 0.0);
    (i, a, b, cuts)
}

#[test]
fn fairness_cuts_windows_above_the_average_until_they_meet() {
    // The larger window loses one MSS per 2·RTT while it is above the average (7, 6.5, 6,
    // 5.5, 5, 4.5 MSS), so 10 → 4 in six cuts; the smaller is never cut, nothing grows.
    let (i, a, b, cuts) = fairness_run(40, 40, None);
    assert_eq!(i.conns[b as usize].rwnd, 4 * MSS, "the smaller window is never cut");
    assert_eq!(i.conns[a as usize].rwnd, 4 * MSS, "the larger comes down to meet it");
    assert_eq!(cuts, [1, 3, 5, 7, 9, 11], "one cut per 2·RTT");
}

#[test]
fn a_connection_gone_quiet_leaves_the_fairness_average() {
    // As above, but b stops sending after 5 RTTs: a is cut down to b's 4 MSS while b still
    // counts. Once b has been quiet for the idle limit (max(300 ms, 4 sub-slots) = 300 ms), a
    // is alone in the contest - its window is the average - so a window of 10 MSS given to it
    // at RTT 320 is never cut, though BW_A stays 0.
    let (i, a, _, cuts) = fairness_run(400, 5, Some(320));
    assert_eq!(cuts, [1, 3, 5, 7, 9, 11], "10 → 4 MSS while b counts");
    assert_eq!(i.conns[a as usize].rwnd, 10 * MSS, "no cut once b has gone quiet");
}

#[test]
fn connections_with_an_rtt_of_2_ms_or_more_are_left_alone() {
    let mut i = Interface::new(params());
    let c = i.add_conn(0);
    // One sample of 3 ms.
    i.on_receive(10 * PS_PER_MS, 1500, Some(c), 1460, 7 * PS_PER_MS + 1);
    assert_eq!(ack(&mut i, 10 * PS_PER_MS, c, 1461), 8_000_000, "window field untouched");
}

#[test]
fn a_difference_between_gamma1_and_gamma2_keeps_the_window() {
    // Rule 3. A window of 8 MSS over a 1 ms RTT expects b^e = 8·1460·8/1 ms = 93.44 Mb/s; the
    // sender sends 6 MSS per RTT, so b^m settles at 70.08 Mb/s and d = 0.25: above γ1 = 0.1
    // and MSS/rwnd = 0.125, not above γ2 = 0.5. With the whole quota free (no other traffic)
    // the window neither grows nor shrinks, and the connection is in congestion avoidance.
    let mut i = Interface::new(params());
    let c = i.add_conn(T0);
    i.set_rwnd(c, 8 * MSS);
    let (mut t, mut acked) = (T0, 1);
    for _ in 0..40 {
        for k in 0..6u64 {
            let now = t + k * SLOW / 6;
            data_rtt(&mut i, now, c, MSS as u32, SLOW);
            acked += MSS;
            if k % 2 == 1 {
                ack(&mut i, now, c, acked);
            }
            assert_eq!(i.conns[c as usize].rwnd, 8 * MSS, "kept at {now}");
        }
        t += SLOW;
    }
    let d = 1.0 - i.conns[c as usize].measured_bps / 93.44e6;
    assert!((d - 0.25).abs() < 0.01, "d = {d}");
    assert_eq!(i.conns[c as usize].phase, Phase::CongestionAvoidance);
}
