"""The DCTCP paper's incast experiments (§4.2: Figs. 18-21, Table 2 and the other settings of
§4.2.1): their scenarios on the testbed's star, the many-to-one sweep of Figs. 18 and 19, and
the plots they share.

A scenario is a star of hosts on one switch running partition/aggregate query workloads
(:func:`dcsim.experiments.queries.query`) and, where the experiment has them, long-lived
flows. TCP is the stack's (NewReno on the paper's hosts) over drop-tail; DCTCP marks at K = 20
on 1 Gbps ports and K = 65 on 10 Gbps ones (§3.5, §4.3). Each experiment sets the RTO_min the
paper gives for it; the timer's tick is the stack's (10 ms on the paper's hosts, §4.2.1: "10ms
... is the tick granularity of our system").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..analysis import cdf
from ..declarations import Runs, Testbed
from ..plotting import figure, note
from ..queries import TOTAL_RESPONSE_BYTES, many_to_one_duration_s, query, query_stats
from ..scenarios import DROP_TAIL, RECEIVER_PORT, threshold

if TYPE_CHECKING:
    import pandas as pd

K = 20  # DCTCP marking threshold on 1 Gbps ports (§3.5, Table 2 caption)
K_10G = 65  # and on 10 Gbps ports (§3.5)
# protocol -> congestion control (None: the stack's TCP, NewReno on the paper's hosts)
CC: dict[str, str | None] = {"TCP": None, "DCTCP": "dctcp"}
COLORS = {"TCP": "tab:red", "DCTCP": "tab:blue"}


def scenario(
    name: str,
    tb: Testbed,
    *,
    hosts: int,
    protocol: str,
    rto_min_ms: float,
    duration_s: float,
    queries: list[dict[str, Any]],
    flows: list[dict[str, Any]] | None = None,
    buffer: dict[str, Any] | None = None,
    rate_gbps: float = 1.0,
    warmup_s: float = 0.0,
) -> dict[str, Any]:
    """A star of ``hosts`` on ``tb`` (1 Gbps unless ``rate_gbps`` says otherwise) running
    ``queries`` and the long ``flows``, TCP or DCTCP with RTO_min ``rto_min_ms``. The switch
    buffer is the testbed's for the rate unless the experiment gives its own."""
    aqm = DROP_TAIL if protocol == "TCP" else threshold(K if rate_gbps <= 1.0 else K_10G)
    return {
        "name": name,
        "sim": {"seed": 1, "duration_s": float(duration_s), "warmup_s": float(warmup_s)},
        "topology": {"kind": "star", "hosts": int(hosts), "link": tb.link_at(rate_gbps)},
        "switch": {"buffer": dict(buffer or tb.buffer(rate_gbps)), "aqm": aqm},
        "host": tb.host_at(rate_gbps),
        "tcp": tb.tcp_for(CC[protocol], rto_min_ms=float(rto_min_ms)),
        "flows": list(flows or []),
        "queries": list(queries),
        "measure": {"queue_sample_us": 0.0, "queue_ports": [RECEIVER_PORT], "flow_sample_us": 0.0},
    }


# --- the many-to-one sweep (Figs. 18 and 19, and the other settings of §4.2.1) -------------


