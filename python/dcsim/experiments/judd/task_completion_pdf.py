"""Judd (Morgan Stanley) slides, "Motivation: Task Completion PDF": a latency-sensitive
Partition/Aggregate task's completion-time distribution with and without a competing bulk
job, TCP vs DCTCP.

Slides: "Application Types — Large-scale computation (Monte Carlo simulation, Data analysis) —
Latency-sensitive computation (End-user-facing) — Multiple groups sharing the datacenter",
then "Motivation: Task Completion PDF" (a figure only), and "Latency & Application Coupling —
By design, TCP fills queues — Latency microseconds → milliseconds — Application coupling —
Shared congested link — Buffer pressure — Disparate groups coupled through network". The
scenario is an assumption: a Partition/Aggregate task's completion time PDF with and without
a competing bulk job, TCP vs DCTCP.

Our setup: the Judd testbed (``testbeds.fanin``: 10 Gbps links, 5 µs each, a 5.5 MB static
port buffer, Linux hosts with RTO_min 200 ms, IW 10, delayed ACK 2 / 40 ms; the testbed's
notes in judd/testbeds.py give each choice). The task: host 0 (the aggregator) asks hosts
1-43 for 2 KB each over persistent connections (``queries.query``'s 100-B requests), tasks
arriving as a Poisson process with a mean gap of 5 ms from t = 0.1 s; a task completes when
all 43 responses are in. The bulk job: hosts 44 and 45 each send one long-lived flow to host
0 from t = 0, so its queue is the task's queue (the aggregator's switch port). TCP = CUBIC
over drop-tail everywhere; DCTCP = DCTCP over RED-ECN marking at K = 20 everywhere (hosts
with the slides' fixes, ``testbeds.FIXED_HOSTS``: ECT on every packet). Four runs: each
protocol with and without the bulk job.

Assumptions:
- The task (not given): the DCTCP paper's production Partition/Aggregate pattern (its §2.2,
  §2.3.3 and Fig. 7): an aggregator and the 43 other servers of its rack, 2 KB responses
  (86 KB per task, 70 µs at 10 Gbps). Poisson arrivals (mean 5 ms: the tasks load the port by
  1.4%) so that tasks are independent samples of the port's state.
- The bulk job (not given): two long-lived flows into the aggregator's host, the DCTCP paper's
  queue-buildup setup (§4.2.2: "the 75th percentile of concurrent connections"). They start
  at t = 0 and fill the 5.5 MB buffer (TCP) before the first task at 0.1 s; goodput is
  measured from 0.1 s (``sim.warmup_s``).
- Durations: full = 20 s of tasks (≈ 4000), quick = 2 s (≈ 400).
- PDF: the fraction of tasks per bin of 20 log-spaced bins a decade, 10 µs to 1 s.
- Checks (thresholds ours): "microseconds → milliseconds" = with TCP, the median task takes
  < 1 ms alone, and ≥ 1 ms and ≥ 10 × that with the bulk job; DCTCP's bulk job raises the
  median by ≤ 2 ×; and the fix costs the bulk job nothing: DCTCP's bulk goodput ≥ 95% of TCP's.

Measured at full scale: TCP median 99 µs → 3.79 ms (38 ×: the bulk job's standing queue
averages 3000 packets, 4.5 MB; p99 4.5 ms, the slowest 29 ms after losses at the full port,
no timeouts); DCTCP 99 → 126 µs (1.27 ×: ≈ 22 packets of queue); bulk goodput 9.35 Gbps with
both. Quick scale: TCP 99 µs → 3.61 ms (36 ×, p99 4.7 ms), DCTCP 1.27 ×.

Outputs: judd_task_completion_pdf.csv (protocol, bulk, completion-time statistics,
timeout_fraction, bulk goodput, port queue mean and drops), judd_task_completion_pdf_hist.csv
(protocol, bulk, bin_lo_ms, bin_hi_ms, fraction), judd_task_completion_pdf.png/.svg ((a) TCP,
(b) DCTCP: the PDF alone and with the bulk job).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...scenario import long_flows
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..queries import bulk_goodput_gbps, completion, counts_in_stats, qct_ms, query, query_stats
from ..scenarios import RECEIVER_PORT
from .testbeds import fanin
from .transports import DCTCP, TCP

STEM = "judd_task_completion_pdf"
WORKERS = 43
RESPONSE_BYTES = 2000
BULK_FLOWS = 2
MEAN_INTERVAL_MS = 5.0
TASK_START_S = 0.1
PROTOCOLS = ("TCP", "DCTCP")
TRANSPORTS = {"TCP": TCP, "DCTCP": DCTCP}
BINS_PER_DECADE = 20
BIN_RANGE_MS = (0.01, 1000.0)
TCP_FACTOR = 10.0  # TCP: median with bulk ≥ 10 × alone (and ≥ 1 ms)
DCTCP_FACTOR = 2.0  # DCTCP: median with bulk ≤ 2 × alone
BULK_SHARE = 0.95  # DCTCP's bulk goodput ≥ 95% of TCP's


def stats_key(proto: str, bulk: bool) -> str:
    """A run's key in the metrics' ``stats``."""
    return f"{proto.lower()}_{'bulk' if bulk else 'alone'}"


def scenario(proto: str, bulk: bool, p: Params, tb: Testbed) -> dict[str, Any]:
    cc, aqm, hosts = TRANSPORTS[proto]
    end = TASK_START_S + p["task_s"]
    sc = fanin(
        f"judd-task-completion-pdf-{proto.lower()}-{'bulk' if bulk else 'alone'}",
        tb,
        senders=WORKERS + BULK_FLOWS,
        cc=cc,
        aqm=aqm,
        # Room for the last tasks to finish (one RTO_min and more).
        duration_s=end + 0.5,
        warmup_s=TASK_START_S,
        tcp=hosts,
    )
    sc["flows"] = long_flows(range(WORKERS + 1, WORKERS + BULK_FLOWS + 1), 0, start_s=0.0, start_jitter_us=100.0) if bulk else []
    q = query(0, range(1, WORKERS + 1), RESPONSE_BYTES, rounds=10**6, start_s=TASK_START_S)
    q["arrival"] = {"kind": "poisson", "mean_interval_ms": MEAN_INTERVAL_MS}
    q["stop_s"] = end
    sc["queries"] = [q]
    sc["measure"]["ideal_fct"] = False
    return sc


def scenarios(p: Params, tb: Testbed) -> dict[tuple[str, bool], dict[str, Any]]:
    """``(protocol, bulk)`` → its run; the bulk runs, the slow ones, first so that they start
    first."""
    return {(proto, bulk): scenario(proto, bulk, p, tb) for bulk in (True, False) for proto in PROTOCOLS}


def log_bins() -> np.ndarray:
    lo, hi = np.log10(BIN_RANGE_MS[0]), np.log10(BIN_RANGE_MS[1])
    return np.logspace(lo, hi, int(round((hi - lo) * BINS_PER_DECADE)) + 1)


def pdf(values_ms: Sequence[float] | np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Fraction of the values in each bin (values outside the edges go to the end bins)."""
    v = np.clip(np.asarray(values_ms, dtype=float), edges[0], edges[-1])
    counts, _ = np.histogram(v, bins=edges)
    return counts / max(len(v), 1)


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    edges = log_bins()
    stats, rows, hist = {}, [], []
    for proto in PROTOCOLS:
        for bulk in (False, True):
            res = runs[(proto, bulk)]
            st = query_stats(res)
            port = res.port(RECEIVER_PORT)
            st["bulk_gbps"] = bulk_goodput_gbps(res)
            st["queue_mean_packets"] = float(port["mean_packets"])
            st["drops"] = int(port["drops_buffer"]) + int(port["drops_aqm"])
            stats[stats_key(proto, bulk)] = st
            rows.append({"protocol": proto, "bulk": bulk, **st})
            hist += [
                {"protocol": proto, "bulk": bulk, "bin_lo_ms": a, "bin_hi_ms": b, "fraction": f}
                for a, b, f in zip(edges[:-1], edges[1:], pdf(qct_ms(res), edges))
            ]
    return Metrics(
        values={
            "workers": WORKERS,
            "response_bytes": RESPONSE_BYTES,
            "bulk_flows": BULK_FLOWS,
            "mean_interval_ms": MEAN_INTERVAL_MS,
            "stats": stats,
        },
        tables={STEM: pd.DataFrame(rows), f"{STEM}_hist": pd.DataFrame(hist)},
    )


