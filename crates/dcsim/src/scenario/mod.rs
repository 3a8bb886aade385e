//! The scenario schema: what a TOML file or a Python dict may say.
//!
//! These serde types are the single source of truth for the scenario format; the JSON
//! Schema in `schema/scenario.schema.json` is generated from them (`Scenario::json_schema`).
//! Every field has a default that matches the DCTCP paper's 1 Gbps testbed unless noted.
//! Times and rates are plain numbers whose unit is in the field name (`_s`, `_us`, `_gbps`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::ConfigError;
pub use crate::tcp::cc::{cubic::CubicConfig, CcKind};

mod host;
mod ictcp;
/// Upper bounds of the scenario's numbers, each stated in its field's documentation. Times
/// are bounded so that any sum the engine forms (a start time, a timeout, a link delay, a
/// serialisation time) stays far below the 213 days that u64 picoseconds hold.
pub mod limits;
mod measure;
mod parse;
mod pinpoint;
pub mod profiles;
#[cfg(test)]
mod schema_agreement;
mod sim;
mod switch;
mod tcp;
mod topology;
mod traffic;
mod workload;
pub use host::HostConfig;
pub use ictcp::IctcpConfig;
pub(crate) use limits::{real, whole, Bound};
pub use measure::MeasureConfig;
use parse::{field_path, finite_floats, toml_syntax};
pub use profiles::StackProfile;
pub use sim::{SimConfig, Threads};
pub use switch::{
    AqmConfig, BufferConfig, ClassQueueConfig, ClassesConfig, ClassifyConfig, Ecmp, MarkAt, NonEctPolicy, SchedulerKind, SwitchConfig,
    SwitchPreset,
};
pub(crate) use tcp::check_rcv_buffer;
pub use tcp::{AckCounting, CwndValidation, DctcpReceiver, EctOnControl, IdleRestart, Recovery, SsthreshFrom, TcpConfig};
pub use topology::{GraphLink, LinkConfig, Topology};
pub use traffic::{DestinationRule, FlowArrival, SizeDist, TrafficSpec, MAX_CDF_POINTS};
pub use workload::{Arrival, FlowSpec, QuerySpec, UdpSpec};

/// One simulation: a topology, the switches' queues, the hosts' TCP, and the flows.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free-form name, copied into the results.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub sim: SimConfig,
    pub topology: Topology,
    #[serde(default)]
    pub switch: SwitchConfig,
    #[serde(default)]
    pub host: HostConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    /// ICTCP, the receiver-side incast congestion control, on the hosts it names.
    #[serde(default)]
    pub ictcp: IctcpConfig,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Partition/aggregate query workloads (DCTCP §2.1).
    #[serde(default)]
    pub queries: Vec<QuerySpec>,
    /// Open-loop flow generators: flows arriving by a random process, with sizes from a
    /// distribution (DCTCP §4.3's background traffic).
    #[serde(default)]
    pub traffic: Vec<TrafficSpec>,
    /// Constant-bit-rate UDP sources (ICTCP §VII-C's 200 Mb/s background), and echoed
    /// probes that measure round-trip latency (a ping).
    #[serde(default)]
    pub udp: Vec<UdpSpec>,
    #[serde(default)]
    pub measure: MeasureConfig,
}

impl Scenario {
    /// Parse TOML text; errors name the field path and the reason.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| ConfigError::new(String::new(), toml_syntax(text, &e)))?;
        // JSON has no NaN or infinity: refuse them here, where the field is still known.
        table.iter().try_for_each(|(k, v)| finite_floats(v, &mut k.clone()))?;
        let doc = serde_json::to_value(table).map_err(|e| ConfigError::new(String::new(), e.to_string()))?;
        Self::from_document(doc)
    }

    /// Parse JSON text (what the Python bindings pass).
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let doc: serde_json::Value = serde_json::from_str(text).map_err(|e| ConfigError::new(String::new(), e.to_string()))?;
        Self::from_document(doc)
    }

    /// The typed reading of a parsed document, after its stack profile filled in `tcp`.
    fn from_document(mut doc: serde_json::Value) -> Result<Self, ConfigError> {
        profiles::apply(&mut doc);
        let scenario: Scenario = serde_path_to_error::deserialize(&doc).map_err(|e| {
            let path = field_path(e.path());
            pinpoint::pinpoint(&doc, e.path(), &path).unwrap_or_else(|| ConfigError::new(path, e.into_inner().to_string()))
        })?;
        scenario.validate()?;
        Ok(scenario)
    }

    /// The JSON Schema of the scenario format.
    pub fn json_schema() -> String {
        let schema = schemars::schema_for!(Scenario);
        serde_json::to_string_pretty(&schema).expect("schema serialises")
    }

    /// Number of hosts the topology creates.
    pub fn host_count(&self) -> u32 {
        self.topology.host_count()
    }

    /// Checks serde cannot express: ranges, cross references. Every number has an upper
    /// bound (`limits`), so no time or size the engine derives from it can overflow.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.sim.check()?;
        self.topology.check()?;
        self.topology.check_links()?;
        self.switch.check(&self.tcp, self.packet_classes())?;
        self.host.check()?;
        self.tcp.check()?;
        let hosts = self.host_count();
        let mss = self.tcp.segment_bytes();
        self.ictcp.check(hosts)?;
        workload::check_flows(&self.flows, hosts, mss)?;
        workload::check_udp(&self.udp, hosts)?;
        traffic::check_traffic(&self.traffic, hosts, mss)?;
        workload::check_queries(&self.queries, hosts, mss)?;
        self.measure.check(&self.flows, &self.queries)
    }

    /// The traffic class each source's packets carry, with its field: flows, query
    /// workloads, generators, UDP sources.
    fn packet_classes(&self) -> impl Iterator<Item = (String, u8)> + '_ {
        let flows = self.flows.iter().enumerate().map(|(i, f)| (format!("flows[{i}].class"), f.class));
        let queries = self
            .queries
            .iter()
            .enumerate()
            .map(|(i, q)| (format!("queries[{i}].class"), q.class));
        let traffic = self
            .traffic
            .iter()
            .enumerate()
            .map(|(i, g)| (format!("traffic[{i}].class"), g.class));
        let udp = self.udp.iter().enumerate().map(|(i, u)| (format!("udp[{i}].class"), u.class));
        flows.chain(queries).chain(traffic).chain(udp)
    }
}

/// Refuses a host the network does not have (`hosts`: hosts of the network).
fn check_host(field: &str, h: u32, hosts: u32) -> Result<(), ConfigError> {
    if h >= hosts {
        return Err(ConfigError::new(
            field.to_string(),
            format!("host {h} does not exist (hosts are 0..{})", hosts - 1),
        ));
    }
    Ok(())
}

fn default_true() -> bool {
    true
}
