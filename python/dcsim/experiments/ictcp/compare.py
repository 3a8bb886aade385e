"""ICTCP paper §VII (Figs. 8-14, and the background UDP runs of §VII-C): incast sweeps that
compare ICTCP, TCP and DCTCP on the same runs, their analysis and their plots.

Each figure pair of the paper comes from one set of runs (Figs. 8/9: goodput and timeout ratio
of the same rounds; 11/12; 13/14). Each set is built here by one function
(:func:`fixed_per_sender_runs`, :func:`fixed_total_runs`, :func:`background_tcp_runs`), so both
figures of a pair, and ictcp-bg-udp's reference without background, are the same scenarios and
are simulated once through the run cache. A sweep is keyed ``(variant, workload, senders)``:
one transport variant, one workload (data per sender or total data), one number of senders.

Setup (:mod:`.testbeds`): 47-server GbE star, base RTT 100 µs, the ``quanta_lb4g`` shared
buffer, drop-tail (DCTCP: K = 20 marking), NewReno + SACK senders, RTO_min 300 ms for every
transport. ICTCP runs on the receiver only (host 0) and controls every connection to it,
including a background flow (§VII-C: "ICTCP has no preknowledge of which TCP connection is on
incast").

Measurements (:func:`.incast.incast_stats`): goodput per round (all response bytes / the
round's duration) averaged over the rounds - "the average value of 100 experimental rounds"
(§VII-A) - and the ratio of rounds with at least one timeout (§VII-A, Fig. 9). With a
background flow, its goodput over the incast rounds is measured from its delivered bytes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ...results import Results
from ..analysis import fmt
from ..declarations import Key, Params, Runs, Testbed
from ..plotting import figure
from ..units import mbps
from .incast import collapse_point, incast_stats
from .testbeds import BACKGROUND_HOST, MAX_SENDERS, MSS, QUERY_START_S, RECEIVER, incast_duration_s, incast_query, scenario, with_protocol

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Variant:
    """A transport as the figures label it: ``protocol`` of :data:`.testbeds.PROTOCOLS`, and
    ICTCP's minimum receive window in segments."""

    protocol: str
    min_rwnd_segments: int = 2

    @property
    def label(self) -> str:
        if self.protocol == "ICTCP":
            return f"ICTCP ({self.min_rwnd_segments} MSS min)"
        return self.protocol


ICTCP_2MSS = Variant("ICTCP", 2)
ICTCP_1MSS = Variant("ICTCP", 1)
TCP = Variant("TCP")
DCTCP = Variant("DCTCP")
COMPARED = (ICTCP_2MSS, TCP, DCTCP)
# Figs. 11/12 run the 1-MSS floor too (the paper skips it: "the timeout ratio is again 0%").
FIXED_TOTAL_VARIANTS = (ICTCP_2MSS, ICTCP_1MSS, TCP, DCTCP)

STYLE = {
    ICTCP_2MSS.label: ("tab:blue", "o-"),
    ICTCP_1MSS.label: ("tab:cyan", "s-"),
    TCP.label: ("tab:red", "^-"),
    DCTCP.label: ("tab:green", "v-"),
}

# Senders grid and rounds per point (the paper: 1 ... 46 senders, 100 rounds, §VII-A).
GRIDS: dict[str, Params] = {
    "smoke": {"senders": (2, 8, 40), "rounds": 3},
    "quick": {"senders": (1, 2, 4, 8, 12, 16, 24, 32, 40, 46), "rounds": 30},
    "full": {"senders": tuple(range(1, MAX_SENDERS + 1)), "rounds": 100},
}
# Amounts per sender (Figs. 8-10, 13-14, the UDP runs): 64, 128 and 256 kB (64 and 256 are
# named; the third is not given), as ictcp-fig3.
AMOUNTS_KB = (64, 128, 256)
PER_SENDER_SCALES: dict[str, Params] = {
    "smoke": {"amounts_kb": (64, 256), **GRIDS["smoke"]},
    "quick": {"amounts_kb": AMOUNTS_KB, **GRIDS["quick"]},
    "full": {"amounts_kb": AMOUNTS_KB, **GRIDS["full"]},
}
# Totals split over the senders (Figs. 11-12).
TOTALS_MB = (2, 8)
TOTAL_SCALES: dict[str, Params] = {
    "smoke": {"totals_mb": (2,), **GRIDS["smoke"]},
    "quick": {"totals_mb": TOTALS_MB, **GRIDS["quick"]},
    "full": {"totals_mb": TOTALS_MB, **GRIDS["full"]},
}

