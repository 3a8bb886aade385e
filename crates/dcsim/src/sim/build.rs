//! Building a run: every check a scenario can fail before it starts, then the parts, each
//! from its own tables, with their first events in the calendar.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::apps::Applications;
use super::calendar::Calendar;
use super::conn::ConnFactory;
use super::conns::Conns;
use super::fabric::Fabric;
use super::hosts::{HostQueueLimit, Hosts};
use super::measure::Measurement;
use super::trace::Tracer;
use super::traffic::{ArrivalPlan, Cdf, Generator, GeneratorPlan, HostView, Rule, Sizes};
use super::udp::{UdpParams, UdpSource};
use super::workload::{QueryPlan, QueryRole, Workload};
use super::{memory, parallel, parameters, Event, Simulation};
use crate::error::ConfigError;
use crate::ids::{ConnId, HostId, PortId, WorkloadId};
use crate::net::topology::layout::Layout;
use crate::net::topology::{Network, RNG_STREAM_FLOW_START, RNG_STREAM_TRAFFIC_BASE, RNG_STREAM_WORKLOAD_BASE};
use crate::scenario::{
    Arrival, DestinationRule, FlowArrival, MeasureConfig, QuerySpec, Scenario, SizeDist, Topology, TrafficSpec, UdpSpec,
};
use crate::tcp::cc::CcKind;
use crate::tcp::ictcp::Interface;
use crate::tcp::receive_window::HostPolicy;
use crate::units::{Rate, Time};

/// What `Simulation::prepare` checked and built.
struct Prepared {
    layout: Layout,
    generators: Vec<Generator>,
    sampled_ports: Vec<PortId>,
    traced_ports: Vec<PortId>,
}

/// The switch ports on the shortest paths that data takes: from each flow's source to its
/// destination, and from each query's servers to its client (the default of
/// `measure.queue_ports`).
fn data_path_ports(net: &Layout, s: &Scenario) -> Vec<PortId> {
    if !s.traffic.is_empty() {
        // Generated flows may go between any of their hosts: every switch port may carry data.
        return PortId::all(net.ports.len()).filter(|&p| net.is_switch(net.ports[p].node)).collect();
    }
    let mut pairs: Vec<(HostId, HostId)> = s.flows.iter().map(|f| (HostId(f.src), HostId(f.dst))).collect();
    pairs.extend(
        s.queries
            .iter()
            .flat_map(|q| q.servers.iter().map(|&server| (HostId(server), HostId(q.client)))),
    );
    pairs.extend(s.udp.iter().map(|u| (HostId(u.src), HostId(u.dst))));
    pairs.sort_unstable();
    pairs.dedup();
    net.path_ports(&pairs)
}

/// The traffic generators of `s`, on its network `net`, whose flows arrive before
/// `arrivals_end`.
fn build_generators(s: &Scenario, net: &Layout, arrivals_end: Time) -> Result<Vec<Generator>, ConfigError> {
    if s.traffic.is_empty() {
        return Ok(Vec::new());
    }
    let hosts = net.host_port.len();
    // A host's rack is the switch it hangs off; a rack topology's stand-ins for the rest of
    // the datacenter are each a rack of their own.
    let stand_ins_from = match s.topology {
        Topology::Rack { hosts, .. } => hosts,
        _ => u32::MAX,
    };
    let rack: Vec<u32> = (0..hosts as u32)
        .map(|h| {
            if h >= stand_ins_from {
                u32::MAX - h
            } else {
                net.ports[net.host_port[HostId(h)]].peer.0
            }
        })
        .collect();
    let rate_bps: Vec<f64> = (0..hosts).map(|h| net.ports[net.host_port[h]].rate.bps() as f64).collect();
    let per_packet: Vec<f64> = (0..hosts)
        .map(|h| (s.tcp.header_bytes as u64 + net.framing(net.host_port[h]).as_u64()) as f64)
        .collect();
    let view = HostView {
        rack: &rack,
        rate_bps: &rate_bps,
        per_packet: &per_packet,
        mss: s.tcp.segment_bytes() as f64,
        end: arrivals_end,
    };
    s.traffic
        .iter()
        .enumerate()
        .map(|(g, spec)| {
            let mut rng = ChaCha8Rng::seed_from_u64(s.sim.seed);
            rng.set_stream(RNG_STREAM_TRAFFIC_BASE + g as u64);
            Generator::new(&format!("traffic[{g}]"), generator_plan(spec, s.tcp.cc), &view, rng)
        })
        .collect()
}

