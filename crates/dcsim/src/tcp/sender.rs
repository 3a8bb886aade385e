//! The sending half of an end: the send sequence space, the congestion controller (`cc`),
//! which decides the window and the pacing rate, and what all controllers share (`tcp::cc`
//! module docs): ACK processing (`ack`), loss recovery and the SACK scoreboard (`recovery`),
//! the RTT estimate and the retransmission timer (`timeout`), the pacing clock and the host
//! NIC's backpressure. The sender tells the controller of every event.
//!
//! Every segment it sends carries the receiver's acknowledgement: its calls borrow the
//! `Receiver` to build them.

mod ack;
mod recovery;
mod timeout;

use super::cc::{Cc, IdleSpell};
use super::endpoint::{Connection, TcpParams};
use super::options::Recovery;
use super::ranges::RangeSet;
use super::receiver::Receiver;
use super::rtt::RttEstimator;
use crate::net::packet::{Ecn, Segment, ACK, CWR, ECE, PSH, RETX};
use crate::units::{Bytes, Time};
use recovery::LossState;
pub use timeout::EndpointCounters;
use timeout::Events;

/// The sending half of an end (see the module docs).
#[derive(Debug, Clone)]
pub(super) struct Sender {
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// Sequence number just past the last byte the application has written.
    app_end: u64,
    /// The congestion controller, and the window and pacing rate it decides.
    cc: Cc,
    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover` / RFC 6675 `RecoveryPoint`: highest sequence sent when loss
    /// recovery began.
    recover: u64,
    /// RFC 6675 scoreboard: bytes above snd_una the receiver has SACKed.
    sacked: RangeSet,
    /// RFC 6675 `HighRxt`: end of the highest retransmission in this recovery.
    high_rxt: u64,
    /// RFC 6675 `RescueRxt`, as an end (exclusive): the rescue retransmission waits until
    /// snd_una passes it (HighACK > RescueRxt). Set at entry to the end of the first
    /// retransmission (§5 step 4.3), then to RecoveryPoint by the rescue (NextSeg rule 4).
    rescue_rxt: u64,
    /// PRR and tail-loss-probe state, for the stacks that use them (boxed: an open
    /// connection of any other stack spends 8 bytes an end on it, not 48).
    loss: Option<Box<LossState>>,
    /// No further window reduction until snd_una passes this (RFC 3168 §6.1.2).
    cwr_guard: u64,
    send_cwr: bool,
    peer_rwnd: u64,
    cwnd_limited: bool,
    last_send: Option<Time>,
    /// Packets the host's NIC queue can take during this call (its backpressure): the sender
    /// stops, and sets `tx_blocked`, once its output holds that many. (4 bytes, as no call
    /// emits 2^32 packets: they pack with the flags below.)
    tx_room: u32,
    tx_blocked: bool,
    rtt: RttEstimator,
    rto_deadline: Option<Time>,
    /// Pacing: the controller's rate holds the next data segment until this time (the
    /// previous one's send time plus its size at the rate; only moved while a rate is set).
    next_send: Time,
    /// A segment waits for `next_send` (see `pace_deadline`).
    pace_waiting: bool,
    /// Data segments sent, retransmissions included (`counters().data_packets_sent`).
    data_packets_sent: u64,
    /// The other counters: retransmissions, timeouts, ECN responses; and the timeouts'
    /// classification. Made at the first such event (most connections have none), so an end
    /// that has none spends 8 bytes on them.
    events: Option<Box<Events>>,
    /// A timeout episode is open, or its response still waits for an RTT sample
    /// (`events.episode`): the ACK path looks there only then.
    timeout_pending: bool,
}

impl Sender {
    pub(super) fn new(p: &TcpParams, cc: Cc) -> Self {
        let loss = (p.tail_loss_probe || p.recovery == Recovery::Prr).then(Box::default);
        Sender {
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 1,
            cc,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            sacked: RangeSet::default(),
            high_rxt: 0,
            rescue_rxt: 0,
            loss,
            cwr_guard: 0,
            send_cwr: false,
            peer_rwnd: p.rcv_buffer,
            cwnd_limited: false,
            last_send: None,
            tx_room: u32::MAX,
            tx_blocked: false,
            rtt: RttEstimator::default(),
            rto_deadline: None,
            next_send: Time::ZERO,
            pace_waiting: false,
            data_packets_sent: 0,
            events: None,
            timeout_pending: false,
        }
    }

    #[inline]
    pub(super) fn snd_una(&self) -> u64 {
        self.snd_una
    }

    #[inline]
    pub(super) fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }

    #[inline]
    pub(super) fn snd_max(&self) -> u64 {
        self.snd_max
    }

    #[inline]
    pub(super) fn cc(&self) -> &Cc {
        &self.cc
    }

    #[inline]
    pub(super) fn cc_mut(&mut self) -> &mut Cc {
        &mut self.cc
    }

    #[inline]
    pub(super) fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }

    #[inline]
    pub(super) fn rto_deadline(&self) -> Option<Time> {
        self.rto_deadline
    }

    /// The invariant-checking mode's test of the sender: its sequence space is ordered
    /// (RFC 793 §3.3: SND.UNA ≤ SND.NXT ≤ SND.MAX, nothing sent past what was written).
    pub(super) fn check_sequence(&self) -> Result<(), String> {
        let (una, nxt, max) = (self.snd_una, self.snd_nxt, self.snd_max);
        if !(una <= nxt && nxt <= max && max <= self.app_end.max(1)) {
            return Err(format!(
                "snd_una {una}, snd_nxt {nxt}, snd_max {max}, written up to {}",
                self.app_end
            ));
        }
        Ok(())
    }

    /// The invariant-checking mode's test of the windows: cwnd and ssthresh positive, cwnd
    /// within the sequence space, the peer's window a 32-bit value; and the receiver's
    /// buffer, `rcv_buffer`, reported with the peer's window.
    pub(super) fn check_windows(&self, rcv_buffer: u64) -> Result<(), String> {
        let bound = crate::units::MAX_SEQUENCE_BYTES as f64;
        let (cwnd, ssthresh) = (self.cc.win.cwnd, self.cc.win.ssthresh);
        if !(cwnd > 0.0 && cwnd <= bound && ssthresh > 0.0) {
            return Err(format!("cwnd {cwnd}, ssthresh {ssthresh}"));
        }
        if self.peer_rwnd > u32::MAX as u64 || rcv_buffer > bound as u64 {
            return Err(format!("peer window {}, receive buffer {}", self.peer_rwnd, rcv_buffer));
        }
        Ok(())
    }

    /// The application writes `bytes` more (u64::MAX/4 stands for "unlimited").
    pub(super) fn write(&mut self, bytes: u64) {
        self.app_end = self.app_end.saturating_add(bytes).min(u64::MAX / 4);
    }

    /// The application stops writing: what was sent is completed, nothing new starts.
    pub(super) fn stop_writing(&mut self) {
        self.app_end = self.app_end.min(self.snd_max.max(1));
    }

    /// Nothing to send or to wait for: everything written sent and acknowledged, no
    /// retransmission timer armed, no segment waiting for the pacing rate.
    pub(super) fn is_done(&self) -> bool {
        self.snd_una == self.snd_max && self.snd_max >= self.app_end && self.rto_deadline.is_none() && !self.pace_waiting
    }

    // ------------------------------------------------------------------ handshake

    /// The SYN took sequence number 0: data starts at 1.
    pub(super) fn open(&mut self) {
        self.snd_nxt = 1;
        self.snd_max = 1;
    }

    /// The peer's SYN or SYN-ACK: the window it offers.
    pub(super) fn on_syn(&mut self, pkt: &Segment) {
        self.peer_rwnd = pkt.rwnd as u64;
    }

    /// Arms the retransmission timer of a SYN or SYN-ACK (no probe timeout before the
    /// connection is established, RFC 8985 §7.2).
    pub(super) fn arm_handshake_rto(&mut self, p: &TcpParams, now: Time) {
        if let Some(l) = self.loss.as_deref_mut() {
            l.tlp.armed = false;
        }
        self.rto_deadline = Some(now + self.rtt.rto(&p.rto));
    }

    /// The handshake completed with `pkt`; `retried`: a SYN or SYN-ACK was sent again.
    pub(super) fn on_established(&mut self, p: &TcpParams, now: Time, pkt: &Segment, retried: bool) {
        if retried {
            // RFC 5681 §3.1: after a lost SYN or SYN-ACK the initial window is one segment.
            self.cc.win.cwnd = self.cc.win.cwnd.min(p.mss as f64);
        }
        self.snd_una = 1;
        self.take_rtt_sample(now, pkt);
        self.rtt.backoff = 0;
        self.rto_deadline = None;
    }

    // ------------------------------------------------------------------ sending

    /// Sends what cwnd, the peer's window and the application allow.
    pub(super) fn try_send(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, out: &mut Vec<Segment>) {
        let p = &*c.p;
        self.tx_blocked = false;
        let mss = p.mss as u64;
        if p.slow_start_after_idle && self.snd_una == self.snd_max && self.snd_nxt < self.app_end {
            if let Some(last) = self.last_send {
                // RFC 5681 §4.1: new data after an idle period longer than the RTO restarts the
                // window (the stack's rule), once: the idle period is then spent.
                let (idle, rto) = (now - last, self.rtt.rto(&p.rto));
                if idle > rto {
                    let spell = IdleSpell { idle, rto };
                    self.cc.on_idle_restart(now, &self.view_idle(p, 0, Some(spell)));
                    self.last_send = None;
                }
            }
        }
        if self.timeout_pending && self.episode().new_segments > 0 {
            self.send_frto_new_segments(c, rcv, now, out); // RFC 5682 §3.1 step 2b, then step 3
            return;
        }
        if p.sack && self.in_recovery {
            self.send_in_sack_recovery(c, rcv, now, out);
            return;
        }
        // Segmentation offload (DCTCP paper §3.5): once the window has room for a whole burst (or
        // for all that is left to send), send back to back; until then, hold new data. Never wait
        // for more than a third of the window (Linux tcp_tso_should_defer, tcp_tso_win_divisor =
        // 3): a burst the receiver's delayed ACKs cannot open would wait for their timer.
        let burst = p.offload_burst_segments as u64;
        if burst > 0 && self.snd_nxt >= self.snd_max && self.snd_nxt > self.snd_una {
            let wnd = (self.cc.win.cwnd as u64).min(self.peer_rwnd);
            let room = wnd.saturating_sub(self.snd_nxt - self.snd_una);
            let want = (burst * mss).min(self.app_end.saturating_sub(self.snd_nxt)).min((wnd / 3).max(mss));
            if room < want {
                self.cwnd_limited = true;
                return;
            }
        }
        loop {
            if p.sack && self.snd_nxt < self.snd_max {
                // Going back after a timeout: skip what the receiver has SACKed.
                if let Some(end) = self.sacked.end_of_range_containing(self.snd_nxt) {
                    self.snd_nxt = end.min(self.snd_max);
                    continue;
                }
            }
            if self.snd_nxt >= self.app_end {
                self.cwnd_limited = false;
                return;
            }
            // RFC 3042: on the first two duplicate ACKs, up to cwnd + 2·SMSS may be outstanding
            // (new data only; cwnd itself is unchanged).
            let limited = if p.limited_transmit && !self.in_recovery && self.snd_nxt >= self.snd_max {
                self.dupacks.min(2) as u64 * mss
            } else {
                0
            };
            let cwnd = self.cc.win.cwnd as u64 + limited;
            let wnd = cwnd.min(self.peer_rwnd);
            let flight = self.snd_nxt - self.snd_una;
            let mut len = (self.app_end - self.snd_nxt).min(mss);
            if flight + len > wnd {
                if flight == 0 && wnd > 0 {
                    len = wnd; // never stall with an empty pipe for want of a full segment
                } else {
                    self.cwnd_limited = cwnd <= self.peer_rwnd;
                    return;
                }
            }
            if self.nic_full(out) || self.paced(now) {
                // Held back by the host or the pacing rate, not by cwnd (Linux: TSQ-throttled
                // is not cwnd-limited): growth now needs the window validated (RFC 7661).
                self.cwnd_limited = false;
                return;
            }
            let new_data = self.snd_nxt >= self.snd_max;
            self.send_data(c, rcv, now, len as u32, new_data, out);
        }
    }

    /// The host's NIC queue can take `room` packets during the next call.
    #[inline]
    pub(super) fn set_nic_room(&mut self, room: usize) {
        self.tx_room = room.min(u32::MAX as usize) as u32;
    }

    /// The last call stopped at a full NIC queue.
    #[inline]
    pub(super) fn nic_blocked(&self) -> bool {
        self.tx_blocked
    }

    /// Sending was not tried (the connection is not established): not blocked either.
    pub(super) fn unblock(&mut self) {
        self.tx_blocked = false;
    }

    /// Whether the host's NIC queue has no room for another packet from this call; if so
    /// the sender waits (blocked) until the simulation reports room, as an OS does rather
    /// than dropping its own TCP segments.
    fn nic_full(&mut self, out: &[Segment]) -> bool {
        self.tx_blocked = out.len() >= self.tx_room as usize;
        self.tx_blocked
    }

    fn send_data(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, len: u32, new_data: bool, out: &mut Vec<Segment>) {
        let p = &*c.p;
        let seq = self.snd_nxt;
        let mut flags = ACK;
        if rcv.echo_ece(p) {
            flags |= ECE;
        }
        if seq + len as u64 == self.app_end {
            flags |= PSH; // end of what the application wrote
        }
        let ecn = if new_data {
            if self.send_cwr {
                flags |= CWR; // RFC 3168 §6.1.2: CWR on the first new segment after a cut
                self.send_cwr = false;
            }
            if c.ecn_ok {
                Ecn::Ect
            } else {
                Ecn::NotEct
            }
        } else {
            self.events().retransmits += 1;
            flags |= RETX;
            c.control_ecn(p.ect_on_retransmit) // RFC 3168 §6.1.5: not ECT unless configured
        };
        let pkt = rcv.segment(c, now, flags, seq, len, ecn);
        out.push(pkt);
        self.snd_nxt += len as u64;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        self.count_prr_out(len);
        self.data_packets_sent += 1;
        self.last_send = Some(now);
        self.pace_after(now, pkt.size);
        // The segment carries our cumulative ACK: no separate delayed ACK is owed.
        rcv.on_ack_sent_with_data();
        // The RTO runs from the oldest unacknowledged segment (RFC 6298 §5.1); a probe timeout
        // is rescheduled after every transmission (RFC 8985 §7.2, Linux tcp_write_xmit).
        if self.rto_deadline.is_none() || self.tlp().armed {
            self.arm_rto(p, now);
        }
    }

    fn retransmit(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, seq: u64, len: u32, out: &mut Vec<Segment>) {
        let mut flags = ACK | if rcv.echo_ece(&c.p) { ECE } else { 0 };
        if seq + len as u64 == self.app_end {
            flags |= PSH; // a resent end of a write is still pushed (the receiver ACKs it at once)
        }
        let pkt = rcv.segment(c, now, flags | RETX, seq, len, c.control_ecn(c.p.ect_on_retransmit));
        out.push(pkt);
        rcv.on_ack_sent();
        self.high_rxt = self.high_rxt.max(seq + len as u64);
        self.count_prr_out(len);
        self.events().retransmits += 1;
        self.data_packets_sent += 1;
        self.last_send = Some(now);
        self.pace_after(now, pkt.size);
    }

    // ------------------------------------------------------------------ pacing

    /// Pacing: whether the next data segment must wait for the controller's rate; if so the
    /// sender stops and `pace_deadline()` asks to be called back. Free when no rate is set.
    #[inline]
    fn paced(&mut self, now: Time) -> bool {
        if self.cc.win.pacing.is_none() {
            return false;
        }
        if now < self.next_send {
            self.pace_waiting = true;
            return true;
        }
        self.pace_waiting = false;
        false
    }

    /// A data segment of `size` bytes left at `now`: the next may leave one transmission
    /// time at the pacing rate later.
    #[inline]
    fn pace_after(&mut self, now: Time, size: u32) {
        if let Some(rate) = self.cc.win.pacing {
            self.next_send = now + rate.tx_time(Bytes::from(size));
        }
    }

    /// When a data segment held by the pacing rate may leave.
    #[inline]
    pub(super) fn pace_deadline(&self) -> Option<Time> {
        self.pace_waiting.then_some(self.next_send)
    }

    /// The pacing deadline passed: the segment it held waits no more (the caller sends).
    pub(super) fn on_pace_timer(&mut self) {
        self.pace_waiting = false;
    }
}

/// State changes for tests that break an invariant on purpose.
#[cfg(test)]
impl Sender {
    pub(super) fn app_end(&self) -> u64 {
        self.app_end
    }

    pub(super) fn set_snd_nxt(&mut self, snd_nxt: u64) {
        self.snd_nxt = snd_nxt;
    }

    pub(super) fn set_snd_max(&mut self, snd_max: u64) {
        self.snd_max = snd_max;
    }
}
