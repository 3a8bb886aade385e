//! One end of a TCP connection, as a sans-I/O state machine: it is handed segments and timer
//! expiries with the current time, and pushes the segments it wants sent into `out`.
//! It never reads a clock and never schedules events; the simulation reads `rto_deadline`,
//! `delack_deadline` and `pace_deadline()` after each call.
//!
//! The congestion controller (`cc`) decides the window and the pacing rate; this sender
//! tells it of every event and keeps what all controllers share (`tcp::cc` module docs).
//!
//! Sequence space: the SYN takes sequence number 0, data starts at 1.

use std::sync::Arc;

use super::cc::{Ack, Cc, ConnView, IdleSpell};
use super::options::{CwndValidation, DctcpReceiver, Recovery, SsthreshFrom};
use super::ranges::RangeSet;
use super::rtt::{RtoBounds, RttEstimator};
use crate::net::packet::{Ecn, Segment, ACK, CWR, ECE, PSH, RETX, SYN};
use crate::units::{Bytes, Time};

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

/// What a probe timeout adds to 2·SRTT with more than one segment out (Linux's
/// TCP_TIMEOUT_MIN_US; with one out it adds RTO_min, standing for RFC 8985's WCDelAckT).
const TLP_TIMEOUT_MIN: Time = Time::from_ms(2);

/// Proportional rate reduction's state during one recovery (RFC 6937 §3), bytes.
#[derive(Debug, Clone, Copy, Default)]
struct Prr {
    /// `prr_delivered`: data the receiver got since recovery began (cumulative or SACKed).
    delivered: u64,
    /// `prr_out`: data sent since recovery began.
    out: u64,
    /// `RecoverFS`: FlightSize when recovery began.
    recover_fs: u64,
}

/// The state of PRR and the tail loss probe, held only by stacks that use either.
#[derive(Debug, Clone, Copy, Default)]
struct LossState {
    prr: Prr,
    tlp: Tlp,
}

/// Tail loss probe state (RFC 8985 §7).
#[derive(Debug, Clone, Copy, Default)]
struct Tlp {
    /// The RTO deadline is a probe timeout (PTO), not the RTO.
    armed: bool,
    /// `TLP.end_seq`: snd_max when the outstanding probe was sent; 0 = no probe out.
    end_seq: u64,
    /// `TLP.is_retrans`: the probe resent the last segment (else it sent new data).
    is_retrans: bool,
    /// FlightSize when the probe was sent, for the reduction if it repaired a loss.
    flight: u64,
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

#[derive(Debug, Clone, Copy, Default)]
pub struct EndpointCounters {
    pub data_packets_sent: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub syn_retries: u64,
    pub ecn_reductions: u64,
    pub ece_acks: u64,
    /// Tail loss probes sent (RFC 8985 §7.3; also counted in `retransmits` when they resend).
    pub tail_loss_probes: u64,
    /// Of `timeouts`, those found spurious (the data had not been lost): by F-RTO's rule
    /// (RFC 5682 §3.1 step 3b) with `tcp.frto`, else by the timestamp the first ACK after the
    /// timeout echoes (the Eifel detection, RFC 3522 §3.2). Counted when that ACK arrives;
    /// the timeouts of one episode (the same data timing out again) share its verdict.
    pub spurious_timeouts: u64,
}

impl EndpointCounters {
    /// The counters of two ends together (both directions of a connection).
    pub fn plus(&self, o: &Self) -> Self {
        EndpointCounters {
            data_packets_sent: self.data_packets_sent + o.data_packets_sent,
            retransmits: self.retransmits + o.retransmits,
            fast_retransmits: self.fast_retransmits + o.fast_retransmits,
            timeouts: self.timeouts + o.timeouts,
            syn_retries: self.syn_retries + o.syn_retries,
            ecn_reductions: self.ecn_reductions + o.ecn_reductions,
            ece_acks: self.ece_acks + o.ece_acks,
            tail_loss_probes: self.tail_loss_probes + o.tail_loss_probes,
            spurious_timeouts: self.spurious_timeouts + o.spurious_timeouts,
        }
    }
}

/// Where F-RTO stands after a retransmission timeout (RFC 5682 §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Frto {
    /// Not running: no timeout, F-RTO off or not entered (step 1), or fallen back to the
    /// conventional RTO recovery.
    #[default]
    Off,
    /// Step 2: the first unacknowledged segment was resent; waiting for a new ACK.
    Step2,
    /// Step 3: new segments went out instead of retransmissions; waiting for the next ACK.
    Step3,
}

/// A retransmission timeout waiting for the ACK that tells whether it was spurious, with
/// F-RTO's state and what the Eifel response restores (RFC 4015 §3.1 step (0)). Its
/// timeouts are those of one piece of data: a timeout of the same snd_una joins the
/// episode (RFC 3522 §3.2 keeps RetransmitTS, RFC 4015 §3.1 is not reinitiated).
#[derive(Debug, Clone, Copy, Default)]
struct TimeoutEpisode {
    /// Timeouts in the episode; 0: none open.
    timeouts: u64,
    /// The number of its first timeout (1 = this end's first).
    first: u64,
    /// snd_una at its first timeout: the first ACK above it is the acceptable ACK.
    una: u64,
    /// RFC 3522 §3.2 RetransmitTS: the TSval of the episode's first retransmission (the
    /// timeout's instant: the retransmission leaves then, or later if held by the NIC).
    retransmit_ts: Time,
    frto: Frto,
    /// RFC 5682 §3.1 step 2b: new segments still to send, at most two.
    new_segments: u8,
    /// RFC 4015 §3.1 step (0), saved at the episode's first timeout when F-RTO runs:
    /// pipe_prev = max(FlightSize, ssthresh), SRTT_prev = SRTT + 2·G, RTTVAR_prev = RTTVAR.
    pipe_prev: f64,
    srtt_prev: Option<Time>,
    rttvar_prev: Time,
    /// After a spurious timeout (RFC 4015 §3.1): the RTT estimate is reset from the first
    /// sample of data above this sequence number, sent after the detection; 0: none pending.
    adapt_rtt_above: u64,
}

/// What an end keeps of rare events, made at the first: its counters, the timeout being
/// classified, and the verdicts of the timeouts classified so far.
#[derive(Debug, Clone, Default)]
struct Events {
    k: EndpointCounters,
    episode: TimeoutEpisode,
    /// Timeouts classified so far: those numbered 1 to `classified`.
    classified: u64,
    /// Bit n − 1 is set when timeout number n was spurious.
    spurious: Vec<u64>,
}

impl Events {
    /// The open episode ends with its verdict, which every timeout of it takes.
    fn close_episode(&mut self, spurious: bool) {
        let ep = &mut self.episode;
        let (first, n) = (ep.first, ep.timeouts);
        if n == 0 {
            return;
        }
        if spurious {
            self.k.spurious_timeouts += n;
            for i in first - 1..first - 1 + n {
                let word = (i / 64) as usize;
                if self.spurious.len() <= word {
                    self.spurious.resize(word + 1, 0);
                }
                self.spurious[word] |= 1 << (i % 64);
            }
        }
        self.classified = first + n - 1;
        // What a pending RTT adaptation needs outlives the episode (RFC 4015 §3.1).
        *ep = TimeoutEpisode {
            adapt_rtt_above: ep.adapt_rtt_above,
            srtt_prev: ep.srtt_prev,
            rttvar_prev: ep.rttvar_prev,
            ..TimeoutEpisode::default()
        };
    }

    /// Of the timeouts numbered 1 to `n`, those classified spurious.
    fn spurious_among_first(&self, n: u64) -> u64 {
        let (full, rest) = ((n / 64) as usize, n % 64);
        let mut count: u64 = self.spurious.iter().take(full).map(|w| w.count_ones() as u64).sum();
        if rest > 0 {
            if let Some(w) = self.spurious.get(full) {
                count += (w & ((1u64 << rest) - 1)).count_ones() as u64;
            }
        }
        count
    }
}

/// Linux's `TCP_INIT_CWND`: what receive-buffer auto-tuning expects of a first window.
const LINUX_INIT_CWND: u64 = 10;

/// Timestamps are sent as `now + 1` so that a segment sent at time 0 still carries a
/// non-zero TSval (0 means "no echo").
pub(crate) const TS_OFFSET: Time = Time::from_ps(1);

