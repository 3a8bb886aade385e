//! The published JSON Schema and the checks agree on every bound, field by field. Each base
//! scenario (the examples, and small ones below that reach every `kind` and every optional
//! field) is resolved with every default present and walked together with the schema; every
//! number whose schema has a bound is set just past it, which the checks must refuse naming
//! that field, and exactly at it, where no refusal may name the field. A check that departs
//! from its bound for a reason the schema cannot state (a minimum it excludes, another
//! field's value) is listed in `DEPARTURES` with the reason, and must still depart, so that a
//! fixed one leaves the list. Every bounded field and every variant of a tagged table must be
//! reached by some base.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use serde_json::{Map, Value};

use super::{pinpoint, Scenario};
use crate::error::ConfigError;
use crate::sim::{memory::Consumer, Simulation};

/// Small scenarios that reach what the examples do not: every topology, buffer, AQM,
/// classifier, query arrival, flow size, flow arrival and destination kind, and every
/// optional number set.
const BASES: [(&str, &str); 6] = [
    (
        "dumbbell, shared buffer, RED, ICTCP, every optional field of flows, queries and UDP",
        r#"
        [sim]
        duration_s = 0.01
        [topology]
        kind = "dumbbell"
        left = 3
        right = 3
        host_link = { rate_gbps = 1.0, delay_us = 5.0, buffer_packets = 100, buffer_bytes = 150000 }
        core_link = { rate_gbps = 10.0, delay_us = 5.0 }
        [switch.buffer]
        kind = "shared"
        total_bytes = 1000000
        alpha = 0.5
        limit_packets = 500
        [switch.aqm]
        kind = "red"
        min_th = 10.0
        max_th = 30.0
        [tcp]
        mss = 1000
        [ictcp]
        hosts = [0, 1]
        [measure]
        flow_sample_us = 100.0
        trace_flows = [0]
        trace_queries = [0]
        [[flows]]
        src = 3
        dst = 0
        start_s = 0.001
        start_jitter_us = 10.0
        stop_s = 0.005
        bytes = 100000
        rcv_buffer_bytes = 65536
        class = 1
        [[queries]]
        client = 0
        servers = [3, 4, 5]
        response_bytes = 20000
        rounds = 3
        start_s = 0.001
        stop_s = 0.008
        response_jitter_us = 10.0
        rcv_buffer_bytes = 65536
        [[udp]]
        src = 4
        dst = 1
        rate_gbps = 0.1
        packet_bytes = 1000
        start_s = 0.001
        stop_s = 0.005
        echo = true
        "#,
    ),
    (
        "multi-bottleneck, preset buffer, PI, MTU, Poisson queries, fixed sizes, mixed destinations",
        r#"
        [sim]
        duration_s = 0.01
        [topology]
        kind = "multi_bottleneck"
        s1 = 2
        s2 = 2
        s3 = 2
        r2 = 2
        [switch.buffer]
        kind = "preset"
        name = "triumph"
        [switch.aqm]
        kind = "pi"
        [tcp]
        mtu_bytes = 9000
        [[queries]]
        client = 6
        servers = [0, 1, 4]
        response_bytes = 2000
        rounds = 2
        arrival = { kind = "poisson", mean_interval_ms = 1.0 }
        [[traffic]]
        sources = [0, 1]
        destinations = [6, 7, 8]
        size = { kind = "fixed", bytes = 10000 }
        scale_above_bytes = 5000
        scale_factor = 2.0
        arrival = { kind = "poisson", mean_interval_ms = 1.0 }
        destination = { kind = "mixed", across_racks = 0.5 }
        start_s = 0.001
        stop_s = 0.008
        rcv_buffer_bytes = 100000
        class = 2
        "#,
    ),
    (
        "rack, threshold, CDF sizes and gaps, data-mining sizes, in-rack and cross-rack destinations",
        r#"
        [sim]
        duration_s = 0.01
        [topology]
        kind = "rack"
        hosts = 4
        uplinks = 2
        [switch.aqm]
        kind = "threshold"
        k_packets = 20
        [[traffic]]
        size = { kind = "cdf", points = [[1000.0, 0.5], [10000.0, 1.0]] }
        arrival = { kind = "cdf", points = [[0.5, 0.5], [2.0, 1.0]], load = 0.3 }
        destination = { kind = "across_racks" }
        [[traffic]]
        sources = [0, 1, 2, 3]
        size = { kind = "data_mining" }
        arrival = { kind = "poisson", load = 0.2 }
        destination = { kind = "in_rack" }
        "#,
    ),
    (
        "leaf-spine, per-port buffer, eight class queues by packet type with every optional field",
        r#"
        [sim]
        duration_s = 0.01
        [topology]
        kind = "leaf_spine"
        leaves = 2
        spines = 2
        hosts_per_leaf = 2
        oversubscription = 2.0
        [switch.buffer]
        kind = "per_port"
        limit_packets = 1000
        limit_bytes = 1000000
        [switch.classes]
        quantum_bytes = 3000
        classify = { by = "packet_type", syn = 0, ack = 1, data = 2 }
        queues = [
            { weight = 2, limit_packets = 100, limit_bytes = 150000, alpha = 1.0, aqm = { kind = "threshold", k_packets = 10 } },
            {}, {}, {}, {}, {}, {}, {},
        ]
        [[flows]]
        src = 0
        dst = 3
        bytes = 100000
        "#,
    ),
    (
        "fat-tree with every tier's link, eight class queues by ECN",
        r#"
        [sim]
        duration_s = 0.01
        [topology]
        kind = "fat_tree"
        k = 4
        host_link = { rate_gbps = 1.0 }
        edge_link = { rate_gbps = 10.0 }
        core_link = { rate_gbps = 10.0 }
        [switch.classes]
        classify = { by = "ecn", ect = 0, not_ect = 1 }
        queues = [{}, {}, {}, {}, {}, {}, {}, {}]
        [[flows]]
        src = 0
        dst = 15
        "#,
    ),
    (
        "graph with every optional link field, eight class queues by flow, a class on every source",
        r#"
        [sim]
        duration_s = 0.01
        [topology]
        kind = "graph"
        hosts = 3
        switches = ["a", "b"]
        link = { rate_gbps = 1.0, buffer_packets = 100 }
        links = [
            { a = "h0", b = "a", rate_gbps = 1.0, delay_us = 2.0, framing_bytes = 38, buffer_packets = 50, buffer_bytes = 100000 },
            { a = "h1", b = "a" },
            { a = "h2", b = "b" },
            { a = "a", b = "b" },
        ]
        [switch.classes]
        classify = { by = "flow" }
        queues = [{}, {}, {}, {}, {}, {}, {}, {}]
        [[flows]]
        src = 0
        dst = 2
        class = 3
        [[queries]]
        client = 0
        servers = [1, 2]
        response_bytes = 2000
        rounds = 1
        class = 4
        [[udp]]
        src = 1
        dst = 2
        rate_gbps = 0.01
        class = 5
        [[traffic]]
        size = { kind = "web_search" }
        arrival = { kind = "poisson", load = 0.1 }
        class = 6
        "#,
    ),
];

