"""Judd (Morgan Stanley) slides, "Receive Buffer Tuning Off: TCP": TCP with Linux's
receive-buffer auto-tuning (the default) against a small fixed receive buffer, side by side.

Paper setup: the slide is a figure only (two images, no numbers); the Conclusion lists
"Receive buffer tuning" among TCP's datacenter problems (an assumption: auto-tuning lets the
advertised window grow far past the path's BDP, so TCP fills the switch queue; a small fixed buffer caps each flow's in-flight data and
so its share of the queue). ICTCP §II-B / Fig. 4 makes the same point for incast: "a small
static TCP receive buffer may throttle TCP throughput and thus prevent TCP incast congestion
collapse", and warns that a static buffer "cannot work for a changing number of connections".

Our setup: the Judd testbed (``testbeds.fanin``; the testbed's docstring gives each choice):
10 Gbps links of 5 µs, a 5.5 MB static port buffer, drop-tail, TCP = CUBIC, Linux hosts (RTO_min
200 ms, IW 10, delayed ACK 2 / 40 ms). Two host configurations, everything else equal:
- "tuning on": Linux's default (the testbed's Linux stack, ``rcv_autotune``): every receive
  buffer starts at 43,690 B and, once per receiver-measured RTT, grows to 2 × the bytes read in that
  RTT + 16 MSS (more while the rate grows), up to 3 MiB (the window of ``tcp_rmem[2]``).
- "tuning off": ``rcv_autotune = False`` and a fixed buffer B for every connection (as
  SO_RCVBUF), chosen from the path (the testbed's link delay and framing; here the Judd
  testbed's): the base RTT of a 1500-B packet and its ACK is 4 × 5 µs
  + serialisation = 22.6 µs, so the pipe holds BDP = 10 Gbps × 22.6 µs = 28.3 KB ≈ 18.4
  packets. B = w segments with w = max(⌈BDP / N⌉, 2): the N = 19 flows together just fill the
  pipe (⌈18.4 / 19⌉ = 1), and at least 2 segments, the delayed-ACK unit (with 1 segment the
  19 packets would exceed the 18.4-packet pipe by 0.6 packet: no margin). So B = 2 × 1460 =
  2920 B, and the standing queue should be N·w − BDP ≈ 38 − 18.4 ≈ 20 packets (≈ 24 µs; the
  queue DCTCP+ keeps with K = 20) instead of the 5.5 MB port.
Three workloads, each run with both configurations where it says so:
1. Long flows (the slides' 19-sender fan-in): hosts 1-19 each send one long-lived flow to host
   0; both configurations. The queue is the receiver's port, sampled every 1 ms; each flow's
   delivered bytes and receive buffer every 1 ms. The window excludes the warm-up, so a second
   "startup" run of each configuration, the same scenario and seed cut at the warm-up and
   measured from t = 0 (flows sampled every 0.2 ms), shows the buffers' growth; its
   trajectory is the long run's (same events: the queue at the seam agrees to the packet).
2. Static-buffer sweep (tuning off only): the same fan-in with N = 1 … 16 senders and the same
   B; hand check: while the pipe is not full, a window of B gives each flow B / RTT with RTT
   = base RTT + one more packet's serialisation (the ACK leaves with the window's second
   segment) + the hosts' mean transmit jitter (the engine's default ``host.tx_jitter_us`` =
   1 µs, uniform: ½ µs at each end) = 22.6 + 1.2 + 1.0 = 24.8 µs, so 2920 B / 24.8 µs =
   0.941 Gbps; the total is min(N × that, ceiling): with this B fewer than 10 flows cannot
   fill the link (ICTCP's objection to a static buffer).
3. Incast (both configurations): host 0 queries hosts 1-100 over persistent connections, each
   answers 64 KB at once, the next query when all are in (barrier; ``queries.query``), as
   judd-impact-of-timeouts (100 × 64 KB = 6.55 MB, 1.19 × the port). With tuning off the same
   B caps the burst at 100 × 2 = 200 packets in flight, ≪ the 3,667-packet port.

Assumptions:
- The slide's scenario is not given; these workloads are an assumption (TCP incast and long
  flows, auto-tuning on vs a fixed small buffer).
- The engine's receive buffer is the advertised window (Linux advertises only part of
  SO_RCVBUF, ``tcp_adv_win_scale``; a Linux host would set about twice B).
- Durations: long flows quick 2 s with 0.5 s warm-up, full 20 s with 2 s (tuning on: the
  slow start overflows the port within 5 ms, flows that lost their tail wait out a 200-ms
  RTO, and the queue is back at the buffer by ≈ 250 ms; the window starts after that);
  sweep 0.1 s (0.02 s warm-up) at quick, 1 s (0.1 s) at full; incast 300 queries at quick,
  2000 at full.
- Throughput = goodput over the window; ceiling = 10 × 1460 / 1538 = 9.493 Gbps. Queue: the
  exact time-weighted occupancy of the receiver's port over the window (mean, p99 from the
  engine's histogram); queueing delay = (bytes + 38 B framing per packet) × 8 / 10 Gbps; RTT
  = the flows' final smoothed RTT. Drops and timeouts are counted over the whole run.
- On another testbed every number of the path follows it: the base RTT, BDP, B, the window's
  RTT (with its hosts' ``tx_jitter_us``), the ceiling and the ideal incast time take its link
  delay, framing and host jitter, and "the port" is its port's buffer
  (``testbeds.port_buffer_bytes``: on a switch that shares its memory, what its dynamic
  threshold lets one busy port hold). The metrics carry them (``path``,
  ``port_buffer_bytes``) to the claims and the plot.
- Checks (thresholds ours):
  (1) tuning on, buffers: the median flow's final buffer ≥ 2 × its fair share of BDP + port
  buffer ((28.3 KB + 5.5 MB) / 19 = 291 KB; the tuning rule gives 2 × the bytes read per RTT,
  i.e. 2 × the window of a flow at its fair share), and the sum of the buffers exceeds BDP +
  port buffer (the windows admit enough to fill the port);
  (2) tuning on, queue: time-mean ≥ 80% of the 5.5 MB port (after a loss CUBIC keeps 0.7 of
  the window, so the queue falls to no lower than ≈ 70% and regrows), with drops and timeouts;
  (3) tuning off: throughput ≥ 98% of the ceiling, the mean queue within ±50% of N·w − BDP
  and ≤ 1/50 of tuning on's (predicted ratio ≥ 0.7 × 3,667 / 19.6 ≈ 130), no drops;
  (4) hand check: for every N whose predicted total is ≤ 90% of the ceiling (pipe not full),
  each flow's goodput within ±5% of B / RTT; for every N with N·B / RTT ≥ 1.2 × the ceiling,
  the total ≥ 98% of it (the RTT is a 2-segment window's cycle, B on the Judd testbed; on a
  longer path B holds more segments and the cycle is longer than this model: with the DCTCP
  testbed's 25-µs links B = 5 segments and a flow gets 0.451 Gbps, not the 0.557 predicted);
  (5) incast: tuning on, ≥ 1 query times out and the port drops packets; tuning off, no
  query times out and p99 ≤ 1.1 × the ideal 5.52 ms (6.55 MB at the ceiling);
  (6) all queries complete.

Measured (quick; full in brackets): tuning on: the buffers sum past BDP + port buffer at
2.0 ms, final median 3.15 MB (the cap); queue mean 5.11 MB = 93% of the port [5.10 MB, 93%],
4.20 ms of queueing [4.18 ms], 6448 drops and 17 timeouts [7673, 17], 9.50 Gbps, Jain 0.86
[9.49, 0.98]. Tuning off (2920 B): 9.493 Gbps (100% of the ceiling), Jain 1.000, queue mean
18.8 packets (23 µs; predicted 19.6), p99 20, no drops: 181× [181×] less queue. Sweep: 0.933-
0.942 Gbps per flow for N ≤ 8 (B / RTT = 0.941), 9.19 Gbps at N = 10, the ceiling from 12.
Incast: tuning on 10.7% [10.4%] of the queries time out, p99 284.7 ms; tuning off none, every
query 5.55 ms (ideal 5.52), the largest queue 287 KB ≤ 100 × B.

Outputs: rcvbuf_off_summary.csv (long flows, per configuration: throughput, Jain, queue mean /
p99 / max, queueing delay, RTT, receive buffers, drops, timeouts), rcvbuf_off_flows.csv
(config, flow, goodput, final buffer, srtt, timeouts), rcvbuf_off_series.csv (config, run
= startup / long, t_s, aggregate Gbps per 10 ms), rcvbuf_off_queue.csv (config, run, t_s,
packets, bytes), rcvbuf_off_buffers.csv (config, run, flow, t_s, rcv_buffer_bytes; every
sample up to 50 ms, then every 10 ms), rcvbuf_off_sweep.csv (senders, measured and predicted
per-flow and total Gbps, queue), rcvbuf_off_incast.csv (config, query statistics, drops, largest
queue), rcvbuf_off_incast_cdf.csv, rcvbuf_off.png/.svg ((a) aggregate throughput, (b) port queue,
(c) per-flow receive buffers (log time), (d) sweep against min(N·B/RTT, ceiling), (e) incast
completion-time CDFs, (f) mean / p99 queueing delay and RTT).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...results import Results
from ...scenario import resolved
from ..analysis import cdf, goodput_ceiling_bps, jain
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..queries import completion, many_to_one_duration_s, qct_ms, query, query_stats
from ..scenarios import DROP_TAIL, RECEIVER_PORT, port_share_bytes
from ..units import gbps, kb, mbps, ms, us
from .testbeds import HEADER_BYTES, MTU_BYTES, RATE_GBPS, fanin, queue_delay_s

if TYPE_CHECKING:
    import pandas as pd

SENDERS = 19
INCAST_SERVERS = 100
RESPONSE_BYTES = 64 * 1024
MSS = MTU_BYTES - HEADER_BYTES
ACK_BYTES = HEADER_BYTES  # a pure ACK: headers only
MIN_WINDOW_SEGMENTS = 2  # the delayed-ACK unit (the Linux stack's delayed_ack_segments)
QUEUE_SAMPLE_US = 1000.0
FLOW_SAMPLE_US = 1000.0
STARTUP_FLOW_SAMPLE_US = 200.0
# Linux's auto-tuning cap: 3 MiB of window (half of tcp_rmem[2]).
RCV_AUTOTUNE_MAX_BYTES = 3 << 20
SWEEP_SENDERS = (1, 2, 4, 6, 8, 10, 12, 16)
CONFIGS = ("tuning on", "tuning off")

# Claim thresholds (the notes' "Checks").
BUFFER_SHARE_FACTOR = 2.0
ON_QUEUE_FRACTION = 0.80
FILL_FRACTION = 0.98
QUEUE_PREDICTION_TOL = 0.5
QUEUE_REDUCTION = 50.0
HAND_TOL = 0.05
NOT_FULL = 0.90
FULL = 1.2
INCAST_TAIL = 1.1
BUFFER_SERIES_DENSE_S = 0.05
BUFFER_SERIES_SPARSE_S = 0.01

COLORS = {"tuning on": "tab:red", "tuning off": "tab:blue"}


# --- the path, by hand -------------------------------------------------------------------

# The path as this experiment models it (:func:`path_of`): the testbed's link delay and framing,
# and its hosts' transmit jitter (``host.tx_jitter_us``, uniform in [0, jitter] per packet: a
# window's cycle waits on average half of it at the sender and half at the receiver).
Path = Mapping[str, Any]


def path_of(tb: Testbed) -> dict[str, Any]:
    """``delay_us`` and ``framing_bytes`` of ``tb``'s links, ``tx_jitter_us`` of its hosts."""
    return {"delay_us": tb.link["delay_us"], "framing_bytes": tb.link["framing_bytes"], "tx_jitter_us": tb.host["tx_jitter_us"]}