#[derive(Debug, Clone)]
pub struct Endpoint {
    /// The stack's settings, shared by every end built alike (an end holds 8 bytes of them).
    pub p: Arc<TcpParams>,
    conn: u32,
    end: u8,
    /// This end's host and the peer's.
    host: u32,
    peer_host: u32,
    pub state: State,
    pub established_at: Option<Time>,
    /// SYN-ACKs sent again so far (the SYN's resends are `counters.syn_retries`).
    synack_resends: u8, // at most tcp.synack_retries ≤ 127
    // ---- sender ----
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// Sequence number just past the last byte the application has written.
    pub app_end: u64,
    /// The congestion controller, and the window and pacing rate it decides.
    pub cc: Cc,
    ecn_ok: bool,
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
    /// stops, and sets `tx_blocked`, once its output holds that many.
    pub tx_room: usize,
    pub tx_blocked: bool,
    pub rtt: RttEstimator,
    pub rto_deadline: Option<Time>,
    /// Pacing: the controller's rate holds the next data segment until this time (the
    /// previous one's send time plus its size at the rate; only moved while a rate is set).
    next_send: Time,
    /// A segment waits for `next_send` (see `pace_deadline`).
    pace_waiting: bool,
    // ---- receiver ----
    pub rcv_nxt: u64,
    /// Out-of-order data held for reassembly.
    ooo: RangeSet,
    unacked_segments: u32,
    pub delack_deadline: Option<Time>,
    /// Right edge of the receive window in the last ACK this end sent (rcv_nxt + window as it
    /// left the host, after any ICTCP rewrite); u64::MAX until the first ACK.
    pub advertised_edge: u64,
    /// DCTCP receiver: CE bit of the last data segment (Fig. 10 state).
    ce_state: bool,
    /// RFC 3168 receiver: echo ECE until CWR arrives.
    ece_latch: bool,
    ts_recent: Time,
    /// RFC 7323 §4.3 `Last.ACK.sent`: the ACK field of the last segment this end sent.
    last_ack_sent: u64,
    /// Application bytes delivered in order.
    pub delivered: u64,
    /// The receive buffer now, bytes: the advertised window is its free space.
    pub rcv_buffer: u64,
    /// Its auto-tuning state, when on (boxed: most connections run without it, and a box
    /// keeps their state 48 bytes smaller).
    autotune: Option<Box<RcvAutotune>>,
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

impl Endpoint {
    pub fn new(p: impl Into<Arc<TcpParams>>, cc: Cc, conn: u32, end: u8, (host, peer_host): (u32, u32)) -> Self {
        let p: Arc<TcpParams> = p.into();
        let rcv_buffer = p.rcv_buffer;
        let loss = (p.tail_loss_probe || p.recovery == Recovery::Prr).then(Box::default);
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
        Endpoint {
            p,
            conn,
            end,
            host,
            peer_host,
            state: State::Listen,
            established_at: None,
            synack_resends: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            app_end: 1,
            cc,
            ecn_ok: false,
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            sacked: RangeSet::default(),
            high_rxt: 0,
            rescue_rxt: 0,
            loss,
            cwr_guard: 0,
            send_cwr: false,
            peer_rwnd: rcv_buffer,
            cwnd_limited: false,
            last_send: None,
            tx_room: usize::MAX,
            tx_blocked: false,
            rtt: RttEstimator::default(),
            rto_deadline: None,
            next_send: Time::ZERO,
            pace_waiting: false,
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
            data_packets_sent: 0,
            events: None,
            timeout_pending: false,
        }
    }

    fn mss(&self) -> f64 {
        self.p.mss as f64
    }

    /// The congestion window, bytes.
    pub fn cwnd(&self) -> f64 {
        self.cc.win.cwnd
    }

    /// The slow-start threshold, bytes.
    pub fn ssthresh(&self) -> f64 {
        self.cc.win.ssthresh
    }

    /// The invariant-checking mode's test of this end (`sim.check_invariants`): its sequence
    /// space is ordered (RFC 793 §3.3: SND.UNA ≤ SND.NXT ≤ SND.MAX, nothing sent past what
    /// was written), it delivered no more than it received in order, and its windows are
    /// positive and within their bounds.
    pub fn check_invariants(&self) -> Result<(), String> {
        let (una, nxt, max) = (self.snd_una, self.snd_nxt, self.snd_max);
        if !(una <= nxt && nxt <= max && max <= self.app_end.max(1)) {
            return Err(format!(
                "snd_una {una}, snd_nxt {nxt}, snd_max {max}, written up to {}",
                self.app_end
            ));
        }
        if self.delivered > self.rcv_nxt {
            return Err(format!("delivered {} bytes but rcv_nxt is {}", self.delivered, self.rcv_nxt));
        }
        let bound = crate::units::MAX_SEQUENCE_BYTES as f64;
        let (cwnd, ssthresh) = (self.cwnd(), self.ssthresh());
        if !(cwnd > 0.0 && cwnd <= bound && ssthresh > 0.0) {
            return Err(format!("cwnd {cwnd}, ssthresh {ssthresh}"));
        }
        if self.peer_rwnd > u32::MAX as u64 || self.rcv_buffer > bound as u64 {
            return Err(format!("peer window {}, receive buffer {}", self.peer_rwnd, self.rcv_buffer));
        }
        if let Some(e) = self.events.as_deref() {
            // Every timeout is classified once: the spurious ones are among those classified,
            // which are numbered before those of the open episode, and F-RTO runs only when on.
            let (k, ep) = (&e.k, &e.episode);
            let open_ok = ep.timeouts == 0 || ep.first == e.classified + 1;
            let counted = e.spurious_among_first(e.classified);
            if !(k.spurious_timeouts == counted && counted <= e.classified && e.classified + ep.timeouts == k.timeouts && open_ok)
                || (ep.frto != Frto::Off && !self.p.frto)
                || ep.new_segments > 2
                || self.timeout_pending != (ep.timeouts > 0 || ep.adapt_rtt_above != 0)
            {
                return Err(format!(
                    "timeouts {}, classified {}, spurious {} ({counted} by number), open episode {ep:?}",
                    k.timeouts, e.classified, k.spurious_timeouts
                ));
            }
        }
        Ok(())
    }

    /// The facts the controller is told, `newly` bytes having just been acknowledged.
    #[inline]
    fn view(&self, newly: u64) -> ConnView {
        self.view_idle(newly, None)
    }

    #[inline]
    fn view_idle(&self, newly: u64, idle: Option<IdleSpell>) -> ConnView {
        ConnView {
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            mss: self.mss(),
            iw: self.p.init_cwnd_segments as f64 * self.mss(),
            flight: self.snd_max - self.snd_una,
            reduce_from: self.snd_max - self.snd_una,
            srtt: self.rtt.srtt,
            in_recovery: self.in_recovery,
            cwnd_limited: self.cwnd_limited,
            idle,
            window_validated: self.cwnd_limited || self.window_validated(newly),
        }
    }

    /// The view for a reduction (loss, timeout or ECN-Echo): `reduce_from` is what the stack
    /// computes ssthresh from (`tcp.ssthresh_from`), with `flight` standing for FlightSize
    /// where the caller knows better (a tail loss probe's flight when it was sent).
    fn reduction_view(&self, flight: u64) -> ConnView {
        let cwnd = self.cc.win.cwnd as u64;
        let reduce_from = match self.p.ssthresh_from {
            SsthreshFrom::FlightSize => flight,
            SsthreshFrom::Pipe => self.pipe(),
            SsthreshFrom::Cwnd => cwnd,
            SsthreshFrom::Window => cwnd.min(self.p.rcv_buffer), // ns-2's wnd_: the window the receiver is configured with
        };
        ConnView {
            reduce_from,
            ..self.view(0)
        }
    }

    /// The application writes `bytes` more (u64::MAX/4 stands for "unlimited").
    pub fn write(&mut self, bytes: u64) {
        self.app_end = self.app_end.saturating_add(bytes).min(u64::MAX / 4);
    }

    /// What this end has counted so far.
    pub fn counters(&self) -> EndpointCounters {
        let events = self.events.as_deref().map(|e| e.k).unwrap_or_default();
        EndpointCounters {
            data_packets_sent: self.data_packets_sent,
            ..events
        }
    }

    /// The counters of rarer events, made at the first.
    fn events(&mut self) -> &mut EndpointCounters {
        &mut self.events.get_or_insert_with(Box::default).k
    }

