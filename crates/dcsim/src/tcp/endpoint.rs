//! One end of a TCP connection, as a sans-I/O state machine: it is handed segments and timer
//! expiries with the current time, and pushes the segments it wants sent into `out`.
//! It never reads a clock and never schedules events; the simulation reads each timer's
//! `deadline` after each call.
//!
//! The end keeps the connection: the handshake (RFC 793 §3.4), its settings and addresses,
//! and whether ECN was negotiated. Its `Sender` (`tcp/sender.rs`) holds the send sequence
//! space, the congestion controller, loss recovery, the RTT estimate and the retransmission
//! timer, pacing and the NIC's backpressure; its `Receiver` (`tcp/receiver.rs`) holds the
//! receive sequence space, reassembly, delayed ACKs, the ECN echo and the receive buffer.
//! Each call is passed on to them, with what they need of the connection and of each other
//! (every segment carries the receiver's acknowledgement).
//!
//! Sequence space: the SYN takes sequence number 0, data starts at 1.

use std::sync::Arc;

use super::cc::Cc;
use super::options::{CwndValidation, DctcpReceiver, Recovery, SsthreshFrom};
use super::receiver::Receiver;
use super::rtt::{RtoBounds, RttEstimator};
pub use super::sender::EndpointCounters;
use super::sender::Sender;
use crate::net::packet::{Ecn, Segment, ACK, CWR, ECE, SYN};
use crate::units::Time;

/// Per-connection constants, resolved from the scenario.
#[derive(Debug, Clone)]
pub struct TcpParams {
    pub mss: u32,
    pub header_bytes: u32,
    pub init_cwnd_segments: u32,
    pub rto: RtoBounds,
    pub delack_segments: u32,
    pub delack_timeout: Time,
    /// The receive buffer, bytes; with auto-tuning, its initial size.
    pub rcv_buffer: u64,
    /// Receive-buffer auto-tuning (Linux's dynamic right-sizing) up to this many bytes; None
    /// = the fixed `rcv_buffer` (auto-tuning off, or a buffer the application set).
    pub rcv_autotune_max: Option<u64>,
    /// ECT on SYN and SYN-ACK (RFC 3168 §6.1.1 forbids it; Linux's DCTCP sets it: Judd, "Connection Establishment").
    pub ect_on_syn: bool,
    /// ECT on pure ACKs (RFC 3168 §6.1.4 forbids it; DCTCP hosts set it: Judd, "RED-ECN AQM Implementation").
    pub ect_on_ack: bool,
    /// ECT on retransmissions (RFC 3168 §6.1.5 forbids it; DCTCP hosts set it).
    pub ect_on_retransmit: bool,
    /// SYNs sent again before the connection gives up (Linux `tcp_syn_retries`).
    pub syn_retries: u32,
    /// SYN-ACKs sent again before a half-open connection gives up (`tcp_synack_retries`).
    pub synack_retries: u32,
    /// DCTCP receiver ACK machine (DCTCP paper §3.1, Fig. 10); None = RFC 3168 receiver.
    pub dctcp_receiver: Option<DctcpReceiver>,
    pub slow_start_after_idle: bool,
    pub offload_burst_segments: u32,
    /// Selective acknowledgements (RFC 2018) and SACK-based loss recovery (RFC 6675).
    pub sack: bool,
    /// Limited transmit (RFC 3042): a new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// DupThresh (RFC 5681 §3.2, RFC 6675 §2): duplicate ACKs that start loss recovery.
    pub dupthresh: u32,
    /// When an application-limited sender may grow cwnd.
    pub cwnd_validation: CwndValidation,
    /// The window during SACK recovery: RFC 6675 or PRR (RFC 6937).
    pub recovery: Recovery,
    /// Tail loss probe (RFC 8985 §7).
    pub tail_loss_probe: bool,
    /// Early retransmit (RFC 5827): with fewer than 4 segments out and nothing new to send,
    /// DupThresh falls to the segments out minus one; and any ACK with new SACK information
    /// may start recovery (Linux's loss detection), not only a duplicate.
    pub early_retransmit: bool,
    /// What a reduction's ssthresh is computed from (`tcp.ssthresh_from`).
    pub ssthresh_from: SsthreshFrom,
    /// The largest cwnd growth may reach, bytes (`tcp.cwnd_clamp`: the largest window the
    /// peer can advertise; infinite without the clamp).
    pub cwnd_clamp: f64,
    /// F-RTO (RFC 5682 §3.1, the SACK-enhanced algorithm) after a retransmission timeout,
    /// with the Eifel response (RFC 4015 §3.1) to a timeout it finds spurious.
    pub frto: bool,
}

