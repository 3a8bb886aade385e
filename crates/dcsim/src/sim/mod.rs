//! The world and its event loop. `Simulation` alone owns time and the calendar; ports and
//! TCP ends are state machines it drives with the current time.

pub mod calendar;
mod conns;
mod invariants;
pub mod memory;
#[cfg(test)]
mod pacing_tests;
mod parameters;
mod trace;
pub mod traffic;
mod udp;
mod workload;

use std::collections::VecDeque;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::ConfigError;
use crate::net::buffer::Refusal;
use crate::net::packet::{HeaderPool, Packet, Segment, ACK, UDP};
use crate::net::port::Port;
use crate::net::routing::Routes;
use crate::net::rx_moderation::{RxArrival, RxModeration, RxProcessor};
use crate::net::topology::{Network, Node, RNG_STREAM_FLOW_START, RNG_STREAM_TRAFFIC_BASE, RNG_STREAM_WORKLOAD_BASE};
use crate::results::{
    ClassStats, Conservation, FlowSamples, IctcpSamples, PoolSamples, PortStats, ProbeSamples, QueryStats, QueueSamples, Results,
    SwitchStats,
};
use crate::scenario::{CcKind, MeasureConfig, Scenario, TcpConfig, Topology};
use crate::tcp::cc::{Cc, CcParams};
use crate::tcp::ictcp::Interface;
use crate::tcp::{Endpoint, TcpParams, Timer};
use crate::units::{Bytes, Time};
use calendar::Calendar;
use conns::{Conns, FlowRecord, IctcpView, WarmupCounts};
use trace::Tracer;
use traffic::{Generator, HostView};
use udp::UdpSource;
use workload::{OpenQuery, QueryRecord, QueryRole, UnsettledQuery, Workload};

/// What `Simulation::prepare` checked and built.
struct Prepared {
    net: Network,
    generators: Vec<Generator>,
    sampled_ports: Vec<u32>,
    traced_ports: Vec<u32>,
}

/// The switch ports on the shortest paths that data takes: from each flow's source to its
/// destination, and from each query's servers to its client (the default of
/// `measure.queue_ports`).
fn data_path_ports(net: &Network, s: &Scenario) -> Vec<u32> {
    if !s.traffic.is_empty() {
        // Generated flows may go between any of their hosts: every switch port may carry data.
        return (0..net.ports.len() as u32).filter(|&p| net.ports[p as usize].is_switch).collect();
    }
    let mut pairs: Vec<(u32, u32)> = s.flows.iter().map(|f| (f.src, f.dst)).collect();
    pairs.extend(s.queries.iter().flat_map(|q| q.servers.iter().map(|&server| (server, q.client))));
    pairs.extend(s.udp.iter().map(|u| (u.src, u.dst)));
    pairs.sort_unstable();
    pairs.dedup();
    net.path_ports(&pairs)
}

/// The traffic generators of `s`, on the built network `net`.
fn build_generators(s: &Scenario, net: &Network, end: Time) -> Result<Vec<Generator>, ConfigError> {
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
                net.ports[net.host_port[h as usize] as usize].peer
            }
        })
        .collect();
    let nic = |h: usize| &net.ports[net.host_port[h] as usize];
    let rate_bps: Vec<f64> = (0..hosts).map(|h| nic(h).rate.bps() as f64).collect();
    let per_packet: Vec<f64> = (0..hosts)
        .map(|h| (s.tcp.header_bytes as u64 + nic(h).framing.as_u64()) as f64)
        .collect();
    let view = HostView {
        rack: &rack,
        rate_bps: &rate_bps,
        per_packet: &per_packet,
        mss: s.tcp.segment_bytes() as f64,
        default_cc: s.tcp.cc,
        end,
    };
    s.traffic
        .iter()
        .enumerate()
        .map(|(g, spec)| {
            let mut rng = ChaCha8Rng::seed_from_u64(s.sim.seed);
            rng.set_stream(RNG_STREAM_TRAFFIC_BASE + g as u64);
            Generator::new(&format!("traffic[{g}]"), spec, &view, rng)
        })
        .collect()
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

/// Everything that can happen. Small and `Copy`: packets in flight live on their link.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// The head packet on a port's link reaches the peer node.
    LinkArrive(u32),
    /// A port with a queue discipline finished a transmission: its next packet may start.
    TxDone(u32),
    Rto(u32, u8),
    DelayedAck(u32, u8),
    /// An end's pacing deadline: the controller's rate lets its next segment go.
    Pace(u32, u8),
    /// A flow opens its connection.
    Open(u32),
    /// A flow's application stops writing.
    StopWriting(u32),
    /// A query workload issues its next query.
    IssueQuery(u32),
    /// A server answers one request on a query connection.
    Respond(u32),
    /// A flow arrives at a generator's source (`Simulation::arrival_slots`).
    Arrive(u32),
    /// A UDP source sends its next packet.
    UdpSend(u32),
    /// A slot frees in a host's full NIC queue: its blocked senders may go on.
    NicRoom(u32),
    /// A host NIC's pending receive interrupt: its held packets reach the stack (DCTCP paper §3.5).
    RxInterrupt(u32),
    /// Host h's receive path is done with the packet first in line (`host.rx_processing_us`).
    RxProcessed(u32),
    QueueSample,
    FlowSample,
    WarmupEnd,
}

const TIMER_RTO: usize = 0;
const TIMER_DELACK: usize = 1;
const TIMER_PACE: usize = 2;

/// A connection: end 0 opened it and sends the flow's data, end 1 receives.
#[derive(Clone)]
struct Conn {
    ends: [Endpoint; 2],
    hosts: [u32; 2],
    cc: CcKind,
    /// Traffic class its packets carry.
    class: u8,
    start: Time,
    bytes: Option<u64>,
    stop: Option<Time>,
    completion: Option<Time>,
    delivered_at_warmup: u64,
    at_warmup: WarmupCounts,
    /// Time of the calendar event pending for each (end, timer), if any.
    timer_event: [[Option<Time>; 3]; 2],
    /// Set on the connections of a query workload.
    query: Option<Box<QueryRole>>,
    /// The traffic generator that started it, if one did.
    generator: Option<u32>,
    /// Per end: its packets still in its host's NIC queue, for the per-connection host-queue
    /// limit (as Linux's TCP Small Queues). Made at the connection's first such packet, so an
    /// idle connection spends 8 bytes on it.
    in_nic: Option<Box<[InNic; 2]>>,
    /// Per end: its entry in its host's ICTCP table, if the host runs ICTCP.
    ictcp: [Option<u32>; 2],
    /// Its packets sent and not yet received or dropped (in a queue, on a wire, or held
    /// for a receive interrupt).
    in_flight: u32,
}

/// One end's packets in its host's NIC queue.
#[derive(Clone, Default)]
struct InNic {
    /// (departure time, bytes) of each, oldest first.
    packets: VecDeque<(Time, u32)>,
    bytes: u64,
}

impl Conn {
    /// Bytes end `e` still has in its NIC queue at `now`.
    fn nic_bytes(&mut self, e: usize, now: Time) -> u64 {
        let Some(nic) = self.in_nic.as_mut().map(|n| &mut n[e]) else {
            return 0;
        };
        while let Some(&(t, b)) = nic.packets.front() {
            if t > now {
                break;
            }
            nic.packets.pop_front();
            nic.bytes -= b as u64;
        }
        nic.bytes
    }

    /// Records a packet of end `e` that leaves its NIC at `departure`.
    fn queued_in_nic(&mut self, e: usize, departure: Time, size: u32) {
        let nic = &mut self.in_nic.get_or_insert_with(Box::default)[e];
        nic.packets.push_back((departure, size));
        nic.bytes += size as u64;
    }

