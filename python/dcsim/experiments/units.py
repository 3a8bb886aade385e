"""Results in the papers' units: the one place an experiment turns the engine's seconds,
bit/s and bytes into the milliseconds, Gb/s and kilobytes a paper prints. Each works on a
number, a NumPy array or a pandas column alike."""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

# A number or an array of them (a pandas column is typed as Any).
T = TypeVar("T", float, np.ndarray, Any)

# The papers' kilobyte and megabyte are decimal (DCTCP §4: "700KB", "4MB" of the Triumph's
# 4,000,000-byte memory); a kibibyte is named as such where a source counts in 1024s.
KB = 1e3
KIB = 1024


def gbps(bits_per_s: T) -> T:
    """bit/s → Gb/s."""
    return bits_per_s / 1e9


def mbps(bits_per_s: T) -> T:
    """bit/s → Mb/s."""
    return bits_per_s / 1e6


def ms(seconds: T) -> T:
    """s → ms."""
    return seconds * 1e3


def us(seconds: T) -> T:
    """s → µs."""
    return seconds * 1e6


def kb(nbytes: T) -> T:
    """bytes → KB (1000 B)."""
    return nbytes / KB


def kib(nbytes: T) -> T:
    """bytes → KiB (1024 B)."""
    return nbytes / KIB