impl TcpParams {
    /// These settings with a receive buffer the application set, `bytes`: fixed, as Linux
    /// locks a buffer set with SO_RCVBUF against auto-tuning; the window clamp, if there is
    /// one (it is finite), becomes that buffer.
    pub fn with_app_rcv_buffer(&self, bytes: u64) -> TcpParams {
        TcpParams {
            rcv_buffer: bytes,
            rcv_autotune_max: None,
            cwnd_clamp: if self.cwnd_clamp.is_finite() { bytes as f64 } else { f64::INFINITY },
            ..self.clone()
        }
    }

    /// SMSS as the windows count it (bytes).
    #[inline]
    pub(super) fn smss(&self) -> f64 {
        self.mss as f64
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Listen,
    SynSent,
    SynRcvd,
    Established,
    /// The opener's handshake gave up after its last SYN retry (Linux: `connect()` fails
    /// with ETIMEDOUT).
    Failed,
}

/// An end's timers. After each call the simulation reads their deadlines (`deadline`), and
/// when one passes it fires the timer (`on_timer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// The retransmission timer, or the tail loss probe's timeout in its place (RFC 6298,
    /// RFC 8985 §7.2).
    Rto,
    /// The delayed-ACK timer (RFC 5681 §4.2).
    DelayedAck,
    /// The pacing clock: a data segment held by the controller's pacing rate may leave.
    Pace,
}

impl Timer {
    /// Every timer, in the order the simulation arms them after each call.
    pub const ALL: [Timer; 3] = [Timer::Rto, Timer::DelayedAck, Timer::Pace];
}

/// Timestamps are sent as `now + 1` so that a segment sent at time 0 still carries a
/// non-zero TSval (0 means "no echo").
pub(crate) const TS_OFFSET: Time = Time::from_ps(1);

/// The end's own state, apart from its halves: the stack's settings and the addresses every
/// segment carries, which both halves read; whether ECN was negotiated; and the handshake.
/// One struct, so that an end's small fields pack together and a call lends it to the halves
/// as one reference.
#[derive(Debug, Clone)]
pub(super) struct Connection {
    /// The stack's settings, shared by every end built alike (an end holds 8 bytes of them).
    pub(super) p: Arc<TcpParams>,
    pub(super) id: u32,
    pub(super) end: u8,
    /// This end's host and the peer's.
    pub(super) host: u32,
    pub(super) peer_host: u32,
    /// ECN was negotiated in the handshake (RFC 3168 §6.1.1).
    pub(super) ecn_ok: bool,
    state: State,
    established_at: Option<Time>,
    /// SYN-ACKs sent again so far (the SYN's resends are `counters.syn_retries`).
    synack_resends: u8, // at most tcp.synack_retries ≤ 127
}

impl Connection {
    /// ECT on a control packet or retransmission whose switch (`ect_on_*`) is `allowed`, once
    /// ECN is negotiated.
    #[inline]
    pub(super) fn control_ecn(&self, allowed: bool) -> Ecn {
        if allowed && self.ecn_ok {
            Ecn::Ect
        } else {
            Ecn::NotEct
        }
    }
}

/// One end of a connection: the connection's own state, and its sending and receiving halves.
#[derive(Debug, Clone)]
pub struct Endpoint {
    conn: Connection,
    sender: Sender,
    receiver: Receiver,
}

impl Endpoint {
    pub fn new(p: impl Into<Arc<TcpParams>>, cc: Cc, conn: u32, end: u8, (host, peer_host): (u32, u32)) -> Self {
        let p: Arc<TcpParams> = p.into();
        Endpoint {
            sender: Sender::new(&p, cc),
            receiver: Receiver::new(&p),
            conn: Connection {
                p,
                id: conn,
                end,
                host,
                peer_host,
                ecn_ok: false,
                state: State::Listen,
                established_at: None,
                synack_resends: 0,
            },
        }
    }

    /// The end for one call: the connection its halves read, and the halves.
    #[inline]
    fn parts(&mut self) -> (&Connection, &mut Sender, &mut Receiver) {
        (&self.conn, &mut self.sender, &mut self.receiver)
    }

    // ------------------------------------------------------------------ state

    /// The stack's settings.
    #[inline]
    pub fn params(&self) -> &TcpParams {
        &self.conn.p
    }

    #[inline]
    pub fn state(&self) -> State {
        self.conn.state
    }

    /// When the handshake completed at this end.
    #[inline]
    pub fn established_at(&self) -> Option<Time> {
        self.conn.established_at
    }