# Background flow (§VII-C): one long TCP connection from the 48th port to the receiver, started
# at 0; the incast rounds start once it has reached its rate ("it occupies 900 Mb/s before
# incast traffic starts"). Its receive buffer is 9 MSS, which alone gives ≈ 920 Mb/s at the
# testbed's RTT (an assumption: how the paper's flow came to 900 Mb/s is not given). Uncapped,
# it would be NIC-bound at exactly the port's drain rate: every incast round would add a
# standing queue at the receiver's port that it never drains, and incast packets would meet a
# full port (the drop-tail lock-out described in ictcp-fig4).
BACKGROUND_RCV_SEGMENTS = 9
BACKGROUND_LEAD_S = 0.2
BACKGROUND_FLOW = {
    "src": BACKGROUND_HOST,
    "dst": RECEIVER,
    "start_s": 0.0,
    "rcv_buffer_bytes": BACKGROUND_RCV_SEGMENTS * MSS,
}
ROUND_SLACK_S = 0.35
# Samples of every connection's delivered bytes (from the end of the warm-up on), only to read
# what the background flow delivered before the rounds (see background_mbps).
BACKGROUND_SAMPLE_US = BACKGROUND_LEAD_S * 1e6
BACKGROUND_CONN = 0  # connections are numbered flows first, then the query connections

# A workload: its label and the response bytes of each sender at n senders.
Workload = tuple[str, Callable[[int], int]]


def per_sender_workloads(amounts_kb: Sequence[int]) -> list[Workload]:
    """Fixed data per sender (Figs. 8-10, 13-14); kB = 1024 B."""
    return [(f"{kb} kB/sender", functools.partial(_fixed, kb * 1024)) for kb in amounts_kb]


def total_workloads(totals_mb: Sequence[int]) -> list[Workload]:
    """Fixed total data split evenly over the senders (Figs. 11-12); MB = 1024 kB."""
    return [(f"{mb} MB total", functools.partial(_split, mb << 20)) for mb in totals_mb]


def _fixed(size: int, _senders: int) -> int:
    return size


