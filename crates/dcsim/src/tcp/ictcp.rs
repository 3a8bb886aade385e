//! ICTCP: receiver-side incast congestion control (Wu et al., IEEE/ACM ToN 2013; ICTCP
//! paper §IV and §VI).
//!
//! ICTCP is a filter between a host's TCP stack and its NIC (§VI-A): it watches every packet
//! the interface receives and rewrites the receive-window field of the segments the host
//! sends. It is therefore not part of a TCP end but a receive-window policy
//! ([`super::receive_window`]): the simulation hands an [`Interface`] each
//! arriving packet ([`Interface::on_receive`]) and each departing segment
//! ([`Interface::on_send`]), and the sender's congestion control is untouched (so ICTCP
//! composes with NewReno and DCTCP alike).
//!
//! Time is divided into global slots of two sub-slots of length T (§IV-A): the first
//! measures the interface's incoming traffic and yields the quota BW_A; windows may only grow
//! in the second, against that quota. Each connection measures its throughput every RTT,
//! compares it with what its window would allow, and is judged once per control interval of
//! 2·RTT (§IV-B, §IV-C). Slots are advanced lazily at each call: no calendar events.

use super::receive_window::ReceiveWindowPolicy;
use crate::net::packet::Segment;
use crate::units::{Time, PS_PER_S};

/// ICTCP's constants, resolved from the scenario (defaults: the paper's values, §6.10).
#[derive(Debug, Clone)]
pub struct IctcpParams {
    /// Interface capacity C, bit/s.
    pub capacity_bps: f64,
    /// BW_A = max(0, α·C − BW_T) (Eq. 1, §IV-A): α = 0.9.
    pub alpha: f64,
    /// Measured-throughput filter (Eq. 2, §IV-C): β = 0.75.
    pub beta: f64,
    /// Increase when the difference ratio is ≤ γ1 = 0.1 (§IV-C).
    pub gamma1: f64,
    /// Decrease after three RTTs over γ2 = 0.5 (§IV-C).
    pub gamma2: f64,
    /// How many consecutive RTTs over γ2 cost one MSS: 3 (§IV-C "three continuous RTT").
    pub decrease_after_rtts: u32,
    /// The control interval in RTTs: 2 (§IV-B, one RTT for a change to take effect, one to
    /// measure it).
    pub control_interval_rtts: u32,
    pub mss: u32,
    /// Smallest window, segments: 2 (§IV-C, Fig. 8) or 1 (Fig. 10).
    pub min_rwnd_segments: u32,
    /// The fairness rule acts while BW_A < this fraction of C: 0.2 (§IV-D).
    pub fairness_fraction: f64,
    /// Only connections with an RTT below this are controlled: 2 ms (§III).
    pub rtt_limit: Time,
    /// Sub-slot length before any connection has an RTT (our choice, the paper does not say:
    /// 100 µs, the testbed's base RTT, §II-B).
    pub initial_subslot: Time,
    /// The receiver's timestamp clock tick: 100 ns (§VI-C).
    pub timestamp_tick: Time,
    /// A connection idle longer than max(this, two slots) restarts in slow start (§IV-C
    /// "prolonged idle"; our choice, the paper gives no threshold: this = RTO_min).
    pub idle_restart: Time,
}

/// Receive-window phase (§IV-C): double per control interval, or add at most one MSS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    SlowStart,
    CongestionAvoidance,
}

/// ICTCP's state for one connection on the interface.
#[derive(Debug, Clone)]
pub struct ConnState {
    /// The connection's key on this interface: keys are handed out in order of registration.
    key: u32,
    /// The receive window ICTCP allows, bytes.
    pub rwnd: u64,
    pub phase: Phase,
    /// Receiver-side smoothed RTT (§VI-C), None before the first sample.
    pub srtt: Option<Time>,
    /// Measured throughput b^m, bit/s (Eq. 2).
    pub measured_bps: f64,
    /// Payload bytes received since `sample_start`.
    sample_bytes: u64,
    sample_start: Time,
    /// Consecutive throughput samples with d > γ2.
    high_count: u32,
    /// Last window change (increase or decrease): the 2·RTT control interval runs from here.
    last_adjust: Time,
    /// Last payload received; None before the first.
    last_rx: Option<Time>,
    /// A throughput sample has been taken since data started (again): rules judge only then.
    sampled: bool,
    /// Cumulative ACK of the last segment sent: a decrease needs an ACK that covers ≥ 1 MSS
    /// more (never shrink the right edge, §IV-D footnote 3).
    last_ack_sent: Option<u64>,
    /// Right edge (ack + window) of the last window the host advertised, ICTCP's or, while
    /// the connection is not controlled, the stack's.
    right_edge: u64,
    /// For the sub-slot length T: payload bytes this slot, and whether RTT was updated.
    slot_bytes: u64,
    slot_rtt_updated: bool,
}