    /// The congestion controller, and the window and pacing rate it decides.
    #[inline]
    pub fn cc(&self) -> &Cc {
        self.sender.cc()
    }

    /// The congestion controller, to set its state from outside (tests and benchmarks; in a
    /// run only the sender's events change it).
    #[inline]
    pub fn cc_mut(&mut self) -> &mut Cc {
        self.sender.cc_mut()
    }

    /// The congestion window, bytes.
    #[inline]
    pub fn cwnd(&self) -> f64 {
        self.sender.cc().win.cwnd
    }

    /// The slow-start threshold, bytes.
    #[inline]
    pub fn ssthresh(&self) -> f64 {
        self.sender.cc().win.ssthresh
    }

    /// The controller's estimator value to report: DCTCP's α, NaN for the others.
    #[inline]
    pub fn alpha(&self) -> f64 {
        self.sender.cc().alpha()
    }

    /// The RTT estimate and the retransmission timer's backoff.
    #[inline]
    pub fn rtt(&self) -> &RttEstimator {
        self.sender.rtt()
    }

    /// The smoothed RTT, once sampled.
    #[inline]
    pub fn srtt(&self) -> Option<Time> {
        self.sender.rtt().srtt
    }

    /// The oldest unacknowledged sequence number (SND.UNA).
    #[inline]
    pub fn snd_una(&self) -> u64 {
        self.sender.snd_una()
    }

    /// The next sequence number to send (SND.NXT; below `snd_max` when going back after a
    /// timeout).
    #[inline]
    pub fn snd_nxt(&self) -> u64 {
        self.sender.snd_nxt()
    }

    /// The highest sequence number sent, plus one.
    #[inline]
    pub fn snd_max(&self) -> u64 {
        self.sender.snd_max()
    }

    /// The next sequence number expected from the peer (RCV.NXT).
    #[inline]
    pub fn rcv_nxt(&self) -> u64 {
        self.receiver.rcv_nxt()
    }

    /// Application bytes delivered in order.
    #[inline]
    pub fn delivered(&self) -> u64 {
        self.receiver.delivered()
    }

    /// The receive buffer now, bytes (auto-tuning may have grown it).
    #[inline]
    pub fn rcv_buffer(&self) -> u64 {
        self.receiver.rcv_buffer()
    }

    /// The receiver's RTT estimate of receive-buffer auto-tuning, if on and sampled.
    pub fn receiver_rtt(&self) -> Option<Time> {
        self.receiver.receiver_rtt()
    }

    /// The handshake gave up: this end sends nothing more and ignores what arrives.
    #[inline]
    pub fn failed(&self) -> bool {
        self.conn.state == State::Failed
    }

    #[inline]
    pub fn ecn_negotiated(&self) -> bool {
        self.conn.ecn_ok
    }

    /// What this end has counted so far.
    #[inline]
    pub fn counters(&self) -> EndpointCounters {
        self.sender.counters()
    }

    /// Retransmission timeouts classified so far, spurious or not: those numbered 1 to this
    /// (the ACK after a timeout classifies it, so the latest may still wait).
    pub fn timeouts_classified(&self) -> u64 {
        self.sender.timeouts_classified()
    }

    /// Of this end's retransmission timeouts numbered 1 to `n`, those classified spurious (one
    /// not classified yet counts as not).
    pub fn spurious_among_first(&self, n: u64) -> u64 {
        self.sender.spurious_among_first(n)
    }

    /// Nothing left to do: established, everything written sent and acknowledged, no delayed
    /// ACK owed and no timer armed. Until it is written to or a segment arrives, this end
    /// sends nothing and changes nothing.
    pub fn is_done(&self) -> bool {
        self.conn.state == State::Established && self.sender.is_done() && self.receiver.delack_deadline().is_none()
    }

