"""Scenarios: load them from TOML, check them, and build them in Python.

A scenario is a plain dict with the structure of `crates/dcsim/src/scenario.rs` (published
as `schema/scenario.schema.json`); TOML files and dicts are the same thing. Every field the
scenario leaves out takes the engine's default, so a small dict is a complete scenario::

    sc = star(3)
    sc["switch"] = {"aqm": {"kind": "threshold", "k_packets": 20}}
    sc["flows"] = long_flows([1, 2], dst=0, cc="dctcp")
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

from . import _core

# A field path as the engine writes it: `flows[2].dst`, `switch.buffer.limit_packets`.
_FIELD_PATH = re.compile(r"[A-Za-z0-9_.\[\]]+")
# tomllib ends its messages with the position of the problem.
_TOML_POSITION = re.compile(r"\s*\((at line \d+, column \d+|at end of document)\)$")


class ScenarioError(ValueError):
    """A scenario that cannot run: which file (or dict), which field, and why.

    `str()` is one line, `SOURCE: FIELD: REASON`, with the empty parts left out.
    """

    def __init__(self, source: str, field: str, reason: str):
        # Passing every part to ValueError keeps the error picklable across processes.
        super().__init__(source, field, reason)
        self.source = source
        self.field = field
        self.reason = " ".join(reason.split())

    def __str__(self) -> str:
        return ": ".join(part for part in (self.source, self.field, self.reason) if part)

    @classmethod
    def from_engine(cls, source: str, error: ValueError) -> ScenarioError:
        """Wrap the engine's `ValueError("FIELD: REASON")`."""
        message = str(error)
        field, sep, reason = message.partition(": ")
        if sep and (not field or _FIELD_PATH.fullmatch(field)):
            return cls(source, field.strip("."), reason)
        return cls(source, "", message)


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Read a TOML scenario file and check it; return it as a dict.

    Raises ScenarioError for a missing or unreadable file, bad TOML (naming the line) and
    anything the engine rejects (naming the field).
    """
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ScenarioError(source, "", "file does not exist") from None
    except OSError as e:
        raise ScenarioError(source, "", f"cannot read the file: {e.strerror}") from None
    try:
        scenario = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ScenarioError(source, "", "not a UTF-8 text file") from None
    except tomllib.TOMLDecodeError as e:
        message = str(e)
        position = _TOML_POSITION.search(message)
        where = position.group(1).removeprefix("at ") if position else ""
        reason = message[: position.start()] if position else message
        raise ScenarioError(source, where, f"invalid TOML: {reason}") from None
    validate(scenario, source)
    return scenario


def validate(scenario: dict[str, Any], source: str = "<scenario>") -> None:
    """Check a scenario dict with the engine, without running it."""
    text = to_json(scenario, source)
    try:
        _core.validate_json(text)
    except ValueError as e:
        raise ScenarioError.from_engine(source, e) from None


def to_json(scenario: dict[str, Any], source: str = "<scenario>") -> str:
    """The JSON text the engine reads.

    JSON has no NaN or infinity, and TOML has both: reject them here, naming the field,
    rather than let the engine report a syntax error at a position the user never wrote.
    TOML dates and times become strings, which the engine then rejects with a field name.
    """
    _check_finite(scenario, source, "")
    return json.dumps(scenario, default=str)


def _check_finite(value: Any, source: str, field: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(source, field, f"must be a finite number, got {value}")
    if isinstance(value, dict):
        for key, item in value.items():
            _check_finite(item, source, f"{field}.{key}" if field else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_finite(item, source, f"{field}[{i}]")


def star(hosts: int, rate_gbps: float = 1.0, delay_us: float = 25.0) -> dict[str, Any]:
    """A scenario with `hosts` hosts on one switch; host `i` sits on switch port `i`."""
    return {
        "topology": {
            "kind": "star",
            "hosts": hosts,
            "link": {"rate_gbps": rate_gbps, "delay_us": delay_us},
        }
    }


def long_flows(srcs: Iterable[int], dst: int, cc: str | None = None) -> list[dict[str, Any]]:
    """Long-lived bulk flows from each of `srcs` to `dst`, all opening at t = 0."""
    return [{"src": src, "dst": dst} | ({"cc": cc} if cc else {}) for src in srcs]
