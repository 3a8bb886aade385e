//! The applications: query workloads (requests to servers, their responses, query completion
//! and its timeouts), traffic generators (flows arriving at their sources) and UDP sources.
//! They decide what is written and when; the simulation opens and drives the connections.

use super::calendar::Calendar;
use super::conn::Conn;
use super::conns::Conns;
use super::traffic::{Arrival, Generator};
use super::udp::UdpSource;
use super::workload::{OpenQuery, QueryRecord, UnsettledQuery, Workload};
use super::Event;
use crate::ids::{ConnId, UdpId, WorkloadId};
use crate::net::packet::{Packet, Segment};
use crate::results::{ProbeSamples, QueryStats, UdpStats};
use crate::tcp::cc::CcKind;
use crate::units::Time;

#[derive(Clone)]
pub(super) struct Applications {
    pub(super) workloads: Vec<Workload>,
    generators: Vec<Generator>,
    /// Per `Arrive` slot: (generator, its source number).
    arrival_slots: Vec<(u32, u32)>,
    /// Constant-bit-rate UDP sources (`udp[]`) and their echoes' round trips.
    udp: Vec<UdpSource>,
    pub(super) probes: ProbeSamples,
    /// Query rounds still to finish before the run may stop early (None: run to the end).
    pub(super) rounds_left: Option<u64>,
}

/// A flow a generator starts: its connection opens now.
pub(super) struct NewFlow {
    pub(super) generator: u32,
    pub(super) arrival: Arrival,
    pub(super) cc: CcKind,
    pub(super) rcv_buffer: Option<u64>,
    pub(super) class: u8,
}

impl Applications {
    pub(super) fn new(workloads: Vec<Workload>, generators: Vec<Generator>, udp: Vec<UdpSource>, rounds_left: Option<u64>) -> Self {
        Applications {
            arrival_slots: generators
                .iter()
                .enumerate()
                .flat_map(|(g, gen)| (0..gen.sources.len() as u32).map(move |k| (g as u32, k)))
                .collect(),
            workloads,
            generators,
            udp,
            probes: ProbeSamples::default(),
            rounds_left,
        }
    }

    /// Whether connections may open during the run, beyond the flows of `[[flows]]`.
    pub(super) fn opens_connections(&self) -> bool {
        !(self.workloads.is_empty() && self.generators.is_empty())
    }

    pub(super) fn has_udp(&self) -> bool {
        !self.udp.is_empty()
    }

    /// Puts every application's first event in the calendar: each workload's first query,
    /// each generator source's first arrival, each UDP source's first packet.
    pub(super) fn schedule_starts(&mut self, end: Time, cal: &mut Calendar<Event>) {
        for (w, wl) in self.workloads.iter().enumerate() {
            cal.schedule(wl.plan.start, Event::IssueQuery(WorkloadId::at(w)));
        }
        for slot in 0..self.arrival_slots.len() {
            let (g, k) = self.arrival_slots[slot];
            let gen = &mut self.generators[g as usize];
            if let Some(t) = gen.next_arrival(k as usize, gen.start) {
                cal.schedule(t, Event::Arrive(slot as u32));
            }
        }
        for i in UdpId::all(self.udp.len()) {
            if let Some(t) = self.udp[i].next_send(end) {
                cal.schedule(t, Event::UdpSend(i));
            }
        }
    }

    /// A generator's flow arrives at arrival slot `slot`: the flow, and the source's next
    /// arrival drawn.
    pub(super) fn arrive(&mut self, now: Time, slot: u32, cal: &mut Calendar<Event>) -> NewFlow {
        let (g, k) = self.arrival_slots[slot as usize];
        let gen = &mut self.generators[g as usize];
        let arrival = gen.arrival(k as usize);
        if let Some(t) = gen.next_arrival(k as usize, now) {
            cal.schedule(t, Event::Arrive(slot));
        }
        NewFlow {
            generator: g,
            arrival,
            cc: gen.cc,
            rcv_buffer: gen.rcv_buffer,
            class: gen.class,
        }
    }

    /// UDP source `i`'s next packet, sent now.
    pub(super) fn udp_packet(&mut self, i: UdpId, now: Time) -> Segment {
        self.udp[i].packet(i, now)
    }

    /// Puts UDP source `i`'s next send in the calendar, if it sends again before `end`.
    pub(super) fn schedule_udp(&self, i: UdpId, end: Time, cal: &mut Calendar<Event>) {
        if let Some(t) = self.udp[i].next_send(end) {
            cal.schedule(t, Event::UdpSend(i));
        }
    }

    /// A UDP packet reaches its destination's stack: an echo ends a probe's round trip; a
    /// packet asking for an echo gets one (returned, to send).
    pub(super) fn udp_receive(&mut self, now: Time, pkt: &Segment) -> Option<Segment> {
        let source = &mut self.udp[UdpId(pkt.conn)];
        if pkt.from_end == 1 {
            source.on_reply(UdpId(pkt.conn), pkt, now, &mut self.probes);
            None
        } else {
            source.on_delivered(pkt)
        }
    }

    /// A port dropped one of UDP source `pkt.conn`'s packets.
    pub(super) fn udp_dropped(&mut self, pkt: &Packet) {
        self.udp[UdpId(pkt.conn)].on_dropped(pkt);
    }

    pub(super) fn mark_warmup(&mut self) {
        self.udp.iter_mut().for_each(UdpSource::mark_warmup);
    }

    fn forget_rounds(&mut self, rounds: u64) {
        if let Some(left) = self.rounds_left.as_mut() {
            *left -= rounds;
        }
    }

