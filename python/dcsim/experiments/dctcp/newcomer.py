"""DCTCP paper (Alizadeh et al., SIGCOMM 2010), not a figure of its own: how fast a short
message gets its share of a receiver's link beside long flows.

Paper setup: none; the paper runs no such experiment. What it says that this one isolates:
§3.5 ("Convergence and Synchronization"): DCTCP "trades off convergence time; the time required
for a new flow to grab its share of the bandwidth from an existing flow with a large window
size", "on the order of 20-30ms at 1Gbps ... a factor of 2-3 more than TCP"; §4.1: "As DCTCP
flows come and go, they quickly converge to their fair share"; §3.2 ("Queue buildup"): marking
at K "minimizes the impact of long flows on the completion time of small flows"; and §4.3 on
the 10x scaled benchmark (Fig. 24): the 95th percentile of the short messages (100 KB-1 MB)
"improves by 14ms" over TCP's, and "short message completion time for DCTCP is essentially
unchanged from baseline".

Published numbers: none for this setting. The claims are ours, derived from the statements
above, each with its bound written before the runs.

Our setup: a star on the testbed's switch (the Triumph preset, its dynamic buffer), 25 µs per
link (100 µs base RTT), 38 B framing, the testbed's hosts and stack. Host 0 is the receiver R;
the long flows start at t = 0 (within 1 ms of it); the short message (100 KB, 500 KB or 1 MB) is
one flow from host B to R, its handshake included, started at t0 after the long flows have
settled. Three cases:
1. `nic-limited`: one long flow from a 1 Gbps host A. A's NIC is as fast as R's port, so the
   long flow is limited by its own NIC: its window waits partly in its NIC queue and the switch
   port to R sees little queue and few marks.
2. `two-long`: two long flows from two 1 Gbps hosts. R's switch port is the bottleneck and
   DCTCP's flows are in its steady state (queue near K).
3. `10g-sender`: one long flow from a host on a 10 Gbps port (the benchmark rack's stand-in
   host, §4.3, is one such): R's switch port is the bottleneck from the start.
TCP is the testbed's (NewReno with SACK) over drop-tail; DCTCP marks at K = 20 packets (the
testbed's 1 Gbps value, §3.5) on every port; R's 1 Gbps port is the only one data queues at,
the 10 Gbps port of case 3 carries only ACKs. RTO_min 10 ms with the 10 ms tick, as in every
experiment from §4.2.1 on and in the benchmark (§4.3).

Measured per (protocol, case, size), over the repetitions: the message's completion time (SYN
to last byte at R; mean and max), the time it takes alone on the idle network (the engine's
`ideal_fct_s`), the fair-share ideal and the ratio of the mean to it, and at the moment the
message starts (the last 100 µs sample before it): the long flows' cwnd and DCTCP α, and where
their bytes wait: the long senders' NIC queues (summed) against R's switch port.

The fair-share ideal (`fair_share_ms`): the message's bytes at 1/n of R's goodput, where n is
the number of flows sharing R's port with the message counted in (n = 2 in cases 1 and 3,
n = 3 in case 2) and R's goodput is its line rate times MSS/(MSS + 40 B headers + 38 B
framing), 0.949 Gbps. It leaves out the handshake and slow start, so a message alone takes
longer than its ideal at n = 1.

The counter-run (table `newcomer_nic_backlog`, not a claim): case 1 at 500 KB with the hosts'
per-connection NIC backlog limit (`host.queue_bytes_per_conn`) at 16 KB, 128 KB and unlimited
(0), beside the testbed's own value (its rows are the main runs), both protocols, the same
repetitions. It names what holds the long flow's window: its own NIC queue.

Assumptions:
- The long flows settle by t = 0.2 s (TCP's slow-start losses are repaired by then at
  RTO_min 10 ms; DCTCP's queue is near K from tens of ms); the messages start at
  t0 = 0.2 s + (i/reps)·20 ms for repetition i, with seed i + 1 (transmit jitter, the long
  flows' start jitter), so the repetitions see different phases of the long flows.
  A NIC-limited long flow (case 1) has no steady window: nothing caps its cwnd (the stack
  neither validates nor clamps it) and it grows while the flow runs, so case 1 depends on
  t0; its value at t0 is reported.
- Repetitions: smoke 2, quick 8, full 30. Each run ends 0.5 s after the message starts
  (three times longer, up to twice, for a message unfinished by then).
- "within 2× its fair-share time" and "not several times slower": the mean over the
  repetitions against the bounds; several times is read as more than 3×, the factor §3.5
  allows DCTCP's convergence over TCP's ("2-3").

Known deviation (traced), `nic-limited-not-several-times-tcp`: beside a NIC-limited long flow
DCTCP's 500 KB message takes 66.3 ms (quick, mean of 8; max 67.8), 6.9× TCP's 9.5 ms and 7.9×
its fair share, and 1 MB 76.8 ms, 5.0× TCP's 15.4 ms; 100 KB (4.3 ms, 1.7×) is within the
bound. At the message's start the long flow has 132 KB in its own NIC queue (the testbed's
128 KB backlog limit) and R's port 1.5 KB (one packet); its α is 0.000 and its cwnd 24.6 MB:
nothing caps a window that never limits the flow (the stack neither validates nor clamps
cwnd). Traced in one run (repetition 0): once the message starts, R's port holds 78-127
packets, far above K, and both flows are marked, but the long flow's NIC sends at line rate
until DCTCP's cuts (one a window, by α/2, with α rising from 0 at g = 1/16) bring its cwnd
under what it has in flight: 23.6 MB at the start, 8.5 MB 20 ms later, 0.66 MB at 40 ms,
30 KB at 60 ms. The message, whose α starts at 1, gets 107 KB through in its first 5 ms
(slow start) and then a few KB a ms (181 KB at 40 ms), and finishes once the long flow
yields. TCP's message meets neither loss nor mark in its 9.5 ms and takes half of R's port
by arrival order. The counter-run names the NIC queue: DCTCP's 500 KB takes 43.0, 66.3 and
224.5 ms with a backlog limit of 16 KB, 128 KB and none (TCP's 9.5 ms at each): the long
flow's window spans its NIC queue, so each of its windows, and so each cut and each update
of α, takes longer (its RTT includes that queue: about 1.2 ms with 132 KB queued, 12 ms with
the 1.5 MB a 1000-packet NIC queue holds when nothing limits it).
One-off traces outside these runs, same repetition: with RFC 7661 window validation the
long flow starts from a 292 KB cwnd and the message takes 35.2 ms (3.7× TCP's), with cwnd
clamped at the 16 MB to which the testbed's hosts (docs/validation.md, "How the testbeds were
chosen") may tune a receive window 63.1 ms (57.6 ms clamped at a fixed 8 MB window), and with
no backlog limit and validation 128.4 ms. So the window the long flow holds in its own NIC is
what the message waits for: the part of it the switch never sees, and, without validation, the
excess of cwnd over it that DCTCP's gentle cuts must first remove. How much the paper's hosts
held in their NICs, and whether their windows grew so, the paper does not say.

Outputs: newcomer.csv (protocol, case, size: completion time mean and max, alone, fair-share
ideal, ratio, the long flows' cwnd, α and queues at the message's start), newcomer_runs.csv
(one row per run, counter-runs included), newcomer_nic_backlog.csv (the counter-run),
newcomer.png/.svg.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...results import Results
from ...scenario import long_flows, star
from ..analysis import fmt, goodput_ceiling_bps
from ..declarations import Claim, Experiment, Metrics, Params, Runs, Testbed
from ..plotting import figure, note
from ..scenarios import DROP_TAIL, RECEIVER_PORT, threshold

PROTOCOLS = ("TCP", "DCTCP")
CC: dict[str, str | None] = {"TCP": None, "DCTCP": "dctcp"}
COLORS = {"TCP": "tab:red", "DCTCP": "tab:blue"}
SIZES = (100_000, 500_000, 1_000_000)
K = 20  # DCTCP's marking threshold at 1 Gbps (§3.5, the testbed's convention)
RTO_MIN_MS = 10.0  # §4.2.1 on, and the benchmark (§4.3)
RATE_GBPS = 1.0  # R's port, B's and the 1 Gbps senders' links
FAST_GBPS = 10.0  # the 10 Gbps sender of case 3
START_S = 0.2  # the first repetition's message starts here
SPREAD_S = 0.02  # the repetitions' starts spread over [START_S, START_S + SPREAD_S)
HORIZON_S = 0.5  # a run ends this long after its message starts
SAMPLE_US = 100.0  # flow and queue samples: the state at the message's start
LONG_JITTER_US = 1000.0  # the long flows open within 1 ms of t = 0
COUNTER_SIZE = 500_000  # the counter-run's message, in case 1
NIC_BACKLOGS = (16_384, 131_072, 0)  # host.queue_bytes_per_conn of the counter-run (0: none)

# The bounds of the claims, written before the runs.
FAIR_SHARE_BOUND = 2.0  # "completes within 2x its fair-share time"
SEVERAL_TIMES = 3.0  # "several times slower": more than §3.5's "a factor of 2-3"


@dataclass(frozen=True)
class Case:
    """One setting of the long flows: the line rate of each long sender (hosts 1.. in order)."""

    name: str
    label: str
    long_rates: tuple[float, ...]
    beside: str  # the long flows, as the claims name them
    bottleneck: str  # where the long flows' windows wait
    claim_words: str  # the case in its claims' ids

    @property
    def sharers(self) -> int:
        """Flows sharing R's port once the message has started: the long ones and it."""
        return len(self.long_rates) + 1

    @property
    def long_hosts(self) -> list[int]:
        return list(range(1, len(self.long_rates) + 1))

    @property
    def sender(self) -> int:
        """B, the message's sender: the host after the long senders."""
        return len(self.long_rates) + 1


