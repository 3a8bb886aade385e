//! CUBIC (RFC 9438) through the public API: long-lived flows through one drop-tail switch
//! converge to a fair share, also when one starts later; ECN is negotiated only when asked.

use dcsim::{Results, Scenario, Simulation};

fn run(toml: &str) -> Results {
    let s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("scenario does not parse: {e}"));
    Simulation::new(&s).expect("scenario builds").run()
}

/// Jain's fairness index (Σx)² / (n·Σx²).
fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    sum * sum / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// Hosts 1 and 2 send to host 0 through one switch, 1 Gbps links of 25 µs, a 100-packet
/// drop-tail port; flow 2 opens at `second_start_s`. Goodput counts after `warmup_s`.
/// RTO_min is the DCTCP paper's tuned 10 ms: with the default 300 ms, one retransmission
/// lost in a burst of drops idles a flow for a tenth of the run and fairness over a few
/// seconds measures timeouts, not the congestion controller (NewReno as much as CUBIC).
fn two_flows(duration_s: f64, warmup_s: f64, second_start_s: f64) -> String {
    format!(
        r#"
        [sim]
        duration_s = {duration_s}
        warmup_s = {warmup_s}
        [topology]
        kind = "star"
        hosts = 3
        link = {{ rate_gbps = 1.0, delay_us = 25.0 }}
        [switch]
        buffer = {{ kind = "per_port", limit_packets = 100 }}
        aqm = {{ kind = "drop_tail" }}
        [tcp]
        cc = "cubic"
        rto_min_ms = 10.0
        [[flows]]
        src = 1
        dst = 0
        [[flows]]
        src = 2
        dst = 0
        start_s = {second_start_s}
        "#
    )
}

fn goodputs(r: &Results) -> Vec<f64> {
    r.flows.iter().map(|f| f.goodput_bps).collect()
}

#[test]
fn two_cubic_flows_converge_to_a_fair_share() {
    // 3 s; goodput over the last half. Both flows lose packets at the full port (CUBIC
    // reacts to loss only) and share the 0.95 Gbps of payload the link carries.
    let r = run(&two_flows(3.0, 1.5, 0.0));
    let g = goodputs(&r);
    assert!(r.flows.iter().all(|f| f.cc == "cubic" && f.fast_retransmits > 0), "{:?}", r.flows);
    assert!(jain(&g) >= 0.95, "Jain {} of {g:?}", jain(&g));
    assert!(g.iter().sum::<f64>() > 0.9e9, "{g:?}");
}

#[test]
fn a_late_cubic_flow_gets_its_share() {
    // The second flow opens at 1 s, against a flow that has the whole link; over the last
    // half of 4 s (from 2 s) they share it fairly.
    let r = run(&two_flows(4.0, 2.0, 1.0));
    let g = goodputs(&r);
    assert!(jain(&g) >= 0.95, "Jain {} of {g:?}", jain(&g));
    assert!(g.iter().sum::<f64>() > 0.9e9, "{g:?}");
}

#[test]
fn cubic_negotiates_ecn_only_when_asked() {
    // Over a DCTCP-style marking port (K = 20), CUBIC with `tcp.cubic.ecn` answers CE marks
    // (ECN-Echo, §4.6) and loses nothing; without it the marks are never requested.
    let marking = |ecn: bool| {
        two_flows(0.5, 0.25, 0.0).replace(r#"aqm = { kind = "drop_tail" }"#, r#"aqm = { kind = "threshold", k_packets = 20 }"#)
            + &format!("        [tcp.cubic]\n        ecn = {ecn}\n")
    };
    let with = run(&marking(true));
    assert!(
        with.flows.iter().all(|f| f.ecn_reductions > 0 && f.retransmits == 0),
        "{:?}",
        with.flows
    );
    let without = run(&marking(false));
    assert!(
        without.flows.iter().all(|f| f.ece_acks == 0 && f.retransmits > 0),
        "{:?}",
        without.flows
    );
}

#[test]
fn a_flow_can_run_cubic_beside_the_stacks_default() {
    // `cc` per flow: CUBIC beside NewReno (the scenario's `tcp.cc`) on the drop-tail port.
    let toml = two_flows(1.0, 0.5, 0.0).replace(r#"cc = "cubic""#, r#"cc = "newreno""#).replacen(
        "dst = 0\n",
        "dst = 0\n        cc = \"cubic\"\n",
        1,
    );
    let r = run(&toml);
    let ccs: Vec<&str> = r.flows.iter().map(|f| f.cc.as_str()).collect();
    assert_eq!(ccs, ["cubic", "newreno"]);
    assert!(r.flows.iter().all(|f| f.goodput_bps > 0.1e9), "{:?}", goodputs(&r));
}
