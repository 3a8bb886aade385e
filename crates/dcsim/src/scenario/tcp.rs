//! `[tcp]`: the hosts' TCP stack.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{limits, whole, CcKind, CubicConfig, StackProfile};
use crate::error::ConfigError;
pub use crate::tcp::cc::{AckCounting, IdleRestart};
use crate::tcp::cc::{CcParams, GrowthRules};
use crate::tcp::endpoint::TcpParams;
pub use crate::tcp::options::{CwndValidation, DctcpReceiver, EctOnControl, Recovery, SsthreshFrom};
use crate::tcp::rtt::RtoBounds;
use crate::units::Time;

/// The smallest MSS, bytes: 64, well below any real path's (IPv4's smallest MTU, 576 B,
/// leaves 536 B).
const MIN_MSS_BYTES: u32 = 64;
/// The largest MSS, bytes: with 40 B of IP and TCP headers, within IPv4's 65,535-B packet.
const MAX_MSS_BYTES: u32 = 65_000;
/// The smallest MTU, bytes: the 576-B datagram every IPv4 host must accept (RFC 791).
const MIN_MTU_BYTES: u32 = 576;
/// The largest MTU, bytes: the largest MSS plus 40 B of IP and TCP headers.
const MAX_MTU_BYTES: u32 = MAX_MSS_BYTES + 40;
/// The most header bytes a segment carries: 10,000, far above the 120 B of IPv4 and TCP with
/// every option (room for any encapsulation).
const MAX_HEADER_BYTES: u32 = 10_000;
/// SYN and SYN-ACK resends: at most 127, Linux's bound on `tcp_syn_retries` and
/// `tcp_synack_retries`.
const MAX_SYN_RETRIES: u32 = 127;
/// DupThresh's largest value: 1000, above Linux's `tcp_max_reordering` (300), the most
/// reordering a real stack waits for.
const MAX_DUPACK_THRESHOLD: u32 = 1000;
/// The largest per-ACK slow-start limit L, segments: 1000 (RFC 3465 §2.2 gives 2; 0 lifts
/// the limit altogether).
const MAX_ABC_LIMIT_SEGMENTS: u32 = 1000;

