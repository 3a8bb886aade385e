//! TCP stack profiles (`tcp.profile`): named sets of `tcp` fields describing a real stack,
//! each value with the source it comes from. A scenario's own `tcp` fields override the
//! profile's; the profile is applied to the scenario document before it is read, so every
//! field keeps one meaning and one check whatever set it.
//!
//! `docs/stacks.md` is generated from these tables (`dcsim.docgen stacks`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A named TCP stack (`tcp.profile`): it sets the fields listed in `docs/stacks.md`, each
/// with its source; the scenario's own `tcp` fields override it. `cc` is never set: the
/// scenario chooses TCP or DCTCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum StackProfile {
    /// Windows Server 2008 R2 / Windows 7 (2009-2011): the DCTCP and ICTCP testbeds' hosts.
    #[serde(rename = "windows_2008r2")]
    Windows2008R2,
    /// Linux 2.6.32-2.6.38 (2009-2011) with default settings.
    #[serde(rename = "linux_2_6_3x")]
    Linux26,
    /// Linux 6.x with default settings.
    #[serde(rename = "linux_current")]
    LinuxCurrent,
    /// ns-2.35's `Agent/TCP/FullTcp/Sack` with its default settings: the simulated hosts of the
    /// DCTCP paper's analysis (Fig. 12) and of the CS244 reproduction.
    #[serde(rename = "ns2")]
    Ns2,
    /// ns-3.44's `TcpSocketBase` with its default attributes, for users who compare with ns-3.
    #[serde(rename = "ns3")]
    Ns3,
}

/// One field a profile sets: its name in `tcp`, its value as JSON, and where the value
/// comes from.
#[derive(Debug, Clone, Copy)]
pub struct PresetField {
    pub field: &'static str,
    pub value: &'static str,
    pub source: &'static str,
}

const fn f(field: &'static str, value: &'static str, source: &'static str) -> PresetField {
    PresetField { field, value, source }
}

pub const ALL: [StackProfile; 5] = [
    StackProfile::Windows2008R2,
    StackProfile::Linux26,
    StackProfile::LinuxCurrent,
    StackProfile::Ns2,
    StackProfile::Ns3,
];

impl StackProfile {
    pub fn name(self) -> &'static str {
        match self {
            StackProfile::Windows2008R2 => "windows_2008r2",
            StackProfile::Linux26 => "linux_2_6_3x",
            StackProfile::LinuxCurrent => "linux_current",
            StackProfile::Ns2 => "ns2",
            StackProfile::Ns3 => "ns3",
        }
    }

    /// What the profile stands for and what it leaves out.
    pub fn about(self) -> &'static str {
        match self {
            StackProfile::Windows2008R2 => WINDOWS_ABOUT,
            StackProfile::Linux26 => LINUX26_ABOUT,
            StackProfile::LinuxCurrent => LINUX_CURRENT_ABOUT,
            StackProfile::Ns2 => NS2_ABOUT,
            StackProfile::Ns3 => NS3_ABOUT,
        }
    }

    /// The fields it sets, with their sources.
    pub fn fields(self) -> &'static [PresetField] {
        match self {
            StackProfile::Windows2008R2 => &WINDOWS_2008R2,
            StackProfile::Linux26 => &LINUX_2_6_3X,
            StackProfile::LinuxCurrent => &LINUX_CURRENT,
            StackProfile::Ns2 => &NS2,
            StackProfile::Ns3 => &NS3,
        }
    }
}

const WINDOWS_ABOUT: &str = "The \"Next Generation TCP/IP stack\" of Windows Vista, 7 and Server 2008 R2, which the \
DCTCP paper's testbed (§4) and the ICTCP paper's (§VII: \"TCP New Reno with SACK implementation on a Windows server\") \
ran. Both papers call their baseline NewReno with SACK; Server 2008's default add-on provider was Compound TCP (off in \
Vista and 7), so the papers' hosts ran without it. Microsoft documents few of the stack's internals: the fields marked \
\"Not given\" or \"Not documented\" take the value the papers imply, or the simplest standard behaviour, and say why. \
Its F-RTO (RFC 4138) runs as RFC 5682's SACK-enhanced \
algorithm with the Eifel response (RFC 4015), Microsoft not saying which response it takes. Not modelled: D-SACK \
(RFC 2883), which the stack supports; timestamps are off by default on Windows, while the engine samples the RTT on \
every ACK (and classifies timeouts by them).";

