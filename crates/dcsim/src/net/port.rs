//! An egress port: a FIFO buffer with a limit (M11, M12), an AQM (M16, M17), and the link it
//! serialises onto. Switch ports and host NICs are both ports.

use std::collections::VecDeque;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::aqm::{Aqm, Verdict};
use super::packet::{Ecn, Packet};
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
    pub marks: u64,
    pub max_packets: u64,
    pub max_bytes: Bytes,
    /// `occupancy[n]`: time spent holding n packets since the window start.
    pub occupancy: Vec<Time>,
    /// ∫ bytes dt over the window, byte·ps (u128: up to 2^40 B held for 2^64 ps).
    pub byte_ps: u128,
    /// Link busy time within the window.
    pub busy: Time,
}

#[derive(Debug)]
pub struct Port {
    pub name: String,
    pub node: u32,
    pub peer: u32,
    pub is_switch: bool,
    pub rate: Rate,
    pub delay: Time,
    /// Wire bytes per frame beyond the IP packet.
    pub framing: Bytes,
    pub limit_packets: u32,
    pub limit_bytes: Bytes,
    pub aqm: Aqm,
    /// Whether the packet being serialised counts towards the AQM's occupancy.
    aqm_counts_in_service: bool,
    /// Packets in the buffer as (transmission start, transmission end, size). A FIFO port's
    /// schedule is fixed when a packet is admitted, so departures need no events: entries
    /// whose transmission has ended are drained lazily, at their exact end times.
    buffer: VecDeque<Held>,
    buffered_bytes: Bytes,
    /// When the link finishes the last admitted packet.
    free_at: Time,
    /// Packets admitted and not yet at the peer, with their arrival times (the link is FIFO).
    wire: VecDeque<(Time, Packet)>,
    last_change: Time,
    /// Host timing noise: a random wait in [0, jitter] before a packet may start.
    jitter: Option<(Time, ChaCha8Rng)>,
    /// The last frame size serialised and its time: a port sends mostly one size (full
    /// segments), so this spares the division of `Rate::tx_time` on most packets.
    last_tx: (Bytes, Time),
    pub counters: PortCounters,
}

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
        node: u32,
        peer: u32,
        is_switch: bool,
        rate: Rate,
        delay: Time,
        framing: Bytes,
        limit_packets: u32,
        limit_bytes: Bytes,
        aqm: Aqm,
    ) -> Self {
        let aqm_counts_in_service = match &aqm {
            Aqm::Threshold(t) => t.count_in_service,
            _ => true,
        };
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
            aqm_counts_in_service,
            buffer: VecDeque::new(),
            buffered_bytes: Bytes::ZERO,
            free_at: Time::ZERO,
            wire: VecDeque::new(),
            last_change: Time::ZERO,
            jitter: None,
            last_tx: (Bytes::ZERO, Time::ZERO),
            counters: PortCounters {
                occupancy: vec![Time::ZERO; 64],
                ..Default::default()
            },
        }
    }

    /// Makes each admitted packet wait a random time in [0, max] before it may start.
    pub fn with_jitter(mut self, max: Time, rng: ChaCha8Rng) -> Self {
        self.jitter = (max > Time::ZERO).then_some((max, rng));
        self
    }

    /// Packets in the buffer at `now`, including the one being serialised.
    #[inline]
    pub fn occupancy_packets(&mut self, now: Time, window_start: Time) -> u32 {
        self.drain(now, window_start);
        self.buffer.len() as u32
    }

    #[inline]
    pub fn occupancy_bytes(&mut self, now: Time, window_start: Time) -> Bytes {
        self.drain(now, window_start);
        self.buffered_bytes
    }

    /// Packets the buffer can still take at `now` (its packet limit minus its occupancy).
    #[inline]
    pub fn free_slots(&mut self, now: Time, window_start: Time) -> usize {
        self.drain(now, window_start);
        (self.limit_packets as usize).saturating_sub(self.buffer.len())
    }

    /// When the packet now being serialised leaves the buffer, freeing a slot.
    pub fn next_departure(&self) -> Option<Time> {
        self.buffer.front().map(|h| h.end)
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
        self.wire.len()
    }

    /// Adds the time since the last occupancy change to the distribution (window only).
    /// Always inlined: it is on every packet's path, and the overflow checks' cold paths
    /// would otherwise tip it over the inliner's size limit.
    #[inline(always)]
    fn account(&mut self, t: Time, window_start: Time) {
        let from = self.last_change.max(window_start);
        if t > from {
            let dt = t - from;
            let n = self.buffer.len();
            if n >= self.counters.occupancy.len() {
                self.counters.occupancy.resize(n + 1, Time::ZERO);
            }
            self.counters.occupancy[n] += dt;
            self.counters.byte_ps += self.buffered_bytes.as_u64() as u128 * dt.as_ps() as u128;
        }
        self.last_change = self.last_change.max(t);
    }

    /// Removes the packets whose transmission ended by `now`, each at its own end time.
    #[inline]
    fn drain(&mut self, now: Time, window_start: Time) {
        while let Some(&h) = self.buffer.front() {
            if h.end > now {
                break;
            }
            self.account(h.end, window_start);
            self.buffer.pop_front();
            self.buffered_bytes -= h.size;
            self.counters.sent_packets += 1;
            self.counters.sent_bytes += h.size.as_u64();
            let from = h.start.max(window_start);
            if h.end > from {
                self.counters.busy += h.end - from;
            }
        }
    }

    /// A packet arrives for this port: buffer admission (M11), then AQM (M17: "if buffer
    /// admission fails drop, else if occupancy > K mark"). If admitted, returns when its
    /// transmission ends (it leaves the buffer) and, if it is the only packet on the way to the
    /// peer, its arrival time: the caller keeps exactly one arrival event per busy link, for
    /// the packet at the head of the wire.
    #[inline]
    pub fn offer(&mut self, now: Time, mut pkt: Packet, window_start: Time) -> Result<(Time, Option<Time>), Offer> {
        self.drain(now, window_start);
        self.counters.arrived += 1;
        let packets = self.buffer.len() as u32;
        let size = Bytes::from(pkt.size);
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
        self.account(now, window_start);
        let ready = match &mut self.jitter {
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
        self.buffer.push_back(Held { start, end, size });
        self.buffered_bytes += size;
        let arrive = end + self.delay;
        let first = self.wire.is_empty();
        self.wire.push_back((arrive, pkt));
        let c = &mut self.counters;
        c.enqueued += 1;
        c.max_packets = c.max_packets.max(self.buffer.len() as u64);
        c.max_bytes = c.max_bytes.max(self.buffered_bytes);
        Ok((end, first.then_some(arrive)))
    }

    /// The packet at the head of the wire has reached the peer. Returns it, and the arrival
    /// time of the next one if another is on the way.
    #[inline]
    pub fn pop_wire(&mut self) -> (Packet, Option<Time>) {
        let (_, pkt) = self.wire.pop_front().expect("a link-arrival event always has a packet on the wire");
        (pkt, self.wire.front().map(|&(t, _)| t))
    }

    /// Closes the occupancy distribution and busy time at the end of the run.
    pub fn close(&mut self, end: Time, window_start: Time) {
        self.drain(end, window_start);
        self.account(end, window_start);
        if let Some(h) = self.buffer.front() {
            let from = h.start.max(window_start);
            if end > from {
                self.counters.busy += end - from;
            }
        }
    }
}