/// The examples of `scenarios/`, by file name, as documents (a CDF `file` read into its
/// `points`, as the Python front end does).
fn examples() -> Vec<(String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files: Vec<_> = std::fs::read_dir(root.join("examples"))
        .expect("scenarios/examples")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    // The base of the sweeps (the other files there are sweep specifications).
    files.push(root.join("sweeps/dctcp-2flows-short.toml"));
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a scenario file");
            let mut doc = document(&text);
            for generator in doc.get_mut("traffic").and_then(Value::as_array_mut).into_iter().flatten() {
                for part in ["size", "arrival"] {
                    let Some(table) = generator.get_mut(part).and_then(Value::as_object_mut) else {
                        continue;
                    };
                    if let Some(file) = table.get("file").and_then(Value::as_str) {
                        let csv = std::fs::read_to_string(path.parent().expect("a folder").join(file)).expect("a CDF file");
                        let points = crate::sim::traffic::parse_csv(&csv).expect("a CSV of points");
                        table.insert("points".into(), serde_json::to_value(points).expect("points"));
                    }
                }
            }
            (path.file_name().expect("a file name").to_string_lossy().into_owned(), doc)
        })
        .collect()
}

/// A TOML scenario as the JSON document the engine reads.
fn document(toml_text: &str) -> Value {
    let table: toml::Table = toml::from_str(toml_text).expect("TOML");
    serde_json::to_value(table).expect("a JSON document")
}

/// What the checks say of a scenario document: its first refusal, if any (the reading and
/// `Scenario::validate`, then everything a run checks before it starts).
fn refusal(doc: &Value) -> Option<ConfigError> {
    match Scenario::from_json(&doc.to_string()) {
        Err(e) => Some(e),
        Ok(s) => Simulation::check(&s, Consumer::Rust).err(),
    }
}