const LINUX26_ABOUT: &str = "Mainline Linux 2.6.32-2.6.38 (2009-2011), the kernels of Judd's slides' era, \
read in 2.6.32.67 and 2.6.38.3. Its default congestion control was CUBIC with HyStart. Not modelled: CUBIC's scaling \
of its per-ACK step by the measured segments per ACK (with per-ACK counting the engine's CUBIC counts one per ACK, \
so with delayed ACKs it grows about half as fast in congestion avoidance), HyStart, FACK with rate-halving recovery \
(RFC 6675 recovery stands in), F-RTO's rate-halving response to a spurious timeout (sysctl tcp_frto_response = 0; the \
Eifel response, RFC 4015, stands in), quick-ACK mode (2 to 5 immediate ACKs at the start), \
RFC 2861's decay of an unused window, the cached route metrics of earlier connections, and Linux's RTO form \
(SRTT + max(RTTVAR, 200 ms) where the engine has max(200 ms, SRTT + 4·RTTVAR): at datacenter RTTs they differ by \
SRTT, well under a tick).";

const LINUX_CURRENT_ABOUT: &str = "Linux 6.x with default settings, read in 6.12.117. Its default congestion control is \
CUBIC with HyStart (not modelled). Not modelled either: RACK's time-based loss detection (RFC 8985 §6, `tcp_recovery` = 1), for which early retransmit \
(RFC 5827, Linux 3.5-4.x) stands in; compressed SACKs; quick-ACK mode (up to 16 immediate ACKs); Linux's RTO form (as in linux_2_6_3x); F-RTO's \
response to a spurious timeout, which undoes the timeout's reduction (tcp_try_undo_loss), where the engine takes the \
Eifel response (RFC 4015).";

const NS2_ABOUT: &str = "ns-2.35's two-way TCP agent with SACK, `Agent/TCP/FullTcp/Sack`, read in \
`tcl/lib/ns-default.tcl` and `tcp/tcp.cc`, `tcp/tcp-full.cc`: the agent of the DCTCP paper's ns-2 sample (Fig. 12; \
the script turns `slow_start_restart_` off). The CS244 reproduction ran plain `Agent/TCP/FullTcp` for DCTCP (no SACK) \
with a `tcpTick_` of 1 µs, and `Agent/TCP/Linux` to a `TCPSink/Sack1` for TCP; its experiments set those fields \
over this profile. Not modelled: plain FullTcp's Reno recovery, which ends at the first partial ACK (without SACK the \
engine runs NewReno, RFC 6582); ns-2's RTT sampling, one timed segment per RTT counted in ticks (the engine samples \
every ACK and rounds only the timer); ns-2's DCTCP patch leaving the window unchanged on ACKs that echo a mark; and \
windows counted in whole packets: the receiver's `window_` (20 packets by default) is the scenario's \
`rcv_buffer_bytes`, which every script sets.";

const NS3_ABOUT: &str = "ns-3.44's `TcpSocketBase` (src/internet/model, tag ns-3.44) with its default attributes. \
Its default congestion control is `TcpCubic` (since ns-3.34), which Linux-based testbeds here also run; its default \
recovery is PRR (since ns-3.32). ns-3's growth rules belong to each controller; this profile takes `TcpCubic`'s \
(segments acknowledged, no per-ACK limit, growth only while cwnd-limited); `TcpNewReno` instead adds one segment \
per ACK in slow start and grows whether or not the window is used. The slow-start threshold after a loss is computed \
from RFC 6675's pipe, which `TcpSocketBase` passes to `GetSsThresh`: `TcpNewReno` halves it, while `TcpCubic` \
(0.7·cwnd) and `TcpDctcp` ((1 − α/2)·cwnd) ignore it, so a CUBIC or DCTCP run here reduces from pipe where ns-3 \
reduces from cwnd. Not set: ns-3's default `SegmentSize` of 536 B (scenarios set `mss`, as ns-3 scripts set \
SegmentSize); RFC 6298's clock granularity G (1 ms), far below the 1 s RTO_min. Not in ns-3: restart after idle \
(CA_EVENT_CWND_RESTART is never raised), F-RTO, the tail loss probe and RACK.";

