//! ACK processing: the window the peer offers, its SACK blocks, the RTT sample, ECN-Echo
//! (RFC 3168 §6.1.2), the controller's growth, and the duplicate ACKs that start loss
//! recovery (RFC 5681 §3.2); with the views of the connection the controller is told.

use super::Sender;
use crate::net::packet::{Segment, ECE, SYN};
use crate::tcp::cc::{Ack, ConnView, IdleSpell};
use crate::tcp::endpoint::{Connection, TcpParams, TS_OFFSET};
use crate::tcp::options::{CwndValidation, Recovery, SsthreshFrom};
use crate::tcp::receiver::Receiver;
use crate::units::Time;

impl Sender {
    /// The ACK field of a segment from the peer (with its window, SACK blocks and ECN-Echo).
    pub(in crate::tcp) fn on_ack(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, pkt: &Segment, out: &mut Vec<Segment>) {
        let p = &*c.p;
        let ack = pkt.ack;
        if ack > self.snd_max {
            return; // acknowledges data never sent
        }
        let (una_before, sacked_before) = (self.snd_una, self.sacked.bytes());
        self.peer_rwnd = pkt.rwnd as u64;
        let ece = c.ecn_ok && pkt.has(ECE);
        if ece {
            self.events().ece_acks += 1;
        }
        if p.sack {
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
            self.cc.on_ack(now, &sample, &self.view(p, newly));
            // `tcp.cwnd_clamp`: growth stops at the largest window the peer can advertise.
            let most = before.max(p.cwnd_clamp);
            if self.cc.win.cwnd > most {
                self.cc.win.cwnd = most;
            }
            if self.in_recovery {
                if ack >= self.recover {
                    // The full ACK ends recovery (RFC 6582 §3.2 step 3, RFC 6675 §5).
                    self.in_recovery = false;
                    self.dupacks = 0;
                    self.cc.on_recovery_end(now, &self.view(p, 0));
                    if p.sack && p.recovery == Recovery::Prr {
                        self.cc.win.cwnd = self.cc.win.ssthresh; // on exiting recovery, as Linux tcp_end_cwnd_reduction
                    }
                } else if !p.sack {
                    // Partial ACK: retransmit the next hole, deflate by the amount acked, add
                    // back one SMSS, and restart the timer (RFC 6582 §3.2 step 3).
                    self.retransmit_head(c, rcv, now, out);
                    let mss = p.smss();
                    self.cc.win.cwnd = (self.cc.win.cwnd - newly as f64 + mss).max(mss);
                }
            } else {
                self.dupacks = 0;
                if ecn_cut {
                    self.cut_for_ecn(p, now);
                }
            }
            let tlp = self.tlp();
            if tlp.end_seq != 0 && (ack > tlp.end_seq || (ack == tlp.end_seq && !tlp.is_retrans)) {
                self.end_probe_episode(p, now);
            }
            if self.snd_una < self.snd_max {
                self.arm_rto(p, now);
            } else {
                self.rto_deadline = None;
            }
            if p.early_retransmit
                && p.sack
                && new_sack_info
                && !self.in_recovery
                && self.snd_una >= self.recover
                && self.is_lost(p, self.snd_una)
            {
                // Linux's loss detection runs on every ACK that brings SACK information, not
                // only on duplicates (tcp_ack_is_dubious → tcp_time_to_recover): a cumulative
                // ACK whose SACKs show the next hole lost starts recovery at once.
                self.enter_fast_recovery(c, rcv, now, out);
            }
        } else if ack == self.snd_una && pkt.len == 0 && !pkt.has(SYN) {
            let end_seq = self.tlp().end_seq;
            if end_seq != 0 && ack >= end_seq && !new_sack_info {
                // RFC 8985 §7.4.2: a duplicate ACK at or past the probe's end with no SACK
                // news: the original and the probe both arrived, nothing was lost.
                self.end_tlp_episode();
            }
            if self.snd_max > self.snd_una {
                self.on_duplicate_ack(c, rcv, now, ece, out);
            }
        }
        if self.in_recovery && p.sack && p.recovery == Recovery::Prr {
            // RFC 6937 §3 DeliveredData: the change in snd_una plus in SACKed bytes.
            let delivered = (self.snd_una - una_before + self.sacked.bytes()).saturating_sub(sacked_before);
            self.prr_on_ack(p, delivered);
        }
        if self.timeout_pending {
            self.timeout_episode_on_ack(c, now, pkt, una_before, sacked_before);
        }
    }

