"""Testbeds of a stack alone: one per TCP stack profile of the engine (docs/stacks.md).

`dcsim reproduce --testbed linux_current` reruns experiments with every host running current
Linux (the profile's fields, and CUBIC as its TCP) on the host hardware, switches and links of
each experiment's own testbed: the question "what would this figure look like with another
stack?" asked of any paper.
"""

from __future__ import annotations

import json
import re

from .declarations import Testbed

# What each stack runs as its TCP (profiles never set `cc`: a scenario chooses it).
TCP_CC = {
    # The papers' baseline on these hosts, "New Reno with SACK" (DCTCP §4, ICTCP §VII).
    "windows_2008r2": ("newreno", 'the DCTCP and ICTCP papers\' baseline on these hosts: "TCP New Reno (w/ SACK)"'),
    "linux_2_6_3x": ("cubic", "Linux's default congestion control since 2.6.19: CUBIC"),
    "linux_current": ("cubic", "Linux's default congestion control since 2.6.19: CUBIC"),
    "ns2": ("newreno", "ns-2's TCP agents are Reno and NewReno"),
    "ns3": ("cubic", "ns-3's default since ns-3.34: TcpL4Protocol SocketType = TcpCubic (tcp-l4-protocol.cc, ns-3.44)"),
}


def stack_testbeds() -> tuple[Testbed, ...]:
    """A testbed per stack profile, named after it: the stack alone."""
    from .. import _core

    testbeds = []
    for profile in json.loads(_core.stack_profiles()):
        name = profile["name"]
        cc, why = TCP_CC[name]
        testbeds.append(
            Testbed(
                name=name,
                summary=_first_sentence(profile["about"]) + " The stack alone: the experiment's own host model, switches and links.",
                tcp={"profile": name},
                tcp_cc=cc,
                stack_only=True,
                sources={"tcp.profile": "docs/stacks.md gives the source of each of the profile's values", "tcp.cc": why},
            )
        )
    return tuple(testbeds)


def _first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence (one followed by a capital, not "Fig. 12")."""
    m = re.search(r"\.\s+(?=[A-Z])", text)
    return text[: m.start() + 1] if m else text