def wire_s(nbytes: int, path: Path, rate_gbps: float = RATE_GBPS) -> float:
    """Serialisation time of an IP packet of ``nbytes`` plus the path's framing."""
    return (nbytes + path["framing_bytes"]) * 8 / (rate_gbps * 1e9)


def base_rtt_s(path: Path, rate_gbps: float = RATE_GBPS) -> float:
    """RTT of a full-size segment and its ACK on the idle star: 4 link delays, the segment
    serialised on two links, the ACK on two (22.6 µs on the Judd testbed). ``testbeds.base_rtt_s``
    in this experiment's own arithmetic (it differs in the last bit, and the metrics print it)."""
    return 4 * path["delay_us"] * 1e-6 + 2 * wire_s(MTU_BYTES, path, rate_gbps) + 2 * wire_s(ACK_BYTES, path, rate_gbps)


def bdp_packets(path: Path, rate_gbps: float = RATE_GBPS) -> float:
    """Full-size packets the pipe holds: C × base RTT / wire size of a packet."""
    return rate_gbps * 1e9 * base_rtt_s(path, rate_gbps) / ((MTU_BYTES + path["framing_bytes"]) * 8)


def fixed_window_segments(n: int, bdp: float, min_segments: int = MIN_WINDOW_SEGMENTS) -> int:
    """The fixed buffer, in segments: enough for ``n`` flows together to fill a pipe of
    ``bdp`` packets, and at least the delayed-ACK unit."""
    if n < 1:
        raise ValueError("n must be ≥ 1")
    return max(math.ceil(bdp / n - 1e-9), int(min_segments))


