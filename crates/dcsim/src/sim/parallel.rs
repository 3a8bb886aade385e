//! One run across threads: conservative parallel simulation with results that do not depend
//! on the thread count.
//!
//! A network the topology can cut (`Topology::partitions`: a fat-tree per pod, a leaf-spine
//! per leaf, a `graph` as listed) runs as one copy of the world per partition, each with its
//! own calendar, owning the events of its nodes. Time advances in windows no longer than the
//! lookahead: the shortest delay of a link across the cut plus its shortest frame's
//! serialisation. A packet admitted to a port whose peer is in another partition has its
//! arrival fixed then (a FIFO link's schedule is fixed at admission), at least one lookahead
//! later, so it is handed over at the window's end and is in the peer's calendar before the
//! peer's clock reaches it (Chandy and Misra's conservative synchronisation, in windows as
//! in Unison for ns-3 and in Shadow). Windows skip ahead to the earliest pending event.
//!
//! Determinism: each partition's calendar orders its events by (time, its own insertion
//! sequence); packets from other partitions enter it at the start of the window after they
//! were sent, ordered by (arrival, sending partition, order sent). Nothing depends on which
//! thread runs a partition or when, so one thread (which runs the partitions one after the
//! other) and any number of threads give byte-identical results.
//!
//! Connections: each partition keeps a copy of every connection that one of its hosts is an
//! end of, and drives that end; the copies join at the end of the run. Generated flows are
//! drawn in every partition from the generators' one stream, so every partition numbers the
//! connections alike and the flows are those a whole run draws. A connection's copies do
//! not know of each other's packets, so they are kept until the run ends rather than freed
//! when done.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::conns::Conns;
use super::fabric::{Crossing, Cut, HERE};
use super::{Event, Simulation};
use crate::ids::{ConnId, HostId, NodeId, PortId};
use crate::net::topology::shapes::MAX_PARTITIONS;
use crate::net::topology::{rng_stream, Network, RNG_STREAM_PARTITION_SPRAY_BASE};
use crate::scenario::Scenario;
use crate::units::{Bytes, Time};

/// How a cut network runs in parallel: each node's partition and the lookahead.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    /// By `NodeId`.
    pub(super) node_part: Vec<u16>,
    pub(super) parts: usize,
    pub(super) lookahead: Time,
}

/// A simulation's parallel side: in the world, the plan (or why it runs whole) and the
/// threads asked for; in a partition's copy, which partition it is.
#[derive(Clone, Default)]
pub(super) struct Parallel {
    pub(super) plan: Option<Box<Plan>>,
    pub(super) why_whole: Option<String>,
    pub(super) threads: usize,
    /// In a partition's copy: its number, and every node's partition.
    pub(super) part: Option<(u16, Arc<[u16]>)>,
    /// Per window, the events this partition ran (when asked for, `record_windows`).
    pub(super) window_log: Option<Vec<u32>>,
    pub(super) inbound: Vec<Crossing>,
    pub(super) stats: Option<Box<ParallelStats>>,
}

/// What one parallel run measured (for `make bench` and the speedup model).
#[derive(Debug, Clone, Default)]
pub struct ParallelStats {
    pub partitions: usize,
    /// Threads the run used.
    pub threads: usize,
    pub lookahead: Time,
    pub windows: u64,
    /// Events each partition ran.
    pub events: Vec<u64>,
    /// Packets that crossed the cut, and packet-hops in all.
    pub crossings: u64,
    pub hops: u64,
    /// When recorded (`Simulation::record_windows`): per window, each partition's events.
    pub window_events: Vec<Vec<u32>>,
}

/// Why a run of `s` stays whole whatever its topology, if something in it does.
fn whole_because(s: &Scenario) -> Option<&'static str> {
    let whole = [
        (!s.queries.is_empty(), "query workloads"),
        (!s.udp.is_empty(), "UDP sources"),
        (!s.ictcp.hosts.is_empty(), "ICTCP"),
        (s.measure.flow_sample_us > 0.0, "flow samples (measure.flow_sample_us)"),
        (
            !(s.measure.trace_ports.is_empty() && s.measure.trace_flows.is_empty() && s.measure.trace_queries.is_empty()),
            "packet traces",
        ),
    ];
    whole.iter().find(|(on, _)| *on).map(|&(_, what)| what)
}

