"""ICTCP paper (Wu et al., IEEE/ACM ToN 2013), §VII-C (no figure): incast beside a 200 Mb/s
constant-bit-rate UDP flow to the same receiver, ICTCP vs TCP vs DCTCP.

Paper setup (§VII-C): the incast of §VII-A (Figs. 8/9: 47 servers on one Quanta LB4G, rounds on
pre-established connections, NewReno + SACK, timeout 300 ms, ICTCP minimum window 2 MSS) with
"a background UDP connection at 200 Mb/s" to the receiving server. The paper gives only "ICTCP
also performs well. We skip the results for the background UDP as ICTCP performs similarly
well" (as with the background TCP flow of Figs. 13/14).

Our setup: as ictcp-fig13/14 (the comparison sweep, the same senders grid, amounts and rounds;
ICTCP 2 MSS min, TCP, DCTCP on the same rounds) with the background TCP flow replaced by one UDP
source (:data:`BACKGROUND_UDP`): from host 47 (the switch's 48th port, where fig13's background
flow comes from) to the receiver (host 0), 200 Mb/s of 1,500-B IP packets (one every 60 µs),
from t = 0 until the run ends; the rounds start at 0.2 s (fig13's lead). The receiver's ICTCP
counts the UDP packets in BW_T (the engine counts every packet arriving at the host), so its
available bandwidth BW_A = 0.9·C − BW_T already leaves out the UDP's share. Measurement window
= the rounds (warm-up = the lead; runs stop at their last round), so the UDP received rate is
its rate while the incast runs. Reference without background: the ictcp-fig8 runs (the same
scenarios, so they are simulated once for both experiments).

Assumptions:
- The UDP rate is of IP packets (1,500 B incl. IP/UDP headers; 1,538 B on the wire with the
  testbed's 38 B of framing, so it takes 205 Mb/s of the 1 Gb/s link); packet size not given
  (MTU-sized assumed).
- Per-sender amounts 64/128/256 kB and the senders grid of ictcp-fig8/fig13 (not given for
  §VII-C); the UDP flow starts before the rounds (when is not given; a CBR source needs no
  ramp-up, the 0.2 s lead is fig13's).
- Thresholds of the claims (the paper's claim is only qualitative, "performs well"):
  * timeouts: at every point (amount, n) where TCP's ratio of rounds with a timeout exceeds
    :data:`TCP_INCAST_RATIO` (50%: TCP is in incast), ICTCP's is ≤ :data:`ICTCP_LIMIT` = 10%
    (ictcp-fig9's bound, the paper's "highest ratio ... 6%" plus slack);
  * goodput beside TCP: beyond TCP's collapse point (goodput < ½ its peak), ICTCP's goodput
    exceeds TCP's at every n (as ictcp-fig13);
  * goodput against no background: the UDP takes 205/1000 of the wire, so the best ICTCP can
    keep is ≈ 0.795 of its goodput alone; ICTCP with UDP ≥ :data:`KEEP_FRACTION` = 0.7 × its
    ictcp-fig8 goodput (0.795 less ≈ 0.1 for ICTCP's 10% headroom α = 0.9 and its window
    adjustment) at every n where ICTCP alone does not time out (where it does, there is no
    "performs well" baseline to keep);
  * the UDP flow, without congestion control, keeps its rate: under ICTCP, in every run where
    the network dropped none of its packets, received rate ≥ :data:`UDP_KEEP` = 0.99 × 200 Mb/s
    (1% for whole packets and the ≤ 1 ms of queue still holding some at the window's end, over
    a window of ≥ 20 ms); its loss, and the first n with a loss, is reported per transport;
  * where ICTCP's 2-MSS floor overflows (derived here, not the paper's): Eq. 8 of §V
    (n senders at w = 2 packets of δ = 1,500 B need Q ≥ n·w·δ − R·C) with the UDP holding a
    share u of the link becomes Q ≥ n·w·δ/(1 − u) − R·C (the incast then gets (1 − u)·C and
    its in-flight bytes n·w·δ = (1 − u)·(R·C + Q)); with u = 0.205, R·C = 12,500 B and the
    LB4G's one-busy-port 128.5 kB, the floor fits up to n* = 37.4 senders (47.0 without
    UDP), so it overflows from n = ⌊n*⌋ + 1 = 38. The terms are those of the testbed the
    run is on (metrics ``udp_wire_share``, ``rc_bytes``, ``port_share_bytes``): u with its
    framing, R·C = its base RTT × 1 Gb/s, and Q a static per-port limit where its switch has
    one; in shared memory (a preset: B bytes, dynamic threshold α), Q is what one busy port
    holds while the others are empty, α·B/(1 + α): 128.5 kB on the LB4G, 700 kB on the
    Triumph. That assumes the receiver's port is the only busy one, as it is here (the UDP
    and every sender feed it; the ports to the senders carry only ACKs and requests). Claim: ICTCP's first n with any timeout
    (with UDP) is ≥ 38 − :data:`FLOOR_TOLERANCE` and no grid point ≥ 38 + FLOOR_TOLERANCE
    comes before it (on the quick grid, whose points near it are 32 and 40: the first timeout
    is at 40); FLOOR_TOLERANCE = 2 senders (≈ 7.5 kB of queue, 5 packets) for the rounds'
    synchronised starts, which already make our runs without background time out one sender
    (quick grid: at 46) or two (full: at 45) before Eq. 8's 47.
- The UDP packets are not ECN-capable, so DCTCP's K = 20 marking switch drops them above K
  (RFC 3168 §7, the engine's marking AQM): under DCTCP the UDP loses a large share of its
  packets (reported, not claimed; the paper has no DCTCP here).

Known deviation (traced), the timeout and goodput-kept claims (and beating TCP at full
scale): with the UDP flow, ICTCP times out in every round from n = 37 (full; 40 on the quick
grid), as the floor claim's derivation predicts. The UDP and the incast keep BW_T ≥ 0.9·C, so
BW_A = 0 and every window sits at the 2-MSS floor. The port then holds n·w·δ/(1 − u) − P. With
P = 11,680 B (ictcp-sec5-buffer), n = 36 peaks at 124,500 B with no loss. At n = 37 the port
reaches its 128,460 B limit 4.3 ms into the first round (quick-scale trace, 64 kB). A lost
packet at the tail of a 2-segment window waits for the 300 ms RTO, and full-scale rounds take
0.5-0.9 s. At 64 kB goodput falls to 33-40 Mb/s. Against the same point without UDP
(ictcp-fig8, no timeout up to n = 44) that is 0.04 at 64 kB, 0.06 at 128 kB and 0.10 at
256 kB. Failing points: the timeout claim at full n = 37-46 (30 points) and quick n = 40, 46;
the goodput-kept claim at full n = 37-44 (24 points) and quick n = 40. The paper gives no n
range for its UDP runs. If "performs well" covers n up to 46, it needs Q ≥ 46 × 3,000/0.795 −
12,500 = 161 kB per busy port, 1.25 × the preset's 128.5 kB. Beating TCP (full only): where
ICTCP and TCP both time out in every round, both rounds end with an RTO and their goodputs
tie. ICTCP is 0.01-2.3 Mb/s below TCP at 64 kB n = 38 and 41, 128 kB n = 39-41, and 256 kB
n = 45-46 (largest gap 128 kB n = 41: 58.0 vs 60.2 Mb/s).

Outputs: bg_udp_runs.csv (variant, workload, senders, goodput, timeout ratio, rounds, UDP
send/receive rate and sent/received/dropped packets, goodput_no_bg_mbps from ictcp-fig8,
goodput_vs_no_bg), no_bg_runs.csv (the ictcp-fig8 rows used as reference), bg_udp_goodput.png/.svg (incast
goodput vs senders, as Fig. 13), bg_udp_timeouts.png/.svg (ratio of rounds with a timeout, as
Fig. 14), bg_udp_rate.png/.svg (the UDP flow's received rate during the rounds),
bg_udp_vs_no_bg.png/.svg (goodput with UDP / goodput without background).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...results import Results
from ..analysis import fmt
from ..declarations import Claim, Experiment, Key, Metrics, Params, Runs, Testbed
from ..scenarios import port_share_bytes
from ..units import mbps
from .compare import (
    BACKGROUND_LEAD_S,
    COMPARED,
    ICTCP_2MSS,
    PER_SENDER_SCALES,
    ROUND_SLACK_S,
    TCP,
    beats_tcp_beyond_collapse,
    curve,
    fixed_per_sender_runs,
    metrics_table,
    per_sender_workloads,
    plot,
    runs_table,
    worst,
)
from .incast import PACKET, WINDOW_PACKETS, longer_if_unfinished
from .testbeds import (
    BACKGROUND_HOST,
    RATE_GBPS,
    RECEIVER,
    incast_duration_s,
    incast_query,
    rc_bytes,
    scenario,
    with_protocol,
)

if TYPE_CHECKING:
    import pandas as pd

UDP_RATE_GBPS = 0.2
UDP_PACKET_BYTES = 1500
LEAD_S = BACKGROUND_LEAD_S  # rounds start here; the UDP source starts at 0
BACKGROUND_UDP = {
    "src": BACKGROUND_HOST,
    "dst": RECEIVER,
    "rate_gbps": UDP_RATE_GBPS,
    "packet_bytes": UDP_PACKET_BYTES,
    "start_s": 0.0,
}
# First guess at the incast's share of the link, for the run length only (runs stop at their
# last round; unfinished ones are rerun longer): ICTCP's α·C − BW_T ≈ 0.9 − 0.2.
INCAST_SHARE = 0.7

TCP_INCAST_RATIO = 0.5
ICTCP_LIMIT = 0.10
KEEP_FRACTION = 0.7
UDP_KEEP = 0.99
FLOOR_TOLERANCE = 2

PAPER = "We also obtain the experimental results for a background UDP connection at 200 Mb/s, and ICTCP also performs well."
# The runs' keys: the incast beside the UDP source, and the same incast alone (ictcp-fig8's runs).
WITH_UDP, NO_BACKGROUND = "with UDP", "no background"


def udp_runs(p: Params, tb: Testbed) -> dict[Key, dict]:
    """``(variant, workload, senders)`` → scenario: the incast sweep of ictcp-fig13 with the UDP
    source instead of the background TCP flow."""
    out = {}
    for v in COMPARED:
        for name, size in per_sender_workloads(p["amounts_kb"]):
            for n in p["senders"]:
                by = int(size(n))
                sc = scenario(
                    f"ictcp-bg-udp-{v.label}-{name}-n{n}".replace(" ", "_"),
                    tb,
                    duration_s=incast_duration_s(tb, n, by, p["rounds"], LEAD_S, INCAST_SHARE, ROUND_SLACK_S),
                    warmup_s=LEAD_S,
                    queries=[incast_query(n, by, p["rounds"], start_s=LEAD_S)],
                )
                sc["udp"] = [dict(BACKGROUND_UDP)]
                out[(v.label, name, n)] = with_protocol(sc, tb, v.protocol, v.min_rwnd_segments)
    return out


def scenarios(p: Params, tb: Testbed) -> dict[Key, dict]:
    """``(WITH_UDP | NO_BACKGROUND, variant, workload, senders)`` → scenario: the UDP runs, then
    ictcp-fig8's runs as the reference."""
    return {
        **{(WITH_UDP, *k): sc for k, sc in udp_runs(p, tb).items()},
        **{(NO_BACKGROUND, *k): sc for k, sc in fixed_per_sender_runs(p, tb).items()},
    }


