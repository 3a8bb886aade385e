//! Tests of the window rules the controllers share (slow start, congestion avoidance, ACK
//! counting), NewReno's decisions and the registry.

use super::*;

const MSS: f64 = 1460.0;

pub(super) fn window(cwnd: f64, ssthresh: f64) -> Window {
    Window {
        cwnd,
        ssthresh,
        pacing: None,
        rules: crate::scenario::TcpConfig::default().cc_params().rules,
    }
}

#[test]
fn slow_start_doubles_per_rtt_with_delayed_acks() {
    // 10 segments acked by 5 ACKs of 2 segments each: +2 MSS per ACK -> cwnd 10 -> 20 MSS.
    let mut w = window(10.0 * MSS, f64::INFINITY);
    for _ in 0..5 {
        w.grow(2 * 1460, MSS);
    }
    assert_eq!(w.cwnd, 20.0 * MSS);
}

#[test]
fn congestion_avoidance_adds_one_mss_per_window() {
    let mut w = window(10.0 * MSS, 5.0 * MSS);
    w.grow(1460, MSS);
    assert!((w.cwnd - (10.0 * MSS + MSS / 10.0)).abs() < 1e-9);
}

#[test]
fn growth_counts_a_short_segment_as_one() {
    // After a timeout (cwnd 1 MSS) the ACK of a 340-B final segment opens the window to
    // 2 MSS, as in a packet-counting stack; 3 segments in one ACK still add only 2.
    let mut w = window(MSS, 10.0 * MSS);
    w.grow(340, MSS);
    assert_eq!(w.cwnd, 2.0 * MSS);
    w.grow(3 * 1460, MSS);
    assert_eq!(w.cwnd, 4.0 * MSS);
    // Congestion avoidance: 1460 + 340 B = 2 segments -> +2·MSS²/cwnd.
    let mut ca = window(10.0 * MSS, 5.0 * MSS);
    ca.grow(1800, MSS);
    assert!((ca.cwnd - (10.0 * MSS + 2.0 * MSS / 10.0)).abs() < 1e-9);
}

#[test]
fn growth_under_each_counting_rule_and_the_slow_start_limit() {
    use crate::scenario::AckCounting::*;
    // Congestion avoidance at cwnd 10, an ACK of 1460 + 340 B: per ACK +1 count, per
    // segment +2, by bytes +1800/1460, each times SMSS²/cwnd = 146 B.
    for (rule, counts) in [(PerAck, 1.0), (Segments, 2.0), (Bytes, 1800.0 / 1460.0)] {
        let mut w = window(10.0 * MSS, 5.0 * MSS);
        w.rules.counting = rule;
        w.grow(1800, MSS);
        assert!((w.cwnd - (10.0 * MSS + counts * 146.0)).abs() < 1e-9, "{rule:?}");
    }
    // A stretch ACK of 100 segments in slow start at cwnd 10, ssthresh 20: L = 2 adds 2;
    // no limit (Linux) stops at ssthresh and counts the other 90 in congestion avoidance:
    // 20 + 90·1460/20 B = 24.5 segments.
    let mut capped = window(10.0 * MSS, 20.0 * MSS);
    capped.grow(100 * 1460, MSS);
    assert_eq!(capped.cwnd, 12.0 * MSS);
    let mut linux = window(10.0 * MSS, 20.0 * MSS);
    linux.rules.abc_limit = f64::INFINITY;
    linux.grow(100 * 1460, MSS);
    assert!((linux.cwnd - 24.5 * MSS).abs() < 1e-9, "{}", linux.cwnd / MSS);
}

/// A connection with `flight` bytes outstanding, cwnd-limited, not in recovery.
pub(super) fn view(flight: u64) -> ConnView {
    ConnView {
        snd_una: 1,
        snd_nxt: 1 + flight,
        snd_max: 1 + flight,
        mss: MSS,
        iw: 10.0 * MSS,
        flight,
        reduce_from: flight,
        srtt: None,
        in_recovery: false,
        cwnd_limited: true,
        idle: None,
        window_validated: true,
    }
}

/// An ACK of `newly_acked` bytes, without ECN-Echo or RTT sample.
pub(super) fn ack(newly_acked: u64) -> Ack {
    Ack {
        newly_acked,
        delivered: newly_acked,
        rtt: None,
        ece: false,
        ecn_cut: false,
    }
}

