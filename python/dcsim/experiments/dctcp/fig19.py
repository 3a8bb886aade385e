"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 19: incast with dynamic buffering.

Paper setup (§4.2.1, "Importance of dynamic buffering"): the Fig. 18 experiment (41 hosts on
the Triumph, 1 Gbps; the client requests 1MB/n from each of n servers, 1000 times) "repeated
... with dynamic buffering enabled"; "Given the poor performance of TCP with 300ms timeout
..., we use 10ms timeout here and for the rest of the paper." TCP vs DCTCP (K = 20).

Published numbers (§4.2.1): "DCTCP no longer suffers incast timeouts even when the number of
servers grows to 40. On the other hand, TCP continues to suffer from incast timeouts,
although the dynamic buffering algorithm mitigates the impact by allocating as much as 700KB
of buffer to the receiver's port".

Our setup: as Fig. 18 but the testbed's switch buffer, the shared memory with dynamic
thresholds (engine preset `triumph`: 4 MB, one busy port gets ~700 KB), RTO_min 10 ms with the
10 ms timer tick.

Assumptions: those of Fig. 18 (persistent connections, 100-B requests); quick scale samples
n ∈ {1, 5, 10, 15, 20, 25, 30, 35, 40} with 100 queries; full every n = 1..40 with 1000
queries.

Outputs: fig19.csv (protocol, rto_min_ms, servers, completion-time stats, timeout_fraction),
fig19.png/.svg.
"""

from __future__ import annotations

from typing import Any

from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..queries import all_completed
from .incast import first_n_with_timeouts, many_to_one, many_to_one_table, plot_many_to_one

CONFIGS = (("TCP", 10.0), ("DCTCP", 10.0))
# "DCTCP ≈ 8-9 ms up to 40 servers" (Fig. 19): the low end, 1 MB at the line rate.
PAPER_DCTCP_MS = 8.0


def scenarios(p: Params, tb: Testbed) -> dict[tuple[str, float, int], dict]:
    """``(protocol, rto_min_ms, servers)`` → scenario, for both protocols and every server count."""
    return many_to_one("dctcp-fig19", tb, configs=CONFIGS, ns=p["ns"], rounds=p["rounds"])


def analyze(runs: Runs) -> Metrics:
    df = many_to_one_table(runs)
    return Metrics(
        values={
            "rounds": runs.params["rounds"],
            "servers": list(runs.params["ns"]),
            "dctcp_max_timeout_fraction": float(df[df.protocol == "DCTCP"].timeout_fraction.max()),
            "tcp_max_timeout_fraction": float(df[df.protocol == "TCP"].timeout_fraction.max()),
            "completed": int(df.completed.sum()),
            "issued": int(df.issued.sum()),
            "table": df.to_dict(orient="records"),
        },
        tables={"fig19": df},
    )


def _dctcp_no_timeouts(m: Metrics) -> tuple[bool, str]:
    df = m.tables["fig19"]
    d_max = m["dctcp_max_timeout_fraction"]
    measured = f"DCTCP max timeout fraction {d_max:.3f} over n = {m['servers']}"
    return d_max == 0.0 and int(df[df.protocol == "DCTCP"].completed.sum()) > 0, measured


def _tcp_times_out(m: Metrics) -> tuple[bool, str]:
    df = m.tables["fig19"]
    t = df[df.protocol == "TCP"]
    t_max = m["tcp_max_timeout_fraction"]
    t_worst_n = int(t.loc[t.timeout_fraction.idxmax(), "servers"])
    measured = (
        f"TCP max timeout fraction {t_max:.3f} (at n = {t_worst_n}); first n with timeouts "
        f"{first_n_with_timeouts(list(t.servers), list(t.timeout_fraction))}"
    )
    return t_max > 0.0, measured


CLAIMS = (
    Claim(
        id="dctcp-no-timeouts-up-to-40",
        kind="paper",
        text="Dynamic buffer: DCTCP timeout fraction = 0 for every n ≤ 40",
        paper="no incast timeouts up to 40 servers",
        quote="DCTCP no longer suffers incast timeouts even when the number of servers grows to 40",
        section="§4.2.1",
        check=_dctcp_no_timeouts,
    ),
    Claim(
        id="tcp-still-times-out",
        kind="paper",
        text="Dynamic buffer: TCP still suffers incast timeouts (timeout fraction > 0 for some n)",
        paper="TCP continues to suffer from incast timeouts",
        quote="TCP continues to suffer from incast timeouts",
        section="§4.2.1",
        check=_tcp_times_out,
    ),
    all_completed("point"),
)


def plot(m: Metrics) -> Any:
    return plot_many_to_one(
        m.tables["fig19"],
        "Dynamic (Triumph) buffer, RTO_min 10 ms (ours)",
        "paper: DCTCP ≈ 8-9 ms up to 40 servers",
        "paper: DCTCP no timeouts up to 40;\nTCP still times out",
        paper_ms=PAPER_DCTCP_MS,
    )


EXPERIMENT = Experiment(
    id="dctcp-fig19",
    paper="dctcp",
    figure="Fig. 19",
    title="incast with the Triumph's dynamic buffer, TCP vs DCTCP, RTO_min 10 ms",
    description="41-host incast, 1MB/n from n servers, dynamic shared buffer: DCTCP no timeouts up to 40 servers, TCP still times out.",
    testbed="dctcp_testbed",
    scales={
        "smoke": {"ns": (1, 20, 40), "rounds": 5},
        "quick": {"ns": (1, 5, 10, 15, 20, 25, 30, 35, 40), "rounds": 100},
        "full": {"ns": tuple(range(1, 41)), "rounds": 1000},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"fig19": plot},
    notes=__doc__ or "",
)