/// Query workload `q`'s settings in the engine's units; `default_cc` is `tcp.cc`.
fn query_plan(q: &QuerySpec, default_cc: CcKind) -> QueryPlan {
    QueryPlan {
        client: HostId(q.client),
        servers: q.servers.iter().copied().map(HostId).collect(),
        request: q.request_bytes,
        response: q.response_bytes,
        rounds: q.rounds,
        start: Time::from_secs_f64(q.start_s),
        stop: q.stop_s.map(Time::from_secs_f64),
        mean_interval: match q.arrival {
            Arrival::Barrier => None,
            Arrival::Poisson { mean_interval_ms } => Some(Time::from_ms_f64(mean_interval_ms)),
        },
        jitter: Time::from_us_f64(q.response_jitter_us),
        persistent: q.persistent,
        cc: q.cc.unwrap_or(default_cc),
        rcv_buffer: q.rcv_buffer_bytes,
        class: q.class,
    }
}

/// Traffic generator `spec`'s settings in the engine's units, its size distribution and gaps
/// as CDFs; `default_cc` is `tcp.cc`.
pub(super) fn generator_plan(spec: &TrafficSpec, default_cc: CcKind) -> GeneratorPlan {
    let cdf = match &spec.size {
        SizeDist::Fixed { bytes } => Cdf::new(&[[*bytes as f64, 1.0]]),
        SizeDist::Cdf { points, .. } => Cdf::new(points),
        SizeDist::WebSearch => Cdf::builtin("web_search").expect("built in"),
        SizeDist::DataMining => Cdf::builtin("data_mining").expect("built in"),
    };
    GeneratorPlan {
        sources: spec.sources.clone(),
        destinations: spec.destinations.clone(),
        rule: match spec.destination {
            DestinationRule::Uniform => Rule::Uniform,
            DestinationRule::InRack => Rule::InRack,
            DestinationRule::AcrossRacks => Rule::AcrossRacks,
            DestinationRule::Mixed { across_racks } => Rule::Mixed { across_racks },
        },
        sizes: Sizes::new(cdf, spec.scale_above_bytes, spec.scale_factor),
        arrival: match &spec.arrival {
            FlowArrival::Poisson { mean_interval_ms, load } => ArrivalPlan::Poisson {
                mean_gap_s: mean_interval_ms.map(|ms| ms / 1e3),
                load: *load,
            },
            FlowArrival::Cdf { points, load, .. } => ArrivalPlan::Cdf {
                cdf: Cdf::new(points),
                load: *load,
            },
        },
        start: Time::from_secs_f64(spec.start_s),
        stop: spec.stop_s.map(Time::from_secs_f64),
        cc: spec.cc.unwrap_or(default_cc),
        rcv_buffer: spec.rcv_buffer_bytes,
        class: spec.class,
    }
}

/// UDP source `u`'s settings in the engine's units.
fn udp_params(u: &UdpSpec) -> UdpParams {
    UdpParams {
        src: u.src,
        dst: u.dst,
        class: u.class,
        echo: u.echo,
        packet_bytes: u.packet_bytes,
        rate: Rate::from_gbps(u.rate_gbps),
        start: Time::from_secs_f64(u.start_s),
        stop: u.stop_s.map(Time::from_secs_f64),
    }
}

/// The network of `s` with nothing on it, to run flows alone (`measure.ideal_fct`): built
/// when a flow may have a size, else None.
fn idle_network(s: &Scenario) -> Result<Option<Box<Simulation>>, ConfigError> {
    let sized = !s.traffic.is_empty() || s.flows.iter().any(|f| f.bytes.is_some());
    if !s.measure.ideal_fct || !sized {
        return Ok(None);
    }
    let mut idle = s.clone();
    idle.flows.clear();
    idle.queries.clear();
    idle.traffic.clear();
    idle.udp.clear();
    idle.sim.warmup_s = 0.0;
    idle.measure = MeasureConfig {
        queue_sample_us: 0.0,
        ideal_fct: false,
        ..MeasureConfig::default()
    };
    Ok(Some(Box::new(Simulation::new(&idle)?)))
}