    /// When end `e`'s oldest packet in its NIC queue leaves, if it has one there.
    fn first_nic_departure(&self, e: usize) -> Option<Time> {
        self.in_nic.as_ref()?[e].packets.front().map(|&(t, _)| t)
    }

    /// The end that sends the connection's main data: the opener for a bulk flow, the server
    /// (which sends the responses) for a query connection.
    fn data_sender(&self) -> usize {
        if self.query.is_some() {
            1
        } else {
            0
        }
    }

    /// Retransmission timeouts counted on each end.
    fn rto_counts(&self) -> [u64; 2] {
        [self.ends[0].counters().timeouts, self.ends[1].counters().timeouts]
    }

    /// Retransmission timeouts and SYN retries on both ends.
    fn timeouts(&self) -> u64 {
        self.ends.iter().map(|e| e.counters()).map(|k| k.timeouts + k.syn_retries).sum()
    }

    /// Its work is done: the application will write nothing more, both ends have had all
    /// their data acknowledged with no timer armed, and none of its packets is left anywhere.
    /// Nothing can happen to it any more but stale timer events, so its state can go.
    fn is_finished(&self) -> bool {
        let no_more_writes = match self.query.as_deref() {
            // Bulk flows write once, at creation (a pending stop only shortens that write).
            None => true,
            // One-shot: one request and one response; persistent: the next query's.
            Some(role) => role.query.is_some() && role.responses_seen > 0,
        };
        if self.ends.iter().any(Endpoint::failed) {
            // A handshake that gave up: nothing more will be written or sent.
            return self.in_flight == 0;
        }
        no_more_writes && self.in_flight == 0 && self.ends.iter().all(Endpoint::is_done)
    }
}

/// Builds connections with the scenario's TCP settings.
#[derive(Clone)]
struct ConnFactory {
    tcp: TcpConfig,
    /// What every connection's controllers are built from.
    cc_params: CcParams,
    offload_burst_segments: u32,
    /// The settings built so far, by controller and receive buffer: connections built alike
    /// share one copy.
    params: Vec<(CcKind, Option<u64>, Arc<TcpParams>)>,
}

/// Host-side limits on what one connection may queue in its NIC.
#[derive(Debug, Clone, Copy)]
struct HostQueueLimit {
    /// Bytes (0 = no per-connection limit).
    bytes_per_conn: u64,
    /// Largest packet a TCP end sends, bytes.
    max_packet: u64,
}

impl ConnFactory {
    fn make(&mut self, id: u32, src: u32, dst: u32, cc: CcKind, start: Time, rcv_buffer: Option<u64>) -> Conn {
        let params = match self.params.iter().find(|(c, b, _)| (*c, *b) == (cc, rcv_buffer)) {
            Some((_, _, p)) => Arc::clone(p),
            None => {
                let p = Arc::new(self.tcp.endpoint_params(cc, rcv_buffer, self.offload_burst_segments));
                self.params.push((cc, rcv_buffer, Arc::clone(&p)));
                p
            }
        };
        let p = &self.cc_params;
        let make = |end: u8, hosts: (u32, u32)| Endpoint::new(Arc::clone(&params), Cc::new(cc, p), id, end, hosts);
        Conn {
            ends: [make(0, (src, dst)), make(1, (dst, src))],
            hosts: [src, dst],
            cc,
            class: 0,
            start,
            bytes: None,
            stop: None,
            completion: None,
            delivered_at_warmup: 0,
            at_warmup: WarmupCounts::default(),
            timer_event: [[None; 3]; 2],
            query: None,
            generator: None,
            in_nic: None,
            ictcp: [None; 2],
            in_flight: 0,
        }
    }
}

#[derive(Clone)]
pub struct Simulation {
    name: String,
    seed: u64,
    now: Time,
    end: Time,
    /// Query rounds still to finish before the run may stop early (None: run to `end`).
    rounds_left: Option<u64>,
    warmup: Time,
    cal: Calendar<Event>,
    nodes: Vec<Node>,
    ports: Vec<Port>,
    host_port: Vec<u32>,
    routes: Routes,
    /// Per host: the (connection, end) senders waiting for room in its NIC queue, and the
    /// time of the pending `NicRoom` event.
    nic_waiting: Vec<Vec<(u32, u8)>>,
    nic_wake: Vec<Option<Time>>,
    host_queue: HostQueueLimit,
    /// Per node: receive interrupt moderation on a host's NIC, if the scenario turns it on.
    rx_moderation: Vec<Option<RxModeration>>,
    /// Per-packet receive processing of each host (None: packets reach TCP as handed up).
    rx_processing: Vec<Option<RxProcessor>>,
    /// Per host: ICTCP on its interface, if the scenario runs it there (ICTCP paper §IV).
    ictcp: Vec<Option<Interface>>,
    conns: Conns,
    /// Connections that may have finished during the current event, ended after it.
    ending: Vec<u32>,
    factory: ConnFactory,
    workloads: Vec<Workload>,
    generators: Vec<Generator>,
    /// Per `Arrive` slot: (generator, its source number).
    arrival_slots: Vec<(u32, u32)>,
    /// The idle network, to run a flow alone for its ideal completion time
    /// (`measure.ideal_fct`); None when off or no flow has a size.
    idle: Option<Box<Simulation>>,
    /// Scratch buffer for segments an endpoint emits (reused: no allocation per event).
    out: Vec<Segment>,
    /// The transport headers of the packets in the network.
    headers: HeaderPool,
    events: u64,
    hops: u64,
    injected: u64,
    delivered: u64,
    queue_sample_every: Time,
    sampled_ports: Vec<u32>,
    /// Packet traces (`measure.trace_*`).
    tracer: Tracer,
    flow_sample_every: Time,
    queue_samples: QueueSamples,
    pool_samples: PoolSamples,
    flow_samples: FlowSamples,
    ictcp_samples: IctcpSamples,
    /// Constant-bit-rate UDP sources (`udp[]`) and their echoes' round trips.
    udp: Vec<UdpSource>,
    probes: ProbeSamples,
    /// The invariant-checking mode's state (`sim.check_invariants`), when on.
    checker: Option<Box<invariants::InvariantChecker>>,
    /// What this run runs with (`parameters.rs`).
    parameters: serde_json::Value,
}

/// A stage of every host's receive path set by a time in µs (`make(time)`), none where the
/// time is 0, and none on switches.
fn per_host<T>(nodes: &[Node], us: f64, make: impl Fn(Time) -> T) -> Vec<Option<T>> {
    let t = Time::from_us_f64(us);
    nodes.iter().map(|n| (!n.is_switch && t > Time::ZERO).then(|| make(t))).collect()
}

impl Simulation {
    pub fn new(s: &Scenario) -> Result<Self, ConfigError> {
        Self::for_consumer(s, memory::Consumer::Rust)
    }

    /// Checks everything that building the run of `s` for `consumer` can refuse, and builds
    /// the network (the parts of the run a scenario can make impossible).
    fn prepare(s: &Scenario, consumer: memory::Consumer) -> Result<Prepared, ConfigError> {
        s.validate()?;
        let known = memory::Known {
            consumer,
            ..Default::default()
        };
        memory::check(s, known)?;
        let net = Network::build(s)?;
        let end = Time::from_secs_f64(s.sim.duration_s);
        let generators = build_generators(s, &net, end)?;
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
            data_path_ports(&net, s)
        } else {
            net.port_indices("measure.queue_ports", &s.measure.queue_ports)?
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
        let traced_ports = net.port_indices("measure.trace_ports", &s.measure.trace_ports)?;
        Ok(Prepared {
            net,
            generators,
            sampled_ports,
            traced_ports,
        })
    }