def fixed_buffer_bytes(path: Path, n: int = SENDERS) -> int:
    """B for ``n`` flows on the path: 2 × 1460 = 2920 B for the 19-sender fan-in on the Judd
    testbed."""
    return fixed_window_segments(n, bdp_packets(path)) * MSS


def predicted_queue_packets(n: int, window_segments: float, bdp: float) -> float:
    """Standing queue of ``n`` window-limited flows: what is in flight beyond the pipe."""
    return max(n * window_segments - bdp, 0.0)


def window_rtt_s(path: Path, rate_gbps: float = RATE_GBPS) -> float:
    """The cycle of a 2-segment window: the base RTT plus one more packet's serialisation
    (the ACK leaves when the second segment arrives) plus the hosts' mean transmit jitter
    (half of ``tx_jitter_us`` at the data sender, half at the ACKing receiver): 24.8 µs on the
    Judd testbed."""
    return base_rtt_s(path, rate_gbps) + wire_s(MTU_BYTES, path, rate_gbps) + path["tx_jitter_us"] * 1e-6


def window_limited_bps(buffer_bytes: int, rtt_s: float) -> float:
    """Goodput of a flow whose window is a fixed receive buffer: B / RTT."""
    return buffer_bytes * 8 / rtt_s


def ceiling_bps(path: Path) -> float:
    return goodput_ceiling_bps(RATE_GBPS, path["framing_bytes"])


def predicted_total_bps(n: int, buffer_bytes: int, rtt_s: float, ceiling: float) -> float:
    return min(n * window_limited_bps(buffer_bytes, rtt_s), ceiling)


def ideal_incast_ms(path: Path) -> float:
    return ms(INCAST_SERVERS * RESPONSE_BYTES * 8 / ceiling_bps(path))


# --- scenarios ---------------------------------------------------------------------------


def hosts(config: str, tb: Testbed) -> dict[str, Any]:
    """The ``tcp`` fields of a configuration, over the testbed's stack: tuning off sizes the
    fixed buffer from ``tb``'s path."""
    if config == "tuning on":
        return {"rcv_autotune": True}
    if config == "tuning off":
        return {"rcv_autotune": False, "rcv_buffer_bytes": fixed_buffer_bytes(path_of(tb))}
    raise ValueError(f"config must be one of {CONFIGS}, got {config!r}")


def _slug(config: str) -> str:
    return config.replace(" ", "-")


def long_scenario(config: str, p: Params, tb: Testbed, senders: int = SENDERS, kind: str = "long") -> dict[str, Any]:
    """The fan-in of ``senders`` long flows with ``config``'s hosts. ``kind``: "long" (the
    measurement run), "startup" (the same run's warm-up alone, measured from t = 0 with denser
    flow samples: the buffers' growth) or "sweep" (short, no time series)."""
    dur, warm, q_us, f_us = {
        "long": (p["duration_s"], p["warmup_s"], QUEUE_SAMPLE_US, FLOW_SAMPLE_US),
        "startup": (p["warmup_s"], 0.0, QUEUE_SAMPLE_US, STARTUP_FLOW_SAMPLE_US),
        "sweep": (p["sweep_duration_s"], p["sweep_warmup_s"], 0.0, 0.0),
    }[kind]
    return fanin(
        f"judd-rcvbuf-off-{_slug(config)}-{senders}-{kind}",
        tb,
        senders=senders,
        cc=None,
        aqm=dict(DROP_TAIL),
        duration_s=dur,
        warmup_s=warm,
        tcp=hosts(config, tb),
        queue_sample_us=q_us,
        flow_sample_us=f_us,
    )