def udp_stats(res: Results) -> dict:
    """The UDP source's row: rates (Mb/s, IP bits, over the rounds) and packets (whole run)."""
    u = res.rows("udp")
    if not u:
        nan = float("nan")
        return {
            "udp_send_mbps": nan,
            "udp_receive_mbps": nan,
            "udp_sent": 0,
            "udp_received": 0,
            "udp_dropped": 0,
            "udp_loss": nan,
        }
    source = u[0]
    sent = int(source["sent_packets"])
    return {
        "udp_send_mbps": mbps(float(source["send_rate_bps"])),
        "udp_receive_mbps": mbps(float(source["receive_rate_bps"])),
        "udp_sent": sent,
        "udp_received": int(source["received_packets"]),
        "udp_dropped": int(source["dropped_packets"]),
        "udp_loss": int(source["dropped_packets"]) / sent if sent else float("nan"),
    }


def with_reference(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """``df`` with the same point's goodput and timeout ratio without background (``ref``:
    ictcp-fig8 rows) and the goodput ratio."""
    keys = ["variant", "workload", "senders"]
    r = ref[keys + ["goodput_mbps", "timeout_ratio"]].rename(
        columns={"goodput_mbps": "goodput_no_bg_mbps", "timeout_ratio": "timeout_ratio_no_bg"}
    )
    out = df.merge(r, on=keys, how="left")
    out["goodput_vs_no_bg"] = out.goodput_mbps / out.goodput_no_bg_mbps
    return out


def udp_wire_share(framing_bytes: int) -> float:
    """The share of the 1 Gbps wire the UDP takes: its rate of IP packets with the framing of
    the testbed's links (1,538-B frames of 1,500-B packets with Ethernet's 38 B)."""
    return UDP_RATE_GBPS * (UDP_PACKET_BYTES + framing_bytes) / UDP_PACKET_BYTES / RATE_GBPS


def analyze(runs: Runs) -> Metrics:
    tb = runs.testbed
    u, port, rc = udp_wire_share(tb.link["framing_bytes"]), port_share_bytes(tb.buffer(RATE_GBPS)), rc_bytes(tb)
    ref = runs_table(runs, [k for k in runs if k[0] == NO_BACKGROUND])
    df = with_reference(runs_table(runs, [k for k in runs if k[0] == WITH_UDP], more=udp_stats), ref)
    ic = df[df.variant == ICTCP_2MSS.label]
    return Metrics(
        values={
            "udp": {"rate_gbps": UDP_RATE_GBPS, "packet_bytes": UDP_PACKET_BYTES, "src": BACKGROUND_HOST, "start_s": 0.0},
            "thresholds": {
                "tcp_incast_ratio": TCP_INCAST_RATIO,
                "ictcp_limit": ICTCP_LIMIT,
                "keep_fraction": KEEP_FRACTION,
                "udp_keep": UDP_KEEP,
            },
            "udp_receive_mbps_min": {v.label: float(df[df.variant == v.label].udp_receive_mbps.min()) for v in COMPARED},
            "udp_loss_max": {v.label: float(df[df.variant == v.label].udp_loss.max()) for v in COMPARED},
            "ictcp_goodput_vs_no_bg_median": float(np.nanmedian(ic.goodput_vs_no_bg)) if len(ic) else float("nan"),
            "floor_limit_senders": {"with_udp": floor_limit_senders(u, port, rc), "without": floor_limit_senders(0.0, port, rc)},
            # Eq. 8's terms on the testbed: the UDP's share of the wire, one busy port's buffer, R·C.
            "udp_wire_share": u,
            "port_share_bytes": port,
            "rc_bytes": rc,
            "max_timeout_ratio": {v.label: worst(df, v, "timeout_ratio")[0] for v in COMPARED},
            "at_40": metrics_table(df, COMPARED, 40),
            # The goodput plot's title names them.
            "rounds_per_point": runs.params["rounds"],
        },
        tables={"bg_udp_runs": df, "no_bg_runs": ref},
    )


# --- claims: functions of the runs' table (testable on hand-made tables) -------------------


def timeouts_controlled(df: pd.DataFrame) -> tuple[bool, str]:
    """ICTCP's timeout ratio ≤ ICTCP_LIMIT wherever TCP's > TCP_INCAST_RATIO."""
    points, over = 0, []
    for w in dict.fromkeys(df.workload):
        tcp = curve(df, TCP, w).set_index("senders").timeout_ratio
        ic = curve(df, ICTCP_2MSS, w).set_index("senders").timeout_ratio
        for n in tcp.index:
            if tcp[n] > TCP_INCAST_RATIO:
                points += 1
                if not (n in ic.index and ic[n] <= ICTCP_LIMIT):
                    over.append((w, int(n), float(ic.get(n, float("nan"))), float(tcp[n])))
    imax, n_i, w_i = worst(df, ICTCP_2MSS, "timeout_ratio")
    text = (
        f"{points} points where TCP > {TCP_INCAST_RATIO:.0%}; ICTCP highest overall {fmt(100 * imax, 1)}% "
        f"(n={n_i}, {w_i}); ICTCP above {ICTCP_LIMIT:.0%} at {len(over)} of them: "
        + (", ".join(f"{w} n={n}: ICTCP {100 * a:.0f}% vs TCP {100 * b:.0f}%" for w, n, a, b in over[:6]) or "none")
    )
    return points > 0 and not over, text


def keeps_goodput(df: pd.DataFrame, u: float, n_star: float) -> tuple[bool, str]:
    """ICTCP's goodput with UDP ≥ KEEP_FRACTION × without, at every n where ICTCP alone had
    no timeout. ``df`` carries :func:`with_reference`'s columns; the text names the wire the
    UDP (share ``u``) leaves and the lowest ratio below the floor's limit ``n_star``."""
    d = df[(df.variant == ICTCP_2MSS.label) & (df.timeout_ratio_no_bg == 0)]
    d = d[d.goodput_vs_no_bg.notna()]
    if not len(d):
        return False, "no ICTCP point without timeouts in the reference runs"
    i = int(d.goodput_vs_no_bg.values.argmin())
    lo = d.iloc[i]
    low = d[~(d.goodput_vs_no_bg >= KEEP_FRACTION)]
    fit = d[d.senders < n_star].goodput_vs_no_bg
    text = (
        f"over {len(d)} points, lowest ratio {lo.goodput_vs_no_bg:.2f} ({lo.workload} n={int(lo.senders)}: "
        f"{lo.goodput_mbps:.0f} vs {lo.goodput_no_bg_mbps:.0f} Mb/s), median {float(d.goodput_vs_no_bg.median()):.2f} "
        f"(UDP leaves {1 - u:.3f} of the wire)"
        + (f"; lowest where the floor fits (n < {n_star:.1f}) {float(fit.min()):.2f}" if len(fit) else "")
        + (
            f"; below {KEEP_FRACTION} at {len(low)} points: "
            + ", ".join(f"{w} n={int(n)}" for w, n in list(zip(low.workload, low.senders))[:6])
            if len(low)
            else ""
        )
    )
    return not len(low), text


def udp_keeps_rate(df: pd.DataFrame) -> tuple[bool, str]:
    """Under ICTCP, the UDP's received rate ≥ UDP_KEEP × its rate in every run where none of its
    packets was dropped. The text reports each transport's worst loss and first n with a loss."""
    target = UDP_RATE_GBPS * 1e3
    ic = df[df.variant == ICTCP_2MSS.label]
    clean = ic[ic.udp_dropped == 0]
    short = clean[~(clean.udp_receive_mbps >= UDP_KEEP * target)]
    parts = []
    for v in COMPARED:
        d = df[df.variant == v.label]
        lossy = d[d.udp_dropped > 0]
        parts.append(
            f"{v.label}: worst loss {fmt(100 * float(d.udp_loss.max()), 2)}%, lowest {fmt(float(d.udp_receive_mbps.min()), 1)} Mb/s, "
            + (f"losses from n={int(lossy.senders.min())}" if len(lossy) else "no loss")
        )
    text = (
        f"ICTCP runs without UDP loss: {len(clean)}/{len(ic)}, lowest received rate there "
        f"{fmt(float(clean.udp_receive_mbps.min()) if len(clean) else float('nan'), 1)} Mb/s; "
        + "; ".join(parts)
        + (
            f"; below {UDP_KEEP * target:.0f} Mb/s: " + ", ".join(f"{w} n={int(n)}" for w, n in zip(short.workload, short.senders))
            if len(short)
            else ""
        )
    )
    return len(clean) > 0 and not len(short), text


def floor_limit_senders(u: float, port_bytes: float, rc: float) -> float:
    """n* = (port + R·C)·(1 − u) / (w·δ): the most senders whose 2-packet floor fits a port of
    ``port_bytes`` on a path of ``rc`` bytes beside a CBR share u (Eq. 8 extended; docstring)."""
    return (port_bytes + rc) * (1 - u) / (WINDOW_PACKETS * PACKET)


def timeouts_begin_at_floor(df: pd.DataFrame, n_star: float) -> tuple[bool, str]:
    """ICTCP's first n with a timeout, per workload, against the first n above ``n_star``."""
    n_over = math.floor(n_star) + 1
    parts, ok = [], True
    for w in dict.fromkeys(df.workload):
        d = curve(df, ICTCP_2MSS, w)
        grid = [int(n) for n in d.senders]
        hit = [int(n) for n, r in zip(d.senders, d.timeout_ratio) if r > 0]
        if not hit:
            parts.append(f"{w}: no timeout up to n={max(grid, default=0)}")
            ok = False
            continue
        first = hit[0]
        before = [n for n in grid if n < first]
        good = first >= n_over - FLOOR_TOLERANCE and not any(n >= n_over + FLOOR_TOLERANCE for n in before)
        ok &= good
        parts.append(f"{w}: first at n={first}" + ("" if good else " (outside)"))
    text = f"predicted n* = {n_star:.1f} (first overflow n={n_over}); " + "; ".join(parts)
    return bool(parts) and ok, text


CLAIMS = (
    Claim(
        id="ictcp-controls-timeouts",
        kind="paper",
        text=(
            f"With 200 Mb/s UDP, ICTCP still controls timeouts (§VII-C): wherever TCP's ratio of rounds with a "
            f"timeout exceeds {TCP_INCAST_RATIO:.0%}, ICTCP's is ≤ {ICTCP_LIMIT:.0%}"
        ),
        paper=PAPER,
        quote=PAPER,
        section="§VII-C",
        check=lambda m: timeouts_controlled(m.tables["bg_udp_runs"]),
    ),
    Claim(
        id="beats-tcp-beyond-collapse",
        kind="paper",
        text=(
            "With 200 Mb/s UDP, ICTCP beats TCP once TCP collapses (§VII-C): beyond TCP's collapse point "
            "(< ½ its peak) ICTCP's goodput exceeds TCP's at every n"
        ),
        paper=PAPER,
        quote=PAPER,
        section="§VII-C",
        check=lambda m: beats_tcp_beyond_collapse(m.tables["bg_udp_runs"]),
    ),
    Claim(
        id="keeps-goodput-without-background",
        kind="paper",
        text=lambda m: (
            f"ICTCP with UDP keeps ≥ {KEEP_FRACTION} × its goodput without background (ictcp-fig8 runs) at every n "
            f"where it alone has no timeout (the UDP takes {m['udp_wire_share']:.3f} of the wire)"
        ),
        paper=PAPER + ' (ICTCP "performs similarly well")',
        quote="We skip the results for the background UDP as ICTCP performs similarly well.",
        section="§VII-C",
        check=lambda m: keeps_goodput(m.tables["bg_udp_runs"], m["udp_wire_share"], m["floor_limit_senders"]["with_udp"]),
    ),
    Claim(
        id="udp-keeps-its-rate",
        kind="check",
        text=(
            f"The UDP flow (no congestion control) keeps its rate under ICTCP: ≥ {UDP_KEEP} × 200 Mb/s received in "
            "every ICTCP run where the port dropped none of its packets (losses reported per transport)"
        ),
        paper="background UDP connection at 200 Mb/s (its rate during incast not given)",
        check=lambda m: udp_keeps_rate(m.tables["bg_udp_runs"]),
    ),
    Claim(
        id="timeouts-begin-where-floor-overflows",
        kind="derived",
        text=(
            f"ICTCP's timeouts with UDP begin where its 2-MSS floor overflows the port (Eq. 8 with the UDP's "
            f"share): first n with a timeout within {FLOOR_TOLERANCE} senders of the first n above n*"
        ),
        paper="not in the paper (§V's Eq. 8: Q ≥ n·w·δ − R·C, 47 senders need 128.5 kB)",
        quote=(
            "To ensure there is no packet loss, the queue size Q should be large enough to store packets on the flight for all connections."
        ),
        section="§V, Eq. 8",
        check=lambda m: timeouts_begin_at_floor(m.tables["bg_udp_runs"], m["floor_limit_senders"]["with_udp"]),
    ),
)


# --- plots ---------------------------------------------------------------------------------


def plot_goodput(m: Metrics) -> Any:
    rounds = m["rounds_per_point"]
    return plot(
        m.tables["bg_udp_runs"],
        "goodput_mbps",
        "Incast goodput (Mb/s)",
        f"Incast goodput beside 200 Mb/s UDP, {rounds} rounds per point (as paper Fig. 13)",
        COMPARED,
        ymax=1000,
    )


def plot_timeouts(m: Metrics) -> Any:
    return plot(
        m.tables["bg_udp_runs"],
        "timeout_ratio",
        "Ratio of rounds with ≥ 1 timeout",
        "Rounds with timeouts beside 200 Mb/s UDP (as paper Fig. 14)",
        COMPARED,
        ymax=1.05,
        levels=[(ICTCP_LIMIT, f"ICTCP bound used here {ICTCP_LIMIT:.0%}")],
    )


def plot_rate(m: Metrics) -> Any:
    return plot(
        m.tables["bg_udp_runs"],
        "udp_receive_mbps",
        "UDP received rate during the rounds (Mb/s)",
        "The 200 Mb/s UDP flow while incast rounds run",
        COMPARED,
        ymax=250,
    )


def plot_vs_no_bg(m: Metrics) -> Any:
    return plot(
        m.tables["bg_udp_runs"],
        "goodput_vs_no_bg",
        "Goodput with UDP / without background",
        "Incast goodput beside UDP relative to ictcp-fig8 (no background)",
        COMPARED,
        ymax=1.5,
    )


EXPERIMENT = Experiment(
    id="ictcp-bg-udp",
    paper="ictcp",
    figure="§VII-C",
    title="incast beside a 200 Mb/s background UDP flow, ICTCP vs TCP vs DCTCP",
    description="Incast to a receiver that also takes 200 Mb/s of CBR UDP: ICTCP counts it in BW_T and still avoids incast.",
    testbed="ictcp_testbed",
    scales=PER_SENDER_SCALES,
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={
        "bg_udp_goodput": plot_goodput,
        "bg_udp_timeouts": plot_timeouts,
        "bg_udp_rate": plot_rate,
        "bg_udp_vs_no_bg": plot_vs_no_bg,
    },
    notes=__doc__ or "",
    rerun=longer_if_unfinished,
)
