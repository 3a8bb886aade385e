//! Connection storage with lifetimes: a connection whose work is done gives back its state
//! and keeps only what the results need, so a run's memory follows the connections open at
//! once rather than all those it ever opened.

use std::ops::{Index, IndexMut};

use super::Conn;
use crate::ids::{ConnId, HostId};
use crate::results::{FlowSamples, FlowStats};
use crate::tcp::cc::CcKind;
use crate::tcp::endpoint::EndpointCounters;
use crate::tcp::ictcp::ConnState;
use crate::units::Time;

/// A connection as the results see it: its row of `flows` and its flow-sample values. An
/// ended connection keeps only this.
#[derive(Debug, Clone)]
pub(super) struct FlowRecord {
    pub(super) workload: Option<u32>,
    /// The traffic generator that started it.
    pub(super) generator: Option<u32>,
    /// Bytes the flow is to send (None: long-lived, or a query connection).
    pub(super) bytes: Option<u64>,
    pub(super) class: u8,
    /// The receiver's buffer as the application set it (None: the stack's, maybe auto-tuned).
    pub(super) rcv_buffer: Option<u64>,
    /// The receiver's buffer at the end, bytes.
    pub(super) rcv_buffer_end: u64,
    /// Hosts of the data sender and of the receiver.
    pub(super) src: HostId,
    pub(super) dst: HostId,
    pub(super) cc: CcKind,
    pub(super) start: Time,
    pub(super) established: Option<Time>,
    /// When the end that opened the connection got the SYN-ACK.
    pub(super) setup: Option<Time>,
    /// The handshake gave up.
    pub(super) failed: bool,
    pub(super) completion: Option<Time>,
    /// Bytes the receiver took in order, in all and by the end of the warm-up.
    pub(super) delivered: u64,
    pub(super) delivered_at_warmup: u64,
    /// Retransmissions and timeouts by the end of the warm-up.
    pub(super) at_warmup: WarmupCounts,
    /// Both directions' (a query connection carries requests too).
    pub(super) counters: EndpointCounters,
    pub(super) cwnd: f64,
    pub(super) alpha: f64,
    pub(super) srtt: Option<Time>,
    /// The receiving end's ICTCP state, if its host runs ICTCP.
    pub(super) ictcp: Option<IctcpView>,
}

/// A connection's counters when the warm-up ended (the measurement window counts from them).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct WarmupCounts {
    pub(super) retransmits: u64,
    pub(super) timeouts: u64,
}

impl WarmupCounts {
    pub(super) fn of(k: &EndpointCounters) -> Self {
        WarmupCounts {
            retransmits: k.retransmits,
            timeouts: k.timeouts,
        }
    }
}

/// What the flow samples show of a connection's ICTCP state.
#[derive(Debug, Clone, Copy)]
pub(super) struct IctcpView {
    pub(super) rwnd: u64,
    pub(super) measured_bps: f64,
    pub(super) expected_bps: f64,
    pub(super) srtt: Option<Time>,
}

impl IctcpView {
    pub(super) fn of(c: &ConnState) -> Self {
        IctcpView {
            rwnd: c.rwnd,
            measured_bps: c.measured_bps,
            expected_bps: c.expected_bps(),
            srtt: c.srtt,
        }
    }
}

impl FlowRecord {
    pub(super) fn timeouts(&self) -> u64 {
        self.counters.timeouts + self.counters.syn_retries
    }

