"""What the three Judd "Stability, Convergence, & Fairness" experiments share
(judd-stability-tcp, judd-stability-dctcp, judd-stability-tcp-2flows): the two protocols on
the Judd testbed, the flows-join-and-leave schedule, the per-phase analysis and the plots.

The slides show three figures and no numbers: "Stability, Convergence, & Fairness: TCP",
"...: DCTCP" and "...: TCP, 2 Flows". The spec (experiments.md judd-stability-*) proposes the
10 Gbps analogue of the DCTCP paper's Fig. 16 (dctcp_fig16.py): flows join and leave a 10 Gbps
bottleneck one at a time, plus a 2-flow TCP case; metric per-flow throughput vs time; expected
"DCTCP smooth and fair, TCP fair on average with large variation".

Setup (``judd.fanin``; judd.py's docstring gives every choice of the testbed): hosts 1..n
each send one long-lived flow to host 0 over 10 Gbps links (5 µs per link), one switch whose
port to the receiver holds 5.5 MB, Linux hosts of the time (RTO_min 200 ms, IW 10, delayed
ACK 2 / 40 ms).
- "TCP": CUBIC (``judd.TCP_CC``) over drop-tail.
- "DCTCP": DCTCP (g = 1/16, α₀ = 1, minimum window 2) over RED-ECN marking at K = 20 packets
  (``judd.red_ecn()``), hosts with the slides' deployment fixes (``judd.FIXED_HOSTS``: ECT on
  every packet, SYNs and ACKs included, as Linux's DCTCP sends them), so that a joining
  flow's SYN is not dropped above K: that pitfall is judd-connection-establishment's
  subject, not these slides'.

The five-flow schedule is dctcp_fig16's: flow i (i = 0..4) starts at i × spacing and stops
last in, first out at (9 − i) × spacing; flow 0 runs to the end. Each flow's delivered bytes
are sampled every 100 ms. Per phase (a stretch with a fixed set of active flows), a flow's
throughput is its mean from its delivered bytes after the first fifth of the phase, Jain's
index is over the active flows, and the variation is the coefficient of variation (std/mean)
of a flow's 100-ms samples in the same settled part, averaged over the active flows
(``dctcp_fig16.phase_rows``, the same definitions).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from . import common as c
from . import dctcp_fig16 as f16
from . import judd

FLOWS = 5
SETTLE_FRACTION = 0.2
SAMPLE_S = 0.1
PROTOCOLS = ("TCP", "DCTCP")
COLORS = {"TCP": "tab:red", "DCTCP": "tab:blue"}
# Five flows: quick compresses the schedule 10× (as dctcp-fig16 does, 15×): 3-s phases, 27 s.
SCALES = {
    "quick": {"spacing_s": 3.0},
    "full": {"spacing_s": 30.0},
}

# The stated checks (docstrings of judd_stability_tcp.py and judd_stability_dctcp.py).
DCTCP_MIN_JAIN = 0.99  # "fair": every phase with two or more flows
DCTCP_MAX_COV = 0.10  # "smooth": mean CoV of 100-ms samples
TCP_MIN_JAIN = 0.95  # "fair on average": every phase (spec claim 24's "share fairly")
TCP_COV_FACTOR = 2.0  # "larger variation": TCP's mean CoV ≥ 2 × DCTCP's


def protocol_setup(proto: str) -> tuple[str, dict, dict]:
    """``(cc, switch AQM, host ECT settings)`` of a protocol."""
    if proto == "TCP":
        return judd.TCP_CC, dict(c.DROP_TAIL), {}
    if proto == "DCTCP":
        return "dctcp", judd.red_ecn(), dict(judd.FIXED_HOSTS)
    raise ValueError(f"protocol must be one of {PROTOCOLS}, got {proto!r}")


def testbed(
    name: str, proto: str, *, senders: int, duration_s: float, warmup_s: float = 0.0
) -> dict:
    """``judd.fanin`` with the protocol's congestion control, AQM and host settings, each
    flow's delivered bytes sampled every :data:`SAMPLE_S`."""
    cc, aqm, hosts = protocol_setup(proto)
    return judd.fanin(
        name,
        senders=senders,
        cc=cc,
        aqm=aqm,
        duration_s=duration_s,
        warmup_s=warmup_s,
        tcp=hosts,
        flow_sample_us=SAMPLE_S * 1e6,
    )


