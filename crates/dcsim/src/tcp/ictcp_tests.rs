//! ICTCP unit tests: hand-computed vectors for the throughput filter, the difference ratio,
//! the slot clock and quota, and each window rule (ICTCP paper §IV).

use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};

use super::ictcp::{IctcpParams, Interface, Phase};
use crate::net::packet::{Ecn, Segment, ACK};
use crate::units::Time;

const MSS: u64 = 1460;
const US: Time = Time::from_us(1);
const MS: Time = Time::from_ms(1);
/// The RTT of the connections in the quota tests: the testbed's base RTT.
const RTT: Time = Time::from_us(100);
/// The RTT of the connections in the window-growth tests: long enough that a window of tens
/// of MSS stays far below C (the quota never binds unless a test wants it to).
const SLOW: Time = MS;

fn params() -> IctcpParams {
    IctcpParams {
        capacity_bps: 1e9,
        alpha: 0.9,
        beta: 0.75,
        gamma1: 0.1,
        gamma2: 0.5,
        decrease_after_rtts: 3,
        control_interval_rtts: 2,
        mss: MSS as u32,
        min_rwnd_segments: 2,
        fairness_fraction: 0.2,
        rtt_limit: 2 * MS,
        initial_subslot: 100 * US,
        timestamp_tick: Time::from_ps(100_000), // 100 ns
        idle_restart: 300 * MS,
    }
}

/// An interface and the background traffic still to reach it. The helpers that feed a
/// connection deliver the background arrivals due by then first, so that the interface sees
/// time only move forward, as in a simulation.
struct Host {
    i: Interface,
    /// (arrival time, bytes), in time order.
    background: VecDeque<(Time, u32)>,
}

impl Host {
    fn new(p: IctcpParams) -> Self {
        Host {
            i: Interface::new(p),
            background: VecDeque::new(),
        }
    }

    /// Delivers the background arrivals due by `now`.
    fn until(&mut self, now: Time) {
        while let Some(&(t, bytes)) = self.background.front().filter(|&&(t, _)| t <= now) {
            self.background.pop_front();
            self.i.on_receive(t, bytes, None, 0, Time::ZERO);
        }
    }

    /// Delivers all the background traffic still to come.
    fn flush(&mut self) {
        self.until(Time::MAX);
    }
}

impl Deref for Host {
    type Target = Interface;
    fn deref(&self) -> &Interface {
        &self.i
    }
}

impl DerefMut for Host {
    fn deref_mut(&mut self) -> &mut Interface {
        &mut self.i
    }
}

/// `len` payload bytes of connection `c` arrive at `now`, echoing a TSval sent `rtt` ago.
fn data_rtt(i: &mut Host, now: Time, c: u32, len: u32, rtt: Time) {
    i.until(now);
    i.on_receive(now, len + 40, Some(c), len, now + Time::from_ps(1) - rtt);
}

/// A fresh interface with two connections, registered at time 0.
fn two_conns() -> (Host, u32, u32) {
    let mut i = Host::new(params());
    let a = i.add_conn(Time::ZERO);
    let b = i.add_conn(Time::ZERO);
    (i, a, b)
}

fn data(i: &mut Host, now: Time, c: u32, len: u32) {
    data_rtt(i, now, c, len, RTT);
}

/// The host sends an ACK for `ack` on connection `c` at `now`; returns the window it carries.
fn ack(i: &mut Host, now: Time, c: u32, ack: u64) -> u64 {
    ack_offering(i, now, c, ack, 8_000_000)
}