    /// Its row of `flows`; `window`: the measurement window, seconds.
    /// `ideal`: its completion time alone on the idle network, if known.
    pub(super) fn stats(&self, id: ConnId, window: f64, ideal: Option<Time>) -> FlowStats {
        let nan_or = |t: Option<Time>| t.map_or(f64::NAN, Time::as_secs_f64);
        let k = &self.counters;
        FlowStats {
            id: id.0,
            workload: self.workload,
            generator: self.generator,
            class: self.class,
            size_bytes: self.bytes.unwrap_or(0),
            src: self.src.0,
            dst: self.dst.0,
            cc: self.cc.name().to_string(),
            start_s: self.start.as_secs_f64(),
            established_s: nan_or(self.established),
            setup_s: nan_or(self.setup.map(|t| t - self.start)),
            failed: self.failed,
            completion_s: nan_or(self.completion),
            fct_s: nan_or(self.completion.map(|c| c - self.start)),
            ideal_fct_s: nan_or(ideal),
            slowdown: match (self.completion, ideal) {
                (Some(c), Some(i)) if i > Time::ZERO => (c - self.start).as_ps() as f64 / i.as_ps() as f64,
                _ => f64::NAN,
            },
            bytes_delivered: self.delivered,
            goodput_bps: (self.delivered - self.delivered_at_warmup) as f64 * 8.0 / window,
            data_packets_sent: k.data_packets_sent,
            retransmits: k.retransmits,
            fast_retransmits: k.fast_retransmits,
            timeouts: k.timeouts,
            spurious_timeouts: k.spurious_timeouts,
            syn_retries: k.syn_retries,
            tail_loss_probes: k.tail_loss_probes,
            retransmits_after_warmup: k.retransmits - self.at_warmup.retransmits,
            timeouts_after_warmup: k.timeouts - self.at_warmup.timeouts,
            ecn_reductions: k.ecn_reductions,
            ece_acks: k.ece_acks,
            final_cwnd_bytes: self.cwnd,
            final_alpha: self.alpha,
            srtt_s: nan_or(self.srtt),
            rcv_buffer_bytes: self.rcv_buffer_end,
        }
    }

    /// Appends its row at time `t_s` to the flow samples.
    pub(super) fn sample(&self, id: ConnId, t_s: f64, f: &mut FlowSamples) {
        f.flow.push(id.0);
        f.t_s.push(t_s);
        f.delivered_bytes.push(self.delivered);
        f.cwnd_bytes.push(self.cwnd);
        f.alpha.push(self.alpha);
        f.rcv_buffer_bytes.push(self.rcv_buffer_end);
        let r = self.ictcp.as_ref();
        f.ictcp_rwnd_bytes.push(r.map_or(f64::NAN, |r| r.rwnd as f64));
        f.ictcp_measured_bps.push(r.map_or(f64::NAN, |r| r.measured_bps));
        f.ictcp_expected_bps.push(r.map_or(f64::NAN, |r| r.expected_bps));
        f.ictcp_rtt_s.push(r.and_then(|r| r.srtt).map_or(f64::NAN, Time::as_secs_f64));
    }
}

/// Every connection, by id (its index in order of creation, `flows.id`). A live one owns its
/// state in a slot that it gives back when it ends, so memory follows the connections open
/// at once, not all those ever opened; an ended one keeps its `FlowRecord`.
#[derive(Default, Clone)]
pub(super) struct Conns {
    /// Per id: its slot in `slots` while it lives, or `ENDED | i` once its record is
    /// `records[i]`. Four bytes an id keep the lookup on the hot path within one cache line.
    ids: Vec<u32>,
    slots: Vec<Option<Conn>>,
    /// Slots given back, reused first.
    free: Vec<u32>,
    records: Vec<FlowRecord>,
}

/// The bit of `Conns::ids` that marks an ended connection.
const ENDED: u32 = 1 << 31;
/// The `Conns::ids` entry of a connection another partition of a parallel run simulates.
const ELSEWHERE: u32 = u32::MAX;

impl Conns {
    /// Connections ever opened.
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The ids of every connection opened so far.
    pub(super) fn ids(&self) -> impl DoubleEndedIterator<Item = ConnId> + ExactSizeIterator {
        ConnId::all(self.len())
    }

    /// The id the next connection pushed gets.
    pub(super) fn next_id(&self) -> ConnId {
        ConnId::at(self.len())
    }

