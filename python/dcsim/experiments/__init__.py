"""The paper-reproduction experiments, one module per figure, in paper order.

Each module has ``ID``, ``TITLE``, ``DESCRIPTION`` (one line) and
``run(scale, out_dir, jobs) -> {"claims": [...], "metrics": {...}}``; it writes the data
behind each plot (CSV) and the plots (PNG + SVG) into ``out_dir``. ``scale`` is ``"quick"``
(the whole suite in minutes) or ``"full"`` (the papers' durations).
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

SCALES = ("quick", "full")

# Module names in paper order: DCTCP, ICTCP, the CS244 reproduction, then the Judd slides.
_MODULES = (
    "dctcp_fig1",
    "dctcp_fig7",
    "dctcp_fig8",
    "dctcp_fig9",
    "dctcp_fig12",
    "dctcp_pi",
    "dctcp_burst_k",
    "dctcp_fig13",
    "dctcp_fig14",
    "dctcp_fig15",
    "dctcp_fig16",
    "dctcp_fairness90",
    "dctcp_convergence_sim",
    "dctcp_fig17",
    "dctcp_fig18",
    "dctcp_fig19",
    "dctcp_fig20",
    "dctcp_incast_variants",
    "dctcp_fig21",
    "dctcp_table2",
    "dctcp_fig22",
    "dctcp_fig23",
    "dctcp_fig24",
    "dctcp_benchmark_more",
    "ictcp_fig3",
    "ictcp_fig4",
    "ictcp_fig5",
    "ictcp_host_calibration",
    "ictcp_fig8",
    "ictcp_fig9",
    "ictcp_fig10",
    "ictcp_fig11",
    "ictcp_fig12",
    "ictcp_fig13",
    "ictcp_fig14",
    "ictcp_bg_udp",
    "ictcp_fig15",
    "ictcp_sec5_buffer",
    "cs244_fig2",
    "cs244_fig3",
    "cs244_fig4",
    "judd_task_completion_pdf",
    "judd_impact_of_timeouts",
    "judd_coexistence",
    "judd_red_ecn",
    "judd_connection_establishment",
    "judd_throughput_fairness",
    "judd_latency_table",
    "judd_stability_tcp",
    "judd_stability_dctcp",
    "judd_stability_tcp_2flows",
    "judd_rcvbuf_off",
    "judd_scale_table",
)

EXPERIMENTS: dict[str, ModuleType] = {
    m.ID: m for m in (import_module(f".{name}", __name__) for name in _MODULES)
}

# The source each experiment id reproduces, by its prefix: (short name, citation).
PAPERS: dict[str, tuple[str, str]] = {
    "dctcp": ("DCTCP", "Alizadeh et al., Data Center TCP (DCTCP), ACM SIGCOMM 2010"),
    "ictcp": (
        "ICTCP",
        "Wu et al., ICTCP: Incast Congestion Control for TCP in Data-Center Networks, "
        "IEEE/ACM ToN 2013",
    ),
    "cs244": ("CS244", "Stanford CS244 '17 reproduction of DCTCP Figs. 1, 13, 14 in ns-2"),
    "judd": (
        "Judd",
        "Judd (Morgan Stanley), Attaining the Promise and Avoiding the Pitfalls of TCP in "
        "the Datacenter (slides)",
    ),
}


def paper_of(exp_id: str) -> tuple[str, str]:
    """(short name, citation) of the source an experiment id reproduces."""
    prefix = exp_id.split("-", 1)[0]
    return PAPERS.get(prefix, (prefix, prefix))


def reproduces(title: str) -> str:
    """The figure or table an experiment title names, e.g. "DCTCP Fig. 13"."""
    return title.split(":", 1)[0].strip()


__all__ = ["EXPERIMENTS", "PAPERS", "SCALES", "paper_of", "reproduces"]
