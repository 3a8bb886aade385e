"""What the three Judd "Stability, Convergence, & Fairness" experiments share
(judd-stability-tcp, judd-stability-dctcp, judd-stability-tcp-2flows): the two protocols on
the Judd testbed, the five-flow runs with flows joining and leaving, their per-phase analysis
and the plot.

The slides show three figures and no numbers: "Stability, Convergence, & Fairness: TCP",
"...: DCTCP" and "...: TCP, 2 Flows". Our scenario (an assumption) is the 10 Gbps analogue of
the DCTCP paper's Fig. 16 (dctcp-fig16): flows join and leave a 10 Gbps bottleneck one at a
time, plus a 2-flow TCP case; metric per-flow throughput vs time; expected by analogy with
that figure "DCTCP smooth and fair, TCP fair on average with large variation".

Setup (``testbeds.fanin``; the Judd testbed's docstring gives every choice of it): hosts
1..n each send one long-lived flow to host 0 over 10 Gbps links (5 µs per link), one switch
whose port to the receiver holds 5.5 MB, Linux hosts of the time (RTO_min 200 ms, IW 10,
delayed ACK 2 / 40 ms).
- "TCP": the stack's TCP (CUBIC on the slides' hosts) over drop-tail.
- "DCTCP": DCTCP (g = 1/16, α₀ = 1, minimum window 2) over RED-ECN marking at K = 20 packets
  (``testbeds.red_ecn()``), hosts with the slides' deployment fixes (``testbeds.FIXED_HOSTS``:
  ECT on every packet, SYNs and ACKs included, as Linux's DCTCP sends them), so that a joining
  flow's SYN is not dropped above K: that pitfall is judd-connection-establishment's
  subject, not these slides'.

The five-flow schedule is dctcp-fig16's: flow i (i = 0..4) starts at i × spacing and stops
last in, first out at (9 − i) × spacing; flow 0 runs to the end. Each flow's delivered bytes
are sampled every 100 ms. Per phase (a stretch with a fixed set of active flows), a flow's
throughput is its mean from its delivered bytes after the first fifth of the phase, Jain's
index is over the active flows, and the variation is the coefficient of variation (std/mean)
of a flow's 100-ms samples in the same settled part, averaged over the active flows
(dctcp-fig16's definitions, both ``analysis.settled_phase_rows``). judd-stability-tcp and judd-stability-dctcp declare the same two
runs (:func:`five_flow_scenarios`), so they are simulated once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis import last_in_first_out, phase_tables, settled_phase_rows
from ..declarations import Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from .testbeds import fanin
from .transports import DCTCP, TCP, Transport

if TYPE_CHECKING:
    import pandas as pd

FLOWS = 5
SETTLE_FRACTION = 0.2
SAMPLE_S = 0.1
PROTOCOLS = ("TCP", "DCTCP")
# Five flows: quick compresses the schedule 10× (as dctcp-fig16 does, 15×): 3-s phases, 27 s.
FIVE_FLOW_SCALES = {
    "quick": {"spacing_s": 3.0},
    "full": {"spacing_s": 30.0},
}

# The stated checks (the notes of judd-stability-tcp and judd-stability-dctcp).
DCTCP_MIN_JAIN = 0.99  # "fair": every phase with two or more flows
DCTCP_MAX_COV = 0.10  # "smooth": mean CoV of 100-ms samples
TCP_MIN_JAIN = 0.95  # "fair on average": every phase (dctcp-fig16's "share fairly")
TCP_COV_FACTOR = 2.0  # "larger variation": TCP's mean CoV ≥ 2 × DCTCP's


def tcp_varies_more(tcp: dict[str, Any], dctcp: dict[str, Any]) -> tuple[bool, str]:
    """The "large variation" check on two runs' statistics: TCP's mean CoV at least
    :data:`TCP_COV_FACTOR` times DCTCP's, and both means as measured."""
    measured = f"mean CoV TCP {tcp['mean_cov']:.3f} vs DCTCP {dctcp['mean_cov']:.3f} ({tcp['mean_cov'] / dctcp['mean_cov']:.1f}×)"
    return tcp["mean_cov"] >= TCP_COV_FACTOR * dctcp["mean_cov"], measured


# What the plots box beside each protocol's panel: the figure's expected picture.
EXPECTED = {
    "TCP": "expected (DCTCP Fig. 16 analogy):\nfair on average, large variation",
    "DCTCP": "expected (DCTCP Fig. 16 analogy):\nsmooth and fair",
}


