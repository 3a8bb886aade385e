"""Judd (Morgan Stanley) slides, "Stability, Convergence, & Fairness: TCP, 2 Flows": two TCP
flows share a 10 Gbps bottleneck, beside two DCTCP flows.

Slide: a figure only (throughput vs time of two TCP flows; no numbers, no setup). Spec
(experiments.md judd-stability-*): ASSUMPTION "a 2-flow TCP case; metric per-flow throughput
vs time"; expected, by analogy with DCTCP paper Fig. 16, TCP "fair on average with large
variation", DCTCP smooth and fair.

Our setup (judd_stability.py gives the details): the Judd testbed (``judd.fanin``: 10 Gbps
links, 5 µs each, a 5.5 MB port to the receiver, Linux hosts with RTO_min 200 ms and IW 10);
host 1 sends a long-lived flow to host 0 from t = 0, host 2 joins it (the slide's
"Convergence"); both then run to the end. TCP = CUBIC over drop-tail; the same with DCTCP over
RED-ECN marking at K = 20 (hosts with the slides' fixes) as the configuration that fixes it,
plotted below TCP.

Assumptions:
- Durations (NOT GIVEN): full = 120 s, the second flow joining at 10 s and the measurement
  over [20, 120] s; quick = 20 s, joining at 2 s, measured over [5, 20] s. CUBIC's epochs over
  a 5.5 MB buffer last seconds at 10 Gbps, so the quick window holds only a few of them.
- Each flow's delivered bytes are sampled every 100 ms (the slides' interval is NOT GIVEN).
  "Time-averaged Jain" is reported both ways: Jain's index of the two flows' mean throughputs
  over the window (fair on average), and the mean over the 100-ms samples of the two flows'
  per-sample Jain index (fair at every instant). Variation = CoV (std/mean) of a flow's 100-ms
  throughput samples in the window, averaged over the two flows.
- Checks (thresholds ours): "fair on average" = TCP's Jain of the mean throughputs ≥ 0.95;
  "large variation" = TCP's mean CoV ≥ 2 × DCTCP's.

Known sensitivity: TCP's variation comes from the overflows in which one flow loses alone;
when both lose in the same overflow (drop-tail usually hits both) they keep their ratio. Over
the 15-s quick window, seeds 1-5 gave TCP/DCTCP CoV ratios of 2.6, 10.3, 3.4, 6.7 and 0.35
(seed 5: the flows stayed at 4.79 / 4.70 Gbps throughout, CoV 0.009), so the quick-scale
variation check depends on the seed (we run seed 1); over the full window seeds 1-6 gave TCP
CoVs of 0.10-0.17 (DCTCP's, seed 1: 0.024).

Measured: full scale, TCP's Jain of means 0.9904 (5.21 / 4.28 Gbps), mean CoV 0.169, 7.2 ×
DCTCP's 0.024, lowest per-sample Jain 0.883 (DCTCP 0.994); quick scale, TCP 0.9991 and CoV
0.063, 2.6 × DCTCP's 0.025.

Outputs: judd_stability_tcp_2flows.csv (protocol, flow, mean_mbps, cov),
judd_stability_tcp_2flows_series.csv (protocol, flow, t_s, mbps per 100-ms interval),
judd_stability_tcp_2flows.png/.svg (TCP on top, DCTCP below).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from . import common as c
from . import dctcp_fig16 as f16
from . import judd_stability as js

ID = "judd-stability-tcp-2flows"
TITLE = "Judd slides: stability, convergence and fairness of two TCP flows (10 Gbps), beside DCTCP"
DESCRIPTION = (
    "Two long flows share a 10 Gbps port with 5.5 MB, the second joining later: throughput vs time, variation and time-averaged"
    " Jain index, CUBIC vs DCTCP."
)

SCALES = {
    "quick": {"duration_s": 20.0, "join_s": 2.0, "measure_from_s": 5.0},
    "full": {"duration_s": 120.0, "join_s": 10.0, "measure_from_s": 20.0},
}
TCP_MIN_JAIN = js.TCP_MIN_JAIN
TCP_COV_FACTOR = js.TCP_COV_FACTOR


def scenario(proto: str, scale: str) -> dict:
    s = c.check_scale(scale, SCALES)
    sc = js.testbed(f"{ID}-{proto.lower()}", proto, senders=2, duration_s=s["duration_s"])
    sc["flows"] = [
        {"src": 1, "dst": 0, "start_s": 0.0},
        {"src": 2, "dst": 0, "start_s": s["join_s"]},
    ]
    return sc


def scenarios(scale: str) -> list[tuple[str, dict]]:
    """``(protocol, scenario)`` for TCP and DCTCP."""
    c.check_scale(scale, SCALES)
    return [(p, scenario(p, scale)) for p in js.PROTOCOLS]


def two_flow_stats(rates: pd.DataFrame, t_from: float, t_to: float) -> dict:
    """From every flow's per-interval throughput (``common.flow_rates``: ``flow, t_s, mbps``,
    ``t_s`` the interval's end): the samples whose whole interval lies in [t_from, t_to] (the
    sampling interval is the spacing of ``t_s``); each flow's mean and CoV; the Jain index of
    the means; and the mean and lowest per-sample Jain index."""
    dt = float(np.median(np.diff(np.sort(rates.t_s.unique()))))
    keep = (rates.t_s - dt >= t_from - 1e-9) & (rates.t_s <= t_to + 1e-9)
    piv = rates[keep].pivot(index="t_s", columns="flow", values="mbps").dropna()
    means = piv.mean()
    per_sample = np.array([c.jain(row) for row in piv.to_numpy()])
    covs = [f16.cov(piv[f].to_numpy()) for f in piv.columns]
    return {
        "flows": [int(f) for f in piv.columns],
        "mean_mbps": [float(m) for m in means],
        "covs": covs,
        "mean_cov": float(np.mean(covs)),
        "jain_of_means": c.jain(means.to_numpy()),
        "mean_sample_jain": float(per_sample.mean()),
        "min_sample_jain": float(per_sample.min()),
        "samples": int(len(piv)),
    }


def claims(st: dict[str, dict]) -> list[dict]:
    t, d = st["TCP"], st["DCTCP"]
    return [
        c.claim(
            "Two TCP flows are fair on average: Jain index of their mean throughputs "
            f"≥ {TCP_MIN_JAIN}",
            "TCP fair on average (slide figure; DCTCP paper Fig. 16 analogue)",
            f"TCP Jain of means {t['jain_of_means']:.4f} "
            f"({' / '.join(f'{m / 1e3:.2f}' for m in t['mean_mbps'])} Gbps); per-100-ms Jain "
            f"mean {t['mean_sample_jain']:.4f}, lowest {t['min_sample_jain']:.3f} "
            f"(DCTCP {d['mean_sample_jain']:.4f}, lowest {d['min_sample_jain']:.3f})",
            t["jain_of_means"] >= TCP_MIN_JAIN,
        ),
        c.claim(
            f"Two TCP flows' throughput varies more than two DCTCP flows': TCP's mean CoV of "
            f"100-ms samples ≥ {TCP_COV_FACTOR:g} × DCTCP's",
            "TCP: large variation; DCTCP: smooth",
            f"mean CoV TCP {t['mean_cov']:.3f} vs DCTCP {d['mean_cov']:.3f} "
            f"({t['mean_cov'] / d['mean_cov']:.1f}×)",
            t["mean_cov"] >= TCP_COV_FACTOR * d["mean_cov"],
        ),
    ]


def run(scale: str, out_dir: Path, jobs: int) -> dict:
    s = c.check_scale(scale, SCALES)
    out = c.prepare_out(out_dir)
    stem = ID.replace("-", "_")
    plan = scenarios(scale)
    results = c.run_all([sc for _, sc in plan], jobs)
    series, rows, st, timeouts = [], [], {}, {}
    for (proto, _), res in zip(plan, results):
        rates = c.flow_rates(c.flow_samples(res))
        series.append(rates.assign(protocol=proto))
        st[proto] = two_flow_stats(rates, s["measure_from_s"], s["duration_s"])
        timeouts[proto] = c.total(res, "timeouts")
        rows += [
            {"protocol": proto, "flow": f, "mean_mbps": m, "cov": v}
            for f, m, v in zip(st[proto]["flows"], st[proto]["mean_mbps"], st[proto]["covs"])
        ]
    sdf = pd.concat(series, ignore_index=True)[["protocol", "flow", "t_s", "mbps"]]
    sdf.to_csv(out / f"{stem}_series.csv", index=False)
    pd.DataFrame(rows).to_csv(out / f"{stem}.csv", index=False)

    titles = {
        p: f"ours: Jain of means {st[p]['jain_of_means']:.4f}, mean CoV {st[p]['mean_cov']:.3f}"
        for p in js.PROTOCOLS
    }
    notes = {
        "TCP": "slides: two TCP flows (figure only);\nexpected fair on average, large variation",
        "DCTCP": "the fix: DCTCP at K = 20,\nexpected smooth and fair",
    }
    files = js.plot_series(
        sdf, ["TCP", "DCTCP"], titles, notes, out, stem,
        f"Time (s) (flow 2 joins at {s['join_s']:g} s; measured from {s['measure_from_s']:g} s)",
    )
    metrics = {
        "window_s": [s["measure_from_s"], s["duration_s"]],
        "stats": st,
        "timeouts": timeouts,
        "files": [f"{stem}.csv", f"{stem}_series.csv", *files],
    }
    return {"claims": claims(st), "metrics": c.jsonable(metrics)}