    /// Retransmission timeouts classified so far, spurious or not: those numbered 1 to this
    /// (the ACK after a timeout classifies it, so the latest may still wait).
    pub fn timeouts_classified(&self) -> u64 {
        self.events.as_ref().map_or(0, |e| e.classified)
    }

    /// Of this end's retransmission timeouts numbered 1 to `n`, those classified spurious (one
    /// not classified yet counts as not).
    pub fn spurious_among_first(&self, n: u64) -> u64 {
        self.events.as_ref().map_or(0, |e| e.spurious_among_first(n))
    }

    /// The open timeout episode (all zero when none).
    #[inline]
    fn episode(&self) -> TimeoutEpisode {
        self.events.as_ref().map_or(TimeoutEpisode::default(), |e| e.episode)
    }

    #[inline]
    fn episode_mut(&mut self) -> &mut TimeoutEpisode {
        &mut self.events.get_or_insert_with(Box::default).episode
    }

    /// The application stops writing: what was sent is completed, nothing new starts.
    pub fn stop_writing(&mut self) {
        self.app_end = self.app_end.min(self.snd_max.max(1));
    }

    fn advertised_window(&self) -> u64 {
        self.rcv_buffer.saturating_sub(self.ooo.bytes())
    }

    fn echo_ece(&self) -> bool {
        match self.p.dctcp_receiver {
            Some(_) => self.ce_state,
            None => self.ece_latch,
        }
    }

