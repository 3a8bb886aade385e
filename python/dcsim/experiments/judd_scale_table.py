"""Judd (Morgan Stanley) slides, "Scale": DCTCP with 100 to 500 senders into one 10 Gbps
receiver.

Slide table (verbatim; spec experiments.md judd-scale-table, algorithms.md §7.6):

  | Senders | Total (Mbps) | RTT (ms) | Retrans. total | Retrans. % | Timeouts | Min. Load (Gbps) |
  | 100     | 9,901        | 1.6      | 0              | 0          | 0        | 3.27             |
  | 200     | 9,900        | 3.11     | 0              | 0          | 0        | 6.55             |
  | 300     | 9,901        | 4.38     | 3              | 0          | 0        | 9.82             |
  | 400     | 9,894        | 4.42     | 702            | 4.6        | 274      | 13.09            |
  | 500     | 9,895        | 4.44     | 1,110          | 8.7        | 655      | 16.36            |

Result: throughput stays ≈ 9.9 Gbps; RTT grows about linearly with the senders, then
saturates at ≈ 4.4 ms; retransmissions and timeouts appear once "Min. Load" exceeds the line
rate. Checked as spec §6 claim 30 (tput ≥ 9.5 Gbps at every N; no timeouts at N ≤ 300; some at
N ≥ 400), plus the RTT's shape and level and the throughput's level.

Our setup: the shared Judd testbed (``judd.fanin``; judd.py's docstring gives its choices):
hosts 1..N each send one long-lived flow to host 0 over 10 Gbps links (5 µs per link), one
switch whose port to the receiver holds 5.5 MB (static), RED-ECN marking at K = 20 packets
(``judd.red_ecn()``), DCTCP hosts of ``judd.LINUX_TCP`` (g = 1/16, α₀ = 1, minimum window 2
segments, RTO_min 200 ms, IW 10, delayed ACK 2 / 40 ms), MTU 9000 (``tcp.mtu_bytes =
judd.JUMBO_MTU``: MSS 8960, 9038 B on the wire).

Assumptions:
- MTU 9000, minimum window 2 segments, 5.5 MB per port: spec §7.6 DERIVED, the only reading
  under which "Min. Load" = N × 2 × 9000 B × 8 / 4.4 ms fits every row (:func:`min_load_gbps`)
  and 4.4 ms is the 5.5 MB buffer's drain time at 10 Gbps (611 jumbo packets × 7.23 µs).
- Hosts mark every packet ECT (``judd.FIXED_HOSTS``: Linux's DCTCP keeps ECT on SYNs, ACKs
  and retransmissions). DERIVED: with N ≥ 100 flows pinned at 2 segments the queue never
  falls below K (≥ 200 packets), so RED-ECN would drop every non-ECT retransmission (and,
  with RFC 3168 hosts, every SYN: no connection opens at all); the slide's 300-sender row,
  3 retransmissions and no timeout, shows retransmissions got through a queue above K (with
  non-ECT retransmissions at 400 senders, quick scale, every retransmission is a timeout's
  and 105 of the 400 flows starve below 1 Mbps). The ECT pitfalls are
  judd-connection-establishment's subject, not this one's.
- Start schedule (NOT GIVEN): flow i (0-based) starts at i × 5 ms (+ up to 100 µs of
  jitter), one joiner per maximum RTT (4.4 ms), so one initial window (10 × 9 KB) at a time
  lands on the queue. DERIVED: all at once, 100 initial windows = 9 MB would overflow the 5.5
  MB buffer at 100 senders, where the slide has no retransmission.
- Measurement window (duration NOT GIVEN): from N × 5 ms + 0.5 s, when the last flow has
  been running 0.5 s ≈ 110 RTTs (its window reaches the 2-segment minimum within ~4 RTTs: α
  starts at 1 and every packet is marked), for 30 s (full) or 2 s (quick). Throughput, queue
  and RTT are over the window. Retransmissions, data packets and timeouts over the window are
  the run's counters minus those of the same run stopped at the window's start (a second,
  identical run: the engine counts over the whole run; the two agree packet for packet up to
  there, checked on the flows' delivered bytes). The whole-run counts are in the CSV too.
- "Retrans. %" base (NOT GIVEN): retransmitted / all data packets sent in the window. The
  slide's percentages cannot be of packets over a window of any length consistent with its
  counts (702 = 4.6% means 15,300 packets, 0.11 s at 9.9 Gbps, in which 274 timeouts of 200 ms
  among 400 flows could not fit); our counts grow with the window, so they compare only in
  kind (zero or not) with the slide's.
- RTT (ms) = base RTT (a 9000-B segment and its ACK on the idle star: 34.6 µs) + the receiver
  port's time-weighted mean queue over the window as delay (bytes + 38 B per packet at 10
  Gbps). ``srtt_ms`` (the flows' smoothed RTT at the end, averaged) is given beside it.
- "Min. Load" is computed, not measured (:func:`min_load_gbps`).

Checks: claim 30 as the spec states it (window counts); throughput within 1% of the slide's
at every N; the RTT's shape, linear then flat: the rises 100 → 200 and 200 → 300 agree within
25% (the slide's 1.51 and 1.27 ms: 16%) and the rise per 100 senders from 300 to 500 is below
20% of theirs (the slide's: 2%); the RTT within 15% of the slide's at every N.

Outputs: scale_table.csv (per N: ours beside the slide's for every column, then srtt, the
whole-run counts, drops, mean queue, Jain index and slowest flow), scale_table.png/.svg
(one panel per column, ours vs slide), scale_queue.csv (senders, t_s, packets, bytes: the
receiver port sampled every 1 ms). The run's result also has ``tables``: the slide's table
with our values beside.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import common as c
from . import judd
from .judd_throughput_fairness import FRAMING_BYTES, base_rtt_s, queue_delay_s

ID = "judd-scale-table"
TITLE = "Judd slides: Scale table, DCTCP with 100-500 senders into one 10 Gbps receiver"
DESCRIPTION = (
    "DCTCP, 100-500 long flows with jumbo frames into one 10 Gbps port (5.5 MB): throughput, RTT, retransmissions and timeouts "
    "against the slide's table."
)

SENDERS = (100, 200, 300, 400, 500)
W_MIN_SEGMENTS = 2
RTT_MAX_S = 4.4e-3  # the slide's RTT plateau, in its Min. Load column
START_SPACING_S = 0.005
SETTLE_S = 0.5
QUEUE_SAMPLE_US = 1000.0
HOSTS = judd.FIXED_HOSTS
SCALES = {
    "quick": {"senders": SENDERS, "measure_s": 2.0},
    "full": {"senders": SENDERS, "measure_s": 30.0},
}
RATE_BPS = judd.RATE_GBPS * 1e9

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

# Claim thresholds (module docstring).
TPUT_MIN_MBPS = 9500.0
TPUT_REL = 0.01
RTT_REL = 0.15
LINEAR_REL = 0.25
PLATEAU_REL = 0.20


def min_load_gbps(
    senders: int,
    w_min_segments: int = W_MIN_SEGMENTS,
    mtu_bytes: int = judd.JUMBO_MTU,
    rtt_s: float = RTT_MAX_S,
) -> float:
    """The slide's "Min. Load" (spec §7.6 DERIVED): the load when every sender is pinned at the
    minimum window of 2 jumbo frames per 4.4-ms RTT, N × 2 × 9000 B × 8 / 4.4 ms."""
    return senders * w_min_segments * mtu_bytes * 8 / rtt_s / 1e9


def warmup_s(senders: int) -> float:
    """Start of the measurement window: the last flow's start plus ``SETTLE_S``."""
    return senders * START_SPACING_S + SETTLE_S


