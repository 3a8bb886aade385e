//! An egress port: a buffer with a limit (DCTCP paper §2.3.1), an AQM (§3.1, RFC 3168), and
//! the link it serialises onto. Switch ports and host NICs are both ports.
//!
//! Two ways to run one. A FIFO whose AQM acts on arrival (every host NIC, and switch ports
//! unless configured otherwise) fixes each packet's departure when it admits it: no events
//! but the link arrivals (the fast path). A port with a queue discipline (`net::qdisc`:
//! classes, or an AQM that acts at dequeue) holds packets until its link frees, and the
//! simulation calls `tx_done` at the end of each transmission to start the next.

use std::collections::VecDeque;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::aqm::{Aqm, Verdict};
use super::packet::{Ecn, Packet, RETX, SYN};
use super::qdisc::{Discipline, PortView, QueueDisc};
use crate::ids::NodeId;
use crate::units::{Bytes, Rate, Time};

/// Why a port refused a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    DroppedBuffer,
    DroppedAqm,
}

/// Always-on counters and the exact time-weighted occupancy distribution.
#[derive(Debug, Default, Clone)]
pub struct PortCounters {
    pub arrived: u64,
    pub enqueued: u64,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub drops_buffer: u64,
    /// Refused because the switch's shared memory was full.
    pub drops_pool: u64,
    pub drops_aqm: u64,
    /// Of `drops_aqm`, the packets an AQM dropped as they left the queue (after admission).
    pub drops_dequeue: u64,
    /// Every drop above, by what was dropped (Judd's "RED-ECN AQM Implementation" slide):
    /// packets that were not ECN-capable, SYNs and SYN-ACKs, pure ACKs, and retransmitted data.
    pub drops_by_kind: DropKinds,
    pub marks: u64,
    /// Drops and marks when the warm-up ended (the measurement window counts from them).
    pub drops_at_warmup: u64,
    pub marks_at_warmup: u64,
    pub max_packets: u64,
    pub max_bytes: Bytes,
    /// `occupancy[n]`: time spent holding n packets since the window start.
    pub occupancy: Vec<Time>,
    /// ∫ bytes dt over the window, byte·ps (u128: up to 2^40 B held for 2^64 ps).
    pub byte_ps: u128,
    /// Link busy time within the window.
    pub busy: Time,
}

/// A port's drops by the kind of packet dropped (the same drop may count in several).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DropKinds {
    pub nonect: u64,
    pub syn: u64,
    pub ack: u64,
    pub retransmit: u64,
}

impl PortCounters {
    /// Drops of every cause: the port's limit, the shared memory, the AQM.
    pub fn drops(&self) -> u64 {
        self.drops_buffer + self.drops_pool + self.drops_aqm
    }

    /// The warm-up ends: what follows is the measurement window.
    pub fn mark_warmup(&mut self) {
        (self.drops_at_warmup, self.marks_at_warmup) = (self.drops(), self.marks);
    }
}

impl DropKinds {
    /// Counts the dropped packet `pkt` under each kind it is.
    pub fn count(&mut self, pkt: &Packet) {
        self.nonect += (pkt.ecn == Ecn::NotEct) as u64;
        self.syn += pkt.has(SYN) as u64;
        self.ack += (pkt.len == 0 && !pkt.has(SYN)) as u64;
        self.retransmit += pkt.has(RETX) as u64;
    }
}

