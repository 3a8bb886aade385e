//! Congestion control as a whole controller (the smoltcp/quinn pattern): the
//! controller decides the congestion window, the slow-start threshold and an optional pacing
//! rate, and is told of every event that may change them: each ACK that advances snd_una
//! (with the time, the RTT sample and a read-only view of the connection), an ECN-Echo the
//! once-per-window guard lets through, entry to and exit from loss recovery, a
//! retransmission timeout and a restart after idle.
//!
//! The sender (`tcp/sender.rs`) keeps what every controller shares: the sequence space, the
//! SACK scoreboard, which segment goes next, the RTO timer, the "one reduction per window"
//! guard (RFC 3168 §6.1.2, which also sets CWR and covers loss and ECN alike), NewReno's
//! inflation and deflation during recovery (RFC 6582 bookkeeping of segments that left the
//! network, undone by the full ACK) and the pacing clock that honours the controller's rate.
//!
//! The standard window decisions (RFC 5681, RFC 6582, RFC 6675, RFC 3168) are the trait's
//! default methods, built from the helpers on `Window`, so a controller overrides only what
//! differs: TCP-ECN only says it negotiates ECN, DCTCP adds its estimator and its cut, CUBIC
//! replaces congestion avoidance and the reductions.
//!
//! The built-ins form a closed enum (static dispatch on the hot path, no `dyn`), generated
//! with `CcKind` (the scenario's names) by `controllers!` at the end of this file: adding a
//! controller is one file in this directory and one line there
//! (docs/extending.md, "A congestion controller").

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::units::{Rate, Time};
use cubic::CubicConfig;

/// What a controller decides: congestion window and slow-start threshold, bytes (fractional:
/// DCTCP cuts by α/2, CUBIC grows by fractions of a segment), and the pacing rate the host
/// honours (`None`: segments leave as the window allows); with the stack's fixed rules of
/// growth (`rules`), which every controller's growth goes through.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
    pub pacing: Option<Rate>,
    pub rules: GrowthRules,
}

/// The stack's rules of window growth (`tcp.ack_counting`, `abc_limit_segments`,
/// `idle_restart`): a property of the host's TCP, not of the controller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GrowthRules {
    pub counting: AckCounting,
    /// RFC 3465 §2.2's L, segments per ACK in slow start (infinite: no limit).
    pub abc_limit: f64,
    pub idle_restart: IdleRestart,
}

/// What a controller is built from, resolved once from the scenario's `tcp` table
/// (`TcpConfig::cc_params`): the segment size, the initial window, the stack's growth rules
/// and each built-in controller's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct CcParams {
    /// SMSS, bytes.
    pub mss: u32,
    pub init_cwnd_segments: u32,
    pub rules: GrowthRules,
    /// DCTCP's g, its α before the first window of ACKs, and its cwnd floor in segments.
    pub dctcp_g: f64,
    pub dctcp_alpha_init: f64,
    pub dctcp_min_cwnd_segments: u32,
    pub cubic: CubicConfig,
}

impl GrowthRules {
    /// `abc_limit_segments` = 0 is no limit.
    pub fn new(counting: AckCounting, abc_limit_segments: u32, idle_restart: IdleRestart) -> Self {
        GrowthRules {
            counting,
            abc_limit: if abc_limit_segments == 0 {
                f64::INFINITY
            } else {
                abc_limit_segments as f64
            },
            idle_restart,
        }
    }

    /// Segments an ACK of `acked` new bytes counts for: one per ACK, the segments it
    /// covers (a short final segment counting as one), or its bytes over SMSS (RFC 3465).
    #[inline]
    pub fn segments(&self, acked: u64, mss: f64) -> f64 {
        match self.counting {
            AckCounting::PerAck => 1.0,
            AckCounting::Segments | AckCounting::Delivered => (acked as f64 / mss).ceil(),
            AckCounting::Bytes => acked as f64 / mss,
        }
    }

