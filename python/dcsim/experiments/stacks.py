"""Testbeds of hosts alone: one per TCP stack profile of the engine (docs/stacks.md).

`dcsim reproduce --testbed linux_current` reruns experiments with every host running current
Linux (the profile's fields, the engine's default host model), on the switches and links of
each experiment's own testbed: the question "what would this figure look like with other
hosts?" asked of any paper.
"""

from __future__ import annotations

import json
import re

from .declarations import Testbed


def stack_testbeds() -> tuple[Testbed, ...]:
    """A hosts-only testbed per stack profile, named after it."""
    from .. import _core

    return tuple(
        Testbed(
            name=profile["name"],
            summary=_first_sentence(profile["about"]) + " Hosts only: the experiment's own switches and links.",
            tcp={"profile": profile["name"]},
            network=False,
            sources={"tcp.profile": "docs/stacks.md gives the source of each of the profile's values"},
        )
        for profile in json.loads(_core.stack_profiles())
    )


def _first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence (one followed by a capital, not "Fig. 12")."""
    m = re.search(r"\.\s+(?=[A-Z])", text)
    return text[: m.start() + 1] if m else text