/// The partitions a run of `s` will be cut into (1: whole), from the scenario alone (for the
/// memory estimate, before anything is built).
pub(super) fn partitions_of(s: &Scenario) -> usize {
    use crate::scenario::Topology;
    // Class queues are on every switch port, the cut's too (`plan` then keeps it whole).
    if !s.sim.partition || s.switch.classes.is_some() || whole_because(s).is_some() {
        return 1;
    }
    match &s.topology {
        Topology::FatTree { k, .. } => *k as usize,
        Topology::LeafSpine { leaves, .. } if *leaves as usize <= MAX_PARTITIONS => *leaves as usize,
        Topology::Graph { partitions, .. } => partitions.len().max(1),
        _ => 1,
    }
}

/// The plan for a run of `s` on `net` whose topology cut its nodes as `partition`, or why
/// it runs whole, on one thread.
pub(super) fn plan(s: &Scenario, partition: Option<Vec<u16>>, net: &Network) -> Result<Plan, String> {
    let Some(node_part) = partition else {
        return Err("the network is not cut: a fat-tree, a leaf-spine or a graph with `partitions` is".into());
    };
    if !s.sim.partition {
        return Err("sim.partition is false: the network is kept whole".into());
    }
    if let Some(what) = whole_because(s) {
        return Err(format!("the parallel engine does not split {what} yet"));
    }
    let smallest_packet = Bytes::from(s.tcp.header_bytes);
    let mut lookahead = Time::MAX;
    for port in &net.ports {
        if node_part[port.node] == node_part[port.peer] {
            continue;
        }
        if port.discipline().is_some() {
            return Err(format!(
                "port {} across the cut has a queue discipline (traffic classes)",
                port.name
            ));
        }
        if port.delay == Time::ZERO {
            // Windows of one small frame's serialisation would hold too few events to gain.
            return Err(format!("link {} across the cut has no delay", port.name));
        }
        // The earliest a packet admitted now can reach the peer (IEEE 802.3 framing included).
        lookahead = lookahead.min(port.delay + port.rate.tx_time(smallest_packet + port.framing));
    }
    if lookahead == Time::MAX {
        return Err("no link crosses the cut".into());
    }
    let parts = node_part.iter().map(|&p| p as usize + 1).max().unwrap_or(1);
    Ok(Plan {
        node_part,
        parts,
        lookahead,
    })
}

/// A barrier whose waiters spin (then yield): a window's work is tens of microseconds, and
/// putting threads to sleep and waking them costs as much.
struct SpinBarrier {
    arrived: AtomicUsize,
    generation: AtomicUsize,
    threads: usize,
    /// A thread panicked (an engine bug, or the invariant mode's report): nobody waits.
    broken: AtomicBool,
}

