//! Constant-bit-rate UDP sources (`udp[]`): packet k of a source leaves at exactly
//! start + k · packet_bits / rate, whatever the network does to the ones before it; and echo
//! probes, whose destination sends each packet back so the source measures its round trip.

use crate::ids::UdpId;
use crate::net::packet::{Ecn, Packet, Segment, UDP};
use crate::results::{ProbeSamples, UdpStats};
use crate::units::{Rate, Time};

/// Bytes of IP and UDP headers in a datagram.
const HEADERS: u32 = 28;

/// One source and what became of its packets.
#[derive(Debug, Clone)]
pub(super) struct UdpSource {
    pub(super) src: u32,
    pub(super) dst: u32,
    pub(super) class: u8,
    pub(super) echo: bool,
    packet_bytes: u32,
    bps: u64,
    start: Time,
    stop: Option<Time>,
    /// Packets sent so far: the next is packet number `sent`.
    sent: u64,
    /// Of those, before the end of the warm-up.
    sent_at_warmup: u64,
    received: u64,
    received_at_warmup: u64,
    /// Its packets dropped on the way out, and its echoes dropped on the way back.
    dropped: u64,
    echoes_dropped: u64,
    replies: u64,
}

/// A source's settings, as the build resolved them from its `udp[]` entry.
#[derive(Debug, Clone, Copy)]
pub(super) struct UdpParams {
    pub(super) src: u32,
    pub(super) dst: u32,
    pub(super) class: u8,
    pub(super) echo: bool,
    /// IP packet bytes (headers included).
    pub(super) packet_bytes: u32,
    pub(super) rate: Rate,
    pub(super) start: Time,
    pub(super) stop: Option<Time>,
}

impl UdpSource {
    pub(super) fn new(p: UdpParams) -> Self {
        UdpSource {
            src: p.src,
            dst: p.dst,
            class: p.class,
            echo: p.echo,
            packet_bytes: p.packet_bytes,
            bps: p.rate.bps(),
            start: p.start,
            stop: p.stop,
            sent: 0,
            sent_at_warmup: 0,
            received: 0,
            received_at_warmup: 0,
            dropped: 0,
            echoes_dropped: 0,
            replies: 0,
        }
    }

    /// When packet `k` leaves: start + k · bits / rate, rounded down to the picosecond, so the
    /// rate holds exactly over any stretch (no rounding accumulates).
    pub(super) fn send_time(&self, k: u64) -> Time {
        let ps = k as u128 * self.packet_bytes as u128 * 8 * 1_000_000_000_000 / self.bps as u128;
        self.start + Time::from_ps(u64::try_from(ps).expect("a send time within the run's bounds"))
    }

    /// The time of the next packet, if it is to be sent before `stop` and `end`.
    pub(super) fn next_send(&self, end: Time) -> Option<Time> {
        let t = self.send_time(self.sent);
        (t < end && self.stop.is_none_or(|s| t < s)).then_some(t)
    }

    /// The next packet of source `id`, sent at `now`; counts it.
    pub(super) fn packet(&mut self, id: UdpId, now: Time) -> Segment {
        let seq = self.sent;
        self.sent += 1;
        Segment {
            // Where a TCP segment carries its connection.
            conn: id.0,
            src: self.src,
            dst: self.dst,
            from_end: 0,
            flags: UDP,
            ecn: Ecn::NotEct,
            class: self.class,
            len: self.packet_bytes - HEADERS,
            size: self.packet_bytes,
            seq,
            ack: 0,
            rwnd: 0,
            ts_val: now,
            ts_ecr: Time::ZERO,
            sack: [(0, 0); 3],
            sack_blocks: 0,
        }
    }

    /// A packet of this source reached its destination; the echo to send back, if it echoes.
    pub(super) fn on_delivered(&mut self, pkt: &Segment) -> Option<Segment> {
        self.received += 1;
        self.echo.then_some(Segment {
            src: pkt.dst,
            dst: pkt.src,
            from_end: 1,
            ..*pkt
        })
    }

    /// A port dropped one of its packets (or echoes).
    pub(super) fn on_dropped(&mut self, pkt: &Packet) {
        if pkt.from_end == 0 {
            self.dropped += 1;
        } else {
            self.echoes_dropped += 1;
        }
    }

    /// An echo came back at `now`: one round trip, from the packet's send time.
    pub(super) fn on_reply(&mut self, id: UdpId, pkt: &Segment, now: Time, probes: &mut ProbeSamples) {
        self.replies += 1;
        probes.udp.push(id.0);
        probes.t_s.push(pkt.ts_val.as_secs_f64());
        probes.rtt_s.push((now - pkt.ts_val).as_secs_f64());
    }

    /// The warm-up ends: the measurement window's counts start here.
    pub(super) fn mark_warmup(&mut self) {
        self.sent_at_warmup = self.sent;
        self.received_at_warmup = self.received;
    }

    /// Its row of `udp`; `window`: the measurement window, seconds.
    pub(super) fn stats(&self, id: u32, window: f64) -> UdpStats {
        let bits = |packets: u64| (packets * self.packet_bytes as u64 * 8) as f64;
        UdpStats {
            id,
            src: self.src,
            dst: self.dst,
            class: self.class,
            echo: self.echo,
            rate_bps: self.bps as f64,
            packet_bytes: self.packet_bytes,
            sent_packets: self.sent,
            received_packets: self.received,
            dropped_packets: self.dropped,
            replies: self.replies,
            echoes_dropped: self.echoes_dropped,
            send_rate_bps: bits(self.sent - self.sent_at_warmup) / window,
            receive_rate_bps: bits(self.received - self.received_at_warmup) / window,
        }
    }
}
