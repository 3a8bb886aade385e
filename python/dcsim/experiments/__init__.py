"""The paper-reproduction experiments, one module per figure, in paper order.

Each module has ``ID``, ``TITLE``, ``DESCRIPTION`` (one line) and
``run(scale, out_dir, jobs) -> {"claims": [...], "metrics": {...}}``; it writes the data
behind each plot (CSV) and the plots (PNG + SVG) into ``out_dir``. ``scale`` is ``"quick"``
(the whole suite in minutes) or ``"full"`` (the papers' durations).
"""

from __future__ import annotations

from types import ModuleType

from . import cs244_fig2, cs244_fig3, cs244_fig4, dctcp_fig1, dctcp_fig12, dctcp_fig13, dctcp_fig14

SCALES = ("quick", "full")

EXPERIMENTS: dict[str, ModuleType] = {
    m.ID: m
    for m in (dctcp_fig1, dctcp_fig12, dctcp_fig13, dctcp_fig14, cs244_fig2, cs244_fig3, cs244_fig4)
}

__all__ = ["EXPERIMENTS", "SCALES"]