def incast_scenario(config: str, p: Params, tb: Testbed) -> dict[str, Any]:
    rounds = p["rounds"]
    # Built with a placeholder horizon first: the real one depends on the hosts' RTO_min, read
    # off the resolved stack (a testbed of hosts alone gives it only through its profile).
    sc = fanin(
        f"judd-rcvbuf-off-incast-{_slug(config)}",
        tb,
        senders=INCAST_SERVERS,
        cc=None,
        aqm=dict(DROP_TAIL),
        duration_s=1.0,
        tcp=hosts(config, tb),
    )
    # A generous bound; the run ends when the last query completes.
    sc["sim"]["duration_s"] = many_to_one_duration_s(rounds, resolved(sc)["tcp"]["rto_min_ms"], INCAST_SERVERS * RESPONSE_BYTES, RATE_GBPS)
    sc["flows"] = []
    sc["queries"] = [query(0, range(1, INCAST_SERVERS + 1), RESPONSE_BYTES, rounds)]
    sc["sim"]["stop_when_queries_done"] = True
    return sc


def scenarios(p: Params, tb: Testbed) -> dict[tuple[str, str, int], dict[str, Any]]:
    """``(workload, config, senders)`` → scenario: "long" and "startup" (both configurations,
    19 senders), "sweep" (tuning off, N of :data:`SWEEP_SENDERS`), "incast" (both)."""
    plan = {(kind, cf, SENDERS): long_scenario(cf, p, tb, SENDERS, kind) for kind in ("long", "startup") for cf in CONFIGS}
    plan |= {("sweep", "tuning off", n): long_scenario("tuning off", p, tb, n, "sweep") for n in SWEEP_SENDERS}
    plan |= {("incast", cf, INCAST_SERVERS): incast_scenario(cf, p, tb) for cf in CONFIGS}
    return plan


# --- analysis ----------------------------------------------------------------------------


def first_time_at_least(fs: pd.DataFrame, threshold: float) -> float:
    """First sample time at which the flows' receive buffers together hold ≥ ``threshold``
    bytes (NaN if never)."""
    tot = fs.groupby("t_s").rcv_buffer_bytes.sum().sort_index()
    hit = tot[tot >= threshold]
    return float(hit.index[0]) if len(hit) else float("nan")


def summarize_long(res: Results, config: str, path: Path) -> dict[str, Any]:
    """The long-flow run of a configuration on ``path``: throughput, fairness, queue, RTT,
    buffers, losses."""
    fl = res.rows("flows")
    g = np.array([f["goodput_bps"] for f in fl], dtype=float)
    bufs = np.array([f["rcv_buffer_bytes"] for f in fl], dtype=float)
    qs = res.queue_stats(RECEIVER_PORT)
    p = res.port(RECEIVER_PORT)
    srtt = np.array([f["srtt_s"] for f in fl], dtype=float)
    return {
        "config": config,
        "senders": len(fl),
        "total_gbps": gbps(float(g.sum())),
        "per_flow_gbps": gbps(float(g.mean())) if len(g) else float("nan"),
        "jain": jain(g),
        "min_flow_gbps": gbps(float(g.min())) if len(g) else float("nan"),
        "max_flow_gbps": gbps(float(g.max())) if len(g) else float("nan"),
        "queue_mean_packets": qs["mean_packets"],
        "queue_mean_kb": kb(float(p["mean_bytes"])),
        "queue_p99_packets": qs["p99_packets"],
        "queue_max_packets": qs["max_packets"],
        "queue_max_kb": kb(qs["max_bytes"]),
        "queue_delay_ms": ms(queue_delay_s(float(p["mean_bytes"]), qs["mean_packets"], path)),
        "queue_p99_delay_ms": ms(qs["p99_packets"] * wire_s(MTU_BYTES, path)),
        "srtt_mean_ms": ms(float(np.nanmean(srtt))) if len(srtt) else float("nan"),
        "rcv_buffer_median_kb": kb(float(np.median(bufs))) if len(bufs) else float("nan"),
        "rcv_buffer_min_kb": kb(float(bufs.min())) if len(bufs) else float("nan"),
        "rcv_buffer_max_kb": kb(float(bufs.max())) if len(bufs) else float("nan"),
        "rcv_buffer_sum_kb": kb(float(bufs.sum())),
        "drops": qs["drops"],
        "retransmits": res.total("retransmits"),
        "timeouts": res.total("timeouts"),
    }


def sweep_row(n: int, res: Results, buffer_bytes: int, path: Path) -> dict[str, Any]:
    """One N of the static-buffer sweep on ``path``: measured and predicted goodput, queue, RTT."""
    fl = res.rows("flows")
    g = np.array([f["goodput_bps"] for f in fl], dtype=float)
    rtt = window_rtt_s(path)
    ceil = ceiling_bps(path)
    return {
        "senders": int(n),
        "buffer_bytes": int(buffer_bytes),
        "per_flow_gbps": gbps(float(g.mean())),
        "min_flow_gbps": gbps(float(g.min())),
        "max_flow_gbps": gbps(float(g.max())),
        "total_gbps": gbps(float(g.sum())),
        "predicted_per_flow_gbps": gbps(window_limited_bps(buffer_bytes, rtt)),
        "predicted_total_gbps": gbps(predicted_total_bps(n, buffer_bytes, rtt, ceil)),
        "ceiling_gbps": gbps(ceil),
        "queue_mean_packets": float(res.port(RECEIVER_PORT)["mean_packets"]),
        "srtt_mean_us": us(float(np.nanmean([f["srtt_s"] for f in fl]))),
    }


def _on_grid(t_s: np.ndarray, step_s: float) -> np.ndarray:
    """Which sample times are whole multiples of ``step_s`` (to the microsecond)."""
    t_us = np.rint(np.asarray(t_s, dtype=float) * 1e6).astype(np.int64)
    return t_us % int(round(step_s * 1e6)) == 0