#[test]
fn newreno_decisions_by_hand() {
    let t = Time::ZERO;
    let mut c = NewReno;
    // Recovery entry with 20 segments in flight: ssthresh = cwnd = 10 segments (RFC 6582
    // step 2, RFC 6675); with 1 segment in flight the floor, 2 segments.
    let mut w = window(20.0 * MSS, f64::INFINITY);
    c.on_recovery_start(&mut w, t, &view(20 * 1460));
    assert_eq!((w.cwnd, w.ssthresh), (10.0 * MSS, 10.0 * MSS));
    c.on_recovery_start(&mut w, t, &view(1460));
    assert_eq!((w.cwnd, w.ssthresh), (2.0 * MSS, 2.0 * MSS));
    // Full ACK with 3 segments still out: min(ssthresh 10, 3 + 1) = 4 segments; with
    // nothing out, max(0, SMSS) + SMSS = 2 segments.
    let mut w = window(13.0 * MSS, 10.0 * MSS);
    c.on_recovery_end(&mut w, t, &view(3 * 1460));
    assert_eq!(w.cwnd, 4.0 * MSS);
    c.on_recovery_end(&mut w, t, &view(0));
    assert_eq!(w.cwnd, 2.0 * MSS);
    // RTO with 8 segments out: ssthresh 4 segments, cwnd the 1-segment loss window.
    let mut w = window(8.0 * MSS, f64::INFINITY);
    c.on_rto(&mut w, t, &view(8 * 1460));
    assert_eq!((w.cwnd, w.ssthresh), (MSS, 4.0 * MSS));
    // Restart after idle: min(IW = 10, cwnd).
    let mut w = window(30.0 * MSS, 20.0 * MSS);
    c.on_idle_restart(&mut w, t, &view(0));
    assert_eq!(w.cwnd, 10.0 * MSS);
    c.on_idle_restart(&mut w, t, &view(0));
    assert_eq!(w.cwnd, 10.0 * MSS, "idempotent");
    let mut small = window(4.0 * MSS, 20.0 * MSS);
    c.on_idle_restart(&mut small, t, &view(0));
    assert_eq!(small.cwnd, 4.0 * MSS);
}

#[test]
fn growth_only_when_the_ack_may_grow() {
    let t = Time::ZERO;
    let mut c = NewReno;
    let grown = 10.0 * MSS + 2.0 * MSS;
    for (in_recovery, ecn_cut, limited, validated, want) in [
        (false, false, true, true, grown), // cwnd-limited, hence validated
        (false, false, false, true, grown),
        (false, false, false, false, 10.0 * MSS), // application-limited (RFC 7661)
        (true, false, true, true, 10.0 * MSS),    // in recovery
        (false, true, true, true, 10.0 * MSS),    // cutting for ECN
    ] {
        let mut w = window(10.0 * MSS, f64::INFINITY);
        let v = ConnView {
            in_recovery,
            cwnd_limited: limited,
            window_validated: validated,
            ..view(10 * 1460)
        };
        c.on_ack(&mut w, t, &Ack { ecn_cut, ..ack(2 * 1460) }, &v);
        assert_eq!(w.cwnd, want, "{in_recovery} {ecn_cut} {limited} {validated}");
    }
}

#[test]
fn the_registry_names_every_controller() {
    let names: Vec<_> = [CcKind::NewReno, CcKind::TcpEcn, CcKind::Dctcp, CcKind::Cubic]
        .into_iter()
        .map(|k| (k.name(), serde_json::to_string(&k).unwrap()))
        .collect();
    for (name, json) in &names {
        assert_eq!(json, &format!("\"{name}\""));
    }
    let t = crate::scenario::TcpConfig::default().cc_params();
    let caps: Vec<bool> = [CcKind::NewReno, CcKind::TcpEcn, CcKind::Dctcp, CcKind::Cubic]
        .into_iter()
        .map(|k| Cc::new(k, &t).ecn_capable())
        .collect();
    assert_eq!(caps, [false, true, true, false]);
    assert_eq!(Cc::new(CcKind::Cubic, &t).win, Window::initial(&t));
}
