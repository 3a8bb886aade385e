//! `[measure]`: what the run records besides the always-on counters.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{limits, FlowSpec, QuerySpec};
use crate::error::ConfigError;

/// The shortest sampling interval, µs, of a series that is on: 1 ns.
const MIN_SAMPLE_US: f64 = 0.001;

/// What to record besides the always-on counters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MeasureConfig {
    /// Queue-length time series of the sampled ports (`queue_ports`), one sample per
    /// interval, µs (0 = off).
    #[schemars(range(min = 0.0, max = "limits::MAX_SAMPLE_US"))]
    pub queue_sample_us: f64,
    /// Ports to sample, by name (`s0->h0`, `*` a wildcard); empty = the switch ports on the
    /// paths data takes (every switch port when traffic generators pick the hosts).
    pub queue_ports: Vec<String>,
    /// Per-flow time series (delivered bytes, cwnd, DCTCP alpha) every interval, µs (0 = off).
    #[schemars(range(min = 0.0, max = "limits::MAX_SAMPLE_US"))]
    pub flow_sample_us: f64,
    /// Ports whose packets are traced, by name (`s0->h0`): each packet leaving the port,
    /// and each it refuses (`dcsim run --trace`).
    pub trace_ports: Vec<String>,
    /// Flows (indices into `flows`) whose packets are traced at their sender's host: what
    /// it sends and what it receives.
    pub trace_flows: Vec<u32>,
    /// Query workloads (indices into `queries`, persistent ones) whose connections are traced
    /// at each server, their data sender: the responses it sends, and the requests and ACKs
    /// it receives (DCTCP Fig. 9's "RTT+Queue" is a response's send to its ACK).
    pub trace_queries: Vec<u32>,
    /// Each finished flow's ideal completion time (`flows.ideal_fct_s`): the time the same
    /// flow takes alone on the idle network, found by running it so; `slowdown` is its
    /// completion time over that. Costs about one more simulation of each finite flow.
    pub ideal_fct: bool,
}

impl Default for MeasureConfig {
    fn default() -> Self {
        Self {
            queue_sample_us: 1000.0,
            queue_ports: Vec::new(),
            flow_sample_us: 0.0,
            trace_ports: Vec::new(),
            trace_flows: Vec::new(),
            trace_queries: Vec::new(),
            ideal_fct: true,
        }
    }
}

impl MeasureConfig {
    /// Sampling intervals, and the traced flows and query workloads against those listed.
    pub(super) fn check(&self, flows: &[FlowSpec], queries: &[QuerySpec]) -> Result<(), ConfigError> {
        use limits::*;
        let err = |field: &str, reason: String| Err(ConfigError::new(field.to_string(), reason));
        for (name, v) in [
            ("measure.queue_sample_us", self.queue_sample_us),
            ("measure.flow_sample_us", self.flow_sample_us),
        ] {
            if !(v.is_finite() && (v == 0.0 || (MIN_SAMPLE_US..=MAX_SAMPLE_US).contains(&v))) {
                return err(
                    name,
                    format!("must be 0 (off) or in [{MIN_SAMPLE_US}, {MAX_SAMPLE_US}] µs, got {v}"),
                );
            }
        }
        for (i, &f) in self.trace_flows.iter().enumerate() {
            if f as usize >= flows.len() {
                return err(
                    &format!("measure.trace_flows[{i}]"),
                    match flows.len() {
                        0 => format!("flow {f} does not exist (the scenario has no flows)"),
                        1 => format!("flow {f} does not exist (the only flow is 0)"),
                        n => format!("flow {f} does not exist (flows are 0..{})", n - 1),
                    },
                );
            }
        }
        for (i, &w) in self.trace_queries.iter().enumerate() {
            let field = format!("measure.trace_queries[{i}]");
            match queries.get(w as usize) {
                None => {
                    return err(
                        &field,
                        match queries.len() {
                            0 => format!("query workload {w} does not exist (the scenario has no queries)"),
                            1 => format!("query workload {w} does not exist (the only one is 0)"),
                            n => format!("query workload {w} does not exist (workloads are 0..{})", n - 1),
                        },
                    )
                }
                Some(q) if !q.persistent => {
                    return err(
                        &field,
                        format!(
                            "query workload {w} opens a new connection per request; only persistent \
                             connections can be traced"
                        ),
                    )
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}