impl ConnState {
    /// Expected throughput b^e = max(b^m, rwnd/RTT), bit/s (Eq. 3); NaN before an RTT sample.
    pub fn expected_bps(&self) -> f64 {
        self.srtt.map_or(f64::NAN, |rtt| self.measured_bps.max(rate_bps(self.rwnd, rtt)))
    }
}

/// ICTCP on one network interface: the slot clock, the quota, and its connections.
#[derive(Debug, Clone)]
pub struct Interface {
    p: IctcpParams,
    /// Sub-slot length T.
    subslot: Time,
    slot_start: Time,
    in_second: bool,
    /// Bytes (all packets) received in the current first sub-slot.
    rx_bytes: u64,
    /// BW_T and BW_A of the last completed first sub-slot, bit/s.
    pub bw_t_bps: f64,
    pub bw_a_bps: f64,
    /// What is left of BW_A for increases in the current second sub-slot, bit/s.
    quota_bps: f64,
    /// The connections in the flow table, in order of registration (by key): the floating
    /// sums over them (T, §IV-B) then add up in the same order whoever has left.
    conns: Vec<ConnState>,
    next_key: u32,
    /// The latest time the slot clock was advanced to (time only moves forward).
    seen: Time,
}

fn rate_bps(bytes: u64, dt: Time) -> f64 {
    bytes as f64 * 8.0 * PS_PER_S as f64 / dt.as_ps() as f64
}

impl Interface {
    pub fn new(p: IctcpParams) -> Self {
        Interface {
            subslot: p.initial_subslot,
            slot_start: Time::ZERO,
            in_second: false,
            rx_bytes: 0,
            bw_t_bps: 0.0,
            // No traffic measured yet: all of α·C is available.
            bw_a_bps: p.alpha * p.capacity_bps,
            quota_bps: 0.0,
            conns: Vec::new(),
            next_key: 0,
            seen: Time::ZERO,
            p,
        }
    }

    /// The current sub-slot length T.
    pub fn subslot(&self) -> Time {
        self.subslot
    }

    pub fn in_second_subslot(&self) -> bool {
        self.in_second
    }

    pub fn quota_bps(&self) -> f64 {
        self.quota_bps
    }

    fn min_rwnd(&self) -> u64 {
        self.p.min_rwnd_segments as u64 * self.p.mss as u64
    }

    /// Registers a connection; returns its key. New connections start in slow start at the
    /// minimum window (our choice: the paper does not give the initial window).
    pub fn add_conn(&mut self, now: Time) -> u32 {
        let rwnd = self.min_rwnd();
        let key = self.next_key;
        self.next_key += 1;
        self.conns.push(ConnState {
            key,
            rwnd,
            phase: Phase::SlowStart,
            srtt: None,
            measured_bps: 0.0,
            sample_bytes: 0,
            sample_start: now,
            high_count: 0,
            last_adjust: now,
            last_rx: None,
            sampled: false,
            last_ack_sent: None,
            right_edge: 0,
            slot_bytes: 0,
            slot_rtt_updated: false,
        });
        key
    }

    /// Takes an ended connection out of the flow table, as the paper's driver does on FIN or
    /// RST (§VI-A); returns its last state.
    pub fn remove_conn(&mut self, key: u32) -> ConnState {
        self.conns.remove(self.index(key))
    }

    /// Connections in the flow table.
    pub fn len(&self) -> usize {
        self.conns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.conns.is_empty()
    }

    /// The state of the connection registered as `key`, while it is in the table.
    pub fn conn(&self, key: u32) -> &ConnState {
        &self.conns[self.index(key)]
    }