def many_to_one(
    prefix: str,
    tb: Testbed,
    *,
    configs: Iterable[tuple[str, float]],
    ns: Sequence[int],
    rounds: int,
    buffer: dict[str, Any] | None = None,
    total_bytes: int = TOTAL_RESPONSE_BYTES,
    hosts: int = 41,
    rate_gbps: float = 1.0,
) -> dict[tuple[str, float, int], dict[str, Any]]:
    """``(protocol, rto_min_ms, n)`` → scenario of the many-to-one sweep (41 hosts at 1 Gbps
    unless told otherwise): for each (protocol, RTO_min) and each n, the client (host 0)
    requests ``total_bytes``/n (1 MB/n, §4.2.1) from hosts 1..n, ``rounds`` times."""
    return {
        (proto, float(rto), int(n)): scenario(
            f"{prefix}-{proto.lower()}-rto{int(rto)}-n{n}",
            tb,
            hosts=hosts,
            protocol=proto,
            rto_min_ms=rto,
            duration_s=many_to_one_duration_s(rounds, rto, total_bytes, rate_gbps),
            queries=[query(0, range(1, n + 1), total_bytes // n, rounds)],
            buffer=buffer,
            rate_gbps=rate_gbps,
        )
        for proto, rto in configs
        for n in ns
    }


def many_to_one_table(runs: Runs) -> pd.DataFrame:
    """One row per run of a :func:`many_to_one` sweep, in its order: the query statistics."""
    import pandas as pd

    rows = []
    for proto, rto, n in runs:
        rounds = runs.scenario((proto, rto, n))["queries"][0]["rounds"]
        rows.append({"protocol": proto, "rto_min_ms": rto, "servers": n, "rounds": rounds, **query_stats(runs[(proto, rto, n)])})
    return pd.DataFrame(rows)


def first_n_with_timeouts(ns: Sequence[int], fractions: Sequence[float]) -> int | None:
    """Smallest n whose timeout fraction is > 0 (None if never)."""
    for n, f in sorted(zip(ns, fractions)):
        if f is not None and math.isfinite(f) and f > 0:
            return int(n)
    return None


# --- completion ---------------------------------------------------------------------------


# --- plots --------------------------------------------------------------------------------


def log_ms_axis(ax: Any, values_ms: Any) -> None:
    """A log y axis for completion times; over less than ~a decade the minor ticks are
    labelled too, as plain numbers."""
    ax.set_yscale("log")
    lo, hi = float(np.nanmin(values_ms)), float(np.nanmax(values_ms))
    if lo > 0 and hi / lo < 20:
        from matplotlib.ticker import FuncFormatter

        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def plot_many_to_one(df: pd.DataFrame, title: str, paper_note_a: str, paper_note_b: str, paper_ms: float | None = None) -> Any:
    """(a) mean query completion time (log y) and (b) timeout fraction vs servers, from a
    :func:`many_to_one_table`; ``paper_ms``, a completion time the paper gives, is drawn as a
    reference line on (a)."""
    fig, (ax1, ax2) = figure(1, 2, size=(10.0, 3.8))
    styles = {300.0: "--", 10.0: "-"}
    for (proto, rto), g in df.groupby(["protocol", "rto_min_ms"], sort=False):
        g = g.sort_values("servers")
        lab = f"{proto} {int(rto)}ms (ours)"
        kw = {"color": COLORS[proto], "ls": styles.get(rto, "-"), "marker": "o", "ms": 3}
        ax1.errorbar(g.servers, g.mean_ms, yerr=g.mean_ci90_ms, capsize=2, label=lab, **kw)
        ax2.plot(g.servers, g.timeout_fraction, label=lab, **kw)
    if paper_ms is not None:
        ax1.axhline(paper_ms, color="k", ls=":", lw=1, label=f"paper: ≈ {paper_ms:g} ms")
    log_ms_axis(ax1, df.mean_ms)
    ax1.set_xlabel("Number of servers")
    ax1.set_ylabel("Query Delay (ms)")
    ax1.set_title("(a) Mean query completion time (90% CI bars)")
    ax1.legend(fontsize=7.5, loc="upper left")
    note(ax1, paper_note_a, loc="lower right")
    ax2.set_xlabel("Number of servers")
    ax2.set_ylabel("Fraction of Queries that suffer timeout(s)")
    ax2.set_ylim(-0.02, 1.02)
    ax2.set_title("(b) Queries with ≥ 1 timeout")
    ax2.legend(fontsize=7.5, loc="upper left")
    note(ax2, paper_note_b, loc="center right")
    fig.suptitle(title, fontsize=10)
    return fig


def cdf_rows(protocol: str, values_ms: Sequence[float] | np.ndarray) -> list[dict[str, Any]]:
    """The points of one protocol's completion-time CDF, for the table behind a CDF plot."""
    x, y = cdf(values_ms)
    return [{"protocol": protocol, "qct_ms": float(a), "cdf": float(b)} for a, b in zip(x, y)]


def cdf_plot(ax: Any, table: pd.DataFrame, protocol: str, label: str) -> None:
    """One protocol's completion-time CDF from the points :func:`cdf_rows` gave."""
    curve = table[table.protocol == protocol]
    ax.step(curve["qct_ms"].to_numpy(), curve["cdf"].to_numpy(), where="post", color=COLORS[protocol], label=label)
