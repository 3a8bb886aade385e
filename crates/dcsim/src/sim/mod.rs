//! The world and its event loop. `Simulation` alone owns time and the calendar, and routes
//! each event to the parts that own the state: the fabric (`fabric.rs`: ports, links, shared
//! memories, routes), the hosts (`hosts.rs`: NIC receive paths, send backpressure, receive-
//! window policies), the connections (`conn.rs`, `conns.rs`: two TCP ends each), the
//! applications (`apps.rs`: query workloads, traffic generators, UDP sources) and measurement
//! (`measure.rs`: samples, traces, results). Parts take the current time and the calendar as
//! arguments; none holds a reference to another.

mod apps;
mod build;
pub mod calendar;
mod conn;
mod conns;
mod fabric;
mod hosts;
mod invariants;
mod measure;
pub mod memory;
#[cfg(test)]
mod pacing_tests;
mod parallel;
mod parameters;
mod trace;
pub mod traffic;
mod udp;
mod workload;

use crate::error::ConfigError;
use crate::ids::{ConnId, HostId, PortId, UdpId, WorkloadId};
use crate::net::packet::{Segment, ACK, UDP};
use crate::results::{Conservation, Results};
use crate::scenario::Scenario;
use crate::tcp::{Endpoint, Timer};
use crate::units::Time;
use apps::Applications;
use calendar::Calendar;
use conn::{Conn, ConnFactory};
use conns::{Conns, FlowRecord};
use fabric::Fabric;
use hosts::Hosts;
use measure::Measurement;
use workload::QueryRole;

pub use parallel::ParallelStats;

/// Everything that can happen. Small and `Copy`: packets in flight live on their link.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// The head packet on a port's link reaches the peer node.
    LinkArrive(PortId),
    /// A port with a queue discipline finished a transmission: its next packet may start.
    TxDone(PortId),
    /// A timer of an end of a connection is due (or was, before its deadline moved).
    Timer(ConnId, u8, Timer),
    /// A flow opens its connection.
    Open(ConnId),
    /// A flow's application stops writing.
    StopWriting(ConnId),
    /// A query workload issues its next query.
    IssueQuery(WorkloadId),
    /// A server answers one request on a query connection.
    Respond(ConnId),
    /// A flow arrives at a generator's source (an arrival slot of `Applications`).
    Arrive(u32),
    /// A UDP source sends its next packet.
    UdpSend(UdpId),
    /// A slot frees in a host's full NIC queue: its blocked senders may go on.
    NicRoom(HostId),
    /// A host NIC's pending receive interrupt: its held packets reach the stack (DCTCP paper §3.5).
    RxInterrupt(HostId),
    /// Host h's receive path is done with the packet first in line (`host.rx_processing_us`).
    RxProcessed(HostId),
    /// A packet from another partition of a parallel run reaches its link's peer (the
    /// fabric's inbound slot).
    Inbound(u32),
    QueueSample,
    FlowSample,
    WarmupEnd,
}

#[derive(Clone)]
pub struct Simulation {
    name: String,
    seed: u64,
    now: Time,
    end: Time,
    warmup: Time,
    cal: Calendar<Event>,
    fabric: Fabric,
    hosts: Hosts,
    conns: Conns,
    /// Connections that may have finished during the current event, ended after it.
    ending: Vec<ConnId>,
    factory: ConnFactory,
    apps: Applications,
    measure: Measurement,
    /// The idle network, to run a flow alone for its ideal completion time
    /// (`measure.ideal_fct`); None when off or no flow has a size.
    idle: Option<Box<Simulation>>,
    /// Scratch buffer for segments an endpoint emits (reused: no allocation per event).
    out: Vec<Segment>,
    /// Scratch buffer for the senders a NIC wakes (swapped with the host's list: reused).
    woken: Vec<(ConnId, u8)>,
    events: u64,
    /// Packets hosts sent, and packets their stacks took.
    injected: u64,
    delivered: u64,
    /// The invariant-checking mode's state (`sim.check_invariants`), when on.
    checker: Option<Box<invariants::InvariantChecker>>,
    /// What this run runs with (`parameters.rs`).
    parameters: serde_json::Value,
    /// The run across threads of a cut network (`parallel.rs`): boxed, off the hot path.
    par: Box<parallel::Parallel>,
}

