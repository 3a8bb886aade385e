//! The deployment pitfalls of DCTCP (Judd's slides) on small stars, each checked
//! against what the mechanism must do: a RED-ECN queue above K drops what it cannot mark,
//! QoS segregation keeps TCP out of the DCTCP class's AQM, a dropped SYN costs exactly the
//! initial RTO, and jumbo frames change the segment and frame sizes.

use dcsim::results::{ClassStats, FlowStats};
use dcsim::{Results, Scenario};

mod common;
use common::{port, run};

/// h1 (DCTCP, class 0) and h2 (TCP NewReno, class 1) → h0 at 1 Gbps, 200-packet ports,
/// with the given `[switch]` tables.
fn dctcp_and_tcp(switch: &str) -> String {
    format!(
        r#"
        [sim]
        seed = 5
        duration_s = 0.5
        warmup_s = 0.1
        [topology]
        kind = "star"
        hosts = 3
        link = {{ rate_gbps = 1.0, delay_us = 25.0 }}
        [switch.buffer]
        kind = "per_port"
        limit_packets = 200
        {switch}
        [tcp]
        rto_min_ms = 10
        [[flows]]
        src = 1
        dst = 0
        cc = "dctcp"
        class = 0
        [[flows]]
        src = 2
        dst = 0
        cc = "newreno"
        class = 1
"#
    )
}

#[test]
fn in_one_red_ecn_queue_above_k_non_ect_packets_are_dropped_and_ect_ones_marked() {
    let r = run(&dctcp_and_tcp(
        r#"[switch.aqm]
        kind = "threshold"
        k_packets = 20
        nonect = "drop""#,
    ));
    let (_, p) = port(&r, "s0->h0");
    // DCTCP keeps the queue near K, far below the 200-packet limit: every drop is the AQM's,
    // and each of them is a packet that could not be marked.
    assert_eq!(p.drops_buffer, 0, "{p:?}");
    assert!(p.drops_aqm > 0 && p.marks > 0, "{p:?}");
    assert_eq!(p.drops_nonect, p.drops_aqm, "only non-ECT packets are dropped: {p:?}");
    // The DCTCP flow's packets are all marked, never dropped: its data were never resent.
    let (d, t): (&FlowStats, &FlowStats) = (&r.flows[0], &r.flows[1]);
    assert_eq!(d.retransmits, 0, "{d:?}");
    assert!(d.ecn_reductions > 0);
    // TCP meets a drop whenever the queue is above K: it starves (Judd's "Coexistence with TCP").
    assert!(
        t.goodput_bps < 0.1 * d.goodput_bps,
        "TCP {} vs DCTCP {}",
        t.goodput_bps,
        d.goodput_bps
    );
}

#[test]
fn a_mark_only_queue_admits_non_ect_packets_and_tcp_takes_the_link() {
    let r = run(&dctcp_and_tcp(
        r#"[switch.aqm]
        kind = "threshold"
        k_packets = 20
        nonect = "enqueue""#,
    ));
    let (_, p) = port(&r, "s0->h0");
    assert_eq!(p.drops_aqm, 0, "{p:?}");
    assert!(p.drops_buffer > 0 && p.max_packets >= 199, "TCP fills the buffer: {p:?}");
    let (d, t) = (&r.flows[0], &r.flows[1]);
    assert!(
        t.goodput_bps > 2.0 * d.goodput_bps,
        "TCP {} vs DCTCP {}",
        t.goodput_bps,
        d.goodput_bps
    );
}

#[test]
fn segregated_classes_never_drop_tcp_by_the_dctcp_classes_aqm() {
    // QoS segregation by the flows' class (a DSCP): DCTCP in class 0 with RED-ECN marking,
    // TCP in class 1 with drop-tail, each with half of the 200 packets.
    let r = run(&dctcp_and_tcp(
        r#"[switch.classes]
        classify = { by = "flow" }
        [[switch.classes.queues]]
        limit_packets = 100
        aqm = { kind = "threshold", k_packets = 20, nonect = "drop" }
        [[switch.classes.queues]]
        limit_packets = 100
        aqm = { kind = "drop_tail" }"#,
    ));
    let (i, p) = port(&r, "s0->h0");
    let c: Vec<&ClassStats> = r.classes.iter().filter(|c| c.port == i as u32).collect();
    // TCP's packets (the only non-ECT ones at this port) are dropped only where its own
    // class's buffer overflows, never by an AQM: in one RED-ECN queue the same flows lose
    // TCP packets to the AQM (the first test).
    assert!(c[1].drops_buffer > 0, "TCP still overflows its own queue: {:?}", c[1]);
    assert_eq!(p.drops_nonect, c[1].drops_buffer, "{p:?}");
    // DCTCP's class: marks only (its data are ECT); its non-ECT handshake ACK and FIN-less
    // pure ACKs never cross this port (they go h0 → h1).
    assert_eq!(c[0].drops_aqm, 0, "{:?}", c[0]);
    assert!(c[0].marks > 0 && c[0].max_packets < 60, "{:?}", c[0]);
    assert_eq!(p.drops_aqm, 0);
    for f in &r.flows {
        assert!(f.goodput_bps > 0.4e9, "flow {} gets its half: {}", f.id, f.goodput_bps);
    }
}

