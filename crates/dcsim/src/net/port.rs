//! An egress port: a FIFO buffer with a limit (M11, M12), an AQM (M16, M17), and the link it
//! serialises onto. Switch ports and host NICs are both ports.

use std::collections::VecDeque;

use super::aqm::{Aqm, Verdict};
use super::packet::{Ecn, Packet};
use crate::units::{Ps, Rate};

/// Outcome of offering a packet to a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    Queued,
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
    pub drops_aqm: u64,
    pub marks: u64,
    pub max_packets: u64,
    pub max_bytes: u64,
    /// `occupancy_ps[n]`: picoseconds spent holding n packets since the window start.
    pub occupancy_ps: Vec<u64>,
    /// ∫ bytes dt over the window, byte·ps.
    pub byte_ps: u128,
    /// Link busy time within the window.
    pub busy_ps: u64,
}

#[derive(Debug)]
pub struct Port {
    pub name: String,
    pub node: u32,
    pub peer: u32,
    pub is_switch: bool,
    pub rate: Rate,
    pub delay: Ps,
    /// Wire bytes per frame beyond the IP packet.
    pub framing: u32,
    pub limit_packets: u32,
    pub limit_bytes: u64,
    pub aqm: Aqm,
    /// Whether the packet being serialised counts towards the AQM's occupancy.
    aqm_counts_in_service: bool,
    queue: VecDeque<Packet>,
    queued_bytes: u64,
    /// Size of the packet on the wire being serialised, if any (it still occupies the buffer).
    in_service: Option<(u32, Ps)>,
    /// Packets propagating on the link, with their arrival times (FIFO: the link never reorders).
    wire: VecDeque<(Ps, Packet)>,
    /// When the port last became empty (for RED's idle correction).
    idle_since: Option<Ps>,
    last_change: Ps,
    pub counters: PortCounters,
}

impl Port {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        node: u32,
        peer: u32,
        is_switch: bool,
        rate: Rate,
        delay: Ps,
        framing: u32,
        limit_packets: u32,
        limit_bytes: u64,
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
            queue: VecDeque::with_capacity(64),
            queued_bytes: 0,
            in_service: None,
            wire: VecDeque::with_capacity(64),
            idle_since: Some(0),
            last_change: 0,
            counters: PortCounters {
                occupancy_ps: vec![0; 64],
                ..Default::default()
            },
        }
    }

    /// Packets in the buffer, including the one being serialised.
    #[inline]
    pub fn occupancy_packets(&self) -> u32 {
        self.queue.len() as u32 + self.in_service.is_some() as u32
    }

    #[inline]
    pub fn occupancy_bytes(&self) -> u64 {
        self.queued_bytes + self.in_service.map_or(0, |(s, _)| s as u64)
    }

    /// Packets waiting, not counting the one being serialised (which is already on the wire).
    pub fn queued_packets(&self) -> usize {
        self.queue.len()
    }

    pub fn is_busy(&self) -> bool {
        self.in_service.is_some()
    }

    /// Packets on the link right now.
    pub fn on_wire(&self) -> usize {
        self.wire.len()
    }

    /// Adds the time since the last occupancy change to the distribution (window only).
    #[inline]
    fn account(&mut self, now: Ps, window_start: Ps) {
        let from = self.last_change.max(window_start);
        if now > from {
            let dt = now - from;
            let n = self.occupancy_packets() as usize;
            if n >= self.counters.occupancy_ps.len() {
                self.counters.occupancy_ps.resize(n + 1, 0);
            }
            self.counters.occupancy_ps[n] += dt;
            self.counters.byte_ps += self.occupancy_bytes() as u128 * dt as u128;
        }
        self.last_change = now;
    }

    /// A packet arrives for this port: buffer admission (M11), then AQM (M17: "if buffer
    /// admission fails drop, else if occupancy > K mark").
    #[inline]
    pub fn offer(&mut self, now: Ps, mut pkt: Packet, window_start: Ps) -> Offer {
        self.counters.arrived += 1;
        let packets = self.occupancy_packets();
        let bytes = self.occupancy_bytes();
        if packets + 1 > self.limit_packets || bytes + pkt.size as u64 > self.limit_bytes {
            self.counters.drops_buffer += 1;
            return Offer::DroppedBuffer;
        }
        let aqm_occupancy = if self.aqm_counts_in_service {
            packets
        } else {
            self.queue.len() as u32
        };
        let idle = if packets == 0 { self.idle_since } else { None };
        match self.aqm.on_arrival(pkt.ecn, aqm_occupancy, now, idle) {
            Verdict::Enqueue => {}
            Verdict::Mark => {
                pkt.ecn = Ecn::Ce;
                self.counters.marks += 1;
            }
            Verdict::Drop => {
                self.counters.drops_aqm += 1;
                return Offer::DroppedAqm;
            }
        }
        self.account(now, window_start);
        self.counters.enqueued += 1;
        self.queued_bytes += pkt.size as u64;
        self.queue.push_back(pkt);
        let (p, b) = (self.occupancy_packets() as u64, self.occupancy_bytes());
        self.counters.max_packets = self.counters.max_packets.max(p);
        self.counters.max_bytes = self.counters.max_bytes.max(b);
        Offer::Queued
    }

    /// Starts serialising the head packet if the link is free. Returns (transmission end,
    /// arrival at the peer) so the caller can schedule both.
    #[inline]
    pub fn start_tx(&mut self, now: Ps) -> Option<(Ps, Ps)> {
        if self.in_service.is_some() {
            return None;
        }
        let pkt = self.queue.pop_front()?;
        self.queued_bytes -= pkt.size as u64;
        let tx = self.rate.tx_time(pkt.size as u64 + self.framing as u64);
        let done = now + tx;
        let arrive = done + self.delay;
        self.in_service = Some((pkt.size, now));
        self.idle_since = None;
        self.counters.sent_packets += 1;
        self.counters.sent_bytes += pkt.size as u64;
        self.wire.push_back((arrive, pkt));
        Some((done, arrive))
    }

    /// The packet in service has left the buffer.
    #[inline]
    pub fn finish_tx(&mut self, now: Ps, window_start: Ps) {
        self.account(now, window_start);
        if let Some((_, started)) = self.in_service.take() {
            let from = started.max(window_start);
            if now > from {
                self.counters.busy_ps += now - from;
            }
        }
        if self.queue.is_empty() {
            self.idle_since = Some(now);
        }
    }

    /// The packet at the far end of the link has arrived.
    #[inline]
    pub fn pop_wire(&mut self) -> Packet {
        self.wire
            .pop_front()
            .expect("a link-arrival event always has a packet on the wire")
            .1
    }

    /// Closes the occupancy distribution at the end of the run.
    pub fn close(&mut self, now: Ps, window_start: Ps) {
        self.account(now, window_start);
        if let Some((_, started)) = self.in_service {
            let from = started.max(window_start);
            if now > from {
                self.counters.busy_ps += now - from;
            }
        }
    }
}