impl Simulation {
    /// Checks everything that building the run of `s` for `consumer` can refuse, on the
    /// network's layout (no port, queue or route is built).
    fn prepare(s: &Scenario, consumer: memory::Consumer) -> Result<Prepared, ConfigError> {
        s.validate()?;
        let known = memory::Known {
            consumer,
            ..Default::default()
        };
        memory::check(s, known)?;
        let layout = Layout::of(s)?;
        // Generated flows stop arriving `sim.drain_s` before the end.
        let generators = build_generators(s, &layout, Time::from_secs_f64(s.sim.arrivals_end_s()))?;
        // Their flows are known in number now: the estimate again, with them.
        let generated: f64 = generators.iter().map(Generator::expected_flows).sum();
        memory::check(
            s,
            memory::Known {
                generated_flows: generated,
                ..known
            },
        )?;
        let sampled_ports = if s.measure.queue_ports.is_empty() {
            data_path_ports(&layout, s)
        } else {
            layout.port_indices("measure.queue_ports", &s.measure.queue_ports)?
        };
        // The sampled ports are known now: the time series are checked again, before the run.
        memory::check(
            s,
            memory::Known {
                sampled_ports: Some(sampled_ports.len() as u64),
                generated_flows: generated,
                consumer,
            },
        )?;
        let traced_ports = layout.port_indices("measure.trace_ports", &s.measure.trace_ports)?;
        Ok(Prepared {
            layout,
            generators,
            sampled_ports,
            traced_ports,
        })
    }

    /// Whether `s` can run for `consumer`: every check the run makes before it starts, on its
    /// network's layout (nothing of the run is built: no port, route or connection).
    pub fn check(s: &Scenario, consumer: memory::Consumer) -> Result<(), ConfigError> {
        Self::prepare(s, consumer).map(drop)
    }

