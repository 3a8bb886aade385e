//! What a scenario will need in memory, estimated from its counts before anything is built,
//! so that a scenario too large for the machine is refused with the figure instead of
//! exhausting it (`sim.memory_limit_gb`).

use std::mem::size_of;

use crate::error::ConfigError;
use crate::net::port::Port;
use crate::net::qdisc::{ClassQueue, Discipline};
use crate::net::rx_moderation::RxModeration;
use crate::net::topology::Node;
use crate::results::{ClassStats, FlowStats, PortStats, UdpStats};
use crate::scenario::Scenario;
use crate::tcp::ictcp::Interface;

use super::conns::FlowRecord;
use super::udp::UdpSource;
use super::Conn;

/// Heap bytes a connection holds beyond its struct in a busy run (out-of-order ranges, SACK
/// scoreboard, NIC bookkeeping, event counters, each made at its first use): an allowance,
/// not a bound.
const CONN_HEAP: u64 = 512;
/// Bytes of one queue-sample row (port, time, packets, bytes) and of one flow-sample row.
const QUEUE_SAMPLE: u64 = 4 + 8 + 4 + 8;
const FLOW_SAMPLE: u64 = 4 + 8 + 8 + 8 + 8 + 8 + 4 * 8;
/// Bytes of one `probes` row (source, send time, round trip).
const PROBE_SAMPLE: u64 = 4 + 8 + 8;
/// A node or port name on the heap, bytes.
const NAME: u64 = 24;
/// Heap a port holds beyond the structs counted, by the end of a run (its occupancy
/// histogram, the results' names and growth of their vectors): measured once, a
/// 100,000-host star (200,000 ports) peaks at 445 MB after its run, 2.2 kB a port, of which
/// the structs account for 1.0 kB.
const PORT_HEAP: u64 = 1_200;
/// What Python adds for each port's and each connection's row when `dcsim run` summarises a
/// run (summary.json: a dict a row, made JSON-ready, then streamed): measured once, that
/// star's `dcsim run` peaks 270 MB above `dcsim.run` alone, 1.35 kB a port; 100,000 flows,
/// 90 MB.
const PYTHON_PORT_ROW: u64 = 1_400;
const PYTHON_CONN_ROW: u64 = 1_000;

/// Who takes a run's results: a Rust caller keeps the engine's `Results`; Python builds its
/// tables and `dcsim run`'s summary from them, a second copy of every port's and flow's row.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Consumer {
    #[default]
    Rust,
    Python,
}

/// One part of the estimate: the scenario field it comes from, what it is, and bytes.
#[derive(Debug)]
pub struct Part {
    pub field: &'static str,
    pub what: String,
    pub bytes: u64,
}

/// What is known of a run beyond its scenario's counts once part of it is built.
#[derive(Debug, Default, Clone, Copy)]
pub struct Known {
    /// The ports sampled.
    pub sampled_ports: Option<u64>,
    /// The flows the traffic generators are expected to start.
    pub generated_flows: f64,
    pub consumer: Consumer,
}