    /// Workload `w` issues its next query now: its index, with the workload's next query put
    /// in the calendar (None when it has issued all its rounds, or its stop has passed).
    pub(super) fn next_query(&mut self, now: Time, w: WorkloadId, cal: &mut Calendar<Event>) -> Option<u32> {
        let wl = &mut self.workloads[w];
        let index = wl.queries.len() as u32;
        if index >= wl.plan.rounds {
            return None;
        }
        // Rounds that `stop_s` cuts off no longer hold the run open (stop_when_queries_done):
        // a barrier workload finds out here, a Poisson one when its next arrival would fall
        // past the stop.
        let (rounds, stop) = (wl.plan.rounds, wl.plan.stop);
        if stop.is_some_and(|stop| now >= stop) {
            self.forget_rounds(u64::from(rounds - index));
            return None;
        }
        if let Some(next) = wl.next_interval().map(|dt| now + dt) {
            if stop.is_some_and(|stop| next >= stop) {
                self.forget_rounds(u64::from(rounds - index - 1));
            } else {
                cal.schedule(next, Event::IssueQuery(w));
            }
        }
        Some(index)
    }

    /// Query `index` of workload `w` is issued now on connections `ids` (one per server, in
    /// order): its record starts, counting the timeouts its connections had so far.
    pub(super) fn open_query(&mut self, now: Time, w: WorkloadId, index: u32, ids: &[ConnId], conns: &Conns) {
        let timeouts_at_issue = ids.iter().map(|&c| conns.timeouts(c)).sum();
        let rto_at_issue = ids.iter().map(|&c| conns.get(c).map_or([0; 2], Conn::rto_counts)).collect();
        let wl = &mut self.workloads[w];
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
            first_conn: (!wl.plan.persistent).then(|| ids[0]),
        });
    }

    /// After end `e` of query connection `c` took in data: a server answers each newly
    /// complete request; a client counts each newly complete response towards its query.
    pub(super) fn query_progress(&mut self, now: Time, c: ConnId, e: u8, conns: &mut Conns, cal: &mut Calendar<Event>) {
        let conn = &conns[c];
        let mut role = *conn.query.as_deref().expect("a query connection");
        let wl = &mut self.workloads[role.workload];
        if e == 1 {
            let requests = conn.ends[1].delivered() / wl.plan.request;
            while role.requests_answered < requests {
                role.requests_answered += 1;
                let delay = wl.response_delay();
                cal.schedule(now + delay, Event::Respond(c));
            }
        } else {
            let responses = conn.ends[0].delivered() / wl.plan.response;
            while role.responses_seen < responses {
                role.responses_seen += 1;
                let q = wl.query_of(&role) as u32;
                let servers = wl.plan.servers.len() as u32;
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
                    let first = open.first_conn.unwrap_or_else(|| wl.conns[0]);
                    let ids = (first.0..first.0 + servers).map(ConnId);
                    let timeouts: u64 = ids.clone().map(|c| conns.timeouts(c)).sum();
                    let record = &mut wl.queries[q as usize];
                    record.done = Some(now);
                    record.timeouts = timeouts - open.timeouts_at_issue;
                    // Which of its timeouts were spurious: known once the ACKs after them arrive,
                    // which may be after now (the ACK of a response's last segment follows it).
                    // Connections without a timeout during the query add nothing: left out.
                    let parts: Vec<_> = ids
                        .zip(open.rto_at_issue)
                        .map(|(c, issue)| (c, issue, conns.get(c).map_or(issue, |conn| conn.rto_counts())))
                        .filter(|&(_, issue, done)| done != issue)
                        .collect();
                    if !parts.is_empty() {
                        wl.unsettled.push(UnsettledQuery { query: q, parts });
                        wl.settle_spurious(conns, None, false);
                    }
                    if wl.plan.mean_interval.is_none() {
                        cal.schedule(now, Event::IssueQuery(role.workload));
                    }
                }
            }
        }
        if let Some(kept) = conns[c].query.as_deref_mut() {
            *kept = role;
        }
    }

    /// The bytes a server of query connection `conn` answers each request with.
    pub(super) fn response_bytes(&self, conn: &Conn) -> u64 {
        let w = conn.query.as_ref().expect("a query connection").workload;
        self.workloads[w].plan.response
    }

    /// Query connection `conn` ends: its timeouts are all classified (everything is
    /// acknowledged), so its workload settles them.
    pub(super) fn on_conn_end(&mut self, c: ConnId, conns: &Conns) {
        if let Some(w) = conns[c].query.as_ref().map(|q| q.workload) {
            self.workloads[w].settle_spurious(conns, Some(c), true);
        }
    }

    /// The queries' rows of the results; what is not classified by now never was spurious.
    pub(super) fn query_stats(&mut self, conns: &Conns) -> Vec<QueryStats> {
        for wl in &mut self.workloads {
            wl.settle_spurious(conns, None, true);
        }
        let nan_or = |t: Option<Time>| t.map_or(f64::NAN, Time::as_secs_f64);
        self.workloads
            .iter()
            .enumerate()
            .flat_map(|(w, wl)| {
                wl.queries.iter().enumerate().map(move |(q, r)| QueryStats {
                    workload: w as u32,
                    query: q as u32,
                    client: wl.plan.client.0,
                    servers: wl.plan.servers.len() as u32,
                    issued_s: r.issued.as_secs_f64(),
                    completed_s: nan_or(r.done),
                    qct_s: r.done.map_or(f64::NAN, |d| (d - r.issued).as_secs_f64()),
                    response_bytes: wl.plan.response * wl.plan.servers.len() as u64,
                    timeouts: r.timeouts,
                    spurious_timeouts: r.spurious_timeouts,
                })
            })
            .collect()
    }

    pub(super) fn udp_stats(&self, window: f64) -> Vec<UdpStats> {
        self.udp.iter().enumerate().map(|(i, u)| u.stats(i as u32, window)).collect()
    }
}
