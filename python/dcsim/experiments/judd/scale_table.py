"""Judd (Morgan Stanley) slides, "Scale": DCTCP with 100 to 500 senders into one 10 Gbps
receiver.

Slide table (verbatim):

  | Senders | Total (Mbps) | RTT (ms) | Retrans. total | Retrans. % | Timeouts | Min. Load (Gbps) |
  | 100     | 9,901        | 1.6      | 0              | 0          | 0        | 3.27             |
  | 200     | 9,900        | 3.11     | 0              | 0          | 0        | 6.55             |
  | 300     | 9,901        | 4.38     | 3              | 0          | 0        | 9.82             |
  | 400     | 9,894        | 4.42     | 702            | 4.6        | 274      | 13.09            |
  | 500     | 9,895        | 4.44     | 1,110          | 8.7        | 655      | 16.36            |

Result: throughput stays ≈ 9.9 Gbps; RTT grows about linearly with the senders, then
saturates at ≈ 4.4 ms; retransmissions and timeouts appear once "Min. Load" exceeds the line
rate. Checked: tput ≥ 9.5 Gbps at every N, no timeouts at N ≤ 300 and some at N ≥ 400; plus
the RTT's shape and level and the throughput's level.

Our setup: the Judd testbed (``testbeds.fanin``; the testbed's docstring gives its choices):
hosts 1..N each send one long-lived flow to host 0 over 10 Gbps links (5 µs per link), one
switch whose port to the receiver holds 5.5 MB (static), RED-ECN marking at K = 20 packets
(``testbeds.red_ecn()``), DCTCP hosts with the testbed's Linux stack (g = 1/16, α₀ = 1, minimum
window 2 segments, RTO_min 200 ms, IW 10, delayed ACK 2 / 40 ms), MTU 9000 (``tcp.mtu_bytes =
testbeds.JUMBO_MTU``: MSS 8960, 9038 B on the wire).

Assumptions:
- MTU 9000, minimum window 2 segments, 5.5 MB per port: derived, the only reading under
  which "Min. Load" = N × 2 × 9000 B × 8 / 4.4 ms fits every row (:func:`min_load_gbps`)
  and 4.4 ms is the 5.5 MB buffer's drain time at 10 Gbps (611 jumbo packets × 7.23 µs).
- Hosts mark every packet ECT (``testbeds.FIXED_HOSTS``: Linux's DCTCP keeps ECT on SYNs, ACKs
  and retransmissions). Derived: with N ≥ 100 flows pinned at 2 segments the queue never
  falls below K (≥ 200 packets), so RED-ECN would drop every non-ECT retransmission (and,
  with RFC 3168 hosts, every SYN: no connection opens at all); the slide's 300-sender row,
  3 retransmissions and no timeout, shows retransmissions got through a queue above K (with
  non-ECT retransmissions at 400 senders, quick scale, every retransmission is a timeout's
  and 105 of the 400 flows starve below 1 Mbps). The ECT pitfalls are
  judd-connection-establishment's subject, not this one's.
- Start schedule (not given): flow i (0-based) starts at i × 5 ms (+ up to 100 µs of
  jitter), one joiner per maximum RTT (4.4 ms), so one initial window (10 × 9 KB) at a time
  lands on the queue. Derived: all at once, 100 initial windows = 9 MB would overflow the 5.5
  MB buffer at 100 senders, where the slide has no retransmission.
- Measurement window (duration not given): from N × 5 ms + 0.5 s, when the last flow has
  been running 0.5 s ≈ 110 RTTs (its window reaches the 2-segment minimum within ~4 RTTs: α
  starts at 1 and every packet is marked), for 30 s (full) or 2 s (quick). Throughput, queue
  and RTT are over the window. Retransmissions, data packets and timeouts over the window are
  the run's counters minus those of the same run stopped at the window's start (a second,
  identical run: the engine counts over the whole run; the two agree packet for packet up to
  there, checked on the flows' delivered bytes). The whole-run counts are in the CSV too.
- "Retrans. %" base (not given): retransmitted / all data packets sent in the window. The
  slide's percentages cannot be of packets over a window of any length consistent with its
  counts (702 = 4.6% means 15,300 packets, 0.11 s at 9.9 Gbps, in which 274 timeouts of 200 ms
  among 400 flows could not fit); our counts grow with the window, so they compare only in
  kind (zero or not) with the slide's.
- RTT (ms) = base RTT (a 9000-B segment and its ACK on the idle star: 34.6 µs) + the receiver
  port's time-weighted mean queue over the window as delay (bytes + 38 B per packet at 10
  Gbps). ``srtt_ms`` (the flows' smoothed RTT at the end, averaged) is given beside it. The
  base RTT, the framing and the ceiling are the testbed's (its link delay and framing); the
  slide's numbers, and the 4.4-ms RTT in "Min. Load", stay the slide's.
- "Min. Load" is computed, not measured (:func:`min_load_gbps`).

Checks: throughput ≥ 9.5 Gbps at every N, no timeouts at N ≤ 300 and some at N ≥ 400 (counts
over the window); throughput within 1% of the slide's at every N; the RTT's shape, linear then
flat: the rises 100 → 200 and 200 → 300 agree within 25% (the slide's 1.51 and 1.27 ms: 16%)
and the rise per 100 senders from 300 to 500 is below 20% of theirs (the slide's: 2%); the
RTT within 15% of the slide's at every N.

Outputs: scale_table.csv (per N: ours beside the slide's for every column, then srtt, the
whole-run counts, drops, mean queue, Jain index and slowest flow), scale_table.png/.svg
(one panel per column, ours vs slide), scale_queue.csv (senders, t_s, packets, bytes: the
receiver port sampled every 1 ms). The report also shows the slide's table with our values
beside.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis import goodput_ceiling_bps, jain
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure
from ..scenarios import RECEIVER_PORT, port_share_bytes
from ..units import gbps, mbps, ms
from .testbeds import FIXED_HOSTS, HEADER_BYTES, JUMBO_MTU, RATE_GBPS, base_rtt_s, fanin, queue_delay_s, red_ecn

if TYPE_CHECKING:
    import pandas as pd

SENDERS = (100, 200, 300, 400, 500)
W_MIN_SEGMENTS = 2
RTT_MAX_S = 4.4e-3  # the slide's RTT plateau, in its Min. Load column
START_SPACING_S = 0.005
SETTLE_S = 0.5
QUEUE_SAMPLE_US = 1000.0

# The slide's table, verbatim: senders -> (total Mbps, RTT ms, retrans. total, retrans. %,
# timeouts, Min. Load Gbps).
SLIDE: dict[int, tuple[float, float, int, float, int, float]] = {
    100: (9901, 1.6, 0, 0.0, 0, 3.27),
    200: (9900, 3.11, 0, 0.0, 0, 6.55),
    300: (9901, 4.38, 3, 0.0, 0, 9.82),
    400: (9894, 4.42, 702, 4.6, 274, 13.09),
    500: (9895, 4.44, 1110, 8.7, 655, 16.36),
}
COLUMNS = ("total_mbps", "rtt_ms", "retrans", "retrans_pct", "timeouts", "min_load_gbps")
LABELS = {
    "total_mbps": "Total (Mbps)",
    "rtt_ms": "RTT (ms)",
    "retrans": "Retrans. total",
    "retrans_pct": "Retrans. %",
    "timeouts": "Timeouts",
    "min_load_gbps": "Min. Load (Gbps)",
}

# Claim thresholds (the notes' "Checks").
TPUT_MIN_MBPS = 9500.0
TPUT_REL = 0.01
RTT_REL = 0.15
LINEAR_REL = 0.25
PLATEAU_REL = 0.20


def min_load_gbps(
    senders: int,
    w_min_segments: int = W_MIN_SEGMENTS,
    mtu_bytes: int = JUMBO_MTU,
    rtt_s: float = RTT_MAX_S,
) -> float:
    """The slide's "Min. Load" (derived): the load when every sender is pinned at the minimum
    window of 2 jumbo frames per 4.4-ms RTT, N × 2 × 9000 B × 8 / 4.4 ms."""
    return gbps(senders * w_min_segments * mtu_bytes * 8 / rtt_s)


def warmup_s(senders: int) -> float:
    """Start of the measurement window: the last flow's start plus ``SETTLE_S``."""
    return senders * START_SPACING_S + SETTLE_S