# --- claims -------------------------------------------------------------------------------


def _tcp_coupling(m: Metrics) -> tuple[bool, str]:
    ta, tb = m["stats"]["tcp_alone"], m["stats"]["tcp_bulk"]
    t_ratio = tb["p50_ms"] / ta["p50_ms"]
    measured = (
        f"TCP median {1e3 * ta['p50_ms']:.0f} µs → {tb['p50_ms']:.2f} ms ({t_ratio:.0f}×); "
        f"p99 {ta['p99_ms']:.3f} → {tb['p99_ms']:.1f} ms; "
        f"{100 * tb['timeout_fraction']:.1f}% of tasks with a timeout"
    )
    return ta["p50_ms"] < 1.0 and tb["p50_ms"] >= 1.0 and t_ratio >= TCP_FACTOR, measured


def _dctcp_decoupled(m: Metrics) -> tuple[bool, str]:
    da, db = m["stats"]["dctcp_alone"], m["stats"]["dctcp_bulk"]
    d_ratio = db["p50_ms"] / da["p50_ms"]
    measured = (
        f"DCTCP median {1e3 * da['p50_ms']:.0f} → {1e3 * db['p50_ms']:.0f} µs "
        f"({d_ratio:.2f}×); "
        f"p99 {1e3 * da['p99_ms']:.0f} → {1e3 * db['p99_ms']:.0f} µs"
    )
    return d_ratio <= DCTCP_FACTOR, measured