    /// Where connection `key` is in the table. Its caller holds a key it got from
    /// `add_conn` and has not removed (the simulation forgets a key when it removes it).
    fn index(&self, key: u32) -> usize {
        self.conns.binary_search_by_key(&key, |c| c.key).expect("a registered connection")
    }

    /// Sets a connection's window directly (tests).
    #[cfg(test)]
    pub fn set_rwnd(&mut self, conn: u32, bytes: u64) {
        let i = self.index(conn);
        self.conns[i].rwnd = bytes;
    }

    /// Whether ICTCP sets this connection's window: an RTT below the limit (§III), or no RTT
    /// yet (a new connection is presumed local: the driver is for data-centre traffic).
    fn is_controlled(&self, c: &ConnState) -> bool {
        c.srtt.is_none_or(|r| r < self.p.rtt_limit)
    }

    /// How long without data makes a connection "prolonged idle" (§IV-C).
    fn idle_limit(&self) -> Time {
        self.p.idle_restart.max(4 * self.subslot)
    }

    /// The fairness rule's average window (§IV-D, "the average window value of all
    /// connections"), over the connections ICTCP controls that are in its flow table: a
    /// measured RTT below the limit and data within the prolonged-idle limit. The paper's
    /// driver drops a connection on FIN/RST (§VI-A), as the simulation does when a connection
    /// ends (`remove_conn`); one that has not ended but is quiet beyond the idle limit (a
    /// persistent connection between queries) is not competing either (our choice).
    fn average_active_rwnd(&self, now: Time) -> f64 {
        let idle = self.idle_limit();
        let (sum, n) = self
            .conns
            .iter()
            .filter(|c| c.srtt.is_some_and(|r| r < self.p.rtt_limit) && c.last_rx.is_some_and(|t| now - t <= idle))
            .fold((0u64, 0u32), |(s, n), c| (s + c.rwnd, n + 1));
        sum as f64 / n.max(1) as f64
    }

    /// Advances the slot clock to `now` (§IV-A): the end of a first sub-slot turns its traffic
    /// into BW_T and the quota; the end of a slot resets the measurement and recomputes T.
    pub fn advance(&mut self, now: Time) {
        debug_assert!(now >= self.seen, "time went back from {} to {now}", self.seen);
        self.seen = now;
        loop {
            let first_end = self.slot_start + self.subslot;
            if !self.in_second {
                if now < first_end {
                    return;
                }
                // Eq. 1: BW_A = max(0, α·C − BW_T); the quota for the second sub-slot.
                self.bw_t_bps = rate_bps(self.rx_bytes, self.subslot);
                self.bw_a_bps = (self.p.alpha * self.p.capacity_bps - self.bw_t_bps).max(0.0);
                self.quota_bps = self.bw_a_bps;
                self.in_second = true;
                // §IV-B: T's weights are the traffic of "the last time period T", the second
                // sub-slot by the time T is recomputed at the slot's end.
                for c in &mut self.conns {
                    c.slot_bytes = 0;
                    c.slot_rtt_updated = false;
                }
            }
            let slot_end = first_end + self.subslot;
            if now < slot_end {
                return;
            }
            self.end_slot(slot_end);
            // Whole slots without traffic: nothing to measure, T unchanged; jump over them.
            let len = 2 * self.subslot;
            if now >= self.slot_start + len {
                let skip = (now - self.slot_start) / len - 1;
                self.slot_start += skip * len;
            }
        }
    }

    fn end_slot(&mut self, slot_end: Time) {
        // §IV-B: T = Σ w_i·RTT_i, w_i the normalised traffic of the connections that
        // updated their RTT in the last period T; kept when none did (our choice, the paper
        // does not say).
        let (mut weighted, mut total) = (0.0f64, 0u64);
        for c in &mut self.conns {
            if c.slot_rtt_updated && c.slot_bytes > 0 {
                if let Some(r) = c.srtt.filter(|&r| r < self.p.rtt_limit) {
                    weighted += c.slot_bytes as f64 * r.as_ps() as f64;
                    total += c.slot_bytes;
                }
            }
            c.slot_bytes = 0;
            c.slot_rtt_updated = false;
        }
        if total > 0 {
            self.subslot = Time::from_ps_f64(weighted / total as f64).max(Time::from_ps(1));
        }
        self.slot_start = slot_end;
        self.in_second = false;
        self.rx_bytes = 0;
        self.quota_bps = 0.0;
    }

