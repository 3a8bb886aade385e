//! The retransmission timer and what follows a timeout: the backoff and go-back-N (RFC 6298
//! §5), the classification of each timeout as spurious or not (the Eifel detection, RFC 3522,
//! or F-RTO, RFC 5682), the Eifel response to a spurious one (RFC 4015), and the counters of
//! these rarer events.

use super::Sender;
use crate::net::packet::{Segment, ECE, SYN};
use crate::tcp::endpoint::{Connection, TcpParams, TS_OFFSET};
use crate::tcp::options::SsthreshFrom;
use crate::tcp::receiver::Receiver;
use crate::units::Time;

/// What an end has counted (`Endpoint::counters`).
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
pub(super) struct TimeoutEpisode {
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
    pub(super) new_segments: u8,
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
pub(super) struct Events {
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

impl Sender {
    /// What this end has counted so far.
    pub(in crate::tcp) fn counters(&self) -> EndpointCounters {
        let events = self.events.as_deref().map(|e| e.k).unwrap_or_default();
        EndpointCounters {
            data_packets_sent: self.data_packets_sent,
            ..events
        }
    }

    /// The counters of rarer events, made at the first.
    pub(super) fn events(&mut self) -> &mut EndpointCounters {
        &mut self.events.get_or_insert_with(Box::default).k
    }

    /// Retransmission timeouts classified so far, spurious or not: those numbered 1 to this
    /// (the ACK after a timeout classifies it, so the latest may still wait).
    pub(in crate::tcp) fn timeouts_classified(&self) -> u64 {
        self.events.as_ref().map_or(0, |e| e.classified)
    }

    /// Of this end's retransmission timeouts numbered 1 to `n`, those classified spurious (one
    /// not classified yet counts as not).
    pub(in crate::tcp) fn spurious_among_first(&self, n: u64) -> u64 {
        self.events.as_ref().map_or(0, |e| e.spurious_among_first(n))
    }

    /// The open timeout episode (all zero when none).
    #[inline]
    pub(super) fn episode(&self) -> TimeoutEpisode {
        self.events.as_ref().map_or(TimeoutEpisode::default(), |e| e.episode)
    }

    #[inline]
    fn episode_mut(&mut self) -> &mut TimeoutEpisode {
        &mut self.events.get_or_insert_with(Box::default).episode
    }