def protocol_setup(proto: str) -> Transport:
    """``(cc, switch AQM, host ECT settings)`` of a protocol."""
    if proto not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {proto!r}")
    return TCP if proto == "TCP" else DCTCP


def protocol_fanin(name: str, tb: Testbed, proto: str, *, senders: int, duration_s: float) -> dict[str, Any]:
    """``testbeds.fanin`` with the protocol's congestion control, AQM and host settings, each
    flow's delivered bytes sampled every :data:`SAMPLE_S`."""
    cc, aqm, hosts = protocol_setup(proto)
    return fanin(
        name,
        tb,
        senders=senders,
        cc=cc,
        aqm=aqm,
        duration_s=duration_s,
        tcp=hosts,
        flow_sample_us=SAMPLE_S * 1e6,
    )


# --- five flows joining and leaving (judd-stability-tcp, judd-stability-dctcp) ------------


def five_flow_scenarios(p: Params, tb: Testbed) -> dict[str, dict[str, Any]]:
    """Protocol → the five-flow run. The names do not depend on the experiment that runs
    them, so judd-stability-tcp and judd-stability-dctcp share the cached runs."""
    win = last_in_first_out(FLOWS, p["spacing_s"])
    end = max(stop for _, stop in win)
    plan = {}
    for proto in PROTOCOLS:
        sc = protocol_fanin(f"judd-stability-{proto.lower()}", tb, proto, senders=FLOWS, duration_s=end)
        sc["flows"] = [
            {"src": i + 1, "dst": 0, "start_s": start} | ({"stop_s": stop} if stop < end else {}) for i, (start, stop) in enumerate(win)
        ]
        plan[proto] = sc
    return plan


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


def five_flow_metrics(runs: Runs, stem: str) -> Metrics:
    """Both protocols' five-flow runs as ``<stem>_phases`` (per phase) and ``<stem>_series``
    (every flow's throughput per 100 ms), with the :func:`summarize` of the phases."""
    sp = runs.params["spacing_s"]
    win = last_in_first_out(FLOWS, sp)
    df, sdf = phase_tables(((proto, runs[proto]) for proto in PROTOCOLS), lambda fs: settled_phase_rows(fs, win, SETTLE_FRACTION, SAMPLE_S))
    df = df.drop(columns=["flows"])
    return Metrics(
        values={
            "spacing_s": sp,
            "summary": summarize(df),
            "timeouts": {proto: runs[proto].total("timeouts") for proto in PROTOCOLS},
            "phases": df.to_dict(orient="records"),
        },
        tables={f"{stem}_phases": df, f"{stem}_series": sdf},
    )


def jains_and_covs(xs: Sequence[float]) -> str:
    """Per-phase numbers for a claim's measured text."""
    return ", ".join(f"{x:.3f}" for x in xs)


def plot_series(
    sdf: pd.DataFrame,
    order: Sequence[str],
    titles: Mapping[str, str],
    notes: Mapping[str, str],
    xlabel: str,
) -> Any:
    """One panel per protocol (in ``order``, sharing the time axis): each flow's throughput
    per sampling interval, Gbps."""
    fig, axes = figure(nrows=len(order), size=(7.5, 3.2 * len(order)), sharex=True)
    axes = np.atleast_1d(axes)
    for ax, proto, tag in zip(axes, order, "abcd"):
        d = sdf[sdf.protocol == proto]
        for f, g in d.groupby("flow"):
            ax.plot(g.t_s, g.mbps / 1e3, lw=0.8, label=f"flow {int(f) + 1}")
        ax.set_ylabel("Throughput (Gbps)")
        ax.set_ylim(0, 13.5)
        ax.set_title(f"({tag}) {proto}: {titles[proto]}", fontsize=9)
        note(ax, notes[proto], loc="upper right")
        ax.legend(loc="upper left", fontsize=6.5, ncol=5)
    axes[-1].set_xlabel(xlabel)
    return fig


def plot_five_flows(m: Metrics, stem: str, focus: str) -> Any:
    """The five-flow figure with ``focus`` on top."""
    s = m["summary"]
    titles = {p: f"ours: lowest Jain {s[p]['worst_jain']:.3f}, mean CoV {s[p]['mean_cov']:.3f}" for p in PROTOCOLS}
    return plot_series(
        m.tables[f"{stem}_series"],
        [focus] + [p for p in PROTOCOLS if p != focus],
        titles,
        EXPECTED,
        f"Time (s) (flows join {m['spacing_s']:g} s apart, leave last in first out)",
    )