    fn segment(&self, now: Time, flags: u8, seq: u64, len: u32, ecn: Ecn) -> Segment {
        let mut sack = [(0u32, 0u32); 3];
        let mut sack_blocks = 0u8;
        if self.p.sack && !self.ooo.is_empty() {
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
            conn: self.conn,
            src: self.host,
            dst: self.peer_host,
            from_end: self.end,
            flags,
            ecn,
            len,
            size: len + self.p.header_bytes + option_bytes,
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

    /// ECT on a control packet or retransmission whose switch (`ect_on_*`) is `allowed`, once
    /// ECN is negotiated.
    fn control_ecn(&self, allowed: bool) -> Ecn {
        if allowed && self.ecn_ok {
            Ecn::Ect
        } else {
            Ecn::NotEct
        }
    }

    /// Arms the retransmission timer, or with a tail loss probe due, the probe timeout.
    fn arm_rto(&mut self, now: Time) {
        let rto = self.rtt.rto(&self.p.rto);
        let pto = self.probe_timeout(rto);
        if let Some(l) = self.loss.as_deref_mut() {
            l.tlp.armed = pto.is_some();
        }
        self.rto_deadline = Some(now + pto.unwrap_or(rto));
    }

    /// RFC 8985 §7.2: the probe timeout when a probe may be scheduled (established, SACK,
    /// outside fast or RTO recovery, no probe out, an RTT sample): 2·SRTT plus a margin,
    /// rounded up to the tick, never beyond the RTO.
    fn probe_timeout(&self, rto: Time) -> Option<Time> {
        if !self.p.tail_loss_probe
            || !self.p.sack
            || self.state != State::Established
            || self.in_recovery
            || self.rtt.backoff > 0
            || self.snd_una < self.recover // still resending after a timeout (RTO recovery)
            || self.tlp().end_seq != 0
        {
            return None;
        }
        let srtt = self.rtt.srtt?;
        // Linux tcp_schedule_loss_probe: + the RTO minimum with one segment out (the
        // worst-case delayed ACK, RFC 8985's WCDelAckT), else + TCP_TIMEOUT_MIN_US, 2 ms.
        let pto = if self.snd_max - self.snd_una <= self.p.mss as u64 {
            2 * srtt + self.p.rto.min
        } else {
            2 * srtt + TLP_TIMEOUT_MIN
        };
        Some(self.p.rto.ticked(pto).min(rto))
    }

    // ------------------------------------------------------------------ handshake (RFC 793 §3.4)

    /// Active open: send the SYN, asking for ECN if the controller uses it (RFC 3168 §6.1.1).
    pub fn connect(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.state = State::SynSent;
        self.snd_nxt = 1;
        self.snd_max = 1;
        self.send_syn(now, out);
    }

    fn send_syn(&mut self, now: Time, out: &mut Vec<Segment>) {
        let ecn_capable = self.cc.ecn_capable();
        let flags = SYN | if ecn_capable { ECE | CWR } else { 0 };
        let ecn = if ecn_capable && self.p.ect_on_syn { Ecn::Ect } else { Ecn::NotEct };
        out.push(self.segment(now, flags, 0, 0, ecn));
        self.arm_rto(now);
    }

    fn send_syn_ack(&mut self, now: Time, out: &mut Vec<Segment>) {
        let flags = SYN | ACK | if self.ecn_ok { ECE } else { 0 };
        out.push(self.segment(now, flags, 0, 0, self.control_ecn(self.p.ect_on_syn)));
        self.last_ack_sent = self.rcv_nxt;
        self.arm_rto(now);
    }

    fn become_established(&mut self, now: Time, pkt: &Segment) {
        self.state = State::Established;
        self.established_at = Some(now);
        if self.counters().syn_retries > 0 || self.synack_resends > 0 {
            // RFC 5681 §3.1: after a lost SYN or SYN-ACK the initial window is one segment.
            self.cc.win.cwnd = self.cc.win.cwnd.min(self.p.mss as f64);
        }
        if let Some(a) = self.autotune.as_mut() {
            (a.seq, a.since) = (self.rcv_nxt, now); // the first measurement starts here
        }
        self.snd_una = 1;
        self.take_rtt_sample(now, pkt);
        self.rtt.backoff = 0;
        self.rto_deadline = None;
    }

    fn take_rtt_sample(&mut self, now: Time, pkt: &Segment) -> Option<Time> {
        if pkt.ts_ecr == Time::ZERO {
            return None;
        }
        // RFC 7323 RTTM: the echoed timestamp of the segment this ACK answers.
        let r = now + TS_OFFSET - pkt.ts_ecr;
        self.rtt.on_sample(r);
        Some(r)
    }

    // ------------------------------------------------------------------ input

    /// A segment from the peer arrives.
    pub fn on_segment(&mut self, now: Time, pkt: &Segment, out: &mut Vec<Segment>) {
        match self.state {
            State::Listen => {
                if pkt.has(SYN) && !pkt.has(ACK) {
                    self.rcv_nxt = pkt.seq + 1;
                    self.ts_recent = pkt.ts_val;
                    // RFC 793 §3.9: SND.WND from the SYN.
                    self.peer_rwnd = pkt.rwnd as u64;
                    // RFC 3168 §6.1.1: an ECN-setup SYN carries ECE and CWR.
                    self.ecn_ok = self.cc.ecn_capable() && pkt.has(ECE) && pkt.has(CWR);
                    self.state = State::SynRcvd;
                    self.snd_nxt = 1;
                    self.snd_max = 1;
                    self.send_syn_ack(now, out);
                }
            }
            State::SynSent => {
                if pkt.has(SYN) && pkt.has(ACK) && pkt.ack == 1 {
                    self.rcv_nxt = pkt.seq + 1;
                    self.ts_recent = pkt.ts_val;
                    // RFC 793 §3.9: SND.WND from the SYN-ACK.
                    self.peer_rwnd = pkt.rwnd as u64;
                    self.ecn_ok = self.cc.ecn_capable() && pkt.has(ECE);
                    self.become_established(now, pkt);
                    self.send_ack(now, self.echo_ece(), out);
                    self.try_send(now, out);
                }
            }
            State::SynRcvd => {
                if pkt.has(SYN) && !pkt.has(ACK) {
                    // Our SYN-ACK was lost and the peer retried: echo the new SYN's timestamp.
                    self.ts_recent = pkt.ts_val;
                    self.send_syn_ack(now, out);
                } else if pkt.has(ACK) && pkt.ack >= 1 {
                    self.become_established(now, pkt);
                    self.on_established_segment(now, pkt, out);
                }
            }
            State::Established => {
                if pkt.has(SYN) {
                    // A retransmitted SYN-ACK: our handshake ACK was lost.
                    self.send_ack(now, self.echo_ece(), out);
                    return;
                }
                self.on_established_segment(now, pkt, out);
            }
            State::Failed => {}
        }
    }

    fn on_established_segment(&mut self, now: Time, pkt: &Segment, out: &mut Vec<Segment>) {
        if pkt.len == 0 && pkt.seq <= self.rcv_nxt && pkt.ts_val > self.ts_recent {
            // RFC 7323 §4.3: a pure ACK in sequence updates TS.Recent too, so the data we send
            // next echoes the peer's latest ACK (what a receiver-side RTT measures, ICTCP §VI-C).
            self.ts_recent = pkt.ts_val;
        }
        if pkt.has(ACK) {
            self.process_ack(now, pkt, out);
        }
        if pkt.len > 0 {
            self.process_data(now, pkt, out);
        }
        self.try_send(now, out);
    }

    // ------------------------------------------------------------------ sender

    fn process_ack(&mut self, now: Time, pkt: &Segment, out: &mut Vec<Segment>) {
        let ack = pkt.ack;
        if ack > self.snd_max {
            return; // acknowledges data never sent
        }
        let (una_before, sacked_before) = (self.snd_una, self.sacked.bytes());
        self.peer_rwnd = pkt.rwnd as u64;
        let ece = self.ecn_ok && pkt.has(ECE);
        if ece {
            self.events().ece_acks += 1;
        }
        if self.p.sack {
            for &(a, b) in &pkt.sack[..pkt.sack_blocks as usize] {
                let (a, b) = (ack + a as u64, (ack + b as u64).min(self.snd_max));
                self.sacked.insert(a.max(self.snd_una), b);
            }
        }
        let new_sack_info = self.sacked.bytes() > sacked_before;
        if ack > self.snd_una {
            let newly = ack - self.snd_una;
            let rtt = self.take_rtt_sample(now, pkt);
            self.rtt.backoff = 0;
            self.snd_una = ack;
            self.sacked.remove_below(ack);
            if self.snd_nxt < self.snd_una {
                self.snd_nxt = self.snd_una; // after go-back-N, skip what the peer already has
            }
            // RFC 3168 §6.1.2: ECN-Echo reduces the window at most once per window of data.
            let ecn_cut = ece && !self.in_recovery && self.snd_una > self.cwr_guard;
            let sample = Ack {
                newly_acked: newly,
                delivered: (newly + self.sacked.bytes()).saturating_sub(sacked_before),
                rtt,
                ece,
                ecn_cut,
            };
            let before = self.cc.win.cwnd;
            self.cc.on_ack(now, &sample, &self.view(newly));
            // `tcp.cwnd_clamp`: growth stops at the largest window the peer can advertise.
            let most = before.max(self.p.cwnd_clamp);
            if self.cc.win.cwnd > most {
                self.cc.win.cwnd = most;
            }
            if self.in_recovery {
                if ack >= self.recover {
                    // The full ACK ends recovery (RFC 6582 §3.2 step 3, RFC 6675 §5).
                    self.in_recovery = false;
                    self.dupacks = 0;
                    self.cc.on_recovery_end(now, &self.view(0));
                    if self.p.sack && self.p.recovery == Recovery::Prr {
                        self.cc.win.cwnd = self.cc.win.ssthresh; // on exiting recovery, as Linux tcp_end_cwnd_reduction
                    }
                } else if !self.p.sack {
                    // Partial ACK: retransmit the next hole, deflate by the amount acked, add
                    // back one SMSS, and restart the timer (RFC 6582 §3.2 step 3).
                    self.retransmit_head(now, out);
                    let mss = self.mss();
                    self.cc.win.cwnd = (self.cc.win.cwnd - newly as f64 + mss).max(mss);
                }
            } else {
                self.dupacks = 0;
                if ecn_cut {
                    self.cut_for_ecn(now);
                }
            }
            let tlp = self.tlp();
            if tlp.end_seq != 0 && (ack > tlp.end_seq || (ack == tlp.end_seq && !tlp.is_retrans)) {
                self.end_probe_episode(now);
            }
            if self.snd_una < self.snd_max {
                self.arm_rto(now);
            } else {
                self.rto_deadline = None;
            }
            if self.p.early_retransmit
                && self.p.sack
                && new_sack_info
                && !self.in_recovery
                && self.snd_una >= self.recover
                && self.is_lost(self.snd_una)
            {
                // Linux's loss detection runs on every ACK that brings SACK information, not
                // only on duplicates (tcp_ack_is_dubious → tcp_time_to_recover): a cumulative
                // ACK whose SACKs show the next hole lost starts recovery at once.
                self.enter_fast_recovery(now, out);
            }
        } else if ack == self.snd_una && pkt.len == 0 && !pkt.has(SYN) {
            let end_seq = self.tlp().end_seq;
            if end_seq != 0 && ack >= end_seq && !new_sack_info {
                // RFC 8985 §7.4.2: a duplicate ACK at or past the probe's end with no SACK
                // news: the original and the probe both arrived, nothing was lost.
                self.end_tlp_episode();
            }
            if self.snd_max > self.snd_una {
                self.on_duplicate_ack(now, ece, out);
            }
        }
        if self.in_recovery && self.p.sack && self.p.recovery == Recovery::Prr {
            // RFC 6937 §3 DeliveredData: the change in snd_una plus in SACKed bytes.
            let delivered = (self.snd_una - una_before + self.sacked.bytes()).saturating_sub(sacked_before);
            self.prr_on_ack(delivered);
        }
        if self.timeout_pending {
            self.timeout_episode_on_ack(now, pkt, una_before, sacked_before);
        }
    }

    /// A duplicate ACK (RFC 5681 §2) with data outstanding.
    fn on_duplicate_ack(&mut self, now: Time, ece: bool, out: &mut Vec<Segment>) {
        if ece && !self.in_recovery && self.snd_una > self.cwr_guard {
            self.cut_for_ecn(now); // once per window, as for new data
        }
        self.dupacks += 1;
        if self.in_recovery {
            if !self.p.sack {
                self.cc.win.cwnd += self.mss(); // RFC 6582 §3.2 step 4, inflate: a segment has left the network
            }
        } else if (self.dupacks >= self.dupthresh() as u32 || (self.p.sack && self.is_lost(self.snd_una))) && self.snd_una >= self.recover {
            self.enter_fast_recovery(now, out);
        }
    }

    /// RFC 6937 §3, on every ACK in recovery: cwnd = pipe + sndcnt, where sndcnt follows
    /// what was delivered, in proportion ssthresh/RecoverFS while pipe > ssthresh, then
    /// slow-start reduction bound (PRR-SSRB) up to ssthresh. Whole segments, as Linux counts.
    fn prr_on_ack(&mut self, delivered: u64) {
        let mss = self.p.mss as u64;
        let pipe = self.pipe();
        let ssthresh = self.cc.win.ssthresh as u64;
        let Some(l) = self.loss.as_deref_mut() else { return };
        let prr = &mut l.prr;
        prr.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            // CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out
            let target = (prr.delivered as u128 * ssthresh as u128).div_ceil(prr.recover_fs.max(1) as u128);
            ((target as u64).div_ceil(mss) * mss).saturating_sub(prr.out)
        } else {
            // PRR-SSRB: MIN(ssthresh − pipe, MAX(prr_delivered − prr_out, DeliveredData) + MSS)
            let limit = prr.delivered.saturating_sub(prr.out).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        };
        self.cc.win.cwnd = (pipe + sndcnt) as f64;
    }

    /// RFC 8985 §7.4.2 (Linux `tcp_process_tlp_ack`): an ACK past the probe's end ends the
    /// episode; if the probe resent the tail, it repaired a loss and the window is reduced as
    /// for a loss in the flight the probe saw, once. (An ACK exactly at the end leaves the
    /// episode pending; a later duplicate ACK with nothing new ends it without a reduction.)
    fn end_probe_episode(&mut self, now: Time) {
        let tlp = self.tlp();
        if tlp.is_retrans && !self.in_recovery && self.snd_una > self.cwr_guard {
            let view = ConnView {
                flight: tlp.flight,
                ..self.reduction_view(tlp.flight)
            };
            self.cc.on_recovery_start(now, &view);
            self.cwr_guard = self.snd_max;
        }
        self.end_tlp_episode();
    }

    /// The tail loss probe's state (all zero for a stack without it).
    #[inline]
    fn tlp(&self) -> Tlp {
        self.loss.as_ref().map_or(Tlp::default(), |l| l.tlp)
    }

    /// No probe episode is open any more.
    fn end_tlp_episode(&mut self) {
        if let Some(l) = self.loss.as_deref_mut() {
            l.tlp.end_seq = 0;
        }
    }

    /// Data sent, for PRR's prr_out.
    #[inline]
    fn count_prr_out(&mut self, len: u32) {
        if let Some(l) = self.loss.as_deref_mut() {
            l.prr.out += len as u64;
        }
    }

    /// DupThresh, lowered by early retransmit (RFC 5827 §3.1) when fewer than 4 segments are
    /// out and no new segment can be sent: to the segments out minus one.
    fn dupthresh(&self) -> u64 {
        let dupthresh = self.p.dupthresh as u64;
        if !self.p.early_retransmit || self.snd_max < self.app_end.min(self.snd_una + self.peer_rwnd) {
            return dupthresh;
        }
        let out = (self.snd_max - self.snd_una).div_ceil(self.p.mss as u64);
        if out < 4 {
            dupthresh.min(out.saturating_sub(1).max(1))
        } else {
            dupthresh
        }
    }

    /// The ECN-Echo response the once-per-window guard let through (RFC 3168 §6.1.2): the
    /// controller reduces, the guard closes until snd_una passes snd_nxt, and the next new
    /// segment carries CWR.
    #[inline]
    fn cut_for_ecn(&mut self, now: Time) {
        self.cc.on_ecn_echo(now, &self.reduction_view(self.snd_max - self.snd_una));
        self.cwr_guard = self.snd_nxt;
        self.send_cwr = true;
        self.events().ecn_reductions += 1;
    }

    /// RFC 7661 §4.3: an application-limited sender still grows cwnd while the window is
    /// validated, pipe ≥ cwnd/2 (pipe = what was in flight when this ACK arrived, counted in
    /// segments as Linux's `tcp_is_cwnd_limited` does, so a lone short segment after a
    /// timeout still opens the window to 2 segments).
    /// Or, per `tcp.cwnd_validation`, current Linux's or Linux 2.6's rule, or none.
    fn window_validated(&self, newly: u64) -> bool {
        let mss = self.mss();
        let flight_before = ((self.snd_max - self.snd_una + newly) as f64 / mss).ceil() * mss;
        match self.p.cwnd_validation {
            CwndValidation::Rfc7661 => 2.0 * flight_before >= self.cc.win.cwnd,
            // Linux ≥ 3.16 tcp_is_cwnd_limited: in slow start while cwnd < 2·max_packets_out;
            // in congestion avoidance only a cwnd-limited sender (the caller's check) grows.
            CwndValidation::Linux => self.cc.win.in_slow_start() && 2.0 * flight_before > self.cc.win.cwnd,
            CwndValidation::MaxBurst => self.cc.win.cwnd - flight_before <= 3.0 * mss,
            CwndValidation::CwndLimited => false, // only the caller's cwnd-limited check (ns-3)
            CwndValidation::Off => true,
        }
    }

    /// Three duplicate ACKs: RFC 6582 §3.2 step 2, or RFC 6675 §5 step 4 with SACK.
    fn enter_fast_recovery(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.p.sack {
            self.high_rxt = self.snd_una; // nothing retransmitted yet in this recovery (RFC 6675 §5 step 4.1's pipe)
        }
        // The controller sets ssthresh and cwnd (RFC 6582 step 2 / RFC 6675 §5 step 4.2).
        let view = self.reduction_view(self.snd_max - self.snd_una);
        self.cc.on_recovery_start(now, &view);
        self.end_tlp_episode(); // recovery takes over from a probe's episode
        if self.p.sack {
            // RFC 6675: no inflation, the pipe is counted.
            // RFC 6937 §3: prr_delivered = prr_out = 0, RecoverFS = FlightSize, or the stack's
            // reduction base (Linux's prior_cwnd, ns-3's pipe at entry).
            let recover_fs = view.reduce_from;
            if let Some(l) = self.loss.as_deref_mut() {
                l.prr = Prr {
                    recover_fs,
                    ..Prr::default()
                };
            }
        } else {
            // RFC 6582 §3.2 step 2: inflate by the three segments that left the network.
            self.cc.win.cwnd += 3.0 * self.mss();
        }
        self.recover = self.snd_max;
        self.cwr_guard = self.snd_max; // one reduction per window, loss or ECN (RFC 3168 §6.1.2)
        self.in_recovery = true;
        self.events().fast_retransmits += 1;
        self.retransmit_head(now, out);
        // RFC 6675 §5 (4.3): "To prevent ... a premature rescue retransmission, set both
        // HighRxt and RescueRxt to the highest sequence number in the retransmitted segment."
        self.rescue_rxt = self.high_rxt;
        self.arm_rto(now);
    }

    fn retransmit_head(&mut self, now: Time, out: &mut Vec<Segment>) {
        let end = self.sacked.ranges().first().map_or(self.snd_max, |&(a, _)| a).min(self.snd_max);
        let len = end.saturating_sub(self.snd_una).min(self.p.mss as u64) as u32;
        if len > 0 {
            self.retransmit(now, self.snd_una, len, out);
        }
    }

    fn retransmit(&mut self, now: Time, seq: u64, len: u32, out: &mut Vec<Segment>) {
        let mut flags = ACK | if self.echo_ece() { ECE } else { 0 };
        if seq + len as u64 == self.app_end {
            flags |= PSH; // a resent end of a write is still pushed (the receiver ACKs it at once)
        }
        let pkt = self.segment(now, flags | RETX, seq, len, self.control_ecn(self.p.ect_on_retransmit));
        out.push(pkt);
        self.last_ack_sent = self.rcv_nxt;
        self.high_rxt = self.high_rxt.max(seq + len as u64);
        self.count_prr_out(len);
        self.events().retransmits += 1;
        self.data_packets_sent += 1;
        self.last_send = Some(now);
        self.pace_after(now, pkt.size);
    }

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

    /// Visits the un-SACKed holes in [snd_una, snd_max) in order as (start, end, lost),
    /// until `f` returns false. RFC 6675 IsLost: a hole is lost when more than
    /// (DupThresh − 1)·SMSS bytes, or DupThresh discontiguous blocks, are SACKed above it.
    fn for_each_hole(&self, mut f: impl FnMut(u64, u64, bool) -> bool) {
        let ranges = self.sacked.ranges();
        let mut after = self.sacked.bytes();
        let mut start = self.snd_una;
        let dupthresh = self.dupthresh();
        for (i, &(a, b)) in ranges.iter().enumerate() {
            let lost = after > (dupthresh - 1) * self.p.mss as u64 || (ranges.len() - i) as u64 >= dupthresh;
            if a > start && !f(start, a, lost) {
                return;
            }
            after -= b - a;
            start = b;
        }
        if self.snd_max > start {
            f(start, self.snd_max, false);
        }
    }

    /// RFC 6675 SetPipe: un-SACKed bytes not deemed lost, plus those retransmitted.
    fn pipe(&self) -> u64 {
        let mut pipe = 0;
        self.for_each_hole(|a, b, lost| {
            if !lost {
                pipe += b - a;
            }
            if self.high_rxt > a {
                pipe += self.high_rxt.min(b) - a;
            }
            true
        });
        pipe
    }

    /// RFC 6675 NextSeg rules 1 and 3: the first un-SACKed range above HighRxt and below the
    /// highest SACKed byte, lost holes before the others.
    fn next_retransmission(&self) -> Option<(u64, u32)> {
        let highest_sacked = self.sacked.highest()?;
        let mut found: [Option<(u64, u32)>; 2] = [None, None];
        self.for_each_hole(|a, b, lost| {
            let from = a.max(self.high_rxt);
            let to = b.min(highest_sacked);
            if from < to {
                let slot = &mut found[if lost { 0 } else { 1 }];
                if slot.is_none() {
                    *slot = Some((from, (to - from).min(self.p.mss as u64) as u32));
                }
            }
            found[0].is_none()
        });
        found[0].or(found[1])
    }

    /// Sending during SACK recovery (RFC 6675 §5 step C): while cwnd − pipe ≥ 1 SMSS, send
    /// NextSeg: a lost hole, else new data, else another un-SACKed hole, else once per
    /// recovery the rescue retransmission of the highest un-SACKed segment.
    fn send_in_sack_recovery(&mut self, now: Time, out: &mut Vec<Segment>) {
        let mss = self.p.mss as u64;
        loop {
            let cwnd = self.cc.win.cwnd as u64;
            if cwnd < self.pipe() + mss || self.nic_full(out) || self.paced(now) {
                return;
            }
            let rule1 = self.next_retransmission().filter(|&(seq, _)| self.is_lost(seq));
            if let Some((seq, len)) = rule1 {
                self.retransmit(now, seq, len, out);
                continue;
            }
            let flight = self.snd_nxt - self.snd_una;
            if self.snd_nxt < self.app_end && flight + mss <= self.peer_rwnd {
                let len = (self.app_end - self.snd_nxt).min(mss) as u32;
                self.send_data(now, len, true, out);
                continue;
            }
            match self.next_retransmission() {
                Some((seq, len)) => self.retransmit(now, seq, len, out),
                None => {
                    self.rescue_retransmission(now, out);
                    return;
                }
            }
        }
    }

    /// RFC 6675 §4 NextSeg rule 4: when nothing else may be sent but un-SACKed data remains
    /// (a loss at the tail of the window), retransmit one segment ending at the highest
    /// un-SACKed byte (if not already retransmitted), once per recovery, without moving
    /// HighRxt, so the ACK clock survives.
    fn rescue_retransmission(&mut self, now: Time, out: &mut Vec<Segment>) {
        if self.snd_una <= self.rescue_rxt {
            return; // not yet HighACK > RescueRxt (HighACK = snd_una − 1, RescueRxt = end − 1)
        }
        let mut last_hole = None;
        self.for_each_hole(|a, b, _| {
            last_hole = Some((a, b));
            true
        });
        let Some((hole_start, top)) = last_hole else { return };
        // Data already retransmitted in this recovery is not rescued again.
        let start = top.saturating_sub(self.p.mss as u64).max(hole_start).max(self.high_rxt);
        if start >= top {
            return;
        }
        let high_rxt = self.high_rxt;
        self.retransmit(now, start, (top - start) as u32, out);
        self.high_rxt = high_rxt;
        // RescueRxt = RecoveryPoint: once per recovery (the full ACK ends it first).
        self.rescue_rxt = self.recover;
    }

    fn is_lost(&self, seq: u64) -> bool {
        let mut lost = false;
        self.for_each_hole(|a, b, l| {
            if a <= seq && seq < b {
                lost = l;
                return false;
            }
            true
        });
        lost
    }

    /// Sends what cwnd, the peer's window and the application allow.
    pub fn try_send(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.tx_blocked = false;
        if self.state != State::Established {
            return;
        }
        let mss = self.p.mss as u64;
        if self.p.slow_start_after_idle && self.snd_una == self.snd_max && self.snd_nxt < self.app_end {
            if let Some(last) = self.last_send {
                // RFC 5681 §4.1: new data after an idle period longer than the RTO restarts the
                // window (the stack's rule), once: the idle period is then spent.
                let (idle, rto) = (now - last, self.rtt.rto(&self.p.rto));
                if idle > rto {
                    let spell = IdleSpell { idle, rto };
                    self.cc.on_idle_restart(now, &self.view_idle(0, Some(spell)));
                    self.last_send = None;
                }
            }
        }
        if self.timeout_pending && self.episode().new_segments > 0 {
            self.send_frto_new_segments(now, out); // RFC 5682 §3.1 step 2b, then step 3
            return;
        }
        if self.p.sack && self.in_recovery {
            self.send_in_sack_recovery(now, out);
            return;
        }
        // Segmentation offload (DCTCP paper §3.5): once the window has room for a whole burst (or
        // for all that is left to send), send back to back; until then, hold new data. Never wait
        // for more than a third of the window (Linux tcp_tso_should_defer, tcp_tso_win_divisor =
        // 3): a burst the receiver's delayed ACKs cannot open would wait for their timer.
        let burst = self.p.offload_burst_segments as u64;
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
            if self.p.sack && self.snd_nxt < self.snd_max {
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
            let limited = if self.p.limited_transmit && !self.in_recovery && self.snd_nxt >= self.snd_max {
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
            self.send_data(now, len as u32, new_data, out);
        }
    }

    /// Whether the host's NIC queue has no room for another packet from this call; if so
    /// the sender waits (blocked) until the simulation reports room, as an OS does rather
    /// than dropping its own TCP segments.
    fn nic_full(&mut self, out: &[Segment]) -> bool {
        self.tx_blocked = out.len() >= self.tx_room;
        self.tx_blocked
    }

    fn send_data(&mut self, now: Time, len: u32, new_data: bool, out: &mut Vec<Segment>) {
        let seq = self.snd_nxt;
        let mut flags = ACK;
        if self.echo_ece() {
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
            if self.ecn_ok {
                Ecn::Ect
            } else {
                Ecn::NotEct
            }
        } else {
            self.events().retransmits += 1;
            flags |= RETX;
            self.control_ecn(self.p.ect_on_retransmit) // RFC 3168 §6.1.5: not ECT unless configured
        };
        let pkt = self.segment(now, flags, seq, len, ecn);
        out.push(pkt);
        self.snd_nxt += len as u64;
        self.snd_max = self.snd_max.max(self.snd_nxt);
        self.count_prr_out(len);
        self.data_packets_sent += 1;
        self.last_send = Some(now);
        self.pace_after(now, pkt.size);
        // The segment carries our cumulative ACK: no separate delayed ACK is owed.
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_segments = 0;
        self.delack_deadline = None;
        // The RTO runs from the oldest unacknowledged segment (RFC 6298 §5.1); a probe timeout
        // is rescheduled after every transmission (RFC 8985 §7.2, Linux tcp_write_xmit).
        if self.rto_deadline.is_none() || self.tlp().armed {
            self.arm_rto(now);
        }
    }

    // ------------------------------------------------------------------ receiver

    fn process_data(&mut self, now: Time, pkt: &Segment, out: &mut Vec<Segment>) {
        let ce = pkt.ecn == Ecn::Ce;
        let mut linux_extra_ack = false;
        match self.p.dctcp_receiver {
            Some(variant) => {
                // DCTCP paper Fig. 10: on a change of CE state with a delayed run pending, ACK
                // that run at once with the old state, then start a new run.
                if ce != self.ce_state {
                    if self.unacked_segments > 0 {
                        self.send_ack(now, self.ce_state, out);
                    }
                    linux_extra_ack = variant == DctcpReceiver::Linux;
                }
                self.ce_state = ce;
            }
            None if self.ecn_ok => {
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
            self.send_ack(now, self.echo_ece(), out); // old duplicate: re-ACK at once
            return;
        }
        if start > self.rcv_nxt {
            self.ooo.insert(start, end); // and its start, first of the next SACK blocks
            self.send_ack(now, self.echo_ece(), out); // RFC 5681 §4.2: dup ACK at once
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
            self.autotune_buffer(now, pkt);
        }
        self.unacked_segments += 1;
        // A segment that fills the advertised window is ACKed at once: the sender can send
        // nothing more until it hears from us, and an application that reads at once reopens
        // the window (RFC 1122 §4.2.3.3 window update; Linux tcp_cleanup_rbuf). Without it a
        // 1-MSS window waits out the delayed-ACK timer on every segment (ICTCP §VII-A-2).
        let window_full = self.rcv_nxt >= self.advertised_edge;
        if filled_hole || pkt.has(PSH) || window_full || linux_extra_ack || self.unacked_segments >= self.p.delack_segments {
            self.send_ack(now, self.echo_ece(), out);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + self.p.delack_timeout);
        }
    }

    fn send_ack(&mut self, now: Time, ece: bool, out: &mut Vec<Segment>) {
        let flags = ACK | if ece { ECE } else { 0 };
        out.push(self.segment(now, flags, self.snd_nxt, 0, self.control_ecn(self.p.ect_on_ack)));
        self.last_ack_sent = self.rcv_nxt;
        self.unacked_segments = 0;
        self.delack_deadline = None;
    }

    // ------------------------------------------------------------------ timers

    /// The delayed-ACK timer expired.
    pub fn on_delack_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.delack_deadline = None;
        if self.unacked_segments > 0 {
            self.send_ack(now, self.echo_ece(), out);
        }
    }

    /// When a data segment held by the pacing rate may leave: the simulation then calls
    /// `on_pace_timer`.
    pub fn pace_deadline(&self) -> Option<Time> {
        self.pace_waiting.then_some(self.next_send)
    }

    /// The pacing deadline passed: send what the window allows.
    pub fn on_pace_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.pace_waiting = false;
        self.try_send(now, out);
    }