    /// The invariant-checking mode's test of this end (`sim.check_invariants`): its sequence
    /// space is ordered (RFC 793 §3.3: SND.UNA ≤ SND.NXT ≤ SND.MAX, nothing sent past what
    /// was written), it delivered no more than it received in order, and its windows are
    /// positive and within their bounds.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.sender.check_sequence()?;
        self.receiver.check_delivered()?;
        self.sender.check_windows(self.receiver.rcv_buffer())?;
        self.sender.check_timeouts(&self.conn.p)
    }

    // ------------------------------------------------------------------ the host

    /// The application writes `bytes` more (u64::MAX/4 stands for "unlimited").
    pub fn write(&mut self, bytes: u64) {
        self.sender.write(bytes);
    }

    /// The application stops writing: what was sent is completed, nothing new starts.
    pub fn stop_writing(&mut self) {
        self.sender.stop_writing();
    }

    /// The host's NIC queue can take `room` packets during the next call (its backpressure):
    /// the sender stops once its output holds that many, and says so (`nic_blocked`).
    #[inline]
    pub fn set_nic_room(&mut self, room: usize) {
        self.sender.set_nic_room(room);
    }

    /// The last call stopped sending at a full NIC queue: the simulation calls `try_send`
    /// when room comes back, as an OS does rather than dropping its own TCP segments.
    #[inline]
    pub fn nic_blocked(&self) -> bool {
        self.sender.nic_blocked()
    }

    /// The last ACK of this end left its host advertising a window whose right edge is `edge`
    /// (after any ICTCP rewrite): a data segment that fills it is ACKed at once.
    #[inline]
    pub fn on_window_advertised(&mut self, edge: u64) {
        self.receiver.on_window_advertised(edge);
    }

    // ------------------------------------------------------------------ handshake (RFC 793 §3.4)

    /// Active open: send the SYN, asking for ECN if the controller uses it (RFC 3168 §6.1.1).
    pub fn connect(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.conn.state = State::SynSent;
        self.sender.open();
        self.send_syn(now, out);
    }

    fn send_syn(&mut self, now: Time, out: &mut Vec<Segment>) {
        let (c, sender, receiver) = self.parts();
        let ecn_capable = sender.cc().ecn_capable();
        let flags = SYN | if ecn_capable { ECE | CWR } else { 0 };
        let ecn = if ecn_capable && c.p.ect_on_syn { Ecn::Ect } else { Ecn::NotEct };
        out.push(receiver.segment(c, now, flags, 0, 0, ecn));
        sender.arm_handshake_rto(&c.p, now);
    }

    fn send_syn_ack(&mut self, now: Time, out: &mut Vec<Segment>) {
        let (c, sender, receiver) = self.parts();
        let flags = SYN | ACK | if c.ecn_ok { ECE } else { 0 };
        out.push(receiver.segment(c, now, flags, 0, 0, c.control_ecn(c.p.ect_on_syn)));
        receiver.on_ack_sent();
        sender.arm_handshake_rto(&c.p, now);
    }

    fn become_established(&mut self, now: Time, pkt: &Segment) {
        self.conn.state = State::Established;
        self.conn.established_at = Some(now);
        let retried = self.sender.counters().syn_retries > 0 || self.conn.synack_resends > 0;
        self.sender.on_established(&self.conn.p, now, pkt, retried);
        self.receiver.on_established(now);
    }

    // ------------------------------------------------------------------ input

    /// A segment from the peer arrives.
    pub fn on_segment(&mut self, now: Time, pkt: &Segment, out: &mut Vec<Segment>) {
        match self.conn.state {
            State::Listen => {
                if pkt.has(SYN) && !pkt.has(ACK) {
                    self.receiver.on_syn(pkt);
                    // RFC 793 §3.9: SND.WND from the SYN.
                    self.sender.on_syn(pkt);
                    // RFC 3168 §6.1.1: an ECN-setup SYN carries ECE and CWR.
                    self.conn.ecn_ok = self.sender.cc().ecn_capable() && pkt.has(ECE) && pkt.has(CWR);
                    self.conn.state = State::SynRcvd;
                    self.sender.open();
                    self.send_syn_ack(now, out);
                }
            }
            State::SynSent => {
                if pkt.has(SYN) && pkt.has(ACK) && pkt.ack == 1 {
                    self.receiver.on_syn(pkt);
                    // RFC 793 §3.9: SND.WND from the SYN-ACK.
                    self.sender.on_syn(pkt);
                    self.conn.ecn_ok = self.sender.cc().ecn_capable() && pkt.has(ECE);
                    self.become_established(now, pkt);
                    let (c, sender, receiver) = self.parts();
                    receiver.ack_now(c, sender.snd_nxt(), now, out);
                    self.try_send(now, out);
                }
            }
            State::SynRcvd => {
                if pkt.has(SYN) && !pkt.has(ACK) {
                    // Our SYN-ACK was lost and the peer retried: echo the new SYN's timestamp.
                    self.receiver.on_syn_retry(pkt);
                    self.send_syn_ack(now, out);
                } else if pkt.has(ACK) && pkt.ack >= 1 {
                    self.become_established(now, pkt);
                    self.on_established_segment(now, pkt, out);
                }
            }
            State::Established => {
                if pkt.has(SYN) {
                    // A retransmitted SYN-ACK: our handshake ACK was lost.
                    let (c, sender, receiver) = self.parts();
                    receiver.ack_now(c, sender.snd_nxt(), now, out);
                    return;
                }
                self.on_established_segment(now, pkt, out);
            }
            State::Failed => {}
        }
    }

    /// The receiver takes the timestamp, the sender the ACK, the receiver the data; then the
    /// sender sends what it now may.
    fn on_established_segment(&mut self, now: Time, pkt: &Segment, out: &mut Vec<Segment>) {
        let (c, sender, receiver) = self.parts();
        receiver.on_arrival(pkt);
        if pkt.has(ACK) {
            sender.on_ack(c, receiver, now, pkt, out);
        }
        if pkt.len > 0 {
            receiver.on_data(c, sender.snd_nxt(), now, pkt, out);
        }
        sender.try_send(c, receiver, now, out);
    }

    /// Sends what cwnd, the peer's window and the application allow.
    pub fn try_send(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.conn.state != State::Established {
            self.sender.unblock();
            return;
        }
        let (c, sender, receiver) = self.parts();
        sender.try_send(c, receiver, now, out);
    }

    // ------------------------------------------------------------------ timers

    /// When `timer` next expires, if armed.
    #[inline]
    pub fn deadline(&self, timer: Timer) -> Option<Time> {
        match timer {
            Timer::Rto => self.sender.rto_deadline(),
            Timer::DelayedAck => self.receiver.delack_deadline(),
            Timer::Pace => self.pace_deadline(),
        }
    }

    /// `timer` expired.
    pub fn on_timer(&mut self, timer: Timer, now: Time, out: &mut Vec<Segment>) {
        match timer {
            Timer::Rto => self.on_rto_timer(now, out),
            Timer::DelayedAck => self.on_delack_timer(now, out),
            Timer::Pace => self.on_pace_timer(now, out),
        }
    }

    /// The delayed-ACK timer expired.
    pub fn on_delack_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        let (c, sender, receiver) = self.parts();
        receiver.on_delack_timer(c, sender.snd_nxt(), now, out);
    }

    /// When a data segment held by the pacing rate may leave: the simulation then calls
    /// `on_pace_timer`.
    #[inline]
    pub fn pace_deadline(&self) -> Option<Time> {
        self.sender.pace_deadline()
    }

    /// The pacing deadline passed: send what the window allows.
    pub fn on_pace_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.sender.on_pace_timer();
        self.try_send(now, out);
    }

    /// The retransmission timer expired (RFC 6298 §5.4–5.6; the controller's response, by
    /// default RFC 5681 §3.1 eq. 4 and the loss window).
    pub fn on_rto_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.sender.take_rto_timer() {
            if self.conn.state == State::Established {
                let (c, sender, receiver) = self.parts();
                sender.on_probe_timeout(c, receiver, now, out);
            }
            return;
        }
        match self.conn.state {
            // RFC 6298 §5.5 backoff; Linux gives up after `tcp_syn_retries` resends.
            State::SynSent if self.counters().syn_retries >= self.conn.p.syn_retries as u64 => self.conn.state = State::Failed,
            State::SynSent => {
                self.sender.count_syn_retry();
                self.sender.on_handshake_timeout();
                self.send_syn(now, out);
            }
            // Linux drops the half-open request; a later SYN from the peer starts afresh.
            State::SynRcvd if self.conn.synack_resends as u32 >= self.conn.p.synack_retries => {
                self.conn.state = State::Listen;
                self.conn.synack_resends = 0;
                self.sender.reset_backoff();
            }
            State::SynRcvd => {
                self.conn.synack_resends += 1;
                self.sender.on_handshake_timeout();
                self.send_syn_ack(now, out);
            }
            State::Established => {
                let (c, sender, receiver) = self.parts();
                sender.on_rto_timer(c, receiver, now, out);
            }
            _ => {}
        }
    }
}

/// State changes for tests that break an invariant on purpose.
#[cfg(test)]
impl Endpoint {
    pub(crate) fn app_end(&self) -> u64 {
        self.sender.app_end()
    }

    pub(crate) fn set_snd_nxt(&mut self, snd_nxt: u64) {
        self.sender.set_snd_nxt(snd_nxt);
    }

    pub(crate) fn set_snd_max(&mut self, snd_max: u64) {
        self.sender.set_snd_max(snd_max);
    }

    pub(crate) fn set_rcv_nxt(&mut self, rcv_nxt: u64) {
        self.receiver.set_rcv_nxt(rcv_nxt);
    }

    pub(crate) fn set_delivered(&mut self, delivered: u64) {
        self.receiver.set_delivered(delivered);
    }
}