def scenario(senders: int, scale: str, ramp_only: bool = False) -> dict:
    """DCTCP with ``senders`` long flows into host 0 (module docstring). ``ramp_only``: the
    same run stopped where the measurement window starts (its counters are subtracted)."""
    s = c.check_scale(scale, SCALES)
    w = warmup_s(senders)
    sc = judd.fanin(
        f"{ID}-n{senders}" + ("-ramp" if ramp_only else ""),
        senders=senders,
        cc="dctcp",
        aqm=judd.red_ecn(),
        duration_s=w if ramp_only else w + s["measure_s"],
        warmup_s=0.0 if ramp_only else w,
        tcp=HOSTS | {"mtu_bytes": judd.JUMBO_MTU},
        queue_sample_us=0.0 if ramp_only else QUEUE_SAMPLE_US,
        # One flow sample at the window's start: the determinism check against the ramp run.
        flow_sample_us=0.0 if ramp_only else w * 1e6,
    )
    for i, f in enumerate(sc["flows"]):
        f["start_s"] = i * START_SPACING_S
    return sc


def scenarios(scale: str) -> list[tuple[int, bool, dict]]:
    """``(senders, ramp_only, scenario)``: per N the measured run and its ramp."""
    s = c.check_scale(scale, SCALES)
    return [(n, ramp, scenario(n, scale, ramp)) for n in s["senders"] for ramp in (False, True)]