    /// A duplicate ACK (RFC 5681 §2) with data outstanding.
    fn on_duplicate_ack(&mut self, c: &Connection, rcv: &mut Receiver, now: Time, ece: bool, out: &mut Vec<Segment>) {
        let p = &*c.p;
        if ece && !self.in_recovery && self.snd_una > self.cwr_guard {
            self.cut_for_ecn(p, now); // once per window, as for new data
        }
        self.dupacks += 1;
        if self.in_recovery {
            if !p.sack {
                self.cc.win.cwnd += p.smss(); // RFC 6582 §3.2 step 4, inflate: a segment has left the network
            }
        } else if (self.dupacks >= self.dupthresh(p) as u32 || (p.sack && self.is_lost(p, self.snd_una))) && self.snd_una >= self.recover {
            self.enter_fast_recovery(c, rcv, now, out);
        }
    }

    /// The ECN-Echo response the once-per-window guard let through (RFC 3168 §6.1.2): the
    /// controller reduces, the guard closes until snd_una passes snd_nxt, and the next new
    /// segment carries CWR.
    #[inline]
    fn cut_for_ecn(&mut self, p: &TcpParams, now: Time) {
        self.cc.on_ecn_echo(now, &self.reduction_view(p, self.snd_max - self.snd_una));
        self.cwr_guard = self.snd_nxt;
        self.send_cwr = true;
        self.events().ecn_reductions += 1;
    }

    /// The facts the controller is told, `newly` bytes having just been acknowledged.
    #[inline]
    pub(super) fn view(&self, p: &TcpParams, newly: u64) -> ConnView {
        self.view_idle(p, newly, None)
    }

    #[inline]
    pub(super) fn view_idle(&self, p: &TcpParams, newly: u64, idle: Option<IdleSpell>) -> ConnView {
        ConnView {
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            mss: p.smss(),
            iw: p.init_cwnd_segments as f64 * p.smss(),
            flight: self.snd_max - self.snd_una,
            reduce_from: self.snd_max - self.snd_una,
            srtt: self.rtt.srtt,
            in_recovery: self.in_recovery,
            cwnd_limited: self.cwnd_limited,
            idle,
            window_validated: self.cwnd_limited || self.window_validated(p, newly),
        }
    }

    /// The view for a reduction (loss, timeout or ECN-Echo): `reduce_from` is what the stack
    /// computes ssthresh from (`tcp.ssthresh_from`), with `flight` standing for FlightSize
    /// where the caller knows better (a tail loss probe's flight when it was sent).
    pub(super) fn reduction_view(&self, p: &TcpParams, flight: u64) -> ConnView {
        let cwnd = self.cc.win.cwnd as u64;
        let reduce_from = match p.ssthresh_from {
            SsthreshFrom::FlightSize => flight,
            SsthreshFrom::Pipe => self.pipe(p),
            SsthreshFrom::Cwnd => cwnd,
            SsthreshFrom::Window => cwnd.min(p.rcv_buffer), // ns-2's wnd_: the window the receiver is configured with
        };
        ConnView {
            reduce_from,
            ..self.view(p, 0)
        }
    }

    /// RFC 7661 §4.3: an application-limited sender still grows cwnd while the window is
    /// validated, pipe ≥ cwnd/2 (pipe = what was in flight when this ACK arrived, counted in
    /// segments as Linux's `tcp_is_cwnd_limited` does, so a lone short segment after a
    /// timeout still opens the window to 2 segments).
    /// Or, per `tcp.cwnd_validation`, current Linux's or Linux 2.6's rule, or none.
    fn window_validated(&self, p: &TcpParams, newly: u64) -> bool {
        let mss = p.smss();
        let flight_before = ((self.snd_max - self.snd_una + newly) as f64 / mss).ceil() * mss;
        match p.cwnd_validation {
            CwndValidation::Rfc7661 => 2.0 * flight_before >= self.cc.win.cwnd,
            // Linux ≥ 3.16 tcp_is_cwnd_limited: in slow start while cwnd < 2·max_packets_out;
            // in congestion avoidance only a cwnd-limited sender (the caller's check) grows.
            CwndValidation::Linux => self.cc.win.in_slow_start() && 2.0 * flight_before > self.cc.win.cwnd,
            CwndValidation::MaxBurst => self.cc.win.cwnd - flight_before <= 3.0 * mss,
            CwndValidation::CwndLimited => false, // only the caller's cwnd-limited check (ns-3)
            CwndValidation::Off => true,
        }
    }

    pub(super) fn take_rtt_sample(&mut self, now: Time, pkt: &Segment) -> Option<Time> {
        if pkt.ts_ecr == Time::ZERO {
            return None;
        }
        // RFC 7323 RTTM: the echoed timestamp of the segment this ACK answers.
        let r = now + TS_OFFSET - pkt.ts_ecr;
        self.rtt.on_sample(r);
        Some(r)
    }
}