    /// Connections not ended.
    pub(super) fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Adds connection `conn`, whose id must be `len()`.
    pub(super) fn push(&mut self, conn: Conn) {
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(conn);
                s
            }
            None => {
                self.slots.push(Some(conn));
                (self.slots.len() - 1) as u32
            }
        };
        // Slots are bounded by the connections open at once, far below 2^31 (`get` relies on
        // an ENDED entry being past the end of `slots`).
        assert!(slot < ENDED, "more than 2^31 connections open at once");
        self.ids.push(slot);
    }

    /// Takes the next id for a connection this partition of a parallel run does not simulate.
    pub(super) fn push_elsewhere(&mut self) {
        self.ids.push(ELSEWHERE);
    }

    /// Takes live connection `id`'s state out (a parallel run joining its copies).
    pub(super) fn take(&mut self, id: ConnId) -> Conn {
        let s = self.ids[id];
        self.ids[id] = ELSEWHERE;
        self.slots[s as usize].take().expect("a live connection")
    }

    /// Connection `id`, unless it has ended.
    #[inline]
    pub(super) fn get(&self, id: ConnId) -> Option<&Conn> {
        // An ended id's entry has the ENDED bit, so it is past the end of `slots`.
        self.slots.get(self.ids[id] as usize)?.as_ref()
    }

    #[inline]
    pub(super) fn get_mut(&mut self, id: ConnId) -> Option<&mut Conn> {
        self.slots.get_mut(self.ids[id] as usize)?.as_mut()
    }

    /// Ends live connection `id`: `record` stands for it from now on; returns its state.
    pub(super) fn end(&mut self, id: ConnId, record: FlowRecord) -> Conn {
        let s = self.ids[id];
        assert!(s & ENDED == 0, "connection {id} ended twice");
        self.ids[id] = ENDED | self.records.len() as u32;
        self.records.push(record);
        self.free.push(s);
        self.slots[s as usize].take().expect("a live connection's slot is full")
    }

    /// The record of connection `id` if it has ended.
    pub(super) fn ended(&self, id: ConnId) -> Option<&FlowRecord> {
        let s = self.ids[id];
        (s & ENDED != 0 && s != ELSEWHERE).then(|| &self.records[(s & !ENDED) as usize])
    }

    /// Slots allocated: the most connections open at once so far.
    pub(super) fn slots(&self) -> usize {
        self.slots.len()
    }

    /// The warm-up ends: each connection's delivered bytes so far do not count in its goodput.
    pub(super) fn mark_warmup(&mut self) {
        for c in self.slots.iter_mut().flatten() {
            c.delivered_at_warmup = c.ends[1 - c.data_sender()].delivered();
            c.at_warmup = WarmupCounts::of(&c.ends[0].counters().plus(&c.ends[1].counters()));
        }
        for r in &mut self.records {
            r.delivered_at_warmup = r.delivered;
            r.at_warmup = WarmupCounts::of(&r.counters);
        }
    }

    /// Timeouts and SYN retries of connection `id`, ended or not.
    pub(super) fn timeouts(&self, id: ConnId) -> u64 {
        match self.ended(id) {
            None => self[id].timeouts(),
            Some(r) => r.timeouts(),
        }
    }
}

/// Connection `id` while it lives. Only live connections are looked up this way: packets of a
/// connection keep it alive, and events that may outlive it (timers, a flow's stop, a
/// host's wake-up list) use `get`.
impl Index<ConnId> for Conns {
    type Output = Conn;
    #[inline]
    fn index(&self, id: ConnId) -> &Conn {
        self.get(id).expect("a live connection")
    }
}

impl IndexMut<ConnId> for Conns {
    #[inline]
    fn index_mut(&mut self, id: ConnId) -> &mut Conn {
        self.get_mut(id).expect("a live connection")
    }
}
