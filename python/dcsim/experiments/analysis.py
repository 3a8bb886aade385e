"""Analysis the experiments of several papers share: empirical CDFs, Jain's fairness index,
phases of flows coming and going, and goodput from the per-flow time series
(``measure.flow_sample_us``). Everything here is a function of results and numbers; nothing
is drawn."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..results import Results

if TYPE_CHECKING:
    import pandas as pd


def cdf(values: Iterable[float]) -> tuple[np.ndarray, np.ndarray]:
    """Empirical CDF of samples: sorted values and P[X <= x]."""
    x = np.sort(np.asarray(list(values), dtype=float))
    return x, np.arange(1, len(x) + 1) / max(len(x), 1)


def fmt(x: float | None, nd: int = 1) -> str:
    """A number for a claim's text: ``nd`` decimals, "nan" for none or not finite."""
    return "nan" if x is None or not math.isfinite(x) else f"{x:.{nd}f}"


def jain(values: Sequence[float] | np.ndarray) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 when all are equal, 1/n when one has all;
    NaN for no values or all zero."""
    x = np.asarray(values, dtype=float)
    return float(x.sum() ** 2 / (len(x) * (x**2).sum())) if len(x) and (x**2).sum() > 0 else math.nan


def phases(windows: Sequence[tuple[float, float]]) -> list[tuple[float, float, list[int]]]:
    """``(start, end, active flows)`` of each stretch in which the same flows are active, for
    flows active over ``windows[i] = (start_s, stop_s)``; stretches with no flow are left out."""
    edges = sorted({t for w in windows for t in w})
    out = []
    for a, b in itertools.pairwise(edges):
        active = [i for i, (start, stop) in enumerate(windows) if start <= a and b <= stop]
        if active:
            out.append((a, b, active))
    return out


def goodput_between_bps(fs: pd.DataFrame, flow: int, t0: float, t1: float) -> float:
    """A flow's goodput between the first sample at or after ``t0`` and the last at or before
    ``t1``, from its delivered bytes, bit/s."""
    g = fs[fs.flow == flow].set_index("t_s").delivered_bytes
    lo = g[g.index >= t0 - 1e-12]
    hi = g[g.index <= t1 + 1e-12]
    return float((hi.iloc[-1] - lo.iloc[0]) * 8 / (hi.index[-1] - lo.index[0]))


def settled_goodputs(fs: pd.DataFrame, windows: Sequence[tuple[float, float]], settle_fraction: float) -> list[dict]:
    """One row per phase (:func:`phases` of the flows' ``windows``): the active flows' goodputs
    from their delivered bytes after the first ``settle_fraction`` of the phase (the flows
    converge there), Mb/s, joined by ";" in ``flow_mbps``; their total; Jain's index (NaN with
    one flow). ``settled_s`` is where the measurement starts, ``flows`` the active flows."""
    out = []
    for k, (a, b, active) in enumerate(phases(windows)):
        t0 = a + settle_fraction * (b - a)
        per = [goodput_between_bps(fs, f, t0, b) / 1e6 for f in active]
        out.append(
            {
                "phase": k,
                "start_s": a,
                "end_s": b,
                "active": len(active),
                "flow_mbps": ";".join(f"{x:.1f}" for x in per),
                "total_mbps": float(sum(per)),
                "jain": jain(per) if len(per) > 1 else math.nan,
                "settled_s": t0,
                "flows": active,
            }
        )
    return out


def flow_rates(fs: pd.DataFrame) -> pd.DataFrame:
    """Each flow's goodput in every sampling interval: a frame ``flow, t_s, mbps`` (``t_s`` the
    interval's end)."""
    import pandas as pd

    parts = []
    for f, g in fs.groupby("flow"):
        g = g.sort_values("t_s")
        rate = g.delivered_bytes.diff() * 8 / g.t_s.diff() / 1e6
        parts.append(pd.DataFrame({"flow": int(f), "t_s": g.t_s.iloc[1:].to_numpy(), "mbps": rate.iloc[1:].to_numpy()}))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["flow", "t_s", "mbps"])


def last_in_first_out(flows: int, spacing_s: float) -> list[tuple[float, float]]:
    """``(start_s, stop_s)`` of ``flows`` flows that join one every ``spacing_s`` and leave last
    in, first out (the DCTCP paper's convergence test, Fig. 16): flow i runs from i × spacing
    to (2 × flows − 1 − i) × spacing."""
    return [(i * spacing_s, (2 * flows - 1 - i) * spacing_s) for i in range(flows)]


def settled_phase_rows(fs: pd.DataFrame, windows: Sequence[tuple[float, float]], settle_fraction: float, sample_s: float) -> list[dict]:
    """Per phase of the flows' ``windows`` (:func:`settled_goodputs` after ``settle_fraction``
    of it): the active flows' settled throughputs, their Jain index, the fair share (their
    total over their number) and the variation ``cov``: the coefficient of variation of each
    active flow's goodput per sampling interval of ``sample_s`` (``measure.flow_sample_us``)
    whose whole interval lies in the settled part, averaged over the active flows."""
    rates = flow_rates(fs)
    rows = settled_goodputs(fs, windows, settle_fraction)
    for r in rows:
        inside = (rates.t_s - sample_s >= r["settled_s"] - 1e-9) & (rates.t_s <= r["end_s"] + 1e-9)
        r["fair_share_mbps"] = r["total_mbps"] / r["active"]
        r["cov"] = float(np.mean([cov(rates[inside & (rates.flow == f)].mbps) for f in r["flows"]]))
    return rows


def phase_tables(
    runs: Iterable[tuple[str, Results]], phase_rows: Callable[[pd.DataFrame], list[dict[str, Any]]]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """For runs ``(protocol, result)``: the rows ``phase_rows(flow samples)`` of every run, and
    every flow's goodput per sampling interval (:func:`flow_rates`), each with a ``protocol``
    column first."""
    import pandas as pd

    rows, series = [], []
    for proto, res in runs:
        fs = res.flow_samples
        series.append(flow_rates(fs).assign(protocol=proto))
        rows += [{"protocol": proto, **r} for r in phase_rows(fs)]
    return pd.DataFrame(rows), pd.concat(series, ignore_index=True)[["protocol", "flow", "t_s", "mbps"]]


def goodput_ceiling_bps(rate_gbps: float, framing_bytes: int, mss: int = 1460, header_bytes: int = 40) -> float:
    """Most payload a link can carry with full-size segments: rate × MSS / wire bytes
    (1 Gbps with Ethernet framing: 1460/1538 = 0.949 Gbps, the DCTCP paper's 0.95)."""
    return rate_gbps * 1e9 * mss / (mss + header_bytes + framing_bytes)


def cov(rates: Sequence[float] | np.ndarray) -> float:
    """Coefficient of variation std/mean of throughput samples (NaN for none or a zero mean)."""
    r = np.asarray(rates, dtype=float)
    return float(r.std() / r.mean()) if len(r) and r.mean() > 0 else float("nan")