# ---------------------------------------------------------------------------------------
# Five flows joining and leaving (judd-stability-tcp, judd-stability-dctcp)
# ---------------------------------------------------------------------------------------


def windows(scale: str) -> list[tuple[float, float]]:
    """``(start_s, stop_s)`` of each flow: one starts every spacing, they stop last in first out."""
    sp = c.check_scale(scale, SCALES)["spacing_s"]
    return [(i * sp, (2 * FLOWS - 1 - i) * sp) for i in range(FLOWS)]


def scenario(proto: str, scale: str) -> dict:
    """The five-flow run of one protocol. Its name does not depend on the experiment that
    runs it, so judd-stability-tcp and judd-stability-dctcp share one cached run."""
    win = windows(scale)
    end = max(stop for _, stop in win)
    sc = testbed(f"judd-stability-{proto.lower()}", proto, senders=FLOWS, duration_s=end)
    sc["flows"] = [
        {"src": i + 1, "dst": 0, "start_s": start} | ({"stop_s": stop} if stop < end else {})
        for i, (start, stop) in enumerate(win)
    ]
    return sc


def scenarios(scale: str) -> list[tuple[str, dict]]:
    """``(protocol, scenario)`` for both protocols."""
    c.check_scale(scale, SCALES)
    return [(p, scenario(p, scale)) for p in PROTOCOLS]


def phase_rows(fs: pd.DataFrame, win: Sequence[tuple[float, float]]) -> list[dict]:
    """Per phase of the schedule ``win``: the active flows' settled throughputs (Mb/s), their
    Jain index, fair share and mean CoV of 100-ms samples (dctcp_fig16's definitions)."""
    rates = c.flow_rates(fs)
    rows = c.settled_goodputs(fs, win, SETTLE_FRACTION)
    for r in rows:
        inside = (rates.t_s - SAMPLE_S >= r["settled_s"] - 1e-9) & (rates.t_s <= r["end_s"] + 1e-9)
        r["fair_share_mbps"] = r["total_mbps"] / r["active"]
        r["cov"] = float(
            np.mean([f16.cov(rates[inside & (rates.flow == f)].mbps) for f in r["flows"]])
        )
    return rows