#[derive(Debug, Clone)]
pub struct Port {
    pub name: String,
    pub node: NodeId,
    pub peer: NodeId,
    pub is_switch: bool,
    pub rate: Rate,
    pub delay: Time,
    /// Wire bytes per frame beyond the IP packet.
    pub framing: Bytes,
    pub limit_packets: u32,
    pub limit_bytes: Bytes,
    pub aqm: Aqm,
    /// The port's slot in its switch's shared memory, if the switch has one (so that ports
    /// without one never look at their node).
    pub memory_slot: Option<u32>,
    /// Whether the packet being serialised counts towards the AQM's occupancy.
    aqm_counts_in_service: bool,
    /// Packets admitted and not yet at the peer, each with the end of its transmission (it
    /// reaches the peer `delay` later: the link is FIFO). The first `departed` have left the
    /// buffer and are on the wire; the rest are the buffer. A FIFO port's schedule is fixed
    /// when a packet is admitted, so departures need no events: packets whose transmission
    /// has ended leave the buffer lazily (`drain`), at their exact end times. One queue for
    /// both keeps a packet's timing and headers in the same cache lines.
    queue: VecDeque<Slot>,
    departed: usize,
    buffered_bytes: Bytes,
    /// When the link finishes the last admitted packet.
    free_at: Time,
    last_change: Time,
    /// Host timing noise: a random wait in [0, jitter] before a packet may start (boxed: the
    /// generator is large and few ports have one).
    jitter: Option<Box<(Time, ChaCha8Rng)>>,
    /// The last frame size serialised and its time: a port sends mostly one size (full
    /// segments), so this spares the division of `Rate::tx_time` on most packets.
    last_tx: (Bytes, Time),
    pub counters: PortCounters,
    /// The queue discipline and its state, if the port is not a plain FIFO: boxed, so the
    /// fast path's ports stay small.
    scheduled: Option<Box<Scheduled>>,
}

/// What a port run by a queue discipline keeps beside the FIFO's fields.
#[derive(Debug, Clone)]
struct Scheduled {
    discipline: Discipline,
    /// The packet being serialised (its start, end, size and class).
    serving: Option<(Held, u8)>,
    /// Packets its AQM dropped at dequeue, for the simulation to account.
    dequeue_drops: Vec<Packet>,
}

/// A packet admitted by a FIFO port, and when its transmission ends.
#[derive(Debug, Clone, Copy)]
struct Slot {
    end: Time,
    pkt: Packet,
}

/// The packet a queue discipline's port is serialising: its start, end and size.
#[derive(Debug, Clone, Copy)]
struct Held {
    start: Time,
    end: Time,
    size: Bytes,
}