def scenario(senders: int, p: Params, tb: Testbed, ramp_only: bool = False) -> dict[str, Any]:
    """DCTCP with ``senders`` long flows into host 0 (the notes). ``ramp_only``: the same run
    stopped where the measurement window starts (its counters are subtracted)."""
    w = warmup_s(senders)
    sc = fanin(
        f"judd-scale-table-n{senders}" + ("-ramp" if ramp_only else ""),
        tb,
        senders=senders,
        cc="dctcp",
        aqm=red_ecn(),
        duration_s=w if ramp_only else w + p["measure_s"],
        warmup_s=0.0 if ramp_only else w,
        tcp=FIXED_HOSTS | {"mtu_bytes": JUMBO_MTU},
        queue_sample_us=0.0 if ramp_only else QUEUE_SAMPLE_US,
        # One flow sample at the window's start: the determinism check against the ramp run.
        flow_sample_us=0.0 if ramp_only else w * 1e6,
    )
    for i, f in enumerate(sc["flows"]):
        f["start_s"] = i * START_SPACING_S
    return sc


def scenarios(p: Params, tb: Testbed) -> dict[tuple[int, bool], dict[str, Any]]:
    """``(senders, ramp_only)`` → scenario: per N the measured run and its ramp, largest N
    first (the longest runs start first)."""
    return {(n, ramp): scenario(n, p, tb, ramp) for n in sorted(p["senders"], reverse=True) for ramp in (False, True)}