def aggregate_series(fs: pd.DataFrame, bin_s: float = 0.01) -> pd.DataFrame:
    """Aggregate goodput (Gbps) per ``bin_s`` from the flows' delivered bytes (each row: the
    bin ending at ``t_s``)."""
    import pandas as pd

    tot = fs.groupby("t_s").delivered_bytes.sum().sort_index()
    s = tot[_on_grid(tot.index.to_numpy(), bin_s)]
    t = s.index.to_numpy()
    v = s.to_numpy(dtype=float)
    return pd.DataFrame({"t_s": t[1:], "gbps": gbps(np.diff(v) * 8 / np.diff(t))})


def thin_buffers(fs: pd.DataFrame) -> pd.DataFrame:
    """Buffer samples to keep: every sample up to :data:`BUFFER_SERIES_DENSE_S`, then one per
    :data:`BUFFER_SERIES_SPARSE_S`."""
    t = fs.t_s.to_numpy()
    keep = (t <= BUFFER_SERIES_DENSE_S + 1e-9) | _on_grid(t, BUFFER_SERIES_SPARSE_S)
    return fs[keep][["flow", "t_s", "rcv_buffer_bytes"]]


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    p = runs.params
    path = path_of(runs.testbed)
    buf = fixed_buffer_bytes(path)
    bdp = bdp_packets(path)
    port_bytes = port_share_bytes(runs.testbed.buffer(RATE_GBPS))
    summ: dict[str, dict[str, Any]] = {}
    sweep: list[dict[str, Any]] = []
    inc: dict[str, dict[str, Any]] = {}
    flow_rows, series, queue, buffers, cdf_rows = [], [], [], [], []
    t_fill = float("nan")
    for (work, cf, n), res in runs.items():
        if work in ("long", "startup"):
            fs = res.flow_samples
            series.append(aggregate_series(fs).assign(config=cf, run=work))
            buffers.append(thin_buffers(fs).assign(config=cf, run=work))
            t, pk, by = res.queue_series(RECEIVER_PORT)
            queue.append(pd.DataFrame({"config": cf, "run": work, "t_s": t, "packets": pk, "bytes": by}))
        if work == "startup" and cf == "tuning on":
            t_fill = first_time_at_least(fs, bdp * (MTU_BYTES + path["framing_bytes"]) + port_bytes)
        if work == "long":
            summ[cf] = summarize_long(res, cf, path)
            flow_rows += [
                {
                    "config": cf,
                    "flow": i,
                    "src": int(f["src"]),
                    "goodput_mbps": mbps(f["goodput_bps"]),
                    "rcv_buffer_bytes": int(f["rcv_buffer_bytes"]),
                    "srtt_ms": ms(f["srtt_s"]),
                    "retransmits": int(f["retransmits"]),
                    "timeouts": int(f["timeouts"]),
                }
                for i, f in enumerate(res.rows("flows"))
            ]
        elif work == "sweep":
            sweep.append(sweep_row(n, res, buf, path))
        elif work == "incast":
            st = query_stats(res)
            port = res.port(RECEIVER_PORT)
            st["drops"] = int(port["drops_buffer"]) + int(port["drops_aqm"])
            st["max_queue_packets"] = int(port["max_packets"])
            st["max_queue_kb"] = kb(int(port["max_bytes"]))
            inc[cf] = st
            x, y = cdf(qct_ms(res))
            cdf_rows += [{"config": cf, "qct_ms": a, "cdf": b} for a, b in zip(x, y)]

    # The 19-sender long run with tuning off ends the sweep (the claims' hand check leaves it out).
    sweep_all = sweep + [sweep_row(SENDERS, runs[("long", "tuning off", SENDERS)], buf, path)]
    return Metrics(
        values={
            "duration_s": p["duration_s"],
            "warmup_s": p["warmup_s"],
            "senders": SENDERS,
            "path": path,
            "port_buffer_bytes": port_bytes,
            "base_rtt_us": us(base_rtt_s(path)),
            "bdp_packets": bdp,
            "fixed_buffer_bytes": buf,
            "predicted_queue_packets": predicted_queue_packets(SENDERS, buf / MSS, bdp),
            "window_rtt_us": us(window_rtt_s(path)),
            "predicted_per_flow_gbps": gbps(window_limited_bps(buf, window_rtt_s(path))),
            "ceiling_gbps": gbps(ceiling_bps(path)),
            "buffers_fill_port_at_s": t_fill,
            "long": summ,
            "sweep": sweep_all,
            "incast": inc,
            "incast_ideal_ms": ideal_incast_ms(path),
        },
        tables={
            "rcvbuf_off_summary": pd.DataFrame([{"workload": "long", **v} for v in summ.values()]),
            "rcvbuf_off_flows": pd.DataFrame(flow_rows),
            "rcvbuf_off_series": pd.concat(series, ignore_index=True)[["config", "run", "t_s", "gbps"]],
            "rcvbuf_off_queue": pd.concat(queue, ignore_index=True),
            "rcvbuf_off_buffers": pd.concat(buffers, ignore_index=True)[["config", "run", "flow", "t_s", "rcv_buffer_bytes"]],
            "rcvbuf_off_sweep": pd.DataFrame(sweep_all),
            "rcvbuf_off_incast": pd.DataFrame([{"config": k, **v} for k, v in inc.items()]),
            "rcvbuf_off_incast_cdf": pd.DataFrame(cdf_rows),
        },
    )


# --- claims ------------------------------------------------------------------------------


def _bdp_bytes(m: Metrics) -> float:
    return m["bdp_packets"] * (MTU_BYTES + m["path"]["framing_bytes"])


def _share_kb(m: Metrics) -> float:
    """A long flow's fair share of BDP + port buffer, KB."""
    return kb((_bdp_bytes(m) + m["port_buffer_bytes"]) / int(m["long"]["tuning on"]["senders"]))