    /// The retransmission timer expired (RFC 6298 §5.4–5.6; the controller's response, by
    /// default RFC 5681 §3.1 eq. 4 and the loss window).
    pub fn on_rto_timer(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.rto_deadline = None;
        if self.loss.as_deref_mut().is_some_and(|l| std::mem::take(&mut l.tlp.armed)) {
            if self.state == State::Established && self.snd_una < self.snd_max {
                self.send_probe(now, out);
            }
            return;
        }
        match self.state {
            // RFC 6298 §5.5 backoff; Linux gives up after `tcp_syn_retries` resends.
            State::SynSent if self.counters().syn_retries >= self.p.syn_retries as u64 => self.state = State::Failed,
            State::SynSent => {
                self.events().syn_retries += 1;
                self.rtt.backoff += 1;
                self.send_syn(now, out);
            }
            // Linux drops the half-open request; a later SYN from the peer starts afresh.
            State::SynRcvd if self.synack_resends as u32 >= self.p.synack_retries => {
                self.state = State::Listen;
                self.synack_resends = 0;
                self.rtt.backoff = 0;
            }
            State::SynRcvd => {
                self.synack_resends += 1;
                self.rtt.backoff += 1;
                self.send_syn_ack(now, out);
            }
            State::Established if self.snd_una < self.snd_max => {
                self.events().timeouts += 1;
                self.open_timeout_episode(now); // before the controller changes cwnd and ssthresh
                self.end_tlp_episode();
                if self.holds_ssthresh_at_timeout() {
                    self.cc.win.cwnd = self.mss(); // the loss window only (RFC 5681 §3.1)
                } else {
                    self.cc.on_rto(now, &self.reduction_view(self.snd_max - self.snd_una));
                }
                self.in_recovery = false;
                self.dupacks = 0;
                self.recover = self.snd_max;
                self.cwr_guard = self.snd_max;
                self.snd_nxt = self.snd_una; // go back N
                self.rtt.backoff += 1;
                self.try_send(now, out);
                self.arm_rto(now);
            }
            _ => {}
        }
    }