/// The memory a run of `s` is estimated to need, by part (the network before it is built,
/// connections, recorded time series).
pub fn estimate(s: &Scenario, known: Known) -> Vec<Part> {
    let sampled_ports = known.sampled_ports;
    let size = s.topology.size();
    let ports = size.ports();
    let per_host = size_of::<Node>() as u64
        + NAME
        + 4 * 4
        + size_of::<Vec<(u32, u8)>>() as u64
        + size_of::<Option<u64>>() as u64
        + size_of::<Option<RxModeration>>() as u64
        + size_of::<Option<Interface>>() as u64;
    let leaves = size.switches.min(size.hosts);
    let python = known.consumer == Consumer::Python;
    let mut per_port = size_of::<Port>() as u64 + NAME + size_of::<PortStats>() as u64 + NAME * 3 + PORT_HEAP;
    if let Some(c) = &s.switch.classes {
        // Every switch port's class queues and their results rows (an estimate per port).
        let n = c.queues.len() as u64;
        per_port += size_of::<Discipline>() as u64 + n * (size_of::<ClassQueue>() + size_of::<ClassStats>()) as u64;
    }
    let one_copy =
        size.hosts * per_host + size.switches * (size_of::<Node>() as u64 + NAME + leaves * 4) + ports * per_port + size.links * 64;
    let mut network = one_copy;
    if s.measure.ideal_fct && (!s.traffic.is_empty() || s.flows.iter().any(|f| f.bytes.is_some())) {
        network = network.saturating_mul(2); // a second, idle copy to run flows alone
    }
    // Python takes the results of one copy only.
    if python {
        network = network.saturating_add(ports.saturating_mul(PYTHON_PORT_ROW));
    }
    let one_shot: u64 = s
        .queries
        .iter()
        .filter(|q| !q.persistent)
        .map(|q| q.servers.len() as u64 * q.rounds as u64)
        .sum();
    let persistent: u64 = s.queries.iter().filter(|q| q.persistent).map(|q| q.servers.len() as u64).sum();
    // Generated flows: their expected count, and each holds a record once it has ended.
    let generated = known.generated_flows.min(u64::MAX as f64) as u64;
    let conns = (s.flows.len() as u64 + persistent + one_shot).saturating_add(generated);
    // A connection's state lives while it is open; its record and its row of `flows` stay.
    let open = s.flows.len() as u64
        + persistent
        + s.queries
            .iter()
            .filter(|q| !q.persistent)
            .map(|q| q.servers.len() as u64)
            .sum::<u64>();
    let per_conn = (size_of::<FlowRecord>() + size_of::<FlowStats>()) as u64 + if python { PYTHON_CONN_ROW } else { 0 };
    let per_open = size_of::<Conn>() as u64 + CONN_HEAP;
    let window_s = s.sim.duration_s - s.sim.warmup_s;
    let samples = |every_us: f64| {
        if every_us > 0.0 {
            (window_s * 1e6 / every_us).ceil() as u64 + 1
        } else {
            0
        }
    };
    // Each echoing UDP source records one round trip per packet it sends in the run.
    let echoes: f64 = s
        .udp
        .iter()
        .filter(|u| u.echo)
        .map(|u| {
            let from = u.start_s.min(s.sim.duration_s);
            let to = u.stop_s.unwrap_or(s.sim.duration_s).min(s.sim.duration_s);
            (to - from).max(0.0) * u.rate_gbps * 1e9 / (u.packet_bytes as f64 * 8.0) + 1.0
        })
        .sum();
    // A network a parallel run cuts is copied per partition; its connections' copies stay.
    let cut_parts = super::parallel::partitions_of(s) as u64;
    let switch_ports = ports.saturating_sub(size.hosts);
    let sampled = sampled_ports.unwrap_or(if s.measure.queue_ports.is_empty() {
        switch_ports
    } else {
        s.measure.queue_ports.len() as u64
    });
    vec![
        Part {
            field: "topology",
            what: format!(
                "{} hosts, {} switches, {} ports{}",
                size.hosts,
                size.switches,
                ports,
                if python { " with their results in Python" } else { "" }
            ),
            bytes: network,
        },
        Part {
            field: if generated > one_shot.max(s.flows.len() as u64) {
                "traffic"
            } else if one_shot > s.flows.len() as u64 {
                "queries"
            } else {
                "flows"
            },
            what: format!("{conns} connections, {open} open at once"),
            bytes: conns.saturating_mul(per_conn).saturating_add(open.saturating_mul(per_open)),
        },
        Part {
            field: "measure.queue_sample_us",
            what: format!("queue samples of {sampled} ports"),
            bytes: sampled
                .saturating_mul(samples(s.measure.queue_sample_us))
                .saturating_mul(QUEUE_SAMPLE),
        },
        Part {
            field: "measure.flow_sample_us",
            what: format!("flow samples of {conns} connections"),
            bytes: conns.saturating_mul(samples(s.measure.flow_sample_us)).saturating_mul(FLOW_SAMPLE),
        },
        Part {
            field: "sim.partition",
            what: format!("{cut_parts} partition copies of the network, and connections kept to the end (a cut network; sim.partition = false keeps it whole)"),
            bytes: if cut_parts > 1 {
                one_copy.saturating_mul(cut_parts).saturating_add(conns.saturating_mul(2 * per_open))
            } else {
                0
            },
        },
        Part {
            field: "udp",
            what: format!("{echoes:.0} echo round trips of {} UDP sources", s.udp.len()),
            bytes: (echoes * PROBE_SAMPLE as f64).min(u64::MAX as f64) as u64
                + s.udp.len() as u64 * (size_of::<UdpSource>() + size_of::<UdpStats>()) as u64,
        },
    ]
}

/// Refuses a scenario whose estimate is above `sim.memory_limit_gb`, naming the largest part.
pub fn check(s: &Scenario, known: Known) -> Result<(), ConfigError> {
    let parts = estimate(s, known);
    let total: u64 = parts.iter().map(|p| p.bytes).fold(0, u64::saturating_add);
    let limit = s.sim.memory_limit_gb * 1e9;
    if (total as f64) <= limit {
        return Ok(());
    }
    let largest = parts.iter().max_by_key(|p| p.bytes).expect("four parts");
    let detail: Vec<String> = parts
        .iter()
        .filter(|p| p.bytes > 0)
        .map(|p| format!("{}: {}", p.what, human(p.bytes)))
        .collect();
    Err(ConfigError::new(
        largest.field.to_string(),
        format!(
            "the run would need about {} of memory ({}), above the limit of {} (sim.memory_limit_gb, or dcsim run --memory-limit-gb)",
            human(total),
            detail.join("; "),
            human(limit as u64)
        ),
    ))
}

/// Bytes in decimal units, three significant digits.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    for (unit, scale) in [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)] {
        if b >= scale {
            return format!("{:.3} {unit}", b / scale).replace(".000", "");
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes() {
        assert_eq!(human(999), "999 B");
        assert_eq!(human(1500), "1.500 kB");
        assert_eq!(human(8_000_000_000), "8 GB");
        assert_eq!(human(96_312_000_000_000), "96.312 TB");
    }
}