def _window_segments(m: Metrics) -> float:
    return m["fixed_buffer_bytes"] / MSS


def _buffers_grow(m: Metrics) -> tuple[bool, str]:
    on, t_fill_s, port_bytes = m["long"]["tuning on"], m["buffers_fill_port_at_s"], m["port_buffer_bytes"]
    bdp_bytes, share_kb = _bdp_bytes(m), _share_kb(m)
    bdp_share_kb = kb(bdp_bytes / int(on["senders"]))
    measured = (
        f"final buffers median {kb(on['rcv_buffer_median_kb']):.2f} MB "
        f"({on['rcv_buffer_median_kb'] / share_kb:.1f} × the fair share, "
        f"{on['rcv_buffer_median_kb'] / bdp_share_kb:.0f} × the {bdp_share_kb:.1f}-KB BDP "
        f"share), min {kb(on['rcv_buffer_min_kb']):.2f} MB, max "
        f"{kb(on['rcv_buffer_max_kb']):.2f} MB; sum {kb(on['rcv_buffer_sum_kb']):.1f} MB, "
        f"first ≥ BDP + port ({(bdp_bytes + port_bytes) / 1e6:.2f} MB) at "
        f"{ms(t_fill_s):.1f} ms"
    )
    holds = (
        on["rcv_buffer_median_kb"] >= BUFFER_SHARE_FACTOR * share_kb
        and on["rcv_buffer_sum_kb"] * 1e3 >= bdp_bytes + port_bytes
        and math.isfinite(t_fill_s)
    )
    return holds, measured


def _fills_port(m: Metrics) -> tuple[bool, str]:
    on = m["long"]["tuning on"]
    on_q_frac = on["queue_mean_kb"] * 1e3 / m["port_buffer_bytes"]
    measured = (
        f"mean {kb(on['queue_mean_kb']):.2f} MB ({on_q_frac:.0%}; "
        f"{on['queue_mean_packets']:.0f} packets), p99 {on['queue_p99_packets']} packets; "
        f"queueing delay {on['queue_delay_ms']:.2f} ms, flows' RTT "
        f"{on['srtt_mean_ms']:.2f} ms; "
        f"{on['drops']} drops, {on['timeouts']} timeouts; {on['total_gbps']:.3f} Gbps, "
        f"Jain {on['jain']:.3f}"
    )
    return on_q_frac >= ON_QUEUE_FRACTION and on["drops"] > 0 and on["timeouts"] > 0, measured


def _off_fills_link_small_queue(m: Metrics) -> tuple[bool, str]:
    on, off = m["long"]["tuning on"], m["long"]["tuning off"]
    ceil, q_pred = m["ceiling_gbps"], m["predicted_queue_packets"]
    ratio = on["queue_mean_packets"] / max(off["queue_mean_packets"], 1e-9)
    measured = (
        f"{off['total_gbps']:.3f} Gbps ({off['total_gbps'] / ceil:.1%}), Jain "
        f"{off['jain']:.3f}; mean queue {off['queue_mean_packets']:.1f} packets "
        f"({off['queue_delay_ms'] * 1e3:.1f} µs), p99 {off['queue_p99_packets']}, RTT "
        f"{off['srtt_mean_ms'] * 1e3:.1f} µs; {ratio:.0f}× below tuning on; "
        f"{off['drops']} drops, {off['timeouts']} timeouts"
    )
    holds = (
        off["total_gbps"] >= FILL_FRACTION * ceil
        and abs(off["queue_mean_packets"] / q_pred - 1) <= QUEUE_PREDICTION_TOL
        and ratio >= QUEUE_REDUCTION
        and off["drops"] == 0
    )
    return holds, measured


def _hand_check(m: Metrics) -> tuple[bool, str]:
    sweep = m["sweep"][:-1]  # the sweep's own runs, without the 19-sender long run
    ceil, pred = m["ceiling_gbps"], m["predicted_per_flow_gbps"]
    not_full = [r for r in sweep if r["predicted_total_gbps"] <= NOT_FULL * ceil]
    full = [r for r in sweep if r["senders"] * pred >= FULL * ceil]
    hand_ok = bool(not_full) and all(abs(r["per_flow_gbps"] / pred - 1) <= HAND_TOL for r in not_full)
    full_ok = bool(full) and all(r["total_gbps"] >= FILL_FRACTION * ceil for r in full)
    measured = "; ".join(f"N={r['senders']}: {r['per_flow_gbps']:.3f} Gbps/flow, total {r['total_gbps']:.2f}" for r in sweep)
    return hand_ok and full_ok, measured


def _incast(m: Metrics) -> tuple[bool, str]:
    ion, ioff = m["incast"]["tuning on"], m["incast"]["tuning off"]
    measured = (
        f"on: {100 * ion['timeout_fraction']:.1f}% of {ion['completed']} queries time out, "
        f"p99 {ion['p99_ms']:.1f} ms, {ion['drops']} drops, largest queue "
        f"{kb(ion.get('max_queue_kb', float('nan'))):.2f} MB; off: {ioff['timeouts']} "
        f"timeouts, p99 {ioff['p99_ms']:.2f} ms, {ioff['drops']} drops, largest queue "
        f"{ioff.get('max_queue_kb', float('nan')):.0f} KB (≤ {INCAST_SERVERS} × B = "
        f"{kb(INCAST_SERVERS * m['fixed_buffer_bytes']):.0f} KB)"
    )
    holds = ion["timeouts"] >= 1 and ion["drops"] > 0 and ioff["timeouts"] == 0 and ioff["p99_ms"] <= INCAST_TAIL * m["incast_ideal_ms"]
    return holds, measured


