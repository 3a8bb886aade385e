"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), Figure 19: incast with dynamic buffering.

Paper setup (§4.2.1, "Importance of dynamic buffering"): the Fig. 18 experiment (41 hosts on
the Triumph, 1 Gbps; the client requests 1MB/n from each of n servers, 1000 times) "repeated
... with dynamic buffering enabled"; "Given the poor performance of TCP with 300ms timeout
..., we use 10ms timeout here and for the rest of the paper." TCP vs DCTCP (K = 20).

Published numbers (spec experiments.md dctcp-fig19, §6 claim 11): "DCTCP no longer suffers
incast timeouts even when the number of servers grows to 40. On the other hand, TCP continues
to suffer from incast timeouts, although the dynamic buffering algorithm mitigates the impact
by allocating as much as 700KB of buffer to the receiver's port".

Our setup: as `dctcp_fig18` but the switch's shared memory with dynamic thresholds (engine
preset `triumph`: 4 MB, one busy port gets ~700 KB; spec algorithms.md §2.3 M13), RTO_min
10 ms with the 10 ms timer tick.

Assumptions: those of `dctcp_fig18` (persistent connections, 100-B requests); quick scale
samples n ∈ {1, 5, 10, 15, 20, 25, 30, 35, 40} with 100 queries; full every n = 1..40 with
1000 queries.

Outputs: fig19.csv (protocol, rto_min_ms, servers, completion-time stats, timeout_fraction),
fig19.png/.svg.
"""

from __future__ import annotations

from pathlib import Path

from . import common as c
from . import incast as ic

ID = "dctcp-fig19"
TITLE = "DCTCP Fig. 19: incast with the Triumph's dynamic buffer, TCP vs DCTCP, RTO_min 10 ms"
DESCRIPTION = "41-host incast, 1MB/n from n servers, dynamic shared buffer: DCTCP no timeouts up to 40 servers, TCP still times out."

CONFIGS = (("TCP", 10.0), ("DCTCP", 10.0))
SCALES = {
    "smoke": {"ns": (1, 20, 40), "rounds": 5},
    "quick": {"ns": (1, 5, 10, 15, 20, 25, 30, 35, 40), "rounds": 100},
    "full": {"ns": tuple(range(1, 41)), "rounds": 1000},
}

# "DCTCP ≈ 8-9 ms up to 40 servers" (DCTCP Fig. 19): the low end, 1 MB at the line rate.
PAPER_DCTCP_MS = 8.0


def scenarios(scale: str) -> list[tuple[str, float, int, dict]]:
    """``(protocol, rto_min_ms, servers, scenario)`` for every run."""
    s = c.check_scale(scale, SCALES)
    return ic.many_to_one_plan(
        ID, configs=CONFIGS, buffer=ic.TRIUMPH, ns=s["ns"], rounds=s["rounds"]
    )


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    df = ic.many_to_one_sweep(scenarios(scale), jobs)
    df.to_csv(out / "fig19.csv", index=False)
    files = ic.plot_many_to_one(
        df,
        out,
        "fig19",
        "Dynamic (Triumph) buffer, RTO_min 10 ms (ours)",
        "paper: DCTCP ≈ 8-9 ms up to 40 servers",
        "paper: DCTCP no timeouts up to 40;\nTCP still times out",
        paper_ms=PAPER_DCTCP_MS,
    )
    d = df[df.protocol == "DCTCP"]
    t = df[df.protocol == "TCP"]
    d_max = float(d.timeout_fraction.max())
    t_max = float(t.timeout_fraction.max())
    t_worst_n = int(t.loc[t.timeout_fraction.idxmax(), "servers"])
    completed, issued = int(df.completed.sum()), int(df.issued.sum())
    claims = [
        c.claim(
            "Dynamic buffer: DCTCP timeout fraction = 0 for every n ≤ 40 (claim 11)",
            "no incast timeouts up to 40 servers",
            f"DCTCP max timeout fraction {d_max:.3f} over n = {list(s['ns'])}",
            d_max == 0.0 and int(d.completed.sum()) > 0,
        ),
        c.claim(
            "Dynamic buffer: TCP still suffers incast timeouts (timeout fraction > 0 for some n)",
            "TCP continues to suffer from incast timeouts",
            f"TCP max timeout fraction {t_max:.3f} (at n = {t_worst_n}); first n with timeouts "
            f"{ic.first_n_with_timeouts(list(t.servers), list(t.timeout_fraction))}",
            t_max > 0.0,
        ),
        ic.all_completed_claim(s["rounds"], "point", completed, issued),
    ]
    metrics = {
        "rounds": s["rounds"],
        "servers": list(s["ns"]),
        "dctcp_max_timeout_fraction": d_max,
        "tcp_max_timeout_fraction": t_max,
        "completed": completed,
        "issued": issued,
        "table": df.to_dict(orient="records"),
        "files": ["fig19.csv", *files],
    }
    return {"claims": claims, "metrics": c.jsonable(metrics)}