    /// The invariant-checking mode's test of the timeouts: every timeout is classified once
    /// (the spurious ones are among those classified, which are numbered before those of the
    /// open episode), and F-RTO runs only when on.
    pub(in crate::tcp) fn check_timeouts(&self, p: &TcpParams) -> Result<(), String> {
        if let Some(e) = self.events.as_deref() {
            let (k, ep) = (&e.k, &e.episode);
            let open_ok = ep.timeouts == 0 || ep.first == e.classified + 1;
            let counted = e.spurious_among_first(e.classified);
            if !(k.spurious_timeouts == counted && counted <= e.classified && e.classified + ep.timeouts == k.timeouts && open_ok)
                || (ep.frto != Frto::Off && !p.frto)
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

    /// Arms the retransmission timer, or with a tail loss probe due, the probe timeout.
    pub(super) fn arm_rto(&mut self, p: &TcpParams, now: Time) {
        let rto = self.rtt.rto(&p.rto);
        let pto = self.probe_timeout(p, rto);
        if let Some(l) = self.loss.as_deref_mut() {
            l.tlp.armed = pto.is_some();
        }
        self.rto_deadline = Some(now + pto.unwrap_or(rto));
    }

    /// The retransmission timer expired: it is disarmed, and this says whether it was the
    /// tail loss probe's timeout (then disarmed too).
    pub(in crate::tcp) fn take_rto_timer(&mut self) -> bool {
        self.rto_deadline = None;
        self.loss.as_deref_mut().is_some_and(|l| std::mem::take(&mut l.tlp.armed))
    }

    /// A SYN or SYN-ACK timed out: it is resent (RFC 6298 §5.5 backoff).
    pub(in crate::tcp) fn on_handshake_timeout(&mut self) {
        self.rtt.backoff += 1;
    }

    /// A SYN timed out (`counters().syn_retries`).
    pub(in crate::tcp) fn count_syn_retry(&mut self) {
        self.events().syn_retries += 1;
    }

    /// A half-open connection gave up: the next handshake starts without backoff.
    pub(in crate::tcp) fn reset_backoff(&mut self) {
        self.rtt.backoff = 0;
    }

    /// The retransmission timer expired with the connection established (RFC 6298 §5.4–5.6;
    /// the controller's response, by default RFC 5681 §3.1 eq. 4 and the loss window): with
    /// data outstanding, the window falls, the timer backs off and the first unacknowledged
    /// segment is resent (go-back-N).
    pub(in crate::tcp) fn on_rto_timer(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, out: &mut Vec<Segment>) {
        if self.snd_una >= self.snd_max {
            return;
        }
        let p = &*c.p;
        self.events().timeouts += 1;
        self.open_timeout_episode(p, now); // before the controller changes cwnd and ssthresh
        self.end_tlp_episode();
        if self.holds_ssthresh_at_timeout(p) {
            self.cc.win.cwnd = p.smss(); // the loss window only (RFC 5681 §3.1)
        } else {
            self.cc.on_rto(now, &self.reduction_view(p, self.snd_max - self.snd_una));
        }
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.snd_max;
        self.cwr_guard = self.snd_max;
        self.snd_nxt = self.snd_una; // go back N
        self.rtt.backoff += 1;
        self.try_send(c, rcv, now, out);
        self.arm_rto(p, now);
    }

    /// Whether this timeout leaves ssthresh as it is. RFC 5681 §3.1: once "the given segment has
    /// already been retransmitted by way of the retransmission timer at least once, the value
    /// of ssthresh is held constant" (ns-3 too); Linux's tcp_enter_loss also keeps it when the
    /// timeout falls in a loss recovery; ns-2's timeout() halves window() every time.
    fn holds_ssthresh_at_timeout(&self, p: &TcpParams) -> bool {
        let repeated = self.episode().timeouts > 1; // the same data timed out again
        match p.ssthresh_from {
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
    fn open_timeout_episode(&mut self, p: &TcpParams, now: Time) {
        let ep = self.episode();
        // RFC 5682 §3.1 step 1: if RecoveryPoint ≥ SND.UNA (a loss recovery, fast or by
        // timeout, is underway), no step 2: conventional RTO recovery (RecoveryPoint is set
        // to the highest sequence sent by the caller). A timeout in step 2 goes back to step 1
        // ("If the retransmission timeout expires again, go to step 1"), with SND.UNA unmoved.
        let recovering = self.in_recovery || self.snd_una < self.recover;
        let frto = p.frto && (ep.frto == Frto::Step2 || !recovering);
        let flight = (self.snd_max - self.snd_una) as f64;
        let (ssthresh, srtt, rttvar, g) = (self.cc.win.ssthresh, self.rtt.srtt, self.rtt.rttvar, p.rto.tick);
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
    pub(super) fn timeout_episode_on_ack(&mut self, c: &Connection, now: Time, pkt: &Segment, una_before: u64, sacked_before: u64) {
        let p = &*c.p;
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
                self.arm_rto(p, now);
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
                Frto::Step2 => self.frto_step2(p, advanced, by_timestamps),
                Frto::Step3 => {
                    let duplicate = ack == una_before && pkt.len == 0 && !pkt.has(SYN) && self.snd_max > self.snd_una;
                    if advanced || duplicate {
                        let ece = c.ecn_ok && pkt.has(ECE);
                        self.frto_step3(p, advanced, sacked_before, una_before, ece);
                    } // RFC 5682 §3.1 step 3: other ACKs are ignored without any action
                }
            }
        }
        let ep = self.episode();
        self.timeout_pending = ep.timeouts > 0 || ep.adapt_rtt_above != 0;
    }

    /// F-RTO's step 2 (RFC 5682 §3.1): on the first new ACK after the timeout.
    /// `by_timestamps`: the ACK's timestamp evidence, which classifies a fallback.
    fn frto_step2(&mut self, p: &TcpParams, advanced: bool, by_timestamps: bool) {
        if !advanced {
            // RFC 5682 §3.1 step 2: duplicate ACKs before the cumulative ACK of the
            // retransmission only update the scoreboard (done); stay in step 2.
            return;
        }
        // RFC 5682 §3.1 step 2: a new ACK: RecoveryPoint = the highest sequence sent so far.
        self.recover = self.snd_max;
        let mss = p.mss as u64;
        if self.snd_una >= self.recover {
            // RFC 5682 §3.1 step 2a: the ACK covers RecoveryPoint: conventional RTO recovery
            // (nothing is left to resend) with cwnd at most 2·MSS; no step 3.
            self.cc.win.cwnd = self.cc.win.cwnd.min(2.0 * p.smss());
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
    fn frto_step3(&mut self, p: &TcpParams, advanced: bool, sacked_before: u64, una_before: u64, ece: bool) {
        let beyond = self.snd_una > self.recover || self.sacked.highest().is_some_and(|h| h > self.recover);
        let news = advanced || self.sacked.bytes() > sacked_before;
        if beyond || !news {
            // RFC 5682 §3.1 step 3a: the ACK covers more than RecoveryPoint (cumulatively or
            // in its SACK blocks), or is a duplicate acknowledging nothing new below it:
            // cwnd at most 3·MSS, conventional RTO recovery resending the unacknowledged
            // segments; SpuriousRecovery stays FALSE.
            self.cc.win.cwnd = self.cc.win.cwnd.min(3.0 * p.smss());
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
        let iw = p.init_cwnd_segments as f64 * p.smss();
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
    pub(super) fn send_frto_new_segments(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, out: &mut Vec<Segment>) {
        let mss = c.p.mss as u64;
        while self.episode().new_segments > 0 {
            let len = self.app_end.saturating_sub(self.snd_nxt).min(mss);
            if len == 0 || self.snd_nxt - self.snd_una + len > self.peer_rwnd {
                self.episode_mut().new_segments = 0;
                return;
            }
            if self.nic_full(out) || self.paced(now) {
                return;
            }
            self.send_data(c, rcv, now, len as u32, true, out);
            self.episode_mut().new_segments -= 1;
        }
    }
}