def _all_completed(m: Metrics) -> tuple[bool, str]:
    ion, ioff = m["incast"]["tuning on"], m["incast"]["tuning off"]
    return completion(int(ion["completed"]) + int(ioff["completed"]), int(ion["issued"]) + int(ioff["issued"]))


CLAIMS = (
    Claim(
        id="tuning-on-buffers-outgrow-the-path",
        kind="derived",
        text=lambda m: (
            f"Tuning on: the receive buffers grow from 43 KB far past the path's needs — the "
            f"median flow's final buffer ≥ {BUFFER_SHARE_FACTOR:g} × its fair share of BDP + "
            f"port buffer ({_share_kb(m):.0f} KB), and together they exceed BDP + port buffer"
        ),
        paper=(
            "Conclusion: 'Receive buffer tuning' is a TCP datacenter problem (an assumption: auto-tuned windows grow far beyond the BDP)"
        ),
        quote="TCP has significant performance problems in datacenters ... Receive buffer tuning",
        section="slide 'Conclusion'",
        check=_buffers_grow,
    ),
    Claim(
        id="tuning-on-fills-the-port",
        kind="paper",
        text=lambda m: (
            f"Tuning on: TCP fills the port — time-mean queue ≥ {ON_QUEUE_FRACTION:.0%} of the "
            f"{m['port_buffer_bytes'] / 1e6:.1f} MB buffer, with drops and timeouts"
        ),
        paper="'By design, TCP fills queues … microseconds → milliseconds' (slide 'Latency & Application Coupling')",
        quote="By design, TCP fills queues",
        section="slide 'Latency & Application Coupling'",
        check=_fills_port,
    ),
    Claim(
        id="tuning-off-fills-the-link-with-a-small-queue",
        kind="derived",
        text=lambda m: (
            f"Tuning off (fixed {m['fixed_buffer_bytes']} B = {_window_segments(m):g} MSS): throughput ≥ "
            f"{FILL_FRACTION:.0%} of the {m['ceiling_gbps']:.3f} Gbps ceiling while the mean queue is N·w − BDP = "
            f"{m['predicted_queue_packets']:.1f} packets ±{QUEUE_PREDICTION_TOL:.0%} and ≤ 1/{QUEUE_REDUCTION:g} of "
            "tuning on's, with no drops"
        ),
        paper="slide title: 'Receive Buffer Tuning Off: TCP' (figure only)",
        quote="Receive Buffer Tuning Off: TCP",
        section="slide 'Receive Buffer Tuning Off: TCP'",
        check=_off_fills_link_small_queue,
    ),
    Claim(
        id="fixed-buffer-rate-is-b-over-rtt",
        kind="check",
        text=lambda m: (
            f"Hand check: a fixed buffer B gives each flow B / RTT = {m['fixed_buffer_bytes']} B / "
            f"{m['window_rtt_us']:.1f} µs = {m['predicted_per_flow_gbps']:.3f} Gbps (±{HAND_TOL:.0%}) while the "
            f"pipe is not full (N·B/RTT ≤ {NOT_FULL:.0%} of the ceiling), and the total ≥ "
            f"{FILL_FRACTION:.0%} of the ceiling once N·B/RTT ≥ {FULL:g} × it"
        ),
        paper="ICTCP §II-B: a small static buffer throttles TCP; it cannot suit a changing number of connections",
        check=_hand_check,
    ),
    Claim(
        id="incast-times-out-only-with-tuning-on",
        kind="derived",
        text=lambda m: (
            f"Incast ({INCAST_SERVERS} × {RESPONSE_BYTES // 1024} KB): with tuning on queries "
            f"time out and the port overflows; with tuning off none does and p99 ≤ "
            f"{INCAST_TAIL:g} × the ideal {m['incast_ideal_ms']:.2f} ms"
        ),
        paper="a problem the slides name; a small static receive buffer prevents incast collapse (ICTCP paper §II-B, Fig. 4)",
        quote="Receive buffer tuning",
        section="slide 'Conclusion'",
        check=_incast,
    ),
    Claim(
        id="all-queries-complete",
        kind="check",
        text="All queries complete within the simulated horizon",
        paper=lambda m: f"{int(m['incast']['tuning on']['issued'])} queries per configuration",
        check=_all_completed,
    ),
)


# --- plot --------------------------------------------------------------------------------