impl Port {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        node: NodeId,
        peer: NodeId,
        is_switch: bool,
        rate: Rate,
        delay: Time,
        framing: Bytes,
        limit_packets: u32,
        limit_bytes: Bytes,
        aqm: Aqm,
    ) -> Self {
        let aqm_counts_in_service = aqm.counts_in_service();
        Port {
            name,
            node,
            peer,
            is_switch,
            rate,
            delay,
            framing,
            limit_packets,
            limit_bytes,
            aqm,
            memory_slot: None,
            aqm_counts_in_service,
            queue: VecDeque::new(),
            departed: 0,
            buffered_bytes: Bytes::ZERO,
            free_at: Time::ZERO,
            last_change: Time::ZERO,
            jitter: None,
            last_tx: (Bytes::ZERO, Time::ZERO),
            counters: PortCounters {
                occupancy: vec![Time::ZERO; 64],
                ..Default::default()
            },
            scheduled: None,
        }
    }

    /// Runs the port with a queue discipline instead of the FIFO fast path.
    pub fn with_discipline(mut self, d: Discipline) -> Self {
        assert!(self.jitter.is_none(), "host timing noise is modelled on FIFO NICs only");
        self.aqm = Aqm::DropTail; // each class queue has its own
        self.scheduled = Some(Box::new(Scheduled {
            discipline: d,
            serving: None,
            dequeue_drops: Vec::new(),
        }));
        self
    }

    /// The port's queue discipline, if it has one.
    #[inline]
    pub fn discipline(&self) -> Option<&Discipline> {
        self.scheduled.as_ref().map(|s| &s.discipline)
    }

    /// A packet the discipline's AQM dropped at dequeue, not yet accounted by the simulation.
    #[inline]
    pub fn pop_dequeue_drop(&mut self) -> Option<Packet> {
        self.scheduled.as_mut().and_then(|s| s.dequeue_drops.pop())
    }

    fn scheduled(&mut self) -> &mut Scheduled {
        self.scheduled.as_mut().expect("a port with a discipline")
    }

    /// Makes each admitted packet wait a random time in [0, max] before it may start.
    pub fn with_jitter(mut self, max: Time, rng: ChaCha8Rng) -> Self {
        self.jitter = (max > Time::ZERO).then(|| Box::new((max, rng)));
        self
    }

    /// Packets in the buffer at `now`, including the one being serialised.
    #[inline]
    pub fn occupancy_packets(&mut self, now: Time, window_start: Time) -> u32 {
        self.drain(now, window_start);
        self.held().0
    }

    #[inline]
    pub fn occupancy_bytes(&mut self, now: Time, window_start: Time) -> Bytes {
        self.drain(now, window_start);
        self.held().1
    }

    /// Bytes the shared memory's dynamic threshold weighs for `pkt` at a port with a queue
    /// discipline: its class queue's (the thresholds are per queue).
    #[inline]
    pub fn threshold_bytes(&self, pkt: &Packet) -> Bytes {
        let s = self.scheduled.as_ref().expect("a port with a discipline");
        s.discipline.queue_bytes(pkt)
    }

    /// Packets and bytes in the buffer, the one being serialised included (after `drain`).
    #[inline(always)]
    fn held(&self) -> (u32, Bytes) {
        match &self.scheduled {
            None => (self.buffered() as u32, self.buffered_bytes),
            Some(_) => {
                let (n, b) = self.held_by_discipline();
                (n as u32, b)
            }
        }
    }

    /// Packets in a FIFO port's buffer (after `drain`).
    #[inline(always)]
    fn buffered(&self) -> usize {
        self.queue.len() - self.departed
    }

    /// `held` of a port with a queue discipline: its waiting packets and the one in service.
    fn held_by_discipline(&self) -> (usize, Bytes) {
        let s = self.scheduled.as_ref().expect("a port with a discipline");
        let (n, b) = s.serving.map_or((0, Bytes::ZERO), |(h, _)| (1, h.size));
        (s.discipline.packets() as usize + n, s.discipline.bytes() + b)
    }

    /// Packets the buffer can still take at `now` (its packet limit minus its occupancy).
    #[inline]
    pub fn free_slots(&mut self, now: Time, window_start: Time) -> usize {
        self.drain(now, window_start);
        (self.limit_packets as usize).saturating_sub(self.buffered())
    }

    /// When the packet now being serialised leaves the buffer, freeing a slot.
    pub fn next_departure(&self) -> Option<Time> {
        self.queue.get(self.departed).map(|s| s.end)
    }

    /// Counts a packet the switch's shared memory refused before it reached this port's queue.
    pub fn refuse(&mut self, pool_full: bool) {
        self.counters.arrived += 1;
        if pool_full {
            self.counters.drops_pool += 1;
        } else {
            self.counters.drops_buffer += 1;
        }
    }

    /// Packets admitted and not yet delivered to the peer (queued, in service or propagating).
    pub fn in_flight(&self) -> usize {
        self.queue.len() + self.discipline().map_or(0, |d| d.packets() as usize)
    }

    /// Adds the time since the last occupancy change to the distribution (window only).
    /// Always inlined: it is on every packet's path, and the overflow checks' cold paths
    /// would otherwise tip it over the inliner's size limit.
    #[inline(always)]
    fn account(&mut self, t: Time, window_start: Time) {
        let (n, bytes) = match self.scheduled {
            None => (self.buffered(), self.buffered_bytes),
            Some(_) => self.held_by_discipline(),
        };
        self.account_held(t, window_start, n, bytes);
    }

    /// `account` with the buffer's packets and bytes given.
    #[inline(always)]
    fn account_held(&mut self, t: Time, window_start: Time, n: usize, bytes: Bytes) {
        let from = self.last_change.max(window_start);
        if t > from {
            let dt = t - from;
            if n >= self.counters.occupancy.len() {
                self.counters.occupancy.resize(n + 1, Time::ZERO);
            }
            self.counters.occupancy[n] += dt;
            self.counters.byte_ps += bytes.as_u64() as u128 * dt.as_ps() as u128;
        }
        self.last_change = self.last_change.max(t);
    }

    /// Takes the packets whose transmission ended by `now` out of the buffer, each at its own
    /// end time. (Their busy time was counted when they were admitted.)
    #[inline]
    fn drain(&mut self, now: Time, window_start: Time) {
        while let Some(s) = self.queue.get(self.departed) {
            let (end, size) = (s.end, s.pkt.bytes());
            if end > now {
                break;
            }
            self.account_held(end, window_start, self.buffered(), self.buffered_bytes);
            self.departed += 1;
            self.buffered_bytes -= size;
            self.counters.sent_packets += 1;
            self.counters.sent_bytes += size.as_u64();
        }
    }

    /// The link time of a transmission from `start` to `end` that falls in the window.
    #[inline(always)]
    fn busy_in_window(start: Time, end: Time, window_start: Time) -> Time {
        let from = start.max(window_start);
        if end > from {
            end - from
        } else {
            Time::ZERO
        }
    }

    /// A packet arrives for this port: buffer admission (DCTCP paper §2.3.1), then AQM (§3.1: if
    /// admission fails drop, else if occupancy > K mark). If admitted, returns when its
    /// transmission ends (it leaves the buffer) and, if it is the only packet on the way to the
    /// peer, its arrival time: the caller keeps exactly one arrival event per busy link, for
    /// the packet at the head of the wire.
    #[inline]
    pub fn offer(&mut self, now: Time, mut pkt: Packet, window_start: Time) -> Result<(Time, Option<Time>), Offer> {
        debug_assert!(self.scheduled.is_none(), "a port with a discipline takes offer_to_discipline");
        self.drain(now, window_start);
        self.counters.arrived += 1;
        let packets = self.buffered() as u32;
        let size = pkt.bytes();
        if packets + 1 > self.limit_packets || self.buffered_bytes + size > self.limit_bytes {
            self.counters.drops_buffer += 1;
            return Err(Offer::DroppedBuffer);
        }
        // After draining, the head (if any) is the packet being serialised.
        let aqm_occupancy = if self.aqm_counts_in_service || packets == 0 {
            packets
        } else {
            packets - 1
        };
        let idle_since = (packets == 0).then_some(self.free_at);
        match self.aqm.on_arrival(pkt.ecn, aqm_occupancy, now, idle_since) {
            Verdict::Enqueue => {}
            Verdict::Mark => {
                pkt.ecn = Ecn::Ce;
                self.counters.marks += 1;
            }
            Verdict::Drop => {
                self.counters.drops_aqm += 1;
                return Err(Offer::DroppedAqm);
            }
        }
        self.account_held(now, window_start, packets as usize, self.buffered_bytes);
        let ready = match self.jitter.as_deref_mut() {
            Some((max, rng)) => now + Time::from_ps(rng.gen_range(0..=max.as_ps())),
            None => now,
        };
        let start = ready.max(self.free_at);
        let frame = size + self.framing;
        if frame != self.last_tx.0 {
            self.last_tx = (frame, self.rate.tx_time(frame));
        }
        let end = start + self.last_tx.1;
        self.free_at = end;
        // The link is busy for the whole transmission; `close` takes back what runs past the end.
        self.counters.busy += Self::busy_in_window(start, end, window_start);
        let first = self.queue.is_empty();
        self.queue.push_back(Slot { end, pkt });
        self.buffered_bytes += size;
        let c = &mut self.counters;
        c.enqueued += 1;
        c.max_packets = c.max_packets.max(packets as u64 + 1);
        c.max_bytes = c.max_bytes.max(self.buffered_bytes);
        Ok((end, first.then(|| end + self.delay)))
    }

    /// `offer` on a port with a queue discipline: the discipline admits (and may mark) the
    /// packet; if the link is idle its next packet starts at once. Returns, as `start_next`,
    /// when a transmission that started ends and when its packet reaches the peer; packets
    /// the AQM dropped at dequeue are left in `dequeue_drops`.
    pub fn offer_to_discipline(&mut self, now: Time, pkt: Packet, window_start: Time) -> Result<(Option<Time>, Option<Time>), Offer> {
        self.counters.arrived += 1;
        let (packets, bytes) = self.held();
        let view = PortView {
            packets,
            bytes,
            limit_packets: self.limit_packets,
            limit_bytes: self.limit_bytes,
            serving: self.scheduled().serving.map(|(_, class)| class),
            idle_since: self.scheduled().serving.is_none().then_some(self.free_at),
        };
        self.account(now, window_start);
        match self.scheduled().discipline.enqueue(now, pkt, view) {
            Ok(marked) => self.counters.marks += marked as u64,
            Err(why) => {
                match why {
                    Offer::DroppedBuffer => self.counters.drops_buffer += 1,
                    Offer::DroppedAqm => self.counters.drops_aqm += 1,
                }
                return Err(why);
            }
        }
        let c = &mut self.counters;
        c.enqueued += 1;
        c.max_packets = c.max_packets.max(packets as u64 + 1);
        c.max_bytes = c.max_bytes.max(bytes + pkt.bytes());
        if self.scheduled().serving.is_some() {
            return Ok((None, None));
        }
        Ok(self.start_next(now, window_start))
    }

    /// Queue discipline: the link is free at `now`; the discipline's next packet starts.
    /// Returns when its transmission ends and, if the wire was empty, when it reaches the peer.
    fn start_next(&mut self, now: Time, window_start: Time) -> (Option<Time>, Option<Time>) {
        self.account(now, window_start);
        let s = self.scheduled();
        let before = s.dequeue_drops.len();
        let next = s.discipline.dequeue(now, &mut s.dequeue_drops);
        let dropped = (s.dequeue_drops.len() - before) as u64;
        self.counters.drops_aqm += dropped;
        self.counters.drops_dequeue += dropped;
        let Some(x) = next else {
            return (None, None);
        };
        self.counters.marks += x.marked as u64;
        let size = x.pkt.bytes();
        let frame = size + self.framing;
        if frame != self.last_tx.0 {
            self.last_tx = (frame, self.rate.tx_time(frame));
        }
        let end = now + self.last_tx.1;
        self.free_at = end;
        self.scheduled().serving = Some((Held { start: now, end, size }, x.class));
        // The discipline holds the buffer: the packet is on the wire from now on.
        let first = self.queue.is_empty();
        self.queue.push_back(Slot { end, pkt: x.pkt });
        self.departed += 1;
        (Some(end), first.then(|| end + self.delay))
    }

    /// The invariant-checking mode's test of this port at `now` (`sim.check_invariants`):
    /// every packet that arrived was admitted or refused once; every admitted one was sent,
    /// dropped at dequeue or is held; a FIFO's byte count is that of the packets it holds,
    /// which leave in order, after `now`, within the limits.
    pub fn check_invariants(&mut self, now: Time, window_start: Time) -> Result<(), String> {
        let c = &self.counters;
        let refused = c.drops_buffer + c.drops_pool + (c.drops_aqm - c.drops_dequeue);
        if c.arrived != c.enqueued + refused {
            return Err(format!(
                "{} packets arrived but {} were admitted and {refused} refused",
                c.arrived, c.enqueued
            ));
        }
        let held = match &self.scheduled {
            Some(s) => s.discipline.packets() as u64 + s.serving.is_some() as u64,
            None => {
                self.drain(now, window_start);
                let buffered = self.queue.range(self.departed..);
                let bytes = buffered.clone().fold(Bytes::ZERO, |sum, s| sum + s.pkt.bytes());
                if bytes != self.buffered_bytes {
                    return Err(format!("it counts {} but holds packets of {bytes}", self.buffered_bytes));
                }
                if self.buffered() as u64 > self.limit_packets as u64 || bytes > self.limit_bytes {
                    return Err(format!("it holds {} packets of {bytes}, over its limits", self.buffered()));
                }
                // Each held packet's transmission ends after `now` (drained), and after the one
                // before it: a link sends one packet at a time.
                let mut last = now;
                for s in buffered {
                    if s.end <= last {
                        return Err(format!("a held packet's transmission ends at {}, not after {last}", s.end));
                    }
                    last = s.end;
                }
                self.buffered() as u64
            }
        };
        let c = &self.counters;
        if c.enqueued != c.sent_packets + c.drops_dequeue + held {
            return Err(format!(
                "{} packets were admitted but {} were sent, {} dropped at dequeue and {held} are held",
                c.enqueued, c.sent_packets, c.drops_dequeue
            ));
        }
        Ok(())
    }

    /// Queue discipline: whether the packet in service has finished by `now` (its `TxDone`
    /// is due). The simulation completes it before anything else touches the port at that
    /// instant, so an arrival at the very picosecond a transmission ends sees the packet
    /// gone, as on the FIFO fast path.
    #[inline]
    pub fn tx_due(&self, now: Time) -> bool {
        self.scheduled
            .as_ref()
            .is_some_and(|s| s.serving.is_some_and(|(h, _)| h.end <= now))
    }

    /// Queue discipline: the transmission that started last ended at `now` (the simulation's
    /// `TxDone` event). Returns the size of the packet that left the buffer, and the next
    /// transmission's end and arrival as `start_next` does. Packets the AQM drops at dequeue
    /// are left in `dequeue_drops`.
    pub fn tx_done(&mut self, now: Time, window_start: Time) -> (Bytes, Option<Time>, Option<Time>) {
        self.account(now, window_start);
        let s = self.scheduled();
        let (h, class) = s.serving.take().expect("a TxDone event always has a packet in service");
        s.discipline.sent(now, class);
        self.counters.sent_packets += 1;
        self.counters.sent_bytes += h.size.as_u64();
        self.counters.busy += Self::busy_in_window(h.start, h.end, window_start);
        let (tx_done, arrive) = self.start_next(now, window_start);
        (h.size, tx_done, arrive)
    }

    /// The packet at the head of the wire has reached the peer at `now`. Returns it, and the
    /// arrival time of the next one if another is on the way.
    #[inline]
    pub fn pop_wire(&mut self, now: Time, window_start: Time) -> (Packet, Option<Time>) {
        if self.departed == 0 {
            self.drain(now, window_start); // it left the buffer before it arrived
        }
        let slot = self
            .queue
            .pop_front()
            .expect("a link-arrival event always has a packet on the wire");
        self.departed -= 1;
        (slot.pkt, self.queue.front().map(|s| s.end + self.delay))
    }

    /// The packet admitted last (a FIFO port's, as the AQM left it: marked or not).
    #[inline]
    pub fn last_admitted(&self) -> Packet {
        self.queue.back().expect("a packet was admitted").pkt
    }

    /// For a link whose peer is simulated elsewhere (a parallel run's cut), which is told of
    /// each packet when it is admitted: the packets that reached the peer by `now` leave the
    /// wire here, as `pop_wire` would take them one by one.
    pub fn forget_arrived(&mut self, now: Time, window_start: Time) {
        self.drain(now, window_start);
        while self.departed > 0 && self.queue.front().is_some_and(|s| s.end + self.delay <= now) {
            self.queue.pop_front();
            self.departed -= 1;
        }
    }

    /// Closes the occupancy distribution and busy time at the end of the run: of the packets
    /// still in the buffer, only the one being serialised counts, up to `end`.
    pub fn close(&mut self, end: Time, window_start: Time) {
        self.drain(end, window_start);
        self.account(end, window_start);
        let mut busy = self.counters.busy;
        for (i, s) in self.queue.range(self.departed..).enumerate() {
            let start = s.end - self.rate.tx_time(s.pkt.bytes() + self.framing);
            busy -= Self::busy_in_window(start, s.end, window_start);
            if i == 0 {
                busy += Self::busy_in_window(start, end, window_start);
            }
        }
        if let Some((h, _)) = self.scheduled.as_ref().and_then(|s| s.serving) {
            busy += Self::busy_in_window(h.start, end, window_start);
        }
        self.counters.busy = busy;
    }
}

#[cfg(test)]
#[path = "port_tests.rs"]
mod tests;