/// The TCP stack of every host (flows may override `cc`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// A named stack (`docs/stacks.md`) whose fields, each with its source, fill in what
    /// this table does not set. Default: none, the engine's defaults (the papers' assumptions).
    pub profile: Option<StackProfile>,
    pub cc: CcKind,
    /// Payload bytes per segment. Default: 1460 (MTU 1500 minus 40 B of headers), or
    /// `mtu_bytes − header_bytes` when `mtu_bytes` is set.
    #[schemars(range(min = "MIN_MSS_BYTES", max = "MAX_MSS_BYTES"))]
    pub mss: Option<u32>,
    /// The IP MTU, bytes, instead of `mss`: the MSS becomes `mtu_bytes − header_bytes`
    /// (jumbo frames: 9000, so 8960-B segments). Links still add `framing_bytes` per frame,
    /// so a 9000-B frame spends 0.4% of the wire on framing where a 1500-B one spends 2.5%.
    /// Set `mss` or `mtu_bytes`, not both. In [576, 65040] (IPv4's minimum; the MSS bound).
    #[schemars(range(min = "MIN_MTU_BYTES", max = "MAX_MTU_BYTES"))]
    pub mtu_bytes: Option<u32>,
    /// IP + TCP header bytes added to every segment.
    #[schemars(range(max = "MAX_HEADER_BYTES"))]
    pub header_bytes: u32,
    /// Initial congestion window, segments (our choice, the papers do not say: 2, as ns-2 `windowInit_`).
    #[schemars(range(min = 1, max = "limits::MAX_SEGMENTS"))]
    pub init_cwnd_segments: u32,
    /// Minimum retransmission timeout, ms (300 = DCTCP testbed default, 10 = tuned).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub rto_min_ms: f64,
    /// Initial RTO before any RTT sample, also for SYNs, ms (RFC 6298: 1 s).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub rto_initial_ms: f64,
    /// Upper bound of the backed-off RTO, ms.
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub rto_max_ms: f64,
    /// Timer granularity: RTOs round up to a multiple of this, ms (0 = exact).
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub timer_tick_ms: f64,
    /// Delayed ACKs: one ACK every m in-order segments (DCTCP paper §3.1: m = 2).
    #[schemars(range(min = 1, max = "limits::MAX_SEGMENTS"))]
    pub delayed_ack_segments: u32,
    /// Delayed-ACK timeout, ms.
    #[schemars(range(min = 0.0, max = "limits::MAX_TIMER_MS"))]
    pub delayed_ack_timeout_ms: f64,
    /// Receive buffer, bytes: the advertised window is the free space in it. With
    /// `rcv_autotune` on, only the connections whose flow, query or generator sets its own
    /// `rcv_buffer_bytes` keep a fixed buffer (as Linux's SO_RCVBUF turns tuning off).
    #[schemars(range(min = 1, max = "limits::MAX_RCV_BUFFER"))]
    pub rcv_buffer_bytes: u64,
    /// Receive-buffer auto-tuning, Linux's dynamic right-sizing (`tcp_rcv_space_adjust`):
    /// each receiver starts at `rcv_autotune_initial_bytes` and, once per RTT it
    /// measures from echoed timestamps, grows its buffer to twice the bytes it read in that
    /// RTT plus 16 segments (more while the sender's rate grows), up to
    /// `rcv_autotune_max_bytes`.
    /// Off (the default): every buffer is `rcv_buffer_bytes` ("Receive Buffer Tuning Off").
    pub rcv_autotune: bool,
    /// Auto-tuning's initial buffer, bytes: 43,690, the window Linux (≥ 3.4, whose
    /// `tcp_adv_win_scale` = 1 offers half of a socket's memory as window) gets from its
    /// default `tcp_rmem[1]` = 87,380 B.
    #[schemars(range(min = 1, max = "limits::MAX_RCV_BUFFER"))]
    pub rcv_autotune_initial_bytes: u64,
    /// Auto-tuning's cap, bytes: 3 MiB, the window of Linux's `tcp_rmem[2]` = 6 MiB of memory
    /// (half of it, as for the initial buffer).
    #[schemars(range(min = 1, max = "limits::MAX_RCV_BUFFER"))]
    pub rcv_autotune_max_bytes: u64,
    /// DCTCP estimation gain g (DCTCP paper §3.5: 1/16).
    #[schemars(range(min = 0.0, max = "limits::MAX_FRACTION"))]
    pub dctcp_g: f64,
    /// DCTCP initial alpha (our choice, the papers do not say: 1.0, Linux `dctcp_alpha_on_init`).
    #[schemars(range(min = 0.0, max = "limits::MAX_FRACTION"))]
    pub dctcp_alpha_init: f64,
    /// Smallest cwnd after a DCTCP cut, segments (our choice, the papers do not say: 2, as Linux).
    #[schemars(range(max = "limits::MAX_SEGMENTS"))]
    pub dctcp_min_cwnd_segments: u32,
    pub dctcp_receiver: DctcpReceiver,
    pub ect_on_control: EctOnControl,
    /// ECT on SYN and SYN-ACK, overriding `ect_on_control` (default: as it). `true` is
    /// Linux's later fix for DCTCP (ECT(0) SYNs); RFC 3168 §6.1.1 hosts send none, and a
    /// RED-ECN queue above K drops them (Judd's "Connection Establishment" slide).
    pub ect_on_syn: Option<bool>,
    /// ECT on pure ACKs, overriding `ect_on_control` (default: as it; RFC 3168 §6.1.4: none).
    pub ect_on_ack: Option<bool>,
    /// SYNs sent again, with the RTO doubling from `rto_initial_ms` up to `rto_max_ms`,
    /// before the connection gives up: Linux's `tcp_syn_retries`, 6. With a 1 s initial RTO
    /// Linux gives up 127 s after the first SYN; with the default `rto_max_ms` of 60 s (RFC
    /// 6298's floor for a cap; Linux's is 120 s) the last wait is 60 s, so 123 s. At most
    /// 127 (Linux's bound).
    #[schemars(range(max = "MAX_SYN_RETRIES"))]
    pub syn_retries: u32,
    /// SYN-ACKs sent again before the listener drops a half-open connection (and listens
    /// again, as Linux drops the request): Linux's `tcp_synack_retries`, 5. At most 127.
    #[schemars(range(max = "MAX_SYN_RETRIES"))]
    pub synack_retries: u32,
    /// SACK (RFC 2018) with RFC 6675 loss recovery; off = NewReno recovery (RFC 6582). Both
    /// papers' baselines were "NewReno with SACK" (DCTCP §4, ICTCP §VII).
    pub sack: bool,
    /// Limited transmit (RFC 3042). Not mentioned by the papers: off by default (our choice).
    pub limited_transmit: bool,
    /// DupThresh: duplicate ACKs (or SACKed segments above a hole) that start loss recovery,
    /// in [1, 1000] (RFC 5681 §3.2 and RFC 6675 §2: 3). Networks that reorder, such as packet
    /// spraying (`switch.ecmp = "per_packet"`), need more (Linux raises its `reordering` up to
    /// `tcp_max_reordering` = 300 as it sees reordering).
    #[schemars(range(min = 1, max = "MAX_DUPACK_THRESHOLD"))]
    pub dupack_threshold: u32,
    /// RFC 5681 §4.1: restart from the initial window after an idle period longer than the RTO.
    pub slow_start_after_idle: bool,
    /// How the window restarts after idle (`slow_start_after_idle`): RFC 5681 §4.1, or
    /// Linux's halving per idle RTO.
    pub idle_restart: IdleRestart,
    /// How ACKs count towards window growth: per ACK, per segment acknowledged, or
    /// appropriate byte counting (RFC 3465).
    pub ack_counting: AckCounting,
    /// L: the most an ACK may add in slow start, segments (RFC 3465 §2.2: 2), with
    /// `ack_counting` = `segments`, `delivered` or `bytes`; 0 = no limit, as current Linux, whose slow start
    /// then stops at ssthresh and counts the rest of the ACK in congestion avoidance. At most
    /// 1000.
    #[schemars(range(max = "MAX_ABC_LIMIT_SEGMENTS"))]
    pub abc_limit_segments: u32,
    /// When an application-limited sender may still grow cwnd.
    pub cwnd_validation: CwndValidation,
    /// The window during SACK loss recovery: RFC 6675, or proportional rate reduction
    /// (RFC 6937). Without SACK, recovery is NewReno's (RFC 6582) either way.
    pub recovery: Recovery,
    /// Tail loss probe (RFC 8985 §7): with SACK, outside recovery and with an RTT sample, a
    /// probe timeout of 2·SRTT (plus the worst-case delayed ACK, 200 ms, when one segment
    /// is out; never beyond the RTO) sends new data or resends the last segment, so a tail
    /// loss is repaired by SACK recovery instead of the RTO. Loss detection stays RFC 6675's
    /// (RACK's time-based detection, RFC 8985 §6, is not modelled).
    pub tail_loss_probe: bool,
    /// Early retransmit (RFC 5827): with fewer than 4 segments out and nothing new the
    /// windows let it send, DupThresh falls to the segments out minus one, so a short
    /// response's loss is repaired by fast retransmit instead of the RTO. With it, as in
    /// Linux, any ACK bringing new SACK information (not only a duplicate) may start
    /// recovery when the segment after it is deemed lost.
    pub early_retransmit: bool,
    /// What a loss's reduction (the slow-start threshold on entering recovery and at a
    /// timeout, and PRR's RecoverFS) is computed from: FlightSize (RFC 5681 §3.2 eq. (4)),
    /// RFC 6675's pipe (ns-3), cwnd (Linux) or min(cwnd, the peer's buffer) (ns-2). The
    /// controller's rule is unchanged: NewReno halves it, CUBIC multiplies it by β. With many
    /// segments SACKed when recovery starts, pipe is the smallest. A timeout of data that
    /// already timed out holds ssthresh (RFC 5681 §3.1), except under ns-2's rule.
    pub ssthresh_from: SsthreshFrom,
    /// cwnd never grows past the largest window the peer can advertise: its receive buffer,
    /// or auto-tuning's cap (as FreeBSD's NewReno bounds cwnd by `TCP_MAXWIN << snd_scale`,
    /// the largest window the peer's window scale allows). A window beyond it can never be
    /// used, yet without the clamp a sender whose growth is not validated (`cwnd_validation`
    /// = "off") keeps growing it while its NIC or the peer's window holds it back, and a
    /// halving then leaves it above what the network can take. Linux has no such clamp
    /// (`snd_cwnd_clamp` is unlimited unless a route sets it) but grows only a cwnd-limited
    /// window; ns-2 clamps only when `maxcwnd_` is set. Default: on.
    pub cwnd_clamp: bool,
    /// F-RTO (RFC 5682 §3, the SACK-enhanced algorithm, which also runs without SACK): after
    /// a retransmission timeout the sender resends only the first unacknowledged segment; if
    /// the first new ACK does not cover everything outstanding, it sends up to two new
    /// segments instead of further retransmissions, and if the next ACK acknowledges data
    /// sent before the timeout without showing a loss, the timeout was spurious: the sender
    /// goes on with new data and restores the window and threshold saved at the timeout
    /// (the Eifel response, RFC 4015 §3). Otherwise, or when no new data can be sent, the
    /// usual RTO recovery goes on. Off (the default): the papers assume plain RFC 6298 and
    /// RFC 5681 timeouts. Every timeout is classified as spurious or not either way
    /// (`spurious_timeouts` in the results).
    pub frto: bool,
    /// CUBIC's parameters (`cc = "cubic"`).
    pub cubic: CubicConfig,
}