/// The scenario's schema, with a name for each bounded number's schema and each variant of a
/// tagged table (`Topology[fat_tree].k`, `AqmConfig[pi]`), by the address of its node.
struct Schema<'a> {
    defs: &'a Map<String, Value>,
    bounded: HashMap<*const Value, String>,
    variants: HashMap<*const Value, String>,
}

const BOUNDS: [&str; 4] = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

impl<'a> Schema<'a> {
    fn new(root: &'a Value) -> Self {
        let defs = root["definitions"].as_object().expect("definitions");
        let mut schema = Schema {
            defs,
            bounded: HashMap::new(),
            variants: HashMap::new(),
        };
        schema.name_table(root, "Scenario");
        for (name, def) in defs {
            schema.name_table(def, name);
        }
        schema
    }

    /// Names the bounded numbers of a table's fields and its variants.
    fn name_table(&mut self, s: &'a Value, name: &str) {
        for (key, field) in s.get("properties").and_then(Value::as_object).into_iter().flatten() {
            self.name_field(field, &format!("{name}.{key}"));
        }
        for variant in s.get("oneOf").and_then(Value::as_array).into_iter().flatten() {
            if let Some((_, value)) = tag(variant) {
                let name = format!("{name}[{}]", value.as_str().unwrap_or_default());
                self.variants.insert(variant, name.clone());
                self.name_table(variant, &name);
            }
        }
    }

    /// Names a field's schema if it is a bounded number, and a list's items.
    fn name_field(&mut self, s: &'a Value, name: &str) {
        if BOUNDS.iter().any(|b| s.get(*b).is_some()) {
            self.bounded.insert(s, name.to_string());
        }
        if let Some(items) = s.get("items").filter(|i| i.is_object()) {
            self.name_field(items, &format!("{name}[]"));
        }
    }

