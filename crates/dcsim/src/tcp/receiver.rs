//! The receiving half of an end: the next byte expected and the out-of-order data held for
//! reassembly, the delayed-ACK timer, the ECN echo (RFC 3168's, or DCTCP's ACK machine), the
//! receive buffer and its auto-tuning, and the acknowledgement every segment of the end
//! carries (ACK field, window, timestamp echo, SACK blocks), whichever half sends it.

use super::endpoint::{Connection, TcpParams, TS_OFFSET};
use super::options::DctcpReceiver;
use super::ranges::RangeSet;
use crate::net::packet::{Ecn, Segment, ACK, CWR, ECE, PSH};
use crate::units::Time;

/// Linux's `TCP_INIT_CWND`: what receive-buffer auto-tuning expects of a first window.
const LINUX_INIT_CWND: u64 = 10;

/// The receiving half of an end (see the module docs).
#[derive(Debug, Clone)]
pub(super) struct Receiver {
    rcv_nxt: u64,
    /// Out-of-order data held for reassembly.
    ooo: RangeSet,
    unacked_segments: u32,
    delack_deadline: Option<Time>,
    /// Right edge of the receive window in the last ACK this end sent (rcv_nxt + window as it
    /// left the host, after any ICTCP rewrite); u64::MAX until the first ACK.
    advertised_edge: u64,
    /// DCTCP receiver: CE bit of the last data segment (Fig. 10 state).
    ce_state: bool,
    /// RFC 3168 receiver: echo ECE until CWR arrives.
    ece_latch: bool,
    ts_recent: Time,
    /// RFC 7323 §4.3 `Last.ACK.sent`: the ACK field of the last segment this end sent.
    last_ack_sent: u64,
    /// Application bytes delivered in order.
    delivered: u64,
    /// The receive buffer now, bytes: the advertised window is its free space.
    rcv_buffer: u64,
    /// Its auto-tuning state, when on (boxed: most connections run without it, and a box
    /// keeps their state 48 bytes smaller).
    autotune: Option<Box<RcvAutotune>>,
}

/// Linux's receive-buffer auto-tuning (`tcp_rcv_space_adjust`, after Fisk and Feng's
/// dynamic right-sizing): once per receiver-estimated RTT, if the application read more
/// than in the previous measurement, the buffer grows to twice what it read plus 16
/// segments, plus twice that times the relative growth (room for a sender in slow start),
/// up to a cap. It never shrinks.
#[derive(Debug, Clone, Copy)]
struct RcvAutotune {
    max: u64,
    /// Bytes read in the last measurement that grew the buffer (`rcvq_space.space`).
    space: u64,
    /// `rcv_nxt` and time at the start of this measurement.
    seq: u64,
    since: Time,
    /// The receiver's RTT estimate from echoed timestamps (`rcv_rtt_est`, gain 1/8), and
    /// the echo it last sampled (`rcv_rtt_last_tsecr`: one sample per echoed timestamp).
    rtt: Option<Time>,
    last_echo: Time,
}

impl Receiver {
    pub(super) fn new(p: &TcpParams) -> Self {
        let rcv_buffer = p.rcv_buffer;
        // Linux `tcp_init_buffer_space`: the first measurement expects at most an initial
        // window of data, TCP_INIT_CWND = 10 segments whatever the sender's.
        let autotune = p.rcv_autotune_max.map(|max| {
            Box::new(RcvAutotune {
                max,
                space: rcv_buffer.min(LINUX_INIT_CWND * p.mss as u64),
                seq: 0,
                since: Time::ZERO,
                rtt: None,
                last_echo: Time::ZERO,
            })
        });
        Receiver {
            rcv_nxt: 0,
            ooo: RangeSet::default(),
            unacked_segments: 0,
            delack_deadline: None,
            advertised_edge: u64::MAX,
            ce_state: false,
            ece_latch: false,
            ts_recent: Time::ZERO,
            last_ack_sent: 0,
            delivered: 0,
            rcv_buffer,
            autotune,
        }
    }

