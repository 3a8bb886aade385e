//! The connection ends' choices that the scenario's `tcp` table names (each a field there):
//! which DCTCP receiver, window validation, recovery, ssthresh rule and ECT marking to run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which DCTCP receiver ACK machine to run (DCTCP paper §3.1, Fig. 10).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DctcpReceiver {
    /// DCTCP paper Fig. 10: one immediate ACK at a CE-state change.
    #[default]
    Paper,
    /// Linux `dctcp_ece_ack_update`: the paper's ACK, then an immediate ACK of the new packet.
    Linux,
}

/// When an application-limited sender may still grow cwnd (`tcp.cwnd_validation`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CwndValidation {
    /// RFC 7661 §4.3: while the window is validated, what was in flight ≥ cwnd/2.
    #[default]
    Rfc7661,
    /// Current Linux's `tcp_is_cwnd_limited`: in slow start while cwnd < 2 × what was in
    /// flight; in congestion avoidance only while the sender is cwnd-limited.
    Linux,
    /// Linux 2.6's `tcp_is_cwnd_limited`: while cwnd − what was in flight ≤ 3 segments
    /// (`tcp_max_burst`, the reordering degree).
    MaxBurst,
    /// Only a cwnd-limited sender grows, in slow start too: ns-3's `m_isCwndLimited`, set at
    /// each send when cwnd < what is in flight + 1 SMSS, which its CUBIC checks.
    CwndLimited,
    /// Every ACK may grow cwnd, whether the sender used its window or not.
    Off,
}

/// How the window is set during SACK loss recovery (`tcp.recovery`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Recovery {
    /// RFC 6675 §5: cwnd = ssthresh at once, send while pipe < cwnd.
    #[default]
    Rfc6675,
    /// Proportional rate reduction (RFC 6937, PRR-SSRB): what is sent in recovery follows
    /// what is delivered, converging on ssthresh by the end of recovery.
    Prr,
}

/// What the slow-start threshold is computed from when loss is detected (`tcp.ssthresh_from`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshFrom {
    /// FlightSize, the data sent and not cumulatively acknowledged (RFC 5681 §3.2 eq. (4),
    /// RFC 6675 §5 step 4.2, RFC 9438 §4.6).
    #[default]
    FlightSize,
    /// The congestion window: Linux's `tcp_reno_ssthresh` and CUBIC's
    /// `bictcp_recalc_ssthresh` take `snd_cwnd` (RFC 9438 §4.6 notes such implementations).
    Cwnd,
    /// min(cwnd, the peer's receive buffer): ns-2's `slowdown()` halves `window()`, the
    /// smaller of `cwnd_` and the receiver's configured `window_`.
    Window,
    /// RFC 6675's pipe, the data estimated still in the network (SACKed and lost segments
    /// left out, retransmissions counted): ns-3's `TcpSocketBase`, which passes
    /// `BytesInFlight()` to the controller's `GetSsThresh`.
    Pipe,
}

/// Whether control packets (SYN, SYN-ACK, pure ACKs, retransmissions) carry ECT (RFC 3168 §6.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EctOnControl {
    /// DCTCP hosts mark every packet ECT, RFC 3168 hosts only new data.
    #[default]
    Auto,
    /// RFC 3168 §6.1: ECT on new data only.
    Rfc3168,
    /// ECT on every packet.
    All,
}