    /// The schema `s` stands for at `v` (`pinpoint::resolve`, and a variant chosen by any tag,
    /// `by` as well as `kind`); the variant's name goes into `kinds`.
    fn resolve(&self, mut s: &'a Value, v: &Value, kinds: &mut BTreeSet<String>) -> &'a Value {
        loop {
            s = pinpoint::resolve(self.defs, s, v);
            let variants = s.get("oneOf").and_then(Value::as_array).into_iter().flatten();
            match variants.into_iter().find(|x| tag(x).is_some_and(|(k, t)| v.get(k) == Some(t))) {
                Some(x) => s = x,
                None => break,
            }
        }
        if let Some(name) = self.variants.get(&std::ptr::from_ref(s)) {
            kinds.insert(name.clone());
        }
        s
    }

    /// Every bounded number of `v` (the schema `s` at path `field`, JSON pointer `pointer`).
    fn leaves(&self, s: &'a Value, v: &Value, field: &str, pointer: &str, out: &mut Vec<Leaf<'a>>, kinds: &mut BTreeSet<String>) {
        let s = self.resolve(s, v, kinds);
        match v {
            Value::Number(_) => {
                if let Some(name) = self.bounded.get(&std::ptr::from_ref(s)) {
                    out.push(Leaf {
                        name: name.clone(),
                        field: field.to_string(),
                        pointer: pointer.to_string(),
                        schema: s,
                    });
                }
            }
            Value::Object(table) => {
                for (key, x) in table {
                    if let Some(p) = s.get("properties").and_then(|p| p.get(key)) {
                        self.leaves(p, x, &pinpoint::child(field, key), &format!("{pointer}/{key}"), out, kinds);
                    }
                }
            }
            Value::Array(list) => {
                if let Some(items) = s.get("items").filter(|i| i.is_object()) {
                    for (i, x) in list.iter().enumerate() {
                        self.leaves(items, x, &format!("{field}[{i}]"), &format!("{pointer}/{i}"), out, kinds);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The tag of a variant of a tagged table, and its value: (`kind`, "fat_tree").
fn tag(variant: &Value) -> Option<(&str, &Value)> {
    let properties = variant.get("properties")?.as_object()?;
    properties.iter().find_map(|(k, p)| match p.get("enum")?.as_array()?.as_slice() {
        [value] => Some((k.as_str(), value)),
        _ => None,
    })
}

/// A bounded number of a base scenario.
struct Leaf<'a> {
    /// Its schema's name (`LinkConfig.rate_gbps`).
    name: String,
    /// Its path as refusals name it (`topology.link.rate_gbps`).
    field: String,
    /// Its JSON pointer in the resolved scenario (`/topology/link/rate_gbps`).
    pointer: String,
    /// Its schema, with the bounds.
    schema: &'a Value,
}

/// The values just past a bound and at its edge inside: (past, inside). `upper`: a maximum.
/// A real is moved by the fewest steps of an f64 that still read back, from JSON text, as
/// a different number (serde_json's reading is not exact to the last bit).
fn probes(bound: f64, exclusive: bool, upper: bool, integer: bool) -> (Value, Value) {
    let step = |x: f64, up: bool| {
        if integer {
            return if up { x + 1.0 } else { x - 1.0 };
        }
        let mut y = x;
        loop {
            y = if up { y.next_up() } else { y.next_down() };
            let read: f64 = serde_json::from_str(&Value::from(y).to_string()).expect("a number");
            if read != x {
                return read;
            }
        }
    };
    let outward = |x: f64| step(x, upper);
    let inward = |x: f64| step(x, !upper);
    let (past, inside) = if exclusive {
        (bound, inward(bound))
    } else {
        (outward(bound), bound)
    };
    let number = |x: f64| {
        if integer {
            assert!(x.fract() == 0.0 && x.abs() < 2f64.powi(53), "an integer bound {x}");
            if x < 0.0 {
                Value::from(x as i64)
            } else {
                Value::from(x as u64)
            }
        } else {
            Value::from(x)
        }
    };
    (number(past), number(inside))
}

/// How a check departs from its field's schema bound.
#[derive(Clone, Copy)]
enum Departure {
    /// The bound is a minimum the check excludes: the bound is refused, the next number in
    /// is taken.
    Excludes,
    /// At the bound the value may be refused, naming it, for another field's sake.
    Within,
    /// Past the bound the refusal names this other field.
    NamedAt(&'static str),
}

const INCLUSIVE: &str = "schemars' `range` states inclusive bounds only";
const SEGMENT: &str = "a receive buffer holds at least one segment (tcp.mss)";
const PACKET: &str = "a switch buffer holds at least one full packet (tcp.mss + tcp.header_bytes)";
const HOST: &str = "a host of this network; the schema's bound is that of the largest network";
const AFTER_START: &str = "a stop time comes after its start_s";
const TOTAL: &str = "hosts in all: at most MAX_HOSTS, refused naming the last count";
const CLASS: &str = "a class the ports have a queue for";
const CLASSIFIER: &str = "the classifier is tagged by `by`, not `kind`: a type error names its table";

/// Every departure of a check from its schema bound: (schema name, bound, departure, why).
/// Each must happen in some base scenario, so that one that is fixed leaves this list.
#[rustfmt::skip]
const DEPARTURES: [(&str, &str, Departure, &str); 60] = [
    ("TcpConfig.rto_min_ms", "minimum", Departure::Excludes, INCLUSIVE),
    ("TcpConfig.rto_initial_ms", "minimum", Departure::Excludes, INCLUSIVE),
    ("TcpConfig.rto_max_ms", "minimum", Departure::Excludes, INCLUSIVE),
    ("TcpConfig.delayed_ack_timeout_ms", "minimum", Departure::Excludes, INCLUSIVE),
    ("TcpConfig.dctcp_g", "minimum", Departure::Excludes, INCLUSIVE),
    ("CubicConfig.c", "minimum", Departure::Excludes, INCLUSIVE),
    ("CubicConfig.beta", "minimum", Departure::Excludes, INCLUSIVE),
    ("IctcpConfig.rtt_limit_ms", "minimum", Departure::Excludes, INCLUSIVE),
    ("IctcpConfig.initial_subslot_us", "minimum", Departure::Excludes, INCLUSIVE),
    ("IctcpConfig.timestamp_tick_ns", "minimum", Departure::Excludes, INCLUSIVE),
    ("FlowArrival[poisson].load", "minimum", Departure::Excludes, INCLUSIVE),
    ("FlowArrival[cdf].load", "minimum", Departure::Excludes, INCLUSIVE),
    ("FlowArrival[poisson].mean_interval_ms", "minimum", Departure::Excludes, INCLUSIVE),
    ("Arrival[poisson].mean_interval_ms", "minimum", Departure::Excludes, INCLUSIVE),
    ("BufferConfig[shared].alpha", "minimum", Departure::Excludes, INCLUSIVE),
    ("ClassQueueConfig.alpha", "minimum", Departure::Excludes, INCLUSIVE),
    ("AqmConfig[red].max_p", "minimum", Departure::Excludes, INCLUSIVE),
    ("Topology[dumbbell].left", "minimum", Departure::NamedAt("topology"), "one check of both sides names the topology"),
    ("Topology[dumbbell].right", "minimum", Departure::NamedAt("topology"), "one check of both sides names the topology"),
    ("Topology[rack].hosts", "maximum", Departure::Within, TOTAL),
    ("Topology[dumbbell].right", "maximum", Departure::Within, TOTAL),
    ("Topology[multi_bottleneck].r2", "maximum", Departure::Within, TOTAL),
    ("Topology[leaf_spine].hosts_per_leaf", "maximum", Departure::Within, TOTAL),
    ("Topology[rack].uplinks", "maximum", Departure::NamedAt("topology.hosts"), TOTAL),
    ("Topology[dumbbell].left", "maximum", Departure::NamedAt("topology.right"), TOTAL),
    ("Topology[multi_bottleneck].s1", "maximum", Departure::NamedAt("topology.r2"), TOTAL),
    ("Topology[multi_bottleneck].s2", "maximum", Departure::NamedAt("topology.r2"), TOTAL),
    ("Topology[multi_bottleneck].s3", "maximum", Departure::NamedAt("topology.r2"), TOTAL),
    ("Topology[leaf_spine].leaves", "maximum", Departure::NamedAt("topology.hosts_per_leaf"), TOTAL),
    ("Topology[leaf_spine].spines", "maximum", Departure::NamedAt("topology.switches"), "switches in all: at most MAX_SWITCHES"),
    ("FlowSpec.src", "maximum", Departure::Within, HOST),
    ("FlowSpec.dst", "maximum", Departure::Within, HOST),
    ("UdpSpec.src", "maximum", Departure::Within, HOST),
    ("UdpSpec.dst", "maximum", Departure::Within, HOST),
    ("QuerySpec.client", "maximum", Departure::Within, HOST),
    ("FlowSpec.dst", "minimum", Departure::Within, "a flow's two hosts differ"),
    ("QuerySpec.servers[]", "minimum", Departure::Within, "a server is not the client"),
    ("FlowSpec.stop_s", "minimum", Departure::Within, AFTER_START),
    ("QuerySpec.stop_s", "minimum", Departure::Within, AFTER_START),
    ("UdpSpec.stop_s", "minimum", Departure::Within, AFTER_START),
    ("TrafficSpec.stop_s", "minimum", Departure::Within, AFTER_START),
    ("SimConfig.warmup_s", "maximum", Departure::Within, "the warm-up ends before duration_s"),
    ("SimConfig.drain_s", "maximum", Departure::Within, "the drain begins after the start"),
    ("IctcpConfig.gamma1", "maximum", Departure::Within, "gamma1 is at most gamma2"),
    ("AqmConfig[red].max_th", "minimum", Departure::Within, "max_th is above min_th"),
    ("TcpConfig.rcv_buffer_bytes", "minimum", Departure::Within, SEGMENT),
    ("FlowSpec.rcv_buffer_bytes", "minimum", Departure::Within, SEGMENT),
    ("QuerySpec.rcv_buffer_bytes", "minimum", Departure::Within, SEGMENT),
    ("TrafficSpec.rcv_buffer_bytes", "minimum", Departure::Within, SEGMENT),
    ("TcpConfig.rcv_autotune_max_bytes", "minimum", Departure::Within, "auto-tuning's cap is at least its initial buffer"),
    ("BufferConfig[per_port].limit_bytes", "minimum", Departure::Within, PACKET),
    ("BufferConfig[shared].total_bytes", "minimum", Departure::Within, PACKET),
    ("ClassifyConfig[ecn].ect", "maximum", Departure::Within, CLASS),
    ("ClassifyConfig[ecn].not_ect", "maximum", Departure::Within, CLASS),
    ("ClassifyConfig[ecn].ect", "minimum", Departure::NamedAt("switch.classes.classify"), CLASSIFIER),
    ("ClassifyConfig[ecn].not_ect", "minimum", Departure::NamedAt("switch.classes.classify"), CLASSIFIER),
    ("ClassifyConfig[packet_type].syn", "minimum", Departure::NamedAt("switch.classes.classify"), CLASSIFIER),
    ("ClassifyConfig[packet_type].ack", "minimum", Departure::NamedAt("switch.classes.classify"), CLASSIFIER),
    ("ClassifyConfig[packet_type].data", "minimum", Departure::NamedAt("switch.classes.classify"), CLASSIFIER),
    ("TcpConfig.header_bytes", "maximum", Departure::NamedAt("tcp.mtu_bytes"), "with mtu_bytes set, the MSS it leaves is checked first"),
];

#[test]
fn every_schema_bound_is_the_checks_bound() {
    let root = serde_json::to_value(schemars::schema_for!(Scenario)).expect("the schema");
    let schema = Schema::new(&root);
    let mut bases: Vec<(String, Value)> = BASES.iter().map(|(name, text)| (name.to_string(), document(text))).collect();
    bases.extend(examples());

    let (mut covered, mut kinds, mut seen) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    let mut cases = 0;
    let mut failures = Vec::new();
    for (base, doc) in &bases {
        if let Some(e) = refusal(doc) {
            panic!("base {base:?} is refused: {e}");
        }
        let scenario = Scenario::from_json(&doc.to_string()).expect("a valid base");
        let mut resolved = serde_json::to_value(&scenario).expect("the resolved scenario");
        // A network the size of a bound is refused by the memory estimate, not built.
        resolved["sim"]["memory_limit_gb"] = 1.0.into();
        assert!(refusal(&resolved).is_none(), "base {base:?} resolved is refused");
        let mut leaves = Vec::new();
        schema.leaves(&root, &resolved, "", "", &mut leaves, &mut kinds);
        for leaf in leaves {
            covered.insert(leaf.name.clone());
            let integer = leaf.schema["type"].to_string().contains("integer");
            // The checks' first refusal with `leaf` set to `value`.
            let refusal_at = |value: &Value| {
                let mut doc = resolved.clone();
                *doc.pointer_mut(&leaf.pointer).expect("the leaf") = value.clone();
                refusal(&doc)
            };
            for key in BOUNDS {
                let Some(bound) = leaf.schema.get(key).and_then(Value::as_f64) else {
                    continue;
                };
                let (exclusive, upper) = (key.starts_with("exclusive"), key.ends_with("aximum"));
                let (past, inside) = probes(bound, exclusive, upper, integer);
                let departs = DEPARTURES.iter().find(|d| d.0 == leaf.name && d.1 == key).map(|d| d.2);
                let mut fail = |value: &Value, e: Option<ConfigError>| {
                    let said = e.map_or("accepted".to_string(), |e| format!("{}: {}", e.field, e.reason));
                    failures.push(format!("{} ({key} {bound}) {} = {value} [{base}]: {said}", leaf.name, leaf.field));
                };
                cases += 2;
                match (refusal_at(&past), departs) {
                    (Some(e), _) if e.field == leaf.field => {}
                    (Some(e), Some(Departure::NamedAt(field))) if e.field == field => {
                        seen.insert((leaf.name.clone(), key));
                    }
                    (e, _) => fail(&past, e),
                }
                match (refusal_at(&inside), departs) {
                    (Some(e), departs) if e.field == leaf.field => match departs {
                        Some(Departure::Within) => {
                            seen.insert((leaf.name.clone(), key));
                        }
                        Some(Departure::Excludes) => {
                            seen.insert((leaf.name.clone(), key));
                            let (_, next) = probes(bound, true, upper, integer);
                            cases += 1;
                            if let Some(e) = refusal_at(&next).filter(|e| e.field == leaf.field) {
                                fail(&next, Some(e));
                            }
                        }
                        _ => fail(&inside, Some(e)),
                    },
                    _ => {}
                }
            }
        }
    }
    let all: BTreeSet<String> = schema.bounded.values().cloned().collect();
    let all_kinds: BTreeSet<String> = schema.variants.values().cloned().collect();
    eprintln!(
        "{} of {} bounded schema fields covered, {} of {} tagged variants; {cases} cases over {} scenarios; \
         {} departures seen",
        covered.len(),
        all.len(),
        kinds.len(),
        all_kinds.len(),
        bases.len(),
        seen.len()
    );
    for (name, key, _, why) in DEPARTURES {
        if seen.contains(&(name.to_string(), key)) {
            eprintln!("  departs: {name} ({key}): {why}");
        } else {
            failures.push(format!("{name} ({key}): listed as departing from the schema, but agrees with it"));
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
    let missing: Vec<_> = all.difference(&covered).collect();
    assert!(missing.is_empty(), "bounded fields no base reaches: {missing:?}");
    let missing_kinds: Vec<_> = all_kinds.difference(&kinds).collect();
    assert!(missing_kinds.is_empty(), "variants no base reaches: {missing_kinds:?}");
}
