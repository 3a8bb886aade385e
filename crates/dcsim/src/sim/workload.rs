//! Partition/aggregate queries (DCTCP paper §2.1; ICTCP paper §II-A): the state the
//! simulation keeps per query workload. A client writes a request to each server; a server
//! answers each complete request with a response; a query completes when every server's
//! response has fully arrived.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::conns::Conns;
use crate::ids::{ConnId, HostId, WorkloadId};
use crate::tcp::cc::CcKind;
use crate::units::Time;

/// A connection's part in a workload.
#[derive(Debug, Clone, Copy)]
pub struct QueryRole {
    pub workload: WorkloadId,
    /// The query a one-shot connection serves (persistent connections serve them all).
    pub query: Option<u32>,
    /// Requests the server has answered (or scheduled an answer to).
    pub requests_answered: u64,
    /// Responses that have fully reached the client.
    pub responses_seen: u64,
}

impl QueryRole {
    /// A connection's role in workload `workload`: serving query `query` alone, or every query of a
    /// persistent connection (None).
    pub fn new(workload: WorkloadId, query: Option<u32>) -> Self {
        QueryRole {
            workload,
            query,
            requests_answered: 0,
            responses_seen: 0,
        }
    }
}

/// What the results keep of a query.
#[derive(Debug, Clone)]
pub struct QueryRecord {
    pub issued: Time,
    pub done: Option<Time>,
    /// Retransmission timeouts (and SYN retries) on its connections while it ran.
    pub timeouts: u64,
    /// Of those, the retransmission timeouts found spurious (settled once the ACKs that
    /// classify them have arrived, which may be after the query completed).
    pub spurious_timeouts: u64,
}

/// A query still waiting for responses: what its completion needs, dropped when it completes.
#[derive(Debug, Clone)]
pub struct OpenQuery {
    /// Its index in `Workload::queries`.
    pub query: u32,
    pub servers_done: u32,
    /// Retransmission timeouts (and SYN retries) on the query's connections when it was
    /// issued, to count those that happened during it.
    pub timeouts_at_issue: u64,
    /// Retransmission timeouts counted on each end of each of its connections when it was
    /// issued (in the order of its connections), to tell which of those during it were
    /// spurious.
    pub rto_at_issue: Vec<[u64; 2]>,
    /// One-shot connections: the first of the query's consecutive connection indices.
    pub first_conn: Option<ConnId>,
}

/// A completed query some of whose timeouts still wait for the ACK that classifies them.
#[derive(Debug, Clone)]
pub struct UnsettledQuery {
    /// Its index in `Workload::queries`.
    pub query: u32,
    /// Per connection not yet settled: its id, and the timeouts counted on each of its ends
    /// when the query was issued and when it completed.
    pub parts: Vec<(ConnId, [u64; 2], [u64; 2])>,
}

#[derive(Debug, Clone)]
pub struct Workload {
    /// What it does: its settings, as the build resolved them.
    pub plan: QueryPlan,
    /// Persistent connections, one per server, in `servers` order.
    pub conns: Vec<ConnId>,
    pub queries: Vec<QueryRecord>,
    /// The queries issued and not yet complete (a barrier workload has at most one).
    pub open: Vec<OpenQuery>,
    /// Completed queries whose spurious timeouts are not all known yet.
    pub unsettled: Vec<UnsettledQuery>,
    pub rng: ChaCha8Rng,
}

/// A workload's settings, as the build resolved them from its `queries[]` entry.
#[derive(Debug, Clone)]
pub struct QueryPlan {
    pub client: HostId,
    pub servers: Vec<HostId>,
    pub request: u64,
    pub response: u64,
    pub rounds: u32,
    pub start: Time,
    /// No query is issued at or after this time.
    pub stop: Option<Time>,
    /// Mean interval of Poisson arrivals; None = barrier-synchronised.
    pub mean_interval: Option<Time>,
    /// A server waits uniformly in [0, jitter] before it answers.
    pub jitter: Time,
    pub persistent: bool,
    pub cc: CcKind,
    pub rcv_buffer: Option<u64>,
    /// Traffic class of its connections' packets.
    pub class: u8,
}

impl Workload {
    pub fn new(plan: QueryPlan, rng: ChaCha8Rng) -> Self {
        Workload {
            plan,
            conns: Vec::new(),
            queries: Vec::new(),
            open: Vec::new(),
            unsettled: Vec::new(),
            rng,
        }
    }

    /// The server's wait before it answers: uniform in [0, jitter] (DCTCP paper §2.3.2).
    pub fn response_delay(&mut self) -> Time {
        if self.plan.jitter == Time::ZERO {
            Time::ZERO
        } else {
            Time::from_ps(self.rng.gen_range(0..=self.plan.jitter.as_ps()))
        }
    }

    /// Time to the next Poisson arrival (exponential), if arrivals are Poisson.
    pub fn next_interval(&mut self) -> Option<Time> {
        let mean = self.plan.mean_interval?.as_ps() as f64;
        let u: f64 = self.rng.gen_range(f64::MIN_POSITIVE..1.0);
        Some(Time::from_ps_f64(-u.ln() * mean))
    }

    /// Adds to each unsettled query the spurious timeouts among those its connections had
    /// while it ran (timeouts numbered from its issue's count to its completion's, per end),
    /// for each connection whose ends have classified them all; or whatever is known when
    /// `force` (a connection ending, or the run's end: a timeout not classified by then counts
    /// as not spurious). `only`: just that connection's part.
    pub(super) fn settle_spurious(&mut self, conns: &Conns, only: Option<ConnId>, force: bool) {
        let queries = &mut self.queries;
        self.unsettled.retain_mut(|u| {
            u.parts.retain(|&(c, issue, done)| {
                if only.is_some_and(|o| o != c) {
                    return true;
                }
                let Some(conn) = conns.get(c) else {
                    return false; // ended: it settled its parts as it ended
                };
                let ends = &conn.ends;
                if !force && (0..2).any(|e| ends[e].timeouts_classified() < done[e]) {
                    return true;
                }
                queries[u.query as usize].spurious_timeouts += (0..2)
                    .map(|e| ends[e].spurious_among_first(done[e]) - ends[e].spurious_among_first(issue[e]))
                    .sum::<u64>();
                false
            });
            !u.parts.is_empty()
        });
    }

    /// The query a response completes: the k-th response on a persistent connection answers
    /// query k − 1; a one-shot connection serves one query.
    pub fn query_of(&self, role: &QueryRole) -> usize {
        role.query.map_or(role.responses_seen as usize - 1, |q| q as usize)
    }
}