    /// Segments an ACK of `acked` bytes adds in slow start: `segments`, at most L (RFC 3465
    /// §2.2) unless counted per ACK.
    #[inline]
    pub fn slow_start_segments(&self, acked: u64, mss: f64) -> f64 {
        self.segments(acked, mss).min(self.abc_limit)
    }
}

impl Window {
    /// RFC 5681 §3.1: IW segments, no threshold until the first congestion event.
    pub fn initial(p: &CcParams) -> Self {
        Window {
            cwnd: p.init_cwnd_segments as f64 * p.mss as f64,
            ssthresh: f64::INFINITY,
            pacing: None,
            rules: p.rules,
        }
    }

    /// RFC 5681 §3.1: slow start while cwnd < ssthresh.
    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 5681 §3.1 slow start for an ACK of `acked` new bytes, counted by the stack's rule
    /// (with L = 2, RFC 3465 §2.2, delayed ACKs still double cwnd per RTT). Without a limit L
    /// (Linux's `tcp_slow_start`), slow start stops at ssthresh and the bytes of the ACK
    /// beyond it are returned, for congestion avoidance; with one, nothing is left over.
    #[inline]
    pub fn slow_start(&mut self, acked: u64, mss: f64) -> u64 {
        let add = self.rules.slow_start_segments(acked, mss) * mss;
        if self.rules.abc_limit.is_finite() || self.cwnd + add <= self.ssthresh {
            self.cwnd += add;
            return 0;
        }
        let left = add - (self.ssthresh - self.cwnd);
        self.cwnd = self.ssthresh;
        left as u64
    }

    /// RFC 5681 §3.1 congestion avoidance, eq. (3) per segment counted: cwnd += SMSS·SMSS/cwnd.
    #[inline]
    pub fn avoid_congestion(&mut self, acked: u64, mss: f64) {
        self.cwnd += mss * self.rules.segments(acked, mss) * mss / self.cwnd;
    }

    /// RFC 5681 §3.1 growth for an ACK of `acked` new bytes.
    #[inline]
    pub fn grow(&mut self, acked: u64, mss: f64) {
        let acked = if self.in_slow_start() { self.slow_start(acked, mss) } else { acked };
        if acked > 0 {
            self.avoid_congestion(acked, mss);
        }
    }

    /// The standard ACK response: grow (RFC 5681 §3.1) when the ACK may raise cwnd.
    #[inline]
    pub fn grow_on(&mut self, ack: &Ack, c: &ConnView) {
        if ack.may_grow(c) {
            self.grow(ack.counted(self.rules.counting), c.mss);
        }
    }

    /// RFC 3168 §6.1.2: halve on ECN-Echo, `cwnd = ssthresh = max(cwnd/2, 1 MSS)`.
    pub fn halve(&mut self, mss: f64) {
        self.cwnd = (self.cwnd / 2.0).max(mss);
        self.ssthresh = self.cwnd;
    }

    /// RFC 5681 §3.1 eq. (4), also RFC 6582 §3.2 step 2 and RFC 6675 §5 step 4.2:
    /// ssthresh = max(FlightSize/2, 2·SMSS), FlightSize being the stack's reduction base
    /// (`ConnView::reduce_from`).
    pub fn halve_flight(&mut self, c: &ConnView) {
        let flight = c.reduce_from as f64;
        self.ssthresh = (flight / 2.0).max(2.0 * c.mss);
    }

    /// RFC 6582 §3.2 step 3, the full ACK that ends recovery:
    /// cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
    pub fn deflate_on_full_ack(&mut self, c: &ConnView) {
        let flight = c.flight as f64;
        self.cwnd = self.ssthresh.min(flight.max(c.mss) + c.mss);
    }