/// As [`ack`], the stack offering a window of `stack_rwnd` bytes.
fn ack_offering(i: &mut Host, now: Time, c: u32, ack: u64, stack_rwnd: u64) -> u64 {
    let mut p = Segment {
        conn: c,
        src: 1,
        dst: 0,
        from_end: 0,
        flags: ACK,
        ecn: Ecn::NotEct,
        len: 0,
        size: 40,
        seq: 1,
        ack,
        rwnd: stack_rwnd as u32,
        ts_val: now + Time::from_ps(1),
        ts_ecr: Time::ZERO,
        sack: [(0, 0); 3],
        sack_blocks: 0,
        class: 0,
    };
    i.until(now);
    i.on_send(now, c, &mut p);
    p.rwnd as u64
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
    let mut i = Host::new(params());
    // 5,000 B arrive in the first 100 µs sub-slot: BW_T = 400 Mb/s, BW_A = 900 − 400.
    i.on_receive(10 * US, 2_000, None, 0, Time::ZERO);
    i.on_receive(90 * US, 3_000, None, 0, Time::ZERO);
    assert!(!i.in_second_subslot());
    i.advance(100 * US);
    assert!(i.in_second_subslot());
    assert!((i.bw_t_bps - 400e6).abs() < 1e-3);
    assert!((i.bw_a_bps - 500e6).abs() < 1e-3);
    assert!((i.quota_bps() - 500e6).abs() < 1e-3);
    // Traffic in the second sub-slot does not count; the next slot starts at 200 µs.
    i.on_receive(150 * US, 50_000, None, 0, Time::ZERO);
    i.advance(300 * US);
    assert!(i.bw_a_bps >= 900e6 - 1e-3, "an idle first sub-slot leaves all of α·C");
    // BW_A never goes below zero: 15,000 B in 100 µs is 1.2 Gb/s.
    i.on_receive(410 * US, 15_000, None, 0, Time::ZERO);
    i.advance(500 * US);
    assert_eq!(i.bw_a_bps, 0.0);
}

#[test]
fn receiver_rtt_comes_from_the_echoed_timestamp_on_a_100_ns_clock() {
    let mut i = Host::new(params());
    let c = i.add_conn(Time::ZERO);
    // TSval sent at 1,000.05 µs (+1 ps offset), data back at 1,100.00 µs: on the 100 ns clock
    // that is tick 11,000 − tick 10,000 = 100.0 µs (the 50 ns remainder is not seen).
    let sent = 1_000 * US + Time::from_ps(50_000);
    i.on_receive(1_100 * US, 1500, Some(c), 1460, sent + Time::from_ps(1));
    assert_eq!(i.conn(c).srtt, Some(100 * US));
    // Second sample 180 µs: srtt = 100 + (180 − 100)/8 = 110 µs.
    i.on_receive(1_500 * US, 1500, Some(c), 1460, 1_320 * US + Time::from_ps(1));
    assert_eq!(i.conn(c).srtt, Some(110 * US));
}

/// A connection whose sender fills its window every RTT (`SLOW`): `rwnd` bytes spread over
/// the RTT, one ACK per 2 segments. Runs from `from` for `rtts` RTTs; returns the time reached
/// and the last ACK.
fn feed_full_window(i: &mut Host, c: u32, from: Time, rtts: u32, acked: u64) -> (Time, u64) {
    feed_full_window_watched(i, c, from, rtts, acked, |_, _, _, _| {})
}

/// As [`feed_full_window`], calling `watch(i, now, window before, phase before)` after each ACK.
fn feed_full_window_watched(
    i: &mut Host,
    c: u32,
    from: Time,
    rtts: u32,
    mut acked: u64,
    mut watch: impl FnMut(&Host, Time, u64, Phase),
) -> (Time, u64) {
    let mut t = from;
    for _ in 0..rtts {
        let rwnd = i.conn(c).rwnd;
        let segs = rwnd.div_ceil(MSS);
        for k in 0..segs {
            let now = t + k * SLOW / segs;
            data_rtt(i, now, c, MSS as u32, SLOW);
            acked += MSS;
            if k % 2 == 1 || k + 1 == segs {
                let (before, phase) = (i.conn(c).rwnd, i.conn(c).phase);
                ack(i, now, c, acked);
                watch(i, now, before, phase);
            }
        }
        t += SLOW;
    }
    (t, acked)
}