CASES = (
    Case(
        "nic-limited",
        "1 long flow from a 1 Gbps host (NIC-limited)",
        (RATE_GBPS,),
        "one long flow from a 1 Gbps host",
        "its own NIC the bottleneck",
        "a-nic-limited-flow",
    ),
    Case(
        "two-long",
        "2 long flows from 1 Gbps hosts (switch-limited)",
        (RATE_GBPS, RATE_GBPS),
        "two long flows from 1 Gbps hosts",
        "R's switch port the bottleneck",
        "two-long-flows",
    ),
    Case(
        "10g-sender",
        "1 long flow from a 10 Gbps host",
        (FAST_GBPS,),
        "one long flow from a 10 Gbps host",
        "R's switch port the bottleneck from the start",
        "a-10g-sender",
    ),
)
CASE = {c.name: c for c in CASES}
NIC_LIMITED = CASES[0]
SWITCH_LIMITED = CASES[1:]  # where R's switch port is the bottleneck


def fair_share_ms(size_bytes: int, sharers: int, rate_gbps: float = RATE_GBPS, framing_bytes: int = 38) -> float:
    """The fair-share ideal: ``size_bytes`` at 1/``sharers`` of the receiver's goodput (its
    line rate × MSS / (MSS + 40 B of headers + framing), 1460-B segments), in ms."""
    share_bps = goodput_ceiling_bps(rate_gbps, framing_bytes) / sharers
    return size_bytes * 8 / share_bps * 1e3