/// A third-party capture of Microsoft's `netsh interface tcp show supplemental` on 2008 R2: minimum RTO 300 ms,
/// initial window 2, delayed-ACK timeout 200 ms.
const NETSH_2008R2: &str = "`netsh interface tcp show supplemental` on 2008 R2 (andydavies.me/blog/2011/11/21/increasing-the-tcp-initial-congestion-window-on-windows-2008-server-r2)";

const WINDOWS_2008R2: [PresetField; 23] = [
    f("ack_counting", "\"bytes\"", "Not documented (no Microsoft document lists RFC 3465). The ICTCP paper (§VII-A-1: TCP \"doubles its congestion window every RTT\") implies growth by what each delayed ACK covers, as RFC 3465 counts"),
    f("abc_limit_segments", "2", "RFC 3465 §2.2's L = 2: the least that doubles the window per RTT with an ACK every 2 segments"),
    f("init_cwnd_segments", "2", NETSH_2008R2),
    f("slow_start_after_idle", "false", "Not documented for 2008 R2; later Windows makes it a per-template switch, CwndRestart, False by default (Get-NetTCPSetting output in Microsoft's Networking Blog, \"TCP Templates for Windows Server 2019\", 2018)"),
    f("idle_restart", "\"rfc5681\"", "used only if slow_start_after_idle is set"),
    f("delayed_ack_segments", "2", "KB328890 (TcpAckFrequency): \"an acknowledgment is sent for every other TCP segment\""),
    f("delayed_ack_timeout_ms", "200.0", NETSH_2008R2),
    f("rto_min_ms", "300.0", "DCTCP paper §2.3.2 (\"RTO_min is set to 300ms\"), ICTCP paper §VII (\"default timeout value of TCP on a Windows server is 300 ms\"); also the netsh capture"),
    f("rto_initial_ms", "3000.0", "TcpInitialRTT default 3 s (Windows 2000 Server documentation, cc938207; RFC 2988's value); no later document found"),
    f("rto_max_ms", "60000.0", "Not given, our choice: RFC 6298 §2.5's least allowed cap"),
    f("timer_tick_ms", "10.0", "DCTCP paper §4.2.1: 10 ms \"is the tick granularity of our system\""),
    f("sack", "true", "both papers' baseline, \"New Reno with SACK\""),
    f("recovery", "\"rfc6675\"", "SACK-based recovery, RFC 3517 (now RFC 6675), and NewReno, RFC 2582: Windows Vista Resource Kit, ch. \"Next Generation TCP/IP stack\""),
    f("rcv_autotune", "false", "Vista and later tune the receive window (netsh autotuninglevel = normal); Microsoft does not publish the rule, so it is not modelled: buffers stay at rcv_buffer_bytes"),
    f("limited_transmit", "false", "Not documented (not among the RFCs Microsoft lists), and no paper mentions it"),
    f("tail_loss_probe", "false", "TLP and RACK came to Windows with Windows 10 / Server 2016"),
    f("early_retransmit", "false", "Not documented (not among the RFCs Microsoft lists)"),
    f("cwnd_validation", "\"off\"", "Not documented (no document names RFC 2861 or 7661): every ACK may grow the window"),
    f("syn_retries", "2", "TcpMaxConnectRetransmissions default 2 (a connect gives up after 3 + 6 + 12 = 21 s)"),
    f("synack_retries", "2", "TcpMaxConnectResponseRetransmissions default 2 (Windows 2000 Server documentation; no later value found)"),
    f("ssthresh_from", "\"flight_size\"", "Not documented: the stack implements RFC 2581 and RFC 3782 (Windows Vista Resource Kit, ch. \"Next Generation TCP/IP stack\"), whose ssthresh is max(FlightSize/2, 2·SMSS)"),
    f("cwnd_clamp", "false", "Not documented (Microsoft documents no bound on cwnd): every ACK may grow the window, as cwnd_validation off"),
    f("frto", "true", "\"the Next Generation TCP/IP stack supports industry standard Requests For Comments (RFCs) 2582, 2883, 3517, and 4138\", RFC 4138 being F-RTO (Windows Vista Resource Kit, ch. 2)"),
];