def window_counts(main_flows: list[dict], ramp_flows: list[dict]) -> dict[str, int]:
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
    srtts_s: list[float],
    window: dict[str, int],
    whole: dict[str, int],
    measure_s: float,
) -> dict[str, Any]:
    """One row of the table from the run's measurements (plain numbers: testable by hand)."""
    rtt = base_rtt_s(judd.JUMBO_MTU) + queue_delay_s(mean_bytes, mean_packets)
    sent = window["data_packets_sent"]
    sr = np.asarray([x for x in srtts_s if x is not None], dtype=float)
    sr = sr[np.isfinite(sr)]
    g = np.asarray(goodputs_bps, dtype=float)
    slide = dict(zip(COLUMNS, SLIDE.get(senders, (float("nan"),) * len(COLUMNS))))
    ours = {
        "total_mbps": float(g.sum()) / 1e6,
        "rtt_ms": rtt * 1e3,
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
        "srtt_ms": float(sr.mean()) * 1e3 if len(sr) else float("nan"),
        "queue_mean_packets": mean_packets,
        "queue_mean_mb": mean_bytes / 1e6,
        "data_packets": int(sent),
        "timeouts_per_s": window["timeouts"] / measure_s,
        "retrans_per_s": window["retransmits"] / measure_s,
        "whole_run_retrans": int(whole["retransmits"]),
        "whole_run_timeouts": int(whole["timeouts"]),
        "jain": c.jain(g),
        "slowest_mbps": float(g.min()) / 1e6 if len(g) else float("nan"),
        "ceiling_mbps": c.goodput_ceiling_bps(
            judd.RATE_GBPS, FRAMING_BYTES, mss=judd.JUMBO_MTU - 40
        )
        / 1e6,
    }
    return out


def rtt_shape(rtt_ms: dict[int, float]) -> dict[str, float]:
    """The RTT's rises: 100 → 200, 200 → 300, and per 100 senders from 300 to 500; whether
    the first two agree within ``LINEAR_REL`` and the last is below ``PLATEAU_REL`` of their
    mean."""
    s1 = rtt_ms[200] - rtt_ms[100]
    s2 = rtt_ms[300] - rtt_ms[200]
    s3 = (rtt_ms[500] - rtt_ms[300]) / 2
    linear = s1 > 0 and s2 > 0 and abs(s2 / s1 - 1) <= LINEAR_REL
    plateau = abs(s3) <= PLATEAU_REL * (s1 + s2) / 2
    return {"rise_100_200": s1, "rise_200_300": s2, "rise_per_100_300_500": s3,
            "linear": linear, "plateau": plateau}


