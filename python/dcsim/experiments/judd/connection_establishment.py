"""Judd (Morgan Stanley) slides, "Connection Establishment": SYNs dropped by a RED-ECN queue
above K, and the fixes.

Slide: a figure only; the Conclusion says DCTCP "Requires changes to work in production —
Coexistence — Connection establishment". The mechanism (from outside the slides: RFC 3168
§6.1.1 and Linux commit 843c2fdf7a12): SYN and SYN-ACK are not ECN-capable under RFC 3168, so
a RED-ECN switch drops them whenever the DCTCP queue is above K; the client waits its SYN RTO
(1 s, then 2 s, ...) and "a severe reduction of connection probability" follows. Fixes:
ECT(0) on SYNs (Linux's later DCTCP), or QoS segregation that keeps the non-ECT SYNs out of
the DCTCP queue.

Our setup (an assumption: the slides give none): the shared Judd testbed (judd/testbeds.py):
hosts 1..4 send long-lived DCTCP flows to host 0 through its 10 Gbps port (RED-ECN marking at
K = 20, which DCTCP keeps the queue around: above K about half the time); host 5 opens new
short connections to host 0, Poisson at 100 per second, each SYN → 100-B request → 2 KB
response → done (a one-shot query). The SYN crosses the congested port; the SYN-ACK and the
response go the other way, uncongested. Hosts run DCTCP with ECT on every packet but, in the
pitfall, not on SYN and SYN-ACK (the RFC 3168 handshake of the DCTCP hosts of the time). Four
configurations:
- (a) one queue, SYNs not ECT: the pitfall;
- (b) one queue, ECT SYNs (``tcp.ect_on_syn``): Linux's fix;
- (c) QoS segregation by ECN codepoint (``testbeds.segregated(by="ecn")``): non-ECT SYNs go
  to the drop-tail class, which is empty;
- (d) QoS segregation by DSCP (``testbeds.segregated(by="flow")``): DCTCP's SYNs carry its
  class, so they still meet the DCTCP class's RED-ECN drops: segregation alone does not
  protect DCTCP's own handshakes.

Assumptions:
- Connections arrive during [0.1, 1.1) s at quick (100 of them) and [0.5, 5.5) s at full
  (500); the long flows stop at 2.5 s (quick) or 12 s (full), so a SYN sent again after 1 s
  still meets the congestion, one sent after 3 s (quick) does not; runs end at 5 s (quick)
  and 20 s (full), after every retry that can succeed has.
- Setup time = the client's SYN to its SYN-ACK (``flows.setup_s``); a connection that never
  got a SYN-ACK is a failure (6 SYN retries, Linux's default, end at 127 s: none fail here).

Checks (the connection-setup half of the slides' RED-ECN pitfall): in (a) a large share of
handshakes (≥ 10%) need a SYN retry, and every one of those takes at least the 1 s initial
RTO; with ECT SYNs (b) or ECN segregation (c) none does (≤ 0.5%) and the 99th percentile of
setup time is below 1 ms; DSCP segregation (d) still drops SYNs (≥ 10% retried).

Outputs: connection_setup.csv (config, flow, start_s, setup_s, syn_retries, failed),
connection_setup_summary.csv (per configuration: connections, share retried, failures,
median, p99 and max setup time, SYN drops at the port), connection_setup.png/.svg (setup-time
CDFs side by side).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...results import Results
from ..analysis import cdf
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure
from ..scenarios import RECEIVER_PORT
from ..units import ms
from .testbeds import FIXED_HOSTS, fanin, red_ecn, segregated

if TYPE_CHECKING:
    import pandas as pd

LONG_FLOWS = 4
CLIENT = LONG_FLOWS + 1
RATE_PER_S = 100.0
REQUEST_BYTES = 100
RESPONSE_BYTES = 2000
SHARED, ECT_SYN, SEG_ECN, SEG_DSCP = "one queue, non-ECT SYNs", "one queue, ECT SYNs", "segregated by ECN", "segregated by DSCP"
CONFIGS = (SHARED, ECT_SYN, SEG_ECN, SEG_DSCP)
PITFALLS = (SHARED, SEG_DSCP)
FIXES = (ECT_SYN, SEG_ECN)
SLUGS = {SHARED: "shared", ECT_SYN: "ect-syn", SEG_ECN: "seg-ecn", SEG_DSCP: "seg-dscp"}
COLORS = {SHARED: "#d62728", ECT_SYN: "#1f77b4", SEG_ECN: "#2ca02c", SEG_DSCP: "#ff7f0e"}
# Claim thresholds (module docstring).
RETRIED_PITFALL_MIN = 0.10
RETRIED_FIX_MAX = 0.005
FIX_P99_MAX_S = 1e-3

# Hosts of the time: DCTCP with ECT on everything but the handshake (RFC 3168 §6.1.1).
OLD_HANDSHAKE = {"ect_on_control": "all", "ect_on_syn": False}


def scenario(config: str, p: Params, tb: Testbed) -> dict[str, Any]:
    """One configuration's run (module docstring)."""
    tcp = FIXED_HOSTS if config == ECT_SYN else OLD_HANDSHAKE
    classes = {SEG_ECN: segregated(tb, by="ecn"), SEG_DSCP: segregated(tb, by="flow")}.get(config)
    sc = fanin(
        f"judd-connection-establishment-{SLUGS[config]}",
        tb,
        senders=LONG_FLOWS,
        cc="dctcp",
        aqm=red_ecn(),
        duration_s=p["duration_s"],
        tcp=dict(tcp),
        classes=classes,
    )
    sc["topology"]["hosts"] += 1
    for f in sc["flows"]:
        f["stop_s"] = p["long_stop_s"]
    t0, t1 = p["arrivals_s"]
    sc["queries"] = [
        {
            "client": CLIENT,
            "servers": [0],
            "request_bytes": REQUEST_BYTES,
            "response_bytes": RESPONSE_BYTES,
            "rounds": round((t1 - t0) * RATE_PER_S),
            "start_s": t0,
            "stop_s": t1,
            "arrival": {"kind": "poisson", "mean_interval_ms": 1e3 / RATE_PER_S},
            "persistent": False,
        }
    ]
    return sc