const LINUX_2_6_3X: [PresetField; 23] = [
    f("ack_counting", "\"per_ack\"", "tcp_slow_start() adds one segment per ACK with sysctl tcp_abc = 0, the default; tcp_cong_avoid_ai() one count per ACK (net/ipv4/tcp_cong.c, 2.6.32 and 2.6.38)"),
    f("abc_limit_segments", "2", "unused with per-ACK counting (tcp_abc = 2 meant L = 2)"),
    f("init_cwnd_segments", "3", "tcp_init_cwnd(): RFC 3390, 3 segments for a 1460-B MSS (net/ipv4/tcp_input.c, 2.6.32; rfc3390_bytes_to_packets() in 2.6.38); IW10 came in 2.6.39"),
    f("slow_start_after_idle", "true", "sysctl tcp_slow_start_after_idle = 1 (net/ipv4/tcp_output.c)"),
    f("idle_restart", "\"linux\"", "tcp_event_data_sent() → tcp_cwnd_restart() (net/ipv4/tcp_output.c), with tcp_current_ssthresh() (include/net/tcp.h)"),
    f("delayed_ack_segments", "2", "__tcp_ack_snd_check(): ACK once more than one full segment is unacknowledged (net/ipv4/tcp_input.c)"),
    f("delayed_ack_timeout_ms", "40.0", "TCP_ATO_MIN = TCP_DELACK_MIN = HZ/25 (include/net/tcp.h); the timer adapts upwards from it (up to 200 ms in interactive mode), which is not modelled"),
    f("rto_min_ms", "200.0", "TCP_RTO_MIN = HZ/5 (include/net/tcp.h)"),
    f("rto_initial_ms", "3000.0", "TCP_TIMEOUT_INIT = 3·HZ (include/net/tcp.h, 2.6.32, 2.6.38, 3.0)"),
    f("rto_max_ms", "120000.0", "TCP_RTO_MAX = 120·HZ (include/net/tcp.h)"),
    f("timer_tick_ms", "4.0", "one jiffy at HZ = 250, mainline's default (kernel/Kconfig.hz); distributions chose 100 to 1000"),
    f("sack", "true", "sysctl tcp_sack = 1"),
    f("recovery", "\"rfc6675\"", "SACK recovery; Linux's was FACK with rate-halving (tcp_cwnd_down()), not modelled; PRR came in 3.2"),
    f("limited_transmit", "true", "in effect: tcp_packets_in_flight() leaves SACKed segments out of the pipe, so duplicate ACKs release new data (include/net/tcp.h)"),
    f("tail_loss_probe", "false", "no tcp_early_retrans in 2.6.32 or 2.6.38; TLP came in 3.10"),
    f("early_retransmit", "false", "early retransmit came in 3.5"),
    f("cwnd_validation", "\"max_burst\"", "tcp_is_cwnd_limited(): growth while cwnd − in flight ≤ tcp_max_burst() = reordering, 3 (net/ipv4/tcp_cong.c, include/net/tcp.h)"),
    f("syn_retries", "5", "sysctl tcp_syn_retries = TCP_SYN_RETRIES = 5 (include/net/tcp.h; 6 from 3.7)"),
    f("synack_retries", "5", "sysctl tcp_synack_retries = TCP_SYNACK_RETRIES = 5 (include/net/tcp.h)"),
    f("rcv_autotune", "true", "sysctl tcp_moderate_rcvbuf = 1"),
    f("ssthresh_from", "\"cwnd\"", "tcp_reno_ssthresh(): max(snd_cwnd >> 1, 2); CUBIC's bictcp_recalc_ssthresh(): snd_cwnd·β (net/ipv4/tcp_cong.c, tcp_cubic.c)"),
    f("cwnd_clamp", "false", "snd_cwnd_clamp = ~0 (tcp_v4_init_sock, net/ipv4/tcp_ipv4.c) unless a route metric sets it; tcp_is_cwnd_limited() stops growth instead"),
    f("frto", "true", "sysctl tcp_frto = 2: \"SACK enhanced F-RTO if flow uses SACK\" (net/ipv4/tcp_input.c, Documentation/networking/ip-sysctl.txt, 2.6.32)"),
];