    /// Whether this timeout leaves ssthresh as it is. RFC 5681 §3.1: once "the given segment has
    /// already been retransmitted by way of the retransmission timer at least once, the value
    /// of ssthresh is held constant" (ns-3 too); Linux's tcp_enter_loss also keeps it when the
    /// timeout falls in a loss recovery; ns-2's timeout() halves window() every time.
    fn holds_ssthresh_at_timeout(&self) -> bool {
        let repeated = self.episode().timeouts > 1; // the same data timed out again
        match self.p.ssthresh_from {
            SsthreshFrom::Window => false,
            SsthreshFrom::Cwnd => repeated || self.in_recovery,
            SsthreshFrom::FlightSize | SsthreshFrom::Pipe => repeated,
        }
    }

    /// A data timeout: it opens an episode to be classified by the ACK that follows it, or
    /// joins the open one if the same data timed out again; with `tcp.frto`, F-RTO starts
    /// (RFC 5682 §3.1 step 1). The caller then resends the first unacknowledged segment: the
    /// controller's loss window is one segment (and go-back-N continues from there unless
    /// F-RTO takes over at the next ACK).
    fn open_timeout_episode(&mut self, now: Time) {
        let ep = self.episode();
        // RFC 5682 §3.1 step 1: if RecoveryPoint ≥ SND.UNA (a loss recovery, fast or by
        // timeout, is underway), no step 2: conventional RTO recovery (RecoveryPoint is set
        // to the highest sequence sent by the caller). A timeout in step 2 goes back to step 1
        // ("If the retransmission timeout expires again, go to step 1"), with SND.UNA unmoved.
        let recovering = self.in_recovery || self.snd_una < self.recover;
        let frto = self.p.frto && (ep.frto == Frto::Step2 || !recovering);
        let flight = (self.snd_max - self.snd_una) as f64;
        let (ssthresh, srtt, rttvar, g) = (self.cc.win.ssthresh, self.rtt.srtt, self.rtt.rttvar, self.p.rto.tick);
        let (una, retransmit_ts) = (self.snd_una, now + TS_OFFSET);
        let e = self.events.get_or_insert_with(Box::default);
        let number = e.k.timeouts;
        let ep = &mut e.episode;
        if ep.timeouts > 0 && ep.una == una && ep.frto != Frto::Step3 {
            // The same data timed out again: RetransmitTS stays that of the first retransmission
            // (RFC 3522 §3.2) and the state saved for the response is not saved again (RFC
            // 4015 §3.1: not reinitiated upon subsequent timeouts for the same segment).
            ep.timeouts += 1;
        } else {
            // A timeout in F-RTO's step 3 ends its detection without a spurious verdict.
            e.close_episode(false);
            e.episode = TimeoutEpisode {
                timeouts: 1,
                first: number,
                una,
                retransmit_ts,
                ..TimeoutEpisode::default()
            };
            if frto {
                // RFC 4015 §3.1 step (0), before cwnd and ssthresh change: pipe_prev <-
                // max(FlightSize, ssthresh), SRTT_prev <- SRTT + 2·G, RTTVAR_prev <- RTTVAR
                // (G, the clock granularity: the timer tick).
                e.episode.pipe_prev = flight.max(ssthresh);
                e.episode.srtt_prev = srtt.map(|s| s + 2 * g);
                e.episode.rttvar_prev = rttvar;
            }
        }
        let ep = &mut e.episode;
        // RFC 5682 §3.1 step 1: retransmit the first unacknowledged segment (the caller) and
        // set SpuriousRecovery to FALSE (the episode has no verdict yet); then step 2.
        // Following RFC 2018 the step also resets the SACK scoreboard; the engine keeps it,
        // as its conventional RTO recovery does (RFC 6675 §5.1 allows it; receivers here
        // never renege), so step 3 compares against what was SACKed before.
        ep.frto = if frto { Frto::Step2 } else { Frto::Off };
        ep.new_segments = 0;
        ep.adapt_rtt_above = 0; // a new timeout: a pending RTT adaptation is moot
        self.timeout_pending = true;
    }

