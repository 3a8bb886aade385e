//! The hosts beside their stacks: each NIC's receive path (interrupt moderation, then
//! per-packet processing, DCTCP paper §3.5), its send-side backpressure (senders parked while
//! their NIC queue is full, and the per-connection limit on what one connection may queue
//! there), and the receive-window policy on its interface, if it runs one.

use super::calendar::Calendar;
use super::conn::Conn;
use super::Event;
use crate::ids::{ConnId, HostId};
use crate::net::packet::Segment;
use crate::net::rx_moderation::{RxArrival, RxModeration, RxProcessor};
use crate::net::topology::Node;
use crate::tcp::receive_window::HostPolicy;
use crate::units::Time;

/// Host-side limits on what one connection may queue in its NIC.
#[derive(Debug, Clone, Copy)]
pub(super) struct HostQueueLimit {
    /// Bytes (0 = no per-connection limit).
    pub(super) bytes_per_conn: u64,
    /// Largest packet a TCP end sends, bytes.
    pub(super) max_packet: u64,
}

#[derive(Clone)]
pub(super) struct Hosts {
    /// Per node: receive interrupt moderation on a host's NIC, if the scenario turns it on.
    rx_moderation: Vec<Option<RxModeration>>,
    /// Per-packet receive processing of each host (None: packets reach TCP as handed up).
    rx_processing: Vec<Option<RxProcessor>>,
    /// Whether any host moderates its receive interrupts: when none does, a packet goes up
    /// without a look at its host's entry (a cache miss per packet in a large network).
    any_rx_moderation: bool,
    /// Whether any host has per-packet receive processing: the same, for that stage.
    any_rx_processing: bool,
    /// Per host: the (connection, end) senders waiting for room in its NIC queue, and the
    /// time of the pending `NicRoom` event.
    nic_waiting: Vec<Vec<(ConnId, u8)>>,
    nic_wake: Vec<Option<Time>>,
    queue_limit: HostQueueLimit,
    /// Per host: the receive-window policy on its interface, if it runs one (ICTCP: ICTCP
    /// paper §IV).
    pub(super) policies: Vec<Option<HostPolicy>>,
}

/// A stage of every host's receive path set by a time in µs (`make(time)`), none where the
/// time is 0, and none on switches.
fn per_host<T>(nodes: &[Node], us: f64, make: impl Fn(Time) -> T) -> Vec<Option<T>> {
    let t = Time::from_us_f64(us);
    nodes.iter().map(|n| (!n.is_switch && t > Time::ZERO).then(|| make(t))).collect()
}

impl Hosts {
    /// The hosts among `nodes` (`hosts` of them), with receive interrupts every
    /// `rx_interrupt_us`, `rx_processing_us` per packet, the limit on a connection's NIC
    /// queue, and each host's receive-window policy.
    pub(super) fn new(
        nodes: &[Node],
        hosts: usize,
        rx_interrupt_us: f64,
        rx_processing_us: f64,
        queue_limit: HostQueueLimit,
        policies: Vec<Option<HostPolicy>>,
    ) -> Self {
        let rx_moderation = per_host(nodes, rx_interrupt_us, RxModeration::new);
        let rx_processing = per_host(nodes, rx_processing_us, RxProcessor::new);
        Hosts {
            any_rx_moderation: rx_moderation.iter().any(Option::is_some),
            any_rx_processing: rx_processing.iter().any(Option::is_some),
            rx_moderation,
            rx_processing,
            nic_waiting: vec![Vec::new(); hosts],
            nic_wake: vec![None; hosts],
            queue_limit,
            policies,
        }
    }

    /// A packet reaches host `node`'s NIC: true if it goes up to the stack now, false if
    /// interrupt moderation holds it until its interrupt, or receive processing until done.
    #[inline(always)]
    pub(super) fn nic_arrival(&mut self, now: Time, node: HostId, seg: &Segment, cal: &mut Calendar<Event>) -> bool {
        if !self.any_rx_moderation {
            return self.hand_up(now, node, seg, cal);
        }
        let Some(rx) = &mut self.rx_moderation[node] else {
            return self.hand_up(now, node, seg, cal);
        };
        match rx.on_arrival(now, *seg) {
            RxArrival::Deliver => self.hand_up(now, node, seg, cal),
            RxArrival::Held(Some(at)) => {
                cal.schedule(at, Event::RxInterrupt(node));
                false
            }
            RxArrival::Held(None) => false,
        }
    }

    /// Host `node`'s NIC hands a packet up: to its receive processing, if it has any (false:
    /// held there until done), else straight to the stack (true).
    #[inline(always)]
    pub(super) fn hand_up(&mut self, now: Time, node: HostId, seg: &Segment, cal: &mut Calendar<Event>) -> bool {
        if !self.any_rx_processing {
            return true;
        }
        match &mut self.rx_processing[node] {
            Some(p) => {
                if let Some(done) = p.admit(now, *seg) {
                    cal.schedule(done, Event::RxProcessed(node));
                }
                false
            }
            None => true,
        }
    }