def scenarios(p: Params, tb: Testbed) -> dict[str, dict[str, Any]]:
    """Configuration → its run."""
    return {cfg: scenario(cfg, p, tb) for cfg in CONFIGS}


def connections(res: Results, config: str) -> pd.DataFrame:
    """The short connections of a run: start, setup time, SYN retries, failure."""
    import pandas as pd

    rows = [f for f in res.rows("flows") if f["workload"] is not None]
    return pd.DataFrame(
        {
            "config": config,
            "flow": [int(f["id"]) for f in rows],
            "start_s": [float(f["start_s"]) for f in rows],
            "setup_s": [np.nan if f["setup_s"] is None else float(f["setup_s"]) for f in rows],
            "syn_retries": [int(f["syn_retries"]) for f in rows],
            "failed": [bool(f["failed"]) for f in rows],
        }
    )


def summarize(conns: pd.DataFrame, syn_drops: int) -> dict[str, Any]:
    """Share of connections that needed a SYN retry, failures, and setup-time quantiles."""
    setup = conns.setup_s.dropna().to_numpy()
    retried = conns[conns.syn_retries > 0]
    q = (lambda p: float(np.quantile(setup, p))) if len(setup) else (lambda p: float("nan"))
    return {
        "connections": len(conns),
        "retried_share": float((conns.syn_retries > 0).mean()) if len(conns) else float("nan"),
        "failures": int(conns.failed.sum()),
        "median_setup_ms": ms(q(0.5)),
        "p99_setup_ms": ms(q(0.99)),
        "max_setup_ms": ms(float(setup.max())) if len(setup) else float("nan"),
        "min_retried_setup_s": float(retried.setup_s.min()) if len(retried) else float("nan"),
        "syn_drops": int(syn_drops),
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    conns = {cfg: connections(runs[cfg], cfg) for cfg in CONFIGS}
    summ = {cfg: summarize(conns[cfg], runs[cfg].port(RECEIVER_PORT)["drops_syn"]) for cfg in CONFIGS}
    return Metrics(
        values={"summary": summ},
        tables={
            "connection_setup": pd.concat(conns.values(), ignore_index=True),
            "connection_setup_summary": pd.DataFrame([{"config": k, **v} for k, v in summ.items()]),
        },
    )


# --- claims -------------------------------------------------------------------------------


def _share(m: Metrics, cfg: str) -> str:
    v = m["summary"][cfg]
    return f"{cfg}: {v['retried_share']:.1%} retried, p99 {v['p99_setup_ms']:.3g} ms"


def _pitfall(m: Metrics) -> tuple[bool, str]:
    pit = m["summary"][SHARED]
    measured = (
        f"{pit['retried_share']:.1%} retried ({pit['syn_drops']} SYN drops at the port), the "
        f"fastest of them {pit['min_retried_setup_s']:.4f} s; median setup "
        f"{pit['median_setup_ms']:.3g} ms, max {pit['max_setup_ms'] / 1e3:.2f} s"
    )
    return pit["retried_share"] >= RETRIED_PITFALL_MIN and pit["min_retried_setup_s"] >= 1.0, measured


def _fixes(m: Metrics) -> tuple[bool, str]:
    fixes = [m["summary"][f] for f in FIXES]
    holds = all(v["retried_share"] <= RETRIED_FIX_MAX and v["p99_setup_ms"] < FIX_P99_MAX_S * 1e3 for v in fixes)
    return holds, "; ".join(_share(m, f) for f in FIXES)


def _dscp(m: Metrics) -> tuple[bool, str]:
    return m["summary"][SEG_DSCP]["retried_share"] >= RETRIED_PITFALL_MIN, _share(m, SEG_DSCP)


def _no_failures(m: Metrics) -> tuple[bool, str]:
    summ = m["summary"]
    measured = ", ".join(f"{k}: {v['failures']} of {v['connections']}" for k, v in summ.items())
    return all(v["failures"] == 0 for v in summ.values()), measured


CONNECTION_ESTABLISHMENT = "Requires changes to work in production ... Connection establishment"

CLAIMS = (
    Claim(
        id="non-ect-syns-retried",
        kind="derived",
        text=(
            f"Non-ECT SYNs in a RED-ECN queue: ≥ {RETRIED_PITFALL_MIN:.0%} of handshakes need a "
            "SYN retry, and each of those takes at least the 1 s initial RTO"
        ),
        paper="RED-ECN drops non-ECT SYNs above K; the client waits its SYN RTO (1 s / 3 s)",
        quote=CONNECTION_ESTABLISHMENT,
        section="slide 'Conclusion'",
        check=_pitfall,
    ),
    Claim(
        id="ect-syns-or-ecn-segregation-fix",
        kind="derived",
        text=(f"ECT SYNs or QoS segregation by ECN fix it: ≤ {RETRIED_FIX_MAX:.1%} retried and p99 setup < {FIX_P99_MAX_S * 1e3:.0f} ms"),
        paper="SYN-retry fraction ≈ 0 with ECT SYNs or segregation",
        quote="Solution: Segregate DCTCP traffic using QoS",
        section="slide 'RED-ECN AQM Implementation'",
        check=_fixes,
    ),
    Claim(
        id="dscp-segregation-still-drops-syns",
        kind="derived",
        text=f"Segregation by DSCP alone leaves DCTCP's own non-ECT SYNs in its RED-ECN class: ≥ {RETRIED_PITFALL_MIN:.0%} retried",
        paper="Requires changes to work in production: connection establishment",
        quote=CONNECTION_ESTABLISHMENT,
        section="slide 'Conclusion'",
        check=_dscp,
    ),
    Claim(
        id="no-connection-fails",
        kind="check",
        text="No connection fails (6 SYN retries reach past the run)",
        paper="—",
        check=_no_failures,
    ),
)


# --- plot ---------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    conns = m.tables["connection_setup"]
    summ = m["summary"]
    fig, axes = figure(1, 2, size=(10.0, 4.0), sharey=True)
    for ax, group, title in zip(axes, (PITFALLS, FIXES), ("pitfalls", "fixes")):
        for cfg in group:
            x, y = cdf(conns[conns.config == cfg].setup_s.dropna())
            # Dashed lines for the second of each pair: the two pitfalls can coincide (by DSCP,
            # every packet here is in the DCTCP class, as in one queue).
            ax.step(
                ms(x),
                y,
                where="post",
                color=COLORS[cfg],
                ls="--" if cfg in (SEG_DSCP, SEG_ECN) else "-",
                label=f"{cfg} ({summ[cfg]['retried_share']:.0%} retried)",
            )
        ax.set_xscale("log")
        ax.set_xlabel("Connection setup time (ms)")
        ax.set_title(title, fontsize=9)
        ax.axvline(1e3, color="0.6", ls=":", lw=0.8)
        ax.legend(fontsize=7, loc="lower right")
    axes[0].set_ylabel("CDF of connections")
    fig.suptitle("SYN → SYN-ACK through a 10 Gbps port held near K by DCTCP (1 s = the SYN RTO)", fontsize=10)
    return fig


EXPERIMENT = Experiment(
    id="judd-connection-establishment",
    paper="judd",
    figure="slides",
    title="connection establishment through a RED-ECN queue, SYNs dropped above K and the fixes",
    description=(
        "New connections open through a 10 Gbps port DCTCP keeps at K: setup-time CDFs with non-ECT SYNs, ECT SYNs, and QoS "
        "segregation by ECN or DSCP."
    ),
    testbed="judd_testbed",
    scales={
        "quick": {"arrivals_s": (0.1, 1.1), "long_stop_s": 2.5, "duration_s": 5.0},
        "full": {"arrivals_s": (0.5, 5.5), "long_stop_s": 12.0, "duration_s": 20.0},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"connection_setup": plot},
    notes=__doc__ or "",
)