    /// Whether `s` can run for `consumer`: every check the run makes before it starts, without
    /// building more than its network (no connections, no ideal-completion-time network).
    pub fn check(s: &Scenario, consumer: memory::Consumer) -> Result<(), ConfigError> {
        Self::prepare(s, consumer).map(drop)
    }

    /// Builds the run of `s` for `consumer`, whose copy of the results the memory estimate
    /// counts (the Python bindings pass `Consumer::Python`).
    pub fn for_consumer(s: &Scenario, consumer: memory::Consumer) -> Result<Self, ConfigError> {
        let Prepared {
            net,
            generators,
            sampled_ports,
            traced_ports,
        } = Self::prepare(s, consumer)?;
        let t = &s.tcp;
        let mut rng = ChaCha8Rng::seed_from_u64(s.sim.seed);
        rng.set_stream(RNG_STREAM_FLOW_START);
        let mut factory = ConnFactory {
            tcp: t.clone(),
            cc_params: t.cc_params(),
            offload_burst_segments: s.host.offload_burst_segments,
            params: Vec::new(),
        };
        let mut conns = Conns::default();
        for (i, f) in s.flows.iter().enumerate() {
            let jitter = if f.start_jitter_us > 0.0 {
                rng.gen_range(0.0..=f.start_jitter_us)
            } else {
                0.0
            };
            let start = Time::from_secs_f64(f.start_s) + Time::from_us_f64(jitter);
            let mut conn = factory.make(i as u32, f.src, f.dst, f.cc.unwrap_or(t.cc), start, f.rcv_buffer_bytes);
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
            let mut wl = Workload::new(q, t.cc, rng);
            if wl.persistent {
                // Long-lived connections, opened at time 0 (DCTCP §4.2.2, ICTCP §II-A).
                for &server in &q.servers {
                    let id = conns.len() as u32;
                    let mut conn = factory.make(id, q.client, server, wl.cc, Time::ZERO, wl.rcv_buffer);
                    conn.class = wl.class;
                    conn.query = Some(Box::new(QueryRole {
                        workload: w as u32,
                        query: None,
                        requests_answered: 0,
                        responses_seen: 0,
                    }));
                    conns.push(conn);
                    wl.conns.push(id);
                }
            }
            workloads.push(wl);
        }
        let mut traced_conns: Vec<(u32, u32)> = s.measure.trace_flows.iter().map(|&f| (f, s.flows[f as usize].src)).collect();
        // A query connection's data sender is its server (validated persistent, so its
        // connections exist from the start).
        for &w in &s.measure.trace_queries {
            let q = &s.queries[w as usize];
            traced_conns.extend(workloads[w as usize].conns.iter().zip(&q.servers).map(|(&c, &server)| (c, server)));
        }
        let tracer = Tracer::new(net.ports.len(), &traced_ports, conns.len(), &traced_conns);
        let mut ictcp: Vec<Option<Interface>> = vec![None; net.host_port.len()];
        for &h in &s.ictcp.hosts {
            let capacity_bps = net.ports[net.host_port[h as usize] as usize].rate.bps() as f64;
            ictcp[h as usize] = Some(Interface::new(s.ictcp.params(capacity_bps, t)));
        }
        let parameters = parameters::record(s, &net);
        let rx_moderation = per_host(&net.nodes, s.host.rx_interrupt_interval_us, RxModeration::new);
        let rx_processing = per_host(&net.nodes, s.host.rx_processing_us, RxProcessor::new);
        let mut sim = Simulation {
            name: s.name.clone(),
            seed: s.sim.seed,
            now: Time::ZERO,
            end: Time::from_secs_f64(s.sim.duration_s),
            rounds_left: (s.sim.stop_when_queries_done && !s.queries.is_empty()).then(|| s.queries.iter().map(|q| q.rounds as u64).sum()),
            warmup: Time::from_secs_f64(s.sim.warmup_s),
            cal: Calendar::default(),
            nodes: net.nodes,
            ports: net.ports,
            host_queue: HostQueueLimit {
                bytes_per_conn: s.host.queue_bytes_per_conn,
                max_packet: (s.tcp.segment_bytes() + s.tcp.header_bytes) as u64,
            },
            rx_moderation,
            rx_processing,
            nic_waiting: vec![Vec::new(); net.host_port.len()],
            nic_wake: vec![None; net.host_port.len()],
            host_port: net.host_port,
            routes: net.routes,
            ictcp,
            conns,
            ending: Vec::new(),
            factory,
            workloads,
            arrival_slots: generators
                .iter()
                .enumerate()
                .flat_map(|(g, gen)| (0..gen.sources.len() as u32).map(move |k| (g as u32, k)))
                .collect(),
            generators,
            idle: idle_network(s)?,
            out: Vec::with_capacity(64),
            headers: HeaderPool::default(),
            events: 0,
            hops: 0,
            injected: 0,
            delivered: 0,
            queue_sample_every: Time::from_us_f64(s.measure.queue_sample_us),
            sampled_ports,
            tracer,
            flow_sample_every: Time::from_us_f64(s.measure.flow_sample_us),
            queue_samples: QueueSamples::default(),
            pool_samples: PoolSamples::default(),
            flow_samples: FlowSamples::default(),
            ictcp_samples: IctcpSamples::default(),
            udp: s.udp.iter().map(UdpSource::new).collect(),
            probes: ProbeSamples::default(),
            checker: s.sim.check_invariants.then(Box::default),
            parameters,
        };
        for c in 0..sim.conns.len() as u32 {
            sim.attach_ictcp(c);
        }
        for i in 0..sim.conns.len() {
            let c = &sim.conns[i];
            let (start, stop) = (c.start, c.stop);
            sim.cal.schedule(start, Event::Open(i as u32));
            if let Some(stop) = stop {
                sim.cal.schedule(stop, Event::StopWriting(i as u32));
            }
        }
        for (w, wl) in sim.workloads.iter().enumerate() {
            sim.cal.schedule(wl.start, Event::IssueQuery(w as u32));
        }
        for slot in 0..sim.arrival_slots.len() {
            let (g, k) = sim.arrival_slots[slot];
            let gen = &mut sim.generators[g as usize];
            if let Some(t) = gen.next_arrival(k as usize, gen.start) {
                sim.cal.schedule(t, Event::Arrive(slot as u32));
            }
        }
        for i in 0..sim.udp.len() {
            if let Some(t) = sim.udp[i].next_send(sim.end) {
                sim.cal.schedule(t, Event::UdpSend(i as u32));
            }
        }
        if sim.warmup > Time::ZERO {
            sim.cal.schedule(sim.warmup, Event::WarmupEnd);
        }
        if sim.queue_sample_every > Time::ZERO && !sim.sampled_ports.is_empty() {
            sim.cal.schedule(sim.warmup, Event::QueueSample);
        }
        // Query workloads may open their connections only later (one at a request).
        // ICTCP's interfaces are sampled with the flows, also when only UDP reaches them.
        let ictcp_sees_udp = !sim.udp.is_empty() && sim.ictcp.iter().any(Option::is_some);
        if sim.flow_sample_every > Time::ZERO
            && (ictcp_sees_udp || !(sim.conns.is_empty() && sim.workloads.is_empty() && sim.generators.is_empty()))
        {
            sim.cal.schedule(sim.warmup, Event::FlowSample);
        }
        Ok(sim)
    }

    /// What this run runs with: the scenario's tables as the engine read them (stack profile
    /// applied, defaults filled in) and the values derived when the network was built (K by
    /// port rate, buffer limits, shared memories), as JSON.
    pub fn parameters(&self) -> &serde_json::Value {
        &self.parameters
    }

    /// Runs to the scenario's end time and returns the results.
    pub fn run(&mut self) -> Results {
        self.run_observed(u64::MAX, |_| true).expect("never stopped")
    }