/// Start of the growth tests (a TSval cannot predate the run).
const T0: Time = Time::from_ms(10);

/// Grows connection `c` by feeding full windows until it holds `target` (bounded).
fn grow_to(i: &mut Host, c: u32, target: u64, mut t: Time, mut acked: u64) -> (Time, u64) {
    for _ in 0..100 {
        if i.conn(c).rwnd >= target {
            break;
        }
        (t, acked) = feed_full_window(i, c, t, 1, acked);
    }
    assert_eq!(i.conn(c).rwnd, target);
    (t, acked)
}

#[test]
fn slow_start_doubles_in_second_subslots_only_and_not_faster_than_every_two_rtts() {
    let mut i = Host::new(params());
    let c = i.add_conn(Time::ZERO);
    assert_eq!(ack(&mut i, T0, c, 1), 2 * MSS, "a new connection starts at the 2-MSS minimum");
    let mut last = 2 * MSS;
    let (mut t, mut acked) = (T0, 1);
    let mut changes = vec![];
    for _ in 0..40 {
        (t, acked) = feed_full_window(&mut i, c, t, 1, acked);
        let w = i.conn(c).rwnd;
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
    assert_eq!(i.conn(c).phase, Phase::SlowStart);
    for pair in changes.windows(2) {
        assert!(pair[1].0 - pair[0].0 >= 2 * SLOW, "increases ≥ 2·RTT apart: {changes:?}");
    }
}

#[test]
fn no_increase_in_a_first_subslot() {
    // A sender filling its window every RTT (1 ms), ACKed every two segments, always d = 0 and
    // ample quota. Slots settle at 2 × 1 ms; the connection starts 1 ms after its data so
    // that its first control interval ends inside a first sub-slot. The window doubles only
    // at ACKs sent in a second sub-slot; ACKs in a first one, even with the interval over,
    // change nothing.
    let mut i = Host::new(params());
    let c = i.add_conn(T0 + SLOW);
    let (mut increases, mut withheld) = (0, 0);
    let mut last_change = T0 + SLOW;
    feed_full_window_watched(&mut i, c, T0, 10, 1, |i, now, before, _| {
        if i.conn(c).rwnd > before {
            assert!(i.in_second_subslot(), "increase at {now} in a first sub-slot");
            increases += 1;
            last_change = now;
        } else if !i.in_second_subslot() && now - last_change >= 2 * SLOW {
            withheld += 1; // due, but in a first sub-slot
        }
    });
    assert!(increases >= 3, "{increases} increases");
    assert!(withheld >= 1, "no ACK found the interval over in a first sub-slot");
}

#[test]
fn the_quota_is_never_overspent_first_come_first_served() {
    // Two connections at 2 MSS over 100 µs ask for a doubling each: 2,920 B·8/100 µs =
    // 233.6 Mb/s of quota. Background traffic of 7,500 B in the first sub-slot (600 Mb/s)
    // leaves BW_A = 300 Mb/s: the first ACK gets it, the second finds 66.4 Mb/s and moves to
    // congestion avoidance without growing.
    let (mut i, a, b) = two_conns();
    // Times from 1 ms on (a TSval cannot predate the run); slots are 200 µs long.
    let z = MS;
    // Throughput sampled at 233.6 Mb/s: 2 MSS in each of two RTTs.
    for at in [z + 10 * US, z + 20 * US] {
        for c in [a, b] {
            data(&mut i, at, c, MSS as u32);
        }
    }
    i.on_receive(z + 50 * US, 7_500 - 4 * 1500, None, 0, Time::ZERO);
    // The previous slot [1.0, 1.2) ms had its quota; the test's slot is [1.2, 1.4) ms.
    for at in [z + 210 * US, z + 220 * US] {
        for c in [a, b] {
            data(&mut i, at, c, MSS as u32);
        }
    }
    i.on_receive(z + 250 * US, 7_500 - 4 * 1500, None, 0, Time::ZERO);
    i.advance(z + 300 * US);
    assert!((i.bw_a_bps - 300e6).abs() < 1e-3, "BW_A {}", i.bw_a_bps);
    ack(&mut i, z + 310 * US, a, 1 + 4 * MSS);
    ack(&mut i, z + 311 * US, b, 1 + 4 * MSS);
    assert_eq!(i.conn(a).rwnd, 4 * MSS);
    assert_eq!(i.conn(b).rwnd, 2 * MSS);
    assert_eq!(i.conn(b).phase, Phase::CongestionAvoidance);
    assert!((i.quota_bps() - (300e6 - 233.6e6)).abs() < 1.0);
}

#[test]
fn three_rtts_over_gamma2_cost_one_mss_and_never_below_the_minimum() {
    // Other traffic fills the link (BW_A = 0), so no window can grow and the vector is exact.
    let mut i = Host::new(params());
    let c = i.add_conn(T0);
    i.set_rwnd(c, 8 * MSS);
    let (mut t, mut acked) = (T0, 1);
    // Long enough for Eq. 2 to settle on the window's rate (the first sample's excess decays
    // by 0.75 per RTT).
    for _ in 0..60 {
        i.on_receive(t, 125_000, None, 0, Time::ZERO);
        (t, acked) = feed_full_window(&mut i, c, t, 1, acked);
    }
    assert_eq!(i.conn(c).rwnd, 8 * MSS);
    assert!((i.conn(c).measured_bps - 93.44e6).abs() < 1.0);
    // Now the application sends 1 MSS per RTT: b^s = 11.68 Mb/s against b^e = 8 MSS/RTT =
    // 93.44 Mb/s. Eq. 2 takes b^m down: 73.00, 57.67, 46.17 (d = 0.506 > γ2), 37.55, 31.08:
    // the third sample in a row over γ2 (the 5th) costs one MSS. At 7 MSS (b^e 81.76) the next
    // three samples are all over γ2 (26.23, 22.57, 19.84): the 8th costs one more; and so on
    // every third sample down to 2 MSS, where d ≤ MSS/rwnd asks for growth but there is no
    // quota.
    let mut cuts = vec![];
    for k in 1..=40u64 {
        i.on_receive(t, 125_000, None, 0, Time::ZERO);
        t += SLOW;
        data_rtt(&mut i, t, c, MSS as u32, SLOW);
        acked += MSS;
        let before = i.conn(c).rwnd;
        ack(&mut i, t, c, acked);
        let after = i.conn(c).rwnd;
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
    assert_eq!(i.conn(c).rwnd, 2 * MSS);
}

#[test]
fn a_decrease_waits_for_an_ack_that_covers_one_mss() {
    let mut i = Host::new(params());
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
    assert_eq!(i.conn(c).rwnd, 4 * MSS);
    t += 10 * US;
    data_rtt(&mut i, t, c, MSS as u32, SLOW);
    assert_eq!(ack(&mut i, t, c, acked + MSS), 3 * MSS);
}

/// Connections a (10 MSS) and b (4 MSS) while other traffic fills the link (BW_A = 0 < 0.2·C),
/// each sender filling its window every RTT (1 ms) so that d stays near 0 (rule 1 wants to
/// grow but finds no quota). b stops sending after `b_rtts` RTTs, and then leaves the table
/// if `b_ends` (its FIN); at RTT `reset_a_at` a is given 10 MSS again. Returns the interface,
/// a, b and the RTTs in which a was cut.
fn fairness_run(rtts: u64, b_rtts: u64, b_ends: bool, reset_a_at: Option<u64>) -> (Host, u32, u32, Vec<u64>) {
    let (mut i, a, b) = two_conns();
    i.set_rwnd(a, 10 * MSS);
    i.set_rwnd(b, 4 * MSS);
    let (mut t, mut acked) = (T0, [1u64, 1]);
    let mut cuts = vec![];
    for rtt in 0..rtts {
        if reset_a_at == Some(rtt) {
            i.set_rwnd(a, 10 * MSS);
        }
        // 125,000 B of other traffic per RTT, 12,500 B every 100 µs, fills the link in every
        // sub-slot.
        other_traffic(&mut i, t, 12_500);
        if b_ends && rtt == b_rtts {
            i.remove_conn(b);
        }
        // (index, connection, window) of those sending in this RTT.
        let senders: Vec<(usize, u32, u64)> = [a, b]
            .into_iter()
            .enumerate()
            .filter(|&(_, c)| c == a || rtt < b_rtts)
            .map(|(k, c)| (k, c, i.conn(c).rwnd))
            .collect();
        // Each sends its window, one segment per µs, side by side; each is ACKed at 50 µs.
        let most = senders.iter().map(|&(_, _, w)| w / MSS).max().unwrap_or(0);
        for s in 0..most {
            for &(_, c, w) in &senders {
                if s < w / MSS {
                    data_rtt(&mut i, t + s * US, c, MSS as u32, SLOW);
                }
            }
        }
        for &(k, c, w) in &senders {
            acked[k] += w;
            ack(&mut i, t + 50 * US, c, acked[k]);
            if c == a && i.conn(a).rwnd < w {
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
    let (i, a, b, cuts) = fairness_run(40, 40, false, None);
    assert_eq!(i.conn(b).rwnd, 4 * MSS, "the smaller window is never cut");
    assert_eq!(i.conn(a).rwnd, 4 * MSS, "the larger comes down to meet it");
    assert_eq!(cuts, [1, 3, 5, 7, 9, 11], "one cut per 2·RTT");
}

#[test]
fn a_connection_gone_quiet_leaves_the_fairness_average() {
    // As above, but b stops sending after 5 RTTs: a is cut down to b's 4 MSS while b still
    // counts. Once b has been quiet for the idle limit (max(300 ms, 4 sub-slots) = 300 ms), a
    // is alone in the contest - its window is the average - so a window of 10 MSS given to it
    // at RTT 320 is never cut, though BW_A stays 0.
    let (i, a, _, cuts) = fairness_run(400, 5, false, Some(320));
    assert_eq!(cuts, [1, 3, 5, 7, 9, 11], "10 → 4 MSS while b counts");
    assert_eq!(i.conn(a).rwnd, 10 * MSS, "no cut once b has gone quiet");
}

#[test]
fn an_ended_connection_leaves_the_fairness_average_at_once() {
    // As above, but b ends (FIN, §VI-A) after 5 RTTs: its entry goes at once, not after the
    // idle limit. a was cut at RTTs 1 and 3 (10 → 9 → 8 MSS: averages 7 and 6.5), and from
    // RTT 5 on it is alone, its window the average: kept at 8 MSS, though BW_A stays 0.
    let (i, a, _, cuts) = fairness_run(40, 5, true, None);
    assert_eq!(cuts, [1, 3]);
    assert_eq!(i.conn(a).rwnd, 8 * MSS);
    assert_eq!(i.len(), 1, "only a is left in the table");
}

#[test]
fn keys_stay_valid_when_other_connections_leave() {
    // Keys are handed out in order and never reused: removing the first of three leaves the
    // others addressed by their own keys, and a new connection gets the next key.
    let mut i = Host::new(params());
    let keys: Vec<u32> = (0..3).map(|_| i.add_conn(Time::ZERO)).collect();
    assert_eq!(keys, [0, 1, 2]);
    i.set_rwnd(2, 7 * MSS);
    assert_eq!(i.remove_conn(0).rwnd, 2 * MSS);
    assert_eq!(i.conn(2).rwnd, 7 * MSS);
    assert_eq!(i.conn(1).rwnd, 2 * MSS);
    assert_eq!(i.add_conn(Time::ZERO), 3);
    assert_eq!(i.len(), 3);
}

#[test]
fn connections_with_an_rtt_of_2_ms_or_more_are_left_alone() {
    let mut i = Host::new(params());
    let c = i.add_conn(Time::ZERO);
    // One sample of 3 ms.
    i.on_receive(10 * MS, 1500, Some(c), 1460, 7 * MS + Time::from_ps(1));
    assert_eq!(ack(&mut i, 10 * MS, c, 1461), 8_000_000, "window field untouched");
}

/// Rule 3: a window of `rwnd_mss` over a 1 ms RTT whose sender sends `segs` MSS per RTT,
/// 40 RTTs, the whole quota free. Asserts the window never changes; returns the settled d.
fn kept_window_ratio(rwnd_mss: u64, segs: u64) -> f64 {
    let mut i = Host::new(params());
    let c = i.add_conn(T0);
    i.set_rwnd(c, rwnd_mss * MSS);
    let (mut t, mut acked) = (T0, 1);
    for _ in 0..40 {
        for k in 0..segs {
            let now = t + k * SLOW / segs;
            data_rtt(&mut i, now, c, MSS as u32, SLOW);
            acked += MSS;
            if k % 2 == 1 || k + 1 == segs {
                ack(&mut i, now, c, acked);
            }
            assert_eq!(i.conn(c).rwnd, rwnd_mss * MSS, "kept at {now}");
        }
        t += SLOW;
    }
    assert_eq!(i.conn(c).phase, Phase::CongestionAvoidance);
    let expected = (rwnd_mss * MSS * 8) as f64 / 1e-3;
    1.0 - i.conn(c).measured_bps / expected
}

#[test]
fn a_difference_between_gamma1_and_gamma2_keeps_the_window() {
    // A window of 8 MSS over a 1 ms RTT expects b^e = 8·1460·8/1 ms = 93.44 Mb/s; 6 MSS per
    // RTT settle b^m at 70.08 Mb/s: d = 0.25, above γ1 = 0.1 and MSS/rwnd = 0.125, not above
    // γ2 = 0.5. The window neither grows nor shrinks.
    let d = kept_window_ratio(8, 6);
    assert!((d - 0.25).abs() < 0.01, "d = {d}");
    // Just under γ2: 20 MSS expected, 11 sent: d = 0.45 (above MSS/rwnd = 0.05); three RTTs
    // and more of it cost nothing, since only d > γ2 = 0.5 counts toward a decrease.
    let d = kept_window_ratio(20, 11);
    assert!((d - 0.45).abs() < 0.01, "d = {d}");
}

/// Other traffic of `bytes` every 100 µs from `t` for one 1-ms RTT (spread, so that every
/// sub-slot sees the same rate), delivered as the connections' packets reach those times.
fn other_traffic(i: &mut Host, t: Time, bytes: u32) {
    for k in 0..10 {
        i.background.push_back((t + k * 100 * US, bytes));
    }
}

#[test]
fn congestion_avoidance_adds_exactly_one_mss_per_control_interval_while_quota_lasts() {
    // One connection at 4 MSS over 1 ms, filling its window (d = 0), beside 820 Mb/s of other
    // traffic. Its own 4 × 1,500 B per RTT is 48 Mb/s, so BW_A = 900 − 868 = 32 Mb/s: too
    // little to double (4 MSS/RTT = 46.72 Mb/s), so it moves to congestion avoidance, where
    // +1 MSS needs 11.68 Mb/s: 4 → 5 MSS (BW_A then 900 − 880 = 20), 5 → 6 (BW_A 8), and
    // there it stays. Steps at least 2·RTT apart.
    // The failed doubling itself changes nothing but the phase (our choice, the paper does not
    // say: no +1 MSS in its place at that ACK). The connection starts with its data; its first
    // control interval ends two RTTs later, once T (1 ms) and BW_A (32 Mb/s) have settled.
    let mut i = Host::new(params());
    let c = i.add_conn(T0);
    i.set_rwnd(c, 4 * MSS);
    let (mut t, mut acked) = (T0, 1);
    let mut steps = vec![];
    let mut to_ca = None;
    for _ in 0..40 {
        other_traffic(&mut i, t, 10_250);
        (t, acked) = feed_full_window_watched(&mut i, c, t, 1, acked, |i, now, before, phase| {
            let after = &i.conn(c);
            if phase == Phase::SlowStart && after.phase == Phase::CongestionAvoidance {
                to_ca = Some((now, after.rwnd));
            }
            if after.rwnd != before {
                steps.push((now, after.rwnd));
            }
        });
    }
    let (ca_at, ca_window) = to_ca.expect("the failed doubling moves it to congestion avoidance");
    assert_eq!(ca_window, 4 * MSS, "no partial increase with the failed doubling");
    let windows: Vec<u64> = steps.iter().map(|&(_, w)| w / MSS).collect();
    assert_eq!(windows, [5, 6], "{steps:?}");
    assert!(steps[0].0 > ca_at && steps[1].0 - steps[0].0 >= 2 * SLOW, "{steps:?}");
    assert_eq!(i.conn(c).phase, Phase::CongestionAvoidance);
    assert!((i.bw_a_bps - 8e6).abs() < 1e3, "BW_A {}", i.bw_a_bps);
}

/// Starves a connection that holds `from_mss` (one MSS every third RTT, each ACK covering
/// it: d ≈ 0.67 and more) with BW_A = 0 for 90 RTTs; returns every window it advertised.
fn starve(min_rwnd_segments: u32, from_mss: u64) -> Vec<u64> {
    let mut i = Host::new(IctcpParams {
        min_rwnd_segments,
        ..params()
    });
    let c = i.add_conn(T0);
    i.set_rwnd(c, from_mss * MSS);
    let (mut t, mut acked) = (T0, 1);
    let mut windows = vec![];
    for rtt in 0..90 {
        other_traffic(&mut i, t, 12_500);
        if rtt % 3 == 0 {
            data_rtt(&mut i, t + 10 * US, c, MSS as u32, SLOW);
            acked += MSS;
            windows.push(ack(&mut i, t + 10 * US, c, acked));
        }
        t += SLOW;
    }
    windows
}

#[test]
fn a_starved_window_comes_down_to_the_minimum_and_no_further() {
    // Rule 2 keeps asking for a decrease (d > γ2 at every sample); the floor holds it.
    let two = starve(2, 4);
    assert_eq!(*two.last().unwrap(), 2 * MSS);
    assert!(two.iter().all(|&w| w >= 2 * MSS), "{two:?}");
    assert!(two.windows(2).all(|p| p[1] == p[0] || p[1] + MSS == p[0]), "one MSS at a time");
    // The 1-MSS option (§VII-A-2): down to one segment.
    let one = starve(1, 4);
    assert_eq!(*one.last().unwrap(), MSS);
    assert!(one.iter().all(|&w| w >= MSS), "{one:?}");
}

/// Connections a (10 MSS, 7 sent per RTT: d = 0.3) and b (4 MSS, 3 sent: d = 0.25): rule 3
/// keeps both, so only the fairness rule can change a window. Other traffic of
/// `other_per_100us` bytes every 100 µs. Returns a's window after 20 RTTs of 1 ms.
fn fairness_only(other_per_100us: u32) -> (u64, f64) {
    let mut i = Host::new(params());
    let a = i.add_conn(T0);
    let b = i.add_conn(T0);
    i.set_rwnd(a, 10 * MSS);
    i.set_rwnd(b, 4 * MSS);
    let (mut t, mut acked) = (T0, [1u64, 1]);
    for _ in 0..20 {
        other_traffic(&mut i, t, other_per_100us);
        // Both senders' segments of this RTT, in time order (a first at equal times).
        let mut segments: Vec<(Time, usize)> = [(0, 7u64), (1, 3)]
            .into_iter()
            .flat_map(|(k, segs)| (0..segs).map(move |s| (t + 5 * US + s * SLOW / segs, k)))
            .collect();
        segments.sort();
        for (now, k) in segments {
            let c = [a, b][k];
            data_rtt(&mut i, now, c, MSS as u32, SLOW);
            acked[k] += MSS;
            ack(&mut i, now, c, acked[k]);
        }
        t += SLOW;
    }
    i.flush();
    (i.conn(a).rwnd, i.bw_a_bps)
}

#[test]
fn fairness_acts_only_while_bw_a_is_below_a_fifth_of_c() {
    // 500 Mb/s of other traffic + the two connections' 10 × 1,500 B per RTT (120 Mb/s):
    // BW_A = 900 − 620 = 280 Mb/s ≥ 0.2·C, so a keeps its 10 MSS though it is above the
    // average (7 MSS).
    let (a, bw_a) = fairness_only(6_250);
    assert!((bw_a - 280e6).abs() < 1e3, "BW_A {bw_a}");
    assert_eq!(a, 10 * MSS);
    // 800 Mb/s of other traffic: BW_A = 900 − 920 → 0 < 0.2·C, and a is cut.
    let (a, bw_a) = fairness_only(10_000);
    assert_eq!(bw_a, 0.0);
    assert!(a < 10 * MSS, "a = {} MSS", a / MSS);
}

#[test]
fn the_subslot_length_is_the_traffic_weighted_rtt_of_the_last_subslot() {
    // §IV-B: T = Σ w_i·RTT_i, w_i the share of the traffic of the connections that updated
    // their RTT in the last period T. Slot [1.0, 1.2) ms with T = 100 µs: in the second
    // sub-slot a brings 3,000 B at an RTT of 100 µs and b 1,000 B at 400 µs, so T becomes
    // (3,000·100 + 1,000·400)/4,000 = 175 µs. b's 5,000 B in the first sub-slot do not count
    // (with them T would be 300 µs).
    let (mut i, a, b) = two_conns();
    let z = MS;
    data_rtt(&mut i, z + 50 * US, b, 5_000, 400 * US);
    data_rtt(&mut i, z + 150 * US, a, 3_000, 100 * US);
    data_rtt(&mut i, z + 160 * US, b, 1_000, 400 * US);
    assert!(i.in_second_subslot());
    i.advance(z + 200 * US);
    assert_eq!(i.subslot(), 175 * US);
    // A slot in which no connection updates its RTT keeps T.
    i.on_receive(z + 300 * US, 1_500, None, 0, Time::ZERO);
    i.advance(z + 600 * US);
    assert_eq!(i.subslot(), 175 * US);
}

#[test]
fn a_connection_returning_under_control_never_pulls_its_right_edge_back() {
    // A 3 ms sample takes the connection out of ICTCP's control (§III): its ACK carries the
    // stack's window of 64 kB at ack 1 + 2 MSS. When its RTT is back under 2 ms, ICTCP's own
    // window (2 MSS) may only apply as the peer's data covers that edge: never shrink (§IV-D
    // footnote 3).
    let mut i = Host::new(params());
    let c = i.add_conn(Time::ZERO);
    let stack = 64_000u64;
    let send = |i: &mut Host, now: Time, ack: u64| ack_offering(i, now, c, ack, stack);
    let t = 10 * MS;
    data_rtt(&mut i, t, c, MSS as u32, 3 * MS);
    assert_eq!(send(&mut i, t, 1 + MSS), stack, "not controlled: the stack's window");
    // Samples of 100 µs bring the smoothed RTT under 2 ms after a few segments.
    let mut now = t;
    let mut acked = 1 + MSS;
    while i.conn(c).srtt.unwrap() >= 2 * MS {
        now += 10 * US;
        data_rtt(&mut i, now, c, 1, RTT);
        acked += 1;
    }
    let edge = 1 + MSS + stack;
    let w = send(&mut i, now, acked);
    assert_eq!(acked + w, edge, "the edge stays where the stack put it");
    // Once the peer's data has covered the edge, ICTCP's 2-MSS window applies.
    assert_eq!(send(&mut i, now + US, edge), 2 * MSS);
}
