//! Loss recovery: fast retransmit and recovery (RFC 6582 without SACK; RFC 6675 with it, on
//! the SACK scoreboard, optionally with proportional rate reduction, RFC 6937), early
//! retransmit (RFC 5827) and the tail loss probe (RFC 8985 §7).

use super::Sender;
use crate::net::packet::Segment;
use crate::tcp::cc::ConnView;
use crate::tcp::endpoint::{Connection, TcpParams};
use crate::tcp::receiver::Receiver;
use crate::units::Time;

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
pub(super) struct LossState {
    prr: Prr,
    pub(super) tlp: Tlp,
}

/// Tail loss probe state (RFC 8985 §7).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Tlp {
    /// The RTO deadline is a probe timeout (PTO), not the RTO.
    pub(super) armed: bool,
    /// `TLP.end_seq`: snd_max when the outstanding probe was sent; 0 = no probe out.
    pub(super) end_seq: u64,
    /// `TLP.is_retrans`: the probe resent the last segment (else it sent new data).
    pub(super) is_retrans: bool,
    /// FlightSize when the probe was sent, for the reduction if it repaired a loss.
    flight: u64,
}

impl Sender {
    /// RFC 6937 §3, on every ACK in recovery: cwnd = pipe + sndcnt, where sndcnt follows
    /// what was delivered, in proportion ssthresh/RecoverFS while pipe > ssthresh, then
    /// slow-start reduction bound (PRR-SSRB) up to ssthresh. Whole segments, as Linux counts.
    pub(super) fn prr_on_ack(&mut self, p: &TcpParams, delivered: u64) {
        let mss = p.mss as u64;
        let pipe = self.pipe(p);
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
    pub(super) fn end_probe_episode(&mut self, p: &TcpParams, now: Time) {
        let tlp = self.tlp();
        if tlp.is_retrans && !self.in_recovery && self.snd_una > self.cwr_guard {
            let view = ConnView {
                flight: tlp.flight,
                ..self.reduction_view(p, tlp.flight)
            };
            self.cc.on_recovery_start(now, &view);
            self.cwr_guard = self.snd_max;
        }
        self.end_tlp_episode();
    }

    /// The tail loss probe's state (all zero for a stack without it).
    #[inline]
    pub(super) fn tlp(&self) -> Tlp {
        self.loss.as_ref().map_or(Tlp::default(), |l| l.tlp)
    }

    /// No probe episode is open any more.
    pub(super) fn end_tlp_episode(&mut self) {
        if let Some(l) = self.loss.as_deref_mut() {
            l.tlp.end_seq = 0;
        }
    }

    /// Data sent, for PRR's prr_out.
    #[inline]
    pub(super) fn count_prr_out(&mut self, len: u32) {
        if let Some(l) = self.loss.as_deref_mut() {
            l.prr.out += len as u64;
        }
    }

    /// DupThresh, lowered by early retransmit (RFC 5827 §3.1) when fewer than 4 segments are
    /// out and no new segment can be sent: to the segments out minus one.
    pub(super) fn dupthresh(&self, p: &TcpParams) -> u64 {
        let dupthresh = p.dupthresh as u64;
        if !p.early_retransmit || self.snd_max < self.app_end.min(self.snd_una + self.peer_rwnd) {
            return dupthresh;
        }
        let out = (self.snd_max - self.snd_una).div_ceil(p.mss as u64);
        if out < 4 {
            dupthresh.min(out.saturating_sub(1).max(1))
        } else {
            dupthresh
        }
    }

    /// Three duplicate ACKs: RFC 6582 §3.2 step 2, or RFC 6675 §5 step 4 with SACK.
    pub(super) fn enter_fast_recovery(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, out: &mut Vec<Segment>) {
        let p = &*c.p;
        if p.sack {
            self.high_rxt = self.snd_una; // nothing retransmitted yet in this recovery (RFC 6675 §5 step 4.1's pipe)
        }
        // The controller sets ssthresh and cwnd (RFC 6582 step 2 / RFC 6675 §5 step 4.2).
        let view = self.reduction_view(p, self.snd_max - self.snd_una);
        self.cc.on_recovery_start(now, &view);
        self.end_tlp_episode(); // recovery takes over from a probe's episode
        if p.sack {
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
            self.cc.win.cwnd += 3.0 * p.smss();
        }
        self.recover = self.snd_max;
        self.cwr_guard = self.snd_max; // one reduction per window, loss or ECN (RFC 3168 §6.1.2)
        self.in_recovery = true;
        self.events().fast_retransmits += 1;
        self.retransmit_head(c, rcv, now, out);
        // RFC 6675 §5 (4.3): "To prevent ... a premature rescue retransmission, set both
        // HighRxt and RescueRxt to the highest sequence number in the retransmitted segment."
        self.rescue_rxt = self.high_rxt;
        self.arm_rto(p, now);
    }

    pub(super) fn retransmit_head(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, out: &mut Vec<Segment>) {
        let end = self.sacked.ranges().first().map_or(self.snd_max, |&(a, _)| a).min(self.snd_max);
        let len = end.saturating_sub(self.snd_una).min(c.p.mss as u64) as u32;
        if len > 0 {
            self.retransmit(c, rcv, now, self.snd_una, len, out);
        }
    }

    /// Visits the un-SACKed holes in [snd_una, snd_max) in order as (start, end, lost),
    /// until `f` returns false. RFC 6675 IsLost: a hole is lost when more than
    /// (DupThresh − 1)·SMSS bytes, or DupThresh discontiguous blocks, are SACKed above it.
    fn for_each_hole(&self, p: &TcpParams, mut f: impl FnMut(u64, u64, bool) -> bool) {
        let ranges = self.sacked.ranges();
        let mut after = self.sacked.bytes();
        let mut start = self.snd_una;
        let dupthresh = self.dupthresh(p);
        for (i, &(a, b)) in ranges.iter().enumerate() {
            let lost = after > (dupthresh - 1) * p.mss as u64 || (ranges.len() - i) as u64 >= dupthresh;
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
    pub(super) fn pipe(&self, p: &TcpParams) -> u64 {
        let mut pipe = 0;
        self.for_each_hole(p, |a, b, lost| {
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
    fn next_retransmission(&self, p: &TcpParams) -> Option<(u64, u32)> {
        let highest_sacked = self.sacked.highest()?;
        let mut found: [Option<(u64, u32)>; 2] = [None, None];
        self.for_each_hole(p, |a, b, lost| {
            let from = a.max(self.high_rxt);
            let to = b.min(highest_sacked);
            if from < to {
                let slot = &mut found[if lost { 0 } else { 1 }];
                if slot.is_none() {
                    *slot = Some((from, (to - from).min(p.mss as u64) as u32));
                }
            }
            found[0].is_none()
        });
        found[0].or(found[1])
    }

    /// Sending during SACK recovery (RFC 6675 §5 step C): while cwnd − pipe ≥ 1 SMSS, send
    /// NextSeg: a lost hole, else new data, else another un-SACKed hole, else once per
    /// recovery the rescue retransmission of the highest un-SACKed segment.
    pub(super) fn send_in_sack_recovery(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, out: &mut Vec<Segment>) {
        let p = &*c.p;
        let mss = p.mss as u64;
        loop {
            let cwnd = self.cc.win.cwnd as u64;
            if cwnd < self.pipe(p) + mss || self.nic_full(out) || self.paced(now) {
                return;
            }
            let rule1 = self.next_retransmission(p).filter(|&(seq, _)| self.is_lost(p, seq));
            if let Some((seq, len)) = rule1 {
                self.retransmit(c, rcv, now, seq, len, out);
                continue;
            }
            let flight = self.snd_nxt - self.snd_una;
            if self.snd_nxt < self.app_end && flight + mss <= self.peer_rwnd {
                let len = (self.app_end - self.snd_nxt).min(mss) as u32;
                self.send_data(c, rcv, now, len, true, out);
                continue;
            }
            match self.next_retransmission(p) {
                Some((seq, len)) => self.retransmit(c, rcv, now, seq, len, out),
                None => {
                    self.rescue_retransmission(c, rcv, now, out);
                    return;
                }
            }
        }
    }

    /// RFC 6675 §4 NextSeg rule 4: when nothing else may be sent but un-SACKed data remains
    /// (a loss at the tail of the window), retransmit one segment ending at the highest
    /// un-SACKed byte (if not already retransmitted), once per recovery, without moving
    /// HighRxt, so the ACK clock survives.
    fn rescue_retransmission(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, out: &mut Vec<Segment>) {
        if self.snd_una <= self.rescue_rxt {
            return; // not yet HighACK > RescueRxt (HighACK = snd_una − 1, RescueRxt = end − 1)
        }
        let mut last_hole = None;
        self.for_each_hole(&c.p, |a, b, _| {
            last_hole = Some((a, b));
            true
        });
        let Some((hole_start, top)) = last_hole else { return };
        // Data already retransmitted in this recovery is not rescued again.
        let start = top.saturating_sub(c.p.mss as u64).max(hole_start).max(self.high_rxt);
        if start >= top {
            return;
        }
        let high_rxt = self.high_rxt;
        self.retransmit(c, rcv, now, start, (top - start) as u32, out);
        self.high_rxt = high_rxt;
        // RescueRxt = RecoveryPoint: once per recovery (the full ACK ends it first).
        self.rescue_rxt = self.recover;
    }

    pub(super) fn is_lost(&self, p: &TcpParams, seq: u64) -> bool {
        let mut lost = false;
        self.for_each_hole(p, |a, b, l| {
            if a <= seq && seq < b {
                lost = l;
                return false;
            }
            true
        });
        lost
    }

    /// RFC 8985 §7.2: the probe timeout when a probe may be scheduled (established, SACK,
    /// outside fast or RTO recovery, no probe out, an RTT sample): 2·SRTT plus a margin,
    /// rounded up to the tick, never beyond the RTO. (The connection is established: the
    /// handshake arms its own timer, `arm_handshake_rto`.)
    pub(super) fn probe_timeout(&self, p: &TcpParams, rto: Time) -> Option<Time> {
        if !p.tail_loss_probe
            || !p.sack
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
        let pto = if self.snd_max - self.snd_una <= p.mss as u64 {
            2 * srtt + p.rto.min
        } else {
            2 * srtt + TLP_TIMEOUT_MIN
        };
        Some(p.rto.ticked(pto).min(rto))
    }

    /// RFC 8985 §7.3: the probe timeout expired. With data outstanding, send one new segment
    /// if the windows allow (the peer's, not cwnd), else resend the last segment; then arm the
    /// RTO, not another PTO.
    pub(in crate::tcp) fn on_probe_timeout(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, out: &mut Vec<Segment>) {
        if self.snd_una >= self.snd_max {
            return;
        }
        let p = &*c.p;
        self.events().tail_loss_probes += 1;
        let mss = p.mss as u64;
        let flight = self.snd_max - self.snd_una;
        let is_retrans = !(self.snd_nxt == self.snd_max && self.snd_nxt < self.app_end && flight + mss <= self.peer_rwnd);
        if is_retrans {
            let start = self.snd_max.saturating_sub(mss).max(self.snd_una);
            self.retransmit(c, rcv, now, start, (self.snd_max - start) as u32, out);
        } else {
            let len = (self.app_end - self.snd_nxt).min(mss) as u32;
            self.send_data(c, rcv, now, len, true, out);
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
        self.rto_deadline = Some(now + self.rtt.rto(&p.rto));
    }
}
