//! Operation models of every queue discipline, AQM and buffer policy (proptest): random
//! sequences of what a switch port meets (packets offered: data up to a 9000-B MTU,
//! retransmissions, pure ACKs, SYNs and SYN-ACKs, not ECT, ECT or already CE, of any class;
//! time passing within a transmission, to the very picosecond of the next event, and long
//! idles up to a second; the link finishing each transmission; packets reaching the peer), in
//! the order the simulation produces them. Each model drives the real code and keeps its own
//! books: which packets each queue holds, when each starts, leaves and reaches the peer,
//! which a limit must refuse, what each AQM decides, what every counter must read.
//!
//! After every step, for the FIFO fast path (drop-tail, threshold, RED) and for class queues
//! under strict priority and DRR (each class with its own limits, dynamic share and AQM:
//! drop-tail, threshold on arrival or at dequeue, RED, PI):
//! - a packet is refused exactly when the port's or its class's limit or share would be
//!   exceeded, and otherwise only by its AQM; packets are conserved (offered = admitted +
//!   refused; admitted = sent + dropped at dequeue + held); the occupancy in packets and bytes
//!   is the sum of the packets held and within every limit; `Port::check_invariants` holds;
//! - each packet starts when the model's scheduler (FIFO, strict priority, or Shreedhar and
//!   Varghese's DRR) says, ends one serialisation time later and reaches the peer `delay`
//!   after, in order; only ECN-capable packets are marked; every port and class counter is the
//!   model's and the class counters sum to the port's; the time-weighted occupancy, ∫bytes·dt
//!   and busy time (`Port::close`) are those of the model's intervals;
//! - the threshold marks exactly above K (strictly: `aqm::Threshold`, "Mark CE iff the
//!   instantaneous queue exceeds K packets", DCTCP §3.1), K = 0 included; RED's average is the
//!   model's EWMA (with the idle decay), finite and within [0, the largest queue it saw], p_b
//!   and p_a in [0, 1], and it signals when p_b ≥ 1 or p_a reaches 1; PI's probability follows
//!   its difference equation sample by sample, in [0, 1]; RED's and PI's random verdicts are
//!   the model's (it draws from the port's stream where they do); a packet that is not ECT
//!   is never marked (dropped, or enqueued as `nonect` says).
//!
//! For a switch's shared memory, with FIFO and class-queue ports drawing from it: `used` is
//! the bytes the ports hold, never above `total`; `max_used` is the most ever held; `admit`
//! refuses exactly when the pool or the dynamic threshold (alpha × free, hand-computed in
//! exact arithmetic, asked at and either side of each boundary) would be exceeded;
//! `SharedBuffer::check_invariants` holds.
//!
//! These models found that a class's byte limit and dynamic share left out the class's
//! packet in service (while its packet limit and the port's bytes counted it), so a class
//! could hold its byte limit plus one packet, and that the shared memory's threshold counted
//! another class's packet in service as the arriving class's. Fixed in `qdisc` and `port`.
//!
//! `make test` runs proptest's default 256 sequences per model; `PROPTEST_CASES=N` more.

use std::collections::VecDeque;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::aqm::{self, Aqm, Verdict};
use super::buffer::{Refusal, SharedBuffer};
use super::packet::{Ecn, Packet, ACK, PSH, RETX, SYN};
use super::port::{Offer, Port, PortCounters};
use super::qdisc::{ClassCounters, ClassQueue, Classes, Classify, Discipline, Drr, QueueDisc, Scheduler};
use crate::scenario::NonEctPolicy;
use crate::units::{Bytes, Rate, Time};

// ---------------------------------------------------------------------------------------
// What is generated: packets, links, AQMs, classes, operations.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Data,
    Retx,
    PureAck,
    Syn,
    SynAck,
}

/// A packet to offer.
#[derive(Debug, Clone, Copy)]
struct PktGen {
    kind: Kind,
    /// IP bytes (payload + 40 B of headers).
    size: u16,
    ecn: Ecn,
    /// The class its host gave it (`Classify::Flow`); past the last class on purpose.
    class: u8,
}

fn pkt_gen() -> impl Strategy<Value = PktGen> {
    (
        prop_oneof![
            6 => Just(Kind::Data),
            1 => Just(Kind::Retx),
            2 => Just(Kind::PureAck),
            1 => Just(Kind::Syn),
            1 => Just(Kind::SynAck),
        ],
        prop_oneof![4 => Just(1500u16), 4 => 41u16..=1500, 1 => 1501u16..=9000],
        prop_oneof![3 => Just(Ecn::NotEct), 6 => Just(Ecn::Ect), 1 => Just(Ecn::Ce)],
        0u8..=7,
    )
        .prop_map(|(kind, size, ecn, class)| {
            let control = matches!(kind, Kind::PureAck | Kind::Syn | Kind::SynAck);
            let size = if control { 40 + size % 25 } else { size };
            PktGen { kind, size, ecn, class }
        })
}

fn packet(g: &PktGen, id: u32) -> Packet {
    let (flags, len) = match g.kind {
        Kind::Data => (ACK | PSH, g.size - 40),
        Kind::Retx => (ACK | RETX, g.size - 40),
        Kind::PureAck => (ACK, 0),
        Kind::Syn => (SYN, 0),
        Kind::SynAck => (SYN | ACK, 0),
    };
    Packet {
        conn: id,
        src: 0,
        dst: 1,
        header: id,
        size: g.size,
        len,
        from_end: 0,
        flags,
        ecn: g.ecn,
        class: g.class,
    }
}

/// An egress link and its port buffer.
#[derive(Debug, Clone)]
struct LinkCfg {
    /// 1, 10, 25, 40 or 100 Gbps: 8000 / gbps ps per byte, exactly.
    gbps: u64,
    framing: u64,
    delay: Time,
    limit_packets: u32,
    limit_bytes: Option<u64>,
    /// The measurement window starts this many eighths of a full-size transmission in.
    window_eighths: u64,
}

impl LinkCfg {
    /// Serialisation time of a frame of `bytes`, by hand: 8 bits at `gbps` bits per ns.
    fn tx(&self, bytes: u64) -> Time {
        Time::from_ps(bytes * (8_000 / self.gbps))
    }

    /// A full-size (1500-B) packet's transmission time: the model's unit of time.
    fn unit(&self) -> Time {
        self.tx(1500 + self.framing)
    }

    fn window_start(&self) -> Time {
        Time::from_ps(self.unit().as_ps() * self.window_eighths / 8)
    }

    fn limit_bytes(&self) -> u64 {
        self.limit_bytes.unwrap_or(u64::MAX)
    }

    fn port(&self, aqm: Aqm) -> Port {
        Port::new(
            "model".into(),
            crate::ids::NodeId(0),
            crate::ids::NodeId(1),
            true,
            Rate::from_gbps(self.gbps as f64),
            self.delay,
            Bytes::new(self.framing),
            self.limit_packets,
            Bytes::new(self.limit_bytes()),
            aqm,
        )
    }
}

fn link(max_packets: u32) -> impl Strategy<Value = LinkCfg> {
    (
        prop::sample::select(vec![1u64, 10, 25, 40, 100]),
        prop_oneof![Just(0u64), Just(38), 0u64..=38],
        prop_oneof![Just(0u64), 0u64..=5_000_000],
        1u32..=max_packets,
        prop::option::of(1_500u64..=20_000),
        prop_oneof![Just(0u64), 0u64..=160],
    )
        .prop_map(|(gbps, framing, delay_ps, limit_packets, limit_bytes, window_eighths)| LinkCfg {
            gbps,
            framing,
            delay: Time::from_ps(delay_ps),
            limit_packets,
            limit_bytes,
            window_eighths,
        })
}

#[derive(Debug, Clone)]
enum AqmCfg {
    DropTail,
    Threshold {
        k: u32,
        drop_nonect: bool,
        count_in_service: bool,
        at_dequeue: bool,
    },
    Red {
        min_th: f64,
        max_th: f64,
        max_p: f64,
        weight_log2: u32,
        ecn: bool,
        gentle: bool,
        seed: u64,
    },
    Pi {
        a: f64,
        b: f64,
        q_ref: f64,
        period: Time,
        ecn: bool,
        seed: u64,
    },
}

impl AqmCfg {
    fn build(&self, typical: Time) -> Aqm {
        match *self {
            AqmCfg::DropTail => Aqm::DropTail,
            AqmCfg::Threshold {
                k,
                drop_nonect,
                count_in_service,
                at_dequeue,
            } => Aqm::Threshold(aqm::Threshold {
                k_packets: k,
                nonect: if drop_nonect { NonEctPolicy::Drop } else { NonEctPolicy::Enqueue },
                count_in_service,
                at_dequeue,
            }),
            AqmCfg::Red {
                min_th,
                max_th,
                max_p,
                weight_log2,
                ecn,
                gentle,
                seed,
            } => Aqm::Red(Box::new(aqm::Red::new(
                min_th,
                max_th,
                max_p,
                weight_log2,
                ecn,
                gentle,
                typical,
                ChaCha8Rng::seed_from_u64(seed),
            ))),
            AqmCfg::Pi {
                a,
                b,
                q_ref,
                period,
                ecn,
                seed,
            } => Aqm::Pi(Box::new(aqm::Pi::new(a, b, q_ref, period, ecn, ChaCha8Rng::seed_from_u64(seed)))),
        }
    }

    fn model(&self, typical: Time) -> AqmModel {
        match *self {
            AqmCfg::DropTail => AqmModel::DropTail,
            AqmCfg::Threshold {
                k,
                drop_nonect,
                count_in_service,
                at_dequeue,
            } => AqmModel::Threshold {
                k,
                drop_nonect,
                count_in_service,
                at_dequeue,
            },
            AqmCfg::Red {
                min_th,
                max_th,
                max_p,
                weight_log2,
                ecn,
                gentle,
                seed,
            } => AqmModel::Red(RedModel {
                min_th,
                max_th,
                max_p,
                w: 1.0 / (1u64 << weight_log2) as f64,
                ecn,
                gentle,
                typical_ps: typical.as_ps().max(1),
                avg: 0.0,
                count: -1,
                max_seen: 0,
                rng: ChaCha8Rng::seed_from_u64(seed),
            }),
            AqmCfg::Pi {
                a,
                b,
                q_ref,
                period,
                ecn,
                seed,
            } => AqmModel::Pi(PiModel::new(a, b, q_ref, period, ecn, seed)),
        }
    }
}