def plot(m: Metrics) -> Any:
    summ, inc, buf, path, port_bytes = m["long"], m["incast"], m["fixed_buffer_bytes"], m["path"], m["port_buffer_bytes"]
    ser, qdf, bdf, wdf = (m.tables[f"rcvbuf_off_{k}"] for k in ("series", "queue", "buffers", "sweep"))
    fig, axes = figure(2, 3, size=(15.0, 8.0))
    ceil = m["ceiling_gbps"]
    bdp = m["bdp_packets"]

    ax = axes[0][0]
    for cf in CONFIGS:
        d = ser[ser.config == cf].sort_values("t_s")
        ax.plot(d.t_s, d.gbps, lw=0.8, color=COLORS[cf], label=f"{cf}: {summ[cf]['total_gbps']:.2f} Gbps, Jain {summ[cf]['jain']:.2f}")
    ax.axhline(ceil, color="k", ls=":", lw=0.8, label=f"ceiling {ceil:.2f}")
    ax.set_ylim(0, 15)
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("Aggregate throughput (Gbps, 10-ms bins)")
    note(ax, "above line rate: data held behind a hole,\ndelivered when the retransmission lands", loc="upper right")
    ax.set_title(f"(a) {SENDERS} long CUBIC flows: throughput", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")

    ax = axes[0][1]
    for cf in CONFIGS:
        d = qdf[qdf.config == cf].sort_values("t_s")
        st = summ[cf]
        ax.plot(
            d.t_s,
            np.maximum(kb(d.bytes), 0.1),
            lw=0.7,
            color=COLORS[cf],
            label=f"{cf}: mean {st['queue_mean_kb']:.0f} KB = {st['queue_delay_ms']:.3f} ms",
        )
    ax.axhline(kb(port_bytes), color="k", ls="--", lw=0.8, label=f"port buffer {port_bytes / 1e6:.1f} MB")
    q_pred = kb(predicted_queue_packets(SENDERS, buf / MSS, bdp) * MTU_BYTES)
    ax.axhline(q_pred, color="gray", ls=":", lw=0.8, label=f"N·B − BDP ≈ {q_pred:.0f} KB")
    ax.set_yscale("log")
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("Receiver port queue (KB, 1-ms samples)")
    ax.set_title("(b) queue and queueing delay", fontsize=9)
    ax.legend(fontsize=7, loc="center right")

    ax = axes[0][2]
    for cf in CONFIGS:
        d = bdf[(bdf.config == cf) & (bdf.t_s > 0)]
        for k, (_, g) in enumerate(d.groupby("flow")):
            g = g.sort_values("t_s")
            ax.plot(ms(g.t_s), kb(g.rcv_buffer_bytes), lw=0.6, color=COLORS[cf], alpha=0.7, label=cf if k == 0 else None)
    bdp_b = bdp * (MTU_BYTES + path["framing_bytes"])
    ax.axhline(kb((bdp_b + port_bytes) / SENDERS), color="k", ls="--", lw=0.8, label="(BDP + port) / N")
    ax.axhline(kb(bdp_b / SENDERS), color="gray", ls=":", lw=0.8, label="BDP / N")
    ax.axhline(RCV_AUTOTUNE_MAX_BYTES / 1e3, color="tab:red", ls=":", lw=0.8, label="cap 3 MiB")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("Time (ms)")
    ax.set_ylabel("Receive buffer per flow (KB)")
    ax.set_title("(c) receive buffers: auto-tuned vs fixed", fontsize=9)
    ax.legend(fontsize=7, loc="center right")
    note(ax, "slides: figure only", loc="upper left")

    ax = axes[1][0]
    ns = wdf.senders.to_numpy()
    grid = np.arange(1, max(ns) + 1)
    rtt = window_rtt_s(path)
    ax.plot(
        grid,
        [gbps(predicted_total_bps(int(n), buf, rtt, ceiling_bps(path))) for n in grid],
        ":",
        color="gray",
        label=f"min(N·B/RTT, ceiling), RTT {us(rtt):.1f} µs",
    )
    ax.plot(ns, wdf.total_gbps, "o-", color=COLORS["tuning off"], label=f"tuning off, B = {buf} B")
    ax.plot([SENDERS], [summ["tuning on"]["total_gbps"]], "s", color=COLORS["tuning on"], label="tuning on, 19 flows")
    ax.set_xlabel("Senders N")
    ax.set_ylabel("Aggregate throughput (Gbps)")
    ax.set_ylim(0, 11)
    ax.set_title("(d) a static buffer caps each flow at B / RTT", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")

    ax = axes[1][1]
    qct = m.tables["rcvbuf_off_incast_cdf"]
    for cf in CONFIGS:
        d = qct[qct.config == cf]
        st = inc[cf]
        ax.step(
            d.qct_ms,
            d.cdf,
            where="post",
            color=COLORS[cf],
            label=f"{cf}: {100 * st['timeout_fraction']:.0f}% time out, p99 {st['p99_ms']:.1f} ms",
        )
    ax.axvline(m["incast_ideal_ms"], color="k", ls="--", lw=0.8, label="ideal")
    ax.set_xscale("log")
    ax.set_xlabel("Query completion time (ms)")
    ax.set_ylabel("CDF of queries")
    ax.set_ylim(0, 1.02)
    ax.set_title(f"(e) incast {INCAST_SERVERS} × {RESPONSE_BYTES // 1024} KB", fontsize=9)
    ax.legend(fontsize=7, loc="center right")

    ax = axes[1][2]
    labels = ["queue mean", "queue p99", "flows' RTT"]
    x = np.arange(len(labels))
    for k, cf in enumerate(CONFIGS):
        st = summ[cf]
        v = [st["queue_delay_ms"], st["queue_p99_delay_ms"], st["srtt_mean_ms"]]
        ax.bar(x + (k - 0.5) * 0.4, np.maximum(v, 1e-4), width=0.4, color=COLORS[cf], label=cf)
        for xi, vi in zip(x + (k - 0.5) * 0.4, v):
            ax.text(xi, max(vi, 1e-4) * 1.15, f"{vi * 1e3:.0f} µs" if vi < 1 else f"{vi:.2f} ms", ha="center", fontsize=7)
    ax.set_xticks(x, labels)
    ax.set_yscale("log")
    ax.set_ylabel("ms")
    ax.set_title(f"(f) latency, {SENDERS} long flows", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    return fig


EXPERIMENT = Experiment(
    id="judd-rcvbuf-off",
    paper="judd",
    figure="slides",
    title="receive buffer tuning off — TCP with Linux auto-tuning vs a small fixed receive buffer",
    description=(
        "CUBIC into a 5.5 MB 10 Gbps port, receive-buffer auto-tuning on (Linux default) vs off with a 2-MSS fixed buffer: 19 long "
        "flows, a static-buffer sweep and a 100 × 64 KB incast."
    ),
    testbed="judd_testbed",
    scales={
        "quick": {"duration_s": 2.0, "warmup_s": 0.5, "sweep_duration_s": 0.1, "sweep_warmup_s": 0.02, "rounds": 300},
        "full": {"duration_s": 20.0, "warmup_s": 2.0, "sweep_duration_s": 1.0, "sweep_warmup_s": 0.1, "rounds": 2000},
    },
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"rcvbuf_off": plot},
    notes=__doc__ or "",
)