    /// After an idle period longer than the RTO: RFC 5681 §4.1, cwnd = min(IW, cwnd); or
    /// Linux's `tcp_cwnd_restart`: ssthresh = max(ssthresh, ¾·cwnd) (`tcp_current_ssthresh`),
    /// then cwnd halves once per RTO of idle time, never below min(IW, cwnd).
    pub fn restart(&mut self, c: &ConnView) {
        let restart_window = self.cwnd.min(c.iw);
        match self.rules.idle_restart {
            IdleRestart::Rfc5681 => self.cwnd = restart_window,
            IdleRestart::Linux => {
                self.ssthresh = self.ssthresh.max(0.75 * self.cwnd);
                if let Some(IdleSpell { mut idle, rto }) = c.idle {
                    while idle > rto && self.cwnd > restart_window {
                        self.cwnd = (self.cwnd / c.mss / 2.0).floor() * c.mss; // snd_cwnd >>= 1, whole segments
                        idle -= rto;
                    }
                }
                self.cwnd = self.cwnd.max(restart_window);
            }
        }
    }
}

/// An idle period that restarts the window: its length and the RTO it is measured against.
#[derive(Debug, Clone, Copy)]
pub struct IdleSpell {
    pub idle: Time,
    pub rto: Time,
}

/// What an ACK that advanced snd_una tells the controller.
#[derive(Debug, Clone, Copy)]
pub struct Ack {
    /// Bytes newly acknowledged (snd_una moved by this much).
    pub newly_acked: u64,
    /// RFC 6937 DeliveredData: bytes the receiver newly got by this ACK's account, the
    /// change in snd_una plus the change in SACKed bytes (data SACKed earlier and now
    /// cumulatively acknowledged counts once, when it was SACKed).
    pub delivered: u64,
    /// RFC 7323 RTTM sample from the echoed timestamp, if the ACK carried one.
    pub rtt: Option<Time>,
    /// The ACK carried ECN-Echo (on an ECN connection).
    pub ece: bool,
    /// The sender answers this ECN-Echo with `on_ecn_echo` right after this call (the
    /// once-per-window guard is open and no recovery runs): the window is being reduced, not grown.
    pub ecn_cut: bool,
}

impl Ack {
    /// The bytes this ACK counts for under `counting`: those newly delivered (Linux's
    /// `tcp_newly_delivered`), else those newly acknowledged (RFC 3465).
    #[inline]
    pub fn counted(&self, counting: AckCounting) -> u64 {
        match counting {
            AckCounting::Delivered => self.delivered,
            AckCounting::PerAck | AckCounting::Segments | AckCounting::Bytes => self.newly_acked,
        }
    }

    /// Whether this ACK may raise cwnd: not during loss recovery (RFC 6582/6675 manage the
    /// window there), not while cutting for ECN (RFC 3168 §6.1.2), and only with the window
    /// validated (RFC 7661 §4.3).
    #[inline]
    pub fn may_grow(&self, c: &ConnView) -> bool {
        !c.in_recovery && !self.ecn_cut && c.window_validated
    }
}

/// Read-only facts of the connection a controller may use (ns-3's TCB, without shared
/// mutation). Built by the sender at each call, after it processed the ACK's sequence numbers.
#[derive(Debug, Clone, Copy)]
pub struct ConnView {
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// SMSS, bytes.
    pub mss: f64,
    /// RFC 5681 §3.1 initial window, bytes.
    pub iw: f64,
    /// RFC 5681 FlightSize: bytes sent and not cumulatively acknowledged (snd_max − snd_una).
    pub flight: u64,
    /// What a reduction for loss or ECN-Echo is computed from, bytes (`tcp.ssthresh_from`):
    /// FlightSize (RFC 5681 §3.2 eq. (4)), or the stack's own base, RFC 6675's pipe (ns-3),
    /// cwnd (Linux) or min(cwnd, the peer's buffer) (ns-2). Set at the reductions' calls; in
    /// other calls it is FlightSize.
    pub reduce_from: u64,
    /// RFC 6298 smoothed RTT, once there is a sample.
    pub srtt: Option<Time>,
    pub in_recovery: bool,
    /// The sender's last attempt to send stopped at cwnd.
    pub cwnd_limited: bool,
    /// At a restart after idle (`on_idle_restart`): how long the sender was idle and the RTO.
    pub idle: Option<IdleSpell>,
    /// RFC 7661 §4.3: cwnd is validated, the sender being cwnd-limited or what was in flight
    /// when the ACK arrived being at least cwnd/2 (counted in segments).
    pub window_validated: bool,
}