    /// Builds the run of `s` for `consumer`, whose copy of the results the memory estimate
    /// counts (the Python bindings pass `Consumer::Python`).
    pub fn for_consumer(s: &Scenario, consumer: memory::Consumer) -> Result<Self, ConfigError> {
        let Prepared {
            mut layout,
            generators,
            sampled_ports,
            traced_ports,
        } = Self::prepare(s, consumer)?;
        let partition = layout.partition.take();
        let net = Network::from_layout(s, &layout);
        drop(layout);
        let (plan, why_whole) = match parallel::plan(s, partition, &net) {
            Ok(plan) => (Some(Box::new(plan)), None),
            Err(why) => (None, Some(why)),
        };
        let threads = s.sim.threads.count();
        let t = &s.tcp;
        let mut rng = ChaCha8Rng::seed_from_u64(s.sim.seed);
        rng.set_stream(RNG_STREAM_FLOW_START);
        let mut factory = ConnFactory::new(t.cc_params(), |cc| t.stack_params(cc, s.host.offload_burst_segments));
        let mut conns = Conns::default();
        for (i, f) in s.flows.iter().enumerate() {
            let jitter = if f.start_jitter_us > 0.0 {
                rng.gen_range(0.0..=f.start_jitter_us)
            } else {
                0.0
            };
            let start = Time::from_secs_f64(f.start_s) + Time::from_us_f64(jitter);
            let mut conn = factory.make(
                ConnId::at(i),
                HostId(f.src),
                HostId(f.dst),
                f.cc.unwrap_or(t.cc),
                start,
                f.rcv_buffer_bytes,
            );
            conn.ends[0].write(f.bytes.unwrap_or(u64::MAX));
            conn.class = f.class;
            conn.bytes = f.bytes;
            conn.stop = f.stop_s.map(Time::from_secs_f64);
            conns.push(conn);
        }
        let mut workloads = Vec::with_capacity(s.queries.len());
        for (w, q) in s.queries.iter().enumerate() {
            let mut rng = ChaCha8Rng::seed_from_u64(s.sim.seed);
            rng.set_stream(RNG_STREAM_WORKLOAD_BASE + w as u64);
            let mut wl = Workload::new(query_plan(q, t.cc), rng);
            if wl.plan.persistent {
                // Long-lived connections, opened at time 0 (DCTCP §4.2.2, ICTCP §II-A).
                for &server in &wl.plan.servers {
                    let id = conns.next_id();
                    let mut conn = factory.make(id, wl.plan.client, server, wl.plan.cc, Time::ZERO, wl.plan.rcv_buffer);
                    conn.class = wl.plan.class;
                    conn.query = Some(Box::new(QueryRole::new(WorkloadId::at(w), None)));
                    conns.push(conn);
                    wl.conns.push(id);
                }
            }
            workloads.push(wl);
        }
        let mut traced_conns: Vec<(ConnId, HostId)> = s
            .measure
            .trace_flows
            .iter()
            .map(|&f| (ConnId(f), HostId(s.flows[f as usize].src)))
            .collect();
        // A query connection's data sender is its server (validated persistent, so its
        // connections exist from the start).
        for &w in &s.measure.trace_queries {
            let wl = &workloads[w as usize];
            traced_conns.extend(wl.conns.iter().zip(&wl.plan.servers).map(|(&c, &server)| (c, server)));
        }
        let tracer = Tracer::new(net.ports.len(), &traced_ports, conns.len(), &traced_conns);
        let mut policies: Vec<Option<HostPolicy>> = vec![None; net.host_port.len()];
        for &h in &s.ictcp.hosts {
            let capacity_bps = net.ports[net.host_port[HostId(h)]].rate.bps() as f64;
            policies[h as usize] = Some(HostPolicy::Ictcp(Interface::new(s.ictcp.params(capacity_bps, t))));
        }
        let mut parameters = parameters::record(s, &net);
        parameters["parallel"] = match &plan {
            Some(p) => serde_json::json!({
                "partitions": p.parts, "threads": threads.min(p.parts), "lookahead_us": p.lookahead.as_secs_f64() * 1e6,
            }),
            None => serde_json::json!({"partitions": 1, "threads": 1, "one_thread_because": why_whole}),
        };
        let queue_limit = HostQueueLimit {
            bytes_per_conn: s.host.queue_bytes_per_conn,
            max_packet: s.tcp.packet_bytes() as u64,
        };
        let hosts = Hosts::new(
            &net.nodes,
            net.host_port.len(),
            s.host.rx_interrupt_interval_us,
            s.host.rx_processing_us,
            queue_limit,
            policies,
        );
        let end = Time::from_secs_f64(s.sim.duration_s);
        let warmup = Time::from_secs_f64(s.sim.warmup_s);
        let rounds_left = (s.sim.stop_when_queries_done && !s.queries.is_empty()).then(|| s.queries.iter().map(|q| q.rounds as u64).sum());
        let udp = s.udp.iter().map(|u| UdpSource::new(udp_params(u))).collect();
        let mut sim = Simulation {
            name: s.name.clone(),
            seed: s.sim.seed,
            now: Time::ZERO,
            end,
            warmup,
            cal: Calendar::default(),
            fabric: Fabric::new(net, warmup, tracer),
            hosts,
            conns,
            ending: Vec::new(),
            factory,
            apps: Applications::new(workloads, generators, udp, rounds_left),
            measure: Measurement::new(s.measure.queue_sample_us, sampled_ports, s.measure.flow_sample_us),
            idle: idle_network(s)?,
            out: Vec::with_capacity(64),
            woken: Vec::new(),
            events: 0,
            injected: 0,
            delivered: 0,
            checker: s.sim.check_invariants.then(Box::default),
            parameters,
            par: Box::new(parallel::Parallel {
                plan,
                why_whole,
                threads,
                ..Default::default()
            }),
        };
        for c in sim.conns.ids() {
            sim.hosts.attach(&mut sim.conns[c]);
        }
        for c in sim.conns.ids() {
            let conn = &sim.conns[c];
            let (start, stop) = (conn.start, conn.stop);
            sim.cal.schedule(start, Event::Open(c));
            if let Some(stop) = stop {
                sim.cal.schedule(stop, Event::StopWriting(c));
            }
        }
        sim.apps.schedule_starts(sim.end, &mut sim.cal);
        if sim.warmup > Time::ZERO {
            sim.cal.schedule(sim.warmup, Event::WarmupEnd);
        }
        // Query workloads may open their connections only later (one at a request).
        // ICTCP's interfaces are sampled with the flows, also when only UDP reaches them.
        let policy_sees_udp = sim.apps.has_udp() && sim.hosts.policies.iter().any(Option::is_some);
        let flows_to_sample = policy_sees_udp || !sim.conns.is_empty() || sim.apps.opens_connections();
        sim.measure.schedule_first(sim.warmup, flows_to_sample, &mut sim.cal);
        Ok(sim)
    }
}