    /// Runs like [`Simulation::run`], calling `observe` with the fraction of the simulated
    /// time done (0..1) every `every_events` events; the run stops, returning `None`, when
    /// `observe` returns false (the user interrupted it).
    pub fn run_observed(&mut self, every_events: u64, mut observe: impl FnMut(f64) -> bool) -> Option<Results> {
        let mut progress = |sim: &Simulation| observe(sim.now.as_ps() as f64 / sim.end.max(Time::from_ps(1)).as_ps() as f64);
        if !self.advance(every_events, &mut progress) {
            return None;
        }
        self.now = self.end;
        Some(self.results())
    }

    /// The event loop: runs events up to the end time, calling `observe` every `every_events`
    /// events (a `dyn` call, off the hot path, so that the loop exists once and the events'
    /// handlers are inlined into it); false when `observe` stopped it.
    fn advance(&mut self, every_events: u64, observe: &mut dyn FnMut(&Simulation) -> bool) -> bool {
        let mut countdown = every_events;
        while let Some(t) = self.cal.peek_time() {
            if t > self.end {
                break;
            }
            let (t, ev) = self.cal.pop().expect("peeked");
            self.now = t;
            self.events += 1;
            self.dispatch(ev);
            if !self.ending.is_empty() {
                self.end_finished();
            }
            if self.checker.is_some() {
                self.check_invariants();
            }
            if self.rounds_left == Some(0) {
                // Every round is done (sim.stop_when_queries_done). Within the warm-up that
                // would leave no measurement window: the run goes on to its duration.
                if t > self.warmup {
                    self.end = t;
                    break;
                }
                self.rounds_left = None;
            }
            countdown -= 1;
            if countdown == 0 {
                countdown = every_events;
                if !observe(self) {
                    return false;
                }
            }
        }
        true
    }

    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::LinkArrive(p) => self.link_arrive(p),
            Event::TxDone(p) => self.tx_done(p),
            Event::Rto(c, e) => self.timer_fired(c, e, TIMER_RTO),
            Event::DelayedAck(c, e) => self.timer_fired(c, e, TIMER_DELACK),
            Event::Pace(c, e) => self.timer_fired(c, e, TIMER_PACE),
            Event::Open(c) => self.drive(c, 0, |ep, now, out| ep.connect(now, out)),
            Event::StopWriting(c) => {
                // A flow that has ended sent all it was to send before its stop.
                if let Some(conn) = self.conns.get_mut(c) {
                    conn.ends[0].stop_writing();
                }
            }
            Event::NicRoom(h) => self.nic_room(h),
            Event::RxInterrupt(h) => {
                while let Some(pkt) = self.rx_moderation[h as usize].as_mut().and_then(RxModeration::take_next) {
                    self.hand_up(h as usize, pkt);
                }
            }
            Event::RxProcessed(h) => {
                let now = self.now;
                while let Some(pkt) = self.rx_processing[h as usize].as_mut().and_then(|p| p.take_done(now)) {
                    self.host_receive(h as usize, pkt);
                }
                if let Some(next) = self.rx_processing[h as usize].as_ref().and_then(RxProcessor::next_done) {
                    self.cal.schedule(next, Event::RxProcessed(h));
                }
            }
            Event::IssueQuery(w) => self.issue_query(w),
            Event::Arrive(slot) => self.arrive(slot),
            Event::UdpSend(i) => self.udp_send(i),
            Event::Respond(c) => {
                let w = self.conns[c as usize].query.as_ref().expect("a query connection").workload;
                let response = self.workloads[w as usize].response;
                self.drive(c, 1, |server, now, out| {
                    server.write(response);
                    server.try_send(now, out);
                });
            }
            Event::QueueSample => {
                let t = self.now.as_secs_f64();
                for &p in &self.sampled_ports {
                    let port = &mut self.ports[p as usize];
                    self.queue_samples.port.push(p);
                    self.queue_samples.t_s.push(t);
                    self.queue_samples.packets.push(port.occupancy_packets(self.now, self.warmup));
                    self.queue_samples.bytes.push(port.occupancy_bytes(self.now, self.warmup).as_u64());
                }
                for (i, node) in self.nodes.iter_mut().filter(|n| n.is_switch).enumerate() {
                    if let Some(shared) = &mut node.shared {
                        self.pool_samples.switch.push(i as u32);
                        self.pool_samples.t_s.push(t);
                        let used = shared.used_at(self.now, &mut self.ports, self.warmup);
                        self.pool_samples.bytes.push(used.as_u64());
                    }
                }
                self.cal.schedule(self.now + self.queue_sample_every, Event::QueueSample);
            }
            Event::FlowSample => {
                let t = self.now.as_secs_f64();
                for i in 0..self.conns.len() as u32 {
                    let record = self.flow_record(i);
                    record.sample(i, t, &mut self.flow_samples);
                }
                for (h, i) in self.ictcp.iter_mut().enumerate() {
                    if let Some(i) = i {
                        i.advance(self.now);
                        let f = &mut self.ictcp_samples;
                        f.host.push(h as u32);
                        f.t_s.push(t);
                        f.bw_t_bps.push(i.bw_t_bps);
                        f.bw_a_bps.push(i.bw_a_bps);
                        f.quota_bps.push(if i.in_second_subslot() { i.quota_bps() } else { f64::NAN });
                        f.subslot_s.push(i.subslot().as_secs_f64());
                    }
                }
                self.cal.schedule(self.now + self.flow_sample_every, Event::FlowSample);
            }
            Event::WarmupEnd => {
                self.conns.mark_warmup();
                self.ports.iter_mut().for_each(|p| p.counters.mark_warmup());
                self.udp.iter_mut().for_each(UdpSource::mark_warmup);
            }
        }
    }

    #[inline]
    /// Offers a packet to FIFO port `p` (a host NIC, or a switch port without a queue
    /// discipline); its departure time if admitted.
    fn enqueue(&mut self, p: u32, pkt: Packet) -> Option<Time> {
        let (now, ws) = (self.now, self.warmup);
        let size = pkt.bytes();
        if !self.admit_to_memory(p, &pkt, |port| port.occupancy_bytes(now, ws)) {
            return None;
        }
        let Ok((departure, next_arrival)) = self.ports[p as usize].offer(now, pkt, ws) else {
            self.refused(p, &pkt);
            return None;
        };
        let port = &self.ports[p as usize];
        if let Some(slot) = port.memory_slot {
            self.nodes[port.node as usize]
                .shared
                .as_mut()
                .expect("a port with a memory slot has a shared memory")
                .hold(slot, size, departure);
        }
        if let Some(arrive) = next_arrival {
            self.cal.schedule(arrive, Event::LinkArrive(p));
        }
        Some(departure)
    }

    /// The switch's shared memory, if it has one, admits `pkt` to the queue of port `p`
    /// holding `queue_bytes(port)` (DCTCP paper §2.3.1); a refusal is counted on the port and
    /// the packet accounted.
    #[inline(always)]
    fn admit_to_memory(&mut self, p: u32, pkt: &Packet, queue_bytes: impl FnOnce(&mut Port) -> Bytes) -> bool {
        let port = &self.ports[p as usize];
        if port.memory_slot.is_none() {
            return true;
        }
        let shared = self.nodes[port.node as usize]
            .shared
            .as_mut()
            .expect("a port with a memory slot has a shared memory");
        let used = shared.used_at(self.now, &mut self.ports, self.warmup);
        let held = queue_bytes(&mut self.ports[p as usize]);
        match shared.admit(used, held, pkt.bytes()) {
            Ok(()) => true,
            Err(refusal) => {
                self.ports[p as usize].refuse(refusal == Refusal::PoolFull);
                self.refused(p, pkt);
                false
            }
        }
    }

    /// `enqueue` on a port with a queue discipline: the packet waits in its class queue
    /// (holding the shared memory until it leaves), and starts at once if the link is idle.
    #[cold]
    #[inline(never)]
    fn enqueue_to_discipline(&mut self, p: u32, pkt: Packet) {
        let (now, ws) = (self.now, self.warmup);
        if self.ports[p as usize].tx_due(now) {
            self.tx_done(p); // a tie: the transmission ending now goes first
        }
        if !self.admit_to_memory(p, &pkt, |port| port.threshold_bytes(&pkt)) {
            return;
        }
        let Ok((tx_done, arrive)) = self.ports[p as usize].offer_to_discipline(now, pkt, ws) else {
            self.refused(p, &pkt);
            return;
        };
        let node = self.ports[p as usize].node as usize;
        if let Some(shared) = &mut self.nodes[node].shared {
            shared.hold_until_released(pkt.bytes());
        }
        if let Some(t) = arrive {
            self.cal.schedule(t, Event::LinkArrive(p));
        }
        self.after_discipline(p, tx_done);
    }

    /// A port with a queue discipline acted: its next transmission end goes in the calendar,
    /// and the packets its AQM dropped at dequeue leave the switch's memory and their
    /// connections' flight. Out of line: the FIFO fast path never comes here.
    #[cold]
    #[inline(never)]
    fn after_discipline(&mut self, p: u32, tx_done: Option<Time>) {
        if let Some(t) = tx_done {
            self.cal.schedule(t, Event::TxDone(p));
        }
        while let Some(pkt) = self.ports[p as usize].pop_dequeue_drop() {
            let node = self.ports[p as usize].node as usize;
            if let Some(shared) = &mut self.nodes[node].shared {
                shared.release(pkt.bytes());
            }
            self.refused(p, &pkt);
        }
    }

    /// A port with a queue discipline finished sending a packet: it leaves the buffer (and the
    /// switch's memory) and the next one starts.
    fn tx_done(&mut self, p: u32) {
        if !self.ports[p as usize].tx_due(self.now) {
            return; // completed already, by an arrival at the same instant
        }
        let (size, tx_done, arrive) = self.ports[p as usize].tx_done(self.now, self.warmup);
        let node = self.ports[p as usize].node as usize;
        if let Some(shared) = &mut self.nodes[node].shared {
            shared.release(size);
        }
        if let Some(t) = arrive {
            self.cal.schedule(t, Event::LinkArrive(p));
        }
        self.after_discipline(p, tx_done);
    }

    /// Port `p` refused `pkt`: one packet fewer of its connection is in flight (it may have
    /// been the last it was waiting for); the refusal is recorded if the port is traced.
    #[inline]
    fn refused(&mut self, p: u32, pkt: &Packet) {
        self.ports[p as usize].counters.drops_by_kind.count(pkt);
        if self.tracer.on {
            self.tracer.on_drop(self.now, p, pkt, self.headers.get(pkt));
        }
        self.headers.dropped(pkt);
        if pkt.has(UDP) {
            self.udp[pkt.conn as usize].on_dropped(pkt);
            return;
        }
        let conn = &mut self.conns[pkt.conn as usize];
        conn.in_flight -= 1;
        if conn.in_flight == 0 {
            self.ending.push(pkt.conn);
        }
    }

    fn link_arrive(&mut self, p: u32) {
        self.hops += 1;
        let port = &mut self.ports[p as usize];
        let (pkt, next) = port.pop_wire(self.now, self.warmup);
        let node = port.peer as usize;
        if self.tracer.on {
            self.tracer
                .on_link_arrival(self.now, p, &self.ports[p as usize], &pkt, self.headers.get(&pkt));
        }
        if self.nodes[node].is_switch {
            if let Some(t) = next {
                self.cal.schedule(t, Event::LinkArrive(p));
            }
            let egress = self.routes.egress(node as u32, &pkt);
            if self.ports[egress as usize].discipline().is_some() {
                self.enqueue_to_discipline(egress, pkt);
            } else {
                self.enqueue(egress, pkt);
            }
            return;
        }
        // The packet leaves the network at a host's NIC, which holds it whole. Its header (a
        // cold line in a large network) is read before the calendar work, which overlaps it.
        let seg = self.headers.receive(&pkt);
        if let Some(t) = next {
            self.cal.schedule(t, Event::LinkArrive(p));
        }
        if let Some(rx) = &mut self.rx_moderation[node] {
            match rx.on_arrival(self.now, seg) {
                RxArrival::Deliver => self.hand_up(node, seg),
                RxArrival::Held(Some(at)) => self.cal.schedule(at, Event::RxInterrupt(node as u32)),
                RxArrival::Held(None) => {}
            }
        } else {
            self.hand_up(node, seg);
        }
    }

    /// Host `node`'s NIC hands a packet up: to its receive processing, if it has any, else
    /// straight to the stack.
    fn hand_up(&mut self, node: usize, pkt: Segment) {
        match &mut self.rx_processing[node] {
            Some(p) => {
                if let Some(done) = p.admit(self.now, pkt) {
                    self.cal.schedule(done, Event::RxProcessed(node as u32));
                }
            }
            None => self.host_receive(node, pkt),
        }
    }

    /// Host `node`'s stack takes a packet its NIC received.
    fn host_receive(&mut self, node: usize, pkt: Segment) {
        self.delivered += 1;
        if pkt.has(UDP) {
            self.udp_receive(node, pkt);
            return;
        }
        self.conns[pkt.conn as usize].in_flight -= 1;
        let e = 1 - pkt.from_end;
        if let Some(i) = &mut self.ictcp[node] {
            // ICTCP sees every packet the interface receives (§IV-A).
            let entry = self.conns[pkt.conn as usize].ictcp[e as usize];
            i.on_receive(self.now, pkt.size, entry, pkt.len, pkt.ts_ecr);
        }
        self.drive(pkt.conn, e, |ep, now, out| ep.on_segment(now, &pkt, out));
    }

    /// UDP source `i` sends a packet into its host's NIC (dropped there if the queue is full)
    /// and schedules the next one.
    fn udp_send(&mut self, i: u32) {
        let seg = self.udp[i as usize].packet(i, self.now);
        self.injected += 1;
        let pkt = self.headers.send(&seg);
        self.enqueue(self.host_port[seg.src as usize], pkt);
        if let Some(t) = self.udp[i as usize].next_send(self.end) {
            self.cal.schedule(t, Event::UdpSend(i));
        }
    }

    /// A UDP packet reaches host `node`'s stack: ICTCP counts it in the interface's traffic
    /// (BW_T, §IV-A); the destination echoes it if asked; an echo ends a probe's round trip.
    fn udp_receive(&mut self, node: usize, pkt: Segment) {
        if let Some(i) = &mut self.ictcp[node] {
            i.on_receive(self.now, pkt.size, None, 0, Time::ZERO);
        }
        let source = &mut self.udp[pkt.conn as usize];
        if pkt.from_end == 1 {
            source.on_reply(pkt.conn, &pkt, self.now, &mut self.probes);
        } else if let Some(echo) = source.on_delivered(&pkt) {
            self.injected += 1;
            let echo = self.headers.send(&echo);
            self.enqueue(self.host_port[node], echo);
        }
    }

    fn timer_fired(&mut self, c: u32, e: u8, kind: usize) {
        let Some(conn) = self.conns.get_mut(c) else {
            return; // a stale event of an ended connection, whose timers were all off
        };
        let pending = &mut conn.timer_event[e as usize][kind];
        if *pending == Some(self.now) {
            *pending = None;
        }
        self.drive(c, e, |ep, now, out| {
            let timer = [Timer::Rto, Timer::DelayedAck, Timer::Pace][kind];
            if ep.deadline(timer).is_some_and(|d| d <= now) {
                ep.on_timer(timer, now, out);
            }
        });
    }

    /// The record of connection `id`: made from its state while it lives, kept once it ended.
    fn flow_record(&self, id: u32) -> FlowRecord {
        let Some(c) = self.conns.get(id) else {
            return self.conns.ended(id).expect("a connection ended or not").clone();
        };
        let d = c.data_sender();
        let (tx, rx) = (&c.ends[d], &c.ends[1 - d]);
        let ictcp = c.ictcp[1 - d].map(|k| IctcpView::of(self.ictcp[c.hosts[1 - d] as usize].as_ref().expect("attached").conn(k)));
        FlowRecord {
            workload: c.query.as_ref().map(|q| q.workload),
            generator: c.generator,
            bytes: c.bytes,
            class: c.class,
            rcv_buffer: rx.params().rcv_autotune_max.is_none().then_some(rx.params().rcv_buffer),
            rcv_buffer_end: rx.rcv_buffer(),
            src: c.hosts[d],
            dst: c.hosts[1 - d],
            cc: c.cc,
            start: c.start,
            established: tx.established_at(),
            setup: c.ends[0].established_at(),
            failed: c.ends.iter().any(Endpoint::failed),
            completion: c.completion,
            delivered: rx.delivered(),
            delivered_at_warmup: c.delivered_at_warmup,
            at_warmup: c.at_warmup,
            counters: c.ends[0].counters().plus(&c.ends[1].counters()),
            cwnd: tx.cwnd(),
            alpha: tx.alpha(),
            srtt: tx.srtt(),
            ictcp,
        }
    }

    /// Ends the connections in `ending` whose work is done: their ICTCP entries leave their
    /// hosts' flow tables (the driver's FIN/RST, ICTCP §VI-A), and their state gives way to
    /// their record. A stale timer event of one finds it ended and does nothing, as its end
    /// would have done with no timer armed.
    fn end_finished(&mut self) {
        while let Some(c) = self.ending.pop() {
            if !self.conns.get(c).is_some_and(Conn::is_finished) {
                continue;
            }
            if let Some(w) = self.conns[c as usize].query.as_ref().map(|q| q.workload) {
                // Its timeouts are all classified (everything is acknowledged): settle them.
                self.workloads[w as usize].settle_spurious(&self.conns, Some(c), true);
            }
            let record = self.flow_record(c);
            let conn = self.conns.end(c, record);
            for e in 0..2 {
                if let Some(k) = conn.ictcp[e] {
                    self.ictcp[conn.hosts[e] as usize].as_mut().expect("attached").remove_conn(k);
                }
            }
        }
    }

    /// How long flow `id` takes alone on the idle network: a copy of it runs just that flow,
    /// from the same start, until the flow completes (None if it does not by the run's end).
    fn ideal_fct(&self, idle: &Simulation, r: &FlowRecord) -> Option<Time> {
        let bytes = r.bytes?;
        r.completion?;
        let mut sim = idle.clone();
        let mut conn = sim.factory.make(0, r.src, r.dst, r.cc, r.start, r.rcv_buffer);
        conn.ends[0].write(bytes);
        conn.bytes = Some(bytes);
        conn.class = r.class;
        sim.conns.push(conn);
        sim.attach_ictcp(0);
        sim.cal.schedule(r.start, Event::Open(0));
        sim.end = self.end;
        let completion = |sim: &Simulation| match sim.conns.get(0) {
            Some(c) => c.completion,
            None => sim.conns.ended(0).and_then(|r| r.completion),
        };
        // One event at a time, until the flow completes or the run's end.
        sim.advance(1, &mut |sim| completion(sim).is_none());
        completion(&sim).map(|done| done - r.start)
    }

    /// Connections open now (not ended), a measure of the state the simulation holds.
    pub fn live_connections(&self) -> usize {
        self.conns.live()
    }

    /// Connection slots allocated: the most connections that were ever open at once.
    pub fn connection_slots(&self) -> usize {
        self.conns.slots()
    }

    /// Entries in the ICTCP flow tables of all hosts.
    pub fn ictcp_entries(&self) -> usize {
        self.ictcp.iter().flatten().map(Interface::len).sum()
    }

    /// Registers connection `c`'s ends with ICTCP on their hosts, where it runs.
    fn attach_ictcp(&mut self, c: u32) {
        let conn = &mut self.conns[c as usize];
        for e in 0..2 {
            if let Some(i) = &mut self.ictcp[conn.hosts[e] as usize] {
                conn.ictcp[e] = Some(i.add_conn(conn.start));
            }
        }
    }

    /// Runs `f` on end `e` of connection `c` (told first how much its NIC can take), with the
    /// current time and the scratch output buffer, then sends what it emitted.
    #[inline]
    fn drive(&mut self, c: u32, e: u8, f: impl FnOnce(&mut Endpoint, Time, &mut Vec<Segment>)) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let ep = self.tx_room(c, e);
        f(ep, now, &mut out);
        self.out = out;
        self.after_endpoint(c, e);
    }

    /// Sends what an endpoint emitted, records completion, and makes sure a calendar event
    /// exists no later than each of its timer deadlines (lazy cancellation: a stale event
    /// finds its deadline moved and re-arms).
    fn after_endpoint(&mut self, c: u32, e: u8) {
        let mut out = std::mem::take(&mut self.out);
        let conn = &mut self.conns[c as usize];
        let host = conn.hosts[e as usize];
        let ictcp_entry = conn.ictcp[e as usize];
        let class = conn.class;
        conn.in_flight += out.len() as u32;
        let nic = self.host_port[host as usize];
        let mut edge = None;
        for mut pkt in out.drain(..) {
            pkt.class = class; // the host marks its packets with the flow's class
            if let Some(k) = ictcp_entry {
                // ICTCP rewrites the window of each segment its host sends (§VI-A).
                let i = self.ictcp[host as usize].as_mut().expect("attached");
                i.on_send(self.now, k, &mut pkt);
            }
            if pkt.has(ACK) {
                edge = Some(pkt.ack + pkt.rwnd as u64);
            }
            self.injected += 1;
            let size = pkt.size;
            let pkt = self.headers.send(&pkt);
            if let Some(departure) = self.enqueue(nic, pkt) {
                if self.host_queue.bytes_per_conn > 0 {
                    self.conns[c as usize].queued_in_nic(e as usize, departure, size);
                }
            }
        }
        self.out = out;
        let now = self.now;
        let end = &mut self.conns[c as usize].ends[e as usize];
        if let Some(edge) = edge {
            end.on_window_advertised(edge);
        }
        if end.nic_blocked() {
            self.wait_for_nic(host, c, e);
        }
        let conn = &mut self.conns[c as usize];
        if conn.completion.is_none() {
            if let Some(b) = conn.bytes {
                if conn.ends[1].delivered() >= b {
                    conn.completion = Some(now);
                }
            }
        }
        let ep = &conn.ends[e as usize];
        let deadlines = [ep.deadline(Timer::Rto), ep.deadline(Timer::DelayedAck), ep.deadline(Timer::Pace)];
        for (kind, deadline) in deadlines.into_iter().enumerate() {
            if let Some(d) = deadline {
                let pending = &mut conn.timer_event[e as usize][kind];
                if pending.is_none_or(|t| t > d) {
                    *pending = Some(d);
                    let ev = match kind {
                        TIMER_RTO => Event::Rto(c, e),
                        TIMER_DELACK => Event::DelayedAck(c, e),
                        _ => Event::Pace(c, e),
                    };
                    self.cal.schedule_timer(d, ev);
                }
            }
        }
        if conn.query.is_none() {
            if conn.is_finished() {
                self.ending.push(c);
            }
            return;
        }
        self.query_progress(c, e);
        if self.conns[c as usize].is_finished() {
            self.ending.push(c);
        }
    }

    /// Tells end `e` of connection `c` how many packets its host's NIC queue can take now,
    /// and hands it over. The per-connection limit (like Linux's TCP small queues) lets a
    /// connection add packets while it has less than the limit queued, so it may end just
    /// above it.
    fn tx_room(&mut self, c: u32, e: u8) -> &mut Endpoint {
        let conn = &mut self.conns[c as usize];
        let host = conn.hosts[e as usize];
        let mut room = self.ports[self.host_port[host as usize] as usize].free_slots(self.now, self.warmup);
        let limit = self.host_queue;
        if limit.bytes_per_conn > 0 {
            let queued = conn.nic_bytes(e as usize, self.now);
            room = room.min(limit.bytes_per_conn.saturating_sub(queued).div_ceil(limit.max_packet) as usize);
        }
        let ep = &mut conn.ends[e as usize];
        ep.set_nic_room(room);
        ep
    }

    /// Parks a sender its full NIC queue stopped, and makes sure it is woken when the packet
    /// in service leaves.
    fn wait_for_nic(&mut self, host: u32, c: u32, e: u8) {
        let waiting = &mut self.nic_waiting[host as usize];
        if !waiting.contains(&(c, e)) {
            waiting.push((c, e));
        }
        // Room comes back when the packet in service leaves a full NIC, or when this
        // connection's oldest queued packet leaves.
        let nic = self.host_port[host as usize] as usize;
        let own = self.conns[c as usize].first_nic_departure(e as usize);
        let wake = match (self.ports[nic].next_departure(), own) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(self.now),
        };
        if self.nic_wake[host as usize].is_none_or(|t| t > wake) {
            self.nic_wake[host as usize] = Some(wake);
            self.cal.schedule(wake, Event::NicRoom(host));
        }
    }

    /// Room in host `h`'s NIC queue: its waiting senders go on, in the order they stopped.
    fn nic_room(&mut self, h: u32) {
        if self.nic_wake[h as usize] != Some(self.now) {
            return; // superseded by an earlier wake-up
        }
        self.nic_wake[h as usize] = None;
        for (c, e) in std::mem::take(&mut self.nic_waiting[h as usize]) {
            // `after_endpoint` parks it again if the NIC filled up. A connection that got
            // its room another way and has ended since is left out.
            if self.conns.get(c).is_some() {
                self.drive(c, e, |ep, now, out| ep.try_send(now, out));
            }
        }
    }

    /// A generator's flow arrives: its connection opens now, and the source's next arrival
    /// is drawn.
    fn arrive(&mut self, slot: u32) {
        let (g, k) = self.arrival_slots[slot as usize];
        let gen = &mut self.generators[g as usize];
        let a = gen.arrival(k as usize);
        if let Some(t) = gen.next_arrival(k as usize, self.now) {
            self.cal.schedule(t, Event::Arrive(slot));
        }
        let (cc, rcv_buffer, class) = (gen.cc, gen.rcv_buffer, gen.class);
        let id = self.conns.len() as u32;
        let mut conn = self.factory.make(id, a.src, a.dst, cc, self.now, rcv_buffer);
        conn.ends[0].write(a.bytes);
        conn.bytes = Some(a.bytes);
        conn.class = class;
        conn.generator = Some(g);
        self.conns.push(conn);
        self.attach_ictcp(id);
        self.drive(id, 0, |ep, now, out| ep.connect(now, out));
    }

    /// Issues the next query of workload `w`: a request to every server.
    fn forget_rounds(&mut self, rounds: u64) {
        if let Some(left) = self.rounds_left.as_mut() {
            *left -= rounds;
        }
    }

    fn issue_query(&mut self, w: u32) {
        let now = self.now;
        let wl = &mut self.workloads[w as usize];
        let index = wl.queries.len() as u32;
        if index >= wl.rounds {
            return;
        }
        // Rounds that `stop_s` cuts off no longer hold the run open (stop_when_queries_done):
        // a barrier workload finds out here, a Poisson one when its next arrival would fall
        // past the stop.
        let (rounds, stop) = (wl.rounds, wl.stop);
        if stop.is_some_and(|stop| now >= stop) {
            self.forget_rounds(u64::from(rounds - index));
            return;
        }
        if let Some(next) = wl.next_interval().map(|dt| now + dt) {
            if stop.is_some_and(|stop| next >= stop) {
                self.forget_rounds(u64::from(rounds - index - 1));
            } else {
                self.cal.schedule(next, Event::IssueQuery(w));
            }
        }
        let wl = &self.workloads[w as usize];
        let conns: Vec<u32> = if wl.persistent {
            wl.conns.clone()
        } else {
            // A new connection per request, with its handshake (SYN at issue time).
            let (client, cc, rcv_buffer, class) = (wl.client, wl.cc, wl.rcv_buffer, wl.class);
            let servers = wl.servers.clone();
            let first = self.conns.len() as u32;
            for (i, server) in servers.into_iter().enumerate() {
                let mut conn = self.factory.make(first + i as u32, client, server, cc, now, rcv_buffer);
                conn.class = class;
                conn.query = Some(Box::new(QueryRole {
                    workload: w,
                    query: Some(index),
                    requests_answered: 0,
                    responses_seen: 0,
                }));
                self.conns.push(conn);
                self.attach_ictcp(first + i as u32);
            }
            (first..self.conns.len() as u32).collect()
        };
        let timeouts_at_issue = conns.iter().map(|&c| self.conns.timeouts(c)).sum();
        let rto_at_issue = conns.iter().map(|&c| self.conns.get(c).map_or([0; 2], Conn::rto_counts)).collect();
        let wl = &mut self.workloads[w as usize];
        wl.queries.push(QueryRecord {
            issued: now,
            done: None,
            timeouts: 0,
            spurious_timeouts: 0,
        });
        wl.open.push(OpenQuery {
            query: index,
            servers_done: 0,
            timeouts_at_issue,
            rto_at_issue,
            first_conn: (!wl.persistent).then(|| conns[0]),
        });
        let request = wl.request;
        for c in conns {
            if self.conns.get(c).is_none() {
                continue; // a persistent connection whose handshake failed: that server is unreachable
            }
            self.drive(c, 0, |client, now, out| {
                client.write(request);
                if client.state() == crate::tcp::State::Listen {
                    client.connect(now, out);
                } else {
                    client.try_send(now, out);
                }
            });
        }
    }

    /// After end `e` of query connection `c` took in data: a server answers each newly
    /// complete request; a client counts each newly complete response towards its query.
    fn query_progress(&mut self, c: u32, e: u8) {
        let now = self.now;
        let conn = &self.conns[c as usize];
        let mut role = *conn.query.as_deref().expect("a query connection");
        let wl = &mut self.workloads[role.workload as usize];
        if e == 1 {
            let requests = conn.ends[1].delivered() / wl.request;
            while role.requests_answered < requests {
                role.requests_answered += 1;
                let delay = wl.response_delay();
                self.cal.schedule(now + delay, Event::Respond(c));
            }
        } else {
            let responses = conn.ends[0].delivered() / wl.response;
            while role.responses_seen < responses {
                role.responses_seen += 1;
                let q = wl.query_of(&role) as u32;
                let servers = wl.servers.len() as u32;
                let Some(i) = wl.open.iter().position(|o| o.query == q) else {
                    unreachable!("a response to query {q}, which is not open")
                };
                let open = &mut wl.open[i];
                open.servers_done += 1;
                if open.servers_done == servers {
                    let open = wl.open.swap_remove(i);
                    if let Some(left) = &mut self.rounds_left {
                        *left -= 1;
                    }
                    let conns = match open.first_conn {
                        Some(first) => first..first + servers,
                        None => wl.conns[0]..wl.conns[0] + servers,
                    };
                    let timeouts: u64 = conns.clone().map(|c| self.conns.timeouts(c)).sum();
                    let record = &mut wl.queries[q as usize];
                    record.done = Some(now);
                    record.timeouts = timeouts - open.timeouts_at_issue;
                    // Which of its timeouts were spurious: known once the ACKs after them arrive,
                    // which may be after now (the ACK of a response's last segment follows it).
                    // Connections without a timeout during the query add nothing: left out.
                    let parts: Vec<_> = conns
                        .zip(open.rto_at_issue)
                        .map(|(c, issue)| (c, issue, self.conns.get(c).map_or(issue, |conn| conn.rto_counts())))
                        .filter(|&(_, issue, done)| done != issue)
                        .collect();
                    if !parts.is_empty() {
                        wl.unsettled.push(UnsettledQuery { query: q, parts });
                        wl.settle_spurious(&self.conns, None, false);
                    }
                    if wl.mean_interval.is_none() {
                        self.cal.schedule(now, Event::IssueQuery(role.workload));
                    }
                }
            }
        }
        if let Some(kept) = self.conns[c as usize].query.as_deref_mut() {
            *kept = role;
        }
    }

    /// The class queues' counters, port by port.
    fn class_stats(&self) -> Vec<ClassStats> {
        let mut rows = Vec::new();
        for (p, port) in self.ports.iter().enumerate() {
            let Some(d) = port.discipline() else { continue };
            for (class, c) in d.class_counters().into_iter().enumerate() {
                rows.push(ClassStats {
                    port: p as u32,
                    class: class as u8,
                    arrived_packets: c.arrived,
                    enqueued_packets: c.enqueued,
                    sent_packets: c.sent_packets,
                    sent_bytes: c.sent_bytes,
                    drops_buffer: c.drops_buffer,
                    drops_aqm: c.drops_aqm,
                    marks: c.marks,
                    max_packets: c.max_packets,
                });
            }
        }
        rows
    }

    /// Every packet hosts sent, by where it is now: delivered, dropped by a port, or in
    /// flight (on a port, or held by a host's NIC before its stack takes it).
    fn conservation(&self) -> Conservation {
        let held_by_hosts = self.rx_moderation.iter().flatten().map(|rx| rx.held() as u64).sum::<u64>()
            + self.rx_processing.iter().flatten().map(|p| p.held() as u64).sum::<u64>();
        Conservation {
            injected: self.injected,
            delivered: self.delivered,
            dropped: self.ports.iter().map(|p| p.counters.drops()).sum(),
            in_flight: held_by_hosts + self.ports.iter().map(|p| p.in_flight() as u64).sum::<u64>(),
        }
    }

    fn results(&mut self) -> Results {
        let window = (self.end - self.warmup).as_secs_f64();
        for wl in &mut self.workloads {
            wl.settle_spurious(&self.conns, None, true); // what is not classified by now never was spurious
        }
        let mut ports = Vec::with_capacity(self.ports.len());
        let conservation = self.conservation();
        // Packets on ports hold headers, and only those do (hosts' NICs hold whole segments).
        let on_ports: u64 = self.ports.iter().map(|p| p.in_flight() as u64).sum();
        debug_assert_eq!(on_ports, self.headers.in_network() as u64, "packets on ports against headers held");
        for port in &mut self.ports {
            port.close(self.end, self.warmup);
            let queued_at_end = port.occupancy_packets(self.end, self.warmup) as u64;
            let c = &port.counters;
            let mut hist: Vec<f64> = c.occupancy.iter().map(|t| t.as_secs_f64()).collect();
            while hist.len() > 1 && hist.last() == Some(&0.0) {
                hist.pop();
            }
            let total: f64 = hist.iter().sum();
            let mean_packets = if total > 0.0 {
                hist.iter().enumerate().map(|(n, t)| n as f64 * t).sum::<f64>() / total
            } else {
                0.0
            };
            ports.push(PortStats {
                name: port.name.clone(),
                node: self.nodes[port.node as usize].name.clone(),
                peer: self.nodes[port.peer as usize].name.clone(),
                is_switch: port.is_switch,
                rate_bps: port.rate.bps() as f64,
                arrived_packets: c.arrived,
                enqueued_packets: c.enqueued,
                sent_packets: c.sent_packets,
                sent_bytes: c.sent_bytes,
                drops_buffer: c.drops_buffer,
                drops_pool: c.drops_pool,
                drops_aqm: c.drops_aqm,
                drops_dequeue: c.drops_dequeue,
                drops_nonect: c.drops_by_kind.nonect,
                drops_syn: c.drops_by_kind.syn,
                drops_ack: c.drops_by_kind.ack,
                drops_retransmit: c.drops_by_kind.retransmit,
                marks: c.marks,
                drops_after_warmup: c.drops() - c.drops_at_warmup,
                marks_after_warmup: c.marks - c.marks_at_warmup,
                queued_at_end,
                max_packets: c.max_packets,
                max_bytes: c.max_bytes.as_u64(),
                mean_packets,
                mean_bytes: c.byte_ps as f64 / (self.end - self.warmup).as_ps() as f64,
                utilization: c.busy.as_secs_f64() / window,
                occupancy_time_s: hist,
            });
        }
        let nan_or = |t: Option<Time>| t.map_or(f64::NAN, Time::as_secs_f64);
        let idle = self.idle.take();
        let flows = (0..self.conns.len() as u32)
            .map(|i| {
                let r = self.flow_record(i);
                let ideal = idle.as_deref().and_then(|idle| self.ideal_fct(idle, &r));
                r.stats(i, window, ideal)
            })
            .collect();
        self.idle = idle;
        Results {
            name: self.name.clone(),
            seed: self.seed,
            duration_s: self.end.as_secs_f64(),
            warmup_s: self.warmup.as_secs_f64(),
            events: self.events,
            packet_hops: self.hops,
            ports,
            classes: self.class_stats(),
            flows,
            switches: self
                .nodes
                .iter()
                .filter(|n| n.is_switch)
                .map(|n| SwitchStats {
                    name: n.name.clone(),
                    shared_bytes: n.shared.as_ref().map_or(0, |s| s.total.as_u64()),
                    alpha: n.shared.as_ref().map_or(0.0, |s| s.alpha),
                    max_used_bytes: n.shared.as_ref().map_or(0, |s| s.max_used.as_u64()),
                })
                .collect(),
            queries: self
                .workloads
                .iter()
                .enumerate()
                .flat_map(|(w, wl)| {
                    wl.queries.iter().enumerate().map(move |(q, r)| QueryStats {
                        workload: w as u32,
                        query: q as u32,
                        client: wl.client,
                        servers: wl.servers.len() as u32,
                        issued_s: r.issued.as_secs_f64(),
                        completed_s: nan_or(r.done),
                        qct_s: r.done.map_or(f64::NAN, |d| (d - r.issued).as_secs_f64()),
                        response_bytes: wl.response * wl.servers.len() as u64,
                        timeouts: r.timeouts,
                        spurious_timeouts: r.spurious_timeouts,
                    })
                })
                .collect(),
            queue_samples: std::mem::take(&mut self.queue_samples),
            trace: std::mem::take(&mut self.tracer.records),
            pool_samples: std::mem::take(&mut self.pool_samples),
            flow_samples: std::mem::take(&mut self.flow_samples),
            ictcp_samples: std::mem::take(&mut self.ictcp_samples),
            udp: self.udp.iter().enumerate().map(|(i, u)| u.stats(i as u32, window)).collect(),
            probes: std::mem::take(&mut self.probes),
            conservation,
        }
    }
}