def _split(total: int, senders: int) -> int:
    return max(1, total // senders)


def sweep(
    prefix: str,
    p: Params,
    tb: Testbed,
    variants: Sequence[Variant],
    workloads: list[Workload],
    background: bool = False,
) -> dict[Key, dict]:
    """``(variant, workload, senders)`` → scenario: every variant, workload and number of
    senders of the scale, ``p["rounds"]`` rounds each, named ``prefix-...``; with the
    background TCP flow when ``background``."""
    start = BACKGROUND_LEAD_S if background else QUERY_START_S
    runs = {}
    for v in variants:
        for name, size in workloads:
            for n in p["senders"]:
                by = int(size(n))
                # Runs stop at their last round, so the duration is only a bound: room for one
                # 300 ms timeout per round, and a share of the link under a background flow.
                share = 0.3 if background else 1.0
                sc = scenario(
                    f"{prefix}-{v.label}-{name}-n{n}".replace(" ", "_"),
                    tb,
                    duration_s=incast_duration_s(tb, n, by, p["rounds"], start, share, ROUND_SLACK_S),
                    queries=[incast_query(n, by, p["rounds"], start_s=start)],
                    flows=[BACKGROUND_FLOW] if background else [],
                )
                if background:
                    # Flow goodput over [first request, last response] = the rounds.
                    sc["sim"]["warmup_s"] = start
                    sc["measure"]["flow_sample_us"] = BACKGROUND_SAMPLE_US
                runs[(v.label, name, n)] = with_protocol(sc, tb, v.protocol, v.min_rwnd_segments)
    return runs


def fixed_per_sender_runs(p: Params, tb: Testbed) -> dict[Key, dict]:
    """The runs of Figs. 8 and 9 (the same rounds), also ictcp-bg-udp's reference without
    background."""
    return sweep("ictcp-fig8", p, tb, COMPARED, per_sender_workloads(p["amounts_kb"]))


def fixed_total_runs(p: Params, tb: Testbed) -> dict[Key, dict]:
    """The runs of Figs. 11 and 12 (the same rounds)."""
    return sweep("ictcp-fig11", p, tb, FIXED_TOTAL_VARIANTS, total_workloads(p["totals_mb"]))


def background_tcp_runs(p: Params, tb: Testbed) -> dict[Key, dict]:
    """The runs of Figs. 13 and 14 (the same rounds): the incast of Fig. 8 beside the
    background TCP flow."""
    return sweep("ictcp-fig13", p, tb, COMPARED, per_sender_workloads(p["amounts_kb"]), background=True)


def background_mbps(res: Results) -> tuple[float, float]:
    """The background flow's goodput (Mb/s) before the first round - what it delivered by the
    first request, over the lead time (its handshake and slow start take well under 1 ms of
    the 200) - and during the rounds: its goodput over the run's measured window, which is
    [first request, last response] (warm-up = the lead time; the run stops at its last round)."""
    fs = res.flow_samples
    mine = fs.flow.to_numpy() == BACKGROUND_CONN
    t = fs.t_s.to_numpy(dtype=float)[mine]
    d = fs.delivered_bytes.to_numpy(dtype=float)[mine]
    at_lead = np.isclose(t, BACKGROUND_LEAD_S, rtol=0, atol=1e-9)
    before = float(mbps(d[at_lead][0] * 8 / BACKGROUND_LEAD_S)) if at_lead.any() else float("nan")
    flows = [f for f in res.rows("flows") if f["workload"] is None]
    during = mbps(float(flows[0]["goodput_bps"])) if flows else float("nan")
    return before, during


def runs_table(
    runs: Runs,
    keys: Iterable[Key] | None = None,
    more: Callable[[Results], Mapping[str, Any]] | None = None,
) -> pd.DataFrame:
    """One row per run of ``keys`` (every run by default), each key ending with ``(variant,
    workload, senders)``: the incast's goodput and timeouts, the background flow's goodput in
    runs with one, and ``more(result)``."""
    import pandas as pd

    rows = []
    for key in runs if keys is None else keys:
        variant, workload, senders = key[-3:]
        res, sc = runs[key], runs.scenario(key)
        row = {
            "variant": variant,
            "workload": workload,
            "senders": senders,
            "response_bytes": sc["queries"][0]["response_bytes"],
            **incast_stats(res),
        }
        if sc["flows"]:
            row["background_before_mbps"], row["background_during_mbps"] = background_mbps(res)
        if more is not None:
            row.update(more(res))
        rows.append(row)
    return pd.DataFrame(rows)


def at(df: pd.DataFrame, variant: Variant, workload: str, senders: int, metric: str) -> float:
    d = df[(df.variant == variant.label) & (df.workload == workload) & (df.senders == senders)]
    return float(d[metric].iloc[0]) if len(d) else float("nan")


def curve(df: pd.DataFrame, variant: Variant, workload: str) -> pd.DataFrame:
    return df[(df.variant == variant.label) & (df.workload == workload)].sort_values("senders")


def beyond_tcp_collapse(df: pd.DataFrame, variant: Variant = ICTCP_2MSS) -> dict[str, tuple[float, list[int], float, list[int]]]:
    """Per workload: TCP's collapse point n0 (:func:`.incast.collapse_point`), the n ≥ n0 at
    which ``variant``'s goodput is not above TCP's, ``variant``'s lowest goodput there, and the
    n ≥ n0 at which every one of ``variant``'s rounds timed out."""
    out = {}
    for w in dict.fromkeys(df.workload):
        tcp = curve(df, TCP, w)
        n0 = collapse_point(tcp)
        t = tcp.set_index("senders").goodput_mbps
        v = curve(df, variant, w).set_index("senders")
        beyond = [n for n in t.index if math.isfinite(n0) and n >= n0 and n in v.index]
        out[w] = (
            n0,
            [int(n) for n in beyond if not v.goodput_mbps[n] > t[n]],
            min((float(v.goodput_mbps[n]) for n in beyond), default=float("nan")),
            [int(n) for n in beyond if v.timeout_ratio[n] >= 1.0],
        )
    return out


def beats_tcp_beyond_collapse(df: pd.DataFrame) -> tuple[bool, str]:
    """The verdict and the measured text of a "beats TCP beyond its collapse" claim: above
    TCP at every n from TCP's collapse on, and never where every round of ICTCP timed out
    (a goodput won by timing out a little later is not the paper's improvement)."""
    per = beyond_tcp_collapse(df)
    text = "; ".join(
        f"{w}: TCP collapses from n={fmt(n0, 0)}, ICTCP there ≥ {fmt(low, 0)} Mb/s"
        + (f", not above TCP at n={lost}" if lost else "")
        + (f", every round timed out at n={all_out}" if all_out else "")
        for w, (n0, lost, low, all_out) in per.items()
    )
    return bool(per) and all(math.isfinite(n0) and not lost and not all_out for n0, lost, _, all_out in per.values()), text


def reference_color(text: str) -> str:
    """The colour of the variant a published value belongs to ("ICTCP 1 MSS ...", "TCP ...")."""
    if text.startswith("ICTCP 1 MSS"):
        return STYLE[ICTCP_1MSS.label][0]
    if text.startswith("ICTCP"):
        return STYLE[ICTCP_2MSS.label][0]
    return STYLE[TCP.label][0] if text.startswith("TCP") else "k"


def plot(
    df: pd.DataFrame,
    metric: str,
    ylabel: str,
    title: str,
    variants: Sequence[Variant],
    references: Sequence[tuple[float, float, str]] = (),
    ymax: float | None = None,
    levels: Sequence[tuple[float, str]] = (),
) -> Any:
    """One panel per workload, one curve per variant; ``references`` are the paper's published
    values (senders, value, label), drawn as marks; ``levels`` (value, label) are published
    values that hold over every n (a bound such as "at most 6%"), drawn as lines."""
    workloads = list(dict.fromkeys(df.workload))
    fig, axes = figure(ncols=len(workloads), size=(4.2 * len(workloads), 3.8), sharey=True, squeeze=False)
    for ax, w in zip(axes[0], workloads):
        for i, v in enumerate(variants):
            d = curve(df, v, w)
            if len(d):
                color, style = STYLE[v.label]
                # Each later curve is drawn thinner, with smaller marks, on top: where two
                # variants measure the same, the earlier one shows as a rim around the later.
                ax.plot(
                    d.senders,
                    d[metric],
                    style,
                    color=color,
                    label=f"{v.label} (ours)",
                    lw=max(2.6 - 0.7 * i, 0.8),
                    ms=max(6.0 - 1.5 * i, 2.5),
                    zorder=2 + i,
                )
        for x, y, label in references:
            if label.startswith(w):
                text = label[len(w) + 2 :]
                ax.plot([x], [y], "*", ms=11, color=reference_color(text), mec="k", label=f"paper: {text}")
        for y, text in levels:
            ax.axhline(y, color=reference_color(text), ls=":", lw=1.2, label=f"paper: {text}")
        ax.set_title(w, fontsize=9)
        ax.set_xlabel("Number of senders")
        ax.set_xlim(0, MAX_SENDERS + 1)
        if ymax is not None:
            ax.set_ylim(0, ymax)
        ax.legend(loc="best", fontsize=6)
    axes[0][0].set_ylabel(ylabel)
    fig.suptitle(title, fontsize=10)
    return fig


def worst(df: pd.DataFrame, variant: Variant, metric: str) -> tuple[float, int, str]:
    """Largest ``metric`` over a variant's runs: (value, senders, workload)."""
    d = df[(df.variant == variant.label) & df[metric].notna()]
    if not len(d):
        return float("nan"), 0, ""
    i = d[metric].values.argmax()
    return float(d[metric].values[i]), int(d.senders.values[i]), str(d.workload.values[i])


def metrics_table(df: pd.DataFrame, variants: Sequence[Variant], n: int) -> dict:
    """Goodput and timeout ratio of every variant and workload at ``n`` senders."""
    out = {}
    for v in variants:
        for w in dict.fromkeys(df.workload):
            out[f"{v.label} | {w} | n={n}"] = {
                "goodput_mbps": at(df, v, w, n, "goodput_mbps"),
                "timeout_ratio": at(df, v, w, n, "timeout_ratio"),
            }
    return out