    #[inline]
    pub(super) fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    #[inline]
    pub(super) fn delivered(&self) -> u64 {
        self.delivered
    }

    #[inline]
    pub(super) fn rcv_buffer(&self) -> u64 {
        self.rcv_buffer
    }

    #[inline]
    pub(super) fn delack_deadline(&self) -> Option<Time> {
        self.delack_deadline
    }

    /// The ACK that left last advertised a window ending at `edge` (after any rewrite by the
    /// host on its way out).
    #[inline]
    pub(super) fn on_window_advertised(&mut self, edge: u64) {
        self.advertised_edge = edge;
    }

    /// The receiver's RTT estimate of receive-buffer auto-tuning, if on and sampled.
    pub(super) fn receiver_rtt(&self) -> Option<Time> {
        self.autotune.as_ref().and_then(|a| a.rtt)
    }

    /// The receiver's part of the invariant check: it delivered no more than it received in
    /// order.
    pub(super) fn check_delivered(&self) -> Result<(), String> {
        if self.delivered > self.rcv_nxt {
            return Err(format!("delivered {} bytes but rcv_nxt is {}", self.delivered, self.rcv_nxt));
        }
        Ok(())
    }

    // ------------------------------------------------------------------ handshake

    /// The peer's SYN (or SYN-ACK) took its sequence number; its timestamp is the one to echo.
    pub(super) fn on_syn(&mut self, pkt: &Segment) {
        self.rcv_nxt = pkt.seq + 1;
        self.ts_recent = pkt.ts_val;
    }

    /// The peer sent its SYN again (our SYN-ACK was lost): echo the new SYN's timestamp.
    pub(super) fn on_syn_retry(&mut self, pkt: &Segment) {
        self.ts_recent = pkt.ts_val;
    }

    /// The connection is established: the first auto-tuning measurement starts here.
    pub(super) fn on_established(&mut self, now: Time) {
        if let Some(a) = self.autotune.as_mut() {
            (a.seq, a.since) = (self.rcv_nxt, now);
        }
    }

    // ------------------------------------------------------------------ acknowledgement

    fn advertised_window(&self) -> u64 {
        self.rcv_buffer.saturating_sub(self.ooo.bytes())
    }

    pub(super) fn echo_ece(&self, p: &TcpParams) -> bool {
        match p.dctcp_receiver {
            Some(_) => self.ce_state,
            None => self.ece_latch,
        }
    }

    /// A segment of this end, carrying the acknowledgement: ACK field, window, timestamp echo,
    /// and the SACK blocks while out-of-order data is held.
    // Always inlined: a call would pass the connection and the receiver apart, two arguments
    // more than the unsplit end's, which made every segment sent dearer.
    #[inline(always)]
    pub(super) fn segment(&self, c: &Connection, now: Time, flags: u8, seq: u64, len: u32, ecn: Ecn) -> Segment {
        let mut sack = [(0u32, 0u32); 3];
        let mut sack_blocks = 0u8;
        if c.p.sack && !self.ooo.is_empty() {
            // RFC 2018 §4: the block holding the most recent segment first, then the most
            // recently reported blocks, then any others (highest first), each block once.
            let ranges = self.ooo.ranges();
            let recent = self
                .ooo
                .recent_starts()
                .into_iter()
                .filter_map(|seq| ranges.iter().position(|&(a, b)| a <= seq && seq < b));
            let mut chosen = [usize::MAX; 3];
            for i in recent.chain((0..ranges.len()).rev()) {
                if sack_blocks == 3 {
                    break;
                }
                if !chosen.contains(&i) {
                    chosen[sack_blocks as usize] = i;
                    let (a, b) = ranges[i];
                    sack[sack_blocks as usize] = ((a - self.rcv_nxt) as u32, (b - self.rcv_nxt) as u32);
                    sack_blocks += 1;
                }
            }
        }
        // The SACK option: 2 bytes + 8 per block, padded to 4 (RFC 2018 §3).
        let option_bytes = if sack_blocks > 0 {
            (2 + 8 * sack_blocks as u32).div_ceil(4) * 4
        } else {
            0
        };
        Segment {
            conn: c.id,
            src: c.host,
            dst: c.peer_host,
            from_end: c.end,
            flags,
            ecn,
            len,
            size: len + c.p.header_bytes + option_bytes,
            seq,
            ack: self.rcv_nxt,
            rwnd: self.advertised_window() as u32, // below 2^30: tcp.rcv_buffer_bytes is bounded by it
            ts_val: now + TS_OFFSET,
            ts_ecr: self.ts_recent,
            sack,
            sack_blocks,
            class: 0, // the simulation stamps the flow's class as the packet leaves its host
        }
    }