def window_counts(main_flows: list[dict[str, Any]], ramp_flows: list[dict[str, Any]]) -> dict[str, int]:
    """Counters over the measurement window: the whole run's minus those of the run stopped
    at the window's start, summed over the flows."""
    out = {}
    for k in ("retransmits", "timeouts", "data_packets_sent"):
        whole = sum(int(f[k]) for f in main_flows)
        before = sum(int(f[k]) for f in ramp_flows)
        if before > whole:
            raise ValueError(f"{k}: ramp run counted {before} > whole run's {whole}")
        out[k] = whole - before
    return out


def row(
    senders: int,
    goodputs_bps: list[float],
    mean_bytes: float,
    mean_packets: float,
    srtts_s: list[float | None],
    window: dict[str, int],
    whole: dict[str, int],
    measure_s: float,
    link: Mapping[str, Any],
) -> dict[str, Any]:
    """One row of the table from the run's measurements on a testbed's ``link`` (its delay and
    framing; plain numbers: testable by hand)."""
    rtt = base_rtt_s(link, JUMBO_MTU) + queue_delay_s(mean_bytes, mean_packets, link)
    sent = window["data_packets_sent"]
    sr = np.asarray([x for x in srtts_s if x is not None], dtype=float)
    sr = sr[np.isfinite(sr)]
    g = np.asarray(goodputs_bps, dtype=float)
    slide = dict(zip(COLUMNS, SLIDE.get(senders, (float("nan"),) * len(COLUMNS))))
    ours = {
        "total_mbps": mbps(float(g.sum())),
        "rtt_ms": ms(rtt),
        "retrans": int(window["retransmits"]),
        "retrans_pct": 100.0 * window["retransmits"] / sent if sent else 0.0,
        "timeouts": int(window["timeouts"]),
        "min_load_gbps": min_load_gbps(senders),
    }
    out: dict[str, Any] = {"senders": senders}
    for k in COLUMNS:
        out[k] = ours[k]
        out[f"slide_{k}"] = slide[k]
    out |= {
        "srtt_ms": ms(float(sr.mean())) if len(sr) else float("nan"),
        "queue_mean_packets": mean_packets,
        "queue_mean_mb": mean_bytes / 1e6,
        "data_packets": int(sent),
        "timeouts_per_s": window["timeouts"] / measure_s,
        "retrans_per_s": window["retransmits"] / measure_s,
        "whole_run_retrans": int(whole["retransmits"]),
        "whole_run_timeouts": int(whole["timeouts"]),
        "jain": jain(g),
        "slowest_mbps": mbps(float(g.min())) if len(g) else float("nan"),
        "ceiling_mbps": mbps(goodput_ceiling_bps(RATE_GBPS, link["framing_bytes"], mss=JUMBO_MTU - HEADER_BYTES)),
    }
    return out


