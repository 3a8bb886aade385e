//! Operation models of every controller (proptest): random sequences of what a sender tells
//! its controller (ACKs of any size with or without an RTT sample and ECN-Echo, ECN cuts,
//! loss recovery entered and left, timeouts, restarts after idle, time passing), in the order
//! the stack can produce them. After every step the window stays finite, at least one
//! segment and at most the byte bound; the threshold stays at least one segment; a pacing
//! rate is positive; DCTCP's α stays in [0, 1].
//!
//! `make test` runs 64 sequences per controller; `PROPTEST_CASES=N` more (docs/validation.md).

use proptest::prelude::*;

use super::{Ack, Cc, ConnView, IdleSpell};
use crate::scenario::{limits, CcKind, TcpConfig};
use crate::units::Time;

const MSS: f64 = 1460.0;

#[derive(Debug, Clone)]
enum Op {
    /// An ACK of this many segments (0: a duplicate), with an RTT sample and ECN-Echo or not.
    Ack {
        segments: u8,
        rtt_us: Option<u32>,
        ece: bool,
    },
    EcnEcho,
    Loss,
    Recovered,
    Timeout,
    IdleRestart {
        idle_ms: u32,
    },
    Advance {
        us: u32,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..=16, proptest::option::of(1u32..=50_000), any::<bool>()).prop_map(|(segments, rtt_us, ece)| Op::Ack { segments, rtt_us, ece }),
        1 => Just(Op::EcnEcho),
        1 => Just(Op::Loss),
        1 => Just(Op::Recovered),
        1 => Just(Op::Timeout),
        1 => (1u32..=5_000).prop_map(|idle_ms| Op::IdleRestart { idle_ms }),
        2 => (1u32..=100_000).prop_map(|us| Op::Advance { us }),
    ]
}

/// The sender's side of the model: what it has sent and had acknowledged.
struct Sender {
    una: u64,
    nxt: u64,
    in_recovery: bool,
    now: Time,
}

impl Sender {
    fn view(&self, cc: &Cc, idle: Option<IdleSpell>) -> ConnView {
        let flight = self.nxt - self.una;
        ConnView {
            snd_una: self.una,
            snd_nxt: self.nxt,
            snd_max: self.nxt,
            mss: MSS,
            iw: 10.0 * MSS,
            flight,
            reduce_from: flight,
            srtt: Some(Time::from_us(100)),
            in_recovery: self.in_recovery,
            cwnd_limited: flight as f64 >= cc.win.cwnd,
            idle,
            window_validated: true,
        }
    }

    /// Sends what the window allows.
    fn fill(&mut self, cc: &Cc) {
        let room = (cc.win.cwnd as u64).saturating_sub(self.nxt - self.una);
        self.nxt += room / MSS as u64 * MSS as u64;
    }
}

fn check(cc: &Cc, kind: CcKind, step: usize) -> Result<(), TestCaseError> {
    let (cwnd, ssthresh) = (cc.win.cwnd, cc.win.ssthresh);
    prop_assert!(
        cwnd.is_finite() && cwnd >= MSS && cwnd <= limits::MAX_BYTES as f64,
        "{kind:?} step {step}: cwnd {cwnd}"
    );
    prop_assert!(ssthresh >= MSS && !ssthresh.is_nan(), "{kind:?} step {step}: ssthresh {ssthresh}");
    if let Some(rate) = cc.win.pacing {
        prop_assert!(rate.bps() >= 1, "{kind:?} step {step}");
    }
    let alpha = cc.alpha();
    prop_assert!(
        alpha.is_nan() || (0.0..=1.0).contains(&alpha),
        "{kind:?} step {step}: alpha {alpha}"
    );
    Ok(())
}

fn run(kind: CcKind, ops: &[Op]) -> Result<(), TestCaseError> {
    let t = TcpConfig {
        cc: kind,
        ..TcpConfig::default()
    };
    let mut cc = Cc::new(kind, &t.cc_params());
    let mut s = Sender {
        una: 1,
        nxt: 1,
        in_recovery: false,
        now: Time::ZERO,
    };
    s.fill(&cc);
    check(&cc, kind, 0)?;
    for (step, op) in ops.iter().enumerate() {
        match *op {
            Op::Ack { segments, rtt_us, ece } => {
                let newly = (segments as u64 * MSS as u64).min(s.nxt - s.una);
                let ece = ece && cc.ecn_capable();
                let ack = Ack {
                    newly_acked: newly,
                    delivered: newly,
                    rtt: rtt_us.map(|us| Time::from_us(us as u64)),
                    ece,
                    ecn_cut: false,
                };
                s.una += newly;
                if newly > 0 {
                    let view = s.view(&cc, None);
                    cc.on_ack(s.now, &ack, &view);
                }
            }
            Op::EcnEcho if cc.ecn_capable() && !s.in_recovery => {
                let view = s.view(&cc, None);
                cc.on_ecn_echo(s.now, &view);
            }
            Op::Loss if !s.in_recovery && s.nxt > s.una => {
                s.in_recovery = true;
                let view = s.view(&cc, None);
                cc.on_recovery_start(s.now, &view);
            }
            Op::Recovered if s.in_recovery => {
                s.in_recovery = false;
                let view = s.view(&cc, None);
                cc.on_recovery_end(s.now, &view);
            }
            Op::Timeout => {
                s.in_recovery = false;
                let view = s.view(&cc, None);
                cc.on_rto(s.now, &view);
                s.nxt = s.una; // go-back-N from snd_una
            }
            Op::IdleRestart { idle_ms } if !s.in_recovery => {
                // Everything in flight is acknowledged, then the sender has nothing to send.
                let newly = s.nxt - s.una;
                if newly > 0 {
                    let ack = Ack {
                        newly_acked: newly,
                        delivered: newly,
                        rtt: None,
                        ece: false,
                        ecn_cut: false,
                    };
                    s.una = s.nxt;
                    let view = s.view(&cc, None);
                    cc.on_ack(s.now, &ack, &view);
                }
                let idle = IdleSpell {
                    idle: Time::from_ms(idle_ms as u64),
                    rto: Time::from_ms(200),
                };
                s.now += idle.idle;
                let view = s.view(&cc, Some(idle));
                cc.on_idle_restart(s.now, &view);
            }
            Op::Advance { us } => s.now += Time::from_us(us as u64),
            _ => continue, // not something the stack does in this state
        }
        s.fill(&cc);
        check(&cc, kind, step + 1)?;
    }
    Ok(())
}

fn cases() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cases())]

    #[test]
    fn newreno_keeps_its_bounds(ops in proptest::collection::vec(op(), 1..200)) {
        run(CcKind::NewReno, &ops)?;
    }

    #[test]
    fn tcp_ecn_keeps_its_bounds(ops in proptest::collection::vec(op(), 1..200)) {
        run(CcKind::TcpEcn, &ops)?;
    }

    #[test]
    fn dctcp_keeps_its_bounds(ops in proptest::collection::vec(op(), 1..200)) {
        run(CcKind::Dctcp, &ops)?;
    }

    #[test]
    fn cubic_keeps_its_bounds(ops in proptest::collection::vec(op(), 1..200)) {
        run(CcKind::Cubic, &ops)?;
    }
}
