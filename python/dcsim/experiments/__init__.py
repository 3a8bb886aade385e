"""The paper-reproduction experiments: one declaration per figure or table, one folder per
paper, in paper order.

Each experiment is a :class:`~dcsim.experiments.declarations.Experiment`: what it reproduces,
its testbed, the runs it needs, its analysis, its claims and its plots;
:mod:`dcsim.experiments.runner` carries it out. Each paper's folder (``dctcp/``, ``ictcp/``,
``cs244/``, ``judd/``) lists its experiments and defines its testbeds in ``testbeds.py``;
:mod:`dcsim.experiments.stacks` adds a testbed of a stack alone per TCP stack profile.
"""

from __future__ import annotations

from . import cs244, dctcp, ictcp, judd
from .declarations import KINDS, PAPERS, Claim, Experiment, Metrics, Paper, Runs, Testbed
from .stacks import stack_testbeds

SCALES = ("quick", "full")

EXPERIMENTS: dict[str, Experiment] = {e.id: e for e in (*dctcp.EXPERIMENTS, *ictcp.EXPERIMENTS, *cs244.EXPERIMENTS, *judd.EXPERIMENTS)}

TESTBEDS: dict[str, Testbed] = {t.name: t for t in (*dctcp.TESTBEDS, *ictcp.TESTBEDS, *cs244.TESTBEDS, *judd.TESTBEDS, *stack_testbeds())}

# Each experiment's own testbed, by the word `dcsim reproduce --testbeds` takes for it.
OWN = "own"


def testbed_for(experiment: Experiment, name: str | None = None) -> Testbed:
    """The testbed ``experiment`` runs on when asked for ``name`` (its own for None or
    :data:`OWN`); a stack alone runs on the experiment's own host model, switches and links."""
    own = TESTBEDS[experiment.testbed]
    if name is None or name == OWN:
        return own
    return TESTBEDS[name].on(own)


def paper_of(exp_id: str) -> Paper:
    """The source an experiment id reproduces, by its prefix."""
    prefix = exp_id.split("-", 1)[0]
    return PAPERS.get(prefix, Paper(prefix, prefix))


def _check_registry() -> None:
    for e in EXPERIMENTS.values():
        if e.testbed not in TESTBEDS:
            raise ValueError(f"{e.id}: testbed {e.testbed!r} is not one of {', '.join(TESTBEDS)}")


_check_registry()

__all__ = [
    "EXPERIMENTS",
    "KINDS",
    "OWN",
    "PAPERS",
    "SCALES",
    "TESTBEDS",
    "Claim",
    "Experiment",
    "Metrics",
    "Paper",
    "Runs",
    "Testbed",
    "paper_of",
    "testbed_for",
]