const DEFAULT_MSS: u32 = 1460;

impl TcpConfig {
    /// Payload bytes per segment: `mss`, or from `mtu_bytes`, or 1460.
    pub fn segment_bytes(&self) -> u32 {
        match (self.mss, self.mtu_bytes) {
            (Some(mss), _) => mss,
            (None, Some(mtu)) => mtu.saturating_sub(self.header_bytes),
            (None, None) => DEFAULT_MSS,
        }
    }

    /// Bytes of a full-size packet: a segment's payload with its headers (what a port's
    /// packet limits, K in bytes and a host's queue limit count in).
    pub fn packet_bytes(&self) -> u32 {
        self.segment_bytes() + self.header_bytes
    }

    /// The settings of a connection's ends under this table, with controller `cc`, the
    /// receive buffer its application set (if any) and the hosts' offload bursts.
    pub fn endpoint_params(&self, cc: CcKind, rcv_buffer: Option<u64>, offload_burst_segments: u32) -> TcpParams {
        let stack = self.stack_params(cc, offload_burst_segments);
        match rcv_buffer {
            Some(bytes) => stack.with_app_rcv_buffer(bytes),
            None => stack,
        }
    }

    /// The settings of a connection's ends with controller `cc` and the stack's own receive
    /// buffer (what `TcpParams::with_app_rcv_buffer` adapts to one the application sets).
    pub fn stack_params(&self, cc: CcKind, offload_burst_segments: u32) -> TcpParams {
        let t = self;
        let ect_on_control = match t.ect_on_control {
            EctOnControl::Auto => cc == CcKind::Dctcp,
            EctOnControl::Rfc3168 => false,
            EctOnControl::All => true,
        };
        // The stack's buffer, auto-tuned from its initial size if `tcp.rcv_autotune`.
        let rcv_autotune_max = t.rcv_autotune.then_some(t.rcv_autotune_max_bytes);
        let rcv_buffer = if t.rcv_autotune {
            t.rcv_autotune_initial_bytes
        } else {
            t.rcv_buffer_bytes
        };
        TcpParams {
            mss: t.segment_bytes(),
            header_bytes: t.header_bytes,
            init_cwnd_segments: t.init_cwnd_segments,
            rto: RtoBounds {
                min: Time::from_ms_f64(t.rto_min_ms),
                initial: Time::from_ms_f64(t.rto_initial_ms),
                max: Time::from_ms_f64(t.rto_max_ms),
                tick: Time::from_ms_f64(t.timer_tick_ms),
            },
            delack_segments: t.delayed_ack_segments,
            delack_timeout: Time::from_ms_f64(t.delayed_ack_timeout_ms),
            rcv_buffer,
            rcv_autotune_max,
            ect_on_syn: t.ect_on_syn.unwrap_or(ect_on_control),
            ect_on_ack: t.ect_on_ack.unwrap_or(ect_on_control),
            ect_on_retransmit: ect_on_control,
            syn_retries: t.syn_retries,
            synack_retries: t.synack_retries,
            dctcp_receiver: (cc == CcKind::Dctcp).then_some(t.dctcp_receiver),
            slow_start_after_idle: t.slow_start_after_idle,
            offload_burst_segments,
            sack: t.sack,
            limited_transmit: t.limited_transmit,
            dupthresh: t.dupack_threshold,
            cwnd_validation: t.cwnd_validation,
            recovery: t.recovery,
            tail_loss_probe: t.tail_loss_probe,
            early_retransmit: t.early_retransmit,
            ssthresh_from: t.ssthresh_from,
            // Both ends share these settings, so the peer's largest buffer is this end's.
            cwnd_clamp: if t.cwnd_clamp {
                rcv_autotune_max.unwrap_or(rcv_buffer) as f64
            } else {
                f64::INFINITY
            },
            frto: t.frto,
        }
    }

