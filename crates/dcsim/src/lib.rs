//! dcsim: a packet-level simulator of datacenter transport.
//!
//! Layers, bottom up:
//! - [`units`]: picosecond `Time` and `Bytes` with checked arithmetic, line rates;
//!   [`ids`]: typed ids of ports, nodes, hosts and connections.
//! - [`sim::calendar`]: the event calendar, (time, sequence) ordered.
//! - [`net`]: packets, egress ports (buffer + AQM + link), topologies from a graph, routing
//!   with ECMP.
//! - [`tcp`]: connection ends (handshake, NewReno recovery, RTO, delayed ACKs, ECN),
//!   congestion control (NewReno, TCP-ECN, DCTCP, CUBIC) as controllers of the window.
//! - [`sim`]: the world (hosts, switches, connections) and the event loop.
//! - [`scenario`] in, [`results`] out.

pub mod error;
pub mod ids;
pub mod net;
pub mod results;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod units;

pub use error::ConfigError;
pub use results::Results;
pub use scenario::Scenario;
pub use sim::Simulation;

/// The names of a scenario's ports, in port order (`s0->h0`, ...), without running it: what
/// `measure.queue_ports`, `measure.trace_ports` and metrics may name.
pub fn port_names(scenario: &Scenario) -> Result<Vec<String>, ConfigError> {
    scenario.validate()?;
    sim::memory::check(scenario, sim::memory::Known::default())?;
    let layout = net::topology::layout::Layout::of(scenario)?;
    Ok(layout.ports.into_iter().map(|p| p.name).collect())
}

/// Parses, builds and runs a scenario given as JSON; returns the results as JSON.
pub fn run_json(scenario_json: &str) -> Result<String, ConfigError> {
    let scenario = Scenario::from_json(scenario_json)?;
    let mut sim = Simulation::new(&scenario)?;
    Ok(sim.run().to_json())
}