    /// After an ACK while a timeout episode is open (or its response pending): the
    /// classification (RFC 3522 §3.2 without F-RTO), F-RTO's steps 2 and 3 (RFC 5682 §3.1)
    /// and the Eifel response to a spurious timeout (RFC 4015 §3.1). `una_before` and
    /// `sacked_before`: snd_una and the SACKed bytes before this ACK.
    fn timeout_episode_on_ack(&mut self, now: Time, pkt: &Segment, una_before: u64, sacked_before: u64) {
        let ep = self.episode();
        let ack = pkt.ack;
        let advanced = self.snd_una > una_before;
        if ep.adapt_rtt_above != 0 && advanced && ack > ep.adapt_rtt_above && pkt.ts_ecr != Time::ZERO {
            // RFC 4015 §3.1, adapting the retransmission timer after a spurious timeout: on
            // the first RTT sample of data sent after the detection, SRTT <- max(SRTT_prev,
            // RTT-SAMPLE), RTTVAR <- max(RTTVAR_prev, RTT-SAMPLE/2); the timer restarts.
            let r = now + TS_OFFSET - pkt.ts_ecr;
            self.rtt.srtt = Some(ep.srtt_prev.map_or(r, |s| s.max(r)));
            self.rtt.rttvar = ep.rttvar_prev.max(r / 2);
            self.episode_mut().adapt_rtt_above = 0;
            if self.snd_una < self.snd_max {
                self.arm_rto(now);
            }
        }
        if ep.timeouts > 0 {
            // The acceptable ACK's evidence (RFC 3522 §3.2): the timeout was spurious if the ACK
            // echoes a timestamp older than RetransmitTS, i.e. the original transmission
            // arrived. It classifies every timeout F-RTO does not decide: F-RTO off, a timeout
            // it does not run for (during loss recovery) and its fallbacks at step 2.
            let by_timestamps = advanced && pkt.ts_ecr != Time::ZERO && pkt.ts_ecr < ep.retransmit_ts;
            match ep.frto {
                Frto::Off => {
                    if advanced {
                        self.close_timeout_episode(by_timestamps);
                    }
                }
                Frto::Step2 => self.frto_step2(advanced, by_timestamps),
                Frto::Step3 => {
                    let duplicate = ack == una_before && pkt.len == 0 && !pkt.has(SYN) && self.snd_max > self.snd_una;
                    if advanced || duplicate {
                        let ece = self.ecn_ok && pkt.has(ECE);
                        self.frto_step3(advanced, sacked_before, una_before, ece);
                    } // RFC 5682 §3.1 step 3: other ACKs are ignored without any action
                }
            }
        }
        let ep = self.episode();
        self.timeout_pending = ep.timeouts > 0 || ep.adapt_rtt_above != 0;
    }