fn threshold_cfg(at_dequeue: impl Strategy<Value = bool>) -> impl Strategy<Value = AqmCfg> {
    (prop_oneof![Just(0u32), 0u32..=10], any::<bool>(), any::<bool>(), at_dequeue).prop_map(
        |(k, drop_nonect, count_in_service, at_dequeue)| AqmCfg::Threshold {
            k,
            drop_nonect,
            count_in_service,
            at_dequeue,
        },
    )
}

/// RED sized for the models' queues (a few packets): thresholds in quarter packets.
fn red_cfg() -> impl Strategy<Value = AqmCfg> {
    (
        0u32..=24,
        0u32..=32,
        prop_oneof![Just(0.0), Just(0.1), Just(1.0), 0.0..=1.0f64],
        prop::sample::select(vec![0u32, 1, 2, 3, 9, 30]),
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(|(min4, span4, max_p, weight_log2, ecn, gentle, seed)| AqmCfg::Red {
            min_th: min4 as f64 / 4.0,
            max_th: (min4 + span4) as f64 / 4.0,
            max_p,
            weight_log2,
            ecn,
            gentle,
            seed,
        })
}

fn pi_cfg(max_coeff: f64, periods_ps: std::ops::RangeInclusive<u64>) -> impl Strategy<Value = AqmCfg> {
    (
        prop_oneof![0.0..=max_coeff, 0.0..=1e-3],
        prop_oneof![0.0..=max_coeff, 0.0..=1e-3],
        0u32..=24,
        periods_ps,
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(|(a, b, q4, period, ecn, seed)| AqmCfg::Pi {
            a,
            b,
            q_ref: q4 as f64 / 4.0,
            period: Time::from_ps(period),
            ecn,
            seed,
        })
}

/// An AQM a FIFO port may have (one that acts on arrival).
fn arrival_aqm() -> impl Strategy<Value = AqmCfg> {
    prop_oneof![
        1 => Just(AqmCfg::DropTail),
        2 => threshold_cfg(Just(false)),
        2 => red_cfg(),
    ]
}

/// An AQM a class queue may have.
fn any_aqm() -> impl Strategy<Value = AqmCfg> {
    prop_oneof![
        1 => Just(AqmCfg::DropTail),
        2 => threshold_cfg(any::<bool>()),
        2 => red_cfg(),
        2 => pi_cfg(0.5, 100_000..=20_000_000),
    ]
}

#[derive(Debug, Clone)]
enum Op {
    Offer(PktGen),
    /// Time passes: this many eighths of a full-size transmission.
    Advance {
        eighths: u64,
    },
    /// A long idle, µs (up to a second).
    Idle {
        us: u64,
    },
    /// Time moves to the port's next event (a transmission ending, a packet reaching the
    /// peer) and stops there, before it: what comes next ties with it.
    Next,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => pkt_gen().prop_map(Op::Offer),
        4 => (0u64..=24).prop_map(|eighths| Op::Advance { eighths }),
        1 => (100u64..=1_000_000).prop_map(|us| Op::Idle { us }),
        2 => Just(Op::Next),
    ]
}

// ---------------------------------------------------------------------------------------
// AQM models.

/// Verdict sets, as bits.
const ENQ: u8 = 1;
const MARK: u8 = 2;
const DROP: u8 = 4;

fn bit(v: Verdict) -> u8 {
    match v {
        Verdict::Enqueue => ENQ,
        Verdict::Mark => MARK,
        Verdict::Drop => DROP,
    }
}

/// How an AQM that wants to signal congestion treats `ecn` (RFC 3168 §7: it marks only what
/// is ECN-capable, and drops the rest).
fn signal(ecn: Ecn, ecn_on: bool) -> u8 {
    if ecn_on && ecn != Ecn::NotEct {
        MARK
    } else {
        DROP
    }
}

/// A uniform draw from `rng` signals (`sig`) below `p`, else the packet is enqueued; a draw
/// within 1e-12 of `p` allows both.
fn draw(rng: &mut ChaCha8Rng, p: f64, sig: u8) -> u8 {
    let u: f64 = rng.gen();
    if (u - p).abs() < 1e-12 {
        ENQ | sig
    } else if u < p {
        sig
    } else {
        ENQ
    }
}

/// DCTCP's threshold (aqm.rs `Threshold`: "Mark CE iff the instantaneous queue exceeds K
/// packets"; port.rs `offer`: "if occupancy > K mark"): strictly above K; a packet that
/// cannot be marked is dropped or enqueued as `nonect` says.
fn threshold_rule(k: u32, drop_nonect: bool, ecn: Ecn, occupancy: u32) -> u8 {
    match (occupancy > k, ecn) {
        (false, _) => ENQ,
        (true, Ecn::Ect | Ecn::Ce) => MARK,
        (true, Ecn::NotEct) if drop_nonect => DROP,
        (true, Ecn::NotEct) => ENQ,
    }
}

#[derive(Debug, Clone)]
enum AqmModel {
    DropTail,
    Threshold {
        k: u32,
        drop_nonect: bool,
        count_in_service: bool,
        at_dequeue: bool,
    },
    Red(RedModel),
    Pi(PiModel),
}

impl AqmModel {
    fn counts_in_service(&self) -> bool {
        match self {
            AqmModel::Threshold { count_in_service, .. } => *count_in_service,
            _ => true,
        }
    }

    fn acts_at_dequeue(&self) -> bool {
        matches!(self, AqmModel::Threshold { at_dequeue: true, .. } | AqmModel::Pi(_))
    }

    /// An arrival that passed the buffer checks, seeing `occupancy` (by the AQM's counting
    /// rule): the code's verdict `seen` must be one the model allows.
    fn arrival(
        &mut self,
        code: &Aqm,
        ecn: Ecn,
        occupancy: u32,
        now: Time,
        idle_since: Option<Time>,
        seen: Verdict,
    ) -> Result<(), TestCaseError> {
        let allowed = match self {
            AqmModel::DropTail | AqmModel::Pi(_) | AqmModel::Threshold { at_dequeue: true, .. } => ENQ,
            AqmModel::Threshold { k, drop_nonect, .. } => threshold_rule(*k, *drop_nonect, ecn, occupancy),
            AqmModel::Red(r) => {
                let Aqm::Red(code) = code else { panic!("a RED model on {code:?}") };
                r.arrival(code, ecn, occupancy, now, idle_since)?
            }
        };
        prop_assert!(
            allowed & bit(seen) != 0,
            "arrival of a {ecn:?} packet seeing {occupancy}: {seen:?}, allowed {allowed:03b} by {self:?}"
        );
        if let AqmModel::Red(r) = self {
            r.seen(seen);
        }
        Ok(())
    }

    /// The verdicts allowed for a packet leaving its queue with `behind` packets after it.
    fn departure(&mut self, code: &Aqm, ecn: Ecn, behind: u32) -> u8 {
        match self {
            AqmModel::Threshold {
                k,
                drop_nonect,
                at_dequeue: true,
                ..
            } => threshold_rule(*k, *drop_nonect, ecn, behind),
            AqmModel::Pi(m) => {
                let Aqm::Pi(code) = code else { panic!("a PI model on {code:?}") };
                // With probability p (none at 0, certain at 1): a draw of the port's stream.
                if code.p <= 0.0 {
                    ENQ
                } else {
                    draw(&mut m.rng, code.p, signal(ecn, m.ecn))
                }
            }
            _ => ENQ,
        }
    }

    /// The AQM's state at `now`, the queue holding `held` packets (in service included).
    fn check_state(&mut self, code: &Aqm, now: Time, held: u32) -> Result<(), TestCaseError> {
        match self {
            AqmModel::Red(r) => {
                let Aqm::Red(code) = code else { panic!("a RED model on {code:?}") };
                r.check(code)
            }
            AqmModel::Pi(m) => {
                let mut probe = code.clone();
                probe.observe(now, held);
                let Aqm::Pi(code) = &probe else { panic!("a PI model on {code:?}") };
                m.advance(now, held);
                m.check(code)
            }
            _ => Ok(()),
        }
    }
}

/// RED as Floyd and Jacobson give it, kept by the model: the EWMA, its idle decay, the count
/// since the last signal.
#[derive(Debug, Clone)]
struct RedModel {
    min_th: f64,
    max_th: f64,
    max_p: f64,
    w: f64,
    ecn: bool,
    gentle: bool,
    typical_ps: u64,
    avg: f64,
    count: i64,
    max_seen: u32,
    /// The port's random stream for this AQM (the same seed): the model draws where RED
    /// does, so it knows each random verdict.
    rng: ChaCha8Rng,
}

impl RedModel {
    /// p_b: 0 below min_th, a line from 0 to max_p up to max_th, then (gentle) a line from
    /// max_p to 1 up to 2·max_th, then 1.
    fn p_b(&self, avg: f64) -> f64 {
        let line = |x0: f64, x1: f64, y0: f64, y1: f64| y0 + (y1 - y0) * ((avg - x0) / (x1 - x0));
        if avg < self.min_th {
            0.0
        } else if avg < self.max_th {
            line(self.min_th, self.max_th, 0.0, self.max_p)
        } else if self.gentle && avg < 2.0 * self.max_th {
            line(self.max_th, 2.0 * self.max_th, self.max_p, 1.0)
        } else {
            1.0
        }
    }

    fn arrival(&mut self, code: &aqm::Red, ecn: Ecn, occupancy: u32, now: Time, idle_since: Option<Time>) -> Result<u8, TestCaseError> {
        self.max_seen = self.max_seen.max(occupancy);
        let expect = match idle_since {
            Some(since) if occupancy == 0 => {
                // m typical transmissions of idle count as m arrivals to an empty queue, plus this one.
                let m = ((now - since).as_ps() / self.typical_ps).min(i32::MAX as u64 - 1);
                self.avg * (1.0 - self.w).powf((m + 1) as f64)
            }
            _ => self.avg + self.w * (occupancy as f64 - self.avg),
        };
        let avg = code.avg;
        prop_assert!(
            (avg - expect).abs() <= 1e-9 * expect.abs().max(1.0),
            "RED average {avg}, the model's {expect} (occupancy {occupancy}, idle since {idle_since:?}, now {now:?})"
        );
        self.avg = avg;
        self.check(code)?;
        let p_b = code.base_probability(avg);
        let by_hand = self.p_b(avg);
        prop_assert!(
            (0.0..=1.0).contains(&p_b) && (p_b - by_hand).abs() <= 1e-12,
            "RED p_b({avg}) = {p_b}, by hand {by_hand}"
        );
        let sig = signal(ecn, self.ecn);
        Ok(if p_b <= 0.0 {
            self.count = -1;
            ENQ
        } else if p_b >= 1.0 {
            self.count = 0;
            sig
        } else {
            // p_a = p_b / (1 − count·p_b), the count of arrivals since the last signal: certain
            // once count·p_b reaches 1 − p_b. A uniform draw below p_a signals.
            self.count += 1;
            let denom = 1.0 - self.count as f64 * p_b;
            let p_a = if denom <= 0.0 { 1.0 } else { (p_b / denom).min(1.0) };
            prop_assert!(p_a > 0.0 && p_a <= 1.0, "RED p_a = {p_a} (p_b {p_b}, count {})", self.count);
            draw(&mut self.rng, p_a, sig)
        })
    }

    fn seen(&mut self, v: Verdict) {
        if v != Verdict::Enqueue {
            self.count = 0;
        }
    }

    fn check(&self, code: &aqm::Red) -> Result<(), TestCaseError> {
        let avg = code.avg;
        prop_assert!(
            avg.is_finite() && avg >= 0.0 && avg <= self.max_seen as f64 * (1.0 + 1e-12),
            "RED average {avg} outside [0, {}]",
            self.max_seen
        );
        prop_assert!(avg == self.avg, "RED average {avg} moved without an arrival (model {})", self.avg);
        Ok(())
    }
}

/// PI as Hollot et al. give it, one sample at a time: every period T,
/// p ← clamp(p + a·(q − q_ref) − b·(q_old − q_ref), 0, 1).
#[derive(Debug, Clone)]
struct PiModel {
    a: f64,
    b: f64,
    q_ref: f64,
    period: u64,
    ecn: bool,
    p: f64,
    q_old: f64,
    next: u64,
    /// The port's random stream for this AQM (see `RedModel::rng`).
    rng: ChaCha8Rng,
}

impl PiModel {
    fn new(a: f64, b: f64, q_ref: f64, period: Time, ecn: bool, seed: u64) -> Self {
        let period = period.as_ps().max(1);
        PiModel {
            a,
            b,
            q_ref,
            period,
            ecn,
            p: 0.0,
            q_old: 0.0,
            next: period,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// Every sample due by `now`, the queue having held `q` packets since the last call.
    fn advance(&mut self, now: Time, q: u32) {
        let (now, q) = (now.as_ps(), q as f64);
        let mut samples = 0u32;
        while self.next <= now {
            if samples >= 1 {
                // From the second sample on, q_old = q: each adds d = (a − b)(q − q_ref). Once
                // p is pinned at a bound d pushes against (or d = 0) the rest change nothing;
                // past 10,000 samples the rest are added at once (the sum of a constant).
                let d = (self.a - self.b) * (q - self.q_ref);
                let rest = (now - self.next) / self.period + 1;
                if d == 0.0 || (d < 0.0 && self.p == 0.0) || (d > 0.0 && self.p == 1.0) || samples >= 10_000 {
                    self.p = (self.p + rest as f64 * d).clamp(0.0, 1.0);
                    self.next += rest * self.period;
                    break;
                }
            }
            self.p = (self.p + self.a * (q - self.q_ref) - self.b * (self.q_old - self.q_ref)).clamp(0.0, 1.0);
            self.q_old = q;
            self.next += self.period;
            samples += 1;
        }
    }

    fn check(&self, code: &aqm::Pi) -> Result<(), TestCaseError> {
        prop_assert!((0.0..=1.0).contains(&code.p), "PI p = {}", code.p);
        prop_assert!(
            (code.p - self.p).abs() <= 1e-9,
            "PI p = {}, the model's {} (a {}, b {}, q_ref {}, T {} ps)",
            code.p,
            self.p,
            self.a,
            self.b,
            self.q_ref,
            self.period
        );
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Port books.

/// The port counters the models predict.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Books {
    arrived: u64,
    enqueued: u64,
    drops_buffer: u64,
    drops_pool: u64,
    drops_aqm: u64,
    drops_dequeue: u64,
    marks: u64,
    sent_packets: u64,
    sent_bytes: u64,
    max_packets: u64,
    max_bytes: u64,
}

impl Books {
    fn of(c: &PortCounters) -> Books {
        Books {
            arrived: c.arrived,
            enqueued: c.enqueued,
            drops_buffer: c.drops_buffer,
            drops_pool: c.drops_pool,
            drops_aqm: c.drops_aqm,
            drops_dequeue: c.drops_dequeue,
            marks: c.marks,
            sent_packets: c.sent_packets,
            sent_bytes: c.sent_bytes,
            max_packets: c.max_packets,
            max_bytes: c.max_bytes.as_u64(),
        }
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct ClassBooks {
    arrived: u64,
    enqueued: u64,
    sent_packets: u64,
    sent_bytes: u64,
    drops_buffer: u64,
    drops_aqm: u64,
    marks: u64,
    max_packets: u64,
}

impl ClassBooks {
    fn of(c: &ClassCounters) -> ClassBooks {
        ClassBooks {
            arrived: c.arrived,
            enqueued: c.enqueued,
            sent_packets: c.sent_packets,
            sent_bytes: c.sent_bytes,
            drops_buffer: c.drops_buffer,
            drops_aqm: c.drops_aqm,
            marks: c.marks,
            max_packets: c.max_packets,
        }
    }
}

/// An admitted packet as the model follows it.
#[derive(Debug, Clone, Copy)]
struct Rec {
    id: u32,
    size: u64,
    ecn: Ecn,
    class: usize,
    marked: bool,
    admit: Time,
    /// Its transmission (Time::MAX until it starts).
    start: Time,
    end: Time,
    /// When it left the buffer (a queue discipline's port: its transmission ended or its
    /// AQM dropped it at dequeue), if it has.
    leave: Option<Time>,
}

impl Rec {
    fn new(g: &PktGen, id: u32, class: usize, now: Time) -> Rec {
        Rec {
            id,
            size: g.size as u64,
            ecn: g.ecn,
            class,
            marked: false,
            admit: now,
            start: Time::MAX,
            end: Time::MAX,
            leave: None,
        }
    }
}

/// Over [ws, now]: the time spent holding n packets for each n, and ∫ bytes dt, of packets
/// held over [from, to) (to = None: still held); the link's busy time over transmissions
/// [start, end). What `Port::close` must report.
fn sweep(held: &[(Time, Option<Time>, u64)], tx: &[(Time, Time)], ws: Time, now: Time) -> (Vec<Time>, u128, Time) {
    let mut deltas: Vec<(Time, i64, i128)> = Vec::new();
    for &(from, to, size) in held {
        let (a, b) = (from.max(ws), to.map_or(now, |t| t.min(now)));
        if a < b {
            deltas.push((a, 1, size as i128));
            deltas.push((b, -1, -(size as i128)));
        }
    }
    deltas.sort_by_key(|d| d.0);
    let (mut hist, mut byte_ps) = (vec![Time::ZERO; 1], 0u128);
    let (mut t, mut n, mut bytes) = (ws, 0i64, 0i128);
    for (at, dn, db) in deltas {
        if at > t {
            if hist.len() <= n as usize {
                hist.resize(n as usize + 1, Time::ZERO);
            }
            hist[n as usize] += at - t;
            byte_ps += bytes as u128 * (at - t).as_ps() as u128;
            t = at;
        }
        n += dn;
        bytes += db;
    }
    if now > t {
        hist[0] += now - t;
    }
    let busy = tx.iter().fold(Time::ZERO, |sum, &(s, e)| {
        let (a, b) = (s.max(ws), e.min(now));
        if a < b {
            sum + (b - a)
        } else {
            sum
        }
    });
    (trim(&hist), byte_ps, busy)
}

fn trim(v: &[Time]) -> Vec<Time> {
    v.iter().rposition(|&t| t > Time::ZERO).map_or(vec![], |n| v[..=n].to_vec())
}

/// `Port::close` at `now` on a copy of the port: its distribution, ∫ bytes dt and busy time
/// must be the model's.
fn check_close(port: &Port, expect: (Vec<Time>, u128, Time), now: Time, ws: Time) -> Result<(), TestCaseError> {
    let mut closed = port.clone();
    closed.close(now, ws);
    let c = &closed.counters;
    prop_assert_eq!(trim(&c.occupancy), expect.0, "time at each occupancy over [{:?}, {:?}]", ws, now);
    prop_assert_eq!(c.byte_ps, expect.1, "byte·ps");
    prop_assert_eq!(c.busy, expect.2, "busy time");
    Ok(())
}

/// A packet reached the peer at `t`: it is the one the model expects, with its ECN field
/// changed only by a mark (and only an ECN-capable one marked).
fn check_delivery(r: &Rec, pkt: &Packet, t: Time, last: Time, tx: Time, delay: Time) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        pkt.header,
        r.id,
        "packet {} reached the peer, the model expected {}",
        pkt.header,
        r.id
    );
    prop_assert_eq!(pkt.size as u64, r.size);
    let expect = if r.marked { Ecn::Ce } else { r.ecn };
    prop_assert!(!(r.marked && r.ecn == Ecn::NotEct), "a not-ECT packet was marked");
    prop_assert_eq!(pkt.ecn, expect, "packet {} sent {:?}, marked {}", r.id, r.ecn, r.marked);
    prop_assert!(t >= last, "delivered at {t:?} after one at {last:?}");
    prop_assert!(
        t >= r.admit + tx + delay,
        "delivered at {t:?}, before its arrival {:?} + service",
        r.admit
    );
    prop_assert_eq!(t, r.end + delay);
    Ok(())
}

/// A port the models drive, with the events it has pending.
trait PortModel {
    fn next_event(&self) -> Option<Time>;
    /// Runs the event due at `t` (the earliest); returns the bytes that left the buffer for
    /// a shared memory to release (queue disciplines only).
    fn fire(&mut self, port: &mut Port, t: Time) -> Result<Vec<u64>, TestCaseError>;
    fn set_now(&mut self, now: Time);
    fn check(&mut self, port: &mut Port) -> Result<(), TestCaseError>;
    /// Bytes the port holds.
    fn held_bytes(&self) -> u64;
    /// The shared memory refused a packet for this port before it reached the queue.
    fn memory_refusal(&mut self, port: &mut Port, pool_full: bool);
    /// When the port next changes: its next event, or a packet leaving a FIFO's buffer.
    fn next_change(&self) -> Option<Time> {
        self.next_event()
    }
}

/// Time moves to `target`: every event due before it runs, in order, each a step.
fn advance(m: &mut impl PortModel, port: &mut Port, target: Time) -> Result<(), TestCaseError> {
    while let Some(t) = m.next_event().filter(|&t| t < target) {
        m.fire(port, t)?;
        m.check(port)?;
    }
    m.set_now(target);
    m.check(port)
}

fn target(now: Time, unit: Time, next: Option<Time>, op: &Op) -> Time {
    match *op {
        Op::Advance { eighths } => now + Time::from_ps(unit.as_ps() * eighths / 8),
        Op::Idle { us } => now + Time::from_us(us),
        Op::Next => next.unwrap_or(now),
        Op::Offer(_) => now,
    }
}

// ---------------------------------------------------------------------------------------
// The FIFO fast path.

struct Fifo {
    link: LinkCfg,
    aqm: AqmModel,
    now: Time,
    ws: Time,
    /// When the link finishes the last admitted packet.
    free_at: Time,
    /// Every admitted packet, in order; the first `delivered` have reached the peer.
    all: Vec<Rec>,
    delivered: usize,
    last_delivery: Time,
    books: Books,
}

impl Fifo {
    fn new(link: &LinkCfg, aqm: AqmModel) -> Self {
        Fifo {
            link: link.clone(),
            aqm,
            now: Time::ZERO,
            ws: link.window_start(),
            free_at: Time::ZERO,
            all: Vec::new(),
            delivered: 0,
            last_delivery: Time::ZERO,
            books: Books::default(),
        }
    }

    /// Packets and bytes in the buffer: admitted, transmission not yet ended.
    fn held(&self) -> (u32, u64) {
        let held = self.all[self.delivered..].iter().filter(|r| r.end > self.now);
        held.fold((0, 0), |(n, b), r| (n + 1, b + r.size))
    }

    /// Offers a packet; its departure if admitted.
    fn offer(&mut self, port: &mut Port, g: &PktGen, id: u32) -> Result<Option<Time>, TestCaseError> {
        let now = self.now;
        let (n, b) = self.held();
        let size = g.size as u64;
        let over = n as u64 + 1 > self.link.limit_packets as u64 || b + size > self.link.limit_bytes();
        // The packet in service is the head when the buffer holds any (its start is past).
        let occupancy = if self.aqm.counts_in_service() || n == 0 { n } else { n - 1 };
        let idle_since = (n == 0).then_some(self.free_at);
        let marks = port.counters.marks;
        self.books.arrived += 1;
        let got = port.offer(now, packet(g, id), self.ws);
        match got {
            Err(Offer::DroppedBuffer) => {
                prop_assert!(over, "refused by the buffer holding {n} packets, {b} B, under its limits");
                self.books.drops_buffer += 1;
                Ok(None)
            }
            _ if over => Err(TestCaseError::fail(format!(
                "{got:?}: a {size}-B packet joined {n} packets of {b} B over the limits {} packets, {} B",
                self.link.limit_packets,
                self.link.limit_bytes()
            ))),
            Err(Offer::DroppedAqm) => {
                self.aqm.arrival(&port.aqm, g.ecn, occupancy, now, idle_since, Verdict::Drop)?;
                self.books.drops_aqm += 1;
                Ok(None)
            }
            Ok((end, first)) => {
                let marked = port.counters.marks - marks;
                prop_assert!(marked <= 1);
                let seen = if marked == 1 { Verdict::Mark } else { Verdict::Enqueue };
                self.aqm.arrival(&port.aqm, g.ecn, occupancy, now, idle_since, seen)?;
                let start = now.max(self.free_at);
                prop_assert_eq!(end, start + self.link.tx(size + self.link.framing), "transmission end");
                let wire_empty = self.delivered == self.all.len();
                prop_assert_eq!(first, wire_empty.then_some(end + self.link.delay), "first arrival");
                self.free_at = end;
                let mut r = Rec::new(g, id, 0, now);
                (r.marked, r.start, r.end) = (marked == 1, start, end);
                self.all.push(r);
                let held = self.held().1;
                let b = &mut self.books;
                b.enqueued += 1;
                b.marks += marked;
                b.max_packets = b.max_packets.max(n as u64 + 1);
                b.max_bytes = b.max_bytes.max(held);
                Ok(Some(end))
            }
        }
    }
}

impl PortModel for Fifo {
    fn next_event(&self) -> Option<Time> {
        self.all.get(self.delivered).map(|r| r.end + self.link.delay)
    }

    fn next_change(&self) -> Option<Time> {
        let leaves = self.all[self.delivered..].iter().map(|r| r.end).find(|&t| t > self.now);
        leaves.into_iter().chain(self.next_event()).min()
    }

    fn fire(&mut self, port: &mut Port, t: Time) -> Result<Vec<u64>, TestCaseError> {
        self.now = t;
        let (pkt, next) = port.pop_wire(t, self.ws);
        let r = self.all[self.delivered];
        let tx = self.link.tx(r.size + self.link.framing);
        check_delivery(&r, &pkt, t, self.last_delivery, tx, self.link.delay)?;
        self.delivered += 1;
        self.last_delivery = t;
        prop_assert_eq!(next, self.next_event(), "the next arrival on the wire");
        Ok(vec![])
    }

    fn set_now(&mut self, now: Time) {
        self.now = now;
    }

    fn held_bytes(&self) -> u64 {
        self.held().1
    }

    fn memory_refusal(&mut self, port: &mut Port, pool_full: bool) {
        port.refuse(pool_full);
        self.books.arrived += 1;
        if pool_full {
            self.books.drops_pool += 1;
        } else {
            self.books.drops_buffer += 1;
        }
    }

    fn check(&mut self, port: &mut Port) -> Result<(), TestCaseError> {
        let (now, ws) = (self.now, self.ws);
        let (n, b) = self.held();
        prop_assert_eq!(port.occupancy_packets(now, ws), n, "packets held at {:?}", now);
        prop_assert_eq!(port.occupancy_bytes(now, ws).as_u64(), b, "bytes held at {:?}", now);
        prop_assert!(n <= self.link.limit_packets && b <= self.link.limit_bytes());
        prop_assert_eq!(port.free_slots(now, ws), (self.link.limit_packets - n) as usize);
        if let Err(e) = port.check_invariants(now, ws) {
            return Err(TestCaseError::fail(format!("check_invariants at {now:?}: {e}")));
        }
        let sent = self.all.iter().filter(|r| r.end <= now);
        (self.books.sent_packets, self.books.sent_bytes) = sent.fold((0, 0), |(n, b), r| (n + 1, b + r.size));
        let c = Books::of(&port.counters);
        prop_assert_eq!(c, self.books, "counters at {:?}", now);
        prop_assert_eq!(c.arrived, c.enqueued + c.drops_buffer + c.drops_pool + c.drops_aqm);
        prop_assert_eq!(c.enqueued, c.sent_packets + n as u64);
        prop_assert_eq!(port.in_flight(), self.all.len() - self.delivered);
        let head = self.all[self.delivered..].iter().find(|r| r.end > now);
        prop_assert_eq!(port.next_departure(), head.map(|r| r.end));
        self.aqm.check_state(&port.aqm, now, n)?;
        let held: Vec<_> = self.all.iter().map(|r| (r.admit, Some(r.end), r.size)).collect();
        let tx: Vec<_> = self.all.iter().map(|r| (r.start, r.end)).collect();
        check_close(port, sweep(&held, &tx, ws, now), now, ws)
    }
}

fn run_fifo(link: &LinkCfg, aqm: &AqmCfg, ops: &[Op]) -> Result<(), TestCaseError> {
    let typical = link.unit();
    let mut port = link.port(aqm.build(typical));
    let mut m = Fifo::new(link, aqm.model(typical));
    m.check(&mut port)?;
    for (step, op) in ops.iter().enumerate() {
        let at = |e: TestCaseError| TestCaseError::fail(format!("step {step} ({op:?}): {e}"));
        match op {
            Op::Offer(g) => {
                m.offer(&mut port, g, step as u32).map_err(at)?;
                m.check(&mut port).map_err(at)?;
            }
            _ => {
                let to = target(m.now, link.unit(), m.next_change(), op);
                advance(&mut m, &mut port, to).map_err(at)?
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Class queues: strict priority and DRR.

#[derive(Debug, Clone, Copy)]
enum ClassifyCfg {
    Flow,
    Ecn { ect: u8, not_ect: u8 },
    PacketType { syn: u8, ack: u8, data: u8 },
}

impl ClassifyCfg {
    fn build(self) -> Classify {
        match self {
            ClassifyCfg::Flow => Classify::Flow,
            ClassifyCfg::Ecn { ect, not_ect } => Classify::Ecn { ect, not_ect },
            ClassifyCfg::PacketType { syn, ack, data } => Classify::PacketType { syn, ack, data },
        }
    }

    /// The class of `g` among `n` (qdisc.rs: a class past the last is served as the last).
    fn class(self, g: &PktGen, n: usize) -> usize {
        let c = match self {
            ClassifyCfg::Flow => g.class,
            ClassifyCfg::Ecn { not_ect, .. } if g.ecn == Ecn::NotEct => not_ect,
            ClassifyCfg::Ecn { ect, .. } => ect,
            ClassifyCfg::PacketType { syn, ack, data } => match g.kind {
                Kind::Syn | Kind::SynAck => syn,
                Kind::PureAck => ack,
                Kind::Data | Kind::Retx => data,
            },
        };
        (c as usize).min(n - 1)
    }
}

fn classify_cfg() -> impl Strategy<Value = ClassifyCfg> {
    prop_oneof![
        Just(ClassifyCfg::Flow),
        (0u8..=4, 0u8..=4).prop_map(|(ect, not_ect)| ClassifyCfg::Ecn { ect, not_ect }),
        (0u8..=4, 0u8..=4, 0u8..=4).prop_map(|(syn, ack, data)| ClassifyCfg::PacketType { syn, ack, data }),
    ]
}

#[derive(Debug, Clone)]
struct ClassCfg {
    limit_packets: Option<u32>,
    limit_bytes: Option<u64>,
    /// The dynamic share's alpha, in quarters (exact in binary).
    alpha_quarters: Option<u64>,
    quantum: u64,
    aqm: AqmCfg,
}

fn class_cfg() -> impl Strategy<Value = ClassCfg> {
    (
        prop::option::of(1u32..=8),
        prop::option::of(1_500u64..=15_000),
        prop::option::of(prop::sample::select(vec![1u64, 2, 4, 8])),
        prop_oneof![Just(1500u64), 1u64..=3000],
        any_aqm(),
    )
        .prop_map(|(limit_packets, limit_bytes, alpha_quarters, quantum, aqm)| ClassCfg {
            limit_packets,
            limit_bytes,
            alpha_quarters,
            quantum,
            aqm,
        })
}

#[derive(Debug, Clone)]
struct QdiscCfg {
    link: LinkCfg,
    classify: ClassifyCfg,
    classes: Vec<ClassCfg>,
    drr: bool,
}

fn qdisc_cfg(drr: bool) -> impl Strategy<Value = QdiscCfg> {
    (link(16), classify_cfg(), prop::collection::vec(class_cfg(), 1..=4)).prop_map(move |(link, classify, classes)| QdiscCfg {
        link,
        classify,
        classes,
        drr,
    })
}

impl QdiscCfg {
    fn port(&self) -> Port {
        let typical = self.link.unit();
        let queues = self
            .classes
            .iter()
            .map(|c| {
                ClassQueue::new(
                    c.limit_packets.unwrap_or(u32::MAX),
                    Bytes::new(c.limit_bytes.unwrap_or(u64::MAX)),
                    c.alpha_quarters.map(|q| q as f64 / 4.0),
                    c.aqm.build(typical),
                )
            })
            .collect();
        let scheduler = if self.drr {
            Scheduler::Drr(Drr::new(self.classes.iter().map(|c| c.quantum).collect()))
        } else {
            Scheduler::StrictPriority
        };
        let classes = Classes::new(self.classify.build(), scheduler, queues);
        self.link.port(Aqm::DropTail).with_discipline(Discipline::Classes(classes))
    }
}

/// Deficit round robin as Shreedhar and Varghese give it: backlogged classes in a round; a
/// class visited gets its quantum and sends while its head fits its deficit, then goes to
/// the back keeping the rest; a class that empties leaves the round with nothing.
#[derive(Debug, Clone)]
struct DrrModel {
    quantum: Vec<u64>,
    deficit: Vec<u64>,
    round: VecDeque<usize>,
    visiting: bool,
}

fn class_counters(port: &Port) -> Vec<ClassCounters> {
    port.discipline().expect("a port with classes").class_counters()
}

fn class_aqm(port: &Port, c: usize) -> &Aqm {
    let Some(Discipline::Classes(classes)) = port.discipline() else {
        panic!("a port with classes")
    };
    &classes.queues[c].aqm
}

fn take_drops(port: &mut Port) -> Vec<u32> {
    std::iter::from_fn(|| port.pop_dequeue_drop().map(|p| p.header)).collect()
}

struct ClassesModel {
    link: LinkCfg,
    cfg: QdiscCfg,
    aqm: Vec<AqmModel>,
    drr: Option<DrrModel>,
    now: Time,
    ws: Time,
    /// Every admitted packet.
    all: Vec<Rec>,
    /// Per class, the packets waiting (indices into `all`).
    waiting: Vec<VecDeque<usize>>,
    serving: Option<usize>,
    /// Packets started and not yet at the peer (the one in service included), in order.
    wire: VecDeque<usize>,
    /// When the last transmission started ends.
    free_at: Time,
    last_delivery: Time,
    books: Books,
    classes: Vec<ClassBooks>,
    /// Packets the shared memory refused (port counters only, no class's), and of them those
    /// over the dynamic threshold (counted as buffer drops).
    memory_refused: u64,
    memory_threshold: u64,
}

impl ClassesModel {
    fn new(cfg: &QdiscCfg) -> Self {
        let n = cfg.classes.len();
        let typical = cfg.link.unit();
        ClassesModel {
            link: cfg.link.clone(),
            cfg: cfg.clone(),
            aqm: cfg.classes.iter().map(|c| c.aqm.model(typical)).collect(),
            drr: cfg.drr.then(|| DrrModel {
                quantum: cfg.classes.iter().map(|c| c.quantum).collect(),
                deficit: vec![0; n],
                round: VecDeque::new(),
                visiting: false,
            }),
            now: Time::ZERO,
            ws: cfg.link.window_start(),
            all: Vec::new(),
            waiting: vec![VecDeque::new(); n],
            serving: None,
            wire: VecDeque::new(),
            free_at: Time::ZERO,
            last_delivery: Time::ZERO,
            books: Books::default(),
            classes: vec![ClassBooks::default(); n],
            memory_refused: 0,
            memory_threshold: 0,
        }
    }

    fn held(&self) -> (u32, u64) {
        let waiting = self.waiting.iter().flatten();
        let (n, b) = waiting.fold((0, 0), |(n, b), &i| (n + 1, b + self.all[i].size));
        match self.serving {
            Some(i) => (n + 1, b + self.all[i].size),
            None => (n, b),
        }
    }

    /// Class `c`'s packets and bytes: waiting, and in service if the packet on the link is its.
    fn class_held(&self, c: usize) -> (u32, u64) {
        let (n, b) = self.waiting[c].iter().fold((0, 0), |(n, b), &i| (n + 1, b + self.all[i].size));
        match self.serving.filter(|&i| self.all[i].class == c) {
            Some(i) => (n + 1, b + self.all[i].size),
            None => (n, b),
        }
    }

    fn observe_pi(&mut self, c: usize, held: u32) {
        if let AqmModel::Pi(pi) = &mut self.aqm[c] {
            pi.advance(self.now, held);
        }
    }

    /// The class the scheduler serves next.
    fn pick(&mut self) -> Option<usize> {
        let Some(d) = &mut self.drr else {
            return (0..self.waiting.len()).find(|&c| !self.waiting[c].is_empty());
        };
        loop {
            let &c = d.round.front()?;
            if !d.visiting {
                d.deficit[c] += d.quantum[c];
                d.visiting = true;
            }
            if self.all[self.waiting[c][0]].size <= d.deficit[c] {
                return Some(c);
            }
            d.round.rotate_left(1);
            d.visiting = false;
        }
    }

    /// A transmission that ends now completes before anything else touches the port (the
    /// simulation's `tx_due` tie rule). Returns the bytes released.
    fn settle(&mut self, port: &mut Port) -> Result<Vec<u64>, TestCaseError> {
        let due = self.serving.is_some_and(|i| self.all[i].end <= self.now);
        prop_assert_eq!(port.tx_due(self.now), due, "tx_due at {:?}", self.now);
        if !due {
            return Ok(vec![]);
        }
        let released = self.tx_done(port)?;
        self.check(port)?;
        Ok(released)
    }

    fn tx_done(&mut self, port: &mut Port) -> Result<Vec<u64>, TestCaseError> {
        let now = self.now;
        let i = self.serving.take().expect("a packet in service");
        let c = self.all[i].class;
        self.observe_pi(c, self.waiting[c].len() as u32 + 1);
        let before = class_counters(port);
        let (size, next, arrive) = port.tx_done(now, self.ws);
        prop_assert_eq!(size.as_u64(), self.all[i].size, "size of the packet that finished");
        self.books.sent_packets += 1;
        self.books.sent_bytes += self.all[i].size;
        self.all[i].leave = Some(now);
        let drops = take_drops(port);
        let mut released = vec![self.all[i].size];
        released.extend(self.start_next(port, (next, arrive), drops, &before)?);
        Ok(released)
    }

    /// The link is free at `now`: the model's scheduler picks, the class AQMs may drop at
    /// dequeue (the code's drops `dropped` must be exactly those the model takes and allows)
    /// and the next packet starts; `got` is what the port returned. Returns the bytes dropped.
    fn start_next(
        &mut self,
        port: &Port,
        got: (Option<Time>, Option<Time>),
        mut dropped: Vec<u32>,
        before: &[ClassCounters],
    ) -> Result<Vec<u64>, TestCaseError> {
        let now = self.now;
        let after = class_counters(port);
        let mut released = Vec::new();
        loop {
            let Some(c) = self.pick() else {
                prop_assert_eq!(got, (None, None), "the port started a packet the model does not have");
                break;
            };
            self.observe_pi(c, self.waiting[c].len() as u32);
            let i = self.waiting[c].pop_front().expect("a backlogged class");
            let behind = self.waiting[c].len() as u32;
            let r = self.all[i];
            let allowed = self.aqm[c].departure(class_aqm(port, c), r.ecn, behind);
            let drop = dropped.iter().position(|&id| id == r.id).map(|k| dropped.swap_remove(k)).is_some();
            if let Some(d) = &mut self.drr {
                if !drop {
                    d.deficit[c] -= r.size;
                }
                if behind == 0 {
                    d.deficit[c] = 0;
                    d.round.pop_front();
                    d.visiting = false;
                }
            }
            if drop {
                prop_assert!(
                    allowed & DROP != 0,
                    "class {c} dropped a {:?} packet at dequeue, {behind} behind: allowed {allowed:03b}",
                    r.ecn
                );
                self.classes[c].drops_aqm += 1;
                self.books.drops_aqm += 1;
                self.books.drops_dequeue += 1;
                self.all[i].leave = Some(now);
                released.push(r.size);
                continue;
            }
            // A class's AQM marks either on arrival or at dequeue: its new marks are this one's.
            let marked = if self.aqm[c].acts_at_dequeue() {
                after[c].marks - before[c].marks
            } else {
                0
            };
            prop_assert!(marked <= 1);
            let seen = if marked == 1 { MARK } else { ENQ };
            prop_assert!(
                allowed & seen != 0,
                "class {c}: a {:?} packet leaving with {behind} behind, marked {marked}: allowed {allowed:03b}",
                r.ecn
            );
            let end = now + self.link.tx(r.size + self.link.framing);
            prop_assert_eq!(got.0, Some(end), "class {} packet {} starts at {:?}", c, r.id, now);
            prop_assert_eq!(got.1, self.wire.is_empty().then_some(end + self.link.delay), "first arrival");
            let cb = &mut self.classes[c];
            cb.marks += marked;
            cb.sent_packets += 1;
            cb.sent_bytes += r.size;
            self.books.marks += marked;
            let r = &mut self.all[i];
            (r.marked, r.start, r.end) = (r.marked || marked == 1, now, end);
            self.serving = Some(i);
            self.wire.push_back(i);
            self.free_at = end;
            break;
        }
        prop_assert!(
            dropped.is_empty(),
            "the port dropped at dequeue packets {dropped:?} the model did not take"
        );
        Ok(released)
    }

    /// Class `c`'s bytes as its byte limit and dynamic share weigh them: what it holds, the
    /// packet in service included if it is the class's (as it counts in the class's packets
    /// and the port's bytes).
    fn class_bytes(&self, c: usize) -> u64 {
        self.class_held(c).1
    }

    /// What the class of `g` holds for a shared memory's dynamic threshold (its thresholds
    /// are per queue): its waiting bytes, and the packet in service if it is the class's.
    fn threshold_bytes(&self, g: &PktGen) -> u64 {
        self.class_bytes(self.cfg.classify.class(g, self.waiting.len()))
    }

    /// Offers a packet (after `settle`); returns whether it was admitted and the bytes that
    /// left the buffer (dropped at dequeue).
    fn offer(&mut self, port: &mut Port, g: &PktGen, id: u32) -> Result<(bool, Vec<u64>), TestCaseError> {
        let now = self.now;
        let c = self.cfg.classify.class(g, self.waiting.len());
        let size = g.size as u64;
        self.books.arrived += 1;
        self.classes[c].arrived += 1;
        let (n, b) = self.held();
        let in_service = self.serving.is_some_and(|i| self.all[i].class == c) as u32;
        let waiting = self.waiting[c].len() as u32;
        let class_n = self.class_held(c).0;
        let class_b = self.class_bytes(c);
        self.observe_pi(c, class_n);
        let cc = &self.cfg.classes[c];
        let limit_b = self.link.limit_bytes();
        let over_port = n as u64 + 1 > self.link.limit_packets as u64 || b + size > limit_b;
        let over_class =
            class_n as u64 + 1 > cc.limit_packets.unwrap_or(u32::MAX) as u64 || class_b + size > cc.limit_bytes.unwrap_or(u64::MAX);
        // alpha = q/4 of the port's free bytes, in exact integers.
        let over_share = cc
            .alpha_quarters
            .is_some_and(|q| 4 * (class_b + size) as u128 > q as u128 * limit_b.saturating_sub(b) as u128);
        let over = over_port || over_class || over_share;
        let occupancy = if self.aqm[c].counts_in_service() {
            waiting + in_service
        } else {
            waiting
        };
        let idle_since = (class_n == 0 && self.serving.is_none()).then_some(self.free_at);
        let before = class_counters(port);
        let got = port.offer_to_discipline(now, packet(g, id), self.ws);
        let after = class_counters(port);
        let dropped = take_drops(port);
        let why = format!(
            "a {size}-B packet to class {c} holding {class_n} packets, {class_b} B (port {n}, {b} B; limits {:?} {:?}, alpha/4 {:?}; port {} {})",
            cc.limit_packets,
            cc.limit_bytes,
            cc.alpha_quarters,
            self.link.limit_packets,
            limit_b
        );
        match got {
            Err(Offer::DroppedBuffer) => {
                prop_assert!(over, "refused: {why}");
                prop_assert!(dropped.is_empty());
                self.books.drops_buffer += 1;
                self.classes[c].drops_buffer += 1;
                Ok((false, vec![]))
            }
            _ if over => Err(TestCaseError::fail(format!(
                "{got:?}, not refused: {why} (over port {over_port}, class {over_class}, share {over_share})"
            ))),
            Err(Offer::DroppedAqm) => {
                self.aqm[c].arrival(class_aqm(port, c), g.ecn, occupancy, now, idle_since, Verdict::Drop)?;
                prop_assert!(dropped.is_empty());
                self.books.drops_aqm += 1;
                self.classes[c].drops_aqm += 1;
                Ok((false, vec![]))
            }
            Ok(started) => {
                let marked = if self.aqm[c].acts_at_dequeue() {
                    0
                } else {
                    after[c].marks - before[c].marks
                };
                prop_assert!(marked <= 1);
                let seen = if marked == 1 { Verdict::Mark } else { Verdict::Enqueue };
                self.aqm[c].arrival(class_aqm(port, c), g.ecn, occupancy, now, idle_since, seen)?;
                let i = self.all.len();
                let mut r = Rec::new(g, id, c, now);
                r.marked = marked == 1;
                self.all.push(r);
                if self.waiting[c].is_empty() {
                    if let Some(d) = &mut self.drr {
                        d.round.push_back(c);
                    }
                }
                self.waiting[c].push_back(i);
                let bk = &mut self.books;
                bk.enqueued += 1;
                bk.marks += marked;
                bk.max_packets = bk.max_packets.max(n as u64 + 1);
                bk.max_bytes = bk.max_bytes.max(b + size);
                let cb = &mut self.classes[c];
                cb.enqueued += 1;
                cb.marks += marked;
                cb.max_packets = cb.max_packets.max(class_n as u64 + 1);
                if self.serving.is_some() {
                    prop_assert_eq!(started, (None, None), "the link was busy");
                    prop_assert!(dropped.is_empty());
                    return Ok((true, vec![]));
                }
                Ok((true, self.start_next(port, started, dropped, &before)?))
            }
        }
    }
}

impl PortModel for ClassesModel {
    fn next_event(&self) -> Option<Time> {
        let done = self.serving.map(|i| self.all[i].end);
        let arrive = self.wire.front().map(|&i| self.all[i].end + self.link.delay);
        done.into_iter().chain(arrive).min()
    }

    fn fire(&mut self, port: &mut Port, t: Time) -> Result<Vec<u64>, TestCaseError> {
        self.now = t;
        // A transmission's end before an arrival at the same instant.
        if self.serving.is_some_and(|i| self.all[i].end == t) {
            prop_assert!(port.tx_due(t));
            return self.tx_done(port);
        }
        let (pkt, next) = port.pop_wire(t, self.ws);
        let i = self.wire.pop_front().expect("a packet on the wire");
        let r = self.all[i];
        let tx = self.link.tx(r.size + self.link.framing);
        check_delivery(&r, &pkt, t, self.last_delivery, tx, self.link.delay)?;
        self.last_delivery = t;
        let expect = self.wire.front().map(|&i| self.all[i].end + self.link.delay);
        prop_assert_eq!(next, expect, "the next arrival on the wire");
        Ok(vec![])
    }

    fn set_now(&mut self, now: Time) {
        self.now = now;
    }

    fn held_bytes(&self) -> u64 {
        self.held().1
    }

    fn memory_refusal(&mut self, port: &mut Port, pool_full: bool) {
        port.refuse(pool_full);
        self.books.arrived += 1;
        self.memory_refused += 1;
        if pool_full {
            self.books.drops_pool += 1;
        } else {
            self.books.drops_buffer += 1;
            self.memory_threshold += 1;
        }
    }

    fn check(&mut self, port: &mut Port) -> Result<(), TestCaseError> {
        let (now, ws) = (self.now, self.ws);
        let (n, b) = self.held();
        prop_assert_eq!(port.occupancy_packets(now, ws), n, "packets held at {:?}", now);
        prop_assert_eq!(port.occupancy_bytes(now, ws).as_u64(), b, "bytes held at {:?}", now);
        prop_assert!(n <= self.link.limit_packets && b <= self.link.limit_bytes());
        for (c, cc) in self.cfg.classes.iter().enumerate() {
            let (cn, cb) = self.class_held(c);
            prop_assert!(cn <= cc.limit_packets.unwrap_or(u32::MAX), "class {c} holds {cn} packets");
            prop_assert!(
                cb <= cc.limit_bytes.unwrap_or(u64::MAX),
                "class {} holds {} B (in service included) over its {:?}",
                c,
                cb,
                cc.limit_bytes
            );
        }
        if let Err(e) = port.check_invariants(now, ws) {
            return Err(TestCaseError::fail(format!("check_invariants at {now:?}: {e}")));
        }
        let c = Books::of(&port.counters);
        prop_assert_eq!(c, self.books, "counters at {:?}", now);
        prop_assert_eq!(
            c.arrived,
            c.enqueued + c.drops_buffer + c.drops_pool + c.drops_aqm - c.drops_dequeue
        );
        prop_assert_eq!(c.enqueued, c.sent_packets + c.drops_dequeue + n as u64);
        let classes: Vec<ClassBooks> = class_counters(port).iter().map(ClassBooks::of).collect();
        prop_assert_eq!(&classes, &self.classes, "class counters at {:?}", now);
        let sum = |f: fn(&ClassBooks) -> u64| classes.iter().map(f).sum::<u64>();
        let serving = self.serving.map_or((0, 0), |i| (1, self.all[i].size));
        prop_assert_eq!(sum(|k| k.arrived) + self.memory_refused, c.arrived);
        prop_assert_eq!(sum(|k| k.enqueued), c.enqueued);
        prop_assert_eq!(sum(|k| k.drops_buffer) + self.memory_threshold, c.drops_buffer);
        prop_assert_eq!(sum(|k| k.drops_aqm), c.drops_aqm);
        prop_assert_eq!(sum(|k| k.marks), c.marks);
        // A class counts a packet sent when it starts; the port when it ends.
        prop_assert_eq!(sum(|k| k.sent_packets), c.sent_packets + serving.0);
        prop_assert_eq!(sum(|k| k.sent_bytes), c.sent_bytes + serving.1);
        let d = port.discipline().expect("a port with classes");
        let waiting = self.waiting.iter().flatten();
        let (wn, wb) = waiting.fold((0, 0), |(n, b), &i| (n + 1, b + self.all[i].size));
        prop_assert_eq!((d.packets(), d.bytes().as_u64()), (wn, wb), "the discipline's waiting packets");
        prop_assert_eq!(port.in_flight(), self.wire.len() + wn as usize);
        prop_assert_eq!(port.tx_due(now), self.serving.is_some_and(|i| self.all[i].end <= now));
        for c in 0..self.aqm.len() {
            let held = self.class_held(c).0;
            let code = class_aqm(port, c).clone();
            self.aqm[c].check_state(&code, now, held)?;
        }
        let held: Vec<_> = self.all.iter().map(|r| (r.admit, r.leave, r.size)).collect();
        let tx: Vec<_> = self.all.iter().filter(|r| r.start < Time::MAX).map(|r| (r.start, r.end)).collect();
        check_close(port, sweep(&held, &tx, ws, now), now, ws)
    }
}

fn run_classes(cfg: &QdiscCfg, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut port = cfg.port();
    let mut m = ClassesModel::new(cfg);
    m.check(&mut port)?;
    for (step, op) in ops.iter().enumerate() {
        let at = |e: TestCaseError| TestCaseError::fail(format!("step {step} ({op:?}): {e}"));
        match op {
            Op::Offer(g) => {
                m.settle(&mut port).map_err(at)?;
                m.offer(&mut port, g, step as u32).map_err(at)?;
                m.check(&mut port).map_err(at)?;
            }
            _ => {
                let to = target(m.now, cfg.link.unit(), m.next_change(), op);
                advance(&mut m, &mut port, to).map_err(at)?
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// AQMs alone.

#[derive(Debug, Clone)]
enum AqmOp {
    /// A packet arrives to a queue of `occupancy`; `idle` ps after the link went idle if set.
    Arrive { ecn: Ecn, occupancy: u32, idle: Option<u64> },
    /// A packet leaves its queue with `behind` packets after it.
    Depart { ecn: Ecn, behind: u32 },
    /// The queue held `packets` for `ps` (PI samples it).
    Hold { packets: u32, ps: u64 },
}

fn ecn() -> impl Strategy<Value = Ecn> {
    prop_oneof![Just(Ecn::NotEct), Just(Ecn::Ect), Just(Ecn::Ce)]
}

/// Occupancies near K (K + d, d in −3..=3) and anywhere up to 64.
fn aqm_op(k: u32) -> impl Strategy<Value = AqmOp> {
    let near = move |d: i64| (k as i64 + d).max(0) as u32;
    let occupancy = prop_oneof![(-3i64..=3).prop_map(near), 0u32..=64];
    let idle = prop_oneof![
        3 => Just(None),
        1 => (0u64..=100_000_000).prop_map(Some),
        1 => (0u64..=10_000_000_000_000).prop_map(Some),
    ];
    let duration = prop_oneof![3 => 0u64..=50_000_000, 1 => 0u64..=10_000_000_000_000];
    prop_oneof![
        3 => (ecn(), occupancy.clone(), idle).prop_map(|(ecn, occupancy, idle)| AqmOp::Arrive { ecn, occupancy, idle }),
        2 => (ecn(), occupancy.clone()).prop_map(|(ecn, behind)| AqmOp::Depart { ecn, behind }),
        2 => (occupancy, duration).prop_map(|(packets, ps)| AqmOp::Hold { packets, ps }),
    ]
}

fn threshold_case() -> impl Strategy<Value = (AqmCfg, Vec<AqmOp>)> {
    (prop_oneof![Just(0u32), 0u32..=20], any::<bool>(), any::<bool>(), any::<bool>()).prop_flat_map(
        |(k, drop_nonect, count_in_service, at_dequeue)| {
            let cfg = AqmCfg::Threshold {
                k,
                drop_nonect,
                count_in_service,
                at_dequeue,
            };
            (Just(cfg), prop::collection::vec(aqm_op(k), 1..=60))
        },
    )
}

fn run_threshold(cfg: &AqmCfg, ops: &[AqmOp]) -> Result<(), TestCaseError> {
    let AqmCfg::Threshold {
        k,
        drop_nonect,
        count_in_service,
        at_dequeue,
    } = *cfg
    else {
        unreachable!()
    };
    let mut code = cfg.build(Time::from_us(1));
    prop_assert_eq!(code.acts_at_dequeue(), at_dequeue);
    prop_assert_eq!(code.counts_in_service(), count_in_service);
    let mut now = Time::ZERO;
    for (step, op) in ops.iter().enumerate() {
        match *op {
            AqmOp::Arrive { ecn, occupancy, idle } => {
                let since = idle.map(|ps| now.saturating_sub(Time::from_ps(ps)));
                let v = code.on_arrival(ecn, occupancy, now, since);
                let expect = if at_dequeue {
                    ENQ
                } else {
                    threshold_rule(k, drop_nonect, ecn, occupancy)
                };
                prop_assert_eq!(
                    bit(v),
                    expect,
                    "step {}: arrival of {:?} seeing {} with K = {}: {:?}",
                    step,
                    ecn,
                    occupancy,
                    k,
                    v
                );
                // Mark exactly when the queue exceeds K, and only what is ECN-capable.
                prop_assert_eq!(
                    v == Verdict::Mark,
                    !at_dequeue && occupancy > k && ecn != Ecn::NotEct,
                    "step {}",
                    step
                );
            }
            AqmOp::Depart { ecn, behind } => {
                let v = code.on_dequeue(ecn, behind);
                let expect = if at_dequeue {
                    threshold_rule(k, drop_nonect, ecn, behind)
                } else {
                    ENQ
                };
                prop_assert_eq!(
                    bit(v),
                    expect,
                    "step {}: departure of {:?} with {} behind, K = {}: {:?}",
                    step,
                    ecn,
                    behind,
                    k,
                    v
                );
                prop_assert_eq!(v == Verdict::Drop, at_dequeue && behind > k && ecn == Ecn::NotEct && drop_nonect);
            }
            AqmOp::Hold { packets, ps } => {
                now += Time::from_ps(ps);
                code.observe(now, packets);
            }
        }
    }
    Ok(())
}

fn red_case() -> impl Strategy<Value = (AqmCfg, u64, Vec<AqmOp>)> {
    (red_cfg(), prop_oneof![Just(0u64), 1u64..=100_000_000]).prop_flat_map(|(cfg, typical)| {
        let k = match cfg {
            AqmCfg::Red { max_th, .. } => max_th as u32,
            _ => 0,
        };
        (Just(cfg), Just(typical), prop::collection::vec(aqm_op(k), 1..=60))
    })
}

fn run_red(cfg: &AqmCfg, typical: u64, ops: &[AqmOp]) -> Result<(), TestCaseError> {
    let typical = Time::from_ps(typical);
    let mut code = cfg.build(typical);
    let mut model = cfg.model(typical);
    prop_assert!(!code.acts_at_dequeue() && code.counts_in_service());
    let AqmModel::Red(r) = &model else { unreachable!() };
    // p_b is a probability, and does not fall as the average rises.
    let Aqm::Red(red) = &code else { unreachable!() };
    let mut last = 0.0;
    for i in 0..=400 {
        let avg = i as f64 * (2.5 * r.max_th.max(0.25)) / 400.0;
        let p = red.base_probability(avg);
        prop_assert!((0.0..=1.0).contains(&p) && p >= last, "p_b({avg}) = {p} after {last}");
        prop_assert!((p - r.p_b(avg)).abs() <= 1e-12, "p_b({avg}) = {p}, by hand {}", r.p_b(avg));
        last = p;
    }
    let mut now = Time::ZERO;
    for (step, op) in ops.iter().enumerate() {
        let at = |e: TestCaseError| TestCaseError::fail(format!("step {step} ({op:?}): {e}"));
        match *op {
            AqmOp::Arrive { ecn, occupancy, idle } => {
                // The link went idle `idle` ago (and the queue has been empty since, if it is).
                let since = idle.map(|ps| {
                    now += Time::from_ps(ps);
                    now - Time::from_ps(ps)
                });
                let v = code.on_arrival(ecn, occupancy, now, since);
                model.arrival(&code, ecn, occupancy, now, since, v).map_err(at)?;
            }
            AqmOp::Depart { ecn, behind } => {
                prop_assert_eq!(code.on_dequeue(ecn, behind), Verdict::Enqueue, "RED acts on arrival only");
            }
            AqmOp::Hold { packets, ps } => {
                now += Time::from_ps(ps);
                code.observe(now, packets);
            }
        }
        model.check_state(&code, now, 0).map_err(at)?;
    }
    Ok(())
}

fn pi_case() -> impl Strategy<Value = (AqmCfg, Vec<AqmOp>)> {
    // Coefficients up to 1 and tiny ones; periods from 1 ns to 1 ms.
    (pi_cfg(1.0, 1_000..=1_000_000_000), prop::collection::vec(aqm_op(8), 1..=60))
}

fn run_pi(cfg: &AqmCfg, ops: &[AqmOp]) -> Result<(), TestCaseError> {
    let mut code = cfg.build(Time::from_us(1));
    let mut model = cfg.model(Time::from_us(1));
    prop_assert!(code.acts_at_dequeue() && code.counts_in_service());
    let mut now = Time::ZERO;
    // The queue: what it has held since the last change. Both sides are told of the time
    // passed before each change; the code takes the samples in between at once, the model
    // one at a time.
    let mut held = 0u32;
    for (step, op) in ops.iter().enumerate() {
        let at = |e: TestCaseError| TestCaseError::fail(format!("step {step} ({op:?}): {e}"));
        if let AqmOp::Hold { ps, .. } = *op {
            now += Time::from_ps(ps);
        }
        code.observe(now, held);
        let AqmModel::Pi(m) = &mut model else { unreachable!() };
        m.advance(now, held);
        match *op {
            AqmOp::Arrive { ecn, .. } => {
                let v = code.on_arrival(ecn, held, now, None);
                model.arrival(&code, ecn, held, now, None, v).map_err(at)?;
                held += 1;
            }
            AqmOp::Depart { ecn, .. } => {
                held = held.saturating_sub(1);
                let allowed = model.departure(&code, ecn, held);
                let v = code.on_dequeue(ecn, held);
                prop_assert!(allowed & bit(v) != 0, "step {step}: {v:?} for {ecn:?}, allowed {allowed:03b}");
            }
            AqmOp::Hold { packets, .. } => held = packets,
        }
        let (AqmModel::Pi(m), Aqm::Pi(pi)) = (&model, &code) else {
            unreachable!()
        };
        m.check(pi).map_err(at)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// A switch's shared memory.

#[derive(Debug, Clone)]
struct SharedCfg {
    total: u64,
    /// alpha = num / 2^shift: exact in binary, so the code's f64 test is the exact one.
    alpha_num: u64,
    alpha_shift: u32,
    fifos: Vec<LinkCfg>,
    /// A port with two class queues (strict priority; class 1 drops not-ECT packets at
    /// dequeue above K = 1) draws from the memory too.
    classes: Option<LinkCfg>,
}

fn shared_link() -> impl Strategy<Value = LinkCfg> {
    link(24).prop_map(|l| LinkCfg {
        limit_bytes: None,
        window_eighths: 0,
        ..l
    })
}

fn shared_cfg() -> impl Strategy<Value = SharedCfg> {
    (
        3_000u64..=60_000,
        1u64..=16,
        0u32..=4,
        prop::collection::vec(shared_link(), 1..=3),
        prop::option::of(shared_link()),
    )
        .prop_map(|(total, alpha_num, alpha_shift, fifos, classes)| SharedCfg {
            total,
            alpha_num,
            alpha_shift,
            fifos,
            classes,
        })
}

#[derive(Debug, Clone)]
enum SharedOp {
    Offer {
        port: u8,
        pkt: PktGen,
    },
    Advance {
        eighths: u64,
    },
    Idle {
        us: u64,
    },
    /// Time moves to the next change of any port (see `Op::Next`).
    Next,
    /// `admit` asked at a boundary, give or take `delta` bytes: the pool's (Σq + s = B), or
    /// the dynamic threshold's (q + s = alpha·(B − Σq), with B − Σq a multiple of alpha's
    /// denominator, `k` picking which).
    Edge {
        pool: bool,
        k: u16,
        size: u16,
        delta: i8,
    },
    /// `admit` asked of any state: used, the port's bytes and the size, in 1/256 of B.
    Query {
        used: u16,
        port_bytes: u16,
        size: u16,
    },
}

fn shared_op() -> impl Strategy<Value = SharedOp> {
    prop_oneof![
        8 => (any::<u8>(), pkt_gen()).prop_map(|(port, pkt)| SharedOp::Offer { port, pkt }),
        4 => (0u64..=24).prop_map(|eighths| SharedOp::Advance { eighths }),
        1 => (100u64..=1_000_000).prop_map(|us| SharedOp::Idle { us }),
        2 => Just(SharedOp::Next),
        1 => (0u16..=256, 0u16..=256, 0u16..=64).prop_map(|(used, port_bytes, size)| SharedOp::Query { used, port_bytes, size }),
        1 => (any::<bool>(), any::<u16>(), 1u16..=9000, -1i8..=1).prop_map(|(pool, k, size, delta)| SharedOp::Edge { pool, k, size, delta }),
    ]
}

/// Choudhury and Hahne's rule as docs/scenario-reference.md gives it: a packet of s bytes
/// joins a queue holding q iff Σq + s ≤ B (else the pool is full) and q + s ≤ alpha·(B − Σq).
fn admit_by_hand(cfg: &SharedCfg, used: u64, q: u64, s: u64) -> Result<(), Refusal> {
    if used + s > cfg.total {
        Err(Refusal::PoolFull)
    } else if ((q + s) as u128) << cfg.alpha_shift > cfg.alpha_num as u128 * (cfg.total - used) as u128 {
        Err(Refusal::PortThreshold)
    } else {
        Ok(())
    }
}

enum AnyPort {
    Fifo(Fifo),
    Classes(ClassesModel),
}

impl AnyPort {
    fn model(&mut self) -> &mut dyn PortModel {
        match self {
            AnyPort::Fifo(m) => m,
            AnyPort::Classes(m) => m,
        }
    }
}

fn run_shared(cfg: &SharedCfg, ops: &[SharedOp]) -> Result<(), TestCaseError> {
    let alpha = cfg.alpha_num as f64 / (1u64 << cfg.alpha_shift) as f64;
    let mut shared = SharedBuffer::new(Bytes::new(cfg.total), alpha);
    let (mut ports, mut models) = (Vec::new(), Vec::new());
    for l in &cfg.fifos {
        ports.push(l.port(Aqm::DropTail));
        models.push(AnyPort::Fifo(Fifo::new(l, AqmModel::DropTail)));
    }
    if let Some(l) = &cfg.classes {
        let threshold = AqmCfg::Threshold {
            k: 1,
            drop_nonect: true,
            count_in_service: true,
            at_dequeue: true,
        };
        let open = |aqm| ClassCfg {
            limit_packets: None,
            limit_bytes: None,
            alpha_quarters: None,
            quantum: 1500,
            aqm,
        };
        let q = QdiscCfg {
            link: l.clone(),
            classify: ClassifyCfg::Flow,
            classes: vec![open(AqmCfg::DropTail), open(threshold)],
            drr: false,
        };
        ports.push(q.port());
        models.push(AnyPort::Classes(ClassesModel::new(&q)));
    }
    for (id, port) in ports.iter_mut().enumerate() {
        port.memory_slot = Some(shared.add_port(crate::ids::PortId::at(id)));
    }
    let (ws, mut now, mut max_used) = (Time::ZERO, Time::ZERO, 0u64);
    for (step, op) in ops.iter().enumerate() {
        let at = |e: TestCaseError| TestCaseError::fail(format!("step {step} ({op:?}): {e}"));
        let check = |shared: &mut SharedBuffer, ports: &mut [Port], models: &mut [AnyPort], now: Time, max_used: u64| {
            for (m, port) in models.iter_mut().zip(ports.iter_mut()) {
                m.model().check(port)?;
            }
            let held: u64 = models.iter_mut().map(|m| m.model().held_bytes()).sum();
            let used = shared.used_at(now, ports, ws).as_u64();
            prop_assert_eq!(used, held, "the memory's bytes, the ports hold {}", held);
            prop_assert!(used <= cfg.total);
            prop_assert_eq!(shared.max_used.as_u64(), max_used);
            if let Err(e) = shared.check_invariants(now, ports, ws) {
                return Err(TestCaseError::fail(format!("SharedBuffer::check_invariants: {e}")));
            }
            Ok(())
        };
        match *op {
            SharedOp::Offer { port, pkt } => {
                let p = port as usize % ports.len();
                // As the simulation: a transmission ending now completes first, then the memory
                // admits (or refuses), then the port.
                if let AnyPort::Classes(m) = &mut models[p] {
                    for size in m.settle(&mut ports[p]).map_err(at)? {
                        shared.release(Bytes::new(size));
                    }
                }
                let held: u64 = models.iter_mut().map(|m| m.model().held_bytes()).sum();
                let used = shared.used_at(now, &mut ports, ws);
                prop_assert_eq!(used.as_u64(), held, "step {}: the memory's bytes", step);
                let (q_code, q_model) = match &mut models[p] {
                    AnyPort::Fifo(m) => (ports[p].occupancy_bytes(now, ws), m.held().1),
                    AnyPort::Classes(m) => (ports[p].threshold_bytes(&packet(&pkt, step as u32)), m.threshold_bytes(&pkt)),
                };
                prop_assert_eq!(
                    q_code.as_u64(),
                    q_model,
                    "step {}: the bytes the threshold weighs for port {}",
                    step,
                    p
                );
                let size = pkt.size as u64;
                let verdict = shared.admit(used, q_code, Bytes::new(size));
                prop_assert_eq!(verdict, admit_by_hand(cfg, held, q_model, size), "step {}: admit", step);
                let slot = ports[p].memory_slot.expect("a slot");
                match (verdict, &mut models[p]) {
                    (Err(why), m) => m.model().memory_refusal(&mut ports[p], why == Refusal::PoolFull),
                    (Ok(()), AnyPort::Fifo(m)) => {
                        if let Some(departure) = m.offer(&mut ports[p], &pkt, step as u32).map_err(at)? {
                            shared.hold(slot, Bytes::new(size), departure);
                            max_used = max_used.max(held + size);
                        }
                    }
                    (Ok(()), AnyPort::Classes(m)) => {
                        let (admitted, released) = m.offer(&mut ports[p], &pkt, step as u32).map_err(at)?;
                        if admitted {
                            shared.hold_until_released(Bytes::new(size));
                            max_used = max_used.max(held + size);
                        }
                        for size in released {
                            shared.release(Bytes::new(size));
                        }
                    }
                }
                check(&mut shared, &mut ports, &mut models, now, max_used).map_err(at)?;
            }
            SharedOp::Query { used, port_bytes, size } => {
                let part = |x: u16| cfg.total * x as u64 / 256;
                let (used, q, s) = (part(used), part(port_bytes).min(part(used)), part(size).max(1));
                let got = shared.admit(Bytes::new(used), Bytes::new(q), Bytes::new(s));
                prop_assert_eq!(got, admit_by_hand(cfg, used, q, s), "step {}: admit({}, {}, {})", step, used, q, s);
            }
            SharedOp::Edge { pool, k, size, delta } => {
                let total = cfg.total;
                let (used, q, s) = if pool {
                    let s = (size as u64).min(total);
                    let used = (total - s).saturating_add_signed(delta as i64).min(total);
                    (used, 0, s)
                } else {
                    let unit = 1u64 << cfg.alpha_shift;
                    let free = unit * (1 + k as u64 % (total / unit));
                    let at = cfg.alpha_num * free / unit; // alpha × free, exactly
                    let s = (size as u64).clamp(1, at);
                    (total - free, at.saturating_add_signed(delta as i64).saturating_sub(s), s)
                };
                let got = shared.admit(Bytes::new(used), Bytes::new(q), Bytes::new(s));
                prop_assert_eq!(got, admit_by_hand(cfg, used, q, s), "step {}: admit({}, {}, {})", step, used, q, s);
            }
            SharedOp::Advance { .. } | SharedOp::Idle { .. } | SharedOp::Next => {
                let to = match *op {
                    SharedOp::Advance { eighths } => now + Time::from_ps(cfg.fifos[0].unit().as_ps() * eighths / 8),
                    SharedOp::Idle { us } => now + Time::from_us(us),
                    _ => models.iter_mut().filter_map(|m| m.model().next_change()).min().unwrap_or(now),
                };
                loop {
                    let next = models.iter().enumerate().filter_map(|(i, m)| {
                        let t = match m {
                            AnyPort::Fifo(f) => f.next_event(),
                            AnyPort::Classes(c) => c.next_event(),
                        };
                        t.filter(|&t| t < to).map(|t| (t, i))
                    });
                    let Some((t, i)) = next.min() else { break };
                    now = t;
                    for m in models.iter_mut() {
                        m.model().set_now(t);
                    }
                    for size in models[i].model().fire(&mut ports[i], t).map_err(at)? {
                        shared.release(Bytes::new(size));
                    }
                    check(&mut shared, &mut ports, &mut models, now, max_used).map_err(at)?;
                }
                now = to;
                for m in models.iter_mut() {
                    m.model().set_now(to);
                }
                check(&mut shared, &mut ports, &mut models, now, max_used).map_err(at)?;
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------

fn cases() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn fifo_port_keeps_its_books(link in link(12), aqm in arrival_aqm(), ops in prop::collection::vec(op(), 1..=60)) {
        run_fifo(&link, &aqm, &ops)?;
    }

    #[test]
    fn strict_priority_classes_keep_their_books(cfg in qdisc_cfg(false), ops in prop::collection::vec(op(), 1..=60)) {
        run_classes(&cfg, &ops)?;
    }

    #[test]
    fn drr_classes_keep_their_books(cfg in qdisc_cfg(true), ops in prop::collection::vec(op(), 1..=60)) {
        run_classes(&cfg, &ops)?;
    }

    #[test]
    fn threshold_marks_exactly_above_k((cfg, ops) in threshold_case()) {
        run_threshold(&cfg, &ops)?;
    }

    #[test]
    fn red_keeps_its_average_and_probabilities((cfg, typical, ops) in red_case()) {
        run_red(&cfg, typical, &ops)?;
    }

    #[test]
    fn pi_follows_its_difference_equation((cfg, ops) in pi_case()) {
        run_pi(&cfg, &ops)?;
    }

    #[test]
    fn shared_memory_keeps_its_books(cfg in shared_cfg(), ops in prop::collection::vec(shared_op(), 1..=60)) {
        run_shared(&cfg, &ops)?;
    }
}