    /// What the congestion controllers are built from, resolved from this table.
    pub fn cc_params(&self) -> CcParams {
        CcParams {
            mss: self.segment_bytes(),
            init_cwnd_segments: self.init_cwnd_segments,
            rules: GrowthRules::new(self.ack_counting, self.abc_limit_segments, self.idle_restart),
            dctcp_g: self.dctcp_g,
            dctcp_alpha_init: self.dctcp_alpha_init,
            dctcp_min_cwnd_segments: self.dctcp_min_cwnd_segments,
            cubic: self.cubic.clone(),
        }
    }
}

impl Default for TcpConfig {
    fn default() -> Self {
        Self {
            profile: None,
            cc: CcKind::NewReno,
            mss: None,
            mtu_bytes: None,
            header_bytes: 40,
            init_cwnd_segments: 2,
            rto_min_ms: 300.0,
            rto_initial_ms: 1000.0,
            rto_max_ms: 60_000.0,
            timer_tick_ms: 0.0,
            delayed_ack_segments: 2,
            delayed_ack_timeout_ms: 40.0,
            rcv_buffer_bytes: 8_000_000,
            rcv_autotune: false,
            rcv_autotune_initial_bytes: 43_690,
            rcv_autotune_max_bytes: 3 << 20,
            dctcp_g: 1.0 / 16.0,
            dctcp_alpha_init: 1.0,
            dctcp_min_cwnd_segments: 2,
            dctcp_receiver: DctcpReceiver::Paper,
            ect_on_control: EctOnControl::Auto,
            ect_on_syn: None,
            ect_on_ack: None,
            syn_retries: 6,
            synack_retries: 5,
            sack: true,
            limited_transmit: false,
            dupack_threshold: 3,
            slow_start_after_idle: true,
            idle_restart: IdleRestart::Rfc5681,
            ack_counting: AckCounting::Segments,
            abc_limit_segments: 2,
            cwnd_validation: CwndValidation::Rfc7661,
            recovery: Recovery::Rfc6675,
            tail_loss_probe: false,
            early_retransmit: false,
            ssthresh_from: SsthreshFrom::FlightSize,
            cwnd_clamp: true,
            frto: false,
            cubic: CubicConfig::default(),
        }
    }
}

