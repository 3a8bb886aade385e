//! What hosts send and what the network carries.
//!
//! - A [`Segment`] is what a host's transport (a TCP end, a UDP source) sends and
//!   receives: every header field, no payload bytes.
//! - A [`Packet`] is a segment in the network: the 24 bytes that ports, switches and
//!   NICs read (addresses, sizes, flags, ECN, class). Its transport fields wait in a
//!   [`HeaderPool`] entry from the sending host to the receiving host's NIC (or the port
//!   that drops it), since only the ends read them. Every hop moves a 24-byte packet (a 32-byte
//!   port slot), not the whole header.

use crate::units::{Bytes, Time};

/// IP ECN codepoint (RFC 3168 §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ecn {
    NotEct,
    Ect,
    Ce,
}

pub const SYN: u8 = 1;
pub const ACK: u8 = 2;
pub const FIN: u8 = 4;
pub const PSH: u8 = 8;
/// ECN-Echo (RFC 3168 §6.1).
pub const ECE: u8 = 16;
/// Congestion Window Reduced (RFC 3168 §6.1).
pub const CWR: u8 = 32;
/// Not a TCP flag: the sender's note that this segment is a retransmission, so that a port
/// can count the drops of retransmissions (the pcap writer ignores it).
pub const RETX: u8 = 64;
/// Not a TCP flag: a UDP datagram of source `conn` (`udp[]`); `from_end` 1 marks an echo.
pub const UDP: u8 = 128;

/// A segment as a host's transport sends and receives it.
#[derive(Debug, Clone, Copy)]
pub struct Segment {
    /// Connection index.
    pub conn: u32,
    /// Source and destination host (routing, the ECMP hash).
    pub src: u32,
    pub dst: u32,
    /// Which end of the connection sent it (0 = the side that opened it).
    pub from_end: u8,
    pub flags: u8,
    pub ecn: Ecn,
    /// Traffic class its host gave it (the flow's `class`, as a DSCP or 802.1p priority):
    /// what a switch classifying by flow reads (DCTCP paper §1, Class of Service).
    pub class: u8,
    /// Payload bytes.
    pub len: u32,
    /// Bytes of the IP packet (payload + headers): what buffers hold. At most 65,535 (the
    /// MTU is at most 65,040 B, a UDP datagram at most 65,535 B), so it fits a packet's `u16`.
    pub size: u32,
    /// Sequence and acknowledgment numbers: plain `u64` byte offsets, bounded by
    /// `limits::MAX_BYTES` (2^50), so they never wrap (unlike TCP's 32-bit ones).
    pub seq: u64,
    pub ack: u64,
    /// Advertised receive window, bytes: below 2^30 (RFC 7323 §2.3, `limits::MAX_RCV_BUFFER`).
    pub rwnd: u32,
    /// RFC 7323 timestamps, in simulated ps (the model's clock is exact).
    pub ts_val: Time,
    pub ts_ecr: Time,
    /// SACK blocks (RFC 2018) as [start, end) offsets from `ack`; the first `sack_blocks` count.
    pub sack: [(u32, u32); 3],
    pub sack_blocks: u8,
}

impl Segment {
    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// A segment in the network: what ports, switches and NICs read. `header` is where its
/// transport fields wait in the simulation's [`HeaderPool`].
#[derive(Debug, Clone, Copy)]
pub struct Packet {
    pub conn: u32,
    pub src: u32,
    pub dst: u32,
    pub header: u32,
    /// Bytes of the IP packet, as [`Segment::size`].
    pub size: u16,
    /// Payload bytes (a pure ACK has none).
    pub len: u16,
    pub from_end: u8,
    pub flags: u8,
    pub ecn: Ecn,
    pub class: u8,
}

impl Packet {
    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Bytes it takes in a buffer.
    #[inline]
    pub fn bytes(&self) -> Bytes {
        Bytes::from(self.size as u32)
    }
}

/// The transport fields of a segment in the network: one cache line, read once, by the
/// receiving host.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub struct Header {
    pub seq: u64,
    pub ack: u64,
    pub ts_val: Time,
    pub ts_ecr: Time,
    pub rwnd: u32,
    pub sack_blocks: u8,
    pub sack: [(u32, u32); 3],
}

/// The headers of the packets in the network, by index. A host puts a segment's header in
/// when it sends it, and the receiving host (or the port that drops it) takes it out; freed
/// entries are reused last-freed first, so the entries in use stay few and warm.
#[derive(Debug, Default, Clone)]
pub struct HeaderPool {
    headers: Vec<Header>,
    free: Vec<u32>,
}

impl HeaderPool {
    /// `seg` enters the network: its packet, with the header stored.
    #[inline]
    pub fn send(&mut self, seg: &Segment) -> Packet {
        let header = Header {
            seq: seg.seq,
            ack: seg.ack,
            ts_val: seg.ts_val,
            ts_ecr: seg.ts_ecr,
            rwnd: seg.rwnd,
            sack_blocks: seg.sack_blocks,
            sack: seg.sack,
        };
        let index = match self.free.pop() {
            Some(i) => {
                self.headers[i as usize] = header;
                i
            }
            None => {
                self.headers.push(header);
                u32::try_from(self.headers.len() - 1).expect("fewer than 2^32 packets in the network")
            }
        };
        Packet {
            conn: seg.conn,
            src: seg.src,
            dst: seg.dst,
            header: index,
            size: u16::try_from(seg.size).expect("a packet of at most 65,535 bytes (scenario bounds)"),
            len: u16::try_from(seg.len).expect("a payload of at most 65,535 bytes (scenario bounds)"),
            from_end: seg.from_end,
            flags: seg.flags,
            ecn: seg.ecn,
            class: seg.class,
        }
    }

