//! A connection as the simulation holds it: its two TCP ends, its application's facts, the
//! calendar events pending for its timers and its packets still in its host's NIC; and the
//! factory that builds connections with the settings the build resolved.

use std::collections::VecDeque;
use std::sync::Arc;

use super::conns::WarmupCounts;
use super::workload::QueryRole;
use crate::ids::{ConnId, HostId};
use crate::tcp::cc::{Cc, CcKind, CcParams};
use crate::tcp::{Endpoint, TcpParams, Timer};
use crate::units::Time;

/// A connection: end 0 opened it and sends the flow's data, end 1 receives.
#[derive(Clone)]
pub(super) struct Conn {
    pub(super) ends: [Endpoint; 2],
    pub(super) hosts: [HostId; 2],
    pub(super) cc: CcKind,
    /// Traffic class its packets carry.
    pub(super) class: u8,
    pub(super) start: Time,
    pub(super) bytes: Option<u64>,
    pub(super) stop: Option<Time>,
    pub(super) completion: Option<Time>,
    pub(super) delivered_at_warmup: u64,
    pub(super) at_warmup: WarmupCounts,
    /// Time of the calendar event pending for each end and `Timer` (by its index), if any.
    pub(super) timer_event: [[Option<Time>; Timer::ALL.len()]; 2],
    /// Set on the connections of a query workload.
    pub(super) query: Option<Box<QueryRole>>,
    /// The traffic generator that started it, if one did.
    pub(super) generator: Option<u32>,
    /// Per end: its packets still in its host's NIC queue, for the per-connection host-queue
    /// limit (as Linux's TCP Small Queues). Made at the connection's first such packet, so an
    /// idle connection spends 8 bytes on it.
    pub(super) in_nic: Option<Box<[InNic; 2]>>,
    /// Per end: its key in its host's receive-window policy, if the host runs one.
    pub(super) policy: [Option<u32>; 2],
    /// Its packets sent and not yet received or dropped (in a queue, on a wire, or held
    /// for a receive interrupt).
    pub(super) in_flight: u32,
}

/// One end's packets in its host's NIC queue.
#[derive(Clone, Default)]
pub(super) struct InNic {
    /// (departure time, bytes) of each, oldest first.
    packets: VecDeque<(Time, u32)>,
    bytes: u64,
}

impl Conn {
    /// Bytes end `e` still has in its NIC queue at `now`.
    pub(super) fn nic_bytes(&mut self, e: usize, now: Time) -> u64 {
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
    pub(super) fn queued_in_nic(&mut self, e: usize, departure: Time, size: u32) {
        let nic = &mut self.in_nic.get_or_insert_with(Box::default)[e];
        nic.packets.push_back((departure, size));
        nic.bytes += size as u64;
    }

    /// When end `e`'s oldest packet in its NIC queue leaves, if it has one there.
    pub(super) fn first_nic_departure(&self, e: usize) -> Option<Time> {
        self.in_nic.as_ref()?[e].packets.front().map(|&(t, _)| t)
    }

    /// Takes the receiving end and what it measured from `other`, the copy of this
    /// connection that the receiver's partition of a parallel run simulated (this one
    /// simulated the sender).
    pub(super) fn join_receiver(&mut self, other: Conn) {
        let [_, receiver] = other.ends;
        self.ends[1] = receiver;
        self.completion = other.completion;
        self.delivered_at_warmup = other.delivered_at_warmup;
        // Each copy counted its own end's retransmissions and timeouts (the other's are 0).
        self.at_warmup.retransmits += other.at_warmup.retransmits;
        self.at_warmup.timeouts += other.at_warmup.timeouts;
        self.policy[1] = other.policy[1];
        self.timer_event[1] = other.timer_event[1];
    }

    /// The end that sends the connection's main data: the opener for a bulk flow, the server
    /// (which sends the responses) for a query connection.
    pub(super) fn data_sender(&self) -> usize {
        if self.query.is_some() {
            1
        } else {
            0
        }
    }

    /// Retransmission timeouts counted on each end.
    pub(super) fn rto_counts(&self) -> [u64; 2] {
        [self.ends[0].counters().timeouts, self.ends[1].counters().timeouts]
    }

    /// Retransmission timeouts and SYN retries on both ends.
    pub(super) fn timeouts(&self) -> u64 {
        self.ends.iter().map(|e| e.counters()).map(|k| k.timeouts + k.syn_retries).sum()
    }

    /// Its work is done: the application will write nothing more, both ends have had all
    /// their data acknowledged with no timer armed, and none of its packets is left anywhere.
    /// Nothing can happen to it any more but stale timer events, so its state can go.
    pub(super) fn is_finished(&self) -> bool {
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

/// Builds connections with the settings the build resolved.
#[derive(Clone)]
pub(super) struct ConnFactory {
    /// What every connection's controllers are built from.
    cc_params: CcParams,
    /// Per controller (in `CcKind::ALL`'s order): its connections' settings with the stack's
    /// receive buffer.
    stack: Vec<Arc<TcpParams>>,
    /// Settings with a receive buffer an application set, by controller and buffer, made as
    /// first asked for: connections built alike share one copy.
    app_buffer: Vec<(CcKind, u64, Arc<TcpParams>)>,
}

impl ConnFactory {
    /// `stack(cc)` gives controller `cc`'s settings with the stack's receive buffer.
    pub(super) fn new(cc_params: CcParams, stack: impl Fn(CcKind) -> TcpParams) -> Self {
        ConnFactory {
            cc_params,
            stack: CcKind::ALL.iter().map(|&cc| Arc::new(stack(cc))).collect(),
            app_buffer: Vec::new(),
        }
    }

    /// Connection `id` from host `src` to `dst`, opening at `start`; its receiver's buffer is
    /// `rcv_buffer` (None: the stack's).
    pub(super) fn make(&mut self, id: ConnId, src: HostId, dst: HostId, cc: CcKind, start: Time, rcv_buffer: Option<u64>) -> Conn {
        // `CcKind::ALL` lists the controllers in declaration order: `cc as usize` is cc's place.
        let stack = &self.stack[cc as usize];
        let params = match rcv_buffer {
            None => Arc::clone(stack),
            Some(b) => match self.app_buffer.iter().find(|(c, bytes, _)| (*c, *bytes) == (cc, b)) {
                Some((_, _, p)) => Arc::clone(p),
                None => {
                    let p = Arc::new(stack.with_app_rcv_buffer(b));
                    self.app_buffer.push((cc, b, Arc::clone(&p)));
                    p
                }
            },
        };
        let p = &self.cc_params;
        // The ends know their connection and hosts by the numbers their segments carry.
        let make =
            |end: u8, (host, peer): (HostId, HostId)| Endpoint::new(Arc::clone(&params), Cc::new(cc, p), id.0, end, (host.0, peer.0));
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
            timer_event: [[None; Timer::ALL.len()]; 2],
            query: None,
            generator: None,
            in_nic: None,
            policy: [None; 2],
            in_flight: 0,
        }
    }
}