impl TcpConfig {
    /// Ranges of the stack's settings, and the receive buffers against the segment size.
    pub(super) fn check(&self) -> Result<(), ConfigError> {
        use limits::*;
        let err = |field: &str, reason: String| Err(ConfigError::new(field.to_string(), reason));
        if let Some(mss) = self.mss {
            whole(&"tcp.mss", mss as u64, MIN_MSS_BYTES as u64, MAX_MSS_BYTES as u64, "bytes")?;
        }
        if let Some(mtu) = self.mtu_bytes {
            if let Some(mss) = self.mss {
                return err(
                    "tcp.mtu_bytes",
                    format!("set either tcp.mss ({mss}) or tcp.mtu_bytes ({mtu}), not both"),
                );
            }
            whole(&"tcp.mtu_bytes", mtu as u64, MIN_MTU_BYTES as u64, MAX_MTU_BYTES as u64, "bytes")?;
            let mss = mtu.saturating_sub(self.header_bytes);
            if !(MIN_MSS_BYTES..=MAX_MSS_BYTES).contains(&mss) {
                return err(
                    "tcp.mtu_bytes",
                    format!(
                        "{mtu} B minus {} B of headers leaves an MSS of {mss} B, outside [{MIN_MSS_BYTES}, {MAX_MSS_BYTES}]",
                        self.header_bytes
                    ),
                );
            }
        }
        whole(&"tcp.header_bytes", self.header_bytes as u64, 0, MAX_HEADER_BYTES as u64, "bytes")?;
        whole(
            &"tcp.init_cwnd_segments",
            self.init_cwnd_segments as u64,
            1,
            MAX_SEGMENTS as u64,
            "segments",
        )?;
        for (name, v) in [
            ("tcp.rto_min_ms", self.rto_min_ms),
            ("tcp.rto_initial_ms", self.rto_initial_ms),
            ("tcp.rto_max_ms", self.rto_max_ms),
            ("tcp.delayed_ack_timeout_ms", self.delayed_ack_timeout_ms),
        ] {
            real(&name, v, Bound::Above(0.0), MAX_TIMER_MS, "ms")?;
        }
        real(&"tcp.timer_tick_ms", self.timer_tick_ms, Bound::From(0.0), MAX_TIMER_MS, "ms")?;
        whole(
            &"tcp.delayed_ack_segments",
            self.delayed_ack_segments as u64,
            1,
            MAX_SEGMENTS as u64,
            "segments (1 = ACK every segment)",
        )?;
        check_rcv_buffer("tcp.rcv_buffer_bytes", self.rcv_buffer_bytes, self.segment_bytes())?;
        // Auto-tuning's sizes matter (and must hold a segment) only when it is on.
        let autotune_mss = if self.rcv_autotune { self.segment_bytes() } else { 1 };
        check_rcv_buffer("tcp.rcv_autotune_initial_bytes", self.rcv_autotune_initial_bytes, autotune_mss)?;
        check_rcv_buffer("tcp.rcv_autotune_max_bytes", self.rcv_autotune_max_bytes, autotune_mss)?;
        if self.rcv_autotune_max_bytes < self.rcv_autotune_initial_bytes {
            return err(
                "tcp.rcv_autotune_max_bytes",
                format!(
                    "{} is below rcv_autotune_initial_bytes ({})",
                    self.rcv_autotune_max_bytes, self.rcv_autotune_initial_bytes
                ),
            );
        }
        whole(
            &"tcp.dupack_threshold",
            self.dupack_threshold as u64,
            1,
            MAX_DUPACK_THRESHOLD as u64,
            "",
        )?;
        whole(
            &"tcp.abc_limit_segments",
            self.abc_limit_segments as u64,
            0,
            MAX_ABC_LIMIT_SEGMENTS as u64,
            "",
        )?;
        whole(&"tcp.syn_retries", self.syn_retries as u64, 0, MAX_SYN_RETRIES as u64, "resends")?;
        whole(
            &"tcp.synack_retries",
            self.synack_retries as u64,
            0,
            MAX_SYN_RETRIES as u64,
            "resends",
        )?;
        real(&"tcp.dctcp_g", self.dctcp_g, Bound::Above(0.0), MAX_FRACTION, "")?;
        real(&"tcp.dctcp_alpha_init", self.dctcp_alpha_init, Bound::From(0.0), MAX_FRACTION, "")?;
        whole(
            &"tcp.dctcp_min_cwnd_segments",
            self.dctcp_min_cwnd_segments as u64,
            0,
            MAX_SEGMENTS as u64,
            "segments",
        )?;
        // CUBIC's bounds (the schema's): C in (0, 100], β in (0, 1].
        real(&"tcp.cubic.c", self.cubic.c, Bound::Above(0.0), 100.0, "segments/s³")?;
        real(&"tcp.cubic.beta", self.cubic.beta, Bound::Above(0.0), 1.0, "")?;
        Ok(())
    }
}

pub(crate) fn check_rcv_buffer(field: &str, bytes: u64, mss: u32) -> Result<(), ConfigError> {
    if bytes < mss as u64 {
        return Err(ConfigError::new(
            field.to_string(),
            format!("must hold at least 1 segment ({mss} B), got {bytes}"),
        ));
    }
    whole(&field, bytes, 1, limits::MAX_RCV_BUFFER, "bytes")
}