    /// A packet of `size` bytes arrives on the interface; `conn` is its ICTCP connection if it
    /// belongs to one this host receives on. All packets count in BW_T (§IV-A); payload and the
    /// echoed timestamp feed the connection's throughput and RTT.
    pub fn on_receive(&mut self, now: Time, size: u32, conn: Option<u32>, payload: u32, ts_ecr: Time) {
        self.advance(now);
        self.rx_bytes += size as u64;
        let Some(key) = conn.filter(|_| payload > 0) else { return };
        let idle_limit = self.idle_limit();
        let tick = self.p.timestamp_tick.max(Time::from_ps(1));
        let i = self.index(key);
        let c = &mut self.conns[i];
        if c.last_rx.is_none_or(|t| now - t > idle_limit) {
            // §IV-C: "A newly established or prolonged idle connection is initiated in the
            // slow start phase"; its throughput is measured from its first data on.
            c.phase = Phase::SlowStart;
            c.sample_start = now;
            c.sample_bytes = 0;
            c.high_count = 0;
            c.sampled = false;
        }
        c.last_rx = Some(now);
        c.sample_bytes += payload as u64;
        c.slot_bytes += payload as u64;
        if ts_ecr != Time::ZERO {
            // §VI-C: the sender echoes the TSval of our ACK in the data it sends in reply;
            // the receiver's clock ticks every 100 ns. Exponential filter, gain 1/8 (the paper
            // gives none; ours is RFC 6298's).
            // Saturating only as a guard: the echo is a TSval this host sent, never after now + 1.
            let ticks = ((now + super::endpoint::TS_OFFSET) / tick).saturating_sub(ts_ecr / tick);
            let sample = ticks.max(1) * tick;
            c.srtt = Some(match c.srtt {
                None => sample,
                // s + (sample − s)/8, the eighth rounded towards zero either way.
                Some(s) if sample >= s => s + (sample - s) / 8,
                Some(s) => s - (s - sample) / 8,
            });
            c.slot_rtt_updated = true;
        }
    }

    /// A segment of connection `conn` leaves the host: run the window rules (§IV-C, §IV-D)
    /// and write the window into it, never above the stack's own (§VI-A).
    pub fn on_send(&mut self, now: Time, conn: u32, pkt: &mut Segment) {
        self.advance(now);
        let i = self.index(conn);
        let covered = match self.conns[i].last_ack_sent {
            Some(a) => pkt.ack.saturating_sub(a),
            None => 0,
        };
        self.conns[i].last_ack_sent = Some(pkt.ack);
        if self.is_controlled(&self.conns[i]) {
            if let Some(rtt) = self.conns[i].srtt {
                self.control(now, i, rtt, covered);
            }
            // Never move the right edge left (§IV-D footnote 3): the rules cut one MSS only on
            // an ACK covering one, so this binds only when a connection returns under control
            // after the stack advertised a larger window; the edge then stays until covered.
            let keep = self.conns[i].right_edge.saturating_sub(pkt.ack);
            // The minimum is at most pkt.rwnd, a u32.
            pkt.rwnd = (pkt.rwnd as u64).min(self.conns[i].rwnd.max(keep)) as u32;
        } // else §III: connections with an RTT of 2 ms or more are left alone
        let c = &mut self.conns[i];
        c.right_edge = c.right_edge.max(pkt.ack + pkt.rwnd as u64);
    }

    /// The difference ratio d = (b^e − b^m)/b^e with b^e = max(b^m, rwnd/RTT) (Eqs. 3-4).
    pub fn difference_ratio(measured_bps: f64, rwnd: u64, rtt: Time) -> f64 {
        let expected = measured_bps.max(rate_bps(rwnd, rtt));
        if expected <= 0.0 {
            return 1.0;
        }
        (expected - measured_bps) / expected
    }

    /// Eq. 2: b^m ← max(b^s, β·b^m + (1 − β)·b^s).
    pub fn filter_throughput(measured_bps: f64, sample_bps: f64, beta: f64) -> f64 {
        sample_bps.max(beta * measured_bps + (1.0 - beta) * sample_bps)
    }