def rtt_shape(rtt_ms: dict[int, float]) -> dict[str, Any]:
    """The RTT's rises: 100 → 200, 200 → 300, and per 100 senders from 300 to 500; whether
    the first two agree within ``LINEAR_REL`` and the last is below ``PLATEAU_REL`` of their
    mean."""
    s1 = rtt_ms[200] - rtt_ms[100]
    s2 = rtt_ms[300] - rtt_ms[200]
    s3 = (rtt_ms[500] - rtt_ms[300]) / 2
    linear = s1 > 0 and s2 > 0 and abs(s2 / s1 - 1) <= LINEAR_REL
    plateau = abs(s3) <= PLATEAU_REL * (s1 + s2) / 2
    return {"rise_100_200": s1, "rise_200_300": s2, "rise_per_100_300_500": s3, "linear": linear, "plateau": plateau}


def table_entry(df: pd.DataFrame, measure_s: float) -> dict[str, Any]:
    """The slide's table with our values beside (the published table of the metrics)."""
    cols = ["Senders"]
    for k in COLUMNS:
        cols += [f"{LABELS[k]} ours", f"{LABELS[k]} slide"]
    nd = {"total_mbps": 0, "rtt_ms": 2, "retrans": 0, "retrans_pct": 2, "timeouts": 0, "min_load_gbps": 2}
    rows = []
    for _, r in df.iterrows():
        cells: list[Any] = [int(r.senders)]
        for k in COLUMNS:
            for v in (r[k], r[f"slide_{k}"]):
                cells.append(int(round(v)) if nd[k] == 0 else round(float(v), nd[k]))
        rows.append(cells)
    return {
        "title": (
            f"Scale: DCTCP, N senders into one 10 Gbps receiver, ours beside the slide's "
            f"(retransmissions and timeouts over our {measure_s:g}-s window, % of data "
            "packets; RTT = base + mean queueing delay; Min. Load computed)"
        ),
        "columns": cols,
        "rows": rows,
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    measure_s = runs.params["measure_s"]
    rows, queue, consistent = [], [], {}
    for n in runs.params["senders"]:
        main, ramp = runs[(n, False)], runs[(n, True)]
        mf, rf = main.rows("flows"), ramp.rows("flows")
        fs = main.flow_samples
        first = fs[fs.t_s == fs.t_s.min()].sort_values("flow").delivered_bytes.to_numpy()
        consistent[n] = bool(
            np.isclose(fs.t_s.min(), warmup_s(n)) and np.array_equal(first, np.array([int(f["bytes_delivered"]) for f in rf]))
        )
        whole = {k: main.total(k) for k in ("retransmits", "timeouts")}
        port = main.port(RECEIVER_PORT)
        rows.append(
            row(
                n,
                [f["goodput_bps"] for f in mf],
                float(port["mean_bytes"]),
                float(port["mean_packets"]),
                [f["srtt_s"] for f in mf],
                window_counts(mf, rf),
                whole,
                measure_s,
                runs.testbed.link,
            )
        )
        t, pk, by = main.queue_series(RECEIVER_PORT)
        queue.append(pd.DataFrame({"senders": n, "t_s": t, "packets": pk, "bytes": by}))
    df = pd.DataFrame(rows)
    return Metrics(
        values={
            "measure_s": measure_s,
            "start_spacing_s": START_SPACING_S,
            "port_buffer_bytes": port_share_bytes(runs.testbed.buffer(RATE_GBPS), JUMBO_MTU),
            "warmup_s": {n: warmup_s(n) for n in sorted(runs.params["senders"])},
            "rows": df.to_dict(orient="records"),
            "rtt_shape": rtt_shape({int(r.senders): float(r.rtt_ms) for _, r in df.iterrows()}),
            "ramp_consistent": consistent,
        },
        tables={"scale_table": df, "scale_queue": pd.concat(queue, ignore_index=True)},
        published=(table_entry(df, measure_s),),
    )


# --- claims ------------------------------------------------------------------------------


def _by_n(m: Metrics) -> dict[int, Any]:
    """The table's rows by their number of senders (as pandas rows: numbers as floats)."""
    return {int(r.senders): r for _, r in m.tables["scale_table"].iterrows()}


def _at_scale(m: Metrics) -> tuple[bool, str]:
    by_n = _by_n(m)
    ns = sorted(by_n)
    low = [n for n in ns if n <= 300]
    high = [n for n in ns if n >= 400]
    tput_ok = all(by_n[n].total_mbps >= TPUT_MIN_MBPS for n in ns)
    to_low = all(by_n[n].timeouts == 0 for n in low)
    to_high = all(by_n[n].timeouts > 0 for n in high)
    measured = (
        "; ".join(f"N={n}: {by_n[n].total_mbps:,.0f} Mbps, {by_n[n].retrans:.0f} retx, {by_n[n].timeouts:.0f} TO" for n in ns)
        + f" (over {m['measure_s']:g} s; whole run incl. start-up: "
        + ", ".join(f"{by_n[n].whole_run_retrans:.0f}/{by_n[n].whole_run_timeouts:.0f}" for n in ns)
        + " retx/TO)"
    )
    return tput_ok and to_low and to_high and all(m["ramp_consistent"].values()), measured


def _throughput_level(m: Metrics) -> tuple[bool, str]:
    by_n = _by_n(m)
    ns = sorted(by_n)
    measured = (
        ", ".join(f"{by_n[n].total_mbps:,.0f} vs {by_n[n].slide_total_mbps:,.0f}" for n in ns)
        + f" Mbps (ceiling {by_n[ns[0]].ceiling_mbps:,.0f}: 8960-B payload in 9038 B)"
    )
    return all(abs(by_n[n].total_mbps / by_n[n].slide_total_mbps - 1) <= TPUT_REL for n in ns), measured


def _rtt_shape(m: Metrics) -> tuple[bool, str]:
    by_n, shape = _by_n(m), m["rtt_shape"]
    measured = (
        ", ".join(f"{by_n[n].rtt_ms:.2f}" for n in sorted(by_n))
        + f" ms (rises {shape['rise_100_200']:.2f}, {shape['rise_200_300']:.2f}; then "
        f"{shape['rise_per_100_300_500']:.3f} per 100)"
    )
    return shape["linear"] and shape["plateau"], measured


def _rtt_level(m: Metrics) -> tuple[bool, str]:
    by_n = _by_n(m)
    ns = sorted(by_n)
    measured = (
        ", ".join(f"{by_n[n].rtt_ms:.2f} vs {by_n[n].slide_rtt_ms:.2f}" for n in ns)
        + " ms (flows' srtt: "
        + ", ".join(f"{by_n[n].srtt_ms:.2f}" for n in ns)
        + ")"
    )
    return all(abs(by_n[n].rtt_ms / by_n[n].slide_rtt_ms - 1) <= RTT_REL for n in ns), measured


RTT_COLUMN = "RTT (ms) ... 1.6 ... 3.11 ... 4.38 ... 4.42 ... 4.44"

CLAIMS = (
    Claim(
        id="full-throughput-timeouts-from-400",
        kind="paper",
        text="DCTCP at scale: throughput ≥ 9.5 Gbps at every N; no timeouts at N ≤ 300; timeouts at N ≥ 400",
        paper=(
            "≈ 9.9 Gbps for 100-500 senders; 0 / 0 / 3 retransmissions and 0 timeouts at "
            "100 / 200 / 300; 702 / 1,110 retransmissions, 274 / 655 timeouts at 400 / 500"
        ),
        quote="Has scaling limits, but significantly improves performance",
        section="slide 'Conclusion'",
        check=_at_scale,
    ),
    Claim(
        id="throughput-within-1pct",
        kind="paper",
        text=f"Throughput stays ≈ 9.9 Gbps: within {TPUT_REL:.0%} of the slide's at every N",
        paper="9,894-9,901 Mbps",
        quote="Total (Mbps) ... 9,901 ... 9,900 ... 9,901 ... 9,894 ... 9,895",
        section="slide 'Scale'",
        check=_throughput_level,
    ),
    Claim(
        id="rtt-linear-then-flat",
        kind="derived",
        text=(
            "RTT grows about linearly with the senders, then saturates: rises 100 → 200 "
            f"and 200 → 300 agree within {LINEAR_REL:.0%}; rise per 100 senders from 300 "
            f"to 500 < {PLATEAU_REL:.0%} of theirs"
        ),
        paper="1.6, 3.11, 4.38, 4.42, 4.44 ms (rises 1.51, 1.27; then 0.03 per 100)",
        quote=RTT_COLUMN,
        section="slide 'Scale'",
        check=_rtt_shape,
    ),
    Claim(
        id="rtt-within-15pct",
        kind="paper",
        text=f"RTT within {RTT_REL:.0%} of the slide's at every N (base RTT + mean queueing delay)",
        paper="1.6 / 3.11 / 4.38 / 4.42 / 4.44 ms",
        quote=RTT_COLUMN,
        section="slide 'Scale'",
        check=_rtt_level,
    ),
)


# --- plot --------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    df, measure_s = m.tables["scale_table"], m["measure_s"]
    fig, axes = figure(2, 3, size=(11.0, 6.4))
    xs = np.arange(len(df))
    w = 0.38
    for ax, k in zip(axes.flat, COLUMNS):
        fmt = "%.2f" if k in ("rtt_ms", "retrans_pct", "min_load_gbps") else "%.0f"
        bars = ax.bar(xs - w / 2, df[k], width=w, color="#1f77b4", label="ours")
        ax.bar_label(bars, fmt=fmt, fontsize=5.5, rotation=90, padding=2)
        bars = ax.bar(xs + w / 2, df[f"slide_{k}"], width=w, color="none", edgecolor="k", hatch="//", label="slide")
        ax.bar_label(bars, fmt=fmt, fontsize=5.5, rotation=90, padding=2)
        ax.margins(y=0.18)
        if k == "rtt_ms":
            ax.plot(xs - w / 2, df.srtt_ms, "o", ms=3.5, color="#ff7f0e", label="ours: flows' srtt")
        if k == "min_load_gbps":
            ax.axhline(RATE_GBPS, color="r", ls="--", lw=0.8, label="line rate")
        if k == "total_mbps":
            ax.set_ylim(9800, 9980)
        ax.set_xticks(xs, [str(int(n)) for n in df.senders])
        ax.set_xlabel("Senders")
        title = LABELS[k]
        if k in ("retrans", "timeouts", "retrans_pct"):
            title += f" (ours over {measure_s:g} s)"
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=6.5, loc="upper left")
    fig.suptitle(f"Scale: DCTCP, N senders into one 10 Gbps receiver (MTU 9000, {m['port_buffer_bytes'] / 1e6:.1f} MB port)", fontsize=10)
    return fig


EXPERIMENT = Experiment(
    id="judd-scale-table",
    paper="judd",
    figure="slides",
    title="Scale table, DCTCP with 100-500 senders into one 10 Gbps receiver",
    description=(
        "DCTCP, 100-500 long flows with jumbo frames into one 10 Gbps port (5.5 MB): throughput, RTT, retransmissions and timeouts "
        "against the slide's table."
    ),
    testbed="judd_testbed",
    scales={
        "quick": {"senders": SENDERS, "measure_s": 2.0},
        "full": {"senders": SENDERS, "measure_s": 30.0},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"scale_table": plot},
    notes=__doc__ or "",
)
