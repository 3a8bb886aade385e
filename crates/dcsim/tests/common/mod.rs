//! Scenarios and helpers shared by the integration test files (each file uses some of them).
#![allow(dead_code)]

use dcsim::results::PortStats;
use dcsim::{Results, Scenario, Simulation};

/// Runs a TOML scenario to its end, checking the engine's invariants after every event
/// (`sim.check_invariants`: a violation panics, naming it).
pub fn run(toml: &str) -> Results {
    let mut s = Scenario::from_toml(toml).unwrap_or_else(|e| panic!("scenario does not parse: {e}\n{toml}"));
    s.sim.check_invariants = true;
    Simulation::new(&s).expect("scenario builds").run()
}

/// The port named `name` (`node->peer`) and its index in `ports`.
pub fn port<'a>(r: &'a Results, name: &str) -> (usize, &'a PortStats) {
    r.ports
        .iter()
        .enumerate()
        .find(|(_, p)| p.name == name)
        .unwrap_or_else(|| panic!("no port {name}"))
}

/// DCTCP paper Fig. 1 / Fig. 13 setup, N = 2 senders h1, h2 → h0 at 1 Gbps, K = 20, m = 2.
pub const DCTCP_TWO_FLOWS: &str = r#"
        [sim]
        seed = 1
        duration_s = 0.3
        warmup_s = 0.1
        [topology]
        kind = "star"
        hosts = 3
        link = { rate_gbps = 1.0, delay_us = 25.0 }
        [switch.aqm]
        kind = "threshold"
        k_packets = 20
        [tcp]
        cc = "dctcp"
        delayed_ack_segments = 2
        [[flows]]
        src = 1
        dst = 0
        [[flows]]
        src = 2
        dst = 0
"#;