/// A congestion controller. Every hook gets the window it decides (`w`), the current time and
/// the connection's facts; the defaults are NewReno's decisions (RFC 5681, RFC 6582 and
/// RFC 6675, RFC 3168), so a controller overrides only what it changes.
pub trait CongestionControl: Sized + Clone + std::fmt::Debug {
    /// Built from the controllers' parameters (the scenario's `tcp` table, resolved).
    fn new(p: &CcParams) -> Self;

    /// Whether the sender negotiates ECN and marks its data ECT (RFC 3168 §6.1.1).
    fn ecn_capable(&self) -> bool;

    /// Every ACK that advances snd_una, before the sender's recovery and ECN responses:
    /// estimators, then growth. Default: RFC 5681 §3.1 when the ACK may grow cwnd.
    fn on_ack(&mut self, w: &mut Window, _now: Time, ack: &Ack, c: &ConnView) {
        w.grow_on(ack, c);
    }

    /// ECN-Echo, once the once-per-window guard allows a reduction. Default: RFC 3168
    /// §6.1.2 halving.
    fn on_ecn_echo(&mut self, w: &mut Window, _now: Time, c: &ConnView) {
        w.halve(c.mss);
    }

    /// Loss recovery starts (DupThresh duplicate ACKs, or RFC 6675 IsLost(snd_una)); `c.flight`
    /// is FlightSize. Default: RFC 6582 §3.2 step 2 / RFC 6675 §5 step 4.2, ssthresh =
    /// max(FlightSize/2, 2·SMSS) and cwnd = ssthresh (the sender then adds NewReno's 3·SMSS
    /// inflation when it runs without SACK).
    fn on_recovery_start(&mut self, w: &mut Window, _now: Time, c: &ConnView) {
        w.halve_flight(c);
        w.cwnd = w.ssthresh;
    }

    /// The full ACK (snd_una ≥ recover) ends recovery. Default: RFC 6582 §3.2 step 3.
    fn on_recovery_end(&mut self, w: &mut Window, _now: Time, c: &ConnView) {
        w.deflate_on_full_ack(c);
    }

    /// The retransmission timer expired with data outstanding. Default: RFC 5681 §3.1
    /// eq. (4) and the loss window, cwnd = 1 SMSS.
    fn on_rto(&mut self, w: &mut Window, _now: Time, c: &ConnView) {
        w.halve_flight(c);
        w.cwnd = c.mss;
    }

    /// The sender is about to send new data after an idle period (`c.idle`) longer than the
    /// RTO (RFC 5681 §4.1; `tcp.slow_start_after_idle`), once per idle period. Default: the
    /// stack's restart rule (`Window::restart`).
    fn on_idle_restart(&mut self, w: &mut Window, _now: Time, c: &ConnView) {
        w.restart(c);
    }

    /// The estimator value to report (DCTCP's α), NaN for the others.
    fn alpha(&self) -> f64 {
        f64::NAN
    }
}

/// A connection end's controller: the window it decides and its algorithm, dispatched by
/// `match` over the built-ins.
#[derive(Debug, Clone)]
pub struct Cc {
    pub win: Window,
    algo: Algo,
}

/// `Cc`'s dispatch of the hooks that take (now, connection view): one method per name, each
/// a `match` over the built-ins (`[Type, ...]`).
macro_rules! event_hooks {
    ($types:tt $($hook:ident)+) => {
        $(event_hook!($types $hook);)+
    };
}

macro_rules! event_hook {
    ([$($ty:ident),+] $hook:ident) => {
        pub fn $hook(&mut self, now: Time, c: &ConnView) {
            match &mut self.algo {
                $(Algo::$ty(a) => a.$hook(&mut self.win, now, c),)+
            }
        }
    };
}

