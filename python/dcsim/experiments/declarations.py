"""What an experiment is: a declaration that :mod:`dcsim.experiments.runner` carries out.

An experiment names the figure or table it reproduces and the testbed it runs on, lists the
simulations it needs (:attr:`Experiment.scenarios`), turns their results into numbers and
tables (:attr:`Experiment.analyze`), states the paper's claims as predicates over those
numbers (:class:`Claim`) and draws its plots from them (:attr:`Experiment.plots`). It runs
nothing itself: the runner simulates (cached, across processes or on Dask), analyses,
judges the claims, draws and writes.

A :class:`Testbed` is what the hosts and the network of a paper's experiments are: the TCP
stack, the host model, the switch buffers and the links. Experiments build their scenarios
from the testbed they are given, so any experiment reruns on another one, or with another
stack on its own hardware (`dcsim reproduce --testbed NAME`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from ..results import Results


@dataclass(frozen=True)
class Paper:
    """A source the experiments reproduce: its short name and citation."""

    short: str
    citation: str


# The sources, by the prefix of their experiments' ids, in the order the report lists them.
PAPERS: dict[str, Paper] = {
    "dctcp": Paper("DCTCP", "Alizadeh et al., Data Center TCP (DCTCP), ACM SIGCOMM 2010"),
    "ictcp": Paper(
        "ICTCP",
        "Wu et al., ICTCP: Incast Congestion Control for TCP in Data-Center Networks, IEEE/ACM ToN 2013",
    ),
    "cs244": Paper("CS244", "Stanford CS244 '17 reproduction of DCTCP Figs. 1, 13, 14 in ns-2"),
    "judd": Paper(
        "Judd",
        "Judd (Morgan Stanley), Attaining the Promise and Avoiding the Pitfalls of TCP in the Datacenter (slides)",
    ),
}

# What a claim is (the report and the validation page count paper claims apart from checks).
Kind = Literal["paper", "check", "calibration", "derived"]
KINDS: dict[str, str] = {
    "paper": "a claim the paper makes, in its words, checked against our run",
    "derived": "a number the paper implies without stating it (read off a figure, or from its equations), checked against our run",
    "calibration": "a model setting fitted to a published number, checked to still fit it",
    "check": "a property of our own run that its measurement depends on (every query completes, every run delivers)",
}

# A claim id: lowercase words and numbers joined by single hyphens (`short-messages-p95`, `p99.9`).
_CLAIM_ID = re.compile(r"[a-z0-9]+(?:[-.][a-z0-9]+)*")


@dataclass(frozen=True)
class Testbed:
    """The hosts and network an experiment runs on, each value with its source.

    ``tcp`` is the hosts' stack: a ``tcp.profile`` (docs/stacks.md) and the fields set on top
    of it; ``tcp_cc`` the congestion control the stack runs as its TCP (what a figure's "TCP"
    is: NewReno on the papers' Windows hosts, CUBIC on Linux); ``tcp_by_cc`` adds fields for
    one congestion control (the agents a simulator's script gives each protocol). ``host`` is
    the host model (the scenario's ``host`` table: NIC queue, offload, interrupt moderation,
    receive processing, jitter, clocks); ``host_by_rate`` maps a line rate (Gb/s) to the values
    that differ for hosts at that rate or faster (their NICs and drivers);
    ``jitter_floor_packets``, a simulation testbed's noise floor, raises the hosts' transmit
    jitter to at least that many packet times of the bottleneck, so that equal flows cannot
    lock into one phase (Floyd & Jacobson, "On traffic phase effects in packet-switched
    gateways", 1992). ``buffers`` maps a line rate (Gb/s) to the switch
    buffer of ports up to that rate; ``link`` holds the link defaults (``delay_us``,
    ``framing_bytes``) and ``switch_link`` what differs on a link between two switches (a
    testbed whose base RTT is its hosts' puts that delay in the host links). A testbed of a
    stack alone (``stack_only``) brings only ``tcp``, ``tcp_cc`` and ``tcp_by_cc``: it runs on
    the host model, switches and links of the experiment's own testbed. ``sources`` gives, for each value by its scenario path, where it
    comes from.
    """

    name: str
    summary: str
    tcp: Mapping[str, Any]
    tcp_cc: str = "newreno"
    host: Mapping[str, Any] = field(default_factory=dict)
    host_by_rate: Mapping[float, Mapping[str, Any]] = field(default_factory=dict)
    jitter_floor_packets: float = 0.0
    tcp_by_cc: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    buffers: Mapping[float, Mapping[str, Any]] = field(default_factory=dict)
    link: Mapping[str, Any] = field(default_factory=dict)
    switch_link: Mapping[str, Any] = field(default_factory=dict)
    stack_only: bool = False
    paper: str | None = None
    sources: Mapping[str, str] = field(default_factory=dict)

    def tcp_for(self, cc: str | None, **fields: Any) -> dict[str, Any]:
        """The ``tcp`` table of a host running ``cc`` (None: the stack's own TCP, ``tcp_cc``):
        the stack, its agent for that congestion control, then ``fields`` (the experiment's
        own settings)."""
        cc = self.tcp_cc if cc is None else cc
        return {**self.tcp, "cc": cc, **self.tcp_by_cc.get(cc, {}), **fields}

    def host_at(self, rate_gbps: float) -> dict[str, Any]:
        """The host model of a scenario whose bottleneck runs at ``rate_gbps``: ``host`` with
        the values of the fastest rate of ``host_by_rate`` at or below it, its jitter raised to
        the noise floor of that bottleneck."""
        faster = [r for r in sorted(self.host_by_rate) if r <= rate_gbps]
        host = {**self.host, **(self.host_by_rate[faster[-1]] if faster else {})}
        if self.jitter_floor_packets > 0:
            packet_bits = (1500 + self.link.get("framing_bytes", 0)) * 8
            floor_us = self.jitter_floor_packets * packet_bits / (rate_gbps * 1e3)
            host["tx_jitter_us"] = max(float(host["tx_jitter_us"]), floor_us)
        return host

    def buffer(self, rate_gbps: float) -> dict[str, Any]:
        """The switch buffer of a port at ``rate_gbps``: the one for the slowest rate at or
        above it (the fastest one beyond them all)."""
        if not self.buffers:
            raise ValueError(f"testbed {self.name} has no switch buffers")
        rates = sorted(self.buffers)
        return dict(self.buffers[next((r for r in rates if r >= rate_gbps), rates[-1])])

    def link_at(self, rate_gbps: float, **fields: Any) -> dict[str, Any]:
        """A link at ``rate_gbps`` with the testbed's delay and framing, then ``fields``."""
        return {"rate_gbps": float(rate_gbps), **self.link, **fields}

    def switch_link_at(self, rate_gbps: float, **fields: Any) -> dict[str, Any]:
        """A link between two switches at ``rate_gbps``: the testbed's link with its
        ``switch_link`` values, then ``fields``."""
        return self.link_at(rate_gbps, **{**self.switch_link, **fields})

    def on(self, own: Testbed) -> Testbed:
        """This testbed for an experiment whose own testbed is ``own``: a stack alone runs on
        ``own``'s host model, switches and links; a whole testbed is as it is."""
        if not self.stack_only:
            return self
        sources = {**{k: v for k, v in own.sources.items() if not k.startswith("tcp")}, **self.sources}
        return replace(
            self,
            host=own.host,
            host_by_rate=own.host_by_rate,
            jitter_floor_packets=own.jitter_floor_packets,
            buffers=own.buffers,
            link=own.link,
            switch_link=own.switch_link,
            stack_only=False,
            sources=sources,
        )


@dataclass(frozen=True)
class Metrics:
    """What an experiment measured: ``values`` (numbers and small tables as plain data; they
    become summary.json's ``metrics``), ``tables`` (each written as ``NAME.csv``: the data
    behind the plots) and ``published`` (the source's tables with its numbers beside ours:
    ``{"title", "columns", "rows"}``, shown in the report)."""

    values: Mapping[str, Any]
    tables: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    published: tuple[Mapping[str, Any], ...] = ()

    def __getitem__(self, key: str) -> Any:
        return self.values[key]


# What a claim's predicate returns: whether it holds, and what we measured (one line of text).
Verdict = tuple[Any, str]


@dataclass(frozen=True)
class Claim:
    """One statement checked against a run.

    ``id`` is stable within its experiment (the report, the validation page and the test of
    expected outcomes know a claim by ``EXPERIMENT/ID``); ``kind`` says whose statement it is
    (:data:`KINDS`). ``text`` says what is checked and how (a sentence, or a function of the
    metrics when it names a number of the run); ``paper`` is the published value beside
    which ours is shown (also a function of the metrics where it depends on the scale);
    ``quote`` is the paper's own words and ``section`` where they are (a
    ``check`` has neither). ``check`` computes, from the metrics alone, whether the claim holds
    and what we measured.
    """

    id: str
    kind: Kind
    text: str | Callable[[Metrics], str]
    paper: str | Callable[[Metrics], str]
    check: Callable[[Metrics], Verdict]
    quote: str = ""
    section: str = ""

    def __post_init__(self) -> None:
        if not _CLAIM_ID.fullmatch(self.id):
            raise ValueError(f"claim id {self.id!r}: lowercase words and numbers joined by '-'")
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.kind != "check" and not (self.quote and self.section):
            raise ValueError(f"claim {self.id}: a {self.kind} claim gives the paper's words and their section")

    def judge(self, metrics: Metrics) -> dict[str, Any]:
        """The claim's row of summary.json: what is claimed, the paper's value and ours, and
        whether it holds, computed here from the metrics."""
        holds, measured = self.check(metrics)
        return {
            "claim": self.text(metrics) if callable(self.text) else self.text,
            "paper": self.paper(metrics) if callable(self.paper) else self.paper,
            "measured": measured,
            "holds": bool(holds),
            "kind": self.kind,
            "quote": self.quote,
            "section": self.section,
        }


# A run's key within its experiment: a label, or a tuple of the settings that tell it apart.
Key = Any
# An experiment's settings at one scale (its `scales[scale]`): durations, counts, sweeps.
Params = dict[str, Any]


class Runs(Mapping[Key, "Results"]):
    """The results of an experiment's simulations, by the keys its ``scenarios`` gave them,
    with the scale's parameters, the testbed and each run's scenario."""

    def __init__(
        self,
        scale: str,
        params: Params,
        testbed: Testbed,
        scenarios: Mapping[Key, dict[str, Any]],
        results: Mapping[Key, Results],
    ):
        self.scale = scale
        self.params = params
        self.testbed = testbed
        self.scenarios = scenarios
        self._results = results

    def __getitem__(self, key: Key) -> Results:
        return self._results[key]

    def __iter__(self) -> Iterator[Key]:
        return iter(self._results)

    def __len__(self) -> int:
        return len(self._results)

    def scenario(self, key: Key) -> dict[str, Any]:
        return self.scenarios[key]


@dataclass(frozen=True)
class Experiment:
    """One figure or table of a paper, reproduced.

    ``scenarios(params, testbed)`` gives the runs, by key, at a scale's parameters
    (``scales[scale]``); runs that several experiments need are built by one shared function
    and so simulated once (the run cache knows them by content). ``analyze(runs)`` turns
    their results into :class:`Metrics`, drawing nothing. ``claims`` are judged on the
    metrics; ``plots`` draw each figure from them (stem → function returning a matplotlib
    figure, saved as ``STEM.png`` and ``STEM.svg``). ``notes`` holds the setup, the choices
    the paper leaves open and the known deviations (the report shows them). ``rerun(scenario,
    result)``, when given, replaces a run whose result is not yet evidence (rounds that did not
    finish in the time a first guess gave them) by another scenario, up to ``reruns`` times;
    None keeps the result.
    """

    id: str
    paper: str
    figure: str
    title: str
    description: str
    testbed: str
    scales: Mapping[str, Params]
    scenarios: Callable[[Params, Testbed], Mapping[Key, dict[str, Any]]]
    analyze: Callable[[Runs], Metrics]
    claims: tuple[Claim, ...]
    plots: Mapping[str, Callable[[Metrics], Figure]] = field(default_factory=dict)
    notes: str = ""
    rerun: Callable[[dict[str, Any], Results], dict[str, Any] | None] | None = None
    reruns: int = 2

    def __post_init__(self) -> None:
        ids = [c.id for c in self.claims]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"{self.id}: claim ids repeat: {', '.join(repeated)}")
        if self.paper not in PAPERS or not self.id.startswith(f"{self.paper}-"):
            raise ValueError(f"{self.id}: paper {self.paper!r} is not one of {', '.join(PAPERS)}, or is not the id's prefix")
        if "\n" in self.description or not self.description.strip():
            raise ValueError(f"{self.id}: the description is one line")

    @property
    def full_title(self) -> str:
        """As the report heads it: "DCTCP Fig. 13: queue length CDF ..."."""
        return f"{self.reproduces}: {self.title}"

    @property
    def reproduces(self) -> str:
        """The figure or table, with its source: "DCTCP Fig. 13" (the source alone, "Judd",
        for an experiment of no one figure)."""
        return f"{PAPERS[self.paper].short} {self.figure}".rstrip()

    def params(self, scale: str) -> Params:
        """The parameters at ``scale``; ValueError naming the scales there are."""
        if scale not in self.scales:
            raise ValueError(f"{self.id}: scale must be one of {sorted(self.scales)}, got {scale!r}")
        return self.scales[scale]

    def claim_id(self, claim: Claim) -> str:
        return f"{self.id}/{claim.id}"