    /// F-RTO's step 2 (RFC 5682 §3.1): on the first new ACK after the timeout.
    /// `by_timestamps`: the ACK's timestamp evidence, which classifies a fallback.
    fn frto_step2(&mut self, advanced: bool, by_timestamps: bool) {
        if !advanced {
            // RFC 5682 §3.1 step 2: duplicate ACKs before the cumulative ACK of the
            // retransmission only update the scoreboard (done); stay in step 2.
            return;
        }
        // RFC 5682 §3.1 step 2: a new ACK: RecoveryPoint = the highest sequence sent so far.
        self.recover = self.snd_max;
        let mss = self.p.mss as u64;
        if self.snd_una >= self.recover {
            // RFC 5682 §3.1 step 2a: the ACK covers RecoveryPoint: conventional RTO recovery
            // (nothing is left to resend) with cwnd at most 2·MSS; no step 3.
            self.cc.win.cwnd = self.cc.win.cwnd.min(2.0 * self.mss());
            self.close_timeout_episode(by_timestamps);
            return;
        }
        let len = self.app_end.saturating_sub(self.snd_max).min(mss);
        if len > 0 && self.snd_max - self.snd_una + len <= self.peer_rwnd {
            // RFC 5682 §3.1 step 2b: below RecoveryPoint: transmit up to two new (previously
            // unsent) segments (`try_send`, right after this ACK), then step 3.
            self.snd_nxt = self.snd_max;
            let ep = self.episode_mut();
            ep.frto = Frto::Step3;
            ep.new_segments = 2;
        } else {
            // RFC 5682 §3.1 step 2b: no previously unsent data can be sent (the peer's
            // window, or nothing more written): conventional RTO recovery, without step 3.
            self.close_timeout_episode(by_timestamps);
        }
    }

    /// F-RTO's step 3 (RFC 5682 §3.1): the next duplicate or new cumulative ACK.
    fn frto_step3(&mut self, advanced: bool, sacked_before: u64, una_before: u64, ece: bool) {
        let beyond = self.snd_una > self.recover || self.sacked.highest().is_some_and(|h| h > self.recover);
        let news = advanced || self.sacked.bytes() > sacked_before;
        if beyond || !news {
            // RFC 5682 §3.1 step 3a: the ACK covers more than RecoveryPoint (cumulatively or
            // in its SACK blocks), or is a duplicate acknowledging nothing new below it:
            // cwnd at most 3·MSS, conventional RTO recovery resending the unacknowledged
            // segments; SpuriousRecovery stays FALSE.
            self.cc.win.cwnd = self.cc.win.cwnd.min(3.0 * self.mss());
            self.snd_nxt = self.snd_una;
            self.close_timeout_episode(false);
            return;
        }
        // RFC 5682 §3.1 step 3b: data sent before the timeout is acknowledged, nothing beyond
        // RecoveryPoint: the timeout was spurious (SpuriousRecovery = SPUR_TO). RFC 5682 §4
        // leaves the response to a response algorithm: the Eifel response (RFC 4015 §3.1).
        let ep = self.episode();
        self.close_timeout_episode(true);
        // RFC 4015 §3.1 step (8): resume the transmission with previously unsent data:
        // snd.nxt <- snd.max.
        self.snd_nxt = self.snd_max;
        if ece {
            return; // RFC 4015 §3.1 step (9): an acceptable ACK with ECN-Echo: proceed to (DONE)
        }
        // RFC 4015 §3.1 step (9): reverse the congestion control state: cwnd <- FlightSize +
        // min(bytes_acked, IW), ssthresh <- pipe_prev. (Linux's undo, tcp_try_undo_loss,
        // restores the cwnd and ssthresh of before the timeout instead.) RecoveryPoint keeps
        // its value (RFC 6675 §5.1), so no fast recovery starts below it.
        let bytes_acked = (self.snd_una - una_before) as f64;
        let iw = self.p.init_cwnd_segments as f64 * self.mss();
        self.cc.win.cwnd = (self.snd_max - self.snd_una) as f64 + bytes_acked.min(iw);
        self.cc.win.ssthresh = ep.pipe_prev;
        // RFC 4015 §3.1: the retransmission timer adapts on the first RTT sample of data
        // sent from now on.
        let snd_max = self.snd_max;
        self.episode_mut().adapt_rtt_above = snd_max;
    }

    /// The open timeout episode ends with its verdict.
    fn close_timeout_episode(&mut self, spurious: bool) {
        if let Some(e) = self.events.as_deref_mut() {
            e.close_episode(spurious);
        }
    }

    /// RFC 5682 §3.1 step 2b: the new segments, up to two, whatever cwnd says; the peer's
    /// window and what the application wrote still bound them (at least one fitted at step
    /// 2b). The host's NIC queue or the pacing rate may hold them until the next call.
    fn send_frto_new_segments(&mut self, now: Time, out: &mut Vec<Segment>) {
        let mss = self.p.mss as u64;
        while self.episode().new_segments > 0 {
            let len = self.app_end.saturating_sub(self.snd_nxt).min(mss);
            if len == 0 || self.snd_nxt - self.snd_una + len > self.peer_rwnd {
                self.episode_mut().new_segments = 0;
                return;
            }
            if self.nic_full(out) || self.paced(now) {
                return;
            }
            self.send_data(now, len as u32, true, out);
            self.episode_mut().new_segments -= 1;
        }
    }

    /// RFC 8985 §7.3: the probe timeout expired. Send one new segment if the windows allow
    /// (the peer's, not cwnd), else resend the last segment; then arm the RTO, not another PTO.
    fn send_probe(&mut self, now: Time, out: &mut Vec<Segment>) {
        self.events().tail_loss_probes += 1;
        let mss = self.p.mss as u64;
        let flight = self.snd_max - self.snd_una;
        let is_retrans = !(self.snd_nxt == self.snd_max && self.snd_nxt < self.app_end && flight + mss <= self.peer_rwnd);
        if is_retrans {
            let start = self.snd_max.saturating_sub(mss).max(self.snd_una);
            self.retransmit(now, start, (self.snd_max - start) as u32, out);
        } else {
            let len = (self.app_end - self.snd_nxt).min(mss) as u32;
            self.send_data(now, len, true, out);
        }
        let end_seq = self.snd_max;
        if let Some(l) = self.loss.as_deref_mut() {
            l.tlp = Tlp {
                armed: false,
                end_seq,
                is_retrans,
                flight,
            };
        }
        self.rto_deadline = Some(now + self.rtt.rto(&self.p.rto));
    }

    /// Receive-buffer auto-tuning after in-order data arrived (Linux `tcp_rcv_rtt_measure_ts`
    /// and `tcp_rcv_space_adjust`; the application reads everything at once).
    fn autotune_buffer(&mut self, now: Time, pkt: &Segment) {
        let mss = self.p.mss as u64;
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

    /// The receiver's RTT estimate of receive-buffer auto-tuning, if on and sampled.
    pub fn receiver_rtt(&self) -> Option<Time> {
        self.autotune.as_ref().and_then(|a| a.rtt)
    }

    /// The handshake gave up: this end sends nothing more and ignores what arrives.
    pub fn failed(&self) -> bool {
        self.state == State::Failed
    }

    pub fn ecn_negotiated(&self) -> bool {
        self.ecn_ok
    }

    /// Nothing left to do: established, everything written sent and acknowledged, no delayed
    /// ACK owed and no timer armed. Until it is written to or a segment arrives, this end
    /// sends nothing and changes nothing.
    pub fn is_done(&self) -> bool {
        self.state == State::Established
            && self.snd_una == self.snd_max
            && self.snd_max >= self.app_end
            && self.rto_deadline.is_none()
            && self.delack_deadline.is_none()
            && !self.pace_waiting
    }
}