    /// A segment carrying the acknowledgement left (a SYN-ACK or a retransmission).
    #[inline]
    pub(super) fn on_ack_sent(&mut self) {
        self.last_ack_sent = self.rcv_nxt;
    }

    /// New data carried the cumulative ACK: no separate delayed ACK is owed.
    #[inline]
    pub(super) fn on_ack_sent_with_data(&mut self) {
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_segments = 0;
        self.delack_deadline = None;
    }

    /// A segment of the established connection arrives, before its ACK and data are taken.
    pub(super) fn on_arrival(&mut self, pkt: &Segment) {
        if pkt.len == 0 && pkt.seq <= self.rcv_nxt && pkt.ts_val > self.ts_recent {
            // RFC 7323 §4.3: a pure ACK in sequence updates TS.Recent too, so the data we send
            // next echoes the peer's latest ACK (what a receiver-side RTT measures, ICTCP §VI-C).
            self.ts_recent = pkt.ts_val;
        }
    }

    /// Data arrives: the ECN echo follows its CE mark, in-order data is delivered (and out of
    /// order held), and it is acknowledged at once or the delayed-ACK timer is armed.
    /// `snd_nxt`: the sequence number a pure ACK carries.
    pub(super) fn on_data(&mut self, c: &Connection, snd_nxt: u64, now: Time, pkt: &Segment, out: &mut Vec<Segment>) {
        let p = &*c.p;
        let ce = pkt.ecn == Ecn::Ce;
        let mut linux_extra_ack = false;
        match p.dctcp_receiver {
            Some(variant) => {
                // DCTCP paper Fig. 10: on a change of CE state with a delayed run pending, ACK
                // that run at once with the old state, then start a new run.
                if ce != self.ce_state {
                    if self.unacked_segments > 0 {
                        self.send_ack(c, snd_nxt, now, self.ce_state, out);
                    }
                    linux_extra_ack = variant == DctcpReceiver::Linux;
                }
                self.ce_state = ce;
            }
            None if c.ecn_ok => {
                // RFC 3168 §6.1.3: CWR stops the echo, CE (re)starts it.
                if pkt.has(CWR) {
                    self.ece_latch = false;
                }
                if ce {
                    self.ece_latch = true;
                }
            }
            None => {}
        }
        let (start, end) = (pkt.seq, pkt.seq + pkt.len as u64);
        if end <= self.rcv_nxt {
            // RFC 7323 §4.3 (2): SEG.TSval >= TS.Recent and SEG.SEQ <= Last.ACK.sent: a copy
            // of data whose ACK we were still delaying is the one this ACK answers.
            // (As Linux, only a segment reaching the last ACK sent: end ≥ rcv_wup.)
            if start <= self.last_ack_sent && end >= self.last_ack_sent && pkt.ts_val >= self.ts_recent {
                self.ts_recent = pkt.ts_val;
            }
            self.ack_now(c, snd_nxt, now, out); // old duplicate: re-ACK at once
            return;
        }
        if start > self.rcv_nxt {
            self.ooo.insert(start, end); // and its start, first of the next SACK blocks
            self.ack_now(c, snd_nxt, now, out); // RFC 5681 §4.2: dup ACK at once
            return;
        }
        if self.unacked_segments == 0 {
            self.ts_recent = pkt.ts_val; // RFC 7323: echo the earliest unacknowledged segment
        }
        let filled_hole = !self.ooo.is_empty();
        let before = self.rcv_nxt;
        self.rcv_nxt = end;
        if let Some(&(s, e)) = self.ooo.ranges().first() {
            if s <= self.rcv_nxt {
                self.rcv_nxt = self.rcv_nxt.max(e);
            }
        }
        self.ooo.remove_below(self.rcv_nxt);
        self.delivered += self.rcv_nxt - before;
        if self.autotune.is_some() {
            self.autotune_buffer(p, now, pkt);
        }
        self.unacked_segments += 1;
        // A segment that fills the advertised window is ACKed at once: the sender can send
        // nothing more until it hears from us, and an application that reads at once reopens
        // the window (RFC 1122 §4.2.3.3 window update; Linux tcp_cleanup_rbuf). Without it a
        // 1-MSS window waits out the delayed-ACK timer on every segment (ICTCP §VII-A-2).
        let window_full = self.rcv_nxt >= self.advertised_edge;
        if filled_hole || pkt.has(PSH) || window_full || linux_extra_ack || self.unacked_segments >= p.delack_segments {
            self.ack_now(c, snd_nxt, now, out);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + p.delack_timeout);
        }
    }

    /// A pure ACK now, echoing ECN as the receiver's state says.
    pub(super) fn ack_now(&mut self, c: &Connection, snd_nxt: u64, now: Time, out: &mut Vec<Segment>) {
        self.send_ack(c, snd_nxt, now, self.echo_ece(&c.p), out);
    }

    fn send_ack(&mut self, c: &Connection, snd_nxt: u64, now: Time, ece: bool, out: &mut Vec<Segment>) {
        let flags = ACK | if ece { ECE } else { 0 };
        out.push(self.segment(c, now, flags, snd_nxt, 0, c.control_ecn(c.p.ect_on_ack)));
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_segments = 0;
        self.delack_deadline = None;
    }

    /// The delayed-ACK timer expired.
    pub(super) fn on_delack_timer(&mut self, c: &Connection, snd_nxt: u64, now: Time, out: &mut Vec<Segment>) {
        self.delack_deadline = None;
        if self.unacked_segments > 0 {
            self.ack_now(c, snd_nxt, now, out);
        }
    }

    /// Receive-buffer auto-tuning after in-order data arrived (Linux `tcp_rcv_rtt_measure_ts`
    /// and `tcp_rcv_space_adjust`; the application reads everything at once).
    fn autotune_buffer(&mut self, p: &TcpParams, now: Time, pkt: &Segment) {
        let mss = p.mss as u64;
        let Some(a) = self.autotune.as_mut() else { return };
        if pkt.ts_ecr > a.last_echo && pkt.len as u64 >= mss {
            // The data echoes the TSval of an ACK we sent: one RTT as the receiver sees it.
            a.last_echo = pkt.ts_ecr;
            let sample = (now + TS_OFFSET).saturating_sub(pkt.ts_ecr);
            a.rtt = Some(match a.rtt {
                None => sample,
                Some(r) => Time::from_ps(r.as_ps() - r.as_ps() / 8 + sample.as_ps() / 8),
            });
        }
        let Some(rtt) = a.rtt else { return };
        if now.saturating_sub(a.since) < rtt {
            return;
        }
        let copied = self.rcv_nxt - a.seq;
        if copied > a.space {
            let base = 2 * copied + 16 * mss;
            let grow = base * (copied - a.space) / a.space.max(1);
            self.rcv_buffer = self.rcv_buffer.max((base + 2 * grow).min(a.max));
            a.space = copied;
        }
        a.seq = self.rcv_nxt;
        a.since = now;
    }
}

/// State changes for tests that break an invariant on purpose.
#[cfg(test)]
impl Receiver {
    pub(super) fn set_rcv_nxt(&mut self, rcv_nxt: u64) {
        self.rcv_nxt = rcv_nxt;
    }

    pub(super) fn set_delivered(&mut self, delivered: u64) {
        self.delivered = delivered;
    }
}