const LINUX_CURRENT: [PresetField; 23] = [
    f("ack_counting", "\"delivered\"", "tcp_slow_start(tp, acked) and tcp_cong_avoid_ai(tp, w, acked) count the packets newly delivered, tcp_newly_delivered() (net/ipv4/tcp_cong.c, tcp_input.c; since 3.13, commit 9f9843a751d0), on ACKs that advance snd_una (tcp_may_raise_cwnd)"),
    f("abc_limit_segments", "0", "no per-ACK cap: cwnd = min(cwnd + acked, ssthresh) (tcp_slow_start)"),
    f("init_cwnd_segments", "10", "TCP_INIT_CWND = 10 (include/net/tcp.h; RFC 6928)"),
    f("slow_start_after_idle", "true", "sysctl tcp_slow_start_after_idle = 1 (net/ipv4/tcp_ipv4.c, tcp_sk_init)"),
    f("idle_restart", "\"linux\"", "tcp_slow_start_after_idle_check() → tcp_cwnd_restart() (include/net/tcp.h, net/ipv4/tcp_output.c)"),
    f("delayed_ack_segments", "2", "__tcp_ack_snd_check(): ACK once more than one full segment is unacknowledged (net/ipv4/tcp_input.c)"),
    f("delayed_ack_timeout_ms", "40.0", "TCP_ATO_MIN = TCP_DELACK_MIN = HZ/25 (include/net/tcp.h); the adaptive timer is not modelled"),
    f("rto_min_ms", "200.0", "sysctl tcp_rto_min_us = 200,000 (TCP_RTO_MIN, include/net/tcp.h)"),
    f("rto_initial_ms", "1000.0", "TCP_TIMEOUT_INIT = HZ (include/net/tcp.h; RFC 6298, since 3.1)"),
    f("rto_max_ms", "120000.0", "TCP_RTO_MAX = 120·HZ (include/net/tcp.h)"),
    f("timer_tick_ms", "4.0", "one jiffy at HZ = 250, mainline's default (kernel/Kconfig.hz); RTTs are measured in µs, timers run in jiffies"),
    f("sack", "true", "sysctl tcp_sack = 1"),
    f("recovery", "\"prr\"", "tcp_cwnd_reduction(): \"cwnd reduction in CWR and Recovery uses the PRR algorithm in RFC 6937\" (net/ipv4/tcp_input.c)"),
    f("limited_transmit", "true", "in effect: tcp_packets_in_flight() leaves SACKed segments out of the pipe (include/net/tcp.h)"),
    f("tail_loss_probe", "true", "sysctl tcp_early_retrans = 3: TLP (tcp_schedule_loss_probe(), net/ipv4/tcp_output.c)"),
    f("early_retransmit", "true", "stands in for RACK (sysctl tcp_recovery = 1, net/ipv4/tcp_recovery.c), not modelled: both let a short flight's SACKs start recovery"),
    f("cwnd_validation", "\"linux\"", "tcp_is_cwnd_limited(): in slow start while cwnd < 2·max_packets_out, else only while cwnd-limited (include/net/tcp.h)"),
    f("syn_retries", "6", "TCP_SYN_RETRIES = 6 (include/net/tcp.h)"),
    f("synack_retries", "5", "TCP_SYNACK_RETRIES = 5 (include/net/tcp.h)"),
    f("rcv_autotune", "true", "sysctl tcp_moderate_rcvbuf = 1"),
    f("ssthresh_from", "\"cwnd\"", "tcp_reno_ssthresh(): max(tcp_snd_cwnd(tp) >> 1, 2); CUBIC's cubictcp_recalc_ssthresh(): snd_cwnd·β (net/ipv4/tcp_cong.c, tcp_cubic.c)"),
    f("cwnd_clamp", "false", "snd_cwnd_clamp = ~0 (tcp_init_sock, net/ipv4/tcp.c) unless a route metric sets it; tcp_is_cwnd_limited() stops growth instead"),
    f("frto", "true", "sysctl tcp_frto = 2 (tcp_sk_init, net/ipv4/tcp_ipv4.c): the SACK-enhanced algorithm of RFC 5682 §3 since 3.10 (commit e33099f96d99)"),
];