    /// `pkt` leaves the network at its destination: the whole segment, its header freed.
    #[inline]
    pub fn receive(&mut self, pkt: &Packet) -> Segment {
        let h = self.headers[pkt.header as usize];
        self.free.push(pkt.header);
        Segment {
            conn: pkt.conn,
            src: pkt.src,
            dst: pkt.dst,
            from_end: pkt.from_end,
            flags: pkt.flags,
            ecn: pkt.ecn,
            class: pkt.class,
            len: pkt.len as u32,
            size: pkt.size as u32,
            seq: h.seq,
            ack: h.ack,
            rwnd: h.rwnd,
            ts_val: h.ts_val,
            ts_ecr: h.ts_ecr,
            sack: h.sack,
            sack_blocks: h.sack_blocks,
        }
    }

    /// A port dropped `pkt`: its header is freed. (A header freed twice would show in the
    /// count of packets in the network, which debug runs check against the ports' at the end.)
    #[inline]
    pub fn dropped(&mut self, pkt: &Packet) {
        self.free.push(pkt.header);
    }

    /// The header of `pkt`, which is in the network.
    pub fn get(&self, pkt: &Packet) -> &Header {
        &self.headers[pkt.header as usize]
    }

    /// Packets in the network (sent, and neither received nor dropped).
    pub fn in_network(&self) -> usize {
        self.headers.len() - self.free.len()
    }
}

/// Segments for tests and benchmarks.
impl Segment {
    /// A data segment of `size` bytes (40 of them headers) of connection 0, from host 0 to
    /// host 1, acknowledging nothing new.
    pub fn data(seq: u64, size: u32, ecn: Ecn) -> Segment {
        Segment {
            conn: 0,
            src: 0,
            dst: 1,
            from_end: 0,
            flags: ACK,
            ecn,
            class: 0,
            len: size - 40,
            size,
            seq,
            ack: 1,
            rwnd: 65_535,
            ts_val: Time::ZERO,
            ts_ecr: Time::ZERO,
            sack: [(0, 0); 3],
            sack_blocks: 0,
        }
    }

    /// A pure ACK of `size` bytes of connection 0 from its receiving end (host 1) to the
    /// sender (host 0), acknowledging `ack`.
    pub fn pure_ack(ack: u64, size: u32) -> Segment {
        Segment {
            src: 1,
            dst: 0,
            from_end: 1,
            ecn: Ecn::NotEct,
            len: 0,
            size,
            seq: 1,
            ack,
            ..Segment::data(0, 40, Ecn::NotEct)
        }
    }
}

/// Packets for tests and benchmarks of the network's parts.
impl Packet {
    /// A data packet of `size` bytes (40 of them headers) of connection 0 from host 0 to
    /// host 1; `header` tells it apart from others (no pool holds one).
    pub fn data(header: u32, size: u16, ecn: Ecn) -> Packet {
        Packet {
            conn: 0,
            src: 0,
            dst: 1,
            header,
            size,
            len: size - 40,
            from_end: 0,
            flags: ACK,
            ecn,
            class: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_24_bytes_and_a_header_one_cache_line() {
        // A port's slot is a packet and its departure time: 32 bytes, two to a cache line.
        assert_eq!(std::mem::size_of::<Packet>(), 24);
        assert_eq!(std::mem::size_of::<Header>(), 64);
    }

    #[test]
    fn a_segment_crosses_the_network_unchanged_and_frees_its_header() {
        let mut pool = HeaderPool::default();
        let seg = Segment {
            conn: 7,
            src: 3,
            dst: 9,
            from_end: 1,
            flags: ACK | ECE,
            ecn: Ecn::Ect,
            class: 2,
            len: 1448,
            size: 1500,
            seq: (1 << 50) - 1,
            ack: 123_456_789_012,
            rwnd: (1 << 30) - 1,
            ts_val: Time::from_ps(5),
            ts_ecr: Time::MAX,
            sack: [(1, 2), (3, 4), (5, u32::MAX)],
            sack_blocks: 3,
        };
        let a = pool.send(&seg);
        let b = pool.send(&Segment::pure_ack(9, 52));
        assert_eq!((a.header, b.header, pool.in_network()), (0, 1, 2));
        assert_eq!((a.size, a.len, a.conn, a.class), (1500, 1448, 7, 2));
        let back = pool.receive(&a);
        assert_eq!(format!("{back:?}"), format!("{seg:?}"));
        pool.dropped(&b);
        assert_eq!(pool.in_network(), 0);
        // The last freed entry is used first.
        assert_eq!(pool.send(&seg).header, 1);
        assert_eq!(pool.send(&seg).header, 0);
        assert_eq!(pool.send(&seg).header, 2);
    }

    #[test]
    #[should_panic(expected = "at most 65,535 bytes")]
    fn a_segment_too_large_for_a_packet_is_refused() {
        HeaderPool::default().send(&Segment::data(0, 65_536, Ecn::Ect));
    }
}