def start_s(rep: int, reps: int) -> float:
    """When repetition ``rep`` of ``reps`` starts its message."""
    return START_S + SPREAD_S * rep / reps


def backlog_label(nbytes: int) -> str:
    return "unlimited" if nbytes == 0 else f"{nbytes // 1024} KB"


def newcomer_scenario(
    tb: Testbed, protocol: str, case: Case, size: int, rep: int, reps: int, host: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One run: ``case``'s long flows into host 0 from t = 0, and from host B a message of
    ``size`` bytes at :func:`start_s`; ``host`` sets host-model fields over the testbed's."""
    t0 = start_s(rep, reps)
    hosts = case.sender + 1
    lk = tb.link_at(RATE_GBPS)
    sc = star(
        hosts,
        rate_gbps=float(lk.pop("rate_gbps")),
        delay_us=float(lk.pop("delay_us")),
        framing_bytes=int(lk.pop("framing_bytes")),
    )
    sc["topology"]["link"].update(lk)
    if any(r != RATE_GBPS for r in case.long_rates):
        rates = (RATE_GBPS, *case.long_rates, RATE_GBPS)
        sc["topology"]["host_links"] = [tb.link_at(r) for r in rates]
    own = {**tb.host_at(RATE_GBPS), **(host or {})}
    suffix = "" if own == tb.host_at(RATE_GBPS) else f"-nicq{own['queue_bytes_per_conn']}"
    return {
        "name": f"dctcp-newcomer-{protocol.lower()}-{case.name}-{size // 1000}kb-r{rep}{suffix}",
        "sim": {"seed": rep + 1, "duration_s": t0 + HORIZON_S, "warmup_s": 0.0},
        **sc,
        "switch": {"buffer": tb.buffer(RATE_GBPS), "aqm": DROP_TAIL if protocol == "TCP" else threshold(K)},
        "host": own,
        "tcp": tb.tcp_for(CC[protocol], rto_min_ms=RTO_MIN_MS),
        "flows": [
            *long_flows(case.long_hosts, 0, start_s=0.0, start_jitter_us=LONG_JITTER_US),
            {"src": case.sender, "dst": 0, "bytes": int(size), "start_s": t0},
        ],
        "measure": {
            "queue_sample_us": SAMPLE_US,
            "queue_ports": [RECEIVER_PORT, *(f"h{a}->s0" for a in case.long_hosts)],
            "flow_sample_us": SAMPLE_US,
            "ideal_fct": True,
        },
    }


def scenarios(p: Params, tb: Testbed) -> dict[tuple, dict]:
    """``("main", protocol, case, size, rep)`` → the runs of the three cases;
    ``("nic-backlog", protocol, queue_bytes_per_conn, rep)`` → the counter-run (case 1, 500 KB)
    at each NIC backlog limit but the testbed's own, whose runs are the main ones."""
    reps = int(p["reps"])
    plan: dict[tuple, dict] = {}
    for proto in PROTOCOLS:
        for case in CASES:
            for size in SIZES:
                for rep in range(reps):
                    plan[("main", proto, case.name, size, rep)] = newcomer_scenario(tb, proto, case, size, rep, reps)
    own = int(tb.host["queue_bytes_per_conn"])
    for proto in PROTOCOLS:
        for limit in NIC_BACKLOGS:
            if limit == own:
                continue
            for rep in range(reps):
                plan[("nic-backlog", proto, limit, rep)] = newcomer_scenario(
                    tb, proto, NIC_LIMITED, COUNTER_SIZE, rep, reps, host={"queue_bytes_per_conn": limit}
                )
    return plan


def _message_start(scenario: dict[str, Any]) -> float:
    return float(scenario["flows"][-1]["start_s"])


def longer_if_unfinished(scenario: dict[str, Any], res: Results) -> dict[str, Any] | None:
    """The run again with three times the time after the message's start when the message
    did not finish, else None: the experiment's ``rerun`` rule."""
    short = res.flows[res.flows.size_bytes > 0]
    if len(short) and np.isfinite(short.fct_s.to_numpy(dtype=float)).all():
        return None
    t0 = _message_start(scenario)
    return {**scenario, "sim": dict(scenario["sim"], duration_s=t0 + 3.0 * (scenario["sim"]["duration_s"] - t0))}


def _last_before(t: np.ndarray, values: np.ndarray, t0: float) -> float:
    """The last sampled value at or before ``t0`` (NaN if none)."""
    sel = np.flatnonzero(t <= t0 + 1e-12)
    return float(values[sel[np.argmax(t[sel])]]) if len(sel) else float("nan")


def run_row(res: Results, scenario: dict[str, Any]) -> dict[str, Any]:
    """One run: the message's completion and what the long flows held at its start."""
    t0 = _message_start(scenario)
    flows = res.flows
    short = flows[flows.size_bytes > 0].iloc[0]
    longs = flows[flows.size_bytes == 0]
    fs = res.flow_samples
    cwnds, alphas = [], []
    for fid in longs.id:
        mine = fs[fs.flow == fid]
        t = mine.t_s.to_numpy(dtype=float)
        cwnds.append(_last_before(t, mine.cwnd_bytes.to_numpy(dtype=float), t0))
        alphas.append(_last_before(t, mine.alpha.to_numpy(dtype=float), t0))
    nic_bytes = 0.0
    for src in longs.src:
        t, _, by = res.queue_series(f"h{int(src)}->s0")
        nic_bytes += _last_before(t, by, t0)
    t, pk, by = res.queue_series(RECEIVER_PORT)
    switch_bytes = _last_before(t, by, t0)
    fct = float(short.fct_s)
    return {
        "start_s": t0,
        "fct_ms": fct * 1e3 if math.isfinite(fct) else float("nan"),
        "alone_ms": float(short.ideal_fct_s) * 1e3,
        "retransmits": int(short.retransmits),
        "timeouts": int(short.timeouts),
        "ecn_reductions": int(short.ecn_reductions),
        "long_cwnd_kb": float(np.mean(cwnds)) / 1e3,
        "long_alpha": float(np.mean(alphas)),
        "long_nic_queue_kb": nic_bytes / 1e3,
        "switch_queue_kb": switch_bytes / 1e3,
        "switch_queue_packets": _last_before(t, pk, t0),
    }


def _stats(rows: list[dict[str, Any]], ideal_ms: float) -> dict[str, Any]:
    """Mean and max over the repetitions of one setting; the ratio of the mean to ``ideal_ms``."""
    fct = np.array([r["fct_ms"] for r in rows], dtype=float)
    unfinished = int(np.isnan(fct).sum())
    mean = float(fct.mean()) if not unfinished else float("nan")
    mx = float(fct.max()) if not unfinished else float("nan")

    def avg(col: str) -> float:
        return float(np.mean([r[col] for r in rows]))

    nic, sw = avg("long_nic_queue_kb"), avg("switch_queue_kb")
    return {
        "reps": len(rows),
        "unfinished": unfinished,
        "mean_ms": mean,
        "max_ms": mx,
        "alone_ms": avg("alone_ms"),
        "fair_share_ms": ideal_ms,
        "ratio": mean / ideal_ms,
        "max_ratio": mx / ideal_ms,
        "retransmits": avg("retransmits"),
        "timeouts": avg("timeouts"),
        "ecn_reductions": avg("ecn_reductions"),
        "long_cwnd_kb": avg("long_cwnd_kb"),
        "long_alpha": avg("long_alpha"),
        "long_nic_queue_kb": nic,
        "switch_queue_kb": sw,
        "nic_fraction": nic / (nic + sw) if nic + sw > 0 else float("nan"),
    }


def analyze(runs: Runs) -> Metrics:
    import pandas as pd

    framing = int(runs.testbed.link["framing_bytes"])
    own = int(runs.testbed.host["queue_bytes_per_conn"])
    per_run: list[dict[str, Any]] = []
    by_setting: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    by_limit: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for key in runs:
        row = run_row(runs[key], runs.scenario(key))
        if key[0] == "main":
            _, proto, case, size, rep = key
            limit = own
            by_setting.setdefault((proto, case, size), []).append(row)
            if case == NIC_LIMITED.name and size == COUNTER_SIZE:
                by_limit.setdefault((proto, limit), []).append(row)
        else:
            _, proto, limit, rep = key
            case, size = NIC_LIMITED.name, COUNTER_SIZE
            by_limit.setdefault((proto, limit), []).append(row)
        per_run.append({"run": key[0], "protocol": proto, "case": case, "size_bytes": size, "nic_backlog_bytes": limit, "rep": rep, **row})
    stats: dict[str, dict[str, dict[str, Any]]] = {}
    table = []
    for proto in PROTOCOLS:
        for case in CASES:
            for size in SIZES:
                st = _stats(by_setting[(proto, case.name, size)], fair_share_ms(size, case.sharers, RATE_GBPS, framing))
                stats.setdefault(proto, {}).setdefault(case.name, {})[str(size)] = st
                table.append({"protocol": proto, "case": case.name, "size_bytes": size, **st})
    counter: dict[str, dict[str, Any]] = {}
    ctable = []
    ideal = fair_share_ms(COUNTER_SIZE, NIC_LIMITED.sharers, RATE_GBPS, framing)
    limits = sorted({lim for _, lim in by_limit}, key=lambda b: (b == 0, b))
    for proto in PROTOCOLS:
        for limit in limits:
            st = _stats(by_limit[(proto, limit)], ideal)
            counter.setdefault(proto, {})[backlog_label(limit)] = {"testbed": limit == own, **st}
            ctable.append(
                {"protocol": proto, "nic_backlog": backlog_label(limit), "nic_backlog_bytes": limit, "testbed": limit == own, **st}
            )
    return Metrics(
        values={"reps": runs.params["reps"], "testbed_nic_backlog": backlog_label(own), "stats": stats, "nic_backlog": counter},
        tables={
            "newcomer": pd.DataFrame(table),
            "newcomer_runs": pd.DataFrame(per_run),
            "newcomer_nic_backlog": pd.DataFrame(ctable),
        },
    )


# --- claims -------------------------------------------------------------------------------


def _st(m: Metrics, proto: str, case: str, size: int) -> dict[str, Any]:
    return m["stats"][proto][case][str(size)]


def _converges(case: str) -> Any:
    def check(m: Metrics) -> tuple[bool, str]:
        d = _st(m, "DCTCP", case, 500_000)
        holds = d["ratio"] <= FAIR_SHARE_BOUND
        return holds, (
            f"DCTCP 500 KB mean {fmt(d['mean_ms'], 2)} ms (max {fmt(d['max_ms'], 2)}) = {fmt(d['ratio'], 2)} × "
            f"its fair share {fmt(d['fair_share_ms'], 2)} ms (1/{CASE[case].sharers} of R's goodput)"
        )

    return check


def _no_slower(case: str) -> Any:
    def check(m: Metrics) -> tuple[bool, str]:
        parts, holds = [], True
        for size in SIZES:
            d, t = _st(m, "DCTCP", case, size), _st(m, "TCP", case, size)
            holds &= bool(d["mean_ms"] <= t["mean_ms"])
            parts.append(f"{size // 1000} KB {fmt(d['mean_ms'], 2)} vs {fmt(t['mean_ms'], 2)}")
        return holds, "mean ms, DCTCP vs TCP: " + "; ".join(parts)

    return check


def _nic_limited(m: Metrics) -> tuple[bool, str]:
    parts, holds = [], True
    for size in SIZES:
        d, t = _st(m, "DCTCP", NIC_LIMITED.name, size), _st(m, "TCP", NIC_LIMITED.name, size)
        ratio = d["mean_ms"] / t["mean_ms"]
        holds &= bool(ratio <= SEVERAL_TIMES)
        parts.append(f"{size // 1000} KB {fmt(d['mean_ms'], 2)} vs {fmt(t['mean_ms'], 2)} ({fmt(ratio, 1)}×)")
    d = _st(m, "DCTCP", NIC_LIMITED.name, COUNTER_SIZE)
    where = (
        f"; at the start the long flow's cwnd {fmt(d['long_cwnd_kb'], 0)} KB, its NIC queue "
        f"{fmt(d['long_nic_queue_kb'], 0)} KB, R's port {fmt(d['switch_queue_kb'], 1)} KB"
    )
    return holds, "mean ms, DCTCP vs TCP: " + "; ".join(parts) + where


def _all_complete(m: Metrics) -> tuple[bool, str]:
    settings = [st for proto in m["stats"].values() for case in proto.values() for st in case.values()]
    settings += [st for proto in m["nic_backlog"].values() for st in proto.values()]
    unfinished = sum(st["unfinished"] for st in settings)
    total = sum(st["reps"] for st in settings)
    return unfinished == 0, f"{total - unfinished} of {total} messages completed"


def _bottlenecks(m: Metrics) -> tuple[bool, str]:
    """Case 1's long flow waits mostly in its own NIC, cases 2 and 3's at R's switch port."""
    parts, holds = [], True
    for proto in PROTOCOLS:
        for case in CASES:
            st = m["stats"][proto][case.name]
            nic = float(np.mean([s["long_nic_queue_kb"] for s in st.values()]))
            sw = float(np.mean([s["switch_queue_kb"] for s in st.values()]))
            holds &= bool(nic > sw) if case is NIC_LIMITED else bool(sw > nic)
            parts.append(f"{proto} {case.name} NIC {fmt(nic, 1)} / port {fmt(sw, 1)}")
    return holds, "KB at the message's start, mean: " + "; ".join(parts)


CONVERGE_QUOTE = "As DCTCP flows come and go, they quickly converge to their fair share."
QUEUE_QUOTE = (
    "DCTCP senders start reacting as soon as queue length on an interface exceeds K. This reduces queueing delays on "
    "congested switch ports, which minimizes the impact of long flows on the completion time of small flows."
)
FIG24_QUOTE = (
    "The 95th percentile of completion time for short-message traffic improves by 14ms ... In fact, short message "
    "completion time for DCTCP is essentially unchanged from baseline (Figure 22(b))"
)


def _converges_claim(case: Case) -> Claim:
    return Claim(
        id=f"converges-beside-{case.claim_words}",
        kind="derived",
        text=(
            f"Beside {case.beside} ({case.bottleneck}), DCTCP's 500 KB message completes within {FAIR_SHARE_BOUND:g}× its "
            f"fair-share time (mean over the repetitions; fair share = 1/{case.sharers} of R's goodput)"
        ),
        paper=f"DCTCP flows quickly converge to their fair share (§4.1); ours: ≤ {FAIR_SHARE_BOUND:g} × fair share",
        quote=CONVERGE_QUOTE,
        section="§4.1",
        check=_converges(case.name),
    )


def _no_slower_claim(case: Case) -> Claim:
    return Claim(
        id=f"no-slower-than-tcp-beside-{case.claim_words}",
        kind="derived",
        text=f"Beside {case.beside} ({case.bottleneck}), DCTCP's mean completion time is no longer than TCP's at 100 KB, 500 KB and 1 MB",
        paper="marking at K minimizes the impact of long flows on small flows (§3.2); ours: DCTCP ≤ TCP",
        quote=QUEUE_QUOTE,
        section="§3.2",
        check=_no_slower(case.name),
    )


CLAIMS = (
    *(_converges_claim(c) for c in SWITCH_LIMITED),
    *(_no_slower_claim(c) for c in SWITCH_LIMITED),
    Claim(
        id="nic-limited-not-several-times-tcp",
        kind="derived",
        text=(
            "Beside one long flow from a 1 Gbps host (NIC-limited), DCTCP's message is not several times slower "
            f"than TCP's: mean completion time ≤ {SEVERAL_TIMES:g} × TCP's at 100 KB, 500 KB and 1 MB "
            f"({SEVERAL_TIMES:g}: §3.5's factor of 2-3 for DCTCP's convergence against TCP's)"
        ),
        paper=(
            "short messages (100 KB-1 MB) 14 ms faster than TCP at p95, unchanged from baseline (§4.3, Fig. 24); "
            f"ours: ≤ {SEVERAL_TIMES:g} × TCP"
        ),
        quote=FIG24_QUOTE,
        section="§4.3",
        check=_nic_limited,
    ),
    Claim(
        id="bottleneck-where-described",
        kind="check",
        text=(
            "At the message's start the long flows' bytes wait where each case says: in case 1 more in the long "
            "sender's NIC queue than at R's switch port, in cases 2 and 3 more at R's port than in the NICs (means, every size)"
        ),
        paper="(the premise of the three cases)",
        check=_bottlenecks,
    ),
    Claim(
        id="all-messages-complete",
        kind="check",
        text="Every short message completes, counter-runs included",
        paper=lambda m: f"{m['reps']} repetitions of each setting",
        check=_all_complete,
    ),
)


def plot(m: Metrics) -> Any:
    fig, axes = figure(1, len(CASES), size=(13.0, 4.2), sharey=True)
    xs = np.array(SIZES) / 1e3
    for ax, case in zip(axes, CASES):
        for proto in PROTOCOLS:
            st = [_st(m, proto, case.name, s) for s in SIZES]
            mean = np.array([s["mean_ms"] for s in st])
            mx = np.array([s["max_ms"] for s in st])
            ax.errorbar(
                xs,
                mean,
                yerr=[np.zeros_like(mean), mx - mean],
                color=COLORS[proto],
                marker="o",
                ms=4,
                capsize=3,
                label=f"{proto} (mean, bar to max)",
            )
        ideal = [_st(m, "TCP", case.name, s)["fair_share_ms"] for s in SIZES]
        alone = [_st(m, "TCP", case.name, s)["alone_ms"] for s in SIZES]
        ax.plot(xs, ideal, color="k", ls="--", lw=1, label=f"fair-share ideal (1/{case.sharers} of R)")
        ax.plot(xs, alone, color="grey", ls=":", lw=1, label="alone on the idle network")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(xs)
        ax.set_xticklabels([f"{int(x)} KB" if x < 1000 else "1 MB" for x in xs])
        ax.set_xlabel("Message size")
        ax.set_title(case.label, fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
    axes[0].set_ylabel("Completion time (ms)")
    nc = m["nic_backlog"]["DCTCP"]
    note(
        axes[0],
        "DCTCP 500 KB by NIC backlog limit\n(counter-run; * the testbed's):\n"
        + "\n".join(f"{lab}{' *' if st['testbed'] else ''}: {fmt(st['mean_ms'], 1)} ms" for lab, st in nc.items()),
        loc="lower right",
    )
    fig.suptitle("A short message starting beside long flows into the same receiver (ours; not a paper figure)", fontsize=10)
    return fig


EXPERIMENT = Experiment(
    id="dctcp-newcomer",
    paper="dctcp",
    figure="§3.5, §4.3",
    title="how fast a short message gets its share beside long flows (not a paper figure)",
    description=(
        "100 KB-1 MB messages starting beside a NIC-limited long flow, two long flows, or a 10 Gbps sender's, TCP vs DCTCP: "
        "completion time against the fair share, and where the long flows' windows wait."
    ),
    testbed="dctcp_testbed",
    scales={"smoke": {"reps": 2}, "quick": {"reps": 8}, "full": {"reps": 30}},
    scenarios=scenarios,
    analyze=analyze,
    claims=CLAIMS,
    plots={"newcomer": plot},
    notes=__doc__ or "",
    rerun=longer_if_unfinished,
)
