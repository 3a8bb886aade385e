//! ICTCP (ICTCP paper §IV) through the public API: a receiver running it keeps an incast
//! and two long flows within a small port buffer where TCP alone overflows it, shares the link
//! fairly, and leaves connections with an RTT of 2 ms or more alone. Runs on 1 Gbps stars with
//! an 85,000-B port (the ICTCP paper's equal share of a 4 MB, 48-port switch, §II-C).

use dcsim::results::PortStats;
use dcsim::{Results, Scenario, Simulation};

fn run(toml: &str) -> Results {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("scenario does not parse: {e}"));
    Simulation::new(&s).expect("scenario builds").run()
}

fn port<'a>(r: &'a Results, name: &str) -> &'a PortStats {
    r.ports.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no port {name}"))
}

const COMMON: &str = r#"
    [switch.buffer]
    kind = "per_port"
    limit_bytes = 85000
    [switch.aqm]
    kind = "drop_tail"
    [tcp]
    cc = "newreno"
    rto_min_ms = 10.0
"#;

/// 16 servers each answer 64 KiB, 10 barrier-synchronised rounds, into host 0.
fn incast(ictcp: bool) -> String {
    let ictcp = if ictcp { "[ictcp]\nhosts = [0]" } else { "" };
    format!(
        r#"
        [sim]
        duration_s = 0.5
        [topology]
        kind = "star"
        hosts = 17
        {COMMON}
        {ictcp}
        [[queries]]
        client = 0
        servers = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
        response_bytes = 65536
        rounds = 10
        start_s = 0.001
        "#
    )
}

#[test]
fn ictcp_keeps_an_incast_within_the_port_where_tcp_overflows_it() {
    let tcp = run(&incast(false));
    let ictcp = run(&incast(true));
    // TCP: 16 windows of IW + growth overflow 85 kB in the first round trips.
    assert!(port(&tcp, "s0->h0").drops_buffer > 0);
    assert!(tcp.queries.iter().map(|q| q.timeouts).sum::<u64>() > 0);
    // ICTCP: every window starts at 2 MSS (16 × 3,000 B = 48 kB, within 85 kB + the 12.5 kB
    // BDP) and grows only against the measured spare bandwidth: no loss at all.
    assert_eq!(port(&ictcp, "s0->h0").drops_buffer, 0);
    assert_eq!(ictcp.queries.len(), 10);
    let (mut bytes, mut time) = (0u64, 0.0);
    for q in &ictcp.queries {
        assert!(q.completed_s.is_finite() && q.timeouts == 0, "{q:?}");
        bytes += q.response_bytes;
        time += q.qct_s;
    }
    // 1 MiB per round; goodput over the rounds ≥ 0.9 Gb/s of the 0.949 ceiling.
    let goodput = bytes as f64 * 8.0 / time;
    assert!(goodput >= 0.9e9, "ICTCP incast goodput {goodput:.3e} b/s");
    // The same scenario gives the same results, byte for byte.
    assert_eq!(ictcp.to_json(), run(&incast(true)).to_json());
}

/// Two long flows into host 0, the second 50 ms after the first; measured over 0.3-0.6 s.
fn two_flows(ictcp: bool) -> String {
    let ictcp = if ictcp { "[ictcp]\nhosts = [0]" } else { "" };
    format!(
        r#"
        [sim]
        duration_s = 0.6
        warmup_s = 0.3
        [topology]
        kind = "star"
        hosts = 3
        {COMMON}
        {ictcp}
        [[flows]]
        src = 1
        dst = 0
        [[flows]]
        src = 2
        dst = 0
        start_s = 0.05
        "#
    )
}

#[test]
fn two_ictcp_flows_fill_the_link_fairly_without_loss() {
    let tcp = run(&two_flows(false));
    assert!(port(&tcp, "s0->h0").drops_buffer > 0, "TCP fills the port and drops");
    let r = run(&two_flows(true));
    assert_eq!(port(&r, "s0->h0").drops_buffer, 0);
    let g: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let total: f64 = g.iter().sum();
    let jain = total * total / (2.0 * g.iter().map(|x| x * x).sum::<f64>());
    // The flow that started first does not keep a larger window (§IV-D fairness).
    assert!(jain >= 0.99, "goodputs {g:?}");
    assert!(total >= 0.9e9, "total {total:.3e} b/s of the 0.949e9 ceiling");
}

/// One 2 MB transfer from host 1, whose link has 1.2 ms of delay each way (RTT > 2 ms).
fn far_sender(ictcp: bool) -> String {
    let ictcp = if ictcp { "[ictcp]\nhosts = [0]" } else { "" };
    format!(
        r#"
        [sim]
        duration_s = 0.2
        [topology]
        kind = "star"
        hosts = 2
        [[topology.host_links]]
        rate_gbps = 1.0
        delay_us = 25.0
        [[topology.host_links]]
        rate_gbps = 1.0
        delay_us = 1200.0
        {COMMON}
        {ictcp}
        [[flows]]
        src = 1
        dst = 0
        bytes = 2000000
        "#
    )
}

#[test]
fn connections_with_an_rtt_above_2_ms_are_left_alone() {
    // ICTCP §III: only connections with an RTT below 2 ms are controlled; this one's first
    // receiver-side sample (≈ 2.5 ms) releases it, so the transfer is exactly TCP's.
    let plain = run(&far_sender(false));
    let with = run(&far_sender(true));
    assert!(plain.flows[0].completion_s.is_finite());
    assert_eq!(plain.flows[0].completion_s, with.flows[0].completion_s);
    assert_eq!(plain.flows[0].data_packets_sent, with.flows[0].data_packets_sent);
}

#[test]
fn ictcp_state_is_traced_and_consistent() {
    // The two-flow run sampled every 1 ms: per connection the window, b^m and b^e (Eq. 3:
    // b^e ≥ b^m), per interface BW_T, BW_A (Eq. 1) and what is left of the quota.
    let toml = two_flows(true).replace("[sim]", "[measure]\nflow_sample_us = 1000.0\n[sim]");
    let r = run(&toml);
    let f = &r.flow_samples;
    assert!(f.t_s.len() >= 2 * 250, "{} flow samples", f.t_s.len());
    let mut sampled = 0;
    for k in 0..f.t_s.len() {
        let (w, m, e) = (f.ictcp_rwnd_bytes[k], f.ictcp_measured_bps[k], f.ictcp_expected_bps[k]);
        assert!(w >= 2.0 * 1460.0, "window {w} below the minimum");
        if e.is_finite() {
            assert!(e >= m, "b^e {e} < b^m {m}");
            sampled += 1;
        }
    }
    assert!(sampled > f.t_s.len() / 2);
    let s = &r.ictcp_samples;
    assert_eq!(s.t_s.len(), f.t_s.len() / 2, "one row per interface per sample");
    for k in 0..s.t_s.len() {
        // C is the NIC's rate, within its ±100 ppm clock offset.
        assert!((s.bw_a_bps[k] - (0.9e9 - s.bw_t_bps[k]).max(0.0)).abs() <= 0.9e9 * 1e-4);
        assert!(s.quota_bps[k].is_nan() || (0.0..=s.bw_a_bps[k]).contains(&s.quota_bps[k]));
    }
    assert!(s.quota_bps.iter().any(|q| q.is_finite()), "second sub-slots are sampled too");
}