def table_entry(df: pd.DataFrame, measure_s: float) -> dict:
    """The slide's table with our values beside (``tables`` of the result)."""
    cols = ["Senders"]
    for k in COLUMNS:
        cols += [f"{LABELS[k]} ours", f"{LABELS[k]} slide"]
    nd = {"total_mbps": 0, "rtt_ms": 2, "retrans": 0, "retrans_pct": 2, "timeouts": 0,
          "min_load_gbps": 2}
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


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    plan = scenarios(scale)
    # Largest N first: the longest runs start first.
    order = sorted(range(len(plan)), key=lambda i: (-plan[i][0], plan[i][1]))
    got = c.run_all([plan[i][2] for i in order], jobs)
    res: dict[tuple[int, bool], dict] = {}
    for i, r in zip(order, got):
        res[(plan[i][0], plan[i][1])] = r

    rows, queue, consistent = [], [], {}
    for n in s["senders"]:
        main, ramp = res[(n, False)], res[(n, True)]
        mf, rf = c.flows(main), c.flows(ramp)
        fs = c.flow_samples(main)
        first = fs[fs.t_s == fs.t_s.min()].sort_values("flow").delivered_bytes.to_numpy()
        consistent[n] = bool(
            np.isclose(fs.t_s.min(), warmup_s(n))
            and np.array_equal(first, np.array([int(f["bytes_delivered"]) for f in rf]))
        )
        whole = {k: c.total(main, k) for k in ("retransmits", "timeouts")}
        p = c.port(main)
        rows.append(
            row(
                n,
                [f["goodput_bps"] for f in mf],
                float(p["mean_bytes"]),
                float(p["mean_packets"]),
                [f["srtt_s"] for f in mf],
                window_counts(mf, rf),
                whole,
                s["measure_s"],
            )
        )
        t, pk, by = c.queue_series(main)
        queue.append(pd.DataFrame({"senders": n, "t_s": t, "packets": pk, "bytes": by}))
    df = pd.DataFrame(rows)
    df.to_csv(out / "scale_table.csv", index=False)
    pd.concat(queue, ignore_index=True).to_csv(out / "scale_queue.csv", index=False)
    files = plot(df, s["measure_s"], out)

    by_n = {int(r.senders): r for _, r in df.iterrows()}
    ns = sorted(by_n)
    low = [n for n in ns if n <= 300]
    high = [n for n in ns if n >= 400]
    tput_ok = all(by_n[n].total_mbps >= TPUT_MIN_MBPS for n in ns)
    to_low = all(by_n[n].timeouts == 0 for n in low)
    to_high = all(by_n[n].timeouts > 0 for n in high)
    claims = [
        c.claim(
            "DCTCP at scale (claim 30): throughput ≥ 9.5 Gbps at every N; no timeouts at "
            "N ≤ 300; timeouts at N ≥ 400",
            "≈ 9.9 Gbps for 100-500 senders; 0 / 0 / 3 retransmissions and 0 timeouts at "
            "100 / 200 / 300; 702 / 1,110 retransmissions, 274 / 655 timeouts at 400 / 500",
            "; ".join(
                f"N={n}: {by_n[n].total_mbps:,.0f} Mbps, {by_n[n].retrans:.0f} retx, "
                f"{by_n[n].timeouts:.0f} TO"
                for n in ns
            )
            + f" (over {s['measure_s']:g} s; whole run incl. start-up: "
            + ", ".join(
                f"{by_n[n].whole_run_retrans:.0f}/{by_n[n].whole_run_timeouts:.0f}" for n in ns
            )
            + " retx/TO)",
            tput_ok and to_low and to_high and all(consistent.values()),
        ),
        c.claim(
            f"Throughput stays ≈ 9.9 Gbps: within {TPUT_REL:.0%} of the slide's at every N",
            "9,894-9,901 Mbps",
            ", ".join(
                f"{by_n[n].total_mbps:,.0f} vs {by_n[n].slide_total_mbps:,.0f}" for n in ns
            )
            + f" Mbps (ceiling {by_n[ns[0]].ceiling_mbps:,.0f}: 8960-B payload in 9038 B)",
            all(
                abs(by_n[n].total_mbps / by_n[n].slide_total_mbps - 1) <= TPUT_REL for n in ns
            ),
        ),
    ]
    shape: dict[str, Any] = {}
    if all(n in by_n for n in (100, 200, 300, 500)):
        shape = rtt_shape({n: float(by_n[n].rtt_ms) for n in ns})
        claims.append(
            c.claim(
                "RTT grows about linearly with the senders, then saturates: rises 100 → 200 "
                f"and 200 → 300 agree within {LINEAR_REL:.0%}; rise per 100 senders from 300 "
                f"to 500 < {PLATEAU_REL:.0%} of theirs",
                "1.6, 3.11, 4.38, 4.42, 4.44 ms (rises 1.51, 1.27; then 0.03 per 100)",
                ", ".join(f"{by_n[n].rtt_ms:.2f}" for n in ns)
                + f" ms (rises {shape['rise_100_200']:.2f}, {shape['rise_200_300']:.2f}; then "
                f"{shape['rise_per_100_300_500']:.3f} per 100)",
                shape["linear"] and shape["plateau"],
            )
        )
    claims.append(
        c.claim(
            f"RTT within {RTT_REL:.0%} of the slide's at every N (base RTT + mean queueing "
            "delay)",
            "1.6 / 3.11 / 4.38 / 4.42 / 4.44 ms",
            ", ".join(f"{by_n[n].rtt_ms:.2f} vs {by_n[n].slide_rtt_ms:.2f}" for n in ns)
            + " ms (flows' srtt: "
            + ", ".join(f"{by_n[n].srtt_ms:.2f}" for n in ns)
            + ")",
            all(abs(by_n[n].rtt_ms / by_n[n].slide_rtt_ms - 1) <= RTT_REL for n in ns),
        )
    )
    table = table_entry(df, s["measure_s"])
    metrics = {
        "measure_s": s["measure_s"],
        "start_spacing_s": START_SPACING_S,
        "warmup_s": {n: warmup_s(n) for n in ns},
        "rows": df.to_dict(orient="records"),
        "rtt_shape": shape,
        "ramp_consistent": consistent,
        "files": ["scale_table.csv", "scale_queue.csv", *files],
    }
    return {
        "claims": claims,
        "metrics": c.jsonable(metrics),
        "files": metrics["files"],
        "tables": [c.jsonable(table)],
    }


