//! A controller's pacing rate, as the host honours it: the data packets of a paced flow leave
//! its host spaced by their size at the rate (`Endpoint::pace_deadline()`, scheduled like the
//! RTO and delayed-ACK timers by `Simulation::after_endpoint`).

use super::Simulation;
use crate::scenario::Scenario;
use crate::units::Rate;

/// One 30-segment flow h1 → h0 on a 1 Gbps star, with an initial window of 100 segments so
/// the window never holds it; no transmit jitter and exact NIC clocks.
const FLOW: &str = r#"
[sim]
duration_s = 0.01
[topology]
kind = "star"
hosts = 3
link = { rate_gbps = 1.0, delay_us = 25.0 }
[host]
tx_jitter_us = 0.0
clock_ppm = 0.0
[tcp]
init_cwnd_segments = 100
[[flows]]
src = 1
dst = 0
bytes = 43800
[measure]
trace_flows = [0]
"#;

/// Times (s) at which flow 0's data packets finished leaving h1, with the sender's
/// controller pacing at `rate`.
fn data_departures(rate: Option<Rate>) -> Vec<f64> {
    let s = Scenario::from_toml(FLOW).expect("valid");
    let mut sim = Simulation::new(&s).expect("builds");
    sim.conns.get_mut(crate::ids::ConnId(0)).expect("flow 0 is open").ends[0]
        .cc_mut()
        .win
        .pacing = rate;
    let r = sim.run();
    let t = &r.trace;
    let departures: Vec<f64> = (0..t.t_s.len())
        .filter(|&i| t.event[i] == 0 && t.from_end[i] == 0 && t.len[i] > 0)
        .map(|i| t.t_s[i])
        .collect();
    assert_eq!(departures.len(), 30, "every segment once, none lost");
    departures
}

#[test]
fn paced_data_packets_leave_their_host_spaced_by_size_over_rate() {
    // 0.5 Gbps: a 1500-B packet (1460 B of data + 40 B of headers) every 1500·8/0.5e9 s =
    // 24 µs. The NIC (1 Gbps, 1538 B on the wire = 12.304 µs) is idle when each one is
    // released, so each leaves 12.304 µs after its release and the spacing is exactly 24 µs,
    // except that the first is released with the handshake's ACK (40 B + 38 B of framing =
    // 0.624 µs) ahead of it in the NIC: 24 − 0.624 = 23.376 µs from the first to the second.
    let paced = data_departures(Some(Rate::from_gbps(0.5)));
    assert!(
        (paced[1] - paced[0] - 23.376e-6).abs() < 1e-12,
        "first gap {} s",
        paced[1] - paced[0]
    );
    for pair in paced[1..].windows(2) {
        assert!((pair[1] - pair[0] - 24e-6).abs() < 1e-12, "gap {} s", pair[1] - pair[0]);
    }
    // Unpaced, the IW of 100 segments leaves back to back at the NIC's rate: 12.304 µs apart.
    let unpaced = data_departures(None);
    for pair in unpaced.windows(2) {
        assert!((pair[1] - pair[0] - 12.304e-6).abs() < 1e-12, "gap {} s", pair[1] - pair[0]);
    }
    // The first packet leaves at the same time either way: pacing delays only those after it.
    assert_eq!(paced[0], unpaced[0]);
}