def _bulk_goodput(m: Metrics) -> tuple[bool, str]:
    gt, gd = m["stats"]["tcp_bulk"]["bulk_gbps"], m["stats"]["dctcp_bulk"]["bulk_gbps"]
    return gt > 0 and gd >= BULK_SHARE * gt, f"bulk job {gt:.2f} Gbps (TCP) vs {gd:.2f} Gbps (DCTCP)"


CLAIMS = (
    Claim(
        id="tcp-bulk-job-milliseconds",
        kind="paper",
        text=(
            f"With TCP the bulk job moves the task from microseconds to milliseconds: median "
            f"< 1 ms alone, ≥ 1 ms and ≥ {TCP_FACTOR:g} × that with the bulk job"
        ),
        paper="TCP fills queues: latency microseconds → milliseconds; application coupling",
        quote="By design, TCP fills queues ... Latency ... microseconds → milliseconds",
        section="slide 'Latency & Application Coupling'",
        check=_tcp_coupling,
    ),
    Claim(
        id="dctcp-bulk-job-barely-matters",
        kind="paper",
        text=f"With DCTCP the bulk job barely moves the task: median with it ≤ {DCTCP_FACTOR:g} × alone",
        paper="DCTCP: reduced queueing delay; demonstrated reduction in coupling",
        quote="Key idea: reduce queue occupancy ... Reduced queueing delay",
        section="slide 'DCTCP'",
        check=_dctcp_decoupled,
    ),
    Claim(
        id="bulk-job-keeps-its-goodput",
        kind="check",
        text=f"The fix costs the bulk job nothing: its goodput with DCTCP ≥ {100 * BULK_SHARE:g}% of its goodput with TCP",
        paper="— (the slides show the task, not the bulk job)",
        check=_bulk_goodput,
    ),
    Claim(
        id="all-tasks-complete",
        kind="check",
        text="All tasks complete within the simulated horizon",
        paper=f"Poisson tasks, mean gap {MEAN_INTERVAL_MS:g} ms",
        check=lambda m: completion(*counts_in_stats(m)),
    ),
)


# --- plot ---------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    hist = m.tables[f"{STEM}_hist"]
    stats = m["stats"]
    edges = log_bins()
    fig, axes = figure(1, 2, size=(10.5, 3.8), sharey=True)
    centres = np.sqrt(edges[:-1] * edges[1:])
    for ax, proto, tag in zip(axes, PROTOCOLS, "ab"):
        loaded = "tab:red" if proto == "TCP" else "tab:blue"
        for bulk, color in ((False, "tab:green"), (True, loaded)):
            s = stats[stats_key(proto, bulk)]
            fraction = hist[(hist.protocol == proto) & (hist.bulk == bulk)].fraction.to_numpy()
            ax.step(
                centres,
                fraction,
                where="mid",
                color=color,
                label=f"{'with' if bulk else 'without'} bulk job: median {s['p50_ms']:.3g} ms",
            )
        ax.set_xscale("log")
        ax.set_xlabel("Task completion time (ms)")
        ax.set_title(f"({tag}) {proto}", fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    axes[0].set_ylabel(f"Fraction of tasks (1/{BINS_PER_DECADE} decade bins)")
    note(axes[0], "slides: figure only;\n'latency microseconds → milliseconds'", loc="center right")
    note(axes[1], "the fix: DCTCP,\n'reduced queueing delay'", loc="center right")
    return fig


EXPERIMENT = Experiment(
    id="judd-task-completion-pdf",
    paper="judd",
    figure="slides",
    title="task completion PDF — a Partition/Aggregate task with and without a bulk job, TCP vs DCTCP",
    description=(
        "43 workers answer 2 KB each to one aggregator on a 10 Gbps port with 5.5 MB, alone or beside two bulk flows into it: task "
        "completion-time PDF, CUBIC vs DCTCP."
    ),
    testbed="judd_testbed",
    scales={
        "quick": {"task_s": 2.0},
        "full": {"task_s": 20.0},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={STEM: plot},
    notes=__doc__ or "",
)