/// The registry: generates `CcKind` (the scenario's names, in this order), the enum of
/// built-ins and `Cc`'s dispatch. Each entry is `module::Type = "name"` with the doc that the
/// schema shows; the module is a file in this directory.
macro_rules! controllers {
    ($($(#[$doc:meta])* $module:ident::$ty:ident = $name:literal,)+) => {
        $(pub mod $module;)+
        $(pub use $module::$ty;)+

        /// Congestion control by name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        pub enum CcKind {
            $($(#[$doc])* #[serde(rename = $name)] $ty,)+
        }

        impl CcKind {
            /// Every controller, in the registry's order.
            pub const ALL: &'static [CcKind] = &[$(CcKind::$ty,)+];

            pub fn name(self) -> &'static str {
                match self {
                    $(CcKind::$ty => $name,)+
                }
            }
        }

        #[derive(Debug, Clone)]
        enum Algo {
            $($ty($ty),)+
        }

        impl Cc {
            pub fn new(kind: CcKind, p: &CcParams) -> Self {
                let algo = match kind {
                    $(CcKind::$ty => Algo::$ty(<$ty as CongestionControl>::new(p)),)+
                };
                Cc { win: Window::initial(p), algo }
            }

            pub fn ecn_capable(&self) -> bool {
                match &self.algo {
                    $(Algo::$ty(a) => a.ecn_capable(),)+
                }
            }

            #[inline]
            pub fn on_ack(&mut self, now: Time, ack: &Ack, c: &ConnView) {
                match &mut self.algo {
                    $(Algo::$ty(a) => a.on_ack(&mut self.win, now, ack, c),)+
                }
            }

            event_hooks!([$($ty),+] on_ecn_echo on_recovery_start on_recovery_end on_rto on_idle_restart);

            pub fn alpha(&self) -> f64 {
                match &self.algo {
                    $(Algo::$ty(a) => a.alpha(),)+
                }
            }
        }
    };
}

controllers! {
    /// RFC 5681 + RFC 6582, no ECN.
    newreno::NewReno = "newreno",
    /// NewReno with RFC 3168 ECN: halve once per window on ECN-Echo.
    tcp_ecn::TcpEcn = "tcp_ecn",
    /// DCTCP (DCTCP paper §3.1).
    dctcp::Dctcp = "dctcp",
    /// CUBIC (RFC 9438), Linux's default; parameters in `tcp.cubic`.
    cubic::Cubic = "cubic",
}

#[cfg(test)]
mod model_tests;

/// How an ACK counts towards window growth (`tcp.ack_counting`; RFC 5681 §3.1, RFC 3465).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AckCounting {
    /// Every ACK that advances snd_una counts as one segment, however much it covers: slow
    /// start adds 1 MSS per ACK (×1.5 per RTT with delayed ACKs), congestion avoidance
    /// MSS²/cwnd (RFC 5681 §3.1 as written; Linux 2.6 with `tcp_abc` = 0, ns-2).
    PerAck,
    /// The segments it newly acknowledges, a short one counting as one, up to
    /// `abc_limit_segments` per ACK in slow start (our choice for the papers' stacks,
    /// which they do not describe).
    #[default]
    Segments,
    /// The segments newly delivered by its account, as Linux ≥ 3.13 counts
    /// (`tcp_newly_delivered`): those newly SACKed plus those newly acknowledged that were
    /// not SACKed before (RFC 6937's DeliveredData), up to `abc_limit_segments`.
    Delivered,
    /// Appropriate byte counting (RFC 3465): the bytes it acknowledges, up to
    /// `abc_limit_segments`·SMSS per ACK in slow start (§2.2), and in congestion avoidance
    /// SMSS·bytes/cwnd (§2.1's byte counter, in its fractional form).
    Bytes,
}

/// What restarts the window after an idle period longer than the RTO (`tcp.idle_restart`,
/// when `slow_start_after_idle`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IdleRestart {
    /// RFC 5681 §4.1: cwnd = min(IW, cwnd).
    #[default]
    Rfc5681,
    /// Linux `tcp_cwnd_restart`: ssthresh = max(ssthresh, ¾·cwnd), then cwnd halves once per
    /// RTO of idle time, not below min(IW, cwnd).
    Linux,
}

#[cfg(test)]
#[path = "unit_tests.rs"]
mod tests;