def plot(df: pd.DataFrame, measure_s: float, out: Path) -> list[str]:
    fig, axes = c.figure(2, 3, size=(11.0, 6.4))
    xs = np.arange(len(df))
    w = 0.38
    for ax, k in zip(axes.flat, COLUMNS):
        fmt = "%.2f" if k in ("rtt_ms", "retrans_pct", "min_load_gbps") else "%.0f"
        bars = ax.bar(xs - w / 2, df[k], width=w, color="#1f77b4", label="ours")
        ax.bar_label(bars, fmt=fmt, fontsize=5.5, rotation=90, padding=2)
        bars = ax.bar(xs + w / 2, df[f"slide_{k}"], width=w, color="none", edgecolor="k",
                      hatch="//", label="slide")
        ax.bar_label(bars, fmt=fmt, fontsize=5.5, rotation=90, padding=2)
        ax.margins(y=0.18)
        if k == "rtt_ms":
            ax.plot(xs - w / 2, df.srtt_ms, "o", ms=3.5, color="#ff7f0e", label="ours: flows' srtt")
        if k == "min_load_gbps":
            ax.axhline(judd.RATE_GBPS, color="r", ls="--", lw=0.8, label="line rate")
        if k == "total_mbps":
            ax.set_ylim(9800, 9980)
        ax.set_xticks(xs, [str(int(n)) for n in df.senders])
        ax.set_xlabel("Senders")
        title = LABELS[k]
        if k in ("retrans", "timeouts", "retrans_pct"):
            title += f" (ours over {measure_s:g} s)"
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=6.5, loc="upper left")
    fig.suptitle("Scale: DCTCP, N senders into one 10 Gbps receiver (MTU 9000, 5.5 MB port)",
                 fontsize=10)
    return c.save_figure(fig, out, "scale_table")