const NS2: [PresetField; 23] = [
    f("ack_counting", "\"per_ack\"", "TcpAgent::opencwnd() (tcp/tcp.cc, windowOption_ 1): cwnd_ grows by one per ACK of new data in slow start and by 1/cwnd_ in congestion avoidance"),
    f("abc_limit_segments", "2", "unused with per-ACK counting: ns-2 has no byte counting"),
    f("init_cwnd_segments", "2", "windowInit_ 2 (ns-default.tcl, ns-2.35; the default since 2001)"),
    f("slow_start_after_idle", "true", "slow_start_restart_ true (ns-default.tcl, ns-2.35)"),
    f("idle_restart", "\"rfc5681\"", "FullTcpAgent::foutput(): with nothing outstanding and idle for an RTO or longer, slowdown(CLOSE_CWND_INIT) sets cwnd_ to the initial window and leaves ssthresh_ (tcp/tcp-full.cc), as RFC 5681 §4.1"),
    f("delayed_ack_segments", "1", "FullTcp segsperack_ 1 (ns-default.tcl, ns-2.35): an ACK for every segment"),
    f("delayed_ack_timeout_ms", "100.0", "FullTcp interval_ 0.1 (ns-default.tcl, ns-2.35); it matters only with segsperack_ above 1"),
    f("rto_min_ms", "200.0", "minrto_ 0.2 (ns-default.tcl, ns-2.35; the default since 2004)"),
    f("rto_initial_ms", "3000.0", "rtxcur_init_ 3.0 (ns-default.tcl, ns-2.35)"),
    f("rto_max_ms", "60000.0", "maxrto_ 60 (ns-default.tcl, ns-2.35, after RFC 2988)"),
    f("timer_tick_ms", "10.0", "tcpTick_ 0.01 (ns-default.tcl, ns-2.35): the RTO is kept in whole ticks"),
    f("sack", "true", "the FullTcp/Sack agent; plain FullTcp and the one-way Agent/TCP have none"),
    f("recovery", "\"rfc6675\"", "FullTcp/Sack recovers from its SACK scoreboard, sending while the pipe is below cwnd_ (tcp/tcp-full.cc, SackFullTcpAgent), the method RFC 6675 standardised"),
    f("limited_transmit", "false", "FullTcp has none (the one-way agents' singledup_ 1 is Limited Transmit)"),
    f("tail_loss_probe", "false", "not in ns-2"),
    f("early_retransmit", "false", "not in ns-2: FullTcp waits for tcprexmtthresh_ 3 duplicate ACKs (ns-default.tcl, ns-2.35)"),
    f("cwnd_validation", "\"off\"", "opencwnd() grows cwnd_ on every ACK whether or not the window is in use (tcp/tcp.cc)"),
    f("syn_retries", "127", "FullTcp resends a SYN without limit (max_connects_ -1, ns-default.tcl); 127 is the engine's bound"),
    f("synack_retries", "127", "as syn_retries: no limit in FullTcp; 127 is the engine's bound"),
    f("rcv_autotune", "false", "ns-2 has no receive buffer to tune: the receiver's window is window_ packets, which each script sets"),
    f("ssthresh_from", "\"window\"", "TcpAgent::slowdown() halves window() = min(cwnd_, wnd_) (tcp/tcp.cc, ns-2.35)"),
    f("cwnd_clamp", "false", "maxcwnd_ 0 (ns-default.tcl, ns-2.35): opencwnd() clamps cwnd_ only when maxcwnd_ is set"),
    f("frto", "false", "FullTcp has no F-RTO (ns-2.35)"),
];