def summarize(df: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per protocol, over the phases with two or more flows: the lowest Jain index, the mean
    CoV, and the phases' Jain indices and CoVs in schedule order."""
    out = {}
    for proto, g in df[df.active > 1].groupby("protocol", sort=False):
        out[str(proto)] = {
            "worst_jain": float(g.jain.min()),
            "mean_cov": float(g["cov"].mean()),
            "jains": [float(j) for j in g.jain],
            "covs": [float(v) for v in g["cov"]],
        }
    return out


def _list(xs: Sequence[float]) -> str:
    return ", ".join(f"{x:.3f}" for x in xs)


def tcp_claims(s: dict[str, dict[str, Any]]) -> list[dict]:
    """judd-stability-tcp's checks on a :func:`summarize` of both protocols."""
    t, d = s["TCP"], s["DCTCP"]
    return [
        c.claim(
            f"TCP is fair on average: TCP's Jain index ≥ {TCP_MIN_JAIN} in every phase with "
            "≥ 2 flows (phase-average throughputs after the first fifth of the phase)",
            "TCP fair on average (slide figure; DCTCP paper Fig. 16 analogue)",
            f"TCP lowest Jain {t['worst_jain']:.3f} ({_list(t['jains'])})",
            t["worst_jain"] >= TCP_MIN_JAIN,
        ),
        c.claim(
            f"TCP's throughput varies more than DCTCP's: TCP's mean CoV of 100-ms throughput "
            f"samples ≥ {TCP_COV_FACTOR:g} × DCTCP's",
            "TCP: large variation; DCTCP: smooth",
            f"mean CoV TCP {t['mean_cov']:.3f} vs DCTCP {d['mean_cov']:.3f} "
            f"({t['mean_cov'] / d['mean_cov']:.1f}×)",
            t["mean_cov"] >= TCP_COV_FACTOR * d["mean_cov"],
        ),
    ]


def dctcp_claims(s: dict[str, dict[str, Any]]) -> list[dict]:
    """judd-stability-dctcp's checks on a :func:`summarize` of both protocols."""
    t, d = s["TCP"], s["DCTCP"]
    return [
        c.claim(
            f"DCTCP flows converge to their fair share as flows come and go: DCTCP's Jain "
            f"index ≥ {DCTCP_MIN_JAIN} in every phase with ≥ 2 flows",
            "DCTCP fair (slide figure; DCTCP paper Fig. 16 analogue)",
            f"DCTCP lowest Jain {d['worst_jain']:.4f} ({_list(d['jains'])}); "
            f"TCP lowest {t['worst_jain']:.3f}",
            d["worst_jain"] >= DCTCP_MIN_JAIN,
        ),
        c.claim(
            f"DCTCP is smooth: mean CoV of 100-ms throughput samples ≤ {DCTCP_MAX_COV:g} "
            "(phases with ≥ 2 flows)",
            "DCTCP smooth (slide figure)",
            f"DCTCP mean CoV {d['mean_cov']:.3f} ({_list(d['covs'])})",
            d["mean_cov"] <= DCTCP_MAX_COV,
        ),
        c.claim(
            "DCTCP varies less than TCP: DCTCP's mean CoV < TCP's",
            "DCTCP smooth, TCP large variation",
            f"mean CoV DCTCP {d['mean_cov']:.3f} vs TCP {t['mean_cov']:.3f}",
            d["mean_cov"] < t["mean_cov"],
        ),
    ]


def plot_series(
    sdf: pd.DataFrame,
    order: Sequence[str],
    titles: dict[str, str],
    notes: dict[str, str],
    out_dir: Path,
    stem: str,
    xlabel: str,
) -> list[str]:
    """One panel per protocol (in ``order``, sharing the time axis): each flow's throughput
    per sampling interval, Gbps."""
    fig, axes = c.figure(nrows=len(order), size=(7.5, 3.2 * len(order)), sharex=True)
    axes = np.atleast_1d(axes)
    for ax, proto, tag in zip(axes, order, "abcd"):
        d = sdf[sdf.protocol == proto]
        for f, g in d.groupby("flow"):
            ax.plot(g.t_s, g.mbps / 1e3, lw=0.8, label=f"flow {int(f) + 1}")
        ax.set_ylabel("Throughput (Gbps)")
        ax.set_ylim(0, 13.5)
        ax.set_title(f"({tag}) {proto}: {titles[proto]}", fontsize=9)
        c.note(ax, notes[proto], loc="upper right")
        ax.legend(loc="upper left", fontsize=6.5, ncol=5)
    axes[-1].set_xlabel(xlabel)
    return c.save_figure(fig, out_dir, stem)


def run_five_flows(exp_id: str, scale: str, out_dir: Path, jobs: int, focus: str) -> dict:
    """Run both protocols' five-flow schedule; write ``<stem>_phases.csv``,
    ``<stem>_series.csv`` and the plot (``focus`` on top); the claims of ``focus``."""
    c.check_scale(scale, SCALES)
    if focus not in PROTOCOLS:
        raise ValueError(focus)
    out = c.prepare_out(out_dir)
    stem = exp_id.replace("-", "_")
    plan = scenarios(scale)
    results = c.run_all([sc for _, sc in plan], jobs)
    win = windows(scale)
    df, sdf = c.phase_tables(
        ((proto, res) for (proto, _), res in zip(plan, results)), lambda fs: phase_rows(fs, win)
    )
    df = df.drop(columns=["flows"])
    df.to_csv(out / f"{stem}_phases.csv", index=False)
    sdf.to_csv(out / f"{stem}_series.csv", index=False)
    s = summarize(df)
    timeouts = {proto: c.total(res, "timeouts") for (proto, _), res in zip(plan, results)}

    order = [focus] + [p for p in PROTOCOLS if p != focus]
    titles = {
        p: f"ours: lowest Jain {s[p]['worst_jain']:.3f}, mean CoV {s[p]['mean_cov']:.3f}"
        for p in PROTOCOLS
    }
    notes = {
        "TCP": "expected (DCTCP Fig. 16 analogy):\nfair on average, large variation",
        "DCTCP": "expected (DCTCP Fig. 16 analogy):\nsmooth and fair",
    }
    sp = win[1][0]
    files = plot_series(
        sdf, order, titles, notes, out, stem,
        f"Time (s) (flows join {sp:g} s apart, leave last in first out)",
    )
    claims = tcp_claims(s) if focus == "TCP" else dctcp_claims(s)
    metrics = {
        "spacing_s": sp,
        "summary": s,
        "timeouts": timeouts,
        "phases": df.to_dict(orient="records"),
        "files": [f"{stem}_phases.csv", f"{stem}_series.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
