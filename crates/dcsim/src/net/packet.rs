//! A packet is a plain value: headers only, no payload bytes.

use crate::units::Time;

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

#[derive(Debug, Clone, Copy)]
pub struct Packet {
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
    /// what a switch classifying by flow reads (M18).
    pub class: u8,
    /// Payload bytes.
    pub len: u32,
    /// Bytes of the IP packet (payload + headers): what buffers hold. A `u32` to keep
    /// packets small; ports and shared memory count it as `units::Bytes`.
    pub size: u32,
    /// Sequence and acknowledgment numbers: plain `u64` byte offsets, bounded by
    /// `limits::MAX_BYTES` (2^50), so they never wrap (unlike TCP's 32-bit ones).
    pub seq: u64,
    pub ack: u64,
    /// Advertised receive window, bytes: below 2^30 (RFC 7323 §2.3, `limits::MAX_RCV_BUFFER`),
    /// so a `u32`, which keeps a packet at 88 bytes.
    pub rwnd: u32,
    /// RFC 7323 timestamps, in simulated ps (the model's clock is exact).
    pub ts_val: Time,
    pub ts_ecr: Time,
    /// SACK blocks (RFC 2018) as [start, end) offsets from `ack`; the first `sack_blocks` count.
    pub sack: [(u32, u32); 3],
    pub sack_blocks: u8,
}

impl Packet {
    #[inline]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

#[cfg(test)]
#[test]
fn a_packet_stays_88_bytes() {
    // Packets are copied by value at every hop: a field that grows them needs room found.
    assert_eq!(std::mem::size_of::<Packet>(), 88);
}

/// Packets for tests and benchmarks.
impl Packet {
    /// A data packet of `size` bytes (40 of them headers) of connection 0, from host 0 to
    /// host 1, acknowledging nothing new.
    pub fn data(seq: u64, size: u32, ecn: Ecn) -> Packet {
        Packet {
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
    pub fn pure_ack(ack: u64, size: u32) -> Packet {
        Packet {
            src: 1,
            dst: 0,
            from_end: 1,
            ecn: Ecn::NotEct,
            len: 0,
            size,
            seq: 1,
            ack,
            ..Packet::data(0, 40, Ecn::NotEct)
        }
    }
}