/// Eight DCTCP bulk flows h1..h8 → h0 at 1 Gbps (ECT on every packet, as DCTCP hosts),
/// stopping at 0.5 s, with K = 2: eight 2-segment minimum windows (16 packets) exceed the
/// path's C·RTT (≈ 8 packets), so from shortly after the start until they stop, the port
/// s0->h0 always holds more than K packets. h9 opens a short ECN-capable RFC 3168
/// (`tcp_ecn`) connection to h0 at 0.2 s: its SYN crosses that port, and is not ECT unless
/// `ect_on_syn` says so.
fn syn_into_a_full_dctcp_queue(tcp: &str) -> String {
    let mut s = format!(
        r#"
        [sim]
        seed = 2
        duration_s = 3.0
        [topology]
        kind = "star"
        hosts = 10
        link = {{ rate_gbps = 1.0, delay_us = 25.0 }}
        [switch.aqm]
        kind = "threshold"
        k_packets = 2
        nonect = "drop"
        [tcp]
        cc = "dctcp"
        rto_initial_ms = 1000
        {tcp}
        [[flows]]
        src = 9
        dst = 0
        cc = "tcp_ecn"
        start_s = 0.2
        bytes = 10000
"#
    );
    for h in 1..=8 {
        s.push_str(&format!("[[flows]]\nsrc = {h}\ndst = 0\nstop_s = 0.5\n"));
    }
    s
}

/// Base RTT of a SYN on a 1 Gbps star with 25 µs links: four propagation delays plus the
/// SYN's and the SYN-ACK's serialisation at each of their two hops (40-B packets, 38 B
/// framing: 0.624 µs each), allowing for the host's ≤ 1 µs transmit jitter at each end.
const SYN_RTT_S: f64 = 100e-6 + 4.0 * 0.624e-6;

#[test]
fn a_syn_dropped_above_k_delays_the_connection_by_exactly_the_initial_rto() {
    let r = run(&syn_into_a_full_dctcp_queue(""));
    let f = &r.flows[0];
    assert_eq!(f.syn_retries, 1, "{f:?}");
    assert!(!f.failed);
    // The second SYN leaves exactly 1 s after the first and finds the queue empty.
    let extra = f.setup_s - 1.0 - SYN_RTT_S;
    assert!((0.0..2.5e-6).contains(&extra), "setup {} s", f.setup_s);
    let (_, p) = port(&r, "s0->h0");
    assert!(p.drops_syn >= 1, "{p:?}");
}

#[test]
fn an_ect_syn_is_marked_instead_and_the_connection_opens_in_about_an_rtt() {
    let r = run(&syn_into_a_full_dctcp_queue("ect_on_syn = true"));
    let f = &r.flows[0];
    assert_eq!(f.syn_retries, 0, "{f:?}");
    // It waits behind the standing queue: at most the 200-odd packets the port can hold
    // would be 2.4 ms; DCTCP keeps it at a few tens of µs.
    assert!(f.setup_s < 1e-3, "setup {} s", f.setup_s);
    assert_eq!(port(&r, "s0->h0").1.drops_syn, 0);
}

#[test]
fn a_connection_out_of_syn_retries_fails_and_is_reported() {
    let r = run(&syn_into_a_full_dctcp_queue("syn_retries = 0"));
    let f = &r.flows[0];
    assert!(f.failed && f.setup_s.is_nan() && f.bytes_delivered == 0, "{f:?}");
    // It gave up at 0.2 + 1 s and left nothing behind: every packet is accounted for.
    let c = &r.conservation;
    assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "{c:?}");
}

#[test]
fn jumbo_frames_carry_8960_byte_segments_in_9038_byte_frames() {
    // One flow h1 → h0 at 10 Gbps: goodput is the link rate × 8960 / 9038 (IP MTU 9000,
    // 40 B of headers, 38 B of framing) against 1460 / 1538 with standard frames.
    let toml = |mtu: &str| {
        format!(
            r#"
        [sim]
        duration_s = 0.05
        warmup_s = 0.01
        [topology]
        kind = "star"
        hosts = 2
        link = {{ rate_gbps = 10.0, delay_us = 5.0 }}
        [tcp]
        {mtu}
        [[flows]]
        src = 1
        dst = 0
"#
        )
    };
    let jumbo = run(&toml("mtu_bytes = 9000"));
    let standard = run(&toml(""));
    let g = |r: &Results| r.flows[0].goodput_bps / 10e9;
    assert!((g(&jumbo) / (8960.0 / 9038.0) - 1.0).abs() < 0.005, "jumbo {}", g(&jumbo));
    assert!((g(&standard) / (1460.0 / 1538.0) - 1.0).abs() < 0.005, "standard {}", g(&standard));
    let (_, p) = port(&jumbo, "s0->h0");
    // Full-size data packets, and the SYN and handshake ACK (40 B each).
    assert_eq!(p.sent_bytes % 9000, 80, "{}", p.sent_bytes);
}