    fn control(&mut self, now: Time, i: usize, rtt: Time, covered: u64) {
        let (mss, min_rwnd) = (self.p.mss as u64, self.min_rwnd());
        let (beta, gamma1, gamma2) = (self.p.beta, self.p.gamma1, self.p.gamma2);
        // §IV-D fairness: while BW_A < 0.2·C, a window above the average of the competing
        // connections loses one MSS. At most once per control interval (our choice, the paper
        // gives no frequency), the same interval as an increase: a window just raised is
        // measured before it is judged (§IV-B).
        let short = self.bw_a_bps < self.p.fairness_fraction * self.p.capacity_bps;
        let unfair = short && (self.conns[i].rwnd as f64) > self.average_active_rwnd(now);
        let c = &mut self.conns[i];
        // §IV-C: one throughput sample per RTT, filtered (Eq. 2); d > γ2 is counted per RTT.
        if now - c.sample_start >= rtt {
            let sample = rate_bps(c.sample_bytes, now - c.sample_start);
            c.measured_bps = Self::filter_throughput(c.measured_bps, sample, beta);
            c.sample_bytes = 0;
            c.sample_start = now;
            c.sampled = true;
            let d = Self::difference_ratio(c.measured_bps, c.rwnd, rtt);
            c.high_count = if d > gamma2 { c.high_count + 1 } else { 0 };
        }
        let (persist, interval) = (self.p.decrease_after_rtts, self.p.control_interval_rtts as u64);
        let d = Self::difference_ratio(c.measured_bps, c.rwnd, rtt);
        if !c.sampled {
            // Nothing measured since data started: no judgement yet.
        } else if c.high_count >= persist {
            // Rule 2 (§IV-C): d > γ2 for three RTTs in a row costs one MSS, down to the
            // minimum window ("the minimal receive window is 2MSS"), on an ACK that newly covers
            // ≥ 1 MSS (never shrink, footnote 3).
            c.phase = Phase::CongestionAvoidance;
            if covered >= mss && c.rwnd > min_rwnd {
                c.rwnd = (c.rwnd - mss).max(min_rwnd);
                c.last_adjust = now;
                c.high_count = 0;
            }
        } else if now - c.last_adjust >= interval * rtt {
            // A window is judged once it has had one RTT to take effect and one to be measured
            // (§IV-B).
            if unfair {
                if covered >= mss && c.rwnd > min_rwnd {
                    c.rwnd = (c.rwnd - mss).max(min_rwnd);
                    c.last_adjust = now;
                }
            } else if d <= gamma1 || d <= mss as f64 / c.rwnd as f64 {
                // Rule 1 (§IV-C; d ≤ MSS/rwnd: footnote 2): increase, only in the second
                // sub-slot and against the quota, first come first served (§IV-A).
                if self.in_second {
                    // §IV-C: slow start doubles the window, congestion avoidance adds one MSS.
                    let delta = match c.phase {
                        Phase::SlowStart => c.rwnd,
                        Phase::CongestionAvoidance => mss,
                    };
                    let need = rate_bps(delta, rtt);
                    if self.quota_bps >= need {
                        c.rwnd += delta;
                        self.quota_bps -= need;
                        c.last_adjust = now;
                    } else {
                        // §IV-C: "not enough quota" moves the connection to congestion avoidance.
                        c.phase = Phase::CongestionAvoidance;
                    }
                }
            } else {
                c.phase = Phase::CongestionAvoidance; // rules 2 (not yet 3 RTTs) and 3: keep
            }
        }
    }
}

/// ICTCP as a host's receive-window policy: its driver sees every packet the interface
/// receives and rewrites the window of every segment the host sends (§VI-A).
impl ReceiveWindowPolicy for Interface {
    fn add_conn(&mut self, now: Time) -> u32 {
        Interface::add_conn(self, now)
    }

    fn remove_conn(&mut self, key: u32) {
        Interface::remove_conn(self, key);
    }

    #[inline]
    fn on_receive(&mut self, now: Time, size: u32, conn: Option<u32>, payload: u32, ts_ecr: Time) {
        Interface::on_receive(self, now, size, conn, payload, ts_ecr);
    }

    #[inline]
    fn on_send(&mut self, now: Time, conn: u32, pkt: &mut Segment) {
        Interface::on_send(self, now, conn, pkt);
    }

    fn len(&self) -> usize {
        Interface::len(self)
    }
}
