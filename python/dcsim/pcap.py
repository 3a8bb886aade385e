"""Packet traces as standard pcap files (nanosecond timestamps), for Wireshark and tshark.

Each record of `Results.trace` becomes an Ethernet / IPv4 / TCP (or UDP) frame (headers packed with
`struct`; dpkt's constants, checksum and pcap file header) with the simulated packet's fields:
hosts as addresses, ECN bits in the IP header, TCP flags (ECE and CWR included), sequence and
ACK numbers, the receive window and SACK blocks.
Captures are truncated after the headers, as `tcpdump -s` would (the payload is never
simulated); each record keeps the frame's real length.

Addresses: host h is 10.0.0.0 + (h + 1) with MAC 02:00:00:00:00:00 + (h + 1). The end that
opened a connection uses port 49152 + (connection mod 16384), the other end port 5001. Sequence
numbers are the engine's byte offsets (the SYN takes 0) modulo 2^32. SYNs carry MSS,
SACK-permitted (when SACK is on) and window scale 7; later windows are shifted by 7.
The simulator counts 40 B of IP + TCP headers in every packet; frames with TCP options (SYNs,
ACKs with SACK blocks) are longer by the options' size.
"""

from __future__ import annotations

import struct
from pathlib import Path

import dpkt
import pandas as pd

from .files import atomic

WINDOW_SCALE = 7
SERVER_PORT = 5001
_ETH_HEADER = 14

# Engine flag bits (crates/dcsim/src/net/packet.rs) to TCP header bits.
_FLAGS = (
    (1, dpkt.tcp.TH_SYN),
    (2, dpkt.tcp.TH_ACK),
    (4, dpkt.tcp.TH_FIN),
    (8, dpkt.tcp.TH_PUSH),
    (16, dpkt.tcp.TH_ECE),
    (32, dpkt.tcp.TH_CWR),
)


def host_ip(host: int) -> bytes:
    return struct.pack(">I", (10 << 24) + host + 1)


def host_mac(host: int) -> bytes:
    return b"\x02\x00" + struct.pack(">I", host + 1)


def tcp_port(conn: int, end: int) -> int:
    return 49152 + conn % 16384 if end == 0 else SERVER_PORT


def write(path: Path, records: pd.DataFrame, mss: int = 1460, sack: bool = True) -> int:
    """Write `records` (rows of `Results.trace`, in time order) to a pcap file at `path`;
    returns the number of packets written. Drops (`event == "drop"`) are not frames on a
    wire and are left out."""
    frames = records[records["event"] != "drop"] if len(records) else records
    with atomic(path) as tmp, open(tmp, "wb") as f:
        f.write(bytes(dpkt.pcap.LEFileHdr(magic=dpkt.pcap.TCPDUMP_MAGIC_NANO, snaplen=65535)))
        columns = ["t_s", "src", "dst", "ecn", "flow", "from_end", "flags", "seq", "ack", "rwnd", "len", "sack"]
        for ip_id, row in enumerate(frames[columns].itertuples(index=False, name=None), 1):
            f.write(_record(*row, ip_id=ip_id & 0xFFFF, mss=mss, sack_ok=sack))
    return len(frames)


_PKTHDR = struct.Struct("<IIII")  # pcap record header: seconds, nanoseconds, caplen, len
_ETH = struct.Struct(">6s6sH")
_IP = struct.Struct(">BBHHHBBH4s4s")
_TCP = struct.Struct(">HHIIHHHH")


# Engine flag bit of a UDP source's datagram (`udp[]`; not a TCP flag).
_UDP_FLAG = 128
_UDP = struct.Struct(">HHHH")