impl Simulation {
    pub fn new(s: &Scenario) -> Result<Self, ConfigError> {
        Self::for_consumer(s, memory::Consumer::Rust)
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
        if let Some(plan) = self.par.plan.take() {
            if !self.run_partitioned(*plan, every_events, &mut observe) {
                return None;
            }
            self.now = self.end;
            return Some(self.results());
        }
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
        while let Some((t, ev)) = self.cal.pop_until(self.end) {
            self.now = t;
            self.events += 1;
            self.dispatch(ev);
            if !self.ending.is_empty() {
                self.end_finished();
            }
            if self.checker.is_some() {
                self.check_invariants();
            }
            if self.apps.rounds_left == Some(0) {
                // Every round is done (sim.stop_when_queries_done). Within the warm-up that
                // would leave no measurement window: the run goes on to its duration.
                if t > self.warmup {
                    self.end = t;
                    break;
                }
                self.apps.rounds_left = None;
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

    /// Routes an event to the part it is addressed to (inlined into the loop, its one caller).
    #[inline(always)]
    fn dispatch(&mut self, ev: Event) {
        let now = self.now;
        match ev {
            Event::LinkArrive(p) => {
                let at_host = self.fabric.link_arrive(now, p, &mut self.cal);
                self.reach(at_host);
            }
            Event::Inbound(slot) => {
                let at_host = self.fabric.inbound(now, slot, &mut self.cal);
                self.reach(at_host);
            }
            Event::TxDone(p) => {
                self.fabric.tx_done(now, p, &mut self.cal);
                self.settle_drops();
            }
            Event::Timer(c, e, timer) => self.timer_fired(c, e, timer),
            Event::Open(c) => self.drive(c, 0, |ep, now, out| ep.connect(now, out)),
            Event::StopWriting(c) => {
                // A flow that has ended sent all it was to send before its stop.
                if let Some(conn) = self.conns.get_mut(c) {
                    conn.ends[0].stop_writing();
                }
            }
            Event::NicRoom(h) => self.nic_room(h),
            Event::RxInterrupt(h) => {
                while let Some(seg) = self.hosts.interrupted(h) {
                    if self.hosts.hand_up(now, h, &seg, &mut self.cal) {
                        self.host_receive(h, &seg);
                    }
                }
            }
            Event::RxProcessed(h) => {
                while let Some(seg) = self.hosts.processed(now, h) {
                    self.host_receive(h, &seg);
                }
                self.hosts.schedule_processing(h, &mut self.cal);
            }
            Event::IssueQuery(w) => self.issue_query(w),
            Event::Arrive(slot) => self.arrive(slot),
            Event::UdpSend(i) => {
                let seg = self.apps.udp_packet(i, now);
                self.send(HostId(seg.src), &seg);
                self.apps.schedule_udp(i, self.end, &mut self.cal);
            }
            Event::Respond(c) => {
                let response = self.apps.response_bytes(&self.conns[c]);
                self.drive(c, 1, |server, now, out| {
                    server.write(response);
                    server.try_send(now, out);
                });
            }
            Event::QueueSample => self.measure.sample_queues(now, self.warmup, &mut self.fabric, &mut self.cal),
            Event::FlowSample => self.measure.sample_flows(now, &self.conns, &mut self.hosts, &mut self.cal),
            Event::WarmupEnd => {
                self.conns.mark_warmup();
                self.fabric.mark_warmup();
                self.apps.mark_warmup();
            }
        }
    }

    /// A packet reached a switch (`None`: forwarded, maybe dropped) or a host's NIC.
    #[inline(always)]
    fn reach(&mut self, at_host: Option<(HostId, Segment)>) {
        self.settle_drops();
        if let Some((host, seg)) = &at_host {
            if self.hosts.nic_arrival(self.now, *host, seg, &mut self.cal) {
                self.host_receive(*host, seg);
            }
        }
    }

    /// Host `host` sends a packet into its NIC: its departure time if the NIC took it.
    #[inline(always)]
    fn send(&mut self, host: HostId, seg: &Segment) -> Option<Time> {
        self.injected += 1;
        let departure = self.fabric.send(self.now, host, seg, &mut self.cal);
        self.settle_drops();
        departure
    }

    /// The senders of the packets the fabric just refused or dropped hear of it.
    #[inline(always)]
    fn settle_drops(&mut self) {
        if self.fabric.has_dropped() {
            self.tell_senders();
        }
    }

    /// One packet fewer of a connection is in flight for each dropped packet (it may have
    /// been the last it was waiting for), or a UDP source counts its loss. Out of line: most
    /// operations drop nothing.
    #[cold]
    #[inline(never)]
    fn tell_senders(&mut self) {
        if self.par.part.is_some() {
            // A partition may hold no copy of the connection; copies are kept to the end.
            self.fabric.take_dropped(|_| {});
            return;
        }
        let (conns, apps, ending) = (&mut self.conns, &mut self.apps, &mut self.ending);
        self.fabric.take_dropped(|pkt| {
            if pkt.has(UDP) {
                apps.udp_dropped(pkt);
                return;
            }
            let c = ConnId(pkt.conn);
            let conn = &mut conns[c];
            conn.in_flight -= 1;
            if conn.in_flight == 0 {
                ending.push(c);
            }
        });
    }

    /// Host `host`'s stack takes a packet its NIC received.
    fn host_receive(&mut self, host: HostId, pkt: &Segment) {
        self.delivered += 1;
        if pkt.has(UDP) {
            // A receive-window policy sees every packet the interface receives (ICTCP §IV-A).
            if let Some(policy) = &mut self.hosts.policies[host] {
                policy.on_receive(self.now, pkt.size, None, 0, Time::ZERO);
            }
            if let Some(echo) = self.apps.udp_receive(self.now, pkt) {
                self.send(host, &echo);
            }
            return;
        }
        let c = ConnId(pkt.conn);
        let conn = &mut self.conns[c];
        // In a partition of a parallel run, a copy counts only what its own ends sent (and
        // is never ended early): a receiver's copy goes below zero, harmlessly.
        debug_assert!(
            conn.in_flight > 0 || self.par.part.is_some(),
            "a packet of connection {c} delivered twice"
        );
        conn.in_flight = conn.in_flight.wrapping_sub(1);
        let e = 1 - pkt.from_end;
        // The end's key in its host's policy (a host with none gives its ends none): the
        // connection, in cache already, answers without a look at the host's entry.
        if let Some(k) = conn.policy[e as usize] {
            let policy = self.hosts.policies[host].as_mut().expect("attached");
            policy.on_receive(self.now, pkt.size, Some(k), pkt.len, pkt.ts_ecr);
        }
        self.drive(c, e, |ep, now, out| ep.on_segment(now, pkt, out));
    }

    fn timer_fired(&mut self, c: ConnId, e: u8, timer: Timer) {
        let Some(conn) = self.conns.get_mut(c) else {
            return; // a stale event of an ended connection, whose timers were all off
        };
        let pending = &mut conn.timer_event[e as usize][timer as usize];
        if *pending == Some(self.now) {
            *pending = None;
        }
        self.drive(c, e, |ep, now, out| {
            if ep.deadline(timer).is_some_and(|d| d <= now) {
                ep.on_timer(timer, now, out);
            }
        });
    }

    /// Ends the connections in `ending` whose work is done: they leave their hosts'
    /// receive-window policies (the driver's FIN/RST, ICTCP §VI-A), and their state gives way
    /// to their record. A stale timer event of one finds it ended and does nothing, as its
    /// end would have done with no timer armed.
    fn end_finished(&mut self) {
        while let Some(c) = self.ending.pop() {
            if !self.conns.get(c).is_some_and(Conn::is_finished) {
                continue;
            }
            self.apps.on_conn_end(c, &self.conns);
            let record = measure::flow_record(&self.conns, &self.hosts, c);
            let conn = self.conns.end(c, record);
            self.hosts.detach(&conn);
        }
    }

    /// How long flow `r` takes alone on the idle network: a copy of it runs just that flow,
    /// from the same start, until the flow completes (None if it does not by the run's end).
    fn ideal_fct(&self, idle: &Simulation, r: &FlowRecord) -> Option<Time> {
        let bytes = r.bytes?;
        r.completion?;
        let mut sim = idle.clone();
        let mut conn = sim.factory.make(sim.conns.next_id(), r.src, r.dst, r.cc, r.start, r.rcv_buffer);
        conn.ends[0].write(bytes);
        conn.bytes = Some(bytes);
        conn.class = r.class;
        let id = sim.open(conn);
        sim.cal.schedule(r.start, Event::Open(id));
        sim.end = self.end;
        let completion = |sim: &Simulation| match sim.conns.get(id) {
            Some(c) => c.completion,
            None => sim.conns.ended(id).and_then(|r| r.completion),
        };
        // One event at a time, until the flow completes or the run's end.
        sim.advance(1, &mut |sim| completion(sim).is_none());
        completion(&sim).map(|done| done - r.start)
    }

    /// Why this run uses one thread whatever `sim.threads` asks (None: its network is cut,
    /// and its partitions run on up to that many threads).
    pub fn why_one_thread(&self) -> Option<&str> {
        self.par.why_whole.as_deref()
    }

    /// Sets the threads a cut network's run uses (as `sim.threads`; the results do not
    /// depend on it).
    pub fn set_threads(&mut self, threads: usize) {
        self.par.threads = threads.max(1);
    }

    /// Runs the network whole, on one thread, even if it could be cut: the engine as it
    /// runs a network it cannot cut (for comparing the two, in tests and benchmarks).
    pub fn keep_whole(&mut self) {
        if self.par.plan.take().is_some() {
            self.par.why_whole = Some("kept whole (keep_whole)".into());
        }
    }

    /// Has a parallel run record each window's events per partition (`parallel_stats`).
    pub fn record_windows(&mut self) {
        self.par.window_log = Some(Vec::new());
    }

    /// What the parallel run measured, after a cut network's run.
    pub fn parallel_stats(&self) -> Option<&ParallelStats> {
        self.par.stats.as_deref()
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
        self.hosts.policy_entries()
    }

    /// Adds a connection built during the run, registered with its hosts' receive-window
    /// policies: its id.
    fn open(&mut self, conn: Conn) -> ConnId {
        let id = self.conns.next_id();
        self.conns.push(conn);
        self.hosts.attach(&mut self.conns[id]);
        id
    }

    /// Runs `f` on end `e` of connection `c` (told first how much its NIC can take), with the
    /// current time and the scratch output buffer, then sends what it emitted.
    #[inline]
    fn drive(&mut self, c: ConnId, e: u8, f: impl FnOnce(&mut Endpoint, Time, &mut Vec<Segment>)) {
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
    fn after_endpoint(&mut self, c: ConnId, e: u8) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let conn = &mut self.conns[c];
        let host = conn.hosts[e as usize];
        let policy_key = conn.policy[e as usize];
        let class = conn.class;
        conn.in_flight = conn.in_flight.wrapping_add(out.len() as u32);
        let mut edge = None;
        for mut pkt in out.drain(..) {
            pkt.class = class; // the host marks its packets with the flow's class
            if let Some(k) = policy_key {
                // The host's receive-window policy may lower the window of each segment it
                // sends (ICTCP §VI-A).
                let policy = self.hosts.policies[host].as_mut().expect("attached");
                policy.on_send(now, k, &mut pkt);
            }
            if pkt.has(ACK) {
                edge = Some(pkt.ack + pkt.rwnd as u64);
            }
            if let Some(departure) = self.send(host, &pkt) {
                if self.hosts.limits_per_conn() {
                    self.conns[c].queued_in_nic(e as usize, departure, pkt.size);
                }
            }
        }
        self.out = out;
        let end = &mut self.conns[c].ends[e as usize];
        if let Some(edge) = edge {
            end.on_window_advertised(edge);
        }
        if end.nic_blocked() {
            self.wait_for_nic(host, c, e);
        }
        let conn = &mut self.conns[c];
        if conn.completion.is_none() {
            if let Some(b) = conn.bytes {
                if conn.ends[1].delivered() >= b {
                    conn.completion = Some(now);
                }
            }
        }
        for timer in Timer::ALL {
            if let Some(d) = conn.ends[e as usize].deadline(timer) {
                let pending = &mut conn.timer_event[e as usize][timer as usize];
                if pending.is_none_or(|t| t > d) {
                    *pending = Some(d);
                    self.cal.schedule_timer(d, Event::Timer(c, e, timer));
                }
            }
        }
        if conn.query.is_none() {
            if conn.is_finished() && self.par.part.is_none() {
                self.ending.push(c);
            }
            return;
        }
        self.apps.query_progress(now, c, e, &mut self.conns, &mut self.cal);
        if self.conns[c].is_finished() {
            self.ending.push(c);
        }
    }

    /// Tells end `e` of connection `c` how many packets its host's NIC queue can take now,
    /// and hands it over.
    fn tx_room(&mut self, c: ConnId, e: u8) -> &mut Endpoint {
        let conn = &mut self.conns[c];
        let free = self.fabric.nic_free_slots(conn.hosts[e as usize], self.now);
        let room = self.hosts.nic_room(self.now, conn, e, free);
        let ep = &mut conn.ends[e as usize];
        ep.set_nic_room(room);
        ep
    }

    /// Parks a sender its full NIC queue stopped, to be woken when room comes back.
    fn wait_for_nic(&mut self, host: HostId, c: ConnId, e: u8) {
        let in_service = self.fabric.nic(host).next_departure();
        let own = self.conns[c].first_nic_departure(e as usize);
        self.hosts.park(self.now, host, (c, e), in_service, own, &mut self.cal);
    }

    /// Room in host `h`'s NIC queue: its waiting senders go on, in the order they stopped.
    fn nic_room(&mut self, h: HostId) {
        let mut woken = std::mem::take(&mut self.woken);
        if !self.hosts.woken(self.now, h, &mut woken) {
            self.woken = woken;
            return; // superseded by an earlier wake-up
        }
        for &(c, e) in &woken {
            // `after_endpoint` parks it again if the NIC filled up. A connection that got
            // its room another way and has ended since is left out.
            if self.conns.get(c).is_some() {
                self.drive(c, e, |ep, now, out| ep.try_send(now, out));
            }
        }
        woken.clear();
        self.woken = woken;
    }

    /// A generator's flow arrives: its connection opens now.
    fn arrive(&mut self, slot: u32) {
        let flow = self.apps.arrive(self.now, slot, &mut self.cal);
        let a = flow.arrival;
        let (src_here, dst_here) = (self.host_here(HostId(a.src)), self.host_here(HostId(a.dst)));
        if !(src_here || dst_here) {
            // A partition of a parallel run that simulates neither end: the id only.
            self.conns.push_elsewhere();
            return;
        }
        let mut conn = self.factory.make(
            self.conns.next_id(),
            HostId(a.src),
            HostId(a.dst),
            flow.cc,
            self.now,
            flow.rcv_buffer,
        );
        conn.ends[0].write(a.bytes);
        conn.bytes = Some(a.bytes);
        conn.class = flow.class;
        conn.generator = Some(flow.generator);
        let id = self.open(conn);
        if src_here {
            self.drive(id, 0, |ep, now, out| ep.connect(now, out));
        }
    }

    /// Issues the next query of workload `w`: a request to every server, on its persistent
    /// connections or on new ones.
    fn issue_query(&mut self, w: WorkloadId) {
        let now = self.now;
        let Some(index) = self.apps.next_query(now, w, &mut self.cal) else {
            return;
        };
        let wl = &self.apps.workloads[w];
        let ids: Vec<ConnId> = if wl.plan.persistent {
            wl.conns.clone()
        } else {
            // A new connection per request, with its handshake (SYN at issue time).
            let (client, cc, rcv_buffer, class) = (wl.plan.client, wl.plan.cc, wl.plan.rcv_buffer, wl.plan.class);
            let servers = wl.plan.servers.clone();
            servers
                .into_iter()
                .map(|server| {
                    let mut conn = self.factory.make(self.conns.next_id(), client, server, cc, now, rcv_buffer);
                    conn.class = class;
                    conn.query = Some(Box::new(QueryRole::new(w, Some(index))));
                    self.open(conn)
                })
                .collect()
        };
        self.apps.open_query(now, w, index, &ids, &self.conns);
        let request = self.apps.workloads[w].plan.request;
        for c in ids {
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

    /// Every packet hosts sent, by where it is now.
    fn conservation(&self) -> Conservation {
        measure::conservation(self.injected, self.delivered, &self.fabric, &self.hosts)
    }

    fn results(&mut self) -> Results {
        let window = (self.end - self.warmup).as_secs_f64();
        let queries = self.apps.query_stats(&self.conns);
        let conservation = self.conservation();
        // Packets on ports hold headers, and only those do (hosts' NICs hold whole segments);
        // a parallel run checked each partition's when it joined them (`join`).
        debug_assert!(
            self.par.stats.is_some() || self.fabric.in_flight() == self.fabric.headers.in_network() as u64,
            "packets on ports against headers held"
        );
        let ports = measure::port_stats(&mut self.fabric, self.end, self.warmup);
        let idle = self.idle.take();
        let flows = measure::flow_stats(&self.conns, &self.hosts, window, |r| {
            idle.as_deref().and_then(|idle| self.ideal_fct(idle, r))
        });
        self.idle = idle;
        let mut results = Results {
            name: self.name.clone(),
            seed: self.seed,
            duration_s: self.end.as_secs_f64(),
            warmup_s: self.warmup.as_secs_f64(),
            events: self.events,
            packet_hops: self.fabric.hops,
            ports,
            classes: measure::class_stats(&self.fabric),
            flows,
            switches: measure::switch_stats(&self.fabric),
            queries,
            queue_samples: Default::default(),
            trace: Default::default(),
            pool_samples: Default::default(),
            flow_samples: Default::default(),
            ictcp_samples: Default::default(),
            udp: self.apps.udp_stats(window),
            probes: std::mem::take(&mut self.apps.probes),
            conservation,
        };
        self.measure.take_series(&mut self.fabric, &mut results);
        results
    }
}