const NS3: [PresetField; 24] = [
    f("ack_counting", "\"bytes\"", "TcpSocketBase::ProcessAck counts segmentsAcked = bytes acknowledged / SMSS and carries the remainder (m_bytesAckedNotProcessed); TcpCubic::IncreaseWindow adds segmentsAcked·SMSS in slow start (ns-3.44)"),
    f("abc_limit_segments", "0", "TcpCubic::IncreaseWindow: no per-ACK limit in slow start (ns-3.44)"),
    f("init_cwnd_segments", "10", "TcpSocket InitialCwnd 10 (tcp-socket.cc, ns-3.44)"),
    f("slow_start_after_idle", "false", "CA_EVENT_CWND_RESTART: \"congestion window restart. Not triggered\" (tcp-socket-state.h, ns-3.44)"),
    f("idle_restart", "\"rfc5681\"", "unused: slow_start_after_idle is off"),
    f("delayed_ack_segments", "2", "TcpSocket DelAckCount 2 (tcp-socket.cc, ns-3.44)"),
    f("delayed_ack_timeout_ms", "200.0", "TcpSocket DelAckTimeout 0.2 s (tcp-socket.cc, ns-3.44)"),
    f("rto_min_ms", "1000.0", "TcpSocketBase MinRto 1 s (tcp-socket-base.cc, ns-3.44: \"RFC 6298 says min RTO=1 sec\")"),
    f("rto_initial_ms", "3000.0", "TcpSocket ConnTimeout 3 s, the SYN's timer (doubling per resend; TcpSocketBase::SendEmptyPacket, ns-3.44); data after the handshake has the SYN's RTT sample"),
    f("rto_max_ms", "60000.0", "TcpSocketBase::ReTxTimeout doubles the RTO up to 60 s (tcp-socket-base.cc, ns-3.44)"),
    f("timer_tick_ms", "0.0", "ns-3's timers are exact events; ClockGranularity (1 ms) enters only as RFC 6298's G"),
    f("sack", "true", "TcpSocketBase Sack true (tcp-socket-base.cc, ns-3.44)"),
    f("recovery", "\"prr\"", "TcpL4Protocol RecoveryType TcpPrrRecovery, the default since ns-3.32 (tcp-l4-protocol.cc, ns-3.44)"),
    f("limited_transmit", "true", "TcpSocketBase LimitedTransmit true (tcp-socket-base.cc, ns-3.44)"),
    f("tail_loss_probe", "false", "not in ns-3.44 (tcp-prr-recovery.cc: \"the current lack of RACK-TLP in ns-3\")"),
    f("early_retransmit", "false", "not in ns-3.44: recovery waits for ReTxThreshold 3 duplicate ACKs (tcp-socket-base.cc)"),
    f("cwnd_validation", "\"cwnd_limited\"", "TcpSocketBase::SendDataPacket sets m_isCwndLimited = cwnd < BytesInFlight + SMSS; TcpCubic::IncreaseWindow grows only while it is set (ns-3.44)"),
    f("syn_retries", "5", "TcpSocket ConnCount 6 (tcp-socket.cc, ns-3.44): six SYNs in all, so five resends"),
    f("synack_retries", "5", "ConnCount 6 (tcp-socket.cc, ns-3.44) counts the SYN-ACK's transmissions too: five resends"),
    f("rcv_autotune", "false", "ns-3 has no receive-buffer tuning: the buffer is RcvBufSize"),
    f("rcv_buffer_bytes", "131072", "TcpSocket RcvBufSize 131072 (tcp-socket.cc, ns-3.44)"),
    f("ssthresh_from", "\"pipe\"", "TcpSocketBase::EnterRecovery and ReTxTimeout pass BytesInFlight(), RFC 6675's pipe (TcpTxBuffer::BytesInFlight), to GetSsThresh (tcp-socket-base.cc, ns-3.44)"),
    f("cwnd_clamp", "false", "ns-3 bounds the sending window by min(rWnd, cwnd) (TcpSocketBase::Window) but not cwnd itself (ns-3.44)"),
    f("frto", "false", "not in ns-3.44 (no F-RTO in src/internet/model)"),
];