impl SpinBarrier {
    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation && !self.broken.load(Ordering::Acquire) {
            if spins < 2000 {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// What the threads share. Window `w` writes the `w % 2` halves and reads the others, which
/// window `w - 1` wrote before the barrier between them: no half is written while read.
struct Exchange {
    parts: usize,
    /// The first event's time, the run's end, and the windows' length.
    first: Time,
    end: Time,
    lookahead: Time,
    /// [parity][from · parts + to]: packets sent across the cut in a window.
    mail: [Vec<Mutex<Vec<Crossing>>>; 2],
    /// [parity][partition]: its earliest pending work after the window, ps (MAX: none).
    next: [Vec<AtomicU64>; 2],
    barrier: SpinBarrier,
    /// The window after whose barrier every thread stops (MAX: none yet): set by the main
    /// thread before a barrier, read by all after it. A window number rather than a flag, so
    /// that a thread reading it late, when the main thread has set it for a later window, still
    /// goes on to that window's barrier.
    stop_after: AtomicU64,
}

impl Simulation {
    /// This partition's copy of the world: its own events only, its side of the cut.
    /// `all`: the connections built before the run (taken out of this world, so that a copy
    /// clones only its own).
    fn partition_copy(&self, q: u16, plan: &Plan, node_part: &Arc<[u16]>, all: &Conns) -> Simulation {
        let mut sim = self.clone();
        sim.par.plan = None;
        sim.par.part = Some((q, node_part.clone()));
        let part = &plan.node_part;
        let ours = |n: NodeId| part[n] == q;
        let host_ours = |h: HostId| part[h.0 as usize] == q;
        {
            let Simulation { cal, fabric, conns, .. } = &mut sim;
            let conn_end = |c: ConnId, e: u8| all.get(c).is_some_and(|c| host_ours(c.hosts[e as usize]));
            cal.retain(|ev| match *ev {
                Event::LinkArrive(p) | Event::TxDone(p) => ours(fabric.ports[p].node),
                Event::Timer(c, e, _) => conn_end(c, e),
                Event::Open(c) | Event::StopWriting(c) => conn_end(c, 0),
                Event::NicRoom(h) | Event::RxInterrupt(h) | Event::RxProcessed(h) => host_ours(h),
                // Every partition draws every generated flow, so that all number them alike.
                Event::Arrive(_) | Event::QueueSample | Event::FlowSample | Event::WarmupEnd => true,
                Event::IssueQuery(_) | Event::Respond(_) | Event::UdpSend(_) | Event::Inbound(_) => {
                    unreachable!("a cut run has no queries, UDP or crossings before it starts")
                }
            });
            // Connections neither of whose ends is here keep their ids only.
            for c in all.ids() {
                match all.get(c) {
                    Some(conn) if conn.hosts.iter().any(|&h| host_ours(h)) => conns.push(conn.clone()),
                    _ => conns.push_elsewhere(),
                }
            }
            let peer_part = fabric
                .ports
                .iter()
                .map(|port| {
                    let to = part[port.peer];
                    if ours(port.node) && to != q {
                        to
                    } else {
                        HERE
                    }
                })
                .collect();
            fabric.cut = Some(Box::new(Cut::new(peer_part, plan.parts)));
            let stream = RNG_STREAM_PARTITION_SPRAY_BASE + q as u64;
            fabric.routes.set_spray(rng_stream(self.seed, stream));
        }
        sim.measure.owned_nodes = Some(part.iter().map(|&p| p == q).collect());
        if self.par.window_log.is_some() {
            sim.par.window_log = Some(Vec::new());
        }
        sim
    }

    /// Whether host `h` is simulated here (always, in a whole network).
    #[inline]
    pub(super) fn host_here(&self, h: HostId) -> bool {
        match &self.par.part {
            Some((q, part)) => part[h.0 as usize] == *q,
            None => true,
        }
    }

    /// Runs a cut network's partitions in windows on up to `self.threads` threads, then joins
    /// their state into this world (which ran nothing); false when `observe` stopped it.
    pub(super) fn run_partitioned(&mut self, plan: Plan, every_events: u64, observe: &mut dyn FnMut(f64) -> bool) -> bool {
        let idle = self.idle.take();
        let node_part: Arc<[u16]> = plan.node_part.clone().into();
        let all = std::mem::take(&mut self.conns);
        let mut parts: Vec<Simulation> = (0..plan.parts as u16)
            .map(|q| self.partition_copy(q, &plan, &node_part, &all))
            .collect();
        drop(all);
        let threads = self.par.threads.clamp(1, plan.parts);
        let n = plan.parts;
        let first = parts.iter_mut().filter_map(|p| p.cal.peek_time()).min();
        let (end, lookahead) = (self.end, plan.lookahead);
        let ex = Exchange {
            parts: n,
            first: first.unwrap_or(Time::MAX),
            end,
            lookahead,
            mail: [0, 1].map(|_| (0..n * n).map(|_| Mutex::new(Vec::new())).collect()),
            next: [0, 1].map(|_| (0..n).map(|_| AtomicU64::new(u64::MAX)).collect()),
            barrier: SpinBarrier {
                arrived: AtomicUsize::new(0),
                generation: AtomicUsize::new(0),
                threads,
                broken: AtomicBool::new(false),
            },
            stop_after: AtomicU64::new(u64::MAX),
        };
        let mut windows = 0;
        let completed = match first.filter(|&t| t <= end) {
            None => true,
            Some(_) => {
                // Contiguous runs of partitions, as even as they divide.
                let mut chunks: Vec<(usize, &mut [Simulation])> = Vec::with_capacity(threads);
                let (mut rest, mut from) = (&mut parts[..], 0);
                for t in 0..threads {
                    let size = n / threads + usize::from(t < n % threads);
                    let (chunk, tail) = rest.split_at_mut(size);
                    chunks.push((from, chunk));
                    (rest, from) = (tail, from + size);
                }
                let mut chunks = chunks.into_iter();
                let (_, main) = chunks.next().expect("one partition at least");
                std::thread::scope(|scope| {
                    for (from, chunk) in chunks {
                        let ex = &ex;
                        scope.spawn(move || run_windows(chunk, from, ex, None));
                    }
                    let mut progress = Progress {
                        every_events,
                        next_at: every_events,
                        observe,
                    };
                    windows = run_windows(main, 0, &ex, Some(&mut progress));
                });
                ex.stop_after.load(Ordering::Acquire) == u64::MAX
            }
        };
        if !completed {
            return false;
        }
        self.join(parts, &plan, threads, windows);
        self.idle = idle;
        true
    }

    /// Runs window `w` (events up to `last`) of partition `q`: first the packets sent to it in
    /// the window before, then its events; then it hands over what it sent and tells the
    /// earliest time it has work for.
    fn window(&mut self, q: usize, w: u64, last: Time, ex: &Exchange) {
        let parity = (w & 1) as usize;
        let n = ex.parts;
        let mut inbound = std::mem::take(&mut self.par.inbound);
        for from in 0..n {
            let mut mail = ex.mail[parity ^ 1][from * n + q].lock().expect("no thread panicked");
            inbound.append(&mut mail);
        }
        // Stable: packets arriving at once keep (sending partition, order sent).
        inbound.sort_by_key(|c| c.time);
        let cut = self.fabric.cut.as_mut().expect("a partition has a cut");
        cut.receive(inbound.drain(..), &mut self.cal);
        self.par.inbound = inbound;
        let before = self.events;
        while let Some((t, ev)) = self.cal.pop_until(last) {
            self.now = t;
            self.events += 1;
            self.dispatch(ev);
            if self.checker.is_some() {
                self.check_invariants();
            }
        }
        if let Some(log) = &mut self.par.window_log {
            log.push((self.events - before) as u32);
        }
        let mut earliest = self.cal.peek_time().map_or(u64::MAX, Time::as_ps);
        let cut = self.fabric.cut.as_mut().expect("a partition has a cut");
        for (to, out) in cut.outbox.iter_mut().enumerate() {
            if let Some(t) = out.iter().map(|c| c.time.as_ps()).min() {
                earliest = earliest.min(t);
                ex.mail[parity][q * n + to].lock().expect("no thread panicked").append(out);
            }
        }
        ex.next[parity][q].store(earliest, Ordering::Release);
    }

    /// Joins the partitions' state into this world, each part from the partition that
    /// simulated it, for the results.
    fn join(&mut self, mut parts: Vec<Simulation>, plan: &Plan, threads: usize, windows: u64) {
        let part = &plan.node_part;
        for p in parts.iter_mut() {
            p.fabric.settle_cut(self.end);
            // Packets on a partition's ports hold its headers, but for those that crossed.
            let (_, _, crossed_on_ports) = p.fabric.cut_balance();
            debug_assert_eq!(
                p.fabric.in_flight() - crossed_on_ports,
                p.fabric.headers.in_network() as u64,
                "packets on ports against headers held"
            );
        }
        for i in 0..self.fabric.ports.len() {
            let p = PortId::at(i);
            let q = part[self.fabric.ports[p].node] as usize;
            std::mem::swap(&mut self.fabric.ports[p], &mut parts[q].fabric.ports[p]);
        }
        for (i, &q) in part.iter().enumerate() {
            std::mem::swap(&mut self.fabric.nodes[i], &mut parts[q as usize].fabric.nodes[i]);
        }
        for h in 0..self.fabric.host_port.len() {
            self.hosts.take_host(HostId(h as u32), &mut parts[part[h] as usize].hosts);
        }
        let mut conns = Conns::default();
        for c in ConnId::all(parts[0].conns.len()) {
            let hosts = parts
                .iter()
                .find_map(|p| p.conns.get(c).map(|c| c.hosts))
                .expect("a connection has a copy where its ends are");
            let (a, b) = (part[hosts[0].0 as usize] as usize, part[hosts[1].0 as usize] as usize);
            let mut conn = parts[a].conns.take(c);
            if b != a {
                let other = parts[b].conns.take(c);
                conn.join_receiver(other);
            }
            conns.push(conn);
        }
        self.conns = conns;
        let mut stats = ParallelStats {
            partitions: plan.parts,
            threads,
            lookahead: plan.lookahead,
            windows,
            ..Default::default()
        };
        let mut measures = Vec::with_capacity(parts.len());
        for p in parts.iter_mut() {
            self.events += p.events;
            self.injected += p.injected;
            self.delivered += p.delivered;
            self.fabric.hops += p.fabric.hops;
            stats.events.push(p.events);
            stats.crossings += p.fabric.cut.as_ref().map_or(0, |c| c.crossings);
            if let Some(log) = p.par.window_log.take() {
                stats.window_events.push(log);
            }
            measures.push(std::mem::replace(&mut p.measure, self.measure.clone()));
        }
        stats.hops = self.fabric.hops;
        self.measure.join(measures, &self.fabric);
        self.par.stats = Some(Box::new(stats));
    }
}

/// The main thread's progress reports.
struct Progress<'a> {
    every_events: u64,
    next_at: u64,
    observe: &'a mut dyn FnMut(f64) -> bool,
}

/// One thread's loop (`windows`), which, if it panics, first stops the others, so that
/// none waits at the barrier for it; the panic then reaches the caller.
fn run_windows(parts: &mut [Simulation], first_index: usize, ex: &Exchange, progress: Option<&mut Progress>) -> u64 {
    let run = std::panic::AssertUnwindSafe(|| windows(parts, first_index, ex, progress));
    std::panic::catch_unwind(run).unwrap_or_else(|panic| {
        ex.stop_after.store(0, Ordering::Release);
        ex.barrier.broken.store(true, Ordering::Release);
        std::panic::resume_unwind(panic)
    })
}

/// Runs a thread's partitions (`first_index` onwards) window after window until no event is
/// left by `end`; the windows run.
fn windows(parts: &mut [Simulation], first_index: usize, ex: &Exchange, mut progress: Option<&mut Progress>) -> u64 {
    let (end, lookahead) = (ex.end, ex.lookahead);
    let mut start = ex.first;
    let mut w = 0u64;
    loop {
        let last = (start + lookahead - Time::from_ps(1)).min(end);
        for (i, part) in parts.iter_mut().enumerate() {
            part.window(first_index + i, w, last, ex);
        }
        if let Some(p) = progress.as_deref_mut() {
            let events: u64 = parts.iter().map(|s| s.events).sum::<u64>() * (ex.parts as u64) / parts.len() as u64;
            if events >= p.next_at {
                p.next_at = events + p.every_events;
                if !(p.observe)(start.as_ps() as f64 / end.max(Time::from_ps(1)).as_ps() as f64) {
                    ex.stop_after.store(w, Ordering::Release);
                }
            }
        }
        ex.barrier.wait();
        if ex.stop_after.load(Ordering::Acquire) <= w {
            return w + 1;
        }
        w += 1;
        let parity = ((w - 1) & 1) as usize;
        let next = ex.next[parity].iter().map(|t| t.load(Ordering::Acquire)).min().unwrap_or(u64::MAX);
        if next > end.as_ps() {
            return w;
        }
        start = Time::from_ps(next);
    }
}