    /// Host `h`'s receive interrupt: the next packet it held, if any is left.
    pub(super) fn interrupted(&mut self, h: HostId) -> Option<Segment> {
        self.rx_moderation[h].as_mut().and_then(RxModeration::take_next)
    }

    /// The next packet host `h`'s receive processing is done with by `now`, if any.
    pub(super) fn processed(&mut self, now: Time, h: HostId) -> Option<Segment> {
        self.rx_processing[h].as_mut().and_then(|p| p.take_done(now))
    }

    /// Puts host `h`'s next receive-processing completion in the calendar, if it holds more.
    pub(super) fn schedule_processing(&self, h: HostId, cal: &mut Calendar<Event>) {
        if let Some(next) = self.rx_processing[h].as_ref().and_then(RxProcessor::next_done) {
            cal.schedule(next, Event::RxProcessed(h));
        }
    }

    /// Packets NICs hold before their stacks take them.
    pub(super) fn held(&self) -> u64 {
        self.rx_moderation.iter().flatten().map(|rx| rx.held() as u64).sum::<u64>()
            + self.rx_processing.iter().flatten().map(|p| p.held() as u64).sum::<u64>()
    }

    /// Whether a connection's packets in its NIC queue are limited (and so must be counted).
    #[inline]
    pub(super) fn limits_per_conn(&self) -> bool {
        self.queue_limit.bytes_per_conn > 0
    }

    /// How many packets end `e` of `conn` may hand its NIC now, of the `free` slots the NIC
    /// queue has. The per-connection limit (like Linux's TCP small queues) lets a connection
    /// add packets while it has less than the limit queued, so it may end just above it.
    #[inline]
    pub(super) fn nic_room(&self, now: Time, conn: &mut Conn, e: u8, free: usize) -> usize {
        let limit = self.queue_limit;
        if limit.bytes_per_conn == 0 {
            return free;
        }
        let queued = conn.nic_bytes(e as usize, now);
        free.min(limit.bytes_per_conn.saturating_sub(queued).div_ceil(limit.max_packet) as usize)
    }

    /// Parks end `e` of connection `c`, which its full NIC queue stopped, and makes sure it is
    /// woken when room comes back: when the NIC's packet in service leaves (`in_service`), or
    /// when this end's oldest queued packet does (`own`).
    pub(super) fn park(
        &mut self,
        now: Time,
        host: HostId,
        (c, e): (ConnId, u8),
        in_service: Option<Time>,
        own: Option<Time>,
        cal: &mut Calendar<Event>,
    ) {
        let waiting = &mut self.nic_waiting[host];
        if !waiting.contains(&(c, e)) {
            waiting.push((c, e));
        }
        let wake = match (in_service, own) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(now),
        };
        if self.nic_wake[host].is_none_or(|t| t > wake) {
            self.nic_wake[host] = Some(wake);
            cal.schedule(wake, Event::NicRoom(host));
        }
    }

    /// Room in host `h`'s NIC queue: swaps the senders waiting there, in the order they
    /// stopped, into `woken` (empty on entry), whose buffer the host keeps for the next to
    /// park (no allocation per wake-up); false when this wake-up was superseded by an earlier
    /// one.
    pub(super) fn woken(&mut self, now: Time, h: HostId, woken: &mut Vec<(ConnId, u8)>) -> bool {
        if self.nic_wake[h] != Some(now) {
            return false;
        }
        self.nic_wake[h] = None;
        std::mem::swap(&mut self.nic_waiting[h], woken);
        true
    }

    /// Takes host `h`'s receive path from `other` (the partition of a parallel run that
    /// simulated it).
    pub(super) fn take_host(&mut self, h: HostId, other: &mut Hosts) {
        std::mem::swap(&mut self.rx_moderation[h], &mut other.rx_moderation[h]);
        std::mem::swap(&mut self.rx_processing[h], &mut other.rx_processing[h]);
        std::mem::swap(&mut self.nic_waiting[h], &mut other.nic_waiting[h]);
    }

    /// Registers connection `conn`'s ends with the receive-window policies of their hosts.
    pub(super) fn attach(&mut self, conn: &mut Conn) {
        for e in 0..2 {
            if let Some(policy) = &mut self.policies[conn.hosts[e]] {
                conn.policy[e] = Some(policy.add_conn(conn.start));
            }
        }
    }

    /// An ended connection leaves its hosts' policies (the driver's FIN/RST, ICTCP §VI-A).
    pub(super) fn detach(&mut self, conn: &Conn) {
        for e in 0..2 {
            if let Some(k) = conn.policy[e] {
                self.policies[conn.hosts[e]].as_mut().expect("attached").remove_conn(k);
            }
        }
    }

    /// Entries in the hosts' policy tables.
    pub(super) fn policy_entries(&self) -> usize {
        self.policies.iter().flatten().map(HostPolicy::len).sum()
    }
}