/// Fills a scenario document's `tcp` table with its profile's fields (those it does not set
/// itself). A `tcp.profile` that names no profile is left for the typed reading to refuse.
pub fn apply(doc: &mut serde_json::Value) {
    let Some(tcp) = doc.get_mut("tcp").and_then(|t| t.as_object_mut()) else {
        return;
    };
    let Some(profile) = tcp
        .get("profile")
        .and_then(|p| serde_json::from_value::<StackProfile>(p.clone()).ok())
    else {
        return;
    };
    for pf in profile.fields() {
        if !tcp.contains_key(pf.field) {
            let value = serde_json::from_str(pf.value).expect("a profile's values are JSON");
            tcp.insert(pf.field.to_string(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Scenario, TcpConfig};

    #[test]
    fn every_profile_field_is_a_tcp_field_with_a_valid_value_and_a_source() {
        for p in ALL {
            let mut doc = serde_json::json!({ "tcp": { "profile": p.name() } });
            apply(&mut doc);
            let t: TcpConfig = serde_json::from_value(doc["tcp"].clone()).unwrap_or_else(|e| panic!("{}: {e}", p.name()));
            assert_eq!(t.profile, Some(p));
            let mut seen = std::collections::HashSet::new();
            for pf in p.fields() {
                assert!(seen.insert(pf.field), "{} sets {} twice", p.name(), pf.field);
                assert!(!pf.source.is_empty(), "{}.{} has no source", p.name(), pf.field);
                assert_ne!(pf.field, "cc", "profiles leave the controller to the scenario");
            }
        }
    }

    #[test]
    fn a_scenario_field_overrides_its_profile() {
        let text = r#"
            topology = { kind = "star", hosts = 2, link = { rate_gbps = 1.0, delay_us = 10.0 } }
            [tcp]
            profile = "windows_2008r2"
            rto_min_ms = 10.0
        "#;
        let s = Scenario::from_toml(text).unwrap();
        assert_eq!(s.tcp.rto_min_ms, 10.0);
        assert_eq!(s.tcp.delayed_ack_timeout_ms, 200.0);
        assert_eq!(s.tcp.init_cwnd_segments, 2);
        assert_eq!(s.tcp.timer_tick_ms, 10.0);
        assert!(!s.tcp.slow_start_after_idle);
        let plain = Scenario::from_toml(&text.replace("profile = \"windows_2008r2\"", "")).unwrap();
        assert_eq!(plain.tcp.timer_tick_ms, 0.0, "without a profile, the engine's defaults");
        let e = Scenario::from_toml(&text.replace("windows_2008r2", "windows_95")).unwrap_err();
        assert_eq!(e.field, "tcp.profile");
        assert!(e.reason.contains("unknown variant"), "{e}");
        // The document passes through JSON on its way, which has no NaN: refused with its field.
        let e = Scenario::from_toml(&text.replace("delay_us = 10.0", "delay_us = nan")).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.reason.as_str()),
            ("topology.link.delay_us", "NaN is not a finite number")
        );
    }
}