#[test]
fn mss_and_mtu_together_are_refused_naming_the_field() {
    let e = Scenario::from_toml(
        r#"
        [topology]
        kind = "star"
        hosts = 2
        [tcp]
        mss = 1000
        mtu_bytes = 9000
"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("tcp.mtu_bytes"), "{e}");
}

/// One long flow h1 → h0 at 10 Gbps with 25 µs links, the given `[tcp]` lines and the
/// flow's own lines; no transmit jitter, so its RTT is the hand-computed one.
fn one_long_flow(tcp: &str, flow: &str) -> Results {
    run(&format!(
        r#"
        [sim]
        duration_s = 0.2
        warmup_s = 0.1
        [topology]
        kind = "star"
        hosts = 2
        link = {{ rate_gbps = 10.0, delay_us = 25.0 }}
        [host]
        tx_jitter_us = 0.0
        [tcp]
        {tcp}
        [[flows]]
        src = 1
        dst = 0
        {flow}
        "#
    ))
}

#[test]
fn with_auto_tuning_off_a_long_flow_gets_its_receive_buffer_per_rtt() {
    // 30 segments of buffer: the window is 43,800 B. RTT = 4 × 25 µs + a 1500-B packet's
    // serialisation at 10 Gbps with 38 B framing (1.2304 µs) on each of its two hops + a
    // 40-B ACK's (0.0624 µs) on each of its two = 102.586 µs, so 8 · 43,800 / RTT = 3.416
    // Gbps (delayed ACKs every 2 segments add at most one serialisation: 1.2%).
    // Auto-tuning off (the default) with the stack's buffer, or on but with a buffer the flow
    // sets itself (SO_RCVBUF: fixed).
    for (tcp, flow) in [
        ("rcv_buffer_bytes = 43800", ""),
        ("rcv_autotune = true", "rcv_buffer_bytes = 43800"),
    ] {
        let r = one_long_flow(tcp, flow);
        let expect = 8.0 * 43_800.0 / 102.586e-6;
        let got = r.flows[0].goodput_bps;
        assert!((got / expect - 1.0).abs() < 0.02, "{got} vs {expect}");
        assert_eq!(r.flows[0].rcv_buffer_bytes, 43_800);
    }
}

#[test]
fn auto_tuning_grows_the_buffer_until_the_flow_fills_the_link() {
    // From 43,690 B (3.4 Gbps at this RTT) the buffer grows past the path's BDP (≈ 128 KB)
    // and the flow reaches the 10 Gbps goodput ceiling (1460/1538).
    let r = one_long_flow("rcv_autotune = true", "");
    let f = &r.flows[0];
    assert!(f.goodput_bps > 0.97 * 10e9 * 1460.0 / 1538.0, "{}", f.goodput_bps);
    assert!(
        f.rcv_buffer_bytes > 2 * 128_000 && f.rcv_buffer_bytes <= 3 << 20,
        "{}",
        f.rcv_buffer_bytes
    );
}

#[test]
fn queries_on_a_persistent_connection_whose_handshake_failed_never_complete() {
    // Two UDP sources overload the 2-packet port to the client h1 from the start, so the
    // SYN-ACK of its persistent connection to h4 is likely lost; with no retries left the handshake fails at 1 s and
    // the queries issued after it wait for a server they cannot reach. Over ten seeds some
    // connections fail, and no run stops on it.
    let mut failed = 0;
    for seed in 1..=10 {
        let r = run(&format!(
            r#"
            [sim]
            seed = {seed}
            duration_s = 1.5
            [topology]
            kind = "star"
            hosts = 5
            [switch.buffer]
            kind = "per_port"
            limit_packets = 2
            [tcp]
            syn_retries = 0
            synack_retries = 0
            [[queries]]
            client = 1
            servers = [4]
            response_bytes = 2000
            rounds = 200
            arrival = {{ kind = "poisson", mean_interval_ms = 5.0 }}
            [[udp]]
            src = 2
            dst = 1
            rate_gbps = 0.9
            [[udp]]
            src = 3
            dst = 1
            rate_gbps = 0.9
            "#
        ));
        let f = &r.flows[0];
        if f.failed {
            failed += 1;
            assert!(r.queries.iter().all(|q| q.completed_s.is_nan()), "seed {seed}");
            assert!(r.queries.len() > 100, "queries are still issued: {}", r.queries.len());
        }
        let c = &r.conservation;
        assert_eq!(c.injected, c.delivered + c.dropped + c.in_flight, "seed {seed}");
    }
    assert!(failed > 0, "no handshake failed in ten seeds");
}
