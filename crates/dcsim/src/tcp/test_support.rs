//! Helpers shared by the `Endpoint` unit tests: constants, parameters, and a handshake
//! between two ends driven by hand.

use super::cc::Cc;
use super::endpoint::{Endpoint, State, TcpParams};
use super::rtt::RtoBounds;
use crate::net::packet::{Segment, ACK, SYN};
use crate::scenario::{CcKind, CwndValidation, DctcpReceiver, Recovery, SsthreshFrom, TcpConfig};
use crate::units::Time;

pub const MSS: u64 = 1460;
pub const MSSF: f64 = 1460.0;
pub const RCV_BUF: u64 = 8_000_000;
/// IP + TCP header bytes of every segment.
pub const HDR: u32 = 40;
pub const US: Time = Time::from_us(1);
pub const MS: Time = Time::from_ms(1);
pub const S: Time = Time::from_secs(1);

/// Sequence number at the start of 1-based segment `i`.
pub fn seg(i: u64) -> u64 {
    1 + (i - 1) * MSS
}

/// MSS 1460, 40 B headers, IW 10, RTO_min 10 ms, delayed ACKs every 2 segments or 40 ms;
/// DCTCP ends mark every packet ECT and run the paper's receiver machine.
pub fn params(cc: CcKind, sack: bool) -> TcpParams {
    TcpParams {
        mss: MSS as u32,
        header_bytes: HDR,
        init_cwnd_segments: 10,
        rto: RtoBounds {
            min: 10 * MS,
            initial: S,
            max: 60 * S,
            tick: Time::ZERO,
        },
        delack_segments: 2,
        delack_timeout: 40 * MS,
        rcv_buffer: RCV_BUF,
        rcv_autotune_max: None,
        ect_on_syn: cc == CcKind::Dctcp,
        ect_on_ack: cc == CcKind::Dctcp,
        ect_on_retransmit: cc == CcKind::Dctcp,
        syn_retries: 6,
        synack_retries: 5,
        dctcp_receiver: (cc == CcKind::Dctcp).then_some(DctcpReceiver::Paper),
        slow_start_after_idle: false,
        offload_burst_segments: 0,
        sack,
        limited_transmit: false,
        dupthresh: 3,
        cwnd_validation: CwndValidation::Rfc7661,
        recovery: Recovery::Rfc6675,
        tail_loss_probe: false,
        early_retransmit: false,
        ssthresh_from: SsthreshFrom::FlightSize,
        cwnd_clamp: f64::INFINITY,
        frto: false,
    }
}

/// A NewReno sender (end 0) and receiver (end 1), `sack` on both, with `params` changed by
/// `tune`.
pub fn ends_with(sack: bool, tune: impl Fn(&mut TcpParams)) -> (Endpoint, Endpoint) {
    let mut p = params(CcKind::NewReno, sack);
    tune(&mut p);
    let s = endpoint_with(p.clone(), CcKind::NewReno, 1.0, 0);
    let r = endpoint_with(p, CcKind::NewReno, 1.0, 1);
    (s, r)
}

/// End 0 (host 0, opens the connection) or end 1 (host 1, listens).
pub fn endpoint_with(p: TcpParams, cc: CcKind, alpha_init: f64, end: u8) -> Endpoint {
    // g = 1/16, a 2-segment DCTCP floor, IW and MSS of `p`.
    let t = TcpConfig {
        mss: Some(p.mss),
        init_cwnd_segments: p.init_cwnd_segments,
        dctcp_g: 1.0 / 16.0,
        dctcp_alpha_init: alpha_init,
        dctcp_min_cwnd_segments: 2,
        ..TcpConfig::default()
    };
    let c = Cc::new(cc, &t.cc_params());
    Endpoint::new(p, c, 0, end, (end as u32, 1 - end as u32))
}

/// Runs SYN (t=0) → SYN-ACK (50 µs) → ACK + data (100 µs) → ACK arrives (150 µs).
/// Returns the data segments the sender emitted right after the SYN-ACK.
pub fn establish(s: &mut Endpoint, r: &mut Endpoint) -> Vec<Segment> {
    let mut out = Vec::new();
    s.connect(Time::ZERO, &mut out);
    assert_eq!(out.len(), 1, "connect emits exactly the SYN");
    let syn = out.pop().unwrap();
    r.on_segment(50 * US, &syn, &mut out);
    assert_eq!(out.len(), 1, "the listener answers with exactly the SYN-ACK");
    let synack = out.pop().unwrap();
    s.on_segment(100 * US, &synack, &mut out);
    assert!(!out.is_empty(), "the handshake ACK");
    let hs_ack = out.remove(0);
    assert_eq!(hs_ack.flags & (SYN | ACK), ACK);
    assert_eq!(hs_ack.len, 0);
    assert_eq!(hs_ack.sack_blocks, 0);
    let data = std::mem::take(&mut out);
    r.on_segment(150 * US, &hs_ack, &mut out);
    assert!(out.is_empty(), "a pure handshake ACK is not answered");
    assert_eq!(s.state(), State::Established);
    assert_eq!(r.state(), State::Established);
    data
}

/// The 1-based segment a data packet carries (full, aligned segments only).
pub fn seg_no(p: &Segment) -> u64 {
    assert_eq!((p.seq - 1) % MSS, 0, "seq {} is not on a segment boundary", p.seq);
    assert_eq!(p.len as u64, MSS, "segment at {} is not a full segment", p.seq);
    (p.seq - 1) / MSS + 1
}

pub fn seg_nos(ps: &[Segment]) -> Vec<u64> {
    ps.iter().map(seg_no).collect()
}

/// Hands one segment to `r` and returns what it answers (at most one packet).
pub fn deliver(r: &mut Endpoint, now: Time, p: &Segment) -> Option<Segment> {
    let mut out = Vec::new();
    r.on_segment(now, p, &mut out);
    assert!(out.len() <= 1, "one segment in, at most one ACK out: {out:?}");
    out.pop()
}

/// Hands one segment to the sender `s` and returns what it sends.
pub fn feed(s: &mut Endpoint, now: Time, p: &Segment) -> Vec<Segment> {
    let mut out = Vec::new();
    s.on_segment(now, p, &mut out);
    out
}

/// A pure ACK from end 1 to end 0 with the given absolute SACK blocks (no timestamp echo, so
/// no RTT sample is taken).
pub fn sack_ack(ack: u64, sacked: &[(u64, u64)]) -> Segment {
    assert!(sacked.len() <= 3);
    let mut sack = [(0u32, 0u32); 3];
    for (k, &(a, b)) in sacked.iter().enumerate() {
        sack[k] = ((a - ack) as u32, (b - ack) as u32);
    }
    Segment {
        rwnd: RCV_BUF as u32,
        ts_val: Time::from_ps(1),
        sack,
        sack_blocks: sacked.len() as u8,
        ..Segment::pure_ack(ack, HDR)
    }
}