def _record(t_s, src, dst, ecn, flow, from_end, flags, seq, ack, rwnd, length, blocks, *, ip_id, mss, sack_ok) -> bytes:
    """One pcap record: the frame's Ethernet, IPv4 and TCP headers (RFC 791, RFC 793; the
    checksums cover the zero payload the record leaves out), or UDP (RFC 768) for a UDP
    source's datagrams, whose ports are numbered as a connection's."""
    if flags & _UDP_FLAG:
        return _udp_record(t_s, src, dst, ecn, flow, from_end, length, ip_id=ip_id)
    tcp_flags = 0
    for engine_bit, tcp_bit in _FLAGS:
        if flags & engine_bit:
            tcp_flags |= tcp_bit
    if tcp_flags & dpkt.tcp.TH_SYN:
        opts = struct.pack(">BBH", dpkt.tcp.TCP_OPT_MSS, 4, mss)
        if sack_ok:
            opts += struct.pack(">BB", dpkt.tcp.TCP_OPT_SACKOK, 2)
        opts += struct.pack(">BBB", dpkt.tcp.TCP_OPT_WSCALE, 3, WINDOW_SCALE)
        window = min(rwnd, 0xFFFF)  # never scaled in a SYN (RFC 7323 §2.2)
    else:
        opts = b""
        if blocks:
            opts = struct.pack(">BB", dpkt.tcp.TCP_OPT_SACK, 2 + 8 * len(blocks))
            opts += b"".join(struct.pack(">II", a % 2**32, b % 2**32) for a, b in blocks)
        window = min(rwnd >> WINDOW_SCALE, 0xFFFF)
    opts += b"\x01" * (-len(opts) % 4)  # NOP padding to a 32-bit boundary
    tcp_len = 20 + len(opts)
    src_ip, dst_ip = host_ip(src), host_ip(dst)
    segment_len = tcp_len + length
    sport, dport = tcp_port(flow, from_end), tcp_port(flow, 1 - from_end)
    ack_no = ack % 2**32 if tcp_flags & dpkt.tcp.TH_ACK else 0
    tcp = _TCP.pack(sport, dport, seq % 2**32, ack_no, (tcp_len // 4) << 12 | tcp_flags, window, 0, 0) + opts
    pseudo = struct.pack(">4s4sxBH", src_ip, dst_ip, dpkt.ip.IP_PROTO_TCP, segment_len)
    tcp_sum = dpkt.in_cksum(pseudo + tcp)  # the payload is zeros: it adds nothing to the sum
    tcp = tcp[:16] + struct.pack(">H", tcp_sum) + tcp[18:]
    total = 20 + segment_len
    return _frame(t_s, src, dst, ecn, ip_id, dpkt.ip.IP_PROTO_TCP, tcp, total)


def _udp_record(t_s, src, dst, ecn, flow, from_end, length, *, ip_id) -> bytes:
    src_ip, dst_ip = host_ip(src), host_ip(dst)
    udp_len = 8 + length
    udp = _UDP.pack(tcp_port(flow, from_end), tcp_port(flow, 1 - from_end), udp_len, 0)
    pseudo = struct.pack(">4s4sxBH", src_ip, dst_ip, dpkt.ip.IP_PROTO_UDP, udp_len)
    udp = udp[:6] + struct.pack(">H", dpkt.in_cksum(pseudo + udp) or 0xFFFF)
    return _frame(t_s, src, dst, ecn, ip_id, dpkt.ip.IP_PROTO_UDP, udp, 20 + udp_len)


def _frame(t_s, src, dst, ecn, ip_id, protocol, transport, total) -> bytes:
    """The record of an IPv4 packet of `total` bytes whose transport header is `transport`."""
    src_ip, dst_ip = host_ip(src), host_ip(dst)
    ip = _IP.pack(0x45, ecn, total, ip_id, 0x4000, 64, protocol, 0, src_ip, dst_ip)
    ip = ip[:10] + struct.pack(">H", dpkt.in_cksum(ip)) + ip[12:]
    headers = _ETH.pack(host_mac(dst), host_mac(src), dpkt.ethernet.ETH_TYPE_IP) + ip + transport
    seconds, nanos = divmod(round(float(t_s) * 1e9), 1_000_000_000)
    return _PKTHDR.pack(seconds, nanos, len(headers), _ETH_HEADER + total) + headers
